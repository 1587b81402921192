/* CPU engine: the batch-constraint sumcheck kernels (src/engine/zerocheck_ops.h).
 *
 * Both kinds of rounds run the compiled constraint program (src/engine/
 * zc_code.h, the bytecode the GLES engine interprets too) on 16 points at
 * once (zc_lanes.h). Round 0 makes, per block of 2^l_skip rows, the values
 * of the columns the program reads on the cosets (r0_transform.h: one
 * transform per local column, a rotation plus a correction for its next-row
 * column), then runs the program in base-field lanes; the multilinear rounds
 * interpolate the folded tables' row pairs at X = 1..d in extension lanes.
 * The weighted sums of fold_ple have vector forms (weighted_sums_simd.h);
 * every vector path has a plain C twin the tests run with the kernels of
 * GS_SIMD_NONE (kernels.h). */
#include "engine/cpu/cpu_engine.h"
#include "engine/cpu/ext_fold_simd.h"
#include "util/parallel_for.h"
#include "engine/cpu/r0_transform.h"
#include "engine/cpu/weighted_sums_simd.h"
#include "engine/cpu/zc_lanes.h"
#include "engine/cpu/zc_rows.h"
#include "engine/zerocheck_ops.h"

#include <stdlib.h>
#include <string.h>

#include "util/prefetch.h"

