/* The GLES engine's whir family (definitions in src/engine/whir_ops.h),
 * bit-identical to the CPU engine: every op is exact field arithmetic, so a
 * different summation order or factoring of a product gives the same value.
 *
 * Kernels: glsl/whir.comp. Buffers are reached through windows that fit one
 * binding (colwin.h), and work is cut into dispatches of about 2^20
 * elements. Reductions (sumcheck_round, eval_univariate) are two-pass:
 * per-work-group partials, then one reducing work group; only the final 16
 * or 32 bytes come back. Product tables (eq_table, w_accumulate's powers)
 * are factored into a low-variable and a high-variable table built on the
 * host (about 2·2^(n/2) entries), so each entry costs one product on the GPU.
 * prepare_f applies each block's inverse DFT and subset sums as one small
 * matrix when blocks have at most 16 entries (the dft family otherwise).
 * Folds are out of place (no copy back); fold_encode writes the folded f
 * straight into the codeword's bit-reversed expansion and runs only the
 * DFT layers that are not copies. */
#include "engine/dft_ops.h"
#include "engine/gles/colwin.h"
#include "engine/whir_ops.h"
#include "engine/whir_prep.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static glstark_status need(gs_engine *eng, const gs_buf *b, uint64_t bytes, const char *op, const char *what)
{
    if (!b || b->engine != eng || b->size < bytes)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir %s: buffer %s holds %zu bytes, needs %" PRIu64
                            "; allocate it on this engine for the full length",
                            op, what, b ? b->size : 0, bytes);
    return GLSTARK_OK;
}

static glstark_status oom(gs_engine *eng, const char *op)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "whir %s: host scratch allocation failed", op);
}

static glstark_status no_fit(gs_engine *eng, const char *op)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                        "gles whir %s: not even one element fits this device's %" PRIu64 "-byte binding limit", op,
                        gs_gles_device(eng)->caps.max_binding_bytes);
}

static glstark_status upload(gs_engine *eng, const void *src, size_t bytes, gs_buf **out)
{
    *out = NULL;
    glstark_status st = gs_buf_create(eng, bytes ? bytes : 16, out);
    if (!st && bytes)
        st = gs_buf_write(*out, 0, src, bytes);
    if (st) {
        gs_buf_destroy(*out);
        *out = NULL;
    }
    return st;
}

static glstark_status gles_batch_columns(gs_engine *eng, const gs_buf *const *mats, const size_t *offs,
                                         const size_t *widths, size_t nmats, size_t height, const bb4_t *coeffs,
                                         gs_buf *out)
{
    gs_gl_device *dev = gs_gles_device(eng);
    glstark_status st = need(eng, out, (uint64_t)height * 16, "batch_columns", "out");
    size_t total = 0;
    for (size_t c = 0; !st && c < nmats; c++) {
        st = need(eng, mats[c], ((uint64_t)offs[c] + (uint64_t)widths[c] * height) * 4, "batch_columns", "matrix");
        total += widths[c];
    }
    if (st)
        return st;
    if (height == 0)
        return GLSTARK_OK;
    if ((st = gs_buf_fill_u32(out, 0, height * 4, 0)))
        return st;
    if (total == 0)
        return GLSTARK_OK;
    if (total * 16 > dev->caps.max_binding_bytes)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles whir batch_columns: %zu coefficients exceed one binding", total);
    gs_gl_program *pb;
    gs_buf *cb = NULL;
    if ((st = gs_gles_whir_prog(eng, GS_WM_BATCH, &pb)) || (st = upload(eng, coeffs, total * 16, &cb)))
        return st;
    st = gs_gles_bind(eng, 2, cb, 0, total * 16);
    gs_cw_set_u(pb, "gs_accum", 1);
    size_t j0 = 0;
    for (size_t c = 0; !st && c < nmats; j0 += widths[c], c++) {
        gs_cw_set sets[2] = {{mats[c], offs[c], height, 4, 0}, {out, 0, 0, 16, 0}};
        gs_cw_iter it;
        gs_cw_piece p;
        int r;
        gs_cw_start(&it, &dev->caps, sets, 2, widths[c], 0, height, 1, 4 * gs_cw_budget(&dev->caps));
        while (!st && (r = gs_cw_next(&it, &p)) != 0) {
            uint32_t l0, l1;
            if (r < 0)
                st = no_fit(eng, "batch_columns");
            if (!st)
                st = gs_cw_bind(eng, 0, &sets[0], &p, &l0);
            if (!st)
                st = gs_cw_bind(eng, 1, &sets[1], &p, &l1);
            if (st)
                break;
            gs_cw_set_u(pb, "gs_lead0", l0);
            gs_cw_set_u(pb, "gs_lead1", l1);
            gs_cw_set_u(pb, "gs_stride0", (uint32_t)height);
            gs_cw_set_u(pb, "gs_ncols", (uint32_t)p.nc);
            gs_cw_set_u(pb, "gs_cbase", (uint32_t)(j0 + p.c0));
            st = gs_gl_dispatch_1d(dev, pb, p.ne, &eng->err);
        }
    }
    gs_buf_destroy(cb);
    return st;
}

