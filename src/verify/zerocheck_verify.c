/* Batch constraint sumcheck verifier (docs/protocol.md,
 * 'Batch constraint sumcheck with univariate skip';
 * OpenVM verifier/batch_constraints.rs). */
#include "common/poly.h"
#include "verify/zerocheck_verify.h"

#include <stdlib.h>
#include <string.h>

/* Selectors at the point (docs/protocol.md, 'Batch constraint sumcheck with univariate skip'). */
static void selectors_at(uint32_t l_skip, uint32_t h, const bb4_t *r, bb4_t sel[3])
{
    if (h >= l_skip) {
        uint32_t n = h - l_skip;
        bb_t om = bb_two_adic_generator(l_skip);
        bb4_t first = gs_eq_uni_at_one(l_skip, r[0]);
        bb4_t last = gs_eq_uni_at_one(l_skip, bb4_mul_base(r[0], om));
        for (uint32_t k = 1; k <= n; k++) {
            first = bb4_mul(first, bb4_sub(bb4_one(), r[k]));
            last = bb4_mul(last, r[k]);
        }
        sel[0] = first;
        sel[1] = last;
    } else {
        bb4_t rho = bb4_pow(r[0], (uint64_t)1 << (l_skip - h));
        sel[0] = gs_eq_uni_at_one(h, rho);
        sel[1] = gs_eq_uni_at_one(h, bb4_mul_base(rho, bb_two_adic_generator(h)));
    }
    sel[2] = bb4_sub(bb4_one(), sel[1]);
}

/* T13: every trace's common-main openings first, then the remaining parts
 * (a zero stands in for the rotated value of an AIR without rotation). */
static glstark_status observe_openings(gs_fs *fs, const gs_batch_trace *traces, uint32_t M, const gs_batch_proof *pf,
                                       gs_error *err)
{
    size_t *toff = calloc(M + 1, sizeof(size_t));
    if (!toff)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch verifier: allocation failed");
    size_t off = 0;
    for (uint32_t t = 0; t < M; t++) {
        toff[t] = off;
        for (uint32_t p = 0; p < traces[t].n_parts; p++)
            off += gs_batch_part_openings(&traces[t], p);
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < M; t++) {
            const gs_batch_trace *tr = &traces[t];
            size_t o = toff[t];
            for (uint32_t p = 0; p < tr->n_parts; p++) {
                size_t n = gs_batch_part_openings(tr, p);
                if ((pass == 0) == (p == 0))
                    for (size_t i = 0; i < n; i++) {
                        gs_fs_observe_ext(fs, pf->openings[o + i]);
                        if (!tr->dag->need_rot)
                            gs_fs_observe_ext(fs, bb4_zero());
                    }
                o += n;
            }
        }
    free(toff);
    return GLSTARK_OK;
}

/* eq(xi, r) over each trace's variables, for the zerocheck (eq_ns) and the
 * LogUp terms (eqs_ns, eq_sharp in the skipped variable), indexed by ñ and
 * lifted by the r coordinates a shorter trace does not use. */
static void eq_weights(uint32_t l_skip, uint32_t n_max, const bb4_t *xi, const bb4_t *r, bb4_t *eq_ns,
                       bb4_t *eqs_ns)
{
    eq_ns[0] = gs_eq_uni(l_skip, xi[0], r[0]);
    eqs_ns[0] = gs_eq_sharp(l_skip, xi, r[0]);
    for (uint32_t i = 1; i <= n_max; i++) {
        bb4_t e = gs_eq1(xi[l_skip + i - 1], r[i]);
        eq_ns[i] = bb4_mul(eq_ns[i - 1], e);
        eqs_ns[i] = bb4_mul(eqs_ns[i - 1], e);
    }
    bb4_t tailp = bb4_one();
    for (uint32_t i = n_max; i-- > 0;) {
        tailp = bb4_mul(tailp, r[i + 1]);
        eq_ns[i] = bb4_mul(eq_ns[i], tailp);
        eqs_ns[i] = bb4_mul(eqs_ns[i], tailp);
    }
}

/* One trace at the point r from its column openings (from `openings`):
 * its constraints folded by lambda's powers (term[0]), and its LogUp
 * numerator and denominator weighted by eq3b (term[1], term[2]). */
