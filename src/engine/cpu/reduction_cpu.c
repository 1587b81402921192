/* The reduction family on the CPU engine: plain loops over host buffers,
 * the reference the GLES engine must match bit for bit. */
#include <string.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/reduction_ops.h"

static glstark_status cpu_block_sums(gs_engine *eng, const gs_buf *matrix, uint32_t height, uint32_t l_skip,
                                     const gs_red_slice *slices, uint32_t num_slices, const bb4_t *eq_tables,
                                     uint32_t max_nt, bb4_t *out)
{
    const bb_t *m = (const bb_t *)matrix->host;
    const size_t N = (size_t)1 << l_skip;
    for (uint32_t s = 0; s < num_slices; s++) {
        const gs_red_slice *sl = &slices[s];
        uint32_t nt = sl->log_height > l_skip ? sl->log_height - l_skip : 0;
        if (nt > max_nt)
            return gs_error_set(&eng->err, GLSTARK_ERR_INTERNAL,
                                "reduction block_sums: slice %u needs eq table %u but only %u given", s, nt, max_nt);
        const bb4_t *eq = eq_tables + (((size_t)1 << nt) - 1);
        const bb_t *base = m + (size_t)sl->col * height + sl->row;
        bb4_t *a = out + (size_t)s * 2 * N;
        bb4_t *b = a + N;
        for (size_t z = 0; z < N; z++)
            a[z] = b[z] = bb4_zero();
        size_t nx = (size_t)1 << nt;
        for (size_t x = 0; x < nx; x++) {
            bb4_t e = eq[x];
            bb4_t ep = eq[x == 0 ? nx - 1 : x - 1];
            const bb_t *blk = base + x * N;
            for (size_t z = 0; z < N; z++) {
                a[z] = bb4_add(a[z], bb4_mul_base(e, blk[z]));
                b[z] = bb4_add(b[z], bb4_mul_base(ep, blk[z]));
            }
        }
    }
    return GLSTARK_OK;
}

static glstark_status cpu_fold_ple(gs_engine *eng, const gs_buf *matrix, uint32_t width, uint32_t height,
                                   uint32_t l_skip, const bb4_t *lag, const gs_red_cols *out)
{
    (void)eng;
    const bb_t *m = (const bb_t *)matrix->host;
    const size_t N = (size_t)1 << l_skip;
    const size_t nx = (size_t)height >> l_skip;
    bb4_t *o = (bb4_t *)out->buf->host + out->offset;
    for (uint32_t c = 0; c < width; c++) {
        const bb_t *col = m + (size_t)c * height;
        bb4_t *oc = o + (size_t)c * out->stride;
        for (size_t x = 0; x < nx; x++) {
            const bb_t *blk = col + x * N;
            /* accumulate coefficient-wise: Σ_z lag[z]·blk[z] */
            bb4_t acc = bb4_zero();
            for (size_t z = 0; z < N; z++)
                if (blk[z])
                    acc = bb4_add(acc, bb4_mul_base(lag[z], blk[z]));
            oc[x] = acc;
        }
    }
    return GLSTARK_OK;
}

static glstark_status cpu_round_evals(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len,
                                      bb4_t out[2])
{
    (void)eng;
    const bb4_t *qb = (const bb4_t *)q->buf->host + q->offset;
    const bb4_t *wb = (const bb4_t *)w->buf->host + w->offset;
    bb4_t s1 = bb4_zero(), s2 = bb4_zero();
    for (uint32_t c = 0; c < q->ncols; c++) {
        const bb4_t *qc = qb + (size_t)c * q->stride;
        const bb4_t *wc = wb + (size_t)c * w->stride;
        for (size_t y = 0; y < len / 2; y++) {
            bb4_t q0 = qc[2 * y], q1 = qc[2 * y + 1];
            bb4_t w0 = wc[2 * y], w1 = wc[2 * y + 1];
            s1 = bb4_add(s1, bb4_mul(q1, w1));
            bb4_t q2 = bb4_sub(bb4_add(q1, q1), q0);
            bb4_t w2 = bb4_sub(bb4_add(w1, w1), w0);
            s2 = bb4_add(s2, bb4_mul(q2, w2));
        }
    }
    out[0] = s1;
    out[1] = s2;
    return GLSTARK_OK;
}

static void fold_cols(const gs_red_cols *t, size_t len, bb4_t u)
{
    bb4_t *b = (bb4_t *)t->buf->host + t->offset;
    for (uint32_t c = 0; c < t->ncols; c++) {
        bb4_t *v = b + (size_t)c * t->stride;
        for (size_t y = 0; y < len / 2; y++)
            v[y] = bb4_add(v[2 * y], bb4_mul(u, bb4_sub(v[2 * y + 1], v[2 * y])));
    }
}

static glstark_status cpu_fold(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len, bb4_t u)
{
    (void)eng;
    fold_cols(q, len, u);
    fold_cols(w, len, u);
    return GLSTARK_OK;
}

const gs_reduction_ops gs_cpu_reduction_ops = {
    .block_sums = cpu_block_sums,
    .fold_ple = cpu_fold_ple,
    .round_evals = cpu_round_evals,
    .fold = cpu_fold,
};
