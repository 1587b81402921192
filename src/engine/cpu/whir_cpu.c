/* The WHIR family on the CPU engine: plain loops over host buffers.
 * Definitions of each op are in src/engine/whir_ops.h. */
#include "engine/whir_ops.h"

#include <stdlib.h>
#include <string.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/cpu/eq_table_cpu.h"
#include "engine/cpu/ext_fold_simd.h"
#include "util/parallel_for.h"
#include "engine/cpu/weighted_sums_simd.h"
#include "engine/dft_ops.h"
#include "engine/whir_prep.h"

static glstark_status need(gs_engine *eng, const gs_buf *b, size_t bytes, const char *op, const char *what)
{
    if (!b || !b->host || b->size < bytes)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir %s: buffer %s holds %zu bytes, needs %zu; allocate it for the full length", op,
                            what, b ? b->size : 0, bytes);
    return GLSTARK_OK;
}

static glstark_status oom(gs_engine *eng, const char *op)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "whir %s: host scratch allocation failed", op);
}

typedef struct batch_ctx {
    bb4_t *out;
    const bb_t *const *cols; /* every column of every matrix, in coefficient order */
    const bb4_t *coeffs;
    size_t ncols;
    const gs_cpu_kernels *k; /* vector rows (weighted_sums_simd.h) */
} batch_ctx;

/* Rows [b, e): out[r] = Σ_j coeffs[j] · col_j[r], in chunks of rows whose
 * outputs stay in the L1 cache while every column adds into them (streaming
 * the whole output once per column moved it 42 times for keccakf). */
#define BATCH_CHUNK 512
static void batch_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    const batch_ctx *c = ctx;
    for (size_t r0 = b; r0 < e; r0 += BATCH_CHUNK) {
        size_t r1 = e - r0 < BATCH_CHUNK ? e : r0 + BATCH_CHUNK;
        /* the vector rows first; the rows they leave, below */
        size_t rs = gs_lincomb_rows_simd(c->k, c->cols, c->coeffs, c->ncols, r0, r1, c->out);
        for (size_t r = rs; r < r1; r++)
            c->out[r] = bb4_zero();
        for (size_t j = 0; j < c->ncols; j++) {
            const bb4_t mu = c->coeffs[j];
            const bb_t *col = c->cols[j];
            for (size_t r = rs; r < r1; r++)
                c->out[r] = bb4_add(c->out[r], bb4_mul_base(mu, col[r]));
        }
    }
}

static glstark_status cpu_batch_columns(gs_engine *eng, const gs_buf *const *mats, const size_t *offs,
                                        const size_t *widths, size_t nmats, size_t height, const bb4_t *coeffs,
                                        gs_buf *out)
{
    glstark_status st = need(eng, out, height * sizeof(bb4_t), "batch_columns", "out");
    if (st)
        return st;
    size_t ncols = 0;
    for (size_t c = 0; c < nmats; c++) {
        if ((st = need(eng, mats[c], (offs[c] + widths[c] * height) * sizeof(bb_t), "batch_columns", "matrix")))
            return st;
        ncols += widths[c];
    }
    const bb_t **cols = malloc((ncols ? ncols : 1) * sizeof *cols);
    if (!cols)
        return oom(eng, "batch_columns");
    size_t j = 0;
    for (size_t c = 0; c < nmats; c++)
        for (size_t k = 0; k < widths[c]; k++)
            cols[j++] = (const bb_t *)mats[c]->host + offs[c] + k * height;
    /* rows split over the threads, every column streamed per range */
    batch_ctx bc = {out->host, cols, coeffs, ncols,
                    gs_cpu_engine_kernels(eng)};
    gs_cpu_for(eng, height >= ((size_t)1 << 14) ? gs_cpu_threads(eng) : 1, height, batch_range, &bc);
    free(cols);
    return GLSTARK_OK;
}

/* Subset-sum (zeta) transform over `bits` index bits of blocks of 2^bits. */
static void zeta_ext(bb4_t *a, size_t n, unsigned bits)
{
    size_t blk = (size_t)1 << bits;
    for (size_t base = 0; base < n; base += blk)
        for (size_t step = 1; step < blk; step <<= 1)
            for (size_t i = base; i < base + blk; i += 2 * step)
                for (size_t j = i; j < i + step; j++)
                    a[j + step] = bb4_add(a[j + step], a[j]);
}