/* One stage (index bit `bit`) of pairs (i, i + 2^bit), for groups too long
 * for a radix pass's window. */
static glstark_status bfly_bit(gs_engine *eng, gs_gl_program *pbit, gs_buf *buf, uint64_t n, unsigned bit)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t h = (uint64_t)1 << bit, blk = 2 * h;
    gs_cw_set set = {buf, 0, 0, 16, 0};
    glstark_status st = GLSTARK_OK;
    if (blk * 16 + align <= maxb && h <= gs_cw_budget(&dev->caps)) {
        /* whole blocks of 2^(bit+1) in one window, bound twice */
        uint64_t per = (maxb - align) / (blk * 16);
        uint64_t byb = gs_cw_budget(&dev->caps) / h;
        if (byb < per)
            per = byb ? byb : 1;
        gs_cw_set_u(pbit, "gs_mask", (uint32_t)(h - 1));
        for (uint64_t b0 = 0; !st && b0 < n / blk; b0 += per) {
            uint64_t nb = n / blk - b0 < per ? n / blk - b0 : per;
            gs_cw_piece q = {0, 1, b0 * blk, nb * blk};
            uint32_t l0, l1;
            st = gs_cw_bind(eng, 0, &set, &q, &l0);
            if (!st)
                st = gs_cw_bind(eng, 1, &set, &q, &l1);
            if (st)
                break;
            gs_cw_set_u(pbit, "gs_lead0", l0);
            gs_cw_set_u(pbit, "gs_lead1", l1 + (uint32_t)(4 * h));
            st = gs_gl_dispatch_1d(dev, pbit, nb * h, &eng->err);
        }
        return st;
    }
    /* a block exceeds a binding: its halves in matching chunks */
    uint64_t m = (maxb - align) / 16;
    if (m > gs_cw_budget(&dev->caps))
        m = gs_cw_budget(&dev->caps);
    gs_cw_set_u(pbit, "gs_mask", 0xFFFFFFFFu);
    for (uint64_t b0 = 0; !st && b0 < n; b0 += blk)
        for (uint64_t i = 0; !st && i < h; i += m) {
            uint64_t k = h - i < m ? h - i : m;
            gs_cw_piece ql = {0, 1, b0 + i, k}, qh = {0, 1, b0 + h + i, k};
            uint32_t l0, l1;
            st = gs_cw_bind(eng, 0, &set, &ql, &l0);
            if (!st)
                st = gs_cw_bind(eng, 1, &set, &qh, &l1);
            if (st)
                break;
            gs_cw_set_u(pbit, "gs_lead0", l0);
            gs_cw_set_u(pbit, "gs_lead1", l1);
            st = gs_gl_dispatch_1d(dev, pbit, k, &eng->err);
        }
    return st;
}

/* Subset-sum stages over index bits [lo, hi) of the first n = 2^log_n EF
 * elements of buf: radix-8 passes (three stages per sweep) where a group of
 * 2^(s+3) elements fits a window, single stages otherwise. */
