/* Batch constraint sumcheck prover (docs/protocol.md, 'Batch constraint sumcheck with univariate skip'). */
#include "prove/zerocheck.h"
#include "engine/gkr_ops.h"
#include "engine/read_later.h"
#include "engine/reduction_ops.h"
#include "common/poly.h"
#include "prove/spans.h"
#include "util/parallel_for.h"

#include <stdlib.h>
#include <string.h>

static glstark_status eng_fail(gs_engine *eng, gs_error *err, const char *what)
{
    return gs_error_set(err, eng->err.status ? eng->err.status : GLSTARK_ERR_INTERNAL, "batch prover: %s: %s", what,
                        eng->err.msg);
}

static glstark_status oom(gs_error *err)
{
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: allocation failed");
}

typedef struct trace_state {
    uint32_t nt;
    size_t ncols;
    gs_buf *tables;
    gs_zc_weights w;
    bb4_t tau; /* tail value once all of the trace's variables are bound */
} trace_state;

/* What the prover holds from round 0 to the openings. */
typedef struct batch_state {
    gs_engine *eng;
    const gs_zerocheck_ops *ops;
    const gs_zc_trace *traces;
    const gs_batch_trace *shp;
    gs_batch_shape shape;
    uint32_t M, l_skip, D, N; /* N = 2^l_skip */
    uint32_t max_cons;        /* the most constraints of a trace */
    const bb4_t *xi;
    trace_state *ts;
    bb4_t *lpow;  /* λ^i, i < max_cons */
    bb4_t *eq3b;  /* per interaction, all traces in order */
    bb4_t *mupow; /* μ^i, i < 3M: trace t's p, q sums at 2t, 2t+1, its constraints at 2M+t */
    bb4_t *rbuf;  /* one multilinear round's evaluations per trace, 3 per X = 1..D */
    gs_buf *eqb;  /* eq tables, 2^n_max entries */
    /* eq_D(ξ_0, r_0) and eq#(ξ_<l, r_0), times eq(ξ_j, r_j) per round done */
    bb4_t eqacc, eqsh;
} batch_state;

gs_batch_trace *gs_zc_trace_shapes(const gs_zc_trace *traces, uint32_t n)
{
    gs_batch_trace *s = malloc((n ? n : 1) * sizeof *s);
    if (s)
        for (uint32_t t = 0; t < n; t++)
            s[t] = gs_zc_trace_shape(&traces[t]);
    return s;
}

/* The proof's arrays and what every phase shares. */
static glstark_status batch_init(batch_state *b, gs_batch_proof *out, gs_error *err)
{
    gs_batch_shape_of(b->shp, b->M, b->l_skip, b->D, &b->shape);
    glstark_status st = gs_batch_proof_alloc(out, b->M, &b->shape, err);
    if (st)
        return st;
    size_t total_inter = gs_batch_total_interactions(b->shp, b->M);
    for (uint32_t t = 0; t < b->M; t++)
        if (b->traces[t].dag->n_constraints > b->max_cons)
            b->max_cons = b->traces[t].dag->n_constraints;
    b->ts = calloc(b->M, sizeof(*b->ts));
    b->lpow = calloc(b->max_cons + 1, sizeof(bb4_t));
    b->eq3b = calloc(total_inter + 1, sizeof(bb4_t));
    b->mupow = calloc(3 * (size_t)b->M, sizeof(bb4_t));
    b->rbuf = calloc(3 * (size_t)(b->D + 1) * (b->M ? b->M : 1), sizeof(bb4_t));
    if (!b->ts || !b->lpow || !b->eq3b || !b->mupow || !b->rbuf)
        return oom(err);
    if (gs_buf_create(b->eng, ((size_t)1 << b->shape.n_max) * sizeof(bb4_t), &b->eqb))
        return eng_fail(b->eng, err, "allocating the eq table");
    return GLSTARK_OK;
}

static void batch_free(batch_state *b)
{
    if (b->ts)
        for (uint32_t t = 0; t < b->M; t++)
            gs_buf_destroy(b->ts[t].tables);
    gs_buf_destroy(b->eqb);
    free(b->ts), free(b->lpow), free(b->eq3b), free(b->mupow), free(b->rbuf);
}

/* Trace t's term of s_j at a point from its (zc, p, q) values o:
 * μ^(2M+t) eq_D eq_j · zc + eq# eq_j · (μ^(2t) p + μ^(2t+1) q). */
static bb4_t trace_term(const batch_state *b, uint32_t t, const bb4_t o[3])
{
    const bb4_t *mp = b->mupow;
    return bb4_add(bb4_mul(bb4_mul(mp[2 * b->M + t], b->eqacc), o[0]),
                   bb4_mul(b->eqsh, bb4_add(bb4_mul(mp[2 * t], o[1]), bb4_mul(mp[2 * t + 1], o[2]))));
}

/* ---- round 0 (univariate skip) ---- */