typedef struct prep_ctx {
    bb4_t *a;
    const bb_t *mat; /* N x N, row-major */
    uint32_t N;
    const gs_cpu_kernels *k; /* vector products for N = 16 (weighted_sums_simd.h) */
} prep_ctx;

/* Blocks [b, e) of N entries: a_block = M · a_block, per EF coefficient. */
static void prep_blocks_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    const prep_ctx *c = ctx;
    const uint32_t N = c->N;
    if (N == 16 && gs_matvec16_blocks_simd(c->k, c->mat, c->a + b * N, e - b))
        return;
    bb4_t in[16];
    for (size_t blk = b; blk < e; blk++) {
        bb4_t *x = c->a + blk * N;
        memcpy(in, x, N * sizeof(bb4_t));
        for (uint32_t r = 0; r < N; r++) {
            const bb_t *row = c->mat + (size_t)r * N;
            bb4_t acc = bb4_zero();
            for (uint32_t k = 0; k < N; k++)
                acc = bb4_add(acc, bb4_mul_base(in[k], row[k]));
            x[r] = acc;
        }
    }
}

static glstark_status cpu_prepare_f(gs_engine *eng, gs_buf *f, unsigned log_n, unsigned l_skip)
{
    size_t n = (size_t)1 << log_n;
    glstark_status st = need(eng, f, n * sizeof(bb4_t), "prepare_f", "f");
    if (st)
        return st;
    if (l_skip > log_n || l_skip > 27)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prepare_f: l_skip %u > log_n %u", l_skip,
                            log_n);
    bb4_t *a = f->host;
    size_t blk = (size_t)1 << l_skip;
    if (l_skip <= GS_WHIR_PREP_MAX_LOG) {
        /* blocks of <= 16: one matrix per block for the inverse DFT and the
         * subset sums (src/engine/whir_prep.c), split over the threads (the
         * dft family's 2^l-point transforms one block at a time took 4.7 s
         * for keccakf-1024's 2^21 entries on 2 cores) */
        bb_t mat[16 * 16];
        gs_whir_prep_matrix(l_skip, mat);
        prep_ctx c = {a, mat, (uint32_t)blk, gs_cpu_engine_kernels(eng)};
        gs_cpu_for(eng, n >= ((size_t)1 << 14) ? gs_cpu_threads(eng) : 1, n / blk, prep_blocks_range, &c);
        return GLSTARK_OK;
    }
    /* larger blocks: the dft family's inverse DFTs, then the subset sums */
    gs_dft_cols cols = {.buf = f, .offset = 0, .col_stride = 4 * blk, .ncols = n / blk, .log_n = l_skip,
                        .elem_words = 4};
    if ((st = gs_dft(eng, &cols, GS_DFT_INVERSE)))
        return st;
    zeta_ext(a, n, l_skip);
    return GLSTARK_OK;
}

static glstark_status cpu_eq_table(gs_engine *eng, const bb4_t *u, unsigned n, gs_buf *out)
{
    size_t len = (size_t)1 << n;
    glstark_status st = need(eng, out, len * sizeof(bb4_t), "eq_table", "out");
    if (st)
        return st;
    gs_cpu_eq_table(eng, gs_cpu_threads(eng), u, n, out->host);
    return GLSTARK_OK;
}

/* The round sums and the folds split their pairs over the threads (the
 * sums as per-worker partials: field addition is exact, so the grouping
 * does not change the result). */
typedef struct pairs_ctx {
    const bb4_t *f, *w;
    bb4_t *f_out, *w_out;
    bb4_t alpha, one_minus, two_minus;
    bb4_t (*partial)[2];
    gs_ext_matrix alpha_m, one_minus_m, two_minus_m; /* the fold's weights for the vector path */
    const gs_cpu_kernels *k;
} pairs_ctx;

static void round_range(void *vctx, size_t b, size_t e, unsigned worker)
{
    const pairs_ctx *c = vctx;
    bb4_t s1 = bb4_zero(), s2 = bb4_zero();
    for (size_t y = b; y < e; y++) {
        bb4_t c0 = c->f[2 * y], c1 = c->f[2 * y + 1], m0 = c->w[2 * y], m1 = c->w[2 * y + 1];
        bb4_t e1 = bb4_add(c0, c1);
        s1 = bb4_add(s1, bb4_mul(e1, m1));
        bb4_t e2 = bb4_add(e1, c1), n2 = bb4_sub(bb4_add(bb4_add(m1, m1), m1), m0);
        s2 = bb4_add(s2, bb4_mul(e2, n2));
    }
    c->partial[worker][0] = s1;
    c->partial[worker][1] = s2;
}

