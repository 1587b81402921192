/* The CPU engine's dft family: radix-2 Cooley–Tukey DFTs over BabyBear,
 * the stacked matrix, and the fused RS encoding (dft_ops.h has the
 * definitions these functions implement).
 *
 * Algorithm. Natural order in and out: bit-reverse permutation (tiled so
 * both sides of each swap use whole cache lines), then decimation-in-time
 * butterfly layers, two at a time (radix 4). Layers whose butterflies stay
 * inside a 2^GS_DFT_BLOCK_LOG block (16 KiB) run block by block so they stay
 * in L1. Twiddles: tw[h + t] = w_(2h)^t for every half-size h, so each layer
 * reads a contiguous table. Runs of butterflies use the engine's vector
 * kernels (kernels.h, dft_simd.c) where it has them; the arithmetic is
 * exact, so every path gives the same bits.
 *
 * RS encoding uses that the zero-padded message is zero above 2^L: after
 * bit reversal the nonzero entries sit at multiples of 2^log_blowup, so the
 * first log_blowup DIT layers only copy; we write their result directly
 * (a gather from the message) and start the butterflies at layer
 * log_blowup.
 *
 * Threads: many columns -> one thread per column range; few long columns ->
 * every phase of one column split across threads. */
#include "engine/cpu/cpu_engine.h"
#include "util/parallel_for.h"
#include "engine/cpu/rs_block16.h"
#include "engine/dft_ops.h"

#include <stdlib.h>
#include <string.h>

#define GS_DFT_BLOCK_LOG 12
/* Below this length a single column is not worth splitting across threads. */
#define GS_DFT_PAR_MIN_LOG 14

static inline uint32_t rev32(uint32_t x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
}

/* Reverses the low `bits` bits of i (bits <= 32; 0 gives 0). */
static inline size_t bitrev(size_t i, unsigned bits) { return bits ? rev32((uint32_t)i) >> (32 - bits) : 0; }

/* ---------------------------------------------------------------- twiddles */

typedef struct tw_fill_ctx {
    bb_t *top;  /* tw + n/2 */
    bb_t w;     /* generator of order n */
} tw_fill_ctx;

static void tw_fill_range(void *vctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    tw_fill_ctx *c = vctx;
    bb_t x = bb_pow(c->w, b);
    for (size_t t = b; t < e; t++) {
        c->top[t] = x;
        x = bb_mul(x, c->w);
    }
}

/* Table of n = 2^log_n entries: tw[h + t] = w_(2h)^t (inverse: w_(2h)^-t). */
static bb_t *twiddles_new(const gs_engine *eng, unsigned log_n, int inverse, unsigned threads)
{
    size_t n = (size_t)1 << log_n;
    bb_t *tw = malloc((n > 1 ? n : 2) * sizeof *tw);
    if (!tw)
        return NULL;
    tw[0] = bb_one();
    if (n < 2)
        return tw;
    bb_t w = bb_two_adic_generator(log_n);
    if (inverse)
        w = bb_inv(w);
    tw_fill_ctx c = {tw + n / 2, w};
    gs_cpu_for(eng, n / 2 >= (1u << 16) ? threads : 1, n / 2, tw_fill_range, &c);
    for (size_t h = n / 4; h >= 1; h /= 2)
        for (size_t t = 0; t < h; t++)
            tw[h + t] = tw[2 * h + 2 * t];
    return tw;
}

/* ------------------------------------------------------------ column steps */

/* Bit reversal, tiled for the cache: write an index of log_n >= 2*TB bits as
 * (A, M, B) with TB-bit A (high) and B (low); its reverse is
 * (rev B, rev M, rev A). For one middle value M, the 2^TB x 2^TB elements
 * (A, M, B) map onto (rev B, rev M, rev A): tile M's row A (2^TB words, one
 * cache line) holds B, and element (A, B) goes to tile rev M's row rev B,
 * column rev A. Both tiles are copied out row by row first: their rows are
 * 2^(log_n-TB) words apart, so in place, reading down a column of a tile
 * would touch 2^TB lines that share a few cache sets again and again. Work
 * is split over M. */
#define GS_BITREV_TB 4

/* In-place permutation of the tiles with middle value in [m0, m1) (each pair
 * of tiles M, rev M handled once, by the smaller). If scale != 0 every
 * element is also multiplied by it. */