/* Round 0 per trace t of degree d: the constraint sum sp_zc = q (Z^N - 1)
 * with q interpolated from d-1 cosets g^i D, and the LogUp sums sp_p, sp_q
 * interpolated from d cosets (i = 1..), g = 31. */
typedef struct round0_scratch {
    size_t n_cpts; /* coset points: D cosets of N */
    size_t plen;   /* room for every product: (D + 2) N coefficients */
    bb_t *xs;      /* the coset points g^i w^k, i = 1..D, k < N, in the kernel's order */
    bb4_t *r0out;  /* per trace, the engine's (zc, p, q) per point, D in front when rows are checked */
    size_t r0stride; /* r0out's elements per trace */
    bb4_t *vals;
    bb4_t *cf;
    bb4_t *polys;  /* per trace: eq#·sp_p, eq#·sp_q, sp_zc (coefficients) */
    bb4_t *s0;     /* s_0, then the constraint part summed over traces */
    /* eq#(Z) coefficients (1/N) sum_k eq_H(xi_<l, k) w^-kj, and eq_D(xi_0, Z)'s */
    bb4_t esh_c[256], ezc_c[256];
} round0_scratch;

static glstark_status round0_alloc(const batch_state *b, round0_scratch *r, gs_error *err)
{
    const size_t N = b->N;
    r->n_cpts = (size_t)b->D * N;
    r->plen = (size_t)(b->D + 2) * N;
    r->xs = calloc(r->n_cpts, sizeof(bb_t));
    r->r0stride = 3 * (N + r->n_cpts);
    r->r0out = calloc(r->r0stride * (b->M ? b->M : 1), sizeof(bb4_t));
    r->vals = calloc(r->n_cpts, sizeof(bb4_t));
    r->cf = calloc(r->plen, sizeof(bb4_t));
    r->polys = calloc(3 * r->plen * b->M, sizeof(bb4_t));
    r->s0 = calloc(2 * r->plen, sizeof(bb4_t));
    if (!r->xs || !r->r0out || !r->vals || !r->cf || !r->polys || !r->s0)
        return oom(err);
    return GLSTARK_OK;
}

static void round0_free(round0_scratch *r)
{
    free(r->xs), free(r->r0out), free(r->vals), free(r->cf), free(r->polys), free(r->s0);
}

/* The coset points and the coefficients of eq#(Z) and eq_D(ξ_0, Z). */
static void round0_points(const batch_state *b, round0_scratch *r)
{
    const uint32_t N = b->N, l_skip = b->l_skip;
    const bb4_t *xi = b->xi;
    const bb_t omega = bb_two_adic_generator(l_skip), g = bb_from_u32(31);
    bb_t gi = g;
    for (uint32_t i = 0; i < b->D; i++) {
        bb_t z = gi;
        for (uint32_t k = 0; k < N; k++) {
            r->xs[(size_t)i * N + k] = z;
            z = bb_mul(z, omega);
        }
        gi = bb_mul(gi, g);
    }
    bb4_t eqs[256];
    bb4_eq_table(xi, l_skip, eqs);
    bb_t ninv = bb_inv(bb_from_u32(N)), winv = bb_inv(omega);
    for (uint32_t j = 0; j < N; j++) {
        bb4_t acc = bb4_zero();
        bb_t step = bb_pow(winv, j), pw = bb_one();
        for (uint32_t k = 0; k < N; k++) {
            acc = bb4_add(acc, bb4_mul_base(eqs[k], pw));
            pw = bb_mul(pw, step);
        }
        r->esh_c[j] = bb4_mul_base(acc, ninv);
        r->ezc_c[j] = bb4_mul_base(j == 0 ? bb4_one() : bb4_pow(xi[0], N - j), ninv);
    }
}

/* The cosets trace t's round 0 evaluates: d-1 for its constraints (degree
 * d >= 2), d for its LogUp sums. */
static void round0_cosets(const gs_cdag *dg, uint32_t *cos_zc, uint32_t *cos_pq)
{
    uint32_t d = dg->max_degree ? dg->max_degree : 1;
    *cos_zc = dg->n_constraints && d >= 2 ? d - 1 : 0;
    *cos_pq = dg->n_interactions ? d : 0;
}

/* Trace t's round-0 evaluations, queued: its state for the rounds, then the
 * engine's round 0 into its slice of r->r0out, read at the engine's next
 * read with the other traces' (round0_trace_finish uses them); *ei: its
 * first interaction's index among all traces'. */