static glstark_status cpu_sumcheck_round(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len,
                                         gs_sums_dst dst)
{
    glstark_status st = need(eng, f, len * sizeof(bb4_t), "sumcheck_round", "f");
    if (!st)
        st = need(eng, w, len * sizeof(bb4_t), "sumcheck_round", "w");
    if (!st)
        st = gs_sums_dst_check(eng, dst, 2, "whir sumcheck_round");
    if (st)
        return st;
    bb4_t partial[GS_PARALLEL_MAX][2];
    unsigned parts = len / 2 >= ((size_t)1 << 14) ? gs_cpu_parts(eng, len / 2) : 1;
    if (parts > GS_PARALLEL_MAX)
        parts = GS_PARALLEL_MAX;
    pairs_ctx c = {.f = f->host, .w = w->host, .partial = partial};
    bb4_t out[2] = {bb4_zero(), bb4_zero()};
    if (len >= 2) {
        gs_cpu_for(eng, parts, len / 2, round_range, &c);
        for (unsigned k = 0; k < parts; k++) {
            out[0] = bb4_add(out[0], partial[k][0]);
            out[1] = bb4_add(out[1], partial[k][1]);
        }
    }
    if (!dst.buf)
        eng->host_syncs++;
    return gs_sums_store(dst, out, 2);
}

static void fold_range(void *vctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    const pairs_ctx *c = vctx;
    size_t fy = b + gs_ext_fold_lin_simd(c->k, c->f_out + b, c->f + 2 * b, e - b, NULL, &c->alpha_m);
    for (size_t y = fy; y < e; y++)
        c->f_out[y] = bb4_add(c->f[2 * y], bb4_mul(c->alpha, c->f[2 * y + 1]));
    size_t wy = b + gs_ext_fold_lin_simd(c->k, c->w_out + b, c->w + 2 * b, e - b, &c->one_minus_m, &c->two_minus_m);
    for (size_t y = wy; y < e; y++)
        c->w_out[y] = bb4_add(bb4_mul(c->one_minus, c->w[2 * y]), bb4_mul(c->two_minus, c->w[2 * y + 1]));
}

static glstark_status fold_args(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_buf *f_out,
                                gs_buf *w_out, const char *op)
{
    glstark_status st = need(eng, f, len * sizeof(bb4_t), op, "f");
    if (!st)
        st = need(eng, w, len * sizeof(bb4_t), op, "w");
    if (!st)
        st = need(eng, f_out, len / 2 * sizeof(bb4_t), op, "f_out");
    if (!st)
        st = need(eng, w_out, len / 2 * sizeof(bb4_t), op, "w_out");
    if (st)
        return st;
    if (f_out == f || f_out == w || w_out == f || w_out == w || f_out == w_out || f == w)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir %s: f, w, f_out and w_out must be four distinct buffers (the fold is out of place)",
                            op);
    return GLSTARK_OK;
}

static glstark_status cpu_fold(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_chal alpha_at,
                               gs_buf *f_out, gs_buf *w_out)
{
    glstark_status st = fold_args(eng, f, w, len, f_out, w_out, "fold");
    if (!st)
        st = gs_chal_check(eng, alpha_at, "whir fold");
    if (st)
        return st;
    const bb4_t alpha = gs_chal_host_value(alpha_at);
    pairs_ctx c = {.f = f->host,
                   .w = w->host,
                   .f_out = f_out->host,
                   .w_out = w_out->host,
                   .alpha = alpha,
                   .one_minus = bb4_sub(bb4_one(), alpha),
                   .two_minus = bb4_sub(bb4_add(alpha, alpha), bb4_one()),
                   .k = gs_cpu_engine_kernels(eng)};
    gs_ext_matrix_of(c.alpha, &c.alpha_m);
    gs_ext_matrix_of(c.one_minus, &c.one_minus_m);
    gs_ext_matrix_of(c.two_minus, &c.two_minus_m);
    gs_cpu_for(eng, len / 2 >= ((size_t)1 << 14) ? gs_cpu_parts(eng, len / 2) : 1, len / 2, fold_range, &c);
    return GLSTARK_OK;
}

