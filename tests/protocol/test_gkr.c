/* LogUp GKR against OpenVM's interactions-small proof: with OpenVM's alpha,
 * beta and every later challenge replayed from its transcript log, the
 * prover must observe exactly OpenVM's q0 claim, layer claims and round
 * polynomials in OpenVM's order; the verifier must accept OpenVM's GKR
 * sub-proof (read from the same log) and reject tampered copies. */
#include <criterion/criterion.h>

#include "cl_fixtures.h"
#include "engine/cpu/cpu_engine.h"
#include "common/gkr.h"
#include "verify/gkr_verify.h"
#include "prove/gkr.h"
#include "common/poly.h"
#include "replay_fs.h"
#include "../util/splitmix.h"

typedef struct ix_setup {
    gs_engine *eng;
    gs_cdag dags[2];
    gs_buf *mats[2];
    const gs_buf *parts[2][1];
    uint32_t widths[1];
    gs_zc_trace traces[2];
} ix_setup;

static gs_buf *upload_cols(gs_engine *eng, const uint32_t *cols, size_t width, size_t height)
{
    gs_buf *b = NULL;
    cr_assert_eq(gs_buf_create(eng, width * height * sizeof(bb_t), &b), GLSTARK_OK);
    bb_t *h = b->host;
    for (size_t i = 0; i < width * height; i++)
        h[i] = bb_from_canonical(cols[i]);
    return b;
}

/* Sorted trace order: trace 0 = air 1 (height 8), trace 1 = air 0 (height 4). */
static void ix_init(ix_setup *s)
{
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &s->eng, &err), GLSTARK_OK);
    s->dags[0] = ix_dag(1);
    s->dags[1] = ix_dag(0);
    s->mats[0] = upload_cols(s->eng, &ix1_cols[0][0], 2, 8);
    s->mats[1] = upload_cols(s->eng, &ix0_cols[0][0], 2, 4);
    s->widths[0] = 2;
    for (int t = 0; t < 2; t++) {
        s->parts[t][0] = s->mats[t];
        gs_zc_trace tr = {&s->dags[t], t == 0 ? 3u : 2u, 1, s->parts[t], s->widths, NULL, 0, NULL};
        s->traces[t] = tr;
    }
}

static void ix_fini(ix_setup *s)
{
    gs_buf_destroy(s->mats[0]);
    gs_buf_destroy(s->mats[1]);
    gs_engine_destroy(s->eng);
}

static void name_layer(char *buf, size_t n, uint32_t j, const char *what)
{
    snprintf(buf, n, "gkr.layer[%u].%s", j, what);
}

/* OpenVM's GKR sub-proof, read from the log by its annotations. */
static void proof_from_log(const replay *r, uint32_t R, gs_gkr_proof *pf)
{
    gs_error err;
    cr_assert_eq(gs_gkr_proof_alloc(pf, R, &err), GLSTARK_OK);
    pf->q0_claim = replay_ext(r, "gkr.q0_claim");
    char nm[160];
    for (uint32_t j = 0; j < R; j++) {
        name_layer(nm, sizeof nm, j, "p_xi_0");
        pf->claims[j].p0 = replay_ext(r, nm);
        name_layer(nm, sizeof nm, j, "p_xi_1");
        pf->claims[j].p1 = replay_ext(r, nm);
        name_layer(nm, sizeof nm, j, "q_xi_0");
        pf->claims[j].q0 = replay_ext(r, nm);
        name_layer(nm, sizeof nm, j, "q_xi_1");
        pf->claims[j].q1 = replay_ext(r, nm);
        for (uint32_t k = 0; k < j; k++)
            for (int x = 1; x <= 3; x++) {
                snprintf(nm, sizeof nm, "gkr.layer[%u].sumcheck[%u].s(%d)", j, k, x);
                pf->sumcheck[3 * ((size_t)j * (j - 1) / 2 + k) + (size_t)(x - 1)] = replay_ext(r, nm);
            }
    }
}

Test(gkr, n_logup_matches_openvm_shape)
{
    /* interactions-small: 1*2^(2+1) + 1*2^(2+0) = 12 lifted interactions, n_logup 2 */
    cr_assert_eq(gs_gkr_n_logup(12, 2), 2);
    cr_assert_eq(gs_gkr_n_logup(0, 2), 0);
    cr_assert_eq(gs_gkr_n_logup(16, 4), 1);
    cr_assert_eq(gs_gkr_n_logup(15, 4), 0);
}

