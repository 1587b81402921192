/* The eq table split over threads (eq_table_cpu.h). The index splits into
 * its low `lo` bits and its high bits: eq over all coordinates is eq over
 * the low coordinates times eq over the high ones, so block b of 2^lo
 * entries is the low table scaled by entry b of the high table. Field
 * products are exact and commute, so each entry is the same element, in
 * the same canonical words, as bb4_eq_table's one-coordinate-at-a-time
 * doubling. One product per entry either way. */
#include "engine/cpu/eq_table_cpu.h"

#include "engine/cpu/cpu_engine.h"

/* Below this many entries one thread is quicker than starting others. */
#define EQ_PAR_MIN_LOG 14
/* High coordinates split off: 2^6 blocks spread over up to 64 threads. */
#define EQ_HIGH_LOG 6

typedef struct eq_ctx {
    bb4_t *t;
    const bb4_t *low; /* the low table: block 0 of t until the last step */
    bb4_t high[1u << EQ_HIGH_LOG];
    size_t lo_len;
} eq_ctx;

/* Blocks [b, e) (block 0 excluded: it holds the low table the others read). */
static void scale_blocks(void *vctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    eq_ctx *c = vctx;
    for (size_t blk = b + 1; blk < e + 1; blk++) {
        bb4_t *dst = c->t + blk * c->lo_len;
        const bb4_t h = c->high[blk];
        for (size_t i = 0; i < c->lo_len; i++)
            dst[i] = bb4_mul(c->low[i], h);
    }
}

/* Entries [b, e) of block 0, in place, once the other blocks are done. */
static void scale_first(void *vctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    eq_ctx *c = vctx;
    const bb4_t h = c->high[0];
    for (size_t i = b; i < e; i++)
        c->t[i] = bb4_mul(c->t[i], h);
}

void gs_cpu_eq_table(const gs_engine *eng, unsigned threads, const bb4_t *xi, size_t n, bb4_t *t)
{
    if (threads <= 1 || n < EQ_PAR_MIN_LOG) {
        bb4_eq_table(xi, n, t);
        return;
    }
    const size_t lo = n - EQ_HIGH_LOG, blocks = (size_t)1 << EQ_HIGH_LOG;
    eq_ctx c = {.t = t, .low = t, .lo_len = (size_t)1 << lo};
    bb4_eq_table(xi, lo, t);
    bb4_eq_table(xi + lo, EQ_HIGH_LOG, c.high);
    gs_cpu_for(eng, threads < blocks - 1 ? threads : (unsigned)(blocks - 1), blocks - 1, scale_blocks, &c);
    gs_cpu_for(eng, threads, c.lo_len, scale_first, &c);
}
