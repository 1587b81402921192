/* gs_pool_for and gs_pool_for_chunks: the same coverage as gs_parallel_for
 * and gs_parallel_for_chunks (every item once; static ranges call every
 * worker once; chunks at most `grain` long), over many calls on one pool,
 * and the fallbacks: no pool, more threads than the pool holds, a call from
 * inside one of the pool's own ranges, and two threads sharing a pool. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/thread_pool.h"

typedef struct cover {
    unsigned char *hits;
    size_t grain;
    unsigned threads;
    unsigned char calls[256];
    size_t longest[256];
    unsigned bad_worker;
} cover;

static void mark(void *ctx, size_t b, size_t e, unsigned worker)
{
    cover *c = ctx;
    for (size_t i = b; i < e; i++)
        c->hits[i]++;
    if (worker >= c->threads || worker >= 256) {
        c->bad_worker = 1;
        return;
    }
    c->calls[worker]++;
    if (e - b > c->longest[worker])
        c->longest[worker] = e - b;
}

/* One call of either form on p, checked. */
static void check_call(gs_pool *p, unsigned threads, size_t n, int chunks, size_t grain)
{
    cover c;
    memset(&c, 0, sizeof c);
    c.hits = calloc(n ? n : 1, 1);
    c.threads = threads;
    cr_assert_not_null(c.hits);
    if (chunks)
        gs_pool_for_chunks(p, threads, n, grain, mark, &c);
    else
        gs_pool_for(p, threads, n, mark, &c);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(c.hits[i], 1, "n %zu, %u threads, %s: item %zu covered %u times", n, threads,
                     chunks ? "chunks" : "ranges", i, c.hits[i]);
    cr_assert_eq(c.bad_worker, 0, "a worker number at or past %u", threads);
    const unsigned used = threads < n ? threads : (unsigned)n;
    if (!chunks)
        for (unsigned w = 0; w < used; w++)
            cr_assert_eq(c.calls[w], 1, "n %zu, %u threads: worker %u called %u times", n, threads, w, c.calls[w]);
    if (chunks && used > 1 && (n + (grain ? grain : 1) - 1) / (grain ? grain : 1) > 1)
        for (unsigned w = 0; w < used; w++)
            cr_assert_leq(c.longest[w], grain ? grain : 1, "worker %u ran a range of %zu", w, c.longest[w]);
    free(c.hits);
}

Test(thread_pool, covers_every_item_once)
{
    gs_pool *p = gs_pool_new(8);
    cr_assert_not_null(p, "8 threads could not start");
    const size_t sizes[] = {0, 1, 2, 7, 64, 1000, 4097};
    const unsigned threads[] = {1, 2, 3, 8};
    const size_t grains[] = {0, 1, 5, 64, 10000};
    for (int round = 0; round < 20; round++) /* many generations on one pool */
        for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
            for (size_t b = 0; b < sizeof threads / sizeof threads[0]; b++) {
                check_call(p, threads[b], sizes[a], 0, 0);
                for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++)
                    check_call(p, threads[b], sizes[a], 1, grains[g]);
            }
    gs_pool_free(p);
}

Test(thread_pool, falls_back_without_a_pool_or_beyond_it)
{
    cr_assert_null(gs_pool_new(1), "one thread needs no pool");
    cr_assert_null(gs_pool_new(0));
    check_call(NULL, 4, 1000, 0, 0);
    check_call(NULL, 4, 1000, 1, 7);
    gs_pool *p = gs_pool_new(3);
    cr_assert_not_null(p);
    check_call(p, 16, 1000, 0, 0); /* more threads than the pool holds */
    check_call(p, 16, 1000, 1, 9);
    gs_pool_free(p);
    gs_pool_free(NULL);
}

/* A range that itself runs a call on the same pool (busy: it must fall
 * back, not wait for itself). */
typedef struct nested {
    gs_pool *p;
    cover inner[4];
} nested;

static void outer_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    nested *x = ctx;
    (void)b, (void)e;
    cover *c = &x->inner[worker];
    c->threads = 3;
    gs_pool_for(x->p, 3, 100, mark, c);
}

Test(thread_pool, nested_call_completes)
{
    gs_pool *p = gs_pool_new(4);
    cr_assert_not_null(p);
    nested x;
    memset(&x, 0, sizeof x);
    x.p = p;
    for (int w = 0; w < 4; w++) {
        x.inner[w].hits = calloc(100, 1);
        cr_assert_not_null(x.inner[w].hits);
    }
    gs_pool_for(p, 4, 4, outer_range, &x);
    for (int w = 0; w < 4; w++) {
        for (size_t i = 0; i < 100; i++)
            cr_assert_eq(x.inner[w].hits[i], 1, "worker %d's inner call: item %zu covered %u times", w, i,
                         x.inner[w].hits[i]);
        free(x.inner[w].hits);
    }
    gs_pool_free(p);
}

/* Two threads calling into one pool at once: one runs on it, the other
 * falls back; both complete. */
typedef struct sharer {
    gs_pool *p;
    int ok;
} sharer;

static void *share(void *arg)
{
    sharer *s = arg;
    s->ok = 1;
    for (int k = 0; k < 200 && s->ok; k++) {
        cover c;
        memset(&c, 0, sizeof c);
        c.hits = calloc(513, 1);
        c.threads = 4;
        if (!c.hits)
            return NULL;
        if (k & 1)
            gs_pool_for_chunks(s->p, 4, 513, 16, mark, &c);
        else
            gs_pool_for(s->p, 4, 513, mark, &c);
        for (size_t i = 0; i < 513; i++)
            if (c.hits[i] != 1)
                s->ok = 0;
        free(c.hits);
    }
    return NULL;
}

Test(thread_pool, two_callers_share_a_pool)
{
    gs_pool *p = gs_pool_new(4);
    cr_assert_not_null(p);
    sharer a = {p, 0}, b = {p, 0};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, share, &a), 0);
    share(&b);
    pthread_join(t, NULL);
    cr_assert(a.ok && b.ok, "a call missed or repeated items (a %d, b %d)", a.ok, b.ok);
    gs_pool_free(p);
}
