/* gs_pool_for and gs_pool_for_chunks: the same coverage as gs_parallel_for
 * and gs_parallel_for_chunks (every item once; static ranges call every
 * worker once; chunks at most `grain` long), over many calls on one pool,
 * and the fallbacks: no pool, more threads than the pool holds, a call from
 * inside one of the pool's own ranges, and two threads sharing a pool. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "range_cover.h"
#include "util/thread_pool.h"

/* One call of either form on p, checked. */
static void check_call(gs_pool *p, unsigned threads, size_t n, int chunks, size_t grain)
{
    range_cover c;
    cover_init(&c, n, threads);
    if (chunks)
        gs_pool_for_chunks(p, threads, n, grain, cover_mark, &c);
    else
        gs_pool_for(p, threads, n, cover_mark, &c);
    cover_check(&c, n, threads, chunks, grain);
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
    range_cover inner[4];
} nested;

static void outer_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    nested *x = ctx;
    (void)b, (void)e;
    gs_pool_for(x->p, 3, 100, cover_mark, &x->inner[worker]);
}

Test(thread_pool, nested_call_completes)
{
    gs_pool *p = gs_pool_new(4);
    cr_assert_not_null(p);
    nested x;
    memset(&x, 0, sizeof x);
    x.p = p;
    for (int w = 0; w < 4; w++)
        cover_init(&x.inner[w], 100, 3);
    gs_pool_for(p, 4, 4, outer_range, &x);
    for (int w = 0; w < 4; w++)
        cover_check(&x.inner[w], 100, 3, 0, 0);
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
        range_cover c;
        memset(&c, 0, sizeof c);
        c.hits = calloc(513, 1);
        c.threads = 4;
        if (!c.hits)
            return NULL;
        if (k & 1)
            gs_pool_for_chunks(s->p, 4, 513, 16, cover_mark, &c);
        else
            gs_pool_for(s->p, 4, 513, cover_mark, &c);
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