static void bitrev_tiles(bb_t *a, unsigned log_n, size_t m0, size_t m1, bb_t scale)
{
    const unsigned t = GS_BITREV_TB, mb = log_n - 2 * t;
    enum { T = 1 << GS_BITREV_TB };
    uint8_t rv[T];
    for (size_t k = 0; k < T; k++)
        rv[k] = (uint8_t)bitrev(k, t);
    bb_t ti[T][T], tj[T][T];
    for (size_t m = m0; m < m1; m++) {
        size_t mr = bitrev(m, mb);
        if (mr < m)
            continue;
        bb_t *rowi = a + (m << t), *rowj = a + (mr << t); /* row A at + (A << (log_n - t)) */
        for (size_t A = 0; A < T; A++) {
            memcpy(ti[A], rowi + (A << (log_n - t)), sizeof ti[A]);
            memcpy(tj[A], rowj + (A << (log_n - t)), sizeof tj[A]);
        }
        /* tile M's (A, B) <- tile rev M's (rev B, rev A), and the other way
         * (for M == rev M the two copies are the same tile) */
        for (size_t A = 0; A < T; A++) {
            bb_t *oi = rowi + (A << (log_n - t)), *oj = rowj + (A << (log_n - t));
            for (size_t B = 0; B < T; B++) {
                bb_t x = tj[rv[B]][rv[A]], y = ti[rv[B]][rv[A]];
                oi[B] = scale ? bb_mul(x, scale) : x;
                if (m != mr)
                    oj[B] = scale ? bb_mul(y, scale) : y;
            }
        }
    }
}

/* Plain version for short columns (log_n < 2*TB): all pairs with the smaller
 * index in [i0, i1). */
static void bitrev_plain(bb_t *a, unsigned log_n, size_t i0, size_t i1, bb_t scale)
{
    for (size_t i = i0; i < i1; i++) {
        size_t r = bitrev(i, log_n);
        if (i < r) {
            bb_t x = a[i], y = a[r];
            a[i] = scale ? bb_mul(y, scale) : y;
            a[r] = scale ? bb_mul(x, scale) : x;
        } else if (i == r && scale) {
            a[i] = bb_mul(a[i], scale);
        }
    }
}

/* Work units of the bit reversal of a 2^log_n column (tiles or elements). */
static size_t bitrev_units(unsigned log_n)
{
    return log_n >= 2 * GS_BITREV_TB ? (size_t)1 << (log_n - 2 * GS_BITREV_TB) : (size_t)1 << log_n;
}

static void bitrev_range(bb_t *a, unsigned log_n, size_t u0, size_t u1, bb_t scale)
{
    if (log_n >= 2 * GS_BITREV_TB)
        bitrev_tiles(a, log_n, u0, u1, scale);
    else
        bitrev_plain(a, log_n, u0, u1, scale);
}

/* The scalar butterflies the passes below share (their vector runs are in
 * dft_simd.c). One DIT layer of half-size h at offset t: x[t], y[t] =
 * x[t] ± w[t]·y[t]. */
static inline void dit2_at(bb_t *x, bb_t *y, const bb_t *w, size_t t)
{
    bb_t u = x[t], v = bb_mul(y[t], w[t]);
    x[t] = bb_add(u, v);
    y[t] = bb_sub(u, v);
}

/* Two DIT layers (half-sizes h, 2h) at offset t of four quarters p0..p3,
 * with w1 = w_(2h)^t, w2 = w_(4h)^t, w3 = w_(4h)^(t+h). */
static inline void dit4_at(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2,
                           const bb_t *w3, size_t t)
{
    bb_t x0 = p0[t], x1 = bb_mul(p1[t], w1[t]);
    bb_t x2 = p2[t], x3 = bb_mul(p3[t], w1[t]);
    bb_t y0 = bb_add(x0, x1), y1 = bb_sub(x0, x1);
    bb_t y2 = bb_add(x2, x3), y3 = bb_sub(x2, x3);
    bb_t z2 = bb_mul(y2, w2[t]), z3 = bb_mul(y3, w3[t]);
    p0[t] = bb_add(y0, z2);
    p2[t] = bb_sub(y0, z2);
    p1[t] = bb_add(y1, z3);
    p3[t] = bb_sub(y1, z3);
}

/* Two DIT layers (half-sizes h and 2h) over an array of n. */
static void dit_pass4(bb_t *a, size_t n, size_t h, const bb_t *tw, const gs_cpu_kernels *kern)
{
    if (kern->dft_pass4_small && h <= 4 && kern->dft_pass4_small(a, n, h, tw))
        return;
    if (h == 1) { /* twiddles 1, 1, 1, w_4: one multiplication per quad */
        bb_t w4 = tw[3];
        for (size_t s = 0; s < n; s += 4) {
            bb_t y0 = bb_add(a[s], a[s + 1]), y1 = bb_sub(a[s], a[s + 1]);
            bb_t y2 = bb_add(a[s + 2], a[s + 3]), z3 = bb_mul(bb_sub(a[s + 2], a[s + 3]), w4);
            a[s] = bb_add(y0, y2);
            a[s + 2] = bb_sub(y0, y2);
            a[s + 1] = bb_add(y1, z3);
            a[s + 3] = bb_sub(y1, z3);
        }
        return;
    }
    const bb_t *w1 = tw + h, *w2 = tw + 2 * h, *w3 = tw + 3 * h;
    for (size_t s = 0; s < n; s += 4 * h) {
        bb_t *p0 = a + s, *p1 = p0 + h, *p2 = p1 + h, *p3 = p2 + h;
        size_t t = kern->dft_run4 ? kern->dft_run4(p0, p1, p2, p3, w1, w2, w3, 0, h) : 0;
        for (; t < h; t++)
            dit4_at(p0, p1, p2, p3, w1, w2, w3, t);
    }
}