static glstark_status round0_trace_start(batch_state *b, round0_scratch *r, uint32_t t, bb4_t beta, int check_rows,
                                         size_t *ei, gs_error *err)
{
    const uint32_t N = b->N, l_skip = b->l_skip, D = b->D;
    const gs_zc_trace *tr = &b->traces[t];
    const gs_cdag *dg = tr->dag;
    trace_state *ts = &b->ts[t];
    ts->nt = gs_batch_ntilde(&b->shp[t], l_skip);
    uint32_t *layout, n_folded;
    glstark_status lst = gs_zc_folded_layout(tr, &layout, &n_folded, err);
    if (lst)
        return lst;
    free(layout);
    ts->ncols = n_folded;
    ts->w.lambda_pows = b->lpow;
    ts->w.beta = beta;
    ts->w.eq3b = b->eq3b + *ei;
    ts->w.norm = tr->log_height < l_skip ? bb_inv(bb_from_u32(1u << (l_skip - tr->log_height))) : bb_one();
    *ei += dg->n_interactions;
    uint32_t d = dg->max_degree ? dg->max_degree : 1;
    if (d > D)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "batch prover: trace %u has constraint degree %u above the system's maximum %u", t, d, D);
    uint32_t cos_zc, cos_pq;
    round0_cosets(dg, &cos_zc, &cos_pq);
    uint32_t cos = cos_zc > cos_pq ? cos_zc : cos_pq;
    size_t n_pts = (check_rows ? N : 0) + (size_t)cos * N;
    if (n_pts && (b->eng->gkr->eq_table(b->eng, b->xi + l_skip, ts->nt, b->eqb) ||
                  b->ops->round0(b->eng, tr, l_skip, cos, check_rows, b->eqb, &ts->w, r->r0out + r->r0stride * t)))
        return eng_fail(b->eng, err, "round 0 evaluation");
    return GLSTARK_OK;
}

/* Trace t's round-0 polynomials (into r->polys) and its LogUp sums over D
 * (T8's values), from its evaluations (round0_trace_start, read). */
static glstark_status round0_trace_finish(batch_state *b, round0_scratch *r, uint32_t t, int check_rows,
                                          gs_batch_proof *out, gs_error *err)
{
    const uint32_t N = b->N;
    const size_t plen = r->plen;
    uint32_t cos_zc, cos_pq;
    round0_cosets(b->traces[t].dag, &cos_zc, &cos_pq);
    const bb4_t *r0 = r->r0out + r->r0stride * t, *o = r0;
    if (check_rows) {
        /* the λ- and ξ-weighted constraint sums vanish on D for a
         * satisfying trace: refuse before any prover message is observed */
        for (uint32_t k = 0; k < N; k++)
            if (!bb4_is_zero(r0[3 * (size_t)k]))
                return gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                                    "batch prover: the constraints of trace %u (sorted order) do not vanish on its "
                                    "rows (skip-domain point %u); run the constraint checker to find the row",
                                    t, k);
        o = r0 + 3 * (size_t)N;
    }
    bb4_t *pp = r->polys + 3 * plen * t, *pq = pp + plen, *pz = pq + plen;
    if (cos_zc) {
        size_t n = (size_t)cos_zc * N;
        bb_t g = bb_from_u32(31), gi = g;
        for (uint32_t i = 0; i < cos_zc; i++) {
            /* z^N - 1 is constant on a coset: g^(iN) - 1 */
            bb_t inv = bb_inv(bb_sub(bb_pow(gi, N), bb_one()));
            for (uint32_t k = 0; k < N; k++)
                r->vals[(size_t)i * N + k] = bb4_mul_base(o[3 * ((size_t)i * N + k)], inv);
            gi = bb_mul(gi, g);
        }
        if (gs_interp_coeffs(r->xs, r->vals, 1, n, r->cf))
            return oom(err);
        for (size_t k = 0; k < n; k++) {
            pz[k + N] = bb4_add(pz[k + N], r->cf[k]);
            pz[k] = bb4_sub(pz[k], r->cf[k]);
        }
    }
    if (cos_pq) {
        size_t n = (size_t)cos_pq * N;
        for (int which = 1; which <= 2; which++) {
            if (gs_interp_coeffs(r->xs, o + which, 3, n, r->cf))
                return oom(err);
            bb4_t *dst = which == 1 ? pp : pq;
            for (size_t a = 0; a < N; a++)
                for (size_t k = 0; k < n; k++)
                    dst[a + k] = bb4_add(dst[a + k], bb4_mul(r->esh_c[a], r->cf[k]));
        }
    }
    /* T8 values: sum over D of eq#·sp = N · sum_k coeff_{kN} */
    bb4_t sp = bb4_zero(), sq = bb4_zero();
    for (size_t k = 0; k < plen; k += N) {
        sp = bb4_add(sp, pp[k]);
        sq = bb4_add(sq, pq[k]);
    }
    out->sum_p[t] = bb4_mul_base(sp, bb_from_u32(N));
    out->sum_q[t] = bb4_mul_base(sq, bb_from_u32(N));
    return GLSTARK_OK;
}

/* s_0 = sum_t mu^2t eq#·sp_p + mu^(2t+1) eq#·sp_q + eq_D(xi_0,·) sum_t
 * mu^(2M+t) sp_zc, into out->uni; it must have fewer than n_uni
 * coefficients. */
