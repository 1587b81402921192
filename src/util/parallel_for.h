/* A minimal fork-join helper for host-side work (the CPU engine's kernels,
 * trace generation, canonical-form scans, the GLES engine's uploads): split
 * [0, n) into at most `threads` contiguous chunks and run them on
 * short-lived pthreads. Chunk 0 runs on the calling thread. If a thread
 * cannot be started its chunk runs on the caller, so the call always
 * completes. Cheap enough (tens of µs) for work items of a millisecond or
 * more. */
#ifndef GS_UTIL_PARALLEL_FOR_H
#define GS_UTIL_PARALLEL_FOR_H

#include <stdatomic.h>
#include <stddef.h>

typedef void (*gs_range_fn)(void *ctx, size_t begin, size_t end, unsigned worker);

/* The most threads one call uses (more are capped): the size of any
 * per-worker array a caller keeps. */
#define GS_PARALLEL_MAX 256

/* Calls fn(ctx, b, e, worker) for disjoint ranges covering [0, n); worker is
 * the chunk number (< threads), usable to pick per-thread scratch. With
 * 1 <= threads <= n (and threads <= GS_PARALLEL_MAX) fn runs exactly `threads` times,
 * so per-worker partials 0 .. threads-1 are all written; n = 0 calls nothing. */
void gs_parallel_for(unsigned threads, size_t n, gs_range_fn fn, void *ctx);

/* As gs_parallel_for, but the threads take chunks of `grain` items (the last
 * may be shorter) from a shared counter until none are left, so a thread
 * that runs slower (a busier core, a costlier chunk) does less of the work
 * instead of making the rest wait. fn may run several times per worker, or
 * not at all when there are fewer chunks than threads; `worker` (< threads)
 * still names the calling thread, for per-thread scratch. Which worker gets
 * which chunk varies from run to run: use it only where each item's result
 * does not depend on that. grain 0 counts as 1. */
void gs_parallel_for_chunks(unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx);

/* One thread's part of a chunked call: takes chunks of `grain` items from
 * *next until it passes n and runs fn on each as `worker`. The one chunk
 * loop of gs_parallel_for_chunks and of the thread pool (thread_pool.c). */
void gs_take_chunks(atomic_size_t *next, size_t n, size_t grain, gs_range_fn fn, void *ctx, unsigned worker);

/* Cores online (at least 1): the default thread count of host-side work. */
unsigned gs_online_cores(void);

/* Threads for n items that each thread should get at least min_per of
 * (below that a thread's start costs more than it takes over): the cores
 * online, at most n / min_per and max_threads, at least 1. */
unsigned gs_threads_for(size_t n, size_t min_per, unsigned max_threads);

#endif