/* One DIT layer of half-size h over an array of n. */
static void dit_pass2(bb_t *a, size_t n, size_t h, const bb_t *tw, const gs_cpu_kernels *kern)
{
    const bb_t *w = tw + h;
    for (size_t s = 0; s < n; s += 2 * h) {
        bb_t *x = a + s, *y = a + s + h;
        if (h == 1) {
            bb_t u = x[0], v = y[0];
            x[0] = bb_add(u, v);
            y[0] = bb_sub(u, v);
            continue;
        }
        size_t t = kern->dft_run2 ? kern->dft_run2(x, y, w, 0, h) : 0;
        for (; t < h; t++)
            dit2_at(x, y, w, t);
    }
}

/* DIT layers with half-sizes h = 2^lo .. 2^(hi-1) on one block of 2^hi. */
static void dit_block(bb_t *a, unsigned lo, unsigned hi, const bb_t *tw, const gs_cpu_kernels *kern)
{
    size_t n = (size_t)1 << hi;
    unsigned l = lo;
    for (; l + 1 < hi; l += 2)
        dit_pass4(a, n, (size_t)1 << l, tw, kern);
    if (l < hi)
        dit_pass2(a, n, (size_t)1 << l, tw, kern);
}

/* One radix-2 layer of half-size h over butterflies [k0, k1) of n/2. */
static void dit_layer2(bb_t *a, size_t h, const bb_t *tw, size_t k0, size_t k1, const gs_cpu_kernels *kern)
{
    const bb_t *w = tw + h;
    size_t k = k0;
    while (k < k1) {
        size_t g = k / h, t = k % h;
        size_t stop = h - t < k1 - k ? h : t + (k1 - k);
        bb_t *x = a + 2 * h * g, *y = x + h;
        if (kern->dft_run2) {
            size_t t2 = kern->dft_run2(x, y, w, t, stop);
            k += t2 - t;
            t = t2;
        }
        for (; t < stop; t++, k++)
            dit2_at(x, y, w, t);
    }
}

/* Two layers (half-sizes h and 2h) at once over quads [k0, k1) of n/4. */
static void dit_layer4(bb_t *a, size_t h, const bb_t *tw, size_t k0, size_t k1, const gs_cpu_kernels *kern)
{
    const bb_t *w1 = tw + h, *w2 = tw + 2 * h, *w3 = tw + 3 * h;
    size_t k = k0;
    while (k < k1) {
        size_t g = k / h, t = k % h;
        size_t stop = h - t < k1 - k ? h : t + (k1 - k);
        bb_t *p0 = a + 4 * h * g, *p1 = p0 + h, *p2 = p1 + h, *p3 = p2 + h;
        if (kern->dft_run4) {
            size_t t2 = kern->dft_run4(p0, p1, p2, p3, w1, w2, w3, t, stop);
            k += t2 - t;
            t = t2;
        }
        for (; t < stop; t++, k++)
            dit4_at(p0, p1, p2, p3, w1, w2, w3, t);
    }
}

/* DIT layers lo..log_n-1 of one column, on this thread. */
static void dit_serial(bb_t *a, unsigned log_n, unsigned lo, const bb_t *tw, const gs_cpu_kernels *kern)
{
    unsigned B = log_n < GS_DFT_BLOCK_LOG ? log_n : GS_DFT_BLOCK_LOG;
    size_t n = (size_t)1 << log_n;
    if (lo < B)
        for (size_t s = 0; s < n; s += (size_t)1 << B)
            dit_block(a + s, lo, B, tw, kern);
    unsigned l = lo > B ? lo : B;
    for (; l + 1 < log_n; l += 2)
        dit_layer4(a, (size_t)1 << l, tw, 0, n / 4, kern);
    if (l < log_n)
        dit_layer2(a, (size_t)1 << l, tw, 0, n / 2, kern);
}

static void dft_serial(bb_t *a, unsigned log_n, const bb_t *tw, bb_t scale, const gs_cpu_kernels *kern)
{
    bitrev_range(a, log_n, 0, bitrev_units(log_n), scale);
    dit_serial(a, log_n, 0, tw, kern);
}

/* Long columns with every phase split across threads: ncols columns of 2^log_n
 * lying back to back (column c at a + c 2^log_n). A DIT layer of half-size h
 * works on groups of 2h or 4h consecutive words, which never cross a column
 * of 2^log_n >= 4h, so one pass over the whole run does that layer for every
 * column: one thread start per phase for all of them, not one per column
 * (WHIR's extension codewords are 4 such columns, ~12 phases each). */
typedef struct par_ctx {
    bb_t *a;
    unsigned log_n, lo, B;
    size_t ncols;
    const bb_t *tw;
    bb_t scale;
    size_t h;
    const gs_cpu_kernels *kern;
} par_ctx;

/* bit-reversal units [b, e) of the run: column u / units, its unit u % units */
static void par_bitrev(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    par_ctx *c = v;
    const size_t units = bitrev_units(c->log_n);
    for (size_t u = b; u < e;) {
        size_t col = u / units, u0 = u % units, u1 = e - u < units - u0 ? u0 + (e - u) : units;
        bitrev_range(c->a + (col << c->log_n), c->log_n, u0, u1, c->scale);
        u += u1 - u0;
    }
}