static glstark_status round0_combine(const batch_state *b, round0_scratch *r, gs_batch_proof *out, gs_error *err)
{
    const uint32_t M = b->M;
    const size_t plen = r->plen;
    const bb4_t *mupow = b->mupow;
    bb4_t *s0 = r->s0, *zc = r->s0 + plen;
    for (uint32_t t = 0; t < M; t++) {
        const bb4_t *pp = r->polys + 3 * plen * t, *pq = pp + plen, *pz = pq + plen;
        for (size_t k = 0; k < plen; k++) {
            s0[k] = bb4_add(s0[k], bb4_add(bb4_mul(mupow[2 * t], pp[k]), bb4_mul(mupow[2 * t + 1], pq[k])));
            zc[k] = bb4_add(zc[k], bb4_mul(mupow[2 * M + t], pz[k]));
        }
    }
    for (size_t a = 0; a < b->N; a++)
        for (size_t k = 0; k + a < plen; k++)
            s0[a + k] = bb4_add(s0[a + k], bb4_mul(r->ezc_c[a], zc[k]));
    for (size_t k = 0; k < plen; k++) {
        if (k < b->shape.n_uni)
            out->uni[k] = s0[k];
        else if (!bb4_is_zero(s0[k]))
            return gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                                "batch prover: the round-0 polynomial has degree >= %u (coefficient %zu nonzero); a "
                                "constraint does not hold on the trace or an AIR exceeds its declared degree",
                                b->shape.n_uni, k);
    }
    return GLSTARK_OK;
}

/* T7..T10: λ, the LogUp sums, μ, the round-0 polynomial and r_0. */
static glstark_status batch_round0(batch_state *b, gs_fs *fs, uint32_t n_logup, bb4_t beta, int check_rows,
                                   gs_batch_proof *out, bb4_t *r, gs_error *err)
{
    const uint32_t M = b->M;
    round0_scratch r0;
    memset(&r0, 0, sizeof r0);
    glstark_status st = round0_alloc(b, &r0, err);
    if (st)
        goto done;
    /* T7 */
    bb4_t lambda = gs_fs_sample_ext(fs);
    b->lpow[0] = bb4_one();
    for (uint32_t i = 1; i < b->max_cons; i++)
        b->lpow[i] = bb4_mul(b->lpow[i - 1], lambda);
    gs_batch_eq3b(b->shp, M, b->l_skip, n_logup, b->xi, b->eq3b);
    round0_points(b, &r0);
    /* every trace's evaluations queued, then read in one host sync */
    size_t ei = 0;
    for (uint32_t t = 0; t < M; t++)
        if ((st = round0_trace_start(b, &r0, t, beta, check_rows, &ei, err))) {
            gs_engine_read_drop(b->eng);
            goto done;
        }
    /* the engine may use the wait for what the later phases need (the GKR
     * layers, which ran before, are not among them) */
    const gs_prepare_hint busy = {b->l_skip, 0, GS_PREPARE_WHILE_BUSY};
    if (gs_engine_prepare(b->eng, &busy)) {
        gs_engine_read_drop(b->eng);
        st = eng_fail(b->eng, err, "preparing the later phases during round 0");
        goto done;
    }
    if (gs_engine_read_flush(b->eng)) {
        st = eng_fail(b->eng, err, "reading round 0's evaluations");
        goto done;
    }
    for (uint32_t t = 0; t < M; t++)
        if ((st = round0_trace_finish(b, &r0, t, check_rows, out, err)))
            goto done;
    /* T8 */
    for (uint32_t t = 0; t < M; t++) {
        gs_fs_observe_ext(fs, out->sum_p[t]);
        gs_fs_observe_ext(fs, out->sum_q[t]);
    }
    /* T9 */
    bb4_t mu = gs_fs_sample_ext(fs), pw = bb4_one();
    for (uint32_t i = 0; i < 3 * M; i++) {
        b->mupow[i] = pw;
        pw = bb4_mul(pw, mu);
    }
    if ((st = round0_combine(b, &r0, out, err)))
        goto done;
    /* T10 */
    for (uint32_t k = 0; k < b->shape.n_uni; k++)
        gs_fs_observe_ext(fs, out->uni[k]);
    r[0] = gs_fs_sample_ext(fs);
done:
    round0_free(&r0);
    return st;
}

/* ---- multilinear rounds ---- */

/* The tail values of the traces whose variables are all bound after round
 * j (those with nt == j): each one's remaining row, evaluated, all read in
 * one host sync. */
