/* What the parallel-for tests check of one call: every item covered once,
 * worker numbers below the thread count, static ranges calling each worker
 * once, chunks at most `grain` long. Shared by test_parallel_for.c and
 * test_thread_pool.c. Per-worker fields, so no two threads write one word. */
#ifndef GS_TESTS_RANGE_COVER_H
#define GS_TESTS_RANGE_COVER_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef struct range_cover {
    unsigned char *hits;
    unsigned threads, bad_worker;
    unsigned char calls[256];
    size_t longest[256];
} range_cover;

static void cover_mark(void *ctx, size_t b, size_t e, unsigned worker)
{
    range_cover *c = ctx;
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

static void cover_init(range_cover *c, size_t n, unsigned threads)
{
    memset(c, 0, sizeof *c);
    c->hits = calloc(n ? n : 1, 1);
    c->threads = threads;
    cr_assert_not_null(c->hits);
}

/* Checks a call over n items on `threads` threads, static ranges (chunked
 * 0) or chunks of `grain` (0 counts as 1), and frees the hits. */
static void cover_check(range_cover *c, size_t n, unsigned threads, int chunked, size_t grain)
{
    const size_t g = grain ? grain : 1;
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(c->hits[i], 1, "n %zu, %u threads, %s %zu: item %zu covered %u times", n, threads,
                     chunked ? "grain" : "ranges", grain, i, c->hits[i]);
    cr_assert_eq(c->bad_worker, 0, "a worker number at or past %u", threads);
    const unsigned used = threads < n ? threads : (unsigned)n;
    if (!chunked)
        for (unsigned w = 0; w < used && w < 256; w++)
            cr_assert_eq(c->calls[w], 1, "n %zu, %u threads: worker %u called %u times", n, threads, w, c->calls[w]);
    /* one thread, or one chunk, runs the whole range in one call */
    const size_t cap = threads <= 1 || (n + g - 1) / g <= 1 ? n : g;
    for (unsigned w = 0; chunked && w < threads && w < 256; w++)
        cr_assert_leq(c->longest[w], cap, "n %zu, %u threads, grain %zu: worker %u ran a range of %zu", n, threads,
                      grain, w, c->longest[w]);
    free(c->hits);
    c->hits = NULL;
}

#endif