static void par_blocks(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    par_ctx *c = v;
    for (size_t i = b; i < e; i++)
        dit_block(c->a + (i << c->B), c->lo, c->B, c->tw, c->kern);
}

static void par_layer4(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    par_ctx *c = v;
    dit_layer4(c->a, c->h, c->tw, b, e, c->kern);
}

static void par_layer2(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    par_ctx *c = v;
    dit_layer2(c->a, c->h, c->tw, b, e, c->kern);
}

static void dit_parallel_cols(bb_t *a, size_t ncols, unsigned log_n, unsigned lo, const bb_t *tw,
                              const gs_engine *eng, unsigned threads, const gs_cpu_kernels *kern)
{
    unsigned B = log_n < GS_DFT_BLOCK_LOG ? log_n : GS_DFT_BLOCK_LOG;
    size_t n = ncols << log_n;
    par_ctx c = {a, log_n, lo, B, ncols, tw, 0, 0, kern};
    if (lo < B)
        gs_cpu_for(eng, threads, n >> B, par_blocks, &c);
    unsigned l = lo > B ? lo : B;
    for (; l + 1 < log_n; l += 2) {
        c.h = (size_t)1 << l;
        gs_cpu_for(eng, threads, n / 4, par_layer4, &c);
    }
    if (l < log_n) {
        c.h = (size_t)1 << l;
        gs_cpu_for(eng, threads, n / 2, par_layer2, &c);
    }
}

static void dit_parallel(bb_t *a, unsigned log_n, unsigned lo, const bb_t *tw, const gs_engine *eng,
                         unsigned threads, const gs_cpu_kernels *kern)
{
    dit_parallel_cols(a, 1, log_n, lo, tw, eng, threads, kern);
}

static void dft_parallel_cols(bb_t *a, size_t ncols, unsigned log_n, const bb_t *tw, bb_t scale,
                              const gs_engine *eng, unsigned threads, const gs_cpu_kernels *kern)
{
    par_ctx c = {a, log_n, 0, 0, ncols, tw, scale, 0, kern};
    gs_cpu_for(eng, threads, ncols * bitrev_units(log_n), par_bitrev, &c);
    dit_parallel_cols(a, ncols, log_n, 0, tw, eng, threads, kern);
}

static void dft_parallel(bb_t *a, unsigned log_n, const bb_t *tw, bb_t scale, const gs_engine *eng,
                         unsigned threads, const gs_cpu_kernels *kern)
{
    dft_parallel_cols(a, 1, log_n, tw, scale, eng, threads, kern);
}

/* --------------------------------------------------------- base-field DFT */

typedef struct cols_ctx {
    bb_t *base;
    size_t stride;
    unsigned log_n;
    const bb_t *tw;
    bb_t scale;
    const gs_cpu_kernels *kern;
} cols_ctx;

static void cols_serial(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    cols_ctx *c = v;
    for (size_t i = b; i < e; i++)
        dft_serial(c->base + i * c->stride, c->log_n, c->tw, c->scale, c->kern);
}

static void dft_base_columns(bb_t *base, size_t stride, size_t ncols, unsigned log_n, const bb_t *tw, bb_t scale,
                             const gs_engine *eng, unsigned threads, const gs_cpu_kernels *kern)
{
    if (ncols >= threads || log_n < GS_DFT_PAR_MIN_LOG) {
        cols_ctx c = {base, stride, log_n, tw, scale, kern};
        gs_cpu_for(eng, threads, ncols, cols_serial, &c);
    } else if (stride == ((size_t)1 << log_n)) {
        dft_parallel_cols(base, ncols, log_n, tw, scale, eng, threads, kern);
    } else {
        for (size_t i = 0; i < ncols; i++)
            dft_parallel(base + i * stride, log_n, tw, scale, eng, threads, kern);
    }
}

static glstark_status oom(gs_engine *eng, const char *what, size_t bytes)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY,
                        "cpu %s: could not allocate %zu bytes of scratch; free memory or use smaller batches", what,
                        bytes);
}

/* An extension column (4 words an element) and its 4 coefficient columns
 * of n words each, split and joined on the threads: at WHIR's first
 * codeword (2^22 elements) one thread spent ~100 ms here and in first
 * touches of the scratch, with the other cores idle. */
typedef struct ext_split_ctx {
    bb_t *col, *tmp;
    size_t n;
} ext_split_ctx;

static void ext_split_range(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    const ext_split_ctx *c = v;
    for (size_t i = b; i < e; i++)
        for (unsigned k = 0; k < 4; k++)
            c->tmp[k * c->n + i] = c->col[4 * i + k];
}

static void ext_join_range(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    const ext_split_ctx *c = v;
    for (size_t i = b; i < e; i++)
        for (unsigned k = 0; k < 4; k++)
            c->col[4 * i + k] = c->tmp[k * c->n + i];
}