#define EVAL_MAX_PARTS 64

typedef struct eval_ctx {
    const bb4_t *a;
    bb4_t z;
    bb4_t part[EVAL_MAX_PARTS]; /* Σ_{i in range} a[i] z^(i - range start) */
} eval_ctx;

/* Horner's rule over one contiguous range of coefficients. */
static void eval_range(void *vctx, size_t b, size_t e, unsigned worker)
{
    eval_ctx *c = vctx;
    bb4_t acc = bb4_zero();
    for (size_t i = e; i-- > b;)
        acc = bb4_add(bb4_mul(acc, c->z), c->a[i]);
    c->part[worker] = acc;
}

static glstark_status cpu_eval_univariate(gs_engine *eng, const gs_buf *g, size_t len, bb4_t z, bb4_t *out)
{
    glstark_status st = need(eng, g, len * sizeof(bb4_t), "eval_univariate", "g");
    if (st)
        return st;
    /* the threads' ranges are gs_parallel_for's contiguous split [len t / T, len (t+1) / T);
     * range t's sum is shifted by z^(its start) */
    unsigned parts = len >= ((size_t)1 << 14) ? gs_cpu_parts(eng, len) : 1;
    if (parts > EVAL_MAX_PARTS)
        parts = EVAL_MAX_PARTS;
    eval_ctx c = {g->host, z, {{{0}}}};
    gs_cpu_for(eng, parts, len, eval_range, &c);
    bb4_t acc = bb4_zero();
    for (unsigned t = parts; t-- > 0;) {
        size_t b = len * t / parts, e = len * (t + 1) / parts;
        acc = bb4_add(bb4_mul(acc, bb4_pow(z, e - b)), c.part[t]);
    }
    *out = len ? acc : bb4_zero();
    eng->host_syncs++;
    return GLSTARK_OK;
}

/* dst[i] = src[i] below len, zero from there, on the threads (a fresh
 * codeword's first touch included). dst and src do not overlap: the
 * codeword is a buffer of its own. */
typedef struct pad_ctx {
    bb4_t *dst;
    const bb4_t *src;
    size_t len;
} pad_ctx;

static void pad_range(void *v, size_t b, size_t e, unsigned w)
{
    (void)w;
    const pad_ctx *c = v;
    size_t m = e < c->len ? e : c->len;
    if (b < m)
        memcpy(c->dst + b, c->src + b, (m - b) * sizeof(bb4_t));
    if (m < e)
        memset(c->dst + (b > m ? b : m), 0, (e - (b > m ? b : m)) * sizeof(bb4_t));
}

/* The EF coefficient vector g[0..len) zero-padded to 2^log_n and evaluated
 * on the subgroup (natural order), into codeword. */
static glstark_status encode_ext(gs_engine *eng, const gs_buf *g, size_t len, unsigned log_n, gs_buf *codeword)
{
    size_t n = (size_t)1 << log_n;
    glstark_status st = need(eng, codeword, n * sizeof(bb4_t), "fold_encode", "codeword");
    if (st)
        return st;
    pad_ctx pc = {codeword->host, g->host, len};
    gs_cpu_for(eng, n >= ((size_t)1 << 14) ? gs_cpu_threads(eng) : 1, n, pad_range, &pc);
    /* an EF DFT is four base-field DFTs; the dft family does them */
    gs_dft_cols cols = {.buf = codeword, .offset = 0, .col_stride = 4 * n, .ncols = 1, .log_n = log_n,
                        .elem_words = 4};
    return gs_dft(eng, &cols, GS_DFT_FORWARD);
}

