/* Parked threads for gs_parallel_for's work (thread_pool.h). A call hands
 * the pool one job under its mutex and bumps a generation counter; each
 * worker wakes, runs its part if the job numbers it, and reports back; the
 * caller runs part 0 itself and waits until every part it handed out has
 * reported. */
#include "util/thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* One call's work: static ranges (grain 0) or chunks from `next`. */
typedef struct pool_job {
    gs_range_fn fn;
    void *ctx;
    size_t n, grain;
    unsigned threads;
    atomic_size_t next;
} pool_job;

typedef struct pool_worker {
    struct gs_pool *pool;
    unsigned index; /* its part in a job: 1 .. size - 1 */
} pool_worker;

struct gs_pool {
    pthread_mutex_t in_use; /* held by the caller for a whole call (try-locked) */
    pthread_mutex_t m;      /* guards the fields below */
    pthread_cond_t go, done;
    uint64_t generation;
    unsigned pending; /* parts handed out and not yet reported */
    int quit;
    pool_job job;
    unsigned size;    /* threads a call may use: started workers + the caller */
    pool_worker *workers;
    pthread_t *tids;
};

/* Part w of the job: its static range, or chunks until none are left. */
static void run_part(pool_job *j, unsigned w)
{
    if (j->grain == 0) {
        size_t b = j->n * w / j->threads, e = j->n * (w + 1) / j->threads;
        j->fn(j->ctx, b, e, w);
        return;
    }
    gs_take_chunks(&j->next, j->n, j->grain, j->fn, j->ctx, w);
}

static void *worker_main(void *arg)
{
    pool_worker *me = arg;
    gs_pool *p = me->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->m);
    for (;;) {
        while (p->generation == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->m);
        if (p->quit)
            break;
        seen = p->generation;
        if (me->index >= p->job.threads)
            continue; /* this job has fewer parts */
        pthread_mutex_unlock(&p->m);
        run_part(&p->job, me->index);
        pthread_mutex_lock(&p->m);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

gs_pool *gs_pool_new(unsigned threads)
{
    if (threads > GS_PARALLEL_MAX)
        threads = GS_PARALLEL_MAX;
    if (threads <= 1)
        return NULL;
    gs_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->workers = calloc(threads, sizeof *p->workers);
    p->tids = calloc(threads, sizeof *p->tids);
    if (!p->workers || !p->tids || pthread_mutex_init(&p->in_use, NULL)) {
        free(p->workers), free(p->tids), free(p);
        return NULL;
    }
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->job.next, 0);
    p->size = 1;
    for (unsigned i = 1; i < threads; i++) {
        p->workers[i] = (pool_worker){p, i};
        if (pthread_create(&p->tids[i], NULL, worker_main, &p->workers[i]))
            break;
        p->size = i + 1;
    }
    if (p->size < threads) { /* a thread could not start: no pool */
        gs_pool_free(p);
        return NULL;
    }
    return p;
}

void gs_pool_free(gs_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->m);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->m);
    for (unsigned i = 1; i < p->size; i++)
        pthread_join(p->tids[i], NULL);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->m);
    pthread_mutex_destroy(&p->in_use);
    free(p->workers);
    free(p->tids);
    free(p);
}

/* Runs the job on `threads` parts (2 <= threads <= p->size). */
static void run_job(gs_pool *p, unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx)
{
    pthread_mutex_lock(&p->m);
    p->job.fn = fn;
    p->job.ctx = ctx;
    p->job.n = n;
    p->job.grain = grain;
    p->job.threads = threads;
    atomic_store_explicit(&p->job.next, 0, memory_order_relaxed);
    p->pending = threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->m);
    run_part(&p->job, 0);
    pthread_mutex_lock(&p->m);
    while (p->pending)
        pthread_cond_wait(&p->done, &p->m);
    pthread_mutex_unlock(&p->m);
}

/* Runs on the pool when it is free and the call needs 2 .. size threads;
 * otherwise gs_parallel_for or gs_parallel_for_chunks (grain 0: static
 * ranges) take the call, edge cases (n = 0, threads 0 or 1) included. */
static void pool_call(gs_pool *p, unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx)
{
    const size_t units = grain ? n / grain + (n % grain != 0) : n;
    if ((size_t)threads > units)
        threads = (unsigned)units;
    if (!p || threads < 2 || threads > p->size || pthread_mutex_trylock(&p->in_use)) {
        if (grain)
            gs_parallel_for_chunks(threads, n, grain, fn, ctx);
        else
            gs_parallel_for(threads, n, fn, ctx);
        return;
    }
    run_job(p, threads, n, grain, fn, ctx);
    pthread_mutex_unlock(&p->in_use);
}

void gs_pool_for(gs_pool *p, unsigned threads, size_t n, gs_range_fn fn, void *ctx)
{
    pool_call(p, threads, n, 0, fn, ctx);
}

void gs_pool_for_chunks(gs_pool *p, unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx)
{
    pool_call(p, threads, n, grain ? grain : 1, fn, ctx);
}
