/* CPU engine: the batch-constraint sumcheck kernels (src/engine/zerocheck_ops.h). */
#include "engine/cpu/cpu_engine.h"
#include "engine/cpu/parallel.h"
#include "engine/cpu/zc_rows.h"
#include "engine/zerocheck_ops.h"

#include <stdlib.h>
#include <string.h>

static size_t lifted_rows(const gs_zc_trace *t, uint32_t l_skip)
{
    return (size_t)1 << (t->log_height > l_skip ? t->log_height : l_skip);
}

/* (zc, p, q) of the DAG node values `nodes` (base field). */
static void combine_base(const gs_cdag *d, const bb_t *nodes, const gs_zc_weights *w, bb4_t o[3])
{
    bb4_t zc = bb4_zero(), p = bb4_zero(), q = bb4_zero();
    for (uint32_t i = 0; i < d->n_constraints; i++)
        zc = bb4_add(zc, bb4_mul_base(w->lambda_pows[i], nodes[d->constraint_idx[i]]));
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        p = bb4_add(p, bb4_mul_base(w->eq3b[k], nodes[d->interactions[k].count]));
        q = bb4_add(q, bb4_mul(w->eq3b[k], gs_cpu_interaction_denominator(d, k, nodes, w->beta)));
    }
    o[0] = zc;
    o[1] = bb4_mul_base(p, w->norm);
    o[2] = q;
}

static void combine_ext(const gs_cdag *d, const bb4_t *nodes, const gs_zc_weights *w, bb4_t o[3])
{
    bb4_t zc = bb4_zero(), p = bb4_zero(), q = bb4_zero();
    for (uint32_t i = 0; i < d->n_constraints; i++)
        zc = bb4_add(zc, bb4_mul(w->lambda_pows[i], nodes[d->constraint_idx[i]]));
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        const gs_cinteraction *it = &d->interactions[k];
        p = bb4_add(p, bb4_mul(w->eq3b[k], nodes[it->count]));
        bb4_t h = bb4_zero(), pw = bb4_one();
        for (uint32_t j = 0; j < it->message_len; j++) {
            h = bb4_add(h, bb4_mul(pw, nodes[it->message[j]]));
            pw = bb4_mul(pw, w->beta);
        }
        h = bb4_add(h, bb4_mul_base(pw, bb_from_u32((uint32_t)it->bus_index + 1)));
        q = bb4_add(q, bb4_mul(w->eq3b[k], h));
    }
    o[0] = zc;
    o[1] = bb4_mul_base(p, w->norm);
    o[2] = q;
}

typedef struct r0_ctx {
    const gs_zc_trace *t;
    uint32_t l_skip;
    const bb_t *lw;
    size_t n_pts;
    int d_points;
    const bb4_t *E;
    const gs_zc_weights *w;
    bb4_t *acc; /* per part: 3 * n_pts */
    int oom;
} r0_ctx;