static glstark_status trace_terms(const gs_batch_trace *tr, uint32_t l_skip, const bb4_t *r, const bb4_t *openings,
                                  const bb4_t *lpow, bb4_t beta, const bb4_t *eq3b, bb4_t *nodes, bb4_t term[3],
                                  gs_error *err)
{
    const gs_cdag *d = tr->dag;
    /* openings as [local, next] pairs per part (next = 0 without rotation) */
    size_t npairs = 0;
    for (uint32_t p = 0; p < tr->n_parts; p++)
        npairs += tr->part_widths[p];
    bb4_t *zero_rot = calloc(2 * npairs + 1, sizeof(bb4_t));
    const bb4_t *cols[64];
    if (!zero_rot || tr->n_parts > 64) {
        free(zero_rot);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch verifier: allocation failed");
    }
    size_t pi = 0, off = 0;
    for (uint32_t p = 0; p < tr->n_parts; p++) {
        cols[p] = zero_rot + 2 * pi;
        for (uint32_t c = 0; c < tr->part_widths[p]; c++) {
            if (d->need_rot) {
                zero_rot[2 * (pi + c)] = openings[off + 2 * c];
                zero_rot[2 * (pi + c) + 1] = openings[off + 2 * c + 1];
            } else {
                zero_rot[2 * (pi + c)] = openings[off + c];
            }
        }
        off += gs_batch_part_openings(tr, p);
        pi += tr->part_widths[p];
    }
    gs_cdag_env_ext env;
    env.cols = cols;
    selectors_at(l_skip, tr->log_height, r, env.sel);
    env.publics = tr->publics;
    gs_cdag_eval_ext(d, &env, nodes);
    free(zero_rot);
    bb4_t expr = bb4_zero(), num = bb4_zero(), den = bb4_zero();
    for (uint32_t i = 0; i < d->n_constraints; i++)
        expr = bb4_add(expr, bb4_mul(lpow[i], nodes[d->constraint_idx[i]]));
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        const gs_cinteraction *it = &d->interactions[k];
        num = bb4_add(num, bb4_mul(eq3b[k], nodes[it->count]));
        bb4_t h = bb4_zero(), bp = bb4_one();
        for (uint32_t j = 0; j < it->message_len; j++) {
            h = bb4_add(h, bb4_mul(bp, nodes[it->message[j]]));
            bp = bb4_mul(bp, beta);
        }
        h = bb4_add(h, bb4_mul_base(bp, bb_from_u32((uint32_t)it->bus_index + 1)));
        den = bb4_add(den, bb4_mul(eq3b[k], h));
    }
    if (tr->log_height < l_skip)
        num = bb4_mul_base(num, bb_inv(bb_from_u32(1u << (l_skip - tr->log_height))));
    term[0] = expr;
    term[1] = num;
    term[2] = den;
    return GLSTARK_OK;
}

/* The final check's right-hand side: every trace's LogUp numerator and
 * denominator (weights mu^0, mu^1, ...) and constraints (weights from
 * mu^(2M)), evaluated at the openings, into *total. */
static glstark_status final_sum(const gs_batch_trace *traces, uint32_t M, uint32_t l_skip, uint32_t n_logup,
                                uint32_t n_max, const bb4_t *xi, const bb4_t *r, bb4_t lambda, bb4_t mu, bb4_t beta,
                                const gs_batch_proof *pf, bb4_t *total, gs_error *err)
{
    size_t total_inter = gs_batch_total_interactions(traces, M);
    uint32_t max_cons = 0, max_nodes = 0;
    for (uint32_t t = 0; t < M; t++) {
        if (traces[t].dag->n_constraints > max_cons)
            max_cons = traces[t].dag->n_constraints;
        if (traces[t].dag->n_nodes > max_nodes)
            max_nodes = traces[t].dag->n_nodes;
    }
    glstark_status st = GLSTARK_OK;
    bb4_t *eq3b = calloc(total_inter + 1, sizeof(bb4_t));
    bb4_t *nodes = calloc(max_nodes + 1, sizeof(bb4_t));
    bb4_t *eq_ns = calloc(n_max + 1, sizeof(bb4_t)), *eqs_ns = calloc(n_max + 1, sizeof(bb4_t));
    bb4_t *lpow = calloc(max_cons + 1, sizeof(bb4_t));
    if (!eq3b || !nodes || !eq_ns || !eqs_ns || !lpow) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch verifier: allocation failed");
        goto done;
    }
    gs_batch_eq3b(traces, M, l_skip, n_logup, xi, eq3b);
    eq_weights(l_skip, n_max, xi, r, eq_ns, eqs_ns);
    lpow[0] = bb4_one();
    for (uint32_t i = 1; i < max_cons; i++)
        lpow[i] = bb4_mul(lpow[i - 1], lambda);
    bb4_t mupw = bb4_one(), muzc = bb4_pow(mu, 2 * (uint64_t)M);
    size_t off = 0, ei = 0;
    *total = bb4_zero();
    for (uint32_t t = 0; t < M; t++) {
        const gs_batch_trace *tr = &traces[t];
        bb4_t term[3];
        if ((st = trace_terms(tr, l_skip, r, pf->openings + off, lpow, beta, eq3b + ei, nodes, term, err)))
            goto done;
        for (uint32_t p = 0; p < tr->n_parts; p++)
            off += gs_batch_part_openings(tr, p);
        ei += tr->dag->n_interactions;
        uint32_t nt = gs_batch_ntilde(tr, l_skip);
        *total = bb4_add(*total, bb4_mul(mupw, bb4_mul(term[1], eqs_ns[nt])));
        mupw = bb4_mul(mupw, mu);
        *total = bb4_add(*total, bb4_mul(mupw, bb4_mul(term[2], eqs_ns[nt])));
        mupw = bb4_mul(mupw, mu);
        *total = bb4_add(*total, bb4_mul(muzc, bb4_mul(term[0], eq_ns[nt])));
        muzc = bb4_mul(muzc, mu);
    }