static size_t lifted_rows(const gs_zc_trace *t, uint32_t l_skip)
{
    return (size_t)1 << (t->log_height > l_skip ? t->log_height : l_skip);
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

#define R0_TILE 4
/* Chunks per thread in round 0 and the multilinear rounds: threads that
 * finish early take more, instead of idling while a slower one ends. */
#define R0_CHUNKS_PER_THREAD 8
#define R0_PREFETCH 2 /* columns ahead (round 0 and the multilinear rounds) */

/* out[i] = the sum over the workers' partials acc[p * n + i] (field addition
 * is exact, so the split over threads does not change the result). */
static void add_partials(const bb4_t *acc, unsigned parts, size_t n, bb4_t *out)
{
    for (size_t i = 0; i < n; i++) {
        bb4_t sum = bb4_zero();
        for (unsigned p = 0; p < parts; p++)
            sum = bb4_add(sum, acc[n * p + i]);
        out[i] = sum;
    }
}

typedef struct r0_ctx {
    const gs_zc_trace *t;
    uint32_t l_skip;
    uint32_t n_cos;
    size_t n_pts;
    int d_points;
    const gs_r0_transform *tf; /* a column's values on D -> on the n_cos cosets */
    const bb4_t *E;
    const gs_zc_code *code;  /* the DAG with the round's weights, one group */
    const gs_cpu_kernels *k; /* its arithmetic */
    bb4_t *acc;              /* per part: 3 * n_pts */
    int oom;
} r0_ctx;

static void r0_slice(void *vctx, size_t lo, size_t hi, unsigned part)
{
    r0_ctx *cx = vctx;
    const gs_zc_trace *t = cx->t;
    size_t N = (size_t)1 << cx->l_skip, H = (size_t)1 << t->log_height;
    /* pv holds only the columns the program reads: its column i is table column col_map[i] */
    const uint32_t *col_map = cx->code->col_map;
    size_t ncols = cx->code->n_cols, n_tab = gs_zc_table_cols(t), n_pts = cx->n_pts;
    size_t d0 = cx->d_points ? N : 0;
    bb4_t *out = cx->acc + 3 * n_pts * part; /* zeroed by cpu_round0: a part may run several chunks */
    if (lo >= hi)
        return;
    /* pv[i * n_pts + pt]: the program's column i at evaluation point pt */
    /* blocks are taken R0_TILE at a time so that every trace column is read
     * in runs of R0_TILE * N consecutive rows */
    /* + GS_ZC_LANES: the spare lanes of a last partial group of points read past the end */
    bb_t *pv = malloc((R0_TILE * ncols * n_pts + GS_ZC_LANES) * sizeof(bb_t));
    bb_t *coef = malloc(2 * N * sizeof(bb_t)), *tmp = coef + N;
    const bb_t **colsrc = malloc(n_tab * sizeof(*colsrc));
    gs_zc_lanes lp;
    if (!pv || !coef || !colsrc || gs_zc_lanes_init(&lp, cx->code, cx->k)) {
        free(pv), free(coef), free(colsrc);
        cx->oom = 1;
        return;
    }
    /* table column c >= 3 reads colsrc[c] at row r (+1 for rotated columns) */
    {
        size_t c = 3;
        for (uint32_t p = 0; p < t->n_parts; p++)
            for (uint32_t j = 0; j < t->part_widths[p]; j++, c += 2)
                colsrc[c] = colsrc[c + 1] = (const bb_t *)t->parts[p]->host + gs_zc_part_offset(t, p) + (size_t)j * H;
    }
    memset(pv + R0_TILE * ncols * n_pts, 0, GS_ZC_LANES * sizeof(bb_t));
    bb_t acc[3][GS_ZC_BLOCK];
    for (size_t x0 = lo; x0 < hi; x0 += R0_TILE) {
        size_t G = hi - x0 < R0_TILE ? hi - x0 : R0_TILE;
        /* one column's N values on D -> its values at every point */
        for (size_t i = 0; i < ncols; i++) {
            size_t c = col_map[i];
            /* the tile's rows of a column two ahead: consecutive columns are a
             * column's height apart, which the hardware prefetchers do not follow */
            if (i + R0_PREFETCH < ncols && col_map[i + R0_PREFETCH] >= 3) {
                size_t cp = col_map[i + R0_PREFETCH], start = x0 * N + ((cp - 3) & 1);
                if (start + G * N <= H)
                    gs_prefetch_range(colsrc[cp] + start, G * N * sizeof(bb_t));
            }
            /* a next-row column whose local column was just made */
            int from_local = c >= 3 && ((c - 3) & 1) && i > 0 && col_map[i - 1] == c - 1;
            for (size_t g = 0; g < G; g++) {
                size_t x = x0 + g;
                bb_t *pc = pv + (g * ncols + i) * n_pts;
                const bb_t *vals = coef; /* the column's N values on block x */
                if (c < 3) {
                    for (size_t k = 0; k < N; k++) {
                        size_t r = (x * N + k) & (H - 1);
                        coef[k] = (c == 0 ? r == 0 : c == 1 ? r == H - 1 : r != H - 1) ? bb_one() : 0;
                    }
                } else {
                    const bb_t *src = colsrc[c];
                    size_t start = x * N + ((c - 3) & 1); /* rotated columns start a row later */
                    if (start + N <= H) {
                        vals = src + start;
                    } else {
                        for (size_t k = 0; k < N; k++)
                            coef[k] = src[(start + k) & (H - 1)];
                    }
                }
                if (d0)
                    memcpy(pc, vals, N * sizeof(bb_t));
                if (from_local) {
                    /* the local one's values (pv column i - 1) rotated, plus a correction */
                    const bb_t *src = colsrc[c];
                    bb_t delta = bb_sub(src[(x * N + N) & (H - 1)], src[(x * N) & (H - 1)]);
                    gs_r0_transform_next(cx->tf, pc - n_pts + d0, delta, pc + d0);
                } else {
                    gs_r0_transform_column(cx->tf, vals, pc + d0, tmp);
                }
            }
        }
        /* the program on GS_ZC_LANES points at a time; each adds E[x] (zc, p, q) into its point */
        for (size_t g = 0; g < G; g++) {
            bb4_t e = cx->E[x0 + g];
            for (size_t p0 = 0; p0 < n_pts; p0 += GS_ZC_LANES) {
                size_t cnt = n_pts - p0 < GS_ZC_LANES ? n_pts - p0 : GS_ZC_LANES;
                gs_zc_lanes_run_base(&lp, pv + g * ncols * n_pts + p0, n_pts, acc);
                for (size_t j = 0; j < cnt; j++)
                    for (int i = 0; i < 3; i++)
                        out[3 * (p0 + j) + i] = bb4_add(out[3 * (p0 + j) + i], bb4_mul(e, gs_zc_lane_get(acc[i], (int)j)));
            }
        }
    }
    gs_zc_lanes_free(&lp);
    free(pv), free(coef), free(colsrc);
}

static glstark_status cpu_round0(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, uint32_t n_cos, int d_points,
                                 const gs_buf *e, const gs_zc_weights *w, bb4_t *out)
{
    eng->host_syncs++; /* its results go to the host (what GLES counts as a read) */
    size_t N = (size_t)1 << l_skip;
    size_t nx = lifted_rows(t, l_skip) / N;
    size_t n_pts = (d_points ? N : 0) + (size_t)n_cos * N;
    if (n_pts == 0)
        return GLSTARK_OK;
    gs_r0_transform tf;
    int impl = gs_r0_transform_available(gs_cpu_simd(eng), l_skip) ? (int)gs_cpu_simd(eng) : GS_SIMD_NONE;
    if (gs_r0_transform_init(&tf, l_skip, n_cos, impl))
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "zerocheck round 0: planning the 2^%u-point coset transforms failed (out of memory, or "
                            "l_skip above 27)", l_skip);
    unsigned parts = gs_cpu_parts(eng, nx);
    gs_cpu_state *cs = eng->impl;
    gs_zc_code code;
    glstark_status st = gs_zc_compile_cached(&cs->zc_cache, t, w, 1, GS_ZC_COLS_READ, &code, &eng->err);
    if (st) {
        gs_r0_transform_free(&tf);
        return st;
    }
    r0_ctx cx = {t,    l_skip, n_cos, n_pts, d_points, &tf, (const bb4_t *)e->host,
                 &code, cs->kernels, NULL, 0};
    cx.acc = malloc((size_t)parts * 3 * n_pts * sizeof(bb4_t));
    if (!cx.acc) {
        gs_r0_transform_free(&tf);
        gs_zc_code_free(&code);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck round 0: accumulator allocation failed");
    }
    for (size_t i = 0; i < (size_t)parts * 3 * n_pts; i++)
        cx.acc[i] = bb4_zero();
    /* chunks of whole tiles, several per thread, taken as threads free up
     * (a contiguous share per thread left round 0's last ~40 ms to fewer
     * and fewer threads on the 16-core H200 host) */
    size_t grain = nx / ((size_t)parts * R0_CHUNKS_PER_THREAD);
    grain = grain < R0_TILE ? R0_TILE : grain - grain % R0_TILE;
    gs_cpu_for_chunks(eng, parts, nx, grain, r0_slice, &cx);
    gs_r0_transform_free(&tf);
    gs_zc_code_free(&code);
    if (cx.oom) {
        free(cx.acc);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck round 0: scratch allocation failed");
    }
    add_partials(cx.acc, parts, 3 * n_pts, out);
    free(cx.acc);
    return GLSTARK_OK;
}