static glstark_status butterflies(gs_engine *eng, gs_buf *buf, unsigned log_n, unsigned lo, unsigned hi,
                                  const char *op)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t n = (uint64_t)1 << log_n;
    if (hi <= lo)
        return GLSTARK_OK;
    gs_gl_program *plo, *pbit;
    glstark_status st = gs_gles_whir_prog(eng, GS_WM_BFLY_BIT, &pbit);
    if (!st)
        st = gs_gles_whir_prog(eng, GS_WM_BFLY_LOW, &plo);
    if (st)
        return st;
    gs_cw_set set = {buf, 0, 0, 16, 0};
    for (unsigned s = lo; !st && s < hi;) {
        unsigned c = hi - s < 3 ? hi - s : 3;
        uint64_t group = (uint64_t)1 << (s + c);
        if (group * 16 + align > maxb) {
            st = bfly_bit(eng, pbit, buf, n, s);
            s++;
            continue;
        }
        gs_cw_iter it;
        gs_cw_piece p;
        int r;
        gs_cw_set_u(plo, "gs_bits", c);
        gs_cw_set_u(plo, "gs_s0", s);
        gs_cw_start(&it, &dev->caps, &set, 1, 1, 0, n, group, gs_cw_budget(&dev->caps));
        while (!st && (r = gs_cw_next(&it, &p)) != 0) {
            uint32_t l0;
            if (r < 0)
                return no_fit(eng, op);
            if ((st = gs_cw_bind(eng, 0, &set, &p, &l0)))
                break;
            gs_cw_set_u(plo, "gs_lead0", l0);
            st = gs_gl_dispatch_1d(dev, plo, p.ne >> c, &eng->err);
        }
        s += c;
    }
    return st;
}

/* Blocks of 2^l <= 16: the inverse DFT and the block's two subset sums are
 * one linear map (src/engine/whir_prep.c builds it); the GPU applies it per
 * block (glsl/whir.comp PREP_BLOCK) into a scratch buffer, copied back. */
static glstark_status prep_blocks(gs_engine *eng, gs_buf *f, uint64_t n, unsigned l)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint32_t N = 1u << l;
    bb_t mat[16 * 16];
    gs_whir_prep_matrix(l, mat);
    gs_gl_program *pp;
    gs_buf *tb = NULL, *out = NULL;
    glstark_status st = gs_gles_whir_prog(eng, GS_WM_PREP_BLOCK, &pp);
    if (!st)
        st = upload(eng, mat, (size_t)N * N * 4, &tb);
    if (!st)
        st = gs_buf_create(eng, n * 16, &out);
    if (!st)
        st = gs_gles_bind(eng, 1, tb, 0, tb->size);
    gs_cw_set sets[2] = {{f, 0, 0, 16, 0}, {out, 0, 0, 16, 0}};
    gs_cw_iter it;
    gs_cw_piece p;
    int r;
    gs_cw_set_u(pp, "gs_bits", l);
    gs_cw_start(&it, &dev->caps, sets, 2, 1, 0, n, N, gs_cw_budget(&dev->caps) / 4);
    while (!st && (r = gs_cw_next(&it, &p)) != 0) {
        uint32_t l0, l2;
        if (r < 0) {
            st = no_fit(eng, "prepare_f");
            break;
        }
        if ((st = gs_cw_bind(eng, 0, &sets[0], &p, &l0)) || (st = gs_cw_bind(eng, 2, &sets[1], &p, &l2)))
            break;
        gs_cw_set_u(pp, "gs_lead0", l0);
        gs_cw_set_u(pp, "gs_lead2", l2);
        st = gs_gl_dispatch_1d(dev, pp, p.ne >> l, &eng->err);
    }
    if (!st)
        st = gs_buf_copy(f, 0, out, 0, n * 16);
    gs_buf_destroy(tb);
    gs_buf_destroy(out);
    return st;
}

static glstark_status gles_prepare_f(gs_engine *eng, gs_buf *f, unsigned log_n, unsigned l_skip)
{
    if (log_n > 27 || l_skip > log_n)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prepare_f: l_skip %u > log_n %u (or log_n > 27)",
                            l_skip, log_n);
    size_t n = (size_t)1 << log_n;
    glstark_status st = need(eng, f, (uint64_t)n * 16, "prepare_f", "f");
    if (st)
        return st;
    if (l_skip <= GS_WHIR_PREP_MAX_LOG)
        return prep_blocks(eng, f, n, l_skip);
    /* larger blocks: the dft family's inverse DFTs, then the subset sums */
    size_t blk = (size_t)1 << l_skip;
    gs_dft_cols cols = {.buf = f, .offset = 0, .col_stride = 4 * blk, .ncols = n / blk, .log_n = l_skip,
                        .elem_words = 4};
    if ((st = gs_dft(eng, &cols, GS_DFT_INVERSE)))
        return st;
    return butterflies(eng, f, log_n, 0, l_skip, "prepare_f");
}

