#include "util/parallel_for.h"

#include "engine/cpu/cpu_engine.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct job {
    gs_range_fn fn;
    void *ctx;
    size_t begin, end;
    unsigned worker;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    j->fn(j->ctx, j->begin, j->end, j->worker);
    return NULL;
}

/* The threads to start for `units` pieces of work: at least 1, at most
 * GS_PARALLEL_MAX and the units. */
static unsigned clamp_threads(unsigned threads, size_t units)
{
    if (threads > GS_PARALLEL_MAX)
        threads = GS_PARALLEL_MAX;
    if ((size_t)threads > units)
        threads = (unsigned)units;
    return threads ? threads : 1;
}

void gs_parallel_for(unsigned threads, size_t n, gs_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    threads = clamp_threads(threads, n);
    if (threads == 1) {
        fn(ctx, 0, n, 0);
        return;
    }
    job jobs[GS_PARALLEL_MAX];
    pthread_t tids[GS_PARALLEL_MAX];
    int started[GS_PARALLEL_MAX];
    for (unsigned t = 0; t < threads; t++) {
        jobs[t].fn = fn;
        jobs[t].ctx = ctx;
        jobs[t].begin = n * t / threads;
        jobs[t].end = n * (t + 1) / threads;
        jobs[t].worker = t;
        started[t] = 0;
    }
    for (unsigned t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, run_job, &jobs[t]) == 0;
    run_job(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            run_job(&jobs[t]);
    }
}

/* gs_parallel_for_chunks: the shared counter and what each thread runs. */
typedef struct chunk_pool {
    atomic_size_t next;
    size_t n, grain;
    gs_range_fn fn;
    void *ctx;
} chunk_pool;

typedef struct chunk_worker {
    chunk_pool *pool;
    unsigned worker;
} chunk_worker;

void gs_take_chunks(atomic_size_t *next, size_t n, size_t grain, gs_range_fn fn, void *ctx, unsigned worker)
{
    for (;;) {
        size_t b = atomic_fetch_add_explicit(next, grain, memory_order_relaxed);
        if (b >= n)
            return;
        fn(ctx, b, n - b < grain ? n : b + grain, worker);
    }
}

static void *take_chunks(void *arg)
{
    chunk_worker *w = arg;
    chunk_pool *p = w->pool;
    gs_take_chunks(&p->next, p->n, p->grain, p->fn, p->ctx, w->worker);
    return NULL;
}

void gs_parallel_for_chunks(unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    threads = clamp_threads(threads, n / grain + (n % grain != 0));
    if (threads == 1) {
        fn(ctx, 0, n, 0);
        return;
    }
    chunk_pool pool = {.n = n, .grain = grain, .fn = fn, .ctx = ctx};
    atomic_init(&pool.next, 0);
    chunk_worker ws[GS_PARALLEL_MAX];
    pthread_t tids[GS_PARALLEL_MAX];
    int started[GS_PARALLEL_MAX];
    for (unsigned t = 0; t < threads; t++) {
        ws[t] = (chunk_worker){&pool, t};
        started[t] = t > 0 && pthread_create(&tids[t], NULL, take_chunks, &ws[t]) == 0;
    }
    /* a thread that could not start leaves its chunks to the others */
    take_chunks(&ws[0]);
    for (unsigned t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tids[t], NULL);
}

unsigned gs_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

unsigned gs_threads_for(size_t n, size_t min_per, unsigned max_threads)
{
    size_t t = gs_online_cores();
    if (min_per && t > n / min_per)
        t = n / min_per;
    if (t > max_threads)
        t = max_threads;
    return t ? (unsigned)t : 1;
}