static glstark_status finish_traces(batch_state *b, uint32_t j, gs_error *err)
{
    const size_t per = 3 * (size_t)(b->D + 1);
    int any = 0;
    for (uint32_t t = 0; t < b->M; t++) {
        trace_state *ts = &b->ts[t];
        if (ts->nt != j)
            continue;
        any = 1;
        if (b->ops->mle_round(b->eng, &b->traces[t], ts->tables, (size_t)1 << ts->nt, 1, NULL, 1, &ts->w,
                              b->rbuf + per * t)) {
            gs_engine_read_drop(b->eng);
            return eng_fail(b->eng, err, "evaluating a finished trace");
        }
    }
    if (!any)
        return GLSTARK_OK;
    if (gs_engine_read_flush(b->eng))
        return eng_fail(b->eng, err, "reading the finished traces' values");
    for (uint32_t t = 0; t < b->M; t++)
        if (b->ts[t].nt == j)
            b->ts[t].tau = trace_term(b, t, b->rbuf + per * t);
    return GLSTARK_OK;
}

/* Z folded at r_0 into every trace's tables; the traces with no
 * multilinear variables are finished already. */
static glstark_status fold_skip(batch_state *b, bb4_t r0, gs_error *err)
{
    bb4_t *lw4 = calloc(b->N, sizeof(bb4_t));
    if (!lw4)
        return oom(err);
    gs_lagrange_d(b->l_skip, r0, lw4);
    glstark_status st = GLSTARK_OK;
    for (uint32_t t = 0; t < b->M && !st; t++) {
        size_t rows = (size_t)1 << b->ts[t].nt;
        if (gs_buf_create(b->eng, b->ts[t].ncols * rows * sizeof(bb4_t), &b->ts[t].tables) ||
            b->ops->fold_ple(b->eng, &b->traces[t], b->l_skip, lw4, b->ts[t].tables))
            st = eng_fail(b->eng, err, "folding the skip variable");
    }
    free(lw4);
    if (st)
        return st;
    b->eqacc = gs_eq_uni(b->l_skip, b->xi[0], r0);
    b->eqsh = gs_eq_sharp(b->l_skip, b->xi, r0);
    return finish_traces(b, 0, err);
}

/* h(X) at X = 1..D (hv[1..D]) over the traces with variables left in round
 * j, and the tail: the finished traces' sum. Every trace's evaluations are
 * read in one host sync (mle_round reads at the engine's next read). */
static glstark_status round_head(batch_state *b, uint32_t j, bb4_t *hv, bb4_t *tail, int *any_head, gs_error *err)
{
    const uint32_t D = b->D, l_skip = b->l_skip;
    const size_t per = 3 * (size_t)(D + 1);
    *tail = bb4_zero();
    *any_head = 0;
    for (uint32_t X = 0; X <= D + 1; X++)
        hv[X] = bb4_zero();
    for (uint32_t t = 0; t < b->M; t++) {
        trace_state *ts = &b->ts[t];
        if (j > ts->nt) {
            *tail = bb4_add(*tail, ts->tau);
            continue;
        }
        *any_head = 1;
        size_t m = (size_t)1 << (ts->nt - j + 1);
        if (b->eng->gkr->eq_table(b->eng, b->xi + l_skip + j, ts->nt - j, b->eqb) ||
            b->ops->mle_round(b->eng, &b->traces[t], ts->tables, (size_t)1 << ts->nt, m, b->eqb, D, &ts->w,
                              b->rbuf + per * t)) {
            gs_engine_read_drop(b->eng);
            return eng_fail(b->eng, err, "a multilinear round");
        }
    }
    if (gs_engine_read_flush(b->eng))
        return eng_fail(b->eng, err, "reading a multilinear round's sums");
    for (uint32_t t = 0; t < b->M; t++)
        if (j <= b->ts[t].nt)
            for (uint32_t X = 1; X <= D; X++)
                hv[X] = bb4_add(hv[X], trace_term(b, t, &b->rbuf[per * t + 3 * (X - 1)]));
    return GLSTARK_OK;
}

/* Binds round j's variable to rj: the traces with variables left fold
 * (and finish when it was their last), the finished ones' tails scale. */
static glstark_status round_fold(batch_state *b, uint32_t j, bb4_t rj, gs_error *err)
{
    for (uint32_t t = 0; t < b->M; t++) {
        trace_state *ts = &b->ts[t];
        if (j > ts->nt) {
            ts->tau = bb4_mul(ts->tau, rj);
            continue;
        }
        size_t m = (size_t)1 << (ts->nt - j + 1);
        if (b->ops->fold(b->eng, ts->tables, ts->ncols, (size_t)1 << ts->nt, m, rj))
            return eng_fail(b->eng, err, "folding");
    }
    return finish_traces(b, j, err);
}

/* Rounds j >= 1 (T11, T12): s_j(X) = eq(ξ, X) h(X) + X tail, where h
 * (degree <= D) sums the traces still having variables and tail the
 * finished ones. h is evaluated at X = 1..D only; h(0) follows from
 * s_j(0) + s_j(1) = cur, h(D+1) by interpolation (as OpenVM does). */