/* t[b] = Π_{i<bits} (bit i of b ? x_i : y_i) (EF, 2^bits entries). */
static void product_table(const bb4_t *x, const bb4_t *y, unsigned bits, bb4_t *t)
{
    t[0] = bb4_one();
    for (unsigned i = 0; i < bits; i++) {
        size_t h = (size_t)1 << i;
        for (size_t b = 0; b < h; b++) {
            t[b + h] = bb4_mul(t[b], x[i]);
            t[b] = bb4_mul(t[b], y[i]);
        }
    }
}

/* Runs an EQTAB or WACC program over elements [0, n) of out. */
static glstark_status run_table_kernel(gs_engine *eng, gs_gl_program *prog, gs_buf *out, uint64_t n, uint64_t budget,
                                       const char *op)
{
    gs_gl_device *dev = gs_gles_device(eng);
    gs_cw_set set = {out, 0, 0, 16, 0};
    gs_cw_iter it;
    gs_cw_piece p;
    int r;
    glstark_status st = GLSTARK_OK;
    gs_cw_start(&it, &dev->caps, &set, 1, 1, 0, n, 1, budget);
    while (!st && (r = gs_cw_next(&it, &p)) != 0) {
        uint32_t l0;
        if (r < 0)
            return no_fit(eng, op);
        if ((st = gs_cw_bind(eng, 0, &set, &p, &l0)))
            break;
        gs_cw_set_u(prog, "gs_lead0", l0);
        gs_cw_set_u(prog, "gs_id0", (uint32_t)p.e0);
        st = gs_gl_dispatch_1d(dev, prog, p.ne, &eng->err);
    }
    return st;
}

static glstark_status gles_eq_table(gs_engine *eng, const bb4_t *u, unsigned n, gs_buf *out)
{
    if (n > 27)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "whir eq_table: 2^%u entries", n);
    uint64_t len = (uint64_t)1 << n;
    glstark_status st = need(eng, out, len * 16, "eq_table", "out");
    if (st)
        return st;
    unsigned nlo = n / 2, nhi = n - nlo;
    size_t llen = (size_t)1 << nlo, hlen = (size_t)1 << nhi;
    bb4_t *t = malloc((llen + hlen) * sizeof(bb4_t)), *lo = malloc((n + 1) * sizeof(bb4_t));
    if (!t || !lo) {
        free(t);
        free(lo);
        return oom(eng, "eq_table");
    }
    for (unsigned i = 0; i < n; i++)
        lo[i] = bb4_sub(bb4_one(), u[i]);
    product_table(u, lo, nlo, t);
    product_table(u + nlo, lo + nlo, nhi, t + llen);
    gs_buf *tb = NULL;
    gs_gl_program *pe;
    st = gs_gles_whir_prog(eng, GS_WM_EQTAB, &pe);
    if (!st)
        st = upload(eng, t, (llen + hlen) * 16, &tb);
    free(t);
    free(lo);
    if (!st)
        st = gs_gles_bind(eng, 1, tb, 0, tb->size);
    if (!st) {
        gs_cw_set_u(pe, "gs_bits", nlo);
        st = run_table_kernel(eng, pe, out, len, gs_cw_budget(&gs_gles_device(eng)->caps), "eq_table");
    }
    gs_buf_destroy(tb);
    return st;
}

static glstark_status gles_sumcheck_round(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len,
                                          gs_sums_dst out)
{
    glstark_status st = need(eng, f, (uint64_t)len * 16, "sumcheck_round", "f");
    if (!st)
        st = need(eng, w, (uint64_t)len * 16, "sumcheck_round", "w");
    if (st)
        return st;
    gs_cw_set q = {f, 0, 0, 16, 0}, ws = {w, 0, 0, 16, 0};
    return gs_gles_pair_sums(eng, &q, &ws, 1, len, GS_PAIR_COEFFS, out, "whir sumcheck_round");
}

static glstark_status fold_args(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, const gs_buf *f_out,
                                const gs_buf *w_out, const char *op)
{
    glstark_status st = need(eng, f, (uint64_t)len * 16, op, "f");
    if (!st)
        st = need(eng, w, (uint64_t)len * 16, op, "w");
    if (!st)
        st = need(eng, f_out, (uint64_t)(len / 2) * 16, op, "f_out");
    if (!st)
        st = need(eng, w_out, (uint64_t)(len / 2) * 16, op, "w_out");
    if (st)
        return st;
    if (f_out == f || f_out == w || w_out == f || w_out == w || f_out == w_out || f == w)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir %s: f, w, f_out and w_out must be four distinct buffers (the fold is out of place)",
                            op);
    return GLSTARK_OK;
}