Test(gkr, prover_matches_openvm_interactions_small)
{
    replay r;
    cr_assert_eq(replay_load(&r, "interactions-small.transcript.txt"), 0);
    ix_setup s;
    ix_init(&s);
    const uint32_t l_skip = 2, R = 4;
    bb4_t alpha = replay_ext(&r, "gkr.alpha_logup"), beta = replay_ext(&r, "gkr.beta_logup");
    uint64_t slots[2] = {0, 8};
    gs_buf *p, *q;
    cr_assert_eq(gs_buf_create(s.eng, 16 * sizeof(bb4_t), &p), GLSTARK_OK);
    cr_assert_eq(gs_buf_create(s.eng, 16 * sizeof(bb4_t), &q), GLSTARK_OK);
    cr_assert_eq(s.eng->gkr->input_layer(s.eng, s.traces, 2, slots, l_skip, alpha, beta, 16, p, q), GLSTARK_OK);
    r.pos = (size_t)replay_find(&r, "gkr.q0_claim");
    gs_fs fs = replay_fs(&r);
    gs_gkr_proof pf;
    bb4_t xi[4];
    gs_error err;
    glstark_status st = gs_gkr_prove(s.eng, &fs, p, q, R, &pf, xi, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s", err.msg);
    cr_assert(r.first_bad < 0, "transcript differs from OpenVM: %s", r.bad_what);
    cr_assert_eq(r.pos, (size_t)replay_find(&r, "batch.lambda"), "GKR ended at op %zu", r.pos);
    /* xi = (last mu, last layer's sumcheck r's) */
    cr_assert(bb4_eq(xi[0], replay_ext(&r, "gkr.layer[3].mu")));
    cr_assert(bb4_eq(xi[1], replay_ext(&r, "gkr.layer[3].sumcheck[0].r")));
    cr_assert(bb4_eq(xi[3], replay_ext(&r, "gkr.layer[3].sumcheck[2].r")));
    /* the prover's messages equal OpenVM's, message by message */
    gs_gkr_proof ov;
    proof_from_log(&r, R, &ov);
    cr_assert(bb4_eq(pf.q0_claim, ov.q0_claim));
    cr_assert_eq(memcmp(pf.claims, ov.claims, R * sizeof(gs_gkr_layer_claims)), 0);
    cr_assert_eq(memcmp(pf.sumcheck, ov.sumcheck, 3 * 6 * sizeof(bb4_t)), 0);
    gs_gkr_proof_free(&pf);
    gs_gkr_proof_free(&ov);
    gs_buf_destroy(p);
    gs_buf_destroy(q);
    ix_fini(&s);
    replay_free(&r);
}

Test(gkr, verifier_accepts_openvm_and_rejects_tampering)
{
    replay r;
    cr_assert_eq(replay_load(&r, "interactions-small.transcript.txt"), 0);
    const uint32_t R = 4;
    gs_gkr_proof pf;
    proof_from_log(&r, R, &pf);
    size_t start = (size_t)replay_find(&r, "gkr.q0_claim");
    r.pos = start;
    gs_fs fs = replay_fs(&r);
    bb4_t xi[4], pc, qc;
    gs_error err;
    cr_assert_eq(gs_gkr_verify(&fs, &pf, R, xi, &pc, &qc, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(r.first_bad < 0, "%s", r.bad_what);
    cr_assert(bb4_eq(xi[2], replay_ext(&r, "gkr.layer[3].sumcheck[1].r")));
    /* GKR's leaf claims are explained by the batch sumcheck's per-AIR terms:
     * p̂(xi) = sum_p, q̂(xi) = alpha + sum_q (docs/protocol.md, 'LogUp GKR') */
    bb4_t alpha = replay_ext(&r, "gkr.alpha_logup");
    bb4_t sum_p = bb4_zero(), sum_q = bb4_zero();
    for (size_t i = 0; i < r.n_notes; i++) {
        if (strstr(r.notes[i].name, ".numerator_term"))
            sum_p = bb4_add(sum_p, replay_ext_at(&r, r.notes[i].op));
        if (strstr(r.notes[i].name, ".denominator_term"))
            sum_q = bb4_add(sum_q, replay_ext_at(&r, r.notes[i].op));
    }
    cr_assert(bb4_eq(pc, sum_p), "p̂(xi) differs from the sum of numerator terms");
    cr_assert(bb4_eq(qc, bb4_add(alpha, sum_q)), "q̂(xi) differs from alpha + sum of denominator terms");

    /* every single EF value of the sub-proof, perturbed, is rejected */
    size_t n_vals = 1 + 4 * R + 3 * 6;
    for (size_t v = 0; v < n_vals; v++) {
        for (int coef = 0; coef < 4; coef += 3) {
            gs_gkr_proof t;
            cr_assert_eq(gs_gkr_proof_alloc(&t, R, &err), GLSTARK_OK);
            t.q0_claim = pf.q0_claim;
            memcpy(t.claims, pf.claims, R * sizeof(gs_gkr_layer_claims));
            memcpy(t.sumcheck, pf.sumcheck, 18 * sizeof(bb4_t));
            bb4_t *target = v == 0 ? &t.q0_claim : v <= 4 * R ? &((bb4_t *)t.claims)[v - 1] : &t.sumcheck[v - 1 - 4 * R];
            target->c[coef] = bb_add(target->c[coef], bb_one());
            r.pos = start;
            r.first_bad = -1;
            fs = replay_fs(&r);
            glstark_status st = gs_gkr_verify(&fs, &t, R, xi, &pc, &qc, &err);
            /* a tampered last-layer claim only changes the output claims */
            int rejected = st == GLSTARK_ERR_REJECTED || !bb4_eq(pc, sum_p) || !bb4_eq(qc, bb4_add(alpha, sum_q));
            cr_assert(rejected, "tampered value %zu coefficient %d accepted", v, coef);
            gs_gkr_proof_free(&t);
        }
    }
    /* wrong layer count */
    cr_assert_eq(gs_gkr_verify(&fs, &pf, 3, xi, &pc, &qc, &err), GLSTARK_ERR_REJECTED);
    gs_gkr_proof_free(&pf);
    replay_free(&r);
}

/* ---- randomized: balanced random fractions on 2^R leaves, R = 1..9; the
 * verifier accepts and its output claims equal the leaf MLEs at xi, computed
 * directly from the definition (leaf index bit k paired with xi[k]). The
 * challenges come from a fixed-seed splitmix stream. */
typedef struct sm_fs {
    uint64_t s;
} sm_fs;

static void sm_observe(void *c, bb_t v) { (void)c, (void)v; }
static bb_t sm_sample(void *c) { return bb_from_u64(splitmix64(&((sm_fs *)c)->s)); }

static bb4_t rand_ext(uint64_t *s)
{
    bb4_t e;
    for (int i = 0; i < 4; i++)
        e.c[i] = bb_from_u64(splitmix64(s));
    return e;
}

static bb4_t mle_at(const bb4_t *v, uint32_t R, const bb4_t *xi)
{
    bb4_t *t = malloc(((size_t)1 << R) * sizeof(bb4_t));
    bb4_eq_table(xi, R, t);
    bb4_t acc = bb4_zero();
    for (size_t i = 0; i < ((size_t)1 << R); i++)
        acc = bb4_add(acc, bb4_mul(t[i], v[i]));
    free(t);
    return acc;
}

Test(gkr, randomized_balanced_fractions)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK);
    for (uint32_t R = 1; R <= 9; R++) {
        uint64_t seed = 0xC0FFEE00ull + R;
        cr_log_info("R = %u, seed %llu", R, (unsigned long long)seed);
        size_t n = (size_t)1 << R;
        bb4_t *P = malloc(n * sizeof(bb4_t)), *Q = malloc(n * sizeof(bb4_t));
        uint64_t s = seed;
        bb4_t sum = bb4_zero();
        for (size_t i = 0; i < n; i++) {
            P[i] = rand_ext(&s);
            Q[i] = rand_ext(&s);
            if (i + 1 < n)
                sum = bb4_add(sum, bb4_mul(P[i], bb4_inv(Q[i])));
        }
        P[n - 1] = bb4_neg(bb4_mul(sum, Q[n - 1])); /* fractions sum to zero */
        gs_buf *p, *q;
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb4_t), &p), GLSTARK_OK);
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb4_t), &q), GLSTARK_OK);
        memcpy(p->host, P, n * sizeof(bb4_t));
        memcpy(q->host, Q, n * sizeof(bb4_t));
        sm_fs a = {seed ^ 1}, b = {seed ^ 1};
        gs_fs fa = {&a, sm_observe, sm_sample, NULL}, fb = {&b, sm_observe, sm_sample, NULL};
        gs_gkr_proof pf;
        bb4_t xp[16], xv[16], pc, qc;
        cr_assert_eq(gs_gkr_prove(eng, &fa, p, q, R, &pf, xp, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert_eq(gs_gkr_verify(&fb, &pf, R, xv, &pc, &qc, &err), GLSTARK_OK, "R %u: %s", R, err.msg);
        cr_assert_eq(memcmp(xp, xv, R * sizeof(bb4_t)), 0);
        cr_assert(bb4_eq(pc, mle_at(P, R, xv)), "R %u: p claim is not the leaf MLE at xi", R);
        cr_assert(bb4_eq(qc, mle_at(Q, R, xv)), "R %u: q claim is not the leaf MLE at xi", R);
        gs_gkr_proof_free(&pf);
        /* an unbalanced input is refused */
        P[0] = bb4_add(P[0], bb4_one());
        memcpy(p->host, P, n * sizeof(bb4_t));
        memcpy(q->host, Q, n * sizeof(bb4_t));
        cr_assert_eq(gs_gkr_prove(eng, &fa, p, q, R, &pf, xp, &err), GLSTARK_ERR_UNSATISFIED);
        gs_gkr_proof_free(&pf);
        gs_buf_destroy(p);
        gs_buf_destroy(q);
        free(P), free(Q);
    }
    gs_engine_destroy(eng);
}