static void r0_slice(void *vctx, size_t lo, size_t hi, unsigned part)
{
    r0_ctx *cx = vctx;
    const gs_zc_trace *t = cx->t;
    const gs_cdag *d = t->dag;
    size_t N = (size_t)1 << cx->l_skip, H = (size_t)1 << t->log_height;
    size_t ncols = gs_zc_table_cols(t), n_pts = cx->n_pts;
    bb4_t *out = cx->acc + 3 * n_pts * part;
    for (size_t i = 0; i < 3 * n_pts; i++)
        out[i] = bb4_zero();
    if (lo >= hi)
        return;
    /* block[c*N + k]: value of table column c at row xN + k */
    bb_t *block = malloc(ncols * N * sizeof(bb_t));
    bb_t *vals = malloc(ncols * sizeof(bb_t));
    bb_t *nodes = malloc((d->n_nodes ? d->n_nodes : 1) * sizeof(bb_t));
    const bb_t **cols = malloc((t->n_parts ? t->n_parts : 1) * sizeof(*cols));
    if (!block || !vals || !nodes || !cols) {
        free(block), free(vals), free(nodes), free(cols);
        cx->oom = 1;
        return;
    }
    size_t off = 3;
    for (uint32_t p = 0; p < t->n_parts; p++) {
        cols[p] = vals + off;
        off += 2 * (size_t)t->part_widths[p];
    }
    for (size_t x = lo; x < hi; x++) {
        for (size_t k = 0; k < N; k++) {
            size_t r = (x * N + k) & (H - 1), nr = (r + 1) & (H - 1);
            block[0 * N + k] = r == 0 ? bb_one() : 0;
            block[1 * N + k] = r == H - 1 ? bb_one() : 0;
            block[2 * N + k] = r == H - 1 ? 0 : bb_one();
            size_t c0 = 3;
            for (uint32_t p = 0; p < t->n_parts; p++) {
                const bb_t *m = (const bb_t *)t->parts[p]->host;
                for (uint32_t c = 0; c < t->part_widths[p]; c++) {
                    block[(c0 + 2 * c) * N + k] = m[(size_t)c * H + r];
                    block[(c0 + 2 * c + 1) * N + k] = m[(size_t)c * H + nr];
                }
                c0 += 2 * (size_t)t->part_widths[p];
            }
        }
        for (size_t pt = 0; pt < n_pts; pt++) {
            if (cx->d_points && pt < N) {
                /* a point of D: the row's own values */
                for (size_t c = 0; c < ncols; c++)
                    vals[c] = block[c * N + pt];
            } else {
                const bb_t *wt = cx->lw + pt * N;
                for (size_t c = 0; c < ncols; c++) {
                    const bb_t *b = block + c * N;
                    bb_t acc = 0;
                    for (size_t k = 0; k < N; k++)
                        acc = bb_add(acc, bb_mul(wt[k], b[k]));
                    vals[c] = acc;
                }
            }
            gs_cdag_env_base env = {cols, {vals[0], vals[1], vals[2]}, t->publics};
            gs_cdag_eval_base(d, &env, nodes);
            bb4_t o[3];
            combine_base(d, nodes, cx->w, o);
            for (int i = 0; i < 3; i++)
                out[3 * pt + i] = bb4_add(out[3 * pt + i], bb4_mul(cx->E[x], o[i]));
        }
    }
    free(block), free(vals), free(nodes), free(cols);
}

static glstark_status cpu_round0(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, const bb_t *lw, size_t n_pts,
                                 int d_points, const gs_buf *e, const gs_zc_weights *w, bb4_t *out)
{
    size_t N = (size_t)1 << l_skip;
    size_t nx = lifted_rows(t, l_skip) / N;
    if (d_points && n_pts < N)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "zerocheck round 0: %zu points cannot start with the %zu points of D", n_pts, N);
    unsigned parts = gs_cpu_parts(eng, nx);
    r0_ctx cx = {t, l_skip, lw, n_pts, d_points, (const bb4_t *)e->host, w, NULL, 0};
    cx.acc = malloc((size_t)parts * 3 * n_pts * sizeof(bb4_t));
    if (!cx.acc)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck round 0: accumulator allocation failed");
    gs_cpu_parallel_for(parts, nx, r0_slice, &cx);
    if (cx.oom) {
        free(cx.acc);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck round 0: scratch allocation failed");
    }
    for (size_t i = 0; i < 3 * n_pts; i++) {
        bb4_t s = bb4_zero();
        for (unsigned p = 0; p < parts; p++)
            s = bb4_add(s, cx.acc[3 * n_pts * p + i]);
        out[i] = s;
    }
    free(cx.acc);
    return GLSTARK_OK;
}