static glstark_status cpu_dft(gs_engine *eng, const gs_dft_cols *cols, gs_dft_dir dir)
{
    unsigned threads = gs_cpu_threads(eng);
    unsigned log_n = cols->log_n;
    size_t n = (size_t)1 << log_n;
    bb_t *base = (bb_t *)cols->buf->host + cols->offset;
    bb_t scale = 0;
    if (dir == GS_DFT_INVERSE)
        scale = bb_inv(bb_pow(bb_from_canonical(2), log_n));
    if (log_n == 0) /* length 1: both directions are the identity */
        return GLSTARK_OK;
    bb_t *tw = twiddles_new(eng, log_n, dir == GS_DFT_INVERSE, threads);
    if (!tw)
        return oom(eng, "dft", n * sizeof(bb_t));
    if (cols->elem_words == 1) {
        dft_base_columns(base, cols->col_stride, cols->ncols, log_n, tw, scale, eng, threads,
                         gs_cpu_engine_kernels(eng));
    } else {
        /* Extension elements: split each column into its 4 coefficient
         * columns, transform those, and interleave back. */
        bb_t *tmp = malloc(4 * n * sizeof *tmp);
        if (!tmp) {
            free(tw);
            return oom(eng, "dft", 4 * n * sizeof(bb_t));
        }
        unsigned movers = n >= ((size_t)1 << GS_DFT_PAR_MIN_LOG) ? threads : 1;
        for (size_t c = 0; c < cols->ncols; c++) {
            ext_split_ctx sc = {base + c * cols->col_stride, tmp, n};
            gs_cpu_for(eng, movers, n, ext_split_range, &sc);
            dft_base_columns(tmp, n, 4, log_n, tw, scale, eng, threads, gs_cpu_engine_kernels(eng));
            gs_cpu_for(eng, movers, n, ext_join_range, &sc);
        }
        free(tmp);
    }
    free(tw);
    return GLSTARK_OK;
}

/* -------------------------------------------------------------- RS message */

/* In place: inverse DFT of size 2^l (tw = inverse twiddles of size 2^l,
 * scale = 2^-l) followed by the subset-sum transform over the l bits. */
static void rs_block(bb_t *x, unsigned l, const bb_t *tw, bb_t scale, const gs_cpu_kernels *kern)
{
    if (l == 0)
        return;
    dft_serial(x, l, tw, scale, kern);
    size_t n = (size_t)1 << l;
    for (size_t b = 1; b < n; b *= 2)
        for (size_t s = 0; s < n; s += 2 * b)
            for (size_t j = 0; j < b; j++)
                x[s + b + j] = bb_add(x[s + b + j], x[s + j]);
}

/* Blocks [0, nblocks) of 2^l words at x: in vectors for l = 4 where the
 * engine has them (rs_block16.h), else one by one. */
static void rs_blocks(bb_t *x, size_t nblocks, unsigned l, const bb_t *tw, bb_t scale, const gs_cpu_kernels *kern,
                      const gs_rs_block16 *b16)
{
    if (l == 4 && gs_rs_block16_run(b16, kern, x, nblocks))
        return;
    for (size_t i = 0; i < nblocks; i++)
        rs_block(x + (i << l), l, tw, scale, kern);
}

typedef struct rsmsg_ctx {
    bb_t *base;
    size_t stride;
    unsigned log_n, l;
    size_t blocks_per_col;
    const bb_t *tw;
    bb_t scale;
    const gs_cpu_kernels *kern;
    gs_rs_block16 b16;
} rsmsg_ctx;

static void rsmsg_range(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    rsmsg_ctx *c = v;
    for (size_t i = b; i < e;) { /* the range's part of each column at once */
        size_t col = i / c->blocks_per_col, blk = i % c->blocks_per_col;
        size_t n = c->blocks_per_col - blk < e - i ? c->blocks_per_col - blk : e - i;
        rs_blocks(c->base + col * c->stride + (blk << c->l), n, c->l, c->tw, c->scale, c->kern, &c->b16);
        i += n;
    }
}

static glstark_status cpu_rs_message(gs_engine *eng, const gs_dft_cols *cols, unsigned l_skip)
{
    if (l_skip == 0)
        return GLSTARK_OK;
    bb_t *tw = twiddles_new(eng, l_skip, 1, 1);
    if (!tw)
        return oom(eng, "rs_message", sizeof(bb_t) << l_skip);
    rsmsg_ctx c = {(bb_t *)cols->buf->host + cols->offset, cols->col_stride, cols->log_n, l_skip,
                   (size_t)1 << (cols->log_n - l_skip), tw, bb_inv(bb_pow(bb_from_canonical(2), l_skip)),
                   gs_cpu_engine_kernels(eng), {{0}, 0}};
    gs_rs_block16_init(&c.b16);
    gs_cpu_for(eng, gs_cpu_threads(eng), cols->ncols * c.blocks_per_col, rsmsg_range, &c);
    free(tw);
    return GLSTARK_OK;
}

/* ---------------------------------------------------------------- stacking */