typedef struct fp_ctx {
    const gs_zc_trace *t;
    size_t N, H, nx;
    const bb4_t *lw;
    const uint32_t *cols; /* folded column i is table column cols[i] */
    const bb_t **src;     /* per folded column of a trace column */
    bb4_t *T;
    const bb_t *lw_comp; /* 4 x N: component j of lw[k] at [j N + k] (vector path) */
    const gs_cpu_kernels *k;
} fp_ctx;

/* Folded columns [lo, hi): each trace column is streamed once, in order. */
static void fold_ple_slice(void *vctx, size_t lo, size_t hi, unsigned part)
{
    (void)part;
    fp_ctx *cx = vctx;
    size_t N = cx->N, H = cx->H, nx = cx->nx;
    for (size_t i = lo; i < hi; i++) {
        bb4_t *dst = cx->T + i * nx;
        size_t c = cx->cols[i];
        if (c < 3) {
            for (size_t x = 0; x < nx; x++) {
                bb4_t s = bb4_zero();
                for (size_t k = 0; k < N; k++) {
                    size_t r = (x * N + k) & (H - 1);
                    int on = c == 0 ? r == 0 : c == 1 ? r == H - 1 : r != H - 1;
                    if (on)
                        s = bb4_add(s, cx->lw[k]);
                }
                dst[x] = s;
            }
            continue;
        }
        const bb_t *m = cx->src[i];
        size_t rot = (c - 3) & 1, x = 0;
        /* blocks whose rows do not wrap around the trace: all of them unrotated, all but the last rotated */
        if (cx->k->ple_fold && H >= N)
            x = gs_ple_fold_simd(cx->k, m + rot, N, nx - rot, cx->lw_comp, dst);
        for (; x < nx; x++) {
            bb4_t a = bb4_zero();
            for (size_t k = 0; k < N; k++)
                a = bb4_add(a, bb4_mul_base(cx->lw[k], m[(x * N + k + rot) & (H - 1)]));
            dst[x] = a;
        }
    }
}

