/* The reduction family on the CPU engine, the reference the GLES engine
 * must match bit for bit (field arithmetic is exact, so any summation order
 * gives the same result).
 *
 * Speed: the long dot products (weights times matrix entries, EF table
 * products) accumulate raw 62-bit products split into 32-bit halves in two
 * u64 accumulators and reduce once at the end (lazy reduction), and the
 * work is split over the engine's threads (pthreads, contiguous ranges). */
#include <string.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/cpu/ext_fold_simd.h"
#include "util/parallel_for.h"
#include "engine/cpu/weighted_sums_simd.h"
#include "engine/reduction_ops.h"

#define RED_MAX_THREADS 64

/* ---- lazy accumulation ---- */

typedef struct acc64 {
    uint64_t lo, hi;
} acc64;

static inline void acc_add(acc64 *a, uint64_t prod)
{
    a->lo += (uint32_t)prod;
    a->hi += prod >> 32;
}

/* Σ of products of Montgomery values (R²·Σ true products) -> Montgomery form
 * of Σ true products. Valid for fewer than 2^32 added products. */
static inline bb_t acc_reduce(acc64 a)
{
    uint64_t t = (a.hi % BB_P) * (uint64_t)0x0FFFFFFEu /* 2^32 mod p */ + a.lo % BB_P;
    return bb_monty_reduce(t % BB_P);
}

/* Lazy EF product accumulator: raw coefficients d_0..d_6 of Σ a·b. */
typedef struct ef_acc {
    acc64 d[7];
} ef_acc;

static inline void ef_acc_mul_add(ef_acc *acc, const bb4_t *a, const bb4_t *b)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            acc_add(&acc->d[i + j], (uint64_t)a->c[i] * b->c[j]);
}

static inline bb4_t ef_acc_reduce(const ef_acc *acc)
{
    bb_t d[7];
    for (int k = 0; k < 7; k++)
        d[k] = acc_reduce(acc->d[k]);
    bb_t w = bb_from_canonical(BB4_W);
    bb4_t r;
    for (int k = 0; k < 4; k++)
        r.c[k] = k + 4 < 7 ? bb_add(d[k], bb_mul(w, d[k + 4])) : d[k];
    return r;
}

/* ---- parallel for ---- */

typedef gs_range_fn range_fn;

static unsigned engine_threads(const gs_engine *eng)
{
    unsigned t = gs_cpu_threads(eng);
    return t > RED_MAX_THREADS ? RED_MAX_THREADS : t;
}

/* Runs fn over [0, n) in contiguous ranges, one per worker: at most the
 * engine's threads, fewer so each gets min_per_worker items, at least one
 * (called even for n = 0, so worker 0's partials are always written).
 * Returns the number of workers, which callers sum partials over. */
static unsigned parallel_for(const gs_engine *eng, size_t n, size_t min_per_worker, range_fn fn, void *ctx)
{
    unsigned T = engine_threads(eng);
    if (min_per_worker == 0)
        min_per_worker = 1;
    if (n / min_per_worker < T)
        T = (unsigned)(n / min_per_worker) > 0 ? (unsigned)(n / min_per_worker) : 1;
    if (n == 0) {
        fn(ctx, 0, 0, 0);
        return 1;
    }
    gs_cpu_for(eng, T, n, fn, ctx);
    return T;
}

/* ---- block sums ---- */

typedef struct bs_ctx {
    const bb_t *m;
    uint32_t height, l_skip;
    const gs_red_slice *slices;
    const bb4_t *eq_tables;
    bb4_t *out;
    const gs_cpu_kernels *k; /* vector sums for 16-row blocks */
} bs_ctx;

static void bs_range(void *p, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const bs_ctx *c = p;
    const size_t N = (size_t)1 << c->l_skip;
    acc64 acc[2][64][4]; /* N <= 64 (l_skip <= 6 checked by the caller) */
    for (size_t s = begin; s < end; s++) {
        const gs_red_slice *sl = &c->slices[s];
        uint32_t nt = sl->log_height > c->l_skip ? sl->log_height - c->l_skip : 0;
        const bb4_t *eq = c->eq_tables + (((size_t)1 << nt) - 1);
        const bb_t *base = c->m + (size_t)sl->col * c->height + sl->row;
        size_t nx = (size_t)1 << nt;
        bb4_t *a = c->out + s * 2 * N;
        if (N == 16 && gs_ple_block_sums16_simd(c->k, base, nx, eq, a, a + N))
            continue;
        memset(acc, 0, sizeof acc);
        for (size_t x = 0; x < nx; x++) {
            const bb4_t e = eq[x];
            const bb4_t ep = eq[x == 0 ? nx - 1 : x - 1];
            const bb_t *blk = base + x * N;
            for (size_t z = 0; z < N; z++) {
                uint64_t mv = blk[z];
                for (int j = 0; j < 4; j++) {
                    acc_add(&acc[0][z][j], mv * e.c[j]);
                    acc_add(&acc[1][z][j], mv * ep.c[j]);
                }
            }
        }
        for (int h = 0; h < 2; h++)
            for (size_t z = 0; z < N; z++)
                for (int j = 0; j < 4; j++)
                    a[h * N + z].c[j] = acc_reduce(acc[h][z][j]);
    }
}