/* Writes stacked column c (2^L entries) into q. */
static void stack_one_column(const gs_stack_layout *lay, const gs_trace_ref *traces, uint32_t c, bb_t *q)
{
    unsigned l = lay->l_skip;
    size_t H = (size_t)1 << (l + lay->n_stack);
    memset(q, 0, H * sizeof *q);
    for (size_t i = gs_stack_first_slice(lay, c); i < lay->nslices && lay->slices[i].stacked_col == c; i++) {
        const gs_stack_slice *s = &lay->slices[i];
        size_t h = (size_t)1 << s->log_height;
        const bb_t *src = (const bb_t *)traces[s->trace].buf->host + traces[s->trace].offset + s->trace_col * h;
        if (s->log_height >= l) {
            memcpy(q + s->row, src, h * sizeof *q);
        } else {
            size_t stride = (size_t)1 << (l - s->log_height);
            for (size_t r = 0; r < h; r++)
                q[s->row + r * stride] = src[r];
        }
    }
}

typedef struct stack_ctx {
    const gs_stack_layout *lay;
    const gs_trace_ref *traces;
    uint32_t col_begin;
    bb_t *out;
    size_t H;
} stack_ctx;

static void stack_range(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    stack_ctx *c = v;
    for (size_t i = b; i < e; i++)
        stack_one_column(c->lay, c->traces, c->col_begin + (uint32_t)i, c->out + i * c->H);
}

static glstark_status cpu_stack_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                       uint32_t col_begin, uint32_t col_end, gs_buf *q, size_t q_offset)
{
    stack_ctx c = {layout, traces, col_begin, (bb_t *)q->host + q_offset,
                   (size_t)1 << (layout->l_skip + layout->n_stack)};
    gs_cpu_for(eng, gs_cpu_threads(eng), col_end - col_begin, stack_range, &c);
    return GLSTARK_OK;
}

/* ------------------------------------------------------------ RS codeword */

typedef struct rs_ctx {
    const gs_stack_layout *lay;
    const gs_trace_ref *traces;
    uint32_t col_begin;
    unsigned log_blowup, L;
    bb_t *cw;             /* codeword of column col_begin */
    bb_t **scratch;       /* one 2^L message buffer per worker */
    const bb_t *tw_small; /* inverse twiddles of size 2^l_skip */
    bb_t small_scale;
    const bb_t *tw;       /* forward twiddles of size 2^(L + log_blowup) */
    const gs_cpu_kernels *kern; /* vector butterflies and 16-row message blocks (kernels.h) */
    gs_rs_block16 b16;
    /* single-column parallel mode */
    const bb_t *msg;
    bb_t *dst;
} rs_ctx;

/* Builds the RS message of stacked column c in msg (2^L entries). */
static void rs_build_message(rs_ctx *c, uint32_t col, bb_t *msg)
{
    stack_one_column(c->lay, c->traces, col, msg);
    unsigned l = c->lay->l_skip;
    if (l == 0)
        return;
    rs_blocks(msg, ((size_t)1 << c->L) >> l, l, c->tw_small, c->small_scale, c->kern, &c->b16);
}

/* dst[i] = msg[rev_L(i >> b)] for every i < 2^(L+b): the bit-reversed,
 * zero-padded message after its first b (copy-only) DIT layers. Work units
 * are the middle values M of the tiled bit reversal (see bitrev_tiles), or
 * single indices j < 2^L when L < 2*TB. */
static void rs_gather(bb_t *dst, const bb_t *msg, unsigned L, unsigned b, size_t u0, size_t u1)
{
    const size_t rep = (size_t)1 << b;
    if (L < 2 * GS_BITREV_TB) {
        for (size_t j = u0; j < u1; j++) {
            bb_t v = msg[bitrev(j, L)];
            for (size_t s = 0; s < rep; s++)
                dst[(j << b) + s] = v;
        }
        return;
    }
    const unsigned t = GS_BITREV_TB, mb = L - 2 * t;
    enum { T = 1 << GS_BITREV_TB };
    uint8_t rv[T];
    for (size_t k = 0; k < T; k++)
        rv[k] = (uint8_t)bitrev(k, t);
    bb_t tile[T][T]; /* tile rev M of msg, row by row (see bitrev_tiles) */
    for (size_t m = u0; m < u1; m++) {
        size_t mr = bitrev(m, mb);
        for (size_t R = 0; R < T; R++)
            memcpy(tile[R], msg + (R << (L - t)) + (mr << t), sizeof tile[R]);
        for (size_t A = 0; A < T; A++) {
            bb_t *d = dst + ((((A << (L - t)) | (m << t))) << b);
            for (size_t B = 0; B < T; B++) {
                bb_t v = tile[rv[B]][rv[A]];
                for (size_t s = 0; s < rep; s++)
                    d[(B << b) + s] = v;
            }
        }
    }
}

static void rs_columns_serial(void *v, size_t b, size_t e, unsigned w)
{
    rs_ctx *c = v;
    bb_t *msg = c->scratch[w];
    unsigned logN = c->L + c->log_blowup;
    size_t N = (size_t)1 << logN;
    for (size_t i = b; i < e; i++) {
        bb_t *dst = c->cw + i * N;
        rs_build_message(c, c->col_begin + (uint32_t)i, msg);
        rs_gather(dst, msg, c->L, c->log_blowup, 0, bitrev_units(c->L));
        dit_serial(dst, logN, c->log_blowup, c->tw, c->kern);
    }
}

