/* CPU engine internals shared by its family implementations. */
#ifndef GS_ENGINE_CPU_ENGINE_H
#define GS_ENGINE_CPU_ENGINE_H

#include "engine/cpu/kernels.h"
#include "engine/engine.h"
#include "util/thread_pool.h"

typedef struct gs_cpu_state {
    unsigned threads;
    /* the vector kernels of the widest set this CPU runs, capped by
     * GLSTARK_CPU_SIMD (kernels.h); tests lower it to check every path on
     * one machine (gs_cpu_kernels_of(GS_SIMD_NONE): plain C everywhere) */
    const gs_cpu_kernels *kernels;
    struct gs_zc_cache *zc_cache; /* compiled constraint programs (src/engine/zc_code.h) */
    gs_pool *pool; /* the engine's parked threads (NULL: each call starts its own) */
} gs_cpu_state;

/* eng's vector kernels, and their set. */
static inline const gs_cpu_kernels *gs_cpu_engine_kernels(const gs_engine *eng)
{
    return ((const gs_cpu_state *)eng->impl)->kernels;
}
static inline gs_simd_isa gs_cpu_simd(const gs_engine *eng) { return gs_cpu_engine_kernels(eng)->isa; }

/* The CPU engine's thread count (at least 1). */
unsigned gs_cpu_threads(const gs_engine *eng);
/* Its threads and pool, for modules that take gs_workers (the Merkle tree). */
gs_workers gs_cpu_workers(const gs_engine *eng);
/* gs_parallel_for and gs_parallel_for_chunks on the engine's parked threads
 * (util/thread_pool.h): same ranges, same worker numbers, no thread starts.
 * The CPU engine's kernels use these. */
void gs_cpu_for(const gs_engine *eng, unsigned threads, size_t n, gs_range_fn fn, void *ctx);
void gs_cpu_for_chunks(const gs_engine *eng, unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx);

/* Workers a CPU-engine kernel should use for n items: the engine's threads,
 * at most n, at least 1. */
unsigned gs_cpu_parts(const gs_engine *eng, size_t n);

/* Sets eng->dft, eng->hash, ... to the CPU implementations that exist
 * (src/engine/cpu/families.c). */
void gs_cpu_engine_attach_families(gs_engine *eng);

#endif