/* The trace column behind table column c >= 3. */
static const bb_t *table_column_source(const gs_zc_trace *t, size_t c)
{
    size_t j = (c - 3) / 2, H = (size_t)1 << t->log_height;
    uint32_t p = 0;
    while (j >= t->part_widths[p])
        j -= t->part_widths[p++];
    return (const bb_t *)t->parts[p]->host + gs_zc_part_offset(t, p) + j * H;
}

static glstark_status cpu_fold_ple(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, const bb4_t *lw,
                                   gs_buf *tables)
{
    size_t N = (size_t)1 << l_skip, H = (size_t)1 << t->log_height;
    size_t rows = lifted_rows(t, l_skip), nx = rows / N;
    uint32_t *cols, ncols;
    glstark_status st = gs_zc_folded_layout(t, &cols, &ncols, &eng->err);
    if (st)
        return st;
    if (tables->size < ncols * nx * sizeof(bb4_t)) {
        free(cols);
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "zerocheck fold_ple: table buffer has %zu bytes, needs %zu", tables->size,
                            ncols * nx * sizeof(bb4_t));
    }
    const bb_t **src = malloc(ncols * sizeof(*src));
    bb_t *lw_comp = malloc(4 * N * sizeof(bb_t));
    if (!src || !lw_comp) {
        free(src), free(lw_comp), free(cols);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck fold_ple: allocation failed");
    }
    for (uint32_t i = 0; i < ncols; i++)
        src[i] = cols[i] >= 3 ? table_column_source(t, cols[i]) : NULL;
    for (size_t k = 0; k < N; k++)
        for (int j = 0; j < 4; j++)
            lw_comp[(size_t)j * N + k] = lw[k].c[j];
    fp_ctx cx = {t, N, H, nx, lw, cols, src, (bb4_t *)tables->host, lw_comp, gs_cpu_engine_kernels(eng)};
    gs_cpu_for(eng, gs_cpu_parts(eng, ncols), ncols, fold_ple_slice, &cx);
    free(src), free(lw_comp), free(cols);
    return GLSTARK_OK;
}

typedef struct mle_ctx {
    const gs_zc_trace *t;
    const bb4_t *T;
    const uint32_t *folded_of; /* per program column: its folded table column */
    size_t stride, n_x;
    const bb4_t *E;
    const gs_zc_code *code;  /* the DAG with this round's weights, one group */
    const gs_cpu_kernels *k; /* its arithmetic */
    bb4_t *acc;              /* per part: 3 * n_x */
    int oom;
} mle_ctx;

/* Row pairs a in [lo, hi), GS_ZC_LANES at a time: each table column's lane
 * values at X are T[2a] + X (T[2a+1] - T[2a]), made by adding the difference
 * once per X; the program runs once per batch and X. */