static glstark_status cpu_fold_ple(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, const bb4_t *lw,
                                   gs_buf *tables)
{
    size_t N = (size_t)1 << l_skip, H = (size_t)1 << t->log_height;
    size_t rows = lifted_rows(t, l_skip), nx = rows / N;
    size_t ncols = gs_zc_table_cols(t);
    if (tables->size < ncols * nx * sizeof(bb4_t))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "zerocheck fold_ple: table buffer has %zu bytes, needs %zu", tables->size, ncols * nx * sizeof(bb4_t));
    bb4_t *T = (bb4_t *)tables->host;
    for (size_t x = 0; x < nx; x++) {
        bb4_t s[3] = {bb4_zero(), bb4_zero(), bb4_zero()};
        for (size_t k = 0; k < N; k++) {
            size_t r = (x * N + k) & (H - 1);
            if (r == 0)
                s[0] = bb4_add(s[0], lw[k]);
            if (r == H - 1)
                s[1] = bb4_add(s[1], lw[k]);
            else
                s[2] = bb4_add(s[2], lw[k]);
        }
        for (int i = 0; i < 3; i++)
            T[(size_t)i * nx + x] = s[i];
        size_t c0 = 3;
        for (uint32_t p = 0; p < t->n_parts; p++) {
            const bb_t *m = (const bb_t *)t->parts[p]->host;
            for (uint32_t c = 0; c < t->part_widths[p]; c++) {
                bb4_t a = bb4_zero(), b = bb4_zero();
                for (size_t k = 0; k < N; k++) {
                    size_t r = (x * N + k) & (H - 1), nr = (r + 1) & (H - 1);
                    a = bb4_add(a, bb4_mul_base(lw[k], m[(size_t)c * H + r]));
                    b = bb4_add(b, bb4_mul_base(lw[k], m[(size_t)c * H + nr]));
                }
                T[(c0 + 2 * c) * nx + x] = a;
                T[(c0 + 2 * c + 1) * nx + x] = b;
            }
            c0 += 2 * (size_t)t->part_widths[p];
        }
    }
    return GLSTARK_OK;
}

typedef struct mle_ctx {
    const gs_zc_trace *t;
    const bb4_t *T;
    size_t stride, n_x;
    const bb4_t *E;
    const gs_zc_weights *w;
    bb4_t *acc; /* per part: 3 * n_x */
    int oom;
} mle_ctx;

static void mle_slice(void *vctx, size_t lo, size_t hi, unsigned part)
{
    mle_ctx *cx = vctx;
    const gs_zc_trace *t = cx->t;
    const gs_cdag *d = t->dag;
    size_t ncols = gs_zc_table_cols(t), n_x = cx->n_x, stride = cx->stride;
    bb4_t *out = cx->acc + 3 * n_x * part;
    for (size_t i = 0; i < 3 * n_x; i++)
        out[i] = bb4_zero();
    if (lo >= hi)
        return;
    bb4_t *vals = malloc(ncols * sizeof(bb4_t)), *dv = malloc(ncols * sizeof(bb4_t));
    bb4_t *nodes = malloc((d->n_nodes ? d->n_nodes : 1) * sizeof(bb4_t));
    const bb4_t **cols = malloc((t->n_parts ? t->n_parts : 1) * sizeof(*cols));
    if (!vals || !dv || !nodes || !cols) {
        free(vals), free(dv), free(nodes), free(cols);
        cx->oom = 1;
        return;
    }
    size_t off = 3;
    for (uint32_t p = 0; p < t->n_parts; p++) {
        cols[p] = vals + off;
        off += 2 * (size_t)t->part_widths[p];
    }
    for (size_t a = lo; a < hi; a++) {
        for (size_t c = 0; c < ncols; c++) {
            vals[c] = cx->T[c * stride + 2 * a];
            dv[c] = bb4_sub(cx->T[c * stride + 2 * a + 1], vals[c]);
        }
        for (size_t X = 1; X <= n_x; X++) {
            for (size_t c = 0; c < ncols; c++)
                vals[c] = bb4_add(vals[c], dv[c]);
            gs_cdag_env_ext env = {cols, {vals[0], vals[1], vals[2]}, t->publics};
            gs_cdag_eval_ext(d, &env, nodes);
            bb4_t o[3];
            combine_ext(d, nodes, cx->w, o);
            for (int i = 0; i < 3; i++)
                out[3 * (X - 1) + i] = bb4_add(out[3 * (X - 1) + i], bb4_mul(cx->E[a], o[i]));
        }
    }
    free(vals), free(dv), free(nodes), free(cols);
}

