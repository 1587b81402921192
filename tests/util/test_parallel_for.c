/* gs_parallel_for covers [0, n) once with every worker called, and
 * gs_threads_for stays within its bounds: at least one thread, at most the
 * cores, max_threads and n / min_per. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "range_cover.h"
#include "util/parallel_for.h"

typedef struct cover {
    unsigned char *hits;
    unsigned char workers[256];
} cover;

static void mark(void *ctx, size_t begin, size_t end, unsigned worker)
{
    cover *c = ctx;
    for (size_t i = begin; i < end; i++)
        c->hits[i]++;
    c->workers[worker]++;
}

Test(parallel_for, covers_every_item_once)
{
    const size_t sizes[] = {1, 2, 7, 64, 1000, 4097};
    const unsigned threads[] = {1, 2, 3, 8, 64};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof threads / sizeof threads[0]; b++) {
            const size_t n = sizes[a];
            const unsigned t = threads[b] > n ? (unsigned)n : threads[b];
            cover c = {calloc(n, 1), {0}};
            cr_assert_not_null(c.hits);
            gs_parallel_for(t, n, mark, &c);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(c.hits[i], 1, "n %zu, %u threads: item %zu covered %u times", n, t, i, c.hits[i]);
            for (unsigned w = 0; w < t; w++)
                cr_assert_eq(c.workers[w], 1, "n %zu, %u threads: worker %u called %u times", n, t, w, c.workers[w]);
            free(c.hits);
        }
}

Test(parallel_for, threads_for_bounds)
{
    const unsigned cores = gs_online_cores();
    cr_assert_geq(cores, 1u);
    cr_assert_eq(gs_threads_for(0, 256, 64), 1u, "no items: one thread");
    cr_assert_eq(gs_threads_for(255, 256, 64), 1u, "fewer items than one thread's share");
    cr_assert_eq(gs_threads_for(1000000, 1, 1), 1u, "max_threads 1");
    for (size_t n = 1; n < 5000; n = n * 3 + 1) {
        unsigned t = gs_threads_for(n, 16, 8);
        cr_assert(t >= 1 && t <= 8 && t <= cores, "n %zu: %u threads", n, t);
        cr_assert(t == 1 || t <= n / 16, "n %zu: %u threads get fewer than 16 items each", n, t);
        unsigned want = cores < 8 ? cores : 8;
        if (n / 16 < want)
            want = n / 16 ? (unsigned)(n / 16) : 1;
        cr_assert_eq(t, want, "n %zu", n);
    }
    cr_assert_eq(gs_threads_for(5, 0, 64), cores < 64 ? cores : 64, "min_per 0: no share limit");
}

/* gs_parallel_for_chunks: every item once, every range at most `grain`
 * long, workers below the thread count; grain 0 and grains past n too. */
Test(parallel_for, chunks_cover_every_item_once)
{
    const size_t sizes[] = {1, 2, 7, 64, 1000, 4097};
    const unsigned threads[] = {1, 2, 3, 8, 64};
    const size_t grains[] = {0, 1, 5, 64, 10000};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof threads / sizeof threads[0]; b++)
            for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
                range_cover c;
                cover_init(&c, sizes[a], threads[b]);
                gs_parallel_for_chunks(threads[b], sizes[a], grains[g], cover_mark, &c);
                cover_check(&c, sizes[a], threads[b], 1, grains[g]);
            }
}