/* w_out[y] = (1 − α)·m0 + (2α − 1)·m1 */
static glstark_status fold_w(gs_engine *eng, const gs_buf *w, size_t len, gs_chal alpha, gs_buf *w_out)
{
    gs_cw_set src = {w, 0, 0, 16, 0}, dst = {w_out, 0, 0, 16, 1};
    const gs_cw_coef a = {bb4_one(), bb_neg(bb_one())}, b = {bb4_neg(bb4_one()), bb_add(bb_one(), bb_one())};
    return gs_gles_fold_into(eng, &src, &dst, 1, len, alpha, a, b, "whir fold");
}

static glstark_status gles_fold(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_chal alpha,
                                gs_buf *f_out, gs_buf *w_out)
{
    glstark_status st = fold_args(eng, f, w, len, f_out, w_out, "fold");
    if (st)
        return st;
    /* f_out[y] = c0 + α·c1 */
    gs_cw_set src = {f, 0, 0, 16, 0}, dst = {f_out, 0, 0, 16, 1};
    const gs_cw_coef a = {bb4_one(), 0}, b = {bb4_zero(), bb_one()};
    st = gs_gles_fold_into(eng, &src, &dst, 1, len, alpha, a, b, "whir fold");
    if (!st)
        st = fold_w(eng, w, len, alpha, w_out);
    return st;
}

static glstark_status gles_eval_univariate(gs_engine *eng, const gs_buf *g, size_t len, bb4_t z, bb4_t *out)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t ls = dev->caps.local_size;
    glstark_status st = need(eng, g, (uint64_t)len * 16, "eval_univariate", "g");
    if (st)
        return st;
    *out = bb4_zero();
    if (len == 0)
        return GLSTARK_OK;
    gs_cw_set set = {g, 0, 0, 16, 0};
    gs_cw_iter it;
    gs_cw_piece p;
    int r;
    uint64_t slots = 0;
    gs_cw_start(&it, &dev->caps, &set, 1, 1, 0, len, GS_WHIR_EVAL_ITEMS, gs_cw_budget(&dev->caps));
    while ((r = gs_cw_next(&it, &p)) > 0)
        slots += ((p.ne + GS_WHIR_EVAL_ITEMS - 1) / GS_WHIR_EVAL_ITEMS + ls - 1) / ls;
    if (r < 0)
        return no_fit(eng, "eval_univariate");
    gs_gl_program *pe, *pr;
    if ((st = gs_gles_whir_prog(eng, GS_WM_EVAL, &pe)) || (st = gs_gles_whir_prog(eng, GS_WM_REDUCE, &pr)))
        return st;
    gs_buf *parts = NULL, *res = NULL;
    st = gs_buf_create(eng, slots * 16, &parts);
    if (!st)
        st = gs_buf_create(eng, 16, &res);
    if (!st)
        st = gs_gles_bind(eng, 2, parts, 0, slots * 16);
    bb4_t zc = bb4_one();
    for (unsigned i = 0; i < GS_WHIR_EVAL_ITEMS; i++)
        zc = bb4_mul(zc, z);
    gs_cw_set_ef(pe, "gs_x", z);
    gs_cw_set_ef(pe, "gs_y", zc);
    uint64_t pbase = 0;
    gs_cw_start(&it, &dev->caps, &set, 1, 1, 0, len, GS_WHIR_EVAL_ITEMS, gs_cw_budget(&dev->caps));
    while (!st && gs_cw_next(&it, &p) > 0) {
        uint32_t l0;
        if ((st = gs_cw_bind(eng, 0, &set, &p, &l0)))
            break;
        uint64_t inv = (p.ne + GS_WHIR_EVAL_ITEMS - 1) / GS_WHIR_EVAL_ITEMS;
        gs_cw_set_u(pe, "gs_lead0", l0);
        gs_cw_set_u(pe, "gs_lead2", 0);
        gs_cw_set_u(pe, "gs_n", (uint32_t)p.ne);
        gs_cw_set_u(pe, "gs_cbase", (uint32_t)(p.e0 / GS_WHIR_EVAL_ITEMS));
        gs_cw_set_u(pe, "gs_pbase", (uint32_t)pbase);
        st = gs_gl_dispatch_1d(dev, pe, inv, &eng->err);
        pbase += (inv + ls - 1) / ls;
    }
    if (!st)
        st = gs_gles_bind(eng, 1, res, 0, 16);
    if (!st) {
        gs_cw_set_u(pr, "gs_lead1", 0);
        gs_cw_set_u(pr, "gs_lead2", 0);
        gs_cw_set_u(pr, "gs_n", (uint32_t)slots);
        gs_cw_set_u(pr, "gs_k", 1);
        st = gs_gl_dispatch_1d(dev, pr, ls, &eng->err);
    }
    if (!st)
        st = gs_buf_read(res, 0, out, 16);
    gs_buf_destroy(parts);
    gs_buf_destroy(res);
    return st;
}