static glstark_status batch_mle_rounds(batch_state *b, gs_fs *fs, gs_batch_proof *out, bb4_t *r, gs_error *err)
{
    const uint32_t D = b->D;
    glstark_status st = fold_skip(b, r[0], err);
    if (st)
        return st;
    bb4_t cur = gs_horner(out->uni, b->shape.n_uni, r[0]);
    bb4_t *hv = calloc(D + 2, sizeof(bb4_t)), *sv = calloc(D + 2, sizeof(bb4_t));
    if (!hv || !sv) {
        free(hv), free(sv);
        return oom(err);
    }
    for (uint32_t j = 1; j <= b->shape.n_max; j++) {
        bb4_t *s = &out->rounds[(size_t)(j - 1) * (D + 1)];
        bb4_t xj = b->xi[b->l_skip + j - 1];
        bb4_t tail;
        int any_head;
        if ((st = round_head(b, j, hv, &tail, &any_head, err)))
            break;
        if (any_head) {
            /* cur = (1 - ξ) h(0) + ξ h(1) + tail */
            bb4_t num = bb4_sub(bb4_sub(cur, bb4_mul(xj, hv[1])), tail);
            hv[0] = bb4_mul(num, bb4_inv(bb4_sub(bb4_one(), xj)));
            hv[D + 1] = gs_interp_0n(hv, D, bb4_from_base(bb_from_u32(D + 1)));
        }
        for (uint32_t X = 1; X <= D + 1; X++) {
            bb4_t xx = bb4_from_base(bb_from_u32(X));
            s[X - 1] = bb4_add(bb4_mul(gs_eq1(xj, xx), hv[X]), bb4_mul(xx, tail));
        }
        for (uint32_t X = 0; X <= D; X++)
            gs_fs_observe_ext(fs, s[X]);
        r[j] = gs_fs_sample_ext(fs);
        sv[0] = bb4_sub(cur, s[0]);
        for (uint32_t X = 1; X <= D + 1; X++)
            sv[X] = s[X - 1];
        cur = gs_interp_0n(sv, D + 1, r[j]);
        bb4_t e1 = gs_eq1(xj, r[j]);
        b->eqacc = bb4_mul(b->eqacc, e1);
        b->eqsh = bb4_mul(b->eqsh, e1);
        if ((st = round_fold(b, j, r[j], err)))
            break;
    }
    if (b->ops->mle_rounds_done)
        b->ops->mle_rounds_done(b->eng);
    free(hv), free(sv);
    return st;
}

/* ---- column openings ---- */

/* A column's openings at (r_0, r_1..r_nt) from its block sums at l =
 * min(l_skip, h) (the reduction family's block_sums with the eq table of
 * r_1..r_nt): a[z] = Σ_x eq(x)·col[x 2^l + z], b[z] = Σ_x eq(x − 1)·col[..].
 * The folded tables would hold Σ_x eq(x) Σ_k lw[k]·col[(x N + k (+1)) mod H]
 * for the local (next) row; a column of h >= l_skip rows reads the next row
 * of block x's last entry from block x + 1 (b[0]); a shorter one is lifted,
 * row k reading col[k mod H], so its weights are lw summed per residue.
 * The next row's opening only with need_rot (else *next is left 0). */
static void openings_from_sums(const bb4_t *lw, uint32_t l_skip, uint32_t l, const bb4_t *a, const bb4_t *bs,
                               int need_rot, bb4_t *local, bb4_t *next)
{
    const size_t N = (size_t)1 << l_skip, n = (size_t)1 << l;
    bb4_t lo = bb4_zero(), nx = bb4_zero();
    if (l == l_skip) {
        lo = bb4_dot(lw, a, N);
        if (need_rot)
            nx = bb4_add(bb4_dot(lw, a + 1, N - 1), bb4_mul(lw[N - 1], bs[0]));
    } else {
        for (size_t z = 0; z < n; z++) {
            bb4_t wl = bb4_zero(), wn = bb4_zero();
            for (size_t k = z; k < N; k += n)
                wl = bb4_add(wl, lw[k]);
            for (size_t k = (z + n - 1) % n; k < N; k += n)
                wn = bb4_add(wn, lw[k]);
            lo = bb4_add(lo, bb4_mul(wl, a[z]));
            nx = bb4_add(nx, bb4_mul(wn, a[z]));
        }
    }
    *local = lo;
    *next = nx;
}

/* openings_from_sums over a part's columns, on the host's threads (two dot
 * products of 2^l_skip terms per column: keccakf's 2633 columns take ~1.8 ms
 * on one core of the 2-core dev machine). */
typedef struct sums_ctx {
    const bb4_t *lw, *sums;
    uint32_t l_skip, l;
    int need_rot;
    size_t n2;
    bb4_t *vals; /* per column: local, next */
} sums_ctx;

static void sums_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const sums_ctx *c = vctx;
    for (size_t k = begin; k < end; k++)
        openings_from_sums(c->lw, c->l_skip, c->l, c->sums + k * c->n2, c->sums + k * c->n2 + c->n2 / 2, c->need_rot,
                           &c->vals[2 * k], &c->vals[2 * k + 1]);
}

/* Columns per host thread at least (~0.3 ms of products): a thread's start
 * costs tens of microseconds. */