static void mle_slice(void *vctx, size_t lo, size_t hi, unsigned part)
{
    mle_ctx *cx = vctx;
    /* lane values only for the columns the program reads: its column i is folded column folded_of[i] */
    const uint32_t *col_map = cx->folded_of;
    size_t ncols = cx->code->n_cols, n_x = cx->n_x, stride = cx->stride;
    bb4_t *out = cx->acc + 3 * n_x * part; /* zeroed by cpu_mle_round: a part may run several chunks */
    if (lo >= hi)
        return;
    gs_zc_lanes lp;
    size_t words = ncols * GS_ZC_BLOCK;
    bb_t *vals = malloc(2 * words * sizeof(bb_t)), *diff = vals + words;
    if (!vals || gs_zc_lanes_init(&lp, cx->code, cx->k)) {
        free(vals);
        cx->oom = 1;
        return;
    }
    bb_t acc[3][GS_ZC_BLOCK];
    for (size_t a0 = lo; a0 < hi; a0 += GS_ZC_LANES) {
        size_t cnt = hi - a0 < GS_ZC_LANES ? hi - a0 : GS_ZC_LANES;
        for (size_t c = 0; c < ncols; c++) {
            const bb4_t *col = cx->T + col_map[c] * stride;
            if (c + R0_PREFETCH < ncols) /* columns lie a table's stride apart, as in round 0 */
                gs_prefetch_range(cx->T + col_map[c + R0_PREFETCH] * stride + 2 * a0, 2 * cnt * sizeof(bb4_t));
            for (int j = 0; j < GS_ZC_LANES; j++) {
                size_t a = a0 + ((size_t)j < cnt ? (size_t)j : 0); /* spare lanes repeat the first pair */
                gs_zc_lane_put(vals + c * GS_ZC_BLOCK, j, col[2 * a]);
                gs_zc_lane_put(diff + c * GS_ZC_BLOCK, j, bb4_sub(col[2 * a + 1], col[2 * a]));
            }
        }
        for (size_t X = 1; X <= n_x; X++) {
            for (size_t i = 0; i < words; i++)
                vals[i] = bb_add(vals[i], diff[i]);
            gs_zc_lanes_run(&lp, vals, acc);
            for (size_t j = 0; j < cnt; j++) {
                bb4_t e = cx->E[a0 + j];
                for (int i = 0; i < 3; i++)
                    out[3 * (X - 1) + i] = bb4_add(out[3 * (X - 1) + i], bb4_mul(e, gs_zc_lane_get(acc[i], (int)j)));
            }
        }
    }
    gs_zc_lanes_free(&lp);
    free(vals);
}

/* out[i]: the folded column of the program's column i (col_map ascends and
 * is a subset of the layout, so one merge finds them all). */
static void folded_places(const gs_zc_code *code, const uint32_t *layout, uint32_t n, uint32_t *out)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < code->n_cols; i++) {
        while (j < n && layout[j] < code->col_map[i])
            j++;
        out[i] = j;
    }
}

/* m = 1: the DAG at the fully bound point (row 0 of every folded column). */
static glstark_status mle_at_point(gs_engine *eng, const gs_zc_trace *t, const bb4_t *T, size_t stride,
                                   const uint32_t *layout, uint32_t n_folded, const gs_zc_weights *w, size_t n_x,
                                   bb4_t *out)
{
    const gs_cdag *d = t->dag;
    size_t ncols = gs_zc_table_cols(t);
    bb4_t *vals = calloc(ncols, sizeof(bb4_t)); /* columns the DAG never reads stay 0 */
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
    for (uint32_t i = 0; i < n_folded; i++)
        vals[layout[i]] = T[i * stride];
    gs_cdag_env_ext env = {cols, {vals[0], vals[1], vals[2]}, t->publics};
    gs_cdag_eval_ext(d, &env, nodes);
    combine_ext(d, nodes, w, out);
    for (size_t i = 3; i < 3 * n_x; i++)
        out[i] = bb4_zero();
    free(vals), free(nodes), free(cols);
    return GLSTARK_OK;
}