/* The EF coefficient vector g[0..len) zero-padded to 2^log_n and evaluated
 * on the subgroup: copy, zero fill and a whole DFT (any sizes; the dft
 * family cuts long columns into windows). */
static glstark_status encode_ext(gs_engine *eng, const gs_buf *g, size_t len, unsigned log_n, gs_buf *codeword)
{
    size_t n = (size_t)1 << log_n;
    glstark_status st;
    if (len && (st = gs_buf_copy(codeword, 0, g, 0, len * 16)))
        return st;
    if (n > len && (st = gs_buf_fill_u32(codeword, len * 16, (n - len) * 4, 0)))
        return st;
    gs_dft_cols cols = {.buf = codeword, .offset = 0, .col_stride = 4 * n, .ncols = 1, .log_n = log_n,
                        .elem_words = 4};
    return gs_dft(eng, &cols, GS_DFT_FORWARD);
}

/* The round's last fold and the next codeword in one pass over the
 * codeword (glsl/whir.comp FOLD_EXPAND: f folded straight into f_out and into
 * the codeword's bit-reversed, zero-padded expansion), w folded beside it,
 * then the DFT's remaining layers. f and the codeword must each fit one
 * binding; otherwise the fold, a copy, a zero fill and a whole DFT. */
static glstark_status gles_fold_encode(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_chal alpha,
                                       gs_buf *f_out, gs_buf *w_out, unsigned log_n, gs_buf *codeword)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const size_t half = len / 2;
    if (log_n > 27 || half > ((size_t)1 << log_n) || len < 2 || (len & (len - 1)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir fold_encode: %zu coefficients (from %zu) do not fit a 2^%u codeword, or the length "
                            "is not a power of two >= 2",
                            half, len, log_n);
    glstark_status st = fold_args(eng, f, w, len, f_out, w_out, "fold_encode");
    if (!st)
        st = need(eng, codeword, (uint64_t)16 << log_n, "fold_encode", "codeword");
    if (st)
        return st;
    if (codeword == f || codeword == w || codeword == f_out || codeword == w_out)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir fold_encode: the codeword must be a buffer of its own");
    const uint64_t maxb = dev->caps.max_binding_bytes, n = (uint64_t)1 << log_n;
    unsigned m = 0;
    while (((size_t)1 << m) < half)
        m++;
    if ((uint64_t)len * 16 > maxb || n * 16 > maxb) {
        st = gles_fold(eng, f, w, len, alpha, f_out, w_out);
        if (!st)
            st = encode_ext(eng, f_out, half, log_n, codeword);
        return st;
    }
    gs_gl_program *px;
    if ((st = gs_gles_whir_prog(eng, GS_WM_FOLD_EXPAND, &px)) || (st = gs_gles_bind(eng, 0, f, 0, (size_t)len * 16)) ||
        (st = gs_gles_bind(eng, 1, f_out, 0, half * 16)) || (st = gs_gles_bind(eng, 2, codeword, 0, n * 16)))
        return st;
    if ((st = gs_chal_check(eng, alpha, "whir fold_encode")) ||
        (st = gs_gles_fold_coefs(eng, px, alpha, (gs_cw_coef){bb4_zero(), bb_one()}, (gs_cw_coef){bb4_zero(), 0})))
        return st;
    gs_cw_set_u(px, "gs_s0", m);
    gs_cw_set_u(px, "gs_bits", log_n - m);
    gs_cw_set_u(px, "gs_lead0", 0);
    gs_cw_set_u(px, "gs_lead1", 0);
    gs_cw_set_u(px, "gs_lead2", 0);
    for (uint64_t p0 = 0; !st && p0 < n; p0 += gs_cw_budget(&dev->caps)) {
        uint64_t cnt = n - p0 < gs_cw_budget(&dev->caps) ? n - p0 : gs_cw_budget(&dev->caps);
        gs_cw_set_u(px, "gs_id0", (uint32_t)p0);
        st = gs_gl_dispatch_1d(dev, px, cnt, &eng->err);
    }
    if (!st)
        st = fold_w(eng, w, len, alpha, w_out);
    if (!st)
        st = gs_gles_dft_finish_ext(eng, codeword, log_n, log_n - m);
    return st;
}