static glstark_status cpu_block_sums(gs_engine *eng, const gs_buf *matrix, uint32_t height, uint32_t l_skip,
                                     const gs_red_slice *slices, uint32_t num_slices, const bb4_t *eq_tables,
                                     uint32_t max_nt, bb4_t *out)
{
    if (l_skip > 6)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "reduction block_sums: l_skip %u > 6 is not supported by the CPU engine", l_skip);
    for (uint32_t s = 0; s < num_slices; s++) {
        uint32_t nt = slices[s].log_height > l_skip ? slices[s].log_height - l_skip : 0;
        if (nt > max_nt)
            return gs_error_set(&eng->err, GLSTARK_ERR_INTERNAL,
                                "reduction block_sums: slice %u needs eq table %u but only %u given", s, nt, max_nt);
    }
    bs_ctx c = {(const bb_t *)matrix->host, height, l_skip, slices, eq_tables, out,
                gs_cpu_engine_kernels(eng)};
    parallel_for(eng, num_slices, 1, bs_range, &c);
    return GLSTARK_OK;
}

/* ---- PLE fold ---- */

typedef struct fp_ctx {
    const bb_t *m;
    uint32_t height, l_skip;
    size_t nx;
    const bb4_t *lag;
    bb4_t *o;
    size_t stride;
    bb_t lag_comp[4 * 64]; /* component j of lag[z] at [j N + z] (vector path; N <= 64) */
    const gs_cpu_kernels *k;
} fp_ctx;

static void fp_range(void *p, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const fp_ctx *c = p;
    const size_t N = (size_t)1 << c->l_skip;
    for (size_t i = begin; i < end;) {
        size_t col = i / c->nx, x = i % c->nx;
        const bb_t *cm = c->m + col * c->height;
        bb4_t *co = c->o + col * c->stride;
        size_t stop = (col + 1) * c->nx < end ? c->nx : x + (end - i); /* this column's part of the range */
        if (c->k->ple_fold)
            x += gs_ple_fold_simd(c->k, cm + x * N, N, stop - x, c->lag_comp, co + x);
        for (; x < stop; x++) {
            const bb_t *blk = cm + x * N;
            acc64 acc[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
            for (size_t z = 0; z < N; z++) {
                uint64_t mv = blk[z];
                for (int j = 0; j < 4; j++)
                    acc_add(&acc[j], mv * c->lag[z].c[j]);
            }
            bb4_t r;
            for (int j = 0; j < 4; j++)
                r.c[j] = acc_reduce(acc[j]);
            co[x] = r;
        }
        i = col * c->nx + stop;
    }
}

static glstark_status cpu_fold_ple(gs_engine *eng, const gs_buf *matrix, uint32_t col0, uint32_t width,
                                   uint32_t height, uint32_t l_skip, const bb4_t *lag, const gs_red_cols *out)
{
    const size_t N = (size_t)1 << l_skip;
    if (width == 0 || height < N)
        return GLSTARK_OK;
    if (matrix->size < ((uint64_t)col0 + width) * height * 4 || !out->buf ||
        out->buf->size < (out->offset + (uint64_t)(width - 1) * out->stride + (height >> l_skip)) * 16)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "reduction fold_ple: columns %u..%u of %u rows do not fit the matrix (%zu bytes) or the "
                            "output",
                            col0, col0 + width - 1, height, matrix->size);
    fp_ctx c = {(const bb_t *)matrix->host + (size_t)col0 * height, height, l_skip, (size_t)height >> l_skip, lag,
                (bb4_t *)out->buf->host + out->offset, out->stride, {0},
                N <= 64 ? gs_cpu_engine_kernels(eng) : gs_cpu_kernels_of(GS_SIMD_NONE)};
    for (size_t z = 0; c.k->ple_fold && z < N; z++)
        for (int j = 0; j < 4; j++)
            c.lag_comp[(size_t)j * N + z] = lag[z].c[j];
    parallel_for(eng, (size_t)width * c.nx, 4096, fp_range, &c);
    return GLSTARK_OK;
}

/* ---- product sumcheck round ---- */

/* Pairs per worker at least: below this a thread's start costs more than
 * its share. */
#define RE_MIN_PAIRS 4096

typedef struct re_ctx {
    const bb4_t *q, *w;
    size_t qs, ws, len;
    bb4_t part[RED_MAX_THREADS][2];
} re_ctx;

/* Pairs [begin, end) of the flattened (column, y) index, pair i being y =
 * i mod len/2 of column i div len/2: the stacked reduction's first rounds
 * have 2-5 long columns, which a split by column left on as many threads. */
