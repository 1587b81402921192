/* Batch constraint sumcheck prover (docs/protocol.md, 'Batch constraint sumcheck with univariate skip'). */
#include "prove/zerocheck.h"
#include "engine/gkr_ops.h"
#include "common/poly.h"
#include "prove/spans.h"

#include <stdlib.h>
#include <string.h>

static glstark_status eng_fail(gs_engine *eng, gs_error *err, const char *what)
{
    return gs_error_set(err, eng->err.status ? eng->err.status : GLSTARK_ERR_INTERNAL, "batch prover: %s: %s", what,
                        eng->err.msg);
}

typedef struct trace_state {
    uint32_t nt;
    size_t ncols;
    gs_buf *tables;
    gs_zc_weights w;
    bb4_t tau; /* tail value once all of the trace's variables are bound */
} trace_state;

gs_batch_trace *gs_zc_trace_shapes(const gs_zc_trace *traces, uint32_t n)
{
    gs_batch_trace *s = malloc((n ? n : 1) * sizeof *s);
    if (s)
        for (uint32_t t = 0; t < n; t++)
            s[t] = gs_zc_trace_shape(&traces[t]);
    return s;
}

glstark_status gs_batch_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t M, uint32_t l_skip,
                              uint32_t D, uint32_t n_logup, const bb4_t *xi, bb4_t beta, int check_rows,
                              gs_batch_proof *out, bb4_t *r, gs_error *err)
{
    if (!eng->zerocheck || !eng->gkr)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED, "batch prover: engine '%s' lacks the zerocheck or gkr family",
                            eng->core->name);
    if (M == 0 || l_skip == 0 || l_skip > 8 || D == 0 || D > 16)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "batch prover: %u traces, l_skip %u, degree %u; need >= 1 trace, l_skip 1..8, degree 1..16", M,
                            l_skip, D);
    const gs_zerocheck_ops *ops = eng->zerocheck;
    gs_batch_trace *shp = gs_zc_trace_shapes(traces, M);
    if (!shp)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: out of host memory");
    int span = gs_span_eng_begin(eng, "round0");
    gs_batch_shape shape;
    gs_batch_shape_of(shp, M, l_skip, D, &shape);
    glstark_status st = gs_batch_proof_alloc(out, M, &shape, err);
    if (st) {
        free(shp);
        return st;
    }
    const uint32_t N = 1u << l_skip, n_max = shape.n_max;
    size_t total_inter = gs_batch_total_interactions(shp, M);
    uint32_t max_cons = 0;
    for (uint32_t t = 0; t < M; t++)
        if (traces[t].dag->n_constraints > max_cons)
            max_cons = traces[t].dag->n_constraints;

    /* Round 0 per trace t of degree d (univariate skip): the constraint sum
     * sp_zc = q (Z^N - 1) with q interpolated from d-1 cosets g^i D, and the
     * LogUp sums sp_p, sp_q interpolated from d cosets (i = 1..), g = 31. */
    const uint32_t max_cos = D;
    const size_t n_cpts = (size_t)max_cos * N;      /* coset points */
    const size_t n_all = N + n_cpts;                /* with D in front */
    const size_t plen = (size_t)(D + 2) * N;        /* room for every product */
    trace_state *ts = calloc(M, sizeof(*ts));
    bb4_t *lpow = calloc(max_cons + 1, sizeof(bb4_t));
    bb4_t *eq3b = calloc(total_inter + 1, sizeof(bb4_t));
    bb_t *xs = calloc(n_cpts, sizeof(bb_t));
    bb4_t *r0out = calloc(3 * n_all, sizeof(bb4_t));
    bb4_t *vals = calloc(n_cpts, sizeof(bb4_t));
    bb4_t *cf = calloc(plen, sizeof(bb4_t));
    /* per trace: eq#·sp_p, eq#·sp_q, sp_zc (coefficients) */
    bb4_t *polys = calloc(3 * plen * M, sizeof(bb4_t));
    bb4_t *s0 = calloc(2 * plen, sizeof(bb4_t));
    bb4_t *mupow = calloc(3 * (size_t)M, sizeof(bb4_t));
    bb4_t *lw4 = calloc(N, sizeof(bb4_t));
    bb4_t *rbuf = calloc(3 * (size_t)(D + 1), sizeof(bb4_t));
    gs_buf *eqb = NULL;
    if (!ts || !lpow || !eq3b || !xs || !r0out || !vals || !cf || !polys || !s0 || !mupow || !lw4 || !rbuf) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: allocation failed");
        goto done;
    }
    if (gs_buf_create(eng, ((size_t)1 << n_max) * sizeof(bb4_t), &eqb)) {
        st = eng_fail(eng, err, "allocating the eq table");
        goto done;
    }

    /* T7 */
    bb4_t lambda = gs_fs_sample_ext(fs);
    lpow[0] = bb4_one();
    for (uint32_t i = 1; i < max_cons; i++)
        lpow[i] = bb4_mul(lpow[i - 1], lambda);
    gs_batch_eq3b(shp, M, l_skip, n_logup, xi, eq3b);

    /* the coset points g^i w^k, i = 1..D, k < N, in the kernel's order */
    const bb_t omega = bb_two_adic_generator(l_skip), g = bb_from_u32(31);
    {
        bb_t gi = g;
        for (uint32_t i = 0; i < max_cos; i++) {
            bb_t z = gi;
            for (uint32_t k = 0; k < N; k++) {
                xs[(size_t)i * N + k] = z;
                z = bb_mul(z, omega);
            }
            gi = bb_mul(gi, g);
        }
    }
    /* eq#(Z) coefficients (1/N) sum_k eq_H(xi_<l, k) w^-kj, and eq_D(xi_0, Z)'s */
    bb4_t esh_c[256], ezc_c[256];
    {
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
            esh_c[j] = bb4_mul_base(acc, ninv);
            ezc_c[j] = bb4_mul_base(j == 0 ? bb4_one() : bb4_pow(xi[0], N - j), ninv);
        }
    }

    size_t ei = 0;
    for (uint32_t t = 0; t < M; t++) {
        const gs_zc_trace *tr = &traces[t];
        const gs_cdag *dg = tr->dag;
        ts[t].nt = gs_batch_ntilde(&shp[t], l_skip);
        ts[t].ncols = gs_zc_table_cols(tr);
        ts[t].w.lambda_pows = lpow;
        ts[t].w.beta = beta;
        ts[t].w.eq3b = eq3b + ei;
        ts[t].w.norm = tr->log_height < l_skip ? bb_inv(bb_from_u32(1u << (l_skip - tr->log_height))) : bb_one();
        ei += dg->n_interactions;
        uint32_t d = dg->max_degree ? dg->max_degree : 1;
        if (d > D) {
            st = gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "batch prover: trace %u has constraint degree %u above the system's maximum %u", t, d, D);
            goto done;
        }
        uint32_t cos_zc = dg->n_constraints && d >= 2 ? d - 1 : 0;
        uint32_t cos_pq = dg->n_interactions ? d : 0;
        uint32_t cos = cos_zc > cos_pq ? cos_zc : cos_pq;
        size_t n_pts = (check_rows ? N : 0) + (size_t)cos * N;
        bb4_t *o = r0out;
        if (n_pts) {
            if (eng->gkr->eq_table(eng, xi + l_skip, ts[t].nt, eqb) ||
                ops->round0(eng, tr, l_skip, cos, check_rows, eqb, &ts[t].w, r0out)) {
                st = eng_fail(eng, err, "round 0 evaluation");
                goto done;
            }
        }
        if (check_rows) {
            /* the λ- and ξ-weighted constraint sums vanish on D for a
             * satisfying trace: refuse before any prover message is observed */
            for (uint32_t k = 0; k < N; k++)
                if (!bb4_is_zero(r0out[3 * (size_t)k])) {
                    st = gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                                      "batch prover: the constraints of trace %u (sorted order) do not vanish on its rows "
                                      "(skip-domain point %u); run the constraint checker to find the row",
                                      t, k);
                    goto done;
                }
            o = r0out + 3 * (size_t)N;
        }
        bb4_t *pp = polys + 3 * plen * t, *pq = pp + plen, *pz = pq + plen;
        if (cos_zc) {
            size_t n = (size_t)cos_zc * N;
            bb_t gi = g;
            for (uint32_t i = 0; i < cos_zc; i++) {
                /* z^N - 1 is constant on a coset: g^(iN) - 1 */
                bb_t inv = bb_inv(bb_sub(bb_pow(gi, N), bb_one()));
                for (uint32_t k = 0; k < N; k++)
                    vals[(size_t)i * N + k] = bb4_mul_base(o[3 * ((size_t)i * N + k)], inv);
                gi = bb_mul(gi, g);
            }
            if (gs_interp_coeffs(xs, vals, 1, n, cf)) {
                st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: allocation failed");
                goto done;
            }
            for (size_t k = 0; k < n; k++) {
                pz[k + N] = bb4_add(pz[k + N], cf[k]);
                pz[k] = bb4_sub(pz[k], cf[k]);
            }
        }
        if (cos_pq) {
            size_t n = (size_t)cos_pq * N;
            for (int which = 1; which <= 2; which++) {
                if (gs_interp_coeffs(xs, o + which, 3, n, cf)) {
                    st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: allocation failed");
                    goto done;
                }
                bb4_t *dst = which == 1 ? pp : pq;
                for (size_t a = 0; a < N; a++)
                    for (size_t k = 0; k < n; k++)
                        dst[a + k] = bb4_add(dst[a + k], bb4_mul(esh_c[a], cf[k]));
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
    }

    /* T8 */
    for (uint32_t t = 0; t < M; t++) {
        gs_fs_observe_ext(fs, out->sum_p[t]);
        gs_fs_observe_ext(fs, out->sum_q[t]);
    }
    /* T9 */
    bb4_t mu = gs_fs_sample_ext(fs);
    {
        bb4_t pw = bb4_one();
        for (uint32_t i = 0; i < 3 * M; i++) {
            mupow[i] = pw;
            pw = bb4_mul(pw, mu);
        }
    }
    /* s_0 = sum_t mu^2t eq#·sp_p + mu^(2t+1) eq#·sp_q + eq_D(xi_0,·) sum_t mu^(2M+t) sp_zc */
    {
        bb4_t *zc = s0 + plen;
        for (uint32_t t = 0; t < M; t++) {
            const bb4_t *pp = polys + 3 * plen * t, *pq = pp + plen, *pz = pq + plen;
            for (size_t k = 0; k < plen; k++) {
                s0[k] = bb4_add(s0[k], bb4_add(bb4_mul(mupow[2 * t], pp[k]), bb4_mul(mupow[2 * t + 1], pq[k])));
                zc[k] = bb4_add(zc[k], bb4_mul(mupow[2 * M + t], pz[k]));
            }
        }
        for (size_t a = 0; a < N; a++)
            for (size_t k = 0; k + a < plen; k++)
                s0[a + k] = bb4_add(s0[a + k], bb4_mul(ezc_c[a], zc[k]));
        for (size_t k = 0; k < plen; k++) {
            if (k < shape.n_uni)
                out->uni[k] = s0[k];
            else if (!bb4_is_zero(s0[k])) {
                st = gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                                  "batch prover: the round-0 polynomial has degree >= %u (coefficient %zu nonzero); a "
                                  "constraint does not hold on the trace or an AIR exceeds its declared degree",
                                  shape.n_uni, k);
                goto done;
            }
        }
    }
    for (uint32_t k = 0; k < shape.n_uni; k++)
        gs_fs_observe_ext(fs, out->uni[k]);
    r[0] = gs_fs_sample_ext(fs);
    gs_span_eng_end(eng, span);

    /* fold Z at r_0 */
    span = gs_span_eng_begin(eng, "mle_rounds");
    gs_lagrange_d(l_skip, r[0], lw4);
    for (uint32_t t = 0; t < M; t++) {
        size_t rows = (size_t)1 << ts[t].nt;
        if (gs_buf_create(eng, ts[t].ncols * rows * sizeof(bb4_t), &ts[t].tables) ||
            ops->fold_ple(eng, &traces[t], l_skip, lw4, ts[t].tables)) {
            st = eng_fail(eng, err, "folding the skip variable");
            goto done;
        }
    }
    bb4_t eqacc = gs_eq_uni(l_skip, xi[0], r[0]), eqsh = gs_eq_sharp(l_skip, xi, r[0]);
    /* traces with no multilinear variables are finished already */
    for (uint32_t t = 0; t < M; t++) {
        if (ts[t].nt != 0)
            continue;
        bb4_t o[3];
        if (ops->mle_round(eng, &traces[t], ts[t].tables, 1, 1, NULL, 1, &ts[t].w, o)) {
            st = eng_fail(eng, err, "evaluating a finished trace");
            goto done;
        }
        ts[t].tau = bb4_add(bb4_mul(bb4_mul(mupow[2 * M + t], eqacc), o[0]),
                            bb4_mul(eqsh, bb4_add(bb4_mul(mupow[2 * t], o[1]), bb4_mul(mupow[2 * t + 1], o[2]))));
    }

    /* Rounds j >= 1 (multilinear rounds): s_j(X) = eq(ξ, X) h(X) + X tail, where h (degree
     * <= D) sums the traces still having variables and tail the finished
     * ones. h is evaluated at X = 1..D only; h(0) follows from
     * s_j(0) + s_j(1) = cur, h(D+1) by interpolation (as OpenVM does). */
    bb4_t cur = gs_horner(out->uni, shape.n_uni, r[0]);
    bb4_t *hv = calloc(D + 2, sizeof(bb4_t)), *sv = calloc(D + 2, sizeof(bb4_t));
    if (!hv || !sv) {
        free(hv), free(sv);
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: allocation failed");
        goto done;
    }
    for (uint32_t j = 1; j <= n_max; j++) {
        bb4_t *s = &out->rounds[(size_t)(j - 1) * (D + 1)];
        bb4_t xj = xi[l_skip + j - 1];
        bb4_t tail = bb4_zero();
        int any_head = 0;
        for (uint32_t X = 0; X <= D + 1; X++)
            hv[X] = bb4_zero();
        for (uint32_t t = 0; t < M; t++) {
            if (j > ts[t].nt) {
                tail = bb4_add(tail, ts[t].tau);
                continue;
            }
            any_head = 1;
            size_t m = (size_t)1 << (ts[t].nt - j + 1);
            if (eng->gkr->eq_table(eng, xi + l_skip + j, ts[t].nt - j, eqb) ||
                ops->mle_round(eng, &traces[t], ts[t].tables, (size_t)1 << ts[t].nt, m, eqb, D, &ts[t].w, rbuf)) {
                free(hv), free(sv);
                st = eng_fail(eng, err, "a multilinear round");
                goto done;
            }
            for (uint32_t X = 1; X <= D; X++) {
                const bb4_t *o = &rbuf[3 * (X - 1)];
                bb4_t v = bb4_add(bb4_mul(bb4_mul(mupow[2 * M + t], eqacc), o[0]),
                                  bb4_mul(eqsh, bb4_add(bb4_mul(mupow[2 * t], o[1]), bb4_mul(mupow[2 * t + 1], o[2]))));
                hv[X] = bb4_add(hv[X], v);
            }
        }
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
        eqacc = bb4_mul(eqacc, e1);
        eqsh = bb4_mul(eqsh, e1);
        for (uint32_t t = 0; t < M; t++) {
            if (j > ts[t].nt) {
                ts[t].tau = bb4_mul(ts[t].tau, r[j]);
                continue;
            }
            size_t m = (size_t)1 << (ts[t].nt - j + 1);
            if (ops->fold(eng, ts[t].tables, ts[t].ncols, (size_t)1 << ts[t].nt, m, r[j])) {
                free(hv), free(sv);
                st = eng_fail(eng, err, "folding");
                goto done;
            }
            if (j == ts[t].nt) {
                bb4_t o[3];
                if (ops->mle_round(eng, &traces[t], ts[t].tables, (size_t)1 << ts[t].nt, 1, NULL, 1, &ts[t].w, o)) {
                    free(hv), free(sv);
                    st = eng_fail(eng, err, "evaluating a finished trace");
                    goto done;
                }
                ts[t].tau = bb4_add(bb4_mul(bb4_mul(mupow[2 * M + t], eqacc), o[0]),
                                    bb4_mul(eqsh, bb4_add(bb4_mul(mupow[2 * t], o[1]), bb4_mul(mupow[2 * t + 1], o[2]))));
            }
        }
    }
    free(hv), free(sv);
    gs_span_eng_end(eng, span);

    /* T13: openings; all common-main parts first, then the other parts */
    span = gs_span_eng_begin(eng, "column_openings");
    {
        size_t off = 0;
        size_t *part_off = calloc((size_t)M * 64, sizeof(size_t));
        if (!part_off) {
            st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch prover: allocation failed");
            goto done;
        }
        for (uint32_t t = 0; t < M; t++) {
            const gs_zc_trace *tr = &traces[t];
            size_t stride = (size_t)1 << ts[t].nt;
            /* the folded values (entry 0 of table columns 3, 4, ...: value and
             * rotation per trace column) gathered on the engine and read back
             * at once: one host sync per trace, not two per column */
            size_t nv = 0;
            for (uint32_t p = 0; p < tr->n_parts && p < 64; p++)
                nv += 2 * (size_t)tr->part_widths[p];
            bb4_t *hvals = malloc((nv ? nv : 1) * sizeof(bb4_t));
            gs_buf *gather = NULL;
            glstark_status rs = hvals ? GLSTARK_OK : GLSTARK_ERR_OUT_OF_MEMORY;
            if (!rs && nv && stride == 1) {
                rs = gs_buf_read(ts[t].tables, 3 * sizeof(bb4_t), hvals, nv * sizeof(bb4_t));
            } else if (!rs && nv) {
                rs = gs_buf_create(eng, nv * sizeof(bb4_t), &gather);
                if (!rs)
                    rs = gs_buf_gather(gather, 0, ts[t].tables, 3 * stride * 4, 4, stride * 4, nv);
                if (!rs)
                    rs = gs_buf_read(gather, 0, hvals, nv * sizeof(bb4_t));
                gs_buf_destroy(gather);
            }
            if (rs) {
                st = !hvals ? gs_error_set(err, rs, "batch prover: allocation failed")
                            : eng_fail(eng, err, "reading openings");
                free(hvals);
                free(part_off);
                goto done;
            }
            size_t k = 0;
            for (uint32_t p = 0; p < tr->n_parts && p < 64; p++) {
                part_off[(size_t)t * 64 + p] = off;
                for (uint32_t c = 0; c < tr->part_widths[p]; c++, k += 2) {
                    out->openings[off++] = hvals[k];
                    if (tr->dag->need_rot)
                        out->openings[off++] = hvals[k + 1];
                }
            }
            free(hvals);
        }
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t t = 0; t < M; t++) {
                const gs_zc_trace *tr = &traces[t];
                for (uint32_t p = pass ? 1 : 0; p < (pass ? tr->n_parts : 1); p++) {
                    const bb4_t *v = &out->openings[part_off[(size_t)t * 64 + p]];
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
    }
    gs_span_eng_end(eng, span);
    st = GLSTARK_OK;
done:
    if (ts)
        for (uint32_t t = 0; t < M; t++)
            gs_buf_destroy(ts[t].tables);
    gs_buf_destroy(eqb);
    free(ts), free(lpow), free(eq3b), free(xs), free(r0out), free(vals), free(cf), free(polys), free(s0);
    free(mupow), free(lw4), free(rbuf), free(shp);
    if (st)
        gs_batch_proof_free(out);
    return st;
}