/* w[b] += gamma0·z0^b + Σ gammas[q]·zs[q]^b, each power a product of a low
 * and a high table entry. Binding-1 layout of MODE_WACC (words): EF powers
 * of z0 over the low bits (2^nlo), EF powers over the high bits times gamma0
 * (2^nhi), EF gammas (nz), then per point its base low table (2^nlo) and
 * high table (2^nhi). */
static glstark_status gles_w_accumulate(gs_engine *eng, gs_buf *w, unsigned n, bb4_t z0, bb4_t gamma0, const bb_t *zs,
                                        const bb4_t *gammas, size_t nz)
{
    gs_gl_device *dev = gs_gles_device(eng);
    if (n > 27)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "whir w_accumulate: 2^%u entries", n);
    uint64_t len = (uint64_t)1 << n;
    glstark_status st = need(eng, w, len * 16, "w_accumulate", "w");
    if (st)
        return st;
    unsigned nlo = n / 2, nhi = n - nlo;
    size_t llen = (size_t)1 << nlo, hlen = (size_t)1 << nhi;
    size_t tab = 4 * (llen + hlen + nz), words = tab + nz * (llen + hlen);
    if (words * 4 > dev->caps.max_binding_bytes)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles whir w_accumulate: tables for %zu points exceed one binding; use the cpu engine", nz);
    uint32_t *t = malloc(words * 4);
    bb4_t *pw = malloc((n + 1) * 2 * sizeof(bb4_t));
    if (!t || !pw) {
        free(t);
        free(pw);
        return oom(eng, "w_accumulate");
    }
    /* z0^b = Π_i (b_i ? p_i : 1), p_i = z0^(2^i) */
    bb4_t *x = pw, *y = pw + (n + 1);
    bb4_t p = z0;
    for (unsigned i = 0; i < n; i++) {
        x[i] = p;
        y[i] = bb4_one();
        p = bb4_square(p);
    }
    bb4_t *lo0 = (bb4_t *)t, *hi0 = lo0 + llen;
    product_table(x, y, nlo, lo0);
    product_table(x + nlo, y + nlo, nhi, hi0);
    for (size_t i = 0; i < hlen; i++)
        hi0[i] = bb4_mul(hi0[i], gamma0);
    memcpy(hi0 + hlen, gammas, nz * sizeof(bb4_t));
    for (size_t q = 0; q < nz; q++) {
        bb_pow_table(zs[q], 0, nlo, t + tab + q * (llen + hlen));
        bb_pow_table(zs[q], nlo, nhi, t + tab + q * (llen + hlen) + llen);
    }
    free(pw);
    gs_buf *tb = NULL;
    gs_gl_program *pa;
    st = gs_gles_whir_prog(eng, GS_WM_WACC, &pa);
    if (!st)
        st = upload(eng, t, words * 4, &tb);
    free(t);
    if (!st)
        st = gs_gles_bind(eng, 1, tb, 0, tb->size);
    if (!st) {
        gs_cw_set_u(pa, "gs_bits", nlo);
        gs_cw_set_u(pa, "gs_hlen", (uint32_t)hlen);
        gs_cw_set_u(pa, "gs_k", (uint32_t)nz);
        gs_cw_set_u(pa, "gs_tab", (uint32_t)tab);
        uint64_t budget = (4 * gs_cw_budget(&dev->caps)) / (nz + 1);
        st = run_table_kernel(eng, pa, w, len, budget ? budget : 1, "w_accumulate");
    }
    gs_buf_destroy(tb);
    return st;
}

const gs_whir_ops gs_gles_whir_ops = {
    .batch_columns = gles_batch_columns,
    .prepare_f = gles_prepare_f,
    .eq_table = gles_eq_table,
    .sumcheck_round = gles_sumcheck_round,
    .fold = gles_fold,
    .fold_encode = gles_fold_encode,
    .eval_univariate = gles_eval_univariate,
    .w_accumulate = gles_w_accumulate,
};
