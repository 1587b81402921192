/* CPU engine internals shared by its family implementations. */
#ifndef GS_ENGINE_CPU_ENGINE_H
#define GS_ENGINE_CPU_ENGINE_H

#include "engine/engine.h"
#include "field/simd_isa.h"

typedef struct gs_cpu_state {
    unsigned threads;
    /* the widest vector instruction set kernels may use: the best this CPU
     * runs, capped by GLSTARK_CPU_SIMD; tests lower it to check every path
     * on one machine (GS_SIMD_NONE: plain C everywhere) */
    gs_simd_isa simd;
    struct gs_zc_cache *zc_cache; /* compiled constraint programs (src/engine/zc_code.h) */
} gs_cpu_state;

/* The vector set eng's kernels use. */
static inline gs_simd_isa gs_cpu_simd(const gs_engine *eng) { return ((const gs_cpu_state *)eng->impl)->simd; }

/* The CPU engine's thread count (at least 1). */
unsigned gs_cpu_threads(const gs_engine *eng);
/* Workers a CPU-engine kernel should use for n items: the engine's threads,
 * at most n, at least 1. */
unsigned gs_cpu_parts(const gs_engine *eng, size_t n);

/* The set the engine's kernels use: the widest this CPU runs, capped by
 * env (GLSTARK_CPU_SIMD's value: NULL, "", auto, avx512, avx2, neon, none); a
 * set the CPU lacks or an unknown name is an error with the reason. */
glstark_status gs_cpu_simd_choice(const char *env, gs_simd_isa *out, gs_error *err);

/* Sets eng->dft, eng->hash, ... to the CPU implementations that exist
 * (src/engine/cpu/families.c). */
void gs_cpu_engine_attach_families(gs_engine *eng);

#endif