static void rs_gather_par(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    rs_ctx *c = v;
    rs_gather(c->dst, c->msg, c->L, c->log_blowup, b, e);
}

static glstark_status cpu_rs_code_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                         unsigned log_blowup, uint32_t col_begin, uint32_t col_end, gs_buf *codeword,
                                         size_t cw_offset)
{
    unsigned threads = gs_cpu_threads(eng);
    unsigned L = layout->l_skip + layout->n_stack, logN = L + log_blowup;
    size_t ncols = col_end - col_begin, H = (size_t)1 << L;
    glstark_status st = GLSTARK_OK;
    unsigned nscratch = ncols < threads ? (unsigned)ncols : threads;
    bb_t *tw_small = twiddles_new(eng, layout->l_skip, 1, 1);
    bb_t *tw = twiddles_new(eng, logN, 0, threads);
    bb_t **scratch = calloc(nscratch, sizeof *scratch);
    if (!tw_small || !tw || !scratch) {
        st = oom(eng, "rs_code_matrix", sizeof(bb_t) << logN);
        goto out;
    }
    for (unsigned i = 0; i < nscratch; i++)
        if (!(scratch[i] = malloc(H * sizeof(bb_t)))) {
            st = oom(eng, "rs_code_matrix", H * sizeof(bb_t));
            goto out;
        }
    rs_ctx c = {layout, traces, col_begin, log_blowup, L, (bb_t *)codeword->host + cw_offset, scratch, tw_small,
                bb_inv(bb_pow(bb_from_canonical(2), layout->l_skip)), tw, gs_cpu_engine_kernels(eng),
                {{0}, 0}, NULL, NULL};
    gs_rs_block16_init(&c.b16);
    if (ncols >= threads || logN < GS_DFT_PAR_MIN_LOG) {
        gs_cpu_for(eng, threads, ncols, rs_columns_serial, &c);
    } else {
        /* Few tall columns: one column at a time, each phase threaded. The
         * message build is O(2^L) and stays serial. */
        size_t N = (size_t)1 << logN;
        for (size_t i = 0; i < ncols; i++) {
            rs_build_message(&c, col_begin + (uint32_t)i, scratch[0]);
            c.msg = scratch[0];
            c.dst = c.cw + i * N;
            gs_cpu_for(eng, threads, bitrev_units(L), rs_gather_par, &c);
            dit_parallel(c.dst, logN, log_blowup, tw, eng, threads, c.kern);
        }
    }
out:
    if (scratch)
        for (unsigned i = 0; i < nscratch; i++)
            free(scratch[i]);
    free(scratch);
    free(tw);
    free(tw_small);
    return st;
}

/* ------------------------------------------------------ RS codeword rows */

/* Row class p of the codeword is the length-2^L DFT of the message times
 * g^j, g = w_N^p (dft_ops.h, 'RS codeword rows'); each column is built, twisted
 * and transformed where its rows go, so nothing of codeword size exists. */
typedef struct rows_ctx {
    rs_ctx rs;       /* the message build: layout, traces, l_skip twiddles, kernels */
    bb_t *out;       /* rows of column col_begin */
    bb_t g;          /* w_N^row_class */
    int twist;       /* row_class != 0 (else g = 1 and the twist is the identity) */
    const bb_t *tw;  /* forward twiddles of size 2^L */
    bb_t *col;       /* single-column parallel mode */
} rows_ctx;

/* a[j] *= g^j for j in [j0, j1): a running product (exact, so any split of
 * the range gives the same words). */
static void twist_range(bb_t *a, bb_t g, size_t j0, size_t j1)
{
    bb_t x = bb_pow(g, j0);
    for (size_t j = j0; j < j1; j++) {
        a[j] = bb_mul(a[j], x);
        x = bb_mul(x, g);
    }
}

static void rows_columns_serial(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    rows_ctx *c = v;
    size_t H = (size_t)1 << c->rs.L;
    for (size_t i = b; i < e; i++) {
        bb_t *col = c->out + i * H;
        rs_build_message(&c->rs, c->rs.col_begin + (uint32_t)i, col);
        if (c->twist)
            twist_range(col, c->g, 0, H);
        dft_serial(col, c->rs.L, c->tw, 0, c->rs.kern);
    }
}

static void rows_twist_par(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    rows_ctx *c = v;
    twist_range(c->col, c->g, b, e);
}

