/* See canonical.h. */
#include "field/canonical.h"

#include "util/parallel_for.h"
#include "field/babybear.h"

#define CANON_THREADS_MAX 8
#define CANON_PAR_MIN ((size_t)1 << 22)

/* First bad index in [b0, n), or n. Blocks of 4096 are tested with an OR of
 * comparisons (vectorizes), and only a block with a hit is searched. */
static size_t scan(const uint32_t *v, size_t b0, size_t n)
{
    const size_t block = 4096;
    for (size_t b = b0; b < n; b += block) {
        size_t e = n - b < block ? n : b + block;
        uint32_t any = 0;
        for (size_t i = b; i < e; i++)
            any |= (uint32_t)(v[i] >= BB_P);
        if (any)
            for (size_t i = b; i < e; i++)
                if (v[i] >= BB_P)
                    return i;
    }
    return n;
}

typedef struct canon_job {
    const uint32_t *v;
    size_t n, parts;
    size_t first[CANON_THREADS_MAX]; /* per part: its first bad index, or n */
} canon_job;

static void scan_part(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    canon_job *j = ctx;
    for (size_t p = b; p < e; p++) {
        size_t lo = j->n / j->parts * p, hi = p + 1 == j->parts ? j->n : j->n / j->parts * (p + 1);
        size_t r = scan(j->v, lo, hi);
        j->first[p] = r < hi ? r : j->n;
    }
}

size_t gs_first_non_canonical(const uint32_t *v, size_t n, unsigned threads)
{
    if (threads == 0)
        threads = gs_online_cores();
    size_t parts = threads > CANON_THREADS_MAX ? CANON_THREADS_MAX : threads;
    if (n < CANON_PAR_MIN || parts <= 1)
        return scan(v, 0, n);
    canon_job j = {v, n, parts, {0}};
    gs_parallel_for((unsigned)parts, parts, scan_part, &j);
    size_t first = n;
    for (size_t p = 0; p < parts; p++)
        first = j.first[p] < first ? j.first[p] : first;
    return first;
}