#define OPENING_COLS_PER_THREAD 512u

static void openings_of_part(sums_ctx *c, uint32_t w)
{
    gs_parallel_for(gs_threads_for(w, OPENING_COLS_PER_THREAD, 64), w, sums_range, c);
}

/* The most columns of one of trace tr's opened parts. */
static uint32_t widest_part(const gs_zc_trace *tr)
{
    uint32_t wmax = 0;
    for (uint32_t p = 0; p < tr->n_parts && p < GS_OPEN_SUMS_PARTS; p++)
        if (tr->part_widths[p] > wmax)
            wmax = tr->part_widths[p];
    return wmax;
}

/* Trace t's block sums at the batch point, part by part into
 * sums[t * GS_OPEN_SUMS_PARTS + p] (allocated here), queued on the engine
 * and read with every trace's at the next read (open_trace_finish uses
 * them). They come from the trace itself, not from the folded tables, which
 * hold only the columns the DAG reads (gs_zc_folded_layout). */
static glstark_status open_trace_start(batch_state *b, uint32_t t, const bb4_t *r, bb4_t **sums, gs_error *err)
{
    const gs_zc_trace *tr = &b->traces[t];
    const uint32_t h = tr->log_height, l = h < b->l_skip ? h : b->l_skip, nt = h - l;
    const size_t H = (size_t)1 << h, n2 = (size_t)2 << l;
    const uint32_t wmax = widest_part(tr);
    bb4_t *eq = gs_eq_tables_nested(r + 1, nt);
    gs_red_slice *slices = malloc((wmax ? wmax : 1) * sizeof *slices);
    glstark_status st = !eq || !slices ? oom(err) : GLSTARK_OK;
    for (uint32_t p = 0; !st && p < tr->n_parts && p < GS_OPEN_SUMS_PARTS; p++) {
        const uint32_t w = tr->part_widths[p];
        if (w == 0)
            continue;
        bb4_t **dst = &sums[(size_t)t * GS_OPEN_SUMS_PARTS + p];
        if (!(*dst = malloc((size_t)w * n2 * sizeof(bb4_t)))) {
            st = oom(err);
            break;
        }
        for (uint32_t c = 0; c < w; c++) {
            size_t base = gs_zc_part_offset(tr, p) + (size_t)c * H;
            slices[c] = (gs_red_slice){(uint32_t)(base / H), (uint32_t)(base % H), h};
        }
        if (b->eng->reduction->block_sums(b->eng, tr->parts[p], (uint32_t)H, l, slices, w, eq, nt, *dst))
            st = eng_fail(b->eng, err, "reading openings");
    }
    free(eq), free(slices);
    return st;
}

/* Trace t's column openings into out->openings from *off (value, and the
 * next row where the AIR has need_rot, per column, part by part) from its
 * block sums (read); its parts' first entries into part_off[t * 64 + p]. */
static glstark_status open_trace_finish(batch_state *b, uint32_t t, const bb4_t *r, bb4_t *const *sums, size_t *off,
                                        size_t *part_off, gs_batch_proof *out, gs_error *err)
{
    const gs_zc_trace *tr = &b->traces[t];
    const uint32_t h = tr->log_height, l = h < b->l_skip ? h : b->l_skip;
    const size_t n2 = (size_t)2 << l;
    const uint32_t wmax = widest_part(tr);
    bb4_t *lw = malloc(b->N * sizeof(bb4_t));
    bb4_t *vals = malloc((wmax ? wmax : 1) * 2 * sizeof(bb4_t));
    if (!lw || !vals) {
        free(lw), free(vals);
        return oom(err);
    }
    gs_lagrange_d(b->l_skip, r[0], lw);
    for (uint32_t p = 0; p < tr->n_parts && p < GS_OPEN_SUMS_PARTS; p++) {
        const uint32_t w = tr->part_widths[p];
        part_off[(size_t)t * GS_OPEN_SUMS_PARTS + p] = *off;
        if (w == 0)
            continue;
        sums_ctx sc = {lw, sums[(size_t)t * GS_OPEN_SUMS_PARTS + p], b->l_skip, l, tr->dag->need_rot, n2, vals};
        openings_of_part(&sc, w);
        for (uint32_t c = 0; c < w; c++) {
            out->openings[(*off)++] = vals[2 * c];
            if (tr->dag->need_rot)
                out->openings[(*off)++] = vals[2 * c + 1];
        }
    }
    free(lw), free(vals);
    return GLSTARK_OK;
}

/* Every trace's openings from its block sums, read in one host sync; the
 * sums are kept in *keep when asked (the stacked reduction's round 0 needs
 * the same sums), else freed. */
