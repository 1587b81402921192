/* The WHIR family on the CPU engine: plain loops over host buffers.
 * Definitions of each op are in src/engine/whir_ops.h. */
#include "engine/whir_ops.h"

#include <stdlib.h>
#include <string.h>

#include "engine/cpu/cpu_engine.h"

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

static glstark_status cpu_batch_columns(gs_engine *eng, const gs_buf *const *mats, const size_t *offs,
                                        const size_t *widths, size_t nmats, size_t height, const bb4_t *coeffs,
                                        gs_buf *out)
{
    glstark_status st = need(eng, out, height * sizeof(bb4_t), "batch_columns", "out");
    if (st)
        return st;
    bb4_t *o = out->host;
    for (size_t r = 0; r < height; r++)
        o[r] = bb4_zero();
    size_t j0 = 0;
    for (size_t c = 0; c < nmats; c++) {
        if ((st = need(eng, mats[c], (offs[c] + widths[c] * height) * sizeof(bb_t), "batch_columns", "matrix")))
            return st;
        const bb_t *m = (const bb_t *)mats[c]->host + offs[c];
        for (size_t j = 0; j < widths[c]; j++) {
            bb4_t mu = coeffs[j0 + j];
            const bb_t *col = m + j * height;
            for (size_t r = 0; r < height; r++)
                o[r] = bb4_add(o[r], bb4_mul_base(mu, col[r]));
        }
        j0 += widths[c];
    }
    return GLSTARK_OK;
}

