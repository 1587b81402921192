/* A set of parked threads that runs gs_parallel_for's work without starting
 * threads for every call. Starting and joining 15 threads cost ~375 us a
 * call on the H200's 16-core host, and a keccakf-1024 proof on the CPU
 * engine makes ~180 such calls, many of them for a millisecond of work.
 *
 * A pool belongs to one owner (the CPU engine has one) and runs one call at
 * a time. A call made while the pool is busy (from inside one of its own
 * ranges, or from a second thread) or for more threads than it holds runs
 * through gs_parallel_for instead, so a call always completes, with the
 * same ranges and worker numbers either way. */
#ifndef GS_UTIL_THREAD_POOL_H
#define GS_UTIL_THREAD_POOL_H

#include <stddef.h>

#include "util/parallel_for.h"

typedef struct gs_pool gs_pool;

/* Where a module's parallel work runs: up to `threads` threads, on `pool`'s
 * parked threads (NULL: threads started per call, as gs_parallel_for).
 * Modules outside the engines (the Merkle tree) take one of these, so an
 * engine's calls reuse its pool and a test's need none. */
typedef struct gs_workers {
    gs_pool *pool;
    unsigned threads;
} gs_workers;

/* A pool for calls of up to `threads` threads (the caller counts as one, so
 * threads - 1 are started). NULL for threads <= 1, or when memory or a
 * thread could not be had: the functions below then start threads per
 * call, as gs_parallel_for does. */
gs_pool *gs_pool_new(unsigned threads);

/* Stops and joins the pool's threads. NULL is allowed. */
void gs_pool_free(gs_pool *p);

/* gs_parallel_for (contiguous ranges, every worker called once) on the
 * pool's threads. */
void gs_pool_for(gs_pool *p, unsigned threads, size_t n, gs_range_fn fn, void *ctx);

/* gs_parallel_for_chunks on the pool's threads. */
void gs_pool_for_chunks(gs_pool *p, unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx);

#endif