static glstark_status cpu_fold_encode(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_chal alpha,
                                      gs_buf *f_out, gs_buf *w_out, unsigned log_n, gs_buf *codeword)
{
    if (log_n > 27 || len / 2 > ((size_t)1 << log_n) || len < 2 || (len & (len - 1)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir fold_encode: %zu coefficients (from %zu) do not fit a 2^%u codeword, or the length "
                            "is not a power of two >= 2",
                            len / 2, len, log_n);
    if (!codeword || codeword == f || codeword == w || codeword == f_out || codeword == w_out)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir fold_encode: the codeword must be a buffer of its own");
    glstark_status st = cpu_fold(eng, f, w, len, alpha, f_out, w_out);
    if (!st)
        st = encode_ext(eng, f_out, len / 2, log_n, codeword);
    return st;
}

typedef struct wacc_ctx {
    bb4_t *w;
    const bb4_t *t0;     /* gamma0·z0^b, full length */
    const bb_t *lo, *hi; /* per base point: powers over the low and the high index bits */
    const bb4_t *gammas;
    size_t nz;
    unsigned nlo, nhi;
    const gs_cpu_kernels *k;
} wacc_ctx;

/* w[b] plus t0[b] and every base point's term, in plain C. */
static void wacc_one(const wacc_ctx *c, size_t b)
{
    size_t mask = ((size_t)1 << c->nlo) - 1, llen = (size_t)1 << c->nlo, hlen = (size_t)1 << c->nhi;
    bb4_t acc = bb4_add(c->w[b], c->t0[b]);
    for (size_t q = 0; q < c->nz; q++) {
        bb_t e = bb_mul(c->lo[q * llen + (b & mask)], c->hi[q * hlen + (b >> c->nlo)]);
        acc = bb4_add(acc, bb4_mul_base(c->gammas[q], e));
    }
    c->w[b] = acc;
}

/* Each power z^b of a base point is lo[b & mask]·hi[b >> nlo]: the per-point
 * tables are small, and the range of b splits across threads. Plain C up to
 * a multiple of 16, 16-lane vectors from there, plain C for what is left. */
static void wacc_range(void *vctx, size_t b0, size_t b1, unsigned worker)
{
    (void)worker;
    const wacc_ctx *c = vctx;
    size_t up = (b0 + 15) & ~(size_t)15, v0 = up < b1 ? up : b1;
    size_t v1 = gs_w_accumulate_simd(c->k, c->w, c->t0, c->lo, c->hi, c->gammas, c->nz, c->nlo, c->nhi, v0, b1);
    for (size_t b = b0; b < v0; b++)
        wacc_one(c, b);
    for (size_t b = v1; b < b1; b++)
        wacc_one(c, b);
}

static glstark_status cpu_w_accumulate(gs_engine *eng, gs_buf *w, unsigned n, bb4_t z0, bb4_t gamma0, const bb_t *zs,
                                       const bb4_t *gammas, size_t nz)
{
    size_t len = (size_t)1 << n;
    glstark_status st = need(eng, w, len * sizeof(bb4_t), "w_accumulate", "w");
    if (st)
        return st;
    unsigned nlo = n / 2, nhi = n - n / 2;
    bb4_t *t = malloc(len * sizeof(bb4_t));
    bb_t *lo = malloc((nz ? nz : 1) * ((size_t)1 << nlo) * sizeof(bb_t));
    bb_t *hi = malloc((nz ? nz : 1) * ((size_t)1 << nhi) * sizeof(bb_t));
    if (!t || !lo || !hi) {
        free(t);
        free(lo);
        free(hi);
        return oom(eng, "w_accumulate");
    }
    /* EF point: one full table of powers, scaled by gamma0 from the start */
    t[0] = gamma0;
    bb4_t p = z0;
    for (unsigned i = 0; i < n; i++) {
        size_t h = (size_t)1 << i;
        for (size_t b = 0; b < h; b++)
            t[b + h] = bb4_mul(t[b], p);
        p = bb4_square(p);
    }
    for (size_t q = 0; q < nz; q++) {
        bb_pow_table(zs[q], 0, nlo, lo + q * ((size_t)1 << nlo));
        bb_pow_table(zs[q], nlo, nhi, hi + q * ((size_t)1 << nhi));
    }
    wacc_ctx c = {w->host, t, lo, hi, gammas, nz, nlo, nhi, gs_cpu_engine_kernels(eng)};
    unsigned threads = gs_cpu_threads(eng);
    gs_cpu_for(eng, len >= 4096 ? threads : 1, len, wacc_range, &c);
    free(t);
    free(lo);
    free(hi);
    return GLSTARK_OK;
}

const gs_whir_ops gs_cpu_whir_ops = {
    .batch_columns = cpu_batch_columns,
    .prepare_f = cpu_prepare_f,
    .eq_table = cpu_eq_table,
    .sumcheck_round = cpu_sumcheck_round,
    .fold = cpu_fold,
    .fold_encode = cpu_fold_encode,
    .eval_univariate = cpu_eval_univariate,
    .w_accumulate = cpu_w_accumulate,
};