static unsigned bitrev(unsigned x, unsigned bits)
{
    unsigned r = 0;
    for (unsigned i = 0; i < bits; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

/* In-place radix-2 DIT DFT of 2^log_n EF values with root `root` (order 2^log_n):
 * out[i] = Σ_j in[j]·root^(i·j), natural order in and out. tw holds 2^(log_n-1) scratch. */
static void dft_ext(bb4_t *a, unsigned log_n, bb_t root, bb_t *tw)
{
    size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < n; i++) {
        size_t j = bitrev((unsigned)i, log_n);
        if (i < j) {
            bb4_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    if (n < 2)
        return;
    /* twiddles of the full size; stage with half-length h uses stride n/(2h) */
    tw[0] = bb_one();
    for (size_t i = 1; i < n / 2; i++)
        tw[i] = bb_mul(tw[i - 1], root);
    for (size_t h = 1; h < n; h <<= 1) {
        size_t stride = n / (2 * h);
        for (size_t s = 0; s < n; s += 2 * h)
            for (size_t t = 0; t < h; t++) {
                bb4_t u = a[s + t];
                bb4_t v = bb4_mul_base(a[s + t + h], tw[t * stride]);
                a[s + t] = bb4_add(u, v);
                a[s + t + h] = bb4_sub(u, v);
            }
    }
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
    bb_t *tw = malloc((blk / 2 + 1) * sizeof(bb_t));
    if (!tw)
        return oom(eng, "prepare_f");
    bb_t inv_root = bb_inv(bb_two_adic_generator(l_skip));
    bb_t inv_n = bb_inv(bb_from_u32((uint32_t)blk));
    for (size_t b = 0; b < n; b += blk) {
        dft_ext(a + b, l_skip, inv_root, tw);
        for (size_t i = 0; i < blk; i++)
            a[b + i] = bb4_mul_base(a[b + i], inv_n);
    }
    free(tw);
    zeta_ext(a, n, l_skip);
    zeta_ext(a, n, log_n);
    return GLSTARK_OK;
}

static glstark_status cpu_mobius_eq_table(gs_engine *eng, const bb4_t *u, unsigned n, gs_buf *out)
{
    size_t len = (size_t)1 << n;
    glstark_status st = need(eng, out, len * sizeof(bb4_t), "mobius_eq_table", "out");
    if (st)
        return st;
    bb4_t *o = out->host;
    o[0] = bb4_one();
    for (unsigned i = 0; i < n; i++) {
        size_t h = (size_t)1 << i;
        bb4_t lo = bb4_sub(bb4_one(), bb4_add(u[i], u[i]));
        for (size_t b = 0; b < h; b++) {
            o[b + h] = bb4_mul(o[b], u[i]);
            o[b] = bb4_mul(o[b], lo);
        }
    }
    return GLSTARK_OK;
}

static glstark_status cpu_sumcheck_round(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, bb4_t out[2])
{
    glstark_status st = need(eng, f, len * sizeof(bb4_t), "sumcheck_round", "f");
    if (!st)
        st = need(eng, w, len * sizeof(bb4_t), "sumcheck_round", "w");
    if (st)
        return st;
    const bb4_t *a = f->host, *b = w->host;
    bb4_t s1 = bb4_zero(), s2 = bb4_zero();
    for (size_t y = 0; y < len / 2; y++) {
        bb4_t f0 = a[2 * y], f1 = a[2 * y + 1], w0 = b[2 * y], w1 = b[2 * y + 1];
        s1 = bb4_add(s1, bb4_mul(f1, w1));
        bb4_t f2 = bb4_sub(bb4_add(f1, f1), f0), w2 = bb4_sub(bb4_add(w1, w1), w0);
        s2 = bb4_add(s2, bb4_mul(f2, w2));
    }
    out[0] = s1;
    out[1] = s2;
    eng->host_syncs++;
    return GLSTARK_OK;
}

static glstark_status cpu_fold(gs_engine *eng, gs_buf *f, gs_buf *w, size_t len, bb4_t alpha)
{
    glstark_status st = need(eng, f, len * sizeof(bb4_t), "fold", "f");
    if (!st)
        st = need(eng, w, len * sizeof(bb4_t), "fold", "w");
    if (st)
        return st;
    bb4_t *a = f->host, *b = w->host;
    for (size_t y = 0; y < len / 2; y++) {
        a[y] = bb4_add(a[2 * y], bb4_mul(alpha, bb4_sub(a[2 * y + 1], a[2 * y])));
        b[y] = bb4_add(b[2 * y], bb4_mul(alpha, bb4_sub(b[2 * y + 1], b[2 * y])));
    }
    return GLSTARK_OK;
}

static glstark_status cpu_mobius(gs_engine *eng, const gs_buf *src, gs_buf *dst, size_t len)
{
    glstark_status st = need(eng, src, len * sizeof(bb4_t), "mobius", "src");
    if (!st)
        st = need(eng, dst, len * sizeof(bb4_t), "mobius", "dst");
    if (st)
        return st;
    if (len & (len - 1))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "whir mobius: length %zu is not a power of two",
                            len);
    bb4_t *a = dst->host;
    if (dst != src)
        memmove(a, src->host, len * sizeof(bb4_t));
    for (size_t step = 1; step < len; step <<= 1)
        for (size_t i = 0; i < len; i += 2 * step)
            for (size_t j = i; j < i + step; j++)
                a[j + step] = bb4_sub(a[j + step], a[j]);
    return GLSTARK_OK;
}

static glstark_status cpu_eval_univariate(gs_engine *eng, const gs_buf *g, size_t len, bb4_t z, bb4_t *out)
{
    glstark_status st = need(eng, g, len * sizeof(bb4_t), "eval_univariate", "g");
    if (st)
        return st;
    const bb4_t *a = g->host;
    bb4_t acc = bb4_zero();
    for (size_t i = len; i-- > 0;)
        acc = bb4_add(bb4_mul(acc, z), a[i]);
    *out = acc;
    eng->host_syncs++;
    return GLSTARK_OK;
}

static glstark_status cpu_encode_ext(gs_engine *eng, const gs_buf *g, size_t len, unsigned log_n, gs_buf *codeword)
{
    size_t n = (size_t)1 << log_n;
    if (log_n > 27 || len > n)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir encode_ext: %zu coefficients do not fit a 2^%u codeword", len, log_n);
    glstark_status st = need(eng, g, len * sizeof(bb4_t), "encode_ext", "g");
    if (!st)
        st = need(eng, codeword, n * sizeof(bb4_t), "encode_ext", "codeword");
    if (st)
        return st;
    bb4_t *a = codeword->host;
    bb_t *tw = malloc((n / 2 + 1) * sizeof(bb_t));
    if (!tw)
        return oom(eng, "encode_ext");
    memmove(a, g->host, len * sizeof(bb4_t));
    memset(a + len, 0, (n - len) * sizeof(bb4_t));
    dft_ext(a, log_n, bb_two_adic_generator(log_n), tw);
    free(tw);
    return GLSTARK_OK;
}

/* w[b] += gamma·Π_i(b_i ? p_i : 1 − p_i) with p_i = z^(2^i), built as an eq table in a scratch
 * vector (doubling per variable) and then added. */
static glstark_status cpu_w_accumulate(gs_engine *eng, gs_buf *w, unsigned n, bb4_t z0, bb4_t gamma0, const bb_t *zs,
                                       const bb4_t *gammas, size_t nz)
{
    size_t len = (size_t)1 << n;
    glstark_status st = need(eng, w, len * sizeof(bb4_t), "w_accumulate", "w");
    if (st)
        return st;
    bb4_t *o = w->host;
    bb4_t *t = malloc(len * sizeof(bb4_t));
    bb_t *tb = malloc(len * sizeof(bb_t));
    if (!t || !tb) {
        free(t);
        free(tb);
        return oom(eng, "w_accumulate");
    }
    /* EF point: table scaled by gamma0 from the start */
    t[0] = gamma0;
    bb4_t p = z0;
    for (unsigned i = 0; i < n; i++) {
        size_t h = (size_t)1 << i;
        for (size_t b = 0; b < h; b++) {
            bb4_t hi = bb4_mul(t[b], p);
            t[b + h] = hi;
            t[b] = bb4_sub(t[b], hi);
        }
        p = bb4_square(p);
    }
    for (size_t b = 0; b < len; b++)
        o[b] = bb4_add(o[b], t[b]);
    /* base-field points: the table stays in F, scaled by gamma when added */
    for (size_t q = 0; q < nz; q++) {
        tb[0] = bb_one();
        bb_t pb = zs[q];
        for (unsigned i = 0; i < n; i++) {
            size_t h = (size_t)1 << i;
            for (size_t b = 0; b < h; b++) {
                bb_t hi = bb_mul(tb[b], pb);
                tb[b + h] = hi;
                tb[b] = bb_sub(tb[b], hi);
            }
            pb = bb_square(pb);
        }
        for (size_t b = 0; b < len; b++)
            o[b] = bb4_add(o[b], bb4_mul_base(gammas[q], tb[b]));
    }
    free(t);
    free(tb);
    return GLSTARK_OK;
}

const gs_whir_ops gs_cpu_whir_ops = {
    .batch_columns = cpu_batch_columns,
    .prepare_f = cpu_prepare_f,
    .mobius_eq_table = cpu_mobius_eq_table,
    .sumcheck_round = cpu_sumcheck_round,
    .fold = cpu_fold,
    .mobius = cpu_mobius,
    .eval_univariate = cpu_eval_univariate,
    .encode_ext = cpu_encode_ext,
    .w_accumulate = cpu_w_accumulate,
};