done:
    free(eq3b), free(nodes), free(eq_ns), free(eqs_ns), free(lpow);
    return st;
}

glstark_status gs_batch_verify(gs_fs *fs, const gs_batch_trace *traces, uint32_t M, uint32_t l_skip, uint32_t D,
                               uint32_t n_logup, const bb4_t *xi, bb4_t alpha, bb4_t beta, bb4_t p_claim, bb4_t q_claim,
                               const gs_batch_proof *pf, bb4_t *r, gs_error *err)
{
    if (M == 0 || l_skip == 0 || l_skip > 8 || D == 0 || D > 16)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "batch verifier: bad parameters (%u traces, l_skip %u, degree %u)",
                            M, l_skip, D);
    gs_batch_shape shape;
    gs_batch_shape_of(traces, M, l_skip, D, &shape);
    if (pf->n_traces != M || pf->n_uni != shape.n_uni || pf->n_rounds != shape.n_max || pf->round_len != shape.round_len ||
        pf->n_openings != shape.n_openings)
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "batch verifier: proof shape (%u traces, %u coefficients, %u rounds of %u, %zu openings) differs "
                            "from the expected (%u, %u, %u of %u, %zu)",
                            pf->n_traces, pf->n_uni, pf->n_rounds, pf->round_len, pf->n_openings, M, shape.n_uni, shape.n_max,
                            shape.round_len, shape.n_openings);
    const uint32_t N = 1u << l_skip, n_max = shape.n_max;
    bb4_t *ev = calloc(D + 2, sizeof(bb4_t));
    if (!ev)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch verifier: allocation failed");
    glstark_status st = GLSTARK_OK;
    /* T7, T8 */
    bb4_t lambda = gs_fs_sample_ext(fs);
    bb4_t sum_p = bb4_zero(), sum_q = bb4_zero();
    for (uint32_t t = 0; t < M; t++) {
        gs_fs_observe_ext(fs, pf->sum_p[t]);
        gs_fs_observe_ext(fs, pf->sum_q[t]);
        sum_p = bb4_add(sum_p, pf->sum_p[t]);
        sum_q = bb4_add(sum_q, pf->sum_q[t]);
    }
    if (!bb4_eq(p_claim, sum_p) || !bb4_eq(q_claim, bb4_add(alpha, sum_q))) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                          "batch verifier: the per-AIR LogUp terms do not add up to the GKR claims p̂(xi), q̂(xi) - alpha");
        goto done;
    }
    /* T9, T10, T11 */
    bb4_t mu = gs_fs_sample_ext(fs);
    bb4_t claim = bb4_zero(), pw = bb4_one();
    for (uint32_t t = 0; t < M; t++) {
        claim = bb4_add(claim, bb4_mul(pw, pf->sum_p[t]));
        pw = bb4_mul(pw, mu);
        claim = bb4_add(claim, bb4_mul(pw, pf->sum_q[t]));
        pw = bb4_mul(pw, mu);
    }
    bb4_t dsum = bb4_zero();
    for (uint32_t k = 0; k < pf->n_uni; k += N)
        dsum = bb4_add(dsum, pf->uni[k]);
    dsum = bb4_mul_base(dsum, bb_from_u32(N));
    for (uint32_t k = 0; k < pf->n_uni; k++)
        gs_fs_observe_ext(fs, pf->uni[k]);
    if (!bb4_eq(dsum, claim)) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED, "batch verifier: round-0 polynomial's sum over D differs from the claim");
        goto done;
    }
    r[0] = gs_fs_sample_ext(fs);
    bb4_t cur = gs_horner(pf->uni, pf->n_uni, r[0]);
    /* T12 */
    for (uint32_t j = 1; j <= n_max; j++) {
        const bb4_t *s = &pf->rounds[(size_t)(j - 1) * (D + 1)];
        for (uint32_t X = 0; X <= D; X++) {
            gs_fs_observe_ext(fs, s[X]);
            ev[X + 1] = s[X];
        }
        ev[0] = bb4_sub(cur, s[0]);
        r[j] = gs_fs_sample_ext(fs);
        cur = gs_interp_0n(ev, D + 1, r[j]);
    }
    /* T13, then the final check */
    bb4_t total;
    if ((st = observe_openings(fs, traces, M, pf, err)) ||
        (st = final_sum(traces, M, l_skip, n_logup, n_max, xi, r, lambda, mu, beta, pf, &total, err)))
        goto done;
    if (!bb4_eq(total, cur))
        st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                          "batch verifier: the final sumcheck claim differs from the constraints and LogUp terms evaluated "
                          "at the column openings");
done:
    free(ev);
    return st;
}