static glstark_status cpu_mle_round(gs_engine *eng, const gs_zc_trace *t, const gs_buf *tables, size_t stride, size_t m,
                                    const gs_buf *eq, size_t n_x, const gs_zc_weights *w, bb4_t *out)
{
    const gs_cdag *d = t->dag;
    size_t ncols = gs_zc_table_cols(t);
    const bb4_t *T = (const bb4_t *)tables->host;
    if (m == 1) {
        /* evaluation at the fully bound point (row 0) */
        bb4_t *vals = malloc(ncols * sizeof(bb4_t));
        bb4_t *nodes = malloc((d->n_nodes ? d->n_nodes : 1) * sizeof(bb4_t));
        const bb4_t **cols = malloc((t->n_parts ? t->n_parts : 1) * sizeof(*cols));
        if (!vals || !nodes || !cols) {
            free(vals), free(nodes), free(cols);
            return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck mle round: scratch allocation failed");
        }
        size_t off = 3;
        for (uint32_t p = 0; p < t->n_parts; p++) {
            cols[p] = vals + off;
            off += 2 * (size_t)t->part_widths[p];
        }
        for (size_t c = 0; c < ncols; c++)
            vals[c] = T[c * stride];
        gs_cdag_env_ext env = {cols, {vals[0], vals[1], vals[2]}, t->publics};
        gs_cdag_eval_ext(d, &env, nodes);
        combine_ext(d, nodes, w, out);
        for (size_t i = 3; i < 3 * n_x; i++)
            out[i] = bb4_zero();
        free(vals), free(nodes), free(cols);
        return GLSTARK_OK;
    }
    size_t half = m / 2;
    unsigned parts = gs_cpu_parts(eng, half);
    mle_ctx cx = {t, T, stride, n_x, (const bb4_t *)eq->host, w, NULL, 0};
    cx.acc = malloc((size_t)parts * 3 * n_x * sizeof(bb4_t));
    if (!cx.acc)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck mle round: accumulator allocation failed");
    gs_cpu_parallel_for(parts, half, mle_slice, &cx);
    if (cx.oom) {
        free(cx.acc);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck mle round: scratch allocation failed");
    }
    for (size_t i = 0; i < 3 * n_x; i++) {
        bb4_t sum = bb4_zero();
        for (unsigned p = 0; p < parts; p++)
            sum = bb4_add(sum, cx.acc[3 * n_x * p + i]);
        out[i] = sum;
    }
    free(cx.acc);
    return GLSTARK_OK;
}

static glstark_status cpu_fold(gs_engine *eng, gs_buf *tables, size_t n_cols, size_t stride, size_t m, bb4_t r)
{
    (void)eng;
    bb4_t *T = (bb4_t *)tables->host;
    for (size_t c = 0; c < n_cols; c++) {
        bb4_t *v = T + c * stride;
        for (size_t a = 0; a < m / 2; a++)
            v[a] = bb4_add(v[2 * a], bb4_mul(r, bb4_sub(v[2 * a + 1], v[2 * a])));
    }
    return GLSTARK_OK;
}

const gs_zerocheck_ops gs_cpu_zerocheck_ops = {
    .round0 = cpu_round0,
    .fold_ple = cpu_fold_ple,
    .mle_round = cpu_mle_round,
    .fold = cpu_fold,
};
