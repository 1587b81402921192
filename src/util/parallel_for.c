#include "util/parallel_for.h"

#include "engine/cpu/cpu_engine.h"

#include <pthread.h>
#include <unistd.h>

#define GS_PARALLEL_MAX 256

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

void gs_parallel_for(unsigned threads, size_t n, gs_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (threads > GS_PARALLEL_MAX)
        threads = GS_PARALLEL_MAX;
    if (threads == 0)
        threads = 1;
    if ((size_t)threads > n)
        threads = (unsigned)n;
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
