/* A minimal fork-join helper for host-side work (the CPU engine's kernels,
 * trace generation, canonical-form scans, the GLES engine's uploads): split
 * [0, n) into at most `threads` contiguous chunks and run them on
 * short-lived pthreads. Chunk 0 runs on the calling thread. If a thread
 * cannot be started its chunk runs on the caller, so the call always
 * completes. Cheap enough (tens of µs) for work items of a millisecond or
 * more. */
#ifndef GS_UTIL_PARALLEL_FOR_H
#define GS_UTIL_PARALLEL_FOR_H

#include <stddef.h>

typedef void (*gs_range_fn)(void *ctx, size_t begin, size_t end, unsigned worker);

/* Calls fn(ctx, b, e, worker) for disjoint ranges covering [0, n); worker is
 * the chunk number (< threads), usable to pick per-thread scratch. With
 * 1 <= threads <= n (and threads <= 256) fn runs exactly `threads` times,
 * so per-worker partials 0 .. threads-1 are all written; n = 0 calls nothing. */
void gs_parallel_for(unsigned threads, size_t n, gs_range_fn fn, void *ctx);

/* Cores online (at least 1): the default thread count of host-side work. */
unsigned gs_online_cores(void);

/* Threads for n items that each thread should get at least min_per of
 * (below that a thread's start costs more than it takes over): the cores
 * online, at most n / min_per and max_threads, at least 1. */
unsigned gs_threads_for(size_t n, size_t min_per, unsigned max_threads);

#endif