static glstark_status cpu_rs_code_rows(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                       unsigned log_blowup, uint32_t row_class, uint32_t col_begin, uint32_t col_end,
                                       gs_buf *out, size_t out_offset)
{
    unsigned threads = gs_cpu_threads(eng);
    unsigned L = layout->l_skip + layout->n_stack;
    size_t ncols = col_end - col_begin, H = (size_t)1 << L;
    glstark_status st = GLSTARK_OK;
    bb_t *tw_small = twiddles_new(eng, layout->l_skip, 1, 1);
    bb_t *tw = twiddles_new(eng, L, 0, threads);
    if (!tw_small || !tw) {
        st = oom(eng, "rs_code_rows", sizeof(bb_t) << L);
        goto out;
    }
    rows_ctx c = {{layout, traces, col_begin, log_blowup, L, NULL, NULL, tw_small,
                   bb_inv(bb_pow(bb_from_canonical(2), layout->l_skip)), NULL, gs_cpu_engine_kernels(eng),
                   {{0}, 0}, NULL, NULL},
                  (bb_t *)out->host + out_offset, bb_pow(bb_two_adic_generator(L + log_blowup), row_class),
                  row_class != 0, tw, NULL};
    gs_rs_block16_init(&c.rs.b16);
    if (ncols >= threads || L < GS_DFT_PAR_MIN_LOG) {
        gs_cpu_for(eng, threads, ncols, rows_columns_serial, &c);
    } else {
        /* Few tall columns: one at a time, the twist and the DFT threaded
         * (the message build stays serial, as in cpu_rs_code_matrix). */
        for (size_t i = 0; i < ncols; i++) {
            c.col = c.out + i * H;
            rs_build_message(&c.rs, col_begin + (uint32_t)i, c.col);
            if (c.twist)
                gs_cpu_for(eng, threads, H, rows_twist_par, &c);
            dft_parallel(c.col, L, tw, 0, eng, threads, c.rs.kern);
        }
    }
out:
    free(tw);
    free(tw_small);
    return st;
}

/* ------------------------------------------- finer row classes (folded) */

/* Row class p of 2^lc > 2^b classes (dft_ops.h, 'Finer row classes'):
 * per column, the parts of H' rows of Q added up with the weights g^(r H')
 * (the RS message is linear and blockwise, so this is the sum of the
 * parts' messages' weights), then one message, the twist by g^j and one
 * DFT of length H'. */
typedef struct folded_ctx {
    const bb_t *q;
    size_t q_stride;
    unsigned l, Lf, f;    /* l_skip, log2 H', log2 of the parts */
    bb_t g;               /* w_N^row_class */
    bb_t *out;
    const bb_t *tw_small; /* inverse twiddles of size 2^l_skip */
    bb_t small_scale;
    const bb_t *tw;       /* forward twiddles of size H' */
    const gs_cpu_kernels *kern;
    gs_rs_block16 b16;
} folded_ctx;

static void folded_columns(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    const folded_ctx *c = v;
    const size_t Hf = (size_t)1 << c->Lf;
    for (size_t i = b; i < e; i++) {
        bb_t *col = c->out + i * Hf;
        const bb_t *qc = c->q + i * c->q_stride;
        memcpy(col, qc, Hf * sizeof(bb_t));
        for (size_t r = 1; r < ((size_t)1 << c->f); r++) {
            const bb_t coef = bb_pow(c->g, r * Hf);
            for (size_t j = 0; j < Hf; j++)
                col[j] = bb_add(col[j], bb_mul(qc[r * Hf + j], coef));
        }
        if (c->l)
            rs_blocks(col, Hf >> c->l, c->l, c->tw_small, c->small_scale, c->kern, &c->b16);
        twist_range(col, c->g, 0, Hf);
        dft_serial(col, c->Lf, c->tw, 0, c->kern);
    }
}

static glstark_status cpu_rs_code_rows_folded(gs_engine *eng, const gs_dft_cols *q, unsigned l_skip,
                                              unsigned log_blowup, unsigned log_classes, uint32_t row_class,
                                              gs_buf *out, size_t out_offset)
{
    const unsigned L = q->log_n, f = log_classes - log_blowup, Lf = L - f;
    const size_t ncols = q->ncols;
    if (ncols == 0)
        return GLSTARK_OK;
    unsigned threads = gs_cpu_threads(eng);
    glstark_status st = GLSTARK_OK;
    bb_t *tw_small = twiddles_new(eng, l_skip, 1, 1);
    bb_t *tw = twiddles_new(eng, Lf, 0, threads);
    if (!tw_small || !tw) {
        st = oom(eng, "rs_code_rows_folded", sizeof(bb_t) << Lf);
    } else {
        folded_ctx c = {(const bb_t *)q->buf->host + q->offset, q->col_stride, l_skip, Lf, f,
                        bb_pow(bb_two_adic_generator(L + log_blowup), row_class), (bb_t *)out->host + out_offset,
                        tw_small, bb_inv(bb_pow(bb_from_canonical(2), l_skip)), tw, gs_cpu_engine_kernels(eng),
                        {{0}, 0}};
        gs_rs_block16_init(&c.b16);
        gs_cpu_for(eng, ncols < threads ? (unsigned)ncols : threads, ncols, folded_columns, &c);
    }
    free(tw);
    free(tw_small);
    return st;
}

const gs_dft_ops gs_cpu_dft_ops = {
    .dft = cpu_dft,
    .rs_message = cpu_rs_message,
    .stack_matrix = cpu_stack_matrix,
    .rs_code_matrix = cpu_rs_code_matrix,
    .rs_code_rows = cpu_rs_code_rows,
    .rs_code_rows_folded = cpu_rs_code_rows_folded,
};