static glstark_status cpu_mle_round(gs_engine *eng, const gs_zc_trace *t, const gs_buf *tables, size_t stride, size_t m,
                                    const gs_buf *eq, size_t n_x, const gs_zc_weights *w, bb4_t *out)
{
    eng->host_syncs++; /* its results go to the host (what GLES counts as a read) */
    const bb4_t *T = (const bb4_t *)tables->host;
    uint32_t *layout, n_folded;
    glstark_status st = gs_zc_folded_layout(t, &layout, &n_folded, &eng->err);
    if (st)
        return st;
    if (m == 1) {
        st = mle_at_point(eng, t, T, stride, layout, n_folded, w, n_x, out);
        free(layout);
        return st;
    }
    size_t half = m / 2;
    unsigned parts = gs_cpu_parts(eng, half);
    gs_cpu_state *cs = eng->impl;
    gs_zc_code code;
    st = gs_zc_compile_cached(&cs->zc_cache, t, w, 1, GS_ZC_COLS_READ, &code, &eng->err);
    if (st) {
        free(layout);
        return st;
    }
    uint32_t *folded_of = malloc((code.n_cols ? code.n_cols : 1) * sizeof(uint32_t));
    mle_ctx cx = {t, T, folded_of, stride, n_x, (const bb4_t *)eq->host, &code, cs->kernels, NULL, 0};
    cx.acc = malloc((size_t)parts * 3 * n_x * sizeof(bb4_t));
    if (!cx.acc || !folded_of) {
        gs_zc_code_free(&code);
        free(cx.acc), free(folded_of), free(layout);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck mle round: accumulator allocation failed");
    }
    folded_places(&code, layout, n_folded, folded_of);
    free(layout);
    for (size_t i = 0; i < (size_t)parts * 3 * n_x; i++)
        cx.acc[i] = bb4_zero();
    /* chunks of whole lane groups, several per thread, as in round 0 */
    size_t grain = half / ((size_t)parts * R0_CHUNKS_PER_THREAD);
    grain = grain < GS_ZC_LANES ? GS_ZC_LANES : grain - grain % GS_ZC_LANES;
    gs_cpu_for_chunks(eng, parts, half, grain, mle_slice, &cx);
    gs_zc_code_free(&code);
    free(folded_of);
    if (cx.oom) {
        free(cx.acc);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "zerocheck mle round: scratch allocation failed");
    }
    add_partials(cx.acc, parts, 3 * n_x, out);
    free(cx.acc);
    return GLSTARK_OK;
}

typedef struct fold_ctx {
    bb4_t *T;
    size_t stride, m;
    bb4_t r;
    gs_ext_matrix rm; /* r for the vector path */
    const gs_cpu_kernels *k;
} fold_ctx;

/* Columns [lo, hi), each folded in place (row a reads rows 2a, 2a + 1 >= a). */
static void fold_slice(void *vctx, size_t lo, size_t hi, unsigned part)
{
    (void)part;
    const fold_ctx *cx = vctx;
    for (size_t c = lo; c < hi; c++) {
        bb4_t *v = cx->T + c * cx->stride;
        for (size_t a = gs_ext_fold_lerp_simd(cx->k, v, v, cx->m / 2, &cx->rm); a < cx->m / 2; a++)
            v[a] = bb4_add(v[2 * a], bb4_mul(cx->r, bb4_sub(v[2 * a + 1], v[2 * a])));
    }
}

static glstark_status cpu_fold(gs_engine *eng, gs_buf *tables, size_t n_cols, size_t stride, size_t m, bb4_t r)
{
    fold_ctx cx = {.T = (bb4_t *)tables->host, .stride = stride, .m = m, .r = r, .k = gs_cpu_engine_kernels(eng)};
    gs_ext_matrix_of(r, &cx.rm);
    /* one thread for small folds, where starting threads costs more than the work */
    unsigned parts = n_cols * m >= ((size_t)1 << 14) ? gs_cpu_parts(eng, n_cols) : 1;
    gs_cpu_for(eng, parts, n_cols, fold_slice, &cx);
    return GLSTARK_OK;
}

/* The one program round 0 and the rounds run here. */
static void cpu_compile_ahead(gs_engine *eng, const gs_zc_trace *traces, uint32_t n)
{
    const gs_zc_variant v = {1, GS_ZC_COLS_READ};
    gs_zc_cache_compile_ahead(&((gs_cpu_state *)eng->impl)->zc_cache, traces, n, &v, 1);
}

static void cpu_compile_wait(gs_engine *eng) { gs_zc_cache_wait(((gs_cpu_state *)eng->impl)->zc_cache); }

const gs_zerocheck_ops gs_cpu_zerocheck_ops = {
    .round0 = cpu_round0,
    .fold_ple = cpu_fold_ple,
    .mle_round = cpu_mle_round,
    .fold = cpu_fold,
    .compile_ahead = cpu_compile_ahead,
    .compile_wait = cpu_compile_wait,
};
