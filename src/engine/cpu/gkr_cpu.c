/* CPU engine: the LogUp GKR kernels (src/engine/gkr_ops.h). */
#include "engine/cpu/cpu_engine.h"
#include "engine/cpu/eq_table_cpu.h"
#include "engine/cpu/zc_rows.h"
#include "engine/gkr_ops.h"

#include <string.h>

static glstark_status cpu_input_layer(gs_engine *eng, const gs_zc_trace *traces, size_t n_traces,
                                      const uint64_t *slots, uint32_t l_skip, bb4_t alpha, bb4_t beta,
                                      size_t n_leaves, gs_buf *p, gs_buf *q)
{
    if (p->size < n_leaves * sizeof(bb4_t) || q->size < n_leaves * sizeof(bb4_t))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gkr input layer: leaf buffers hold fewer than %zu EF elements; allocate 16 bytes per leaf",
                            n_leaves);
    bb4_t *P = (bb4_t *)p->host, *Q = (bb4_t *)q->host;
    for (size_t i = 0; i < n_leaves; i++) {
        P[i] = bb4_zero();
        Q[i] = alpha;
    }
    size_t si = 0;
    for (size_t t = 0; t < n_traces; t++) {
        const gs_zc_trace *tr = &traces[t];
        const gs_cdag *d = tr->dag;
        uint32_t h = tr->log_height;
        uint32_t big = h > l_skip ? h : l_skip;
        size_t len = (size_t)1 << big;
        /* lifted traces repeat 2^(l-h) times: weight each copy 2^(h-l) */
        bb_t norm = bb_one();
        if (h < l_skip)
            norm = bb_inv(bb_from_u32(1u << (l_skip - h)));
        if (d->n_interactions == 0)
            continue;
        for (uint32_t k = 0; k < d->n_interactions; k++)
            if (slots[si + k] + len > n_leaves)
                return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "gkr input layer: trace %zu interaction %u slot at %llu + %zu passes %zu leaves",
                                    t, k, (unsigned long long)slots[si + k], len, n_leaves);
        gs_cpu_rowbuf rb;
        if (gs_cpu_rowbuf_init(&rb, tr))
            return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gkr input layer: row scratch allocation failed");
        for (size_t i = 0; i < len; i++) {
            gs_cpu_eval_row(tr, &rb, i);
            for (uint32_t k = 0; k < d->n_interactions; k++) {
                size_t leaf = (size_t)slots[si + k] + i;
                P[leaf] = bb4_from_base(bb_mul(rb.nodes[d->interactions[k].count], norm));
                Q[leaf] = bb4_add(alpha, gs_cpu_interaction_denominator(d, k, rb.nodes, beta));
            }
        }
        gs_cpu_rowbuf_free(&rb);
        si += d->n_interactions;
    }
    return GLSTARK_OK;
}

static glstark_status cpu_layer_up(gs_engine *eng, const gs_buf *p, const gs_buf *q, size_t n_parent,
                                   gs_buf *p_par, gs_buf *q_par)
{
    (void)eng;
    const bb4_t *P = (const bb4_t *)p->host, *Q = (const bb4_t *)q->host;
    bb4_t *PP = (bb4_t *)p_par->host, *QP = (bb4_t *)q_par->host;
    for (size_t y = 0; y < n_parent; y++) {
        bb4_t p0 = P[2 * y], p1 = P[2 * y + 1], q0 = Q[2 * y], q1 = Q[2 * y + 1];
        PP[y] = bb4_add(bb4_mul(p0, q1), bb4_mul(p1, q0));
        QP[y] = bb4_mul(q0, q1);
    }
    return GLSTARK_OK;
}

static glstark_status cpu_round(gs_engine *eng, const gs_buf *eq, const gs_buf *p, const gs_buf *q,
                                size_t n_half, bb4_t lambda, gs_sums_dst out)
{
    glstark_status st = gs_sums_dst_check(eng, out, 3, "gkr round");
    if (st)
        return st;
    if (!out.buf)
        eng->host_syncs++; /* its results go to the host (what GLES counts as a read) */
    const bb4_t *E = (const bb4_t *)eq->host, *P = (const bb4_t *)p->host, *Q = (const bb4_t *)q->host;
    bb4_t acc[3] = {bb4_zero(), bb4_zero(), bb4_zero()};
    for (size_t a = 0; a < n_half; a++) {
        /* values at X = 0 (y = 2a) and X = 1 (y = 2a+1), then step by the difference */
        bb4_t e = E[2 * a], de = bb4_sub(E[2 * a + 1], e);
        bb4_t pl = P[4 * a], dpl = bb4_sub(P[4 * a + 2], pl);
        bb4_t pr = P[4 * a + 1], dpr = bb4_sub(P[4 * a + 3], pr);
        bb4_t ql = Q[4 * a], dql = bb4_sub(Q[4 * a + 2], ql);
        bb4_t qr = Q[4 * a + 1], dqr = bb4_sub(Q[4 * a + 3], qr);
        for (int x = 1; x <= 3; x++) {
            e = bb4_add(e, de);
            pl = bb4_add(pl, dpl);
            pr = bb4_add(pr, dpr);
            ql = bb4_add(ql, dql);
            qr = bb4_add(qr, dqr);
            bb4_t v = bb4_add(bb4_add(bb4_mul(pl, qr), bb4_mul(pr, ql)), bb4_mul(lambda, bb4_mul(ql, qr)));
            acc[x - 1] = bb4_add(acc[x - 1], bb4_mul(e, v));
        }
    }
    return gs_sums_store(out, acc, 3);
}

static glstark_status cpu_fold(gs_engine *eng, const gs_buf *src, size_t n_out, size_t stride, gs_chal rc,
                               gs_buf *dst)
{
    glstark_status st = gs_chal_check(eng, rc, "gkr fold");
    if (st)
        return st;
    const bb4_t r = gs_chal_host_value(rc);
    const bb4_t *S = (const bb4_t *)src->host;
    bb4_t *D = (bb4_t *)dst->host;
    /* ascending writes never overtake the reads, so dst == src is safe here */
    for (size_t a = 0; a < n_out; a++)
        for (size_t b = 0; b < stride; b++) {
            bb4_t lo = S[2 * stride * a + b], hi = S[2 * stride * a + stride + b];
            D[stride * a + b] = bb4_add(lo, bb4_mul(r, bb4_sub(hi, lo)));
        }
    return GLSTARK_OK;
}

static glstark_status cpu_eq_table(gs_engine *eng, const bb4_t *xi, size_t n, gs_buf *dst)
{
    if (dst->size < (sizeof(bb4_t) << n))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "gkr eq table: buffer too small for 2^%zu entries", n);
    gs_cpu_eq_table(eng, gs_cpu_threads(eng), xi, n, (bb4_t *)dst->host);
    return GLSTARK_OK;
}

const gs_gkr_ops gs_cpu_gkr_ops = {
    .input_layer = cpu_input_layer,
    .layer_up = cpu_layer_up,
    .round = cpu_round,
    .fold = cpu_fold,
    .eq_table = cpu_eq_table,
};