static glstark_status read_openings(batch_state *b, const bb4_t *r, size_t *part_off, gs_batch_proof *out,
                                    gs_open_sums *keep, gs_error *err)
{
    const size_t n = (size_t)b->M * GS_OPEN_SUMS_PARTS;
    bb4_t **sums = keep ? keep->part : calloc(n, sizeof *sums);
    if (!sums)
        return oom(err);
    glstark_status st = GLSTARK_OK;
    for (uint32_t t = 0; !st && t < b->M; t++)
        st = open_trace_start(b, t, r, sums, err);
    if (st)
        gs_engine_read_drop(b->eng);
    else if (gs_engine_read_flush(b->eng))
        st = eng_fail(b->eng, err, "reading the openings' sums");
    size_t off = 0;
    for (uint32_t t = 0; !st && t < b->M; t++)
        st = open_trace_finish(b, t, r, sums, &off, part_off, out, err);
    if (!keep) {
        for (size_t i = 0; i < n; i++)
            free(sums[i]);
        free(sums);
    }
    return st;
}

void gs_open_sums_free(gs_open_sums *s)
{
    if (!s)
        return;
    if (s->part)
        for (size_t i = 0; i < (size_t)s->M * GS_OPEN_SUMS_PARTS; i++)
            free(s->part[i]);
    free(s->part);
    memset(s, 0, sizeof *s);
}

/* T13: the openings, observed with all common-main parts first, then the
 * other parts (a column without need_rot observes a zero rotation). */
static glstark_status batch_openings(batch_state *b, gs_fs *fs, const bb4_t *r, gs_batch_proof *out, gs_open_sums *keep,
                                     gs_error *err)
{
    const uint32_t M = b->M;
    size_t *part_off = calloc((size_t)M * GS_OPEN_SUMS_PARTS, sizeof(size_t));
    if (!part_off)
        return oom(err);
    glstark_status st = read_openings(b, r, part_off, out, keep, err);
    if (st) {
        free(part_off);
        return st;
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < M; t++) {
            const gs_zc_trace *tr = &b->traces[t];
            for (uint32_t p = pass ? 1 : 0; p < (pass ? tr->n_parts : 1); p++) {
                const bb4_t *v = &out->openings[part_off[(size_t)t * GS_OPEN_SUMS_PARTS + p]];
                for (uint32_t c = 0; c < tr->part_widths[p]; c++) {
                    if (tr->dag->need_rot) {
                        gs_fs_observe_ext(fs, v[2 * c]);
                        gs_fs_observe_ext(fs, v[2 * c + 1]);
                    } else {
                        gs_fs_observe_ext(fs, v[c]);
                        gs_fs_observe_ext(fs, bb4_zero());
                    }
                }
            }
        }
    free(part_off);
    return GLSTARK_OK;
}

glstark_status gs_batch_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t M, uint32_t l_skip,
                              uint32_t D, uint32_t n_logup, const bb4_t *xi, bb4_t beta, int check_rows,
                              gs_batch_proof *out, bb4_t *r, gs_open_sums *keep, gs_error *err)
{
    if (!eng->zerocheck || !eng->gkr || !eng->reduction)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "batch prover: engine '%s' lacks the zerocheck, gkr or reduction family",
                            eng->core->name);
    if (M == 0 || l_skip == 0 || l_skip > 8 || D == 0 || D > 16)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "batch prover: %u traces, l_skip %u, degree %u; need >= 1 trace, l_skip 1..8, degree 1..16", M,
                            l_skip, D);
    gs_batch_trace *shp = gs_zc_trace_shapes(traces, M);
    if (keep) {
        keep->M = M;
        keep->part = calloc((size_t)M * GS_OPEN_SUMS_PARTS, sizeof *keep->part);
    }
    if (!shp || (keep && !keep->part)) {
        free(shp);
        gs_open_sums_free(keep);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: out of host memory");
    }
    batch_state b = {.eng = eng, .ops = eng->zerocheck, .traces = traces, .shp = shp, .M = M, .l_skip = l_skip,
                     .D = D, .N = 1u << l_skip, .xi = xi};
    int span = gs_span_eng_begin(eng, "round0");
    glstark_status st = batch_init(&b, out, err);
    if (!st)
        st = batch_round0(&b, fs, n_logup, beta, check_rows, out, r, err);
    if (!st) {
        gs_span_eng_end(eng, span);
        span = gs_span_eng_begin(eng, "mle_rounds");
        st = batch_mle_rounds(&b, fs, out, r, err);
    }
    if (!st) {
        gs_span_eng_end(eng, span);
        /* the openings read the trace, not the folded tables: their memory
         * can serve the openings' block sums */
        for (uint32_t t = 0; t < M; t++) {
            gs_buf_destroy(b.ts[t].tables);
            b.ts[t].tables = NULL;
        }
        span = gs_span_eng_begin(eng, "column_openings");
        st = batch_openings(&b, fs, r, out, keep, err);
    }
    if (!st)
        gs_span_eng_end(eng, span);
    batch_free(&b);
    free(shp);
    if (st) {
        gs_batch_proof_free(out);
        gs_open_sums_free(keep);
    }
    return st;
}