static void re_range(void *p, size_t begin, size_t end, unsigned worker)
{
    re_ctx *c = p;
    const size_t half = c->len / 2;
    bb4_t s1 = bb4_zero(), s2 = bb4_zero();
    for (size_t i = begin; i < end;) {
        const size_t col = i / half, y0 = i % half;
        const size_t y1 = end - i < half - y0 ? y0 + (end - i) : half;
        const bb4_t *qc = c->q + col * c->qs;
        const bb4_t *wc = c->w + col * c->ws;
        ef_acc a1, a2;
        memset(&a1, 0, sizeof a1);
        memset(&a2, 0, sizeof a2);
        for (size_t y = y0; y < y1; y++) {
            bb4_t q0 = qc[2 * y], q1 = qc[2 * y + 1];
            bb4_t w0 = wc[2 * y], w1 = wc[2 * y + 1];
            ef_acc_mul_add(&a1, &q1, &w1);
            bb4_t q2 = bb4_sub(bb4_add(q1, q1), q0);
            bb4_t w2 = bb4_sub(bb4_add(w1, w1), w0);
            ef_acc_mul_add(&a2, &q2, &w2);
        }
        s1 = bb4_add(s1, ef_acc_reduce(&a1));
        s2 = bb4_add(s2, ef_acc_reduce(&a2));
        i += y1 - y0;
    }
    c->part[worker][0] = s1;
    c->part[worker][1] = s2;
}

static glstark_status cpu_round_evals(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len,
                                      gs_sums_dst dst)
{
    glstark_status st = gs_sums_dst_check(eng, dst, 2, "reduction round");
    if (st)
        return st;
    if (!dst.buf)
        eng->host_syncs++; /* its results go to the host (what GLES counts as a read) */
    if (len > ((size_t)1 << 28))
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED, "reduction round: tables of %zu entries", len);
    re_ctx c;
    c.q = (const bb4_t *)q->buf->host + q->offset;
    c.w = (const bb4_t *)w->buf->host + w->offset;
    c.qs = q->stride;
    c.ws = w->stride;
    c.len = len;
    unsigned T = parallel_for(eng, q->ncols * (len / 2), RE_MIN_PAIRS, re_range, &c);
    bb4_t out[2] = {bb4_zero(), bb4_zero()};
    for (unsigned t = 0; t < T; t++) {
        out[0] = bb4_add(out[0], c.part[t][0]);
        out[1] = bb4_add(out[1], c.part[t][1]);
    }
    return gs_sums_store(dst, out, 2);
}

/* ---- fold ---- */

typedef struct fo_ctx {
    const gs_red_cols *q, *w;
    size_t len;
    bb4_t u;
    gs_ext_matrix um; /* u for the vector path */
    const gs_cpu_kernels *k;
} fo_ctx;

static void fold_col(const fo_ctx *c, bb4_t *v)
{
    size_t half = c->len / 2;
    for (size_t y = gs_ext_fold_lerp_simd(c->k, v, v, half, &c->um); y < half; y++)
        v[y] = bb4_add(v[2 * y], bb4_mul(c->u, bb4_sub(v[2 * y + 1], v[2 * y])));
}

static void fo_range(void *p, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const fo_ctx *c = p;
    bb4_t *qb = (bb4_t *)c->q->buf->host + c->q->offset;
    bb4_t *wb = (bb4_t *)c->w->buf->host + c->w->offset;
    for (size_t col = begin; col < end; col++) {
        fold_col(c, qb + col * c->q->stride);
        fold_col(c, wb + col * c->w->stride);
    }
}

static glstark_status cpu_fold(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len, gs_chal uc)
{
    glstark_status st = gs_chal_check(eng, uc, "reduction fold");
    if (st)
        return st;
    const bb4_t u = gs_chal_host_value(uc);
    fo_ctx c = {.q = q, .w = w, .len = len, .u = u, .k = gs_cpu_engine_kernels(eng)};
    gs_ext_matrix_of(u, &c.um);
    parallel_for(eng, q->ncols, 1, fo_range, &c);
    return GLSTARK_OK;
}

typedef struct sc_ctx {
    bb4_t *dst;
    const bb4_t *src;
    const gs_red_copy *copies;
} sc_ctx;

static void sc_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    const sc_ctx *c = ctx;
    for (size_t i = b; i < e; i++) {
        const gs_red_copy *k = &c->copies[i];
        bb4_t *d = c->dst + k->dst;
        const bb4_t *s = c->src + k->src;
        for (size_t x = 0, n = (size_t)1 << k->log_len; x < n; x++)
            d[x] = bb4_mul(k->scale, s[x]);
    }
}

static glstark_status cpu_scaled_copies(gs_engine *eng, gs_buf *dst, const gs_buf *src, const gs_red_copy *copies,
                                        size_t n)
{
    glstark_status st = gs_red_copies_check(eng, dst, src, copies, n);
    if (st)
        return st;
    sc_ctx c = {(bb4_t *)dst->host, (const bb4_t *)src->host, copies};
    parallel_for(eng, n, 4, sc_range, &c);
    return GLSTARK_OK;
}

const gs_reduction_ops gs_cpu_reduction_ops = {
    .block_sums = cpu_block_sums,
    .fold_ple = cpu_fold_ple,
    .scaled_copies = cpu_scaled_copies,
    .round_evals = cpu_round_evals,
    .fold = cpu_fold,
};
