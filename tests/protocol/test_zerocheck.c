/* Batch constraint sumcheck (univariate skip) against OpenVM's proofs
 * fib-small n4 / n10 (constraints with rotation, no interactions) and
 * interactions-small (LogUp only, two traces of different heights). With
 * OpenVM's challenges replayed from its transcript log, the prover must
 * observe exactly OpenVM's LogUp terms, round-0 coefficients, multilinear
 * round values and column openings, in OpenVM's order; the verifier must
 * accept OpenVM's sub-proof (read from the log) and reject tampered ones. */
#include <criterion/criterion.h>

#include "cl_fixtures.h"
#include "engine/cpu/cpu_engine.h"
#include "common/gkr.h"
#include "verify/gkr_verify.h"
#include "prove/gkr.h"
#include "common/zerocheck.h"
#include "verify/zerocheck_verify.h"
#include "prove/zerocheck.h"
#include "replay_fs.h"
#include "../util/splitmix.h"

#define MAXT 2

typedef struct spec {
    gs_engine *eng;
    uint32_t M, l_skip, D, n_logup, R;
    gs_cdag dags[MAXT];
    gs_buf *mats[MAXT];
    const gs_buf *parts[MAXT][1];
    uint32_t widths[1];
    bb_t publics[MAXT][3];
    gs_zc_trace traces[MAXT];
    gs_batch_trace shapes[MAXT]; /* the verifier's view of traces (shapes_of) */
    uint64_t slots[MAXT];
} spec;

/* The traces' shapes, as the verifier takes them. */
static const gs_batch_trace *shapes_of(spec *s)
{
    for (uint32_t t = 0; t < s->M; t++)
        s->shapes[t] = gs_zc_trace_shape(&s->traces[t]);
    return s->shapes;
}

static gs_buf *upload(gs_engine *eng, const uint32_t *cols, size_t n)
{
    gs_buf *b = NULL;
    cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &b), GLSTARK_OK);
    bb_t *h = b->host;
    for (size_t i = 0; i < n; i++)
        h[i] = bb_from_canonical(cols[i]);
    return b;
}

/* Fibonacci with a = 0, b = 1 and 2^log_n rows: the AIR's own definition. */
static void fib_spec_l(spec *s, uint32_t log_n, uint32_t l_skip)
{
    gs_error err;
    memset(s, 0, sizeof(*s));
    /* three threads: uneven slices of the round-0 and multilinear loops */
    cr_assert_eq(gs_cpu_engine_create(3, &s->eng, &err), GLSTARK_OK);
    s->M = 1, s->l_skip = l_skip, s->D = 3, s->n_logup = 0, s->R = 0;
    size_t n = (size_t)1 << log_n;
    uint32_t *cols = malloc(2 * n * sizeof(uint32_t));
    uint64_t a = 0, b = 1;
    for (size_t i = 0; i < n; i++) {
        cols[i] = (uint32_t)a;
        cols[n + i] = (uint32_t)b;
        uint64_t c = (a + b) % BB_P;
        a = b;
        b = c;
    }
    s->dags[0] = fib_dag();
    s->mats[0] = upload(s->eng, cols, 2 * n);
    s->publics[0][0] = bb_from_canonical(0);
    s->publics[0][1] = bb_from_canonical(1);
    s->publics[0][2] = bb_from_canonical(cols[2 * n - 1]);
    free(cols);
    s->widths[0] = 2;
    s->parts[0][0] = s->mats[0];
    gs_zc_trace tr = {&s->dags[0], log_n, 1, s->parts[0], s->widths, s->publics[0], 3, NULL};
    s->traces[0] = tr;
}

static void fib_spec(spec *s, uint32_t log_n) { fib_spec_l(s, log_n, 2); }

/* interactions-small, sorted: trace 0 = air 1 (height 8), trace 1 = air 0 (height 4). */
static void ix_spec(spec *s)
{
    gs_error err;
    memset(s, 0, sizeof(*s));
    cr_assert_eq(gs_cpu_engine_create(1, &s->eng, &err), GLSTARK_OK);
    s->M = 2, s->l_skip = 2, s->D = 3, s->n_logup = 2, s->R = 4;
    s->dags[0] = ix_dag(1);
    s->dags[1] = ix_dag(0);
    s->mats[0] = upload(s->eng, &ix1_cols[0][0], 16);
    s->mats[1] = upload(s->eng, &ix0_cols[0][0], 8);
    s->widths[0] = 2;
    for (uint32_t t = 0; t < 2; t++) {
        s->parts[t][0] = s->mats[t];
        gs_zc_trace tr = {&s->dags[t], t == 0 ? 3u : 2u, 1, s->parts[t], s->widths, NULL, 0, NULL};
        s->traces[t] = tr;
    }
    s->slots[0] = 0;
    s->slots[1] = 8;
}

static void spec_fini(spec *s)
{
    for (uint32_t t = 0; t < s->M; t++)
        gs_buf_destroy(s->mats[t]);
    gs_engine_destroy(s->eng);
}

/* Runs the LogUp stage (GKR when there are interactions, else the xi padding
 * samples) on the replay, leaving it at batch.lambda; returns xi. */
static void logup_stage(spec *s, replay *r, bb4_t *xi, int prover, bb4_t *pc, bb4_t *qc)
{
    gs_error err;
    bb4_t alpha = replay_ext(r, "gkr.alpha_logup"), beta = replay_ext(r, "gkr.beta_logup");
    gs_fs fs = replay_fs(r);
    r->pos = (size_t)replay_find(r, "gkr.beta_logup") + 4;
    *pc = bb4_zero();
    *qc = alpha;
    uint32_t len = 0;
    if (s->R) {
        size_t n = (size_t)1 << s->R;
        if (prover) {
            gs_buf *p, *q;
            cr_assert_eq(gs_buf_create(s->eng, n * sizeof(bb4_t), &p), GLSTARK_OK);
            cr_assert_eq(gs_buf_create(s->eng, n * sizeof(bb4_t), &q), GLSTARK_OK);
            cr_assert_eq(s->eng->gkr->input_layer(s->eng, s->traces, s->M, s->slots, s->l_skip, alpha, beta, n, p, q),
                         GLSTARK_OK);
            gs_gkr_proof pf;
            cr_assert_eq(gs_gkr_prove(s->eng, &fs, p, q, s->R, &pf, xi, &err), GLSTARK_OK, "%s", err.msg);
            gs_gkr_proof_free(&pf);
            gs_buf_destroy(p);
            gs_buf_destroy(q);
        } else {
            /* verifier side: the GKR values are read back by the GKR test; here only xi matters */
            gs_gkr_proof pf;
            cr_assert_eq(gs_gkr_proof_alloc(&pf, s->R, &err), GLSTARK_OK);
            pf.q0_claim = replay_ext(r, "gkr.q0_claim");
            char nm[160];
            for (uint32_t j = 0; j < s->R; j++) {
                const char *f[4] = {"p_xi_0", "p_xi_1", "q_xi_0", "q_xi_1"};
                for (int i = 0; i < 4; i++) {
                    snprintf(nm, sizeof nm, "gkr.layer[%u].%s", j, f[i]);
                    ((bb4_t *)&pf.claims[j])[i] = replay_ext(r, nm);
                }
                for (uint32_t k = 0; k < j; k++)
                    for (int x = 1; x <= 3; x++) {
                        snprintf(nm, sizeof nm, "gkr.layer[%u].sumcheck[%u].s(%d)", j, k, x);
                        pf.sumcheck[3 * ((size_t)j * (j - 1) / 2 + k) + (size_t)(x - 1)] = replay_ext(r, nm);
                    }
            }
            cr_assert_eq(gs_gkr_verify(&fs, &pf, s->R, xi, pc, qc, &err), GLSTARK_OK, "%s", err.msg);
            gs_gkr_proof_free(&pf);
        }
        len = s->R;
    }
    uint32_t n_global = gs_batch_n_max(shapes_of(s), s->M, s->l_skip);
    if (s->n_logup > n_global)
        n_global = s->n_logup;
    while (len < s->l_skip + n_global)
        xi[len++] = gs_fs_sample_ext(&fs);
    cr_assert(r->first_bad < 0, "%s", r->bad_what);
    cr_assert_eq(r->pos, (size_t)replay_find(r, "batch.lambda"));
}

static void run_prover(spec *s, const char *log)
{
    /* with and without the row check, in plain C and in every vector set
     * the CPU runs (AVX2, AVX-512 or NEON: round 0's transforms and
     * interpreter, the folds, the multilinear rounds' interpreter):
     * identical messages */
    for (int run = 0; run < 2 * (GS_SIMD_LAST + 1); run++) {
        int check = run < GS_SIMD_LAST + 1;
        gs_simd_isa isa = (gs_simd_isa)(run % (GS_SIMD_LAST + 1));
        if (!gs_simd_available(isa))
            continue;
        ((gs_cpu_state *)s->eng->impl)->kernels = gs_cpu_kernels_of(isa);
        replay r;
        cr_assert_eq(replay_load(&r, log), 0);
        bb4_t xi[32], pc, qc, rr[32];
        logup_stage(s, &r, xi, 1, &pc, &qc);
        gs_fs fs = replay_fs(&r);
        gs_batch_proof pf;
        gs_error err;
        glstark_status st = gs_batch_prove(s->eng, &fs, s->traces, s->M, s->l_skip, s->D, s->n_logup, xi,
                                           replay_ext(&r, "gkr.beta_logup"), check, &pf, rr, NULL, &err);
        cr_assert_eq(st, GLSTARK_OK, "%s", err.msg);
        cr_assert(r.first_bad < 0, "batch transcript (check %d, %s) differs from OpenVM at %s", check, gs_simd_name(isa),
                  r.bad_what);
        cr_assert_eq(r.pos, (size_t)replay_find(&r, "stacking.lambda"), "batch stage ended at op %zu", r.pos);
        cr_assert(bb4_eq(rr[0], replay_ext(&r, "batch.r[0] (univariate round)")));
        cr_assert_eq(pf.n_uni, (s->D + 1) * ((1u << s->l_skip) - 1) + 1);
        gs_batch_proof_free(&pf);
        replay_free(&r);
    }
}

Test(zerocheck, prover_matches_openvm_fib_n4) { spec s; fib_spec(&s, 4); run_prover(&s, "fib-small_n4.transcript.txt"); spec_fini(&s); }
Test(zerocheck, prover_matches_openvm_fib_n10) { spec s; fib_spec(&s, 10); run_prover(&s, "fib-small_n10.transcript.txt"); spec_fini(&s); }
/* production parameters: l_skip 4, so round 0 has 61 coefficients */
Test(zerocheck, prover_matches_openvm_fib_app18_n10) { spec s; fib_spec_l(&s, 10, 4); run_prover(&s, "fib-app18_n10.transcript.txt"); spec_fini(&s); }
Test(zerocheck, prover_matches_openvm_interactions_small) { spec s; ix_spec(&s); run_prover(&s, "interactions-small.transcript.txt"); spec_fini(&s); }

/* OpenVM's batch sub-proof, read from the log in its transcript order. */
static void proof_from_log(const spec *s, const replay *r, gs_batch_proof *pf)
{
    gs_batch_shape sh;
    gs_error err;
    gs_batch_trace shapes[MAXT];
    for (uint32_t t = 0; t < s->M; t++)
        shapes[t] = gs_zc_trace_shape(&s->traces[t]);
    gs_batch_shape_of(shapes, s->M, s->l_skip, s->D, &sh);
    cr_assert_eq(gs_batch_proof_alloc(pf, s->M, &sh, &err), GLSTARK_OK);
    size_t i = (size_t)replay_find(r, "batch.mu") - 8 * s->M;
    for (uint32_t t = 0; t < s->M; t++) {
        pf->sum_p[t] = replay_ext_at(r, i), i += 4;
        pf->sum_q[t] = replay_ext_at(r, i), i += 4;
    }
    i += 4; /* mu */
    for (uint32_t k = 0; k < sh.n_uni; k++, i += 4)
        pf->uni[k] = replay_ext_at(r, i);
    i += 4; /* r_0 */
    for (uint32_t j = 0; j < sh.n_max; j++) {
        for (uint32_t x = 0; x <= s->D; x++, i += 4)
            pf->rounds[(size_t)j * (s->D + 1) + x] = replay_ext_at(r, i);
        i += 4; /* r_j */
    }
    size_t o = 0;
    for (uint32_t t = 0; t < s->M; t++)
        for (uint32_t c = 0; c < s->widths[0]; c++) {
            pf->openings[o++] = replay_ext_at(r, i), i += 4;
            if (s->dags[t].need_rot)
                pf->openings[o++] = replay_ext_at(r, i);
            i += 4;
        }
    cr_assert_eq(i, (size_t)replay_find(r, "stacking.lambda"));
}

static void run_verifier(spec *s, const char *log)
{
    replay r;
    cr_assert_eq(replay_load(&r, log), 0);
    bb4_t xi[32], pc, qc, rr[32];
    logup_stage(s, &r, xi, 0, &pc, &qc);
    size_t start = r.pos;
    bb4_t alpha = replay_ext(&r, "gkr.alpha_logup"), beta = replay_ext(&r, "gkr.beta_logup");
    gs_batch_proof pf;
    proof_from_log(s, &r, &pf);
    gs_fs fs = replay_fs(&r);
    gs_error err;
    glstark_status st = gs_batch_verify(&fs, shapes_of(s), s->M, s->l_skip, s->D, s->n_logup, xi, alpha, beta, pc, qc, &pf,
                                        rr, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s", err.msg);
    cr_assert(r.first_bad < 0, "%s", r.bad_what);
    cr_assert_eq(r.pos, (size_t)replay_find(&r, "stacking.lambda"));
    /* every EF value perturbed in one coefficient is rejected */
    size_t n_vals = 2 * (size_t)s->M + pf.n_uni + (size_t)pf.n_rounds * pf.round_len + pf.n_openings;
    for (size_t v = 0; v < n_vals; v++) {
        bb4_t *tgt;
        size_t u = v;
        bb4_t saved;
        if (u < s->M)
            tgt = &pf.sum_p[u];
        else if ((u -= s->M) < s->M)
            tgt = &pf.sum_q[u];
        else if ((u -= s->M) < pf.n_uni)
            tgt = &pf.uni[u];
        else if ((u -= pf.n_uni) < (size_t)pf.n_rounds * pf.round_len)
            tgt = &pf.rounds[u];
        else
            tgt = &pf.openings[u - (size_t)pf.n_rounds * pf.round_len];
        saved = *tgt;
        tgt->c[1] = bb_add(tgt->c[1], bb_one());
        r.pos = start;
        r.first_bad = -1;
        fs = replay_fs(&r);
        st = gs_batch_verify(&fs, shapes_of(s), s->M, s->l_skip, s->D, s->n_logup, xi, alpha, beta, pc, qc, &pf, rr, &err);
        cr_assert_eq(st, GLSTARK_ERR_REJECTED, "tampered value %zu accepted", v);
        *tgt = saved;
    }
    /* wrong public value */
    if (s->traces[0].n_publics) {
        bb_t saved = s->publics[0][2];
        s->publics[0][2] = bb_add(saved, bb_one());
        r.pos = start;
        fs = replay_fs(&r);
        st = gs_batch_verify(&fs, shapes_of(s), s->M, s->l_skip, s->D, s->n_logup, xi, alpha, beta, pc, qc, &pf, rr, &err);
        cr_assert_eq(st, GLSTARK_ERR_REJECTED, "wrong public value accepted");
        s->publics[0][2] = saved;
    }
    /* wrong shape */
    pf.n_rounds++;
    cr_assert_eq(gs_batch_verify(&fs, shapes_of(s), s->M, s->l_skip, s->D, s->n_logup, xi, alpha, beta, pc, qc, &pf, rr, &err),
                 GLSTARK_ERR_REJECTED);
    pf.n_rounds--;
    gs_batch_proof_free(&pf);
    replay_free(&r);
}

Test(zerocheck, verifier_openvm_fib_n4) { spec s; fib_spec(&s, 4); run_verifier(&s, "fib-small_n4.transcript.txt"); spec_fini(&s); }
Test(zerocheck, verifier_openvm_fib_n10) { spec s; fib_spec(&s, 10); run_verifier(&s, "fib-small_n10.transcript.txt"); spec_fini(&s); }
Test(zerocheck, verifier_openvm_fib_app18_n10) { spec s; fib_spec_l(&s, 10, 4); run_verifier(&s, "fib-app18_n10.transcript.txt"); spec_fini(&s); }
Test(zerocheck, verifier_openvm_interactions_small) { spec s; ix_spec(&s); run_verifier(&s, "interactions-small.transcript.txt"); spec_fini(&s); }

/* A trace that violates a constraint is refused (round-0 degree too high). */
Test(zerocheck, prover_refuses_unsatisfied_trace)
{
    spec s;
    fib_spec(&s, 4);
    bb_t *h = (bb_t *)s.mats[0]->host;
    h[16 + 7] = bb_add(h[16 + 7], bb_one()); /* column 1, row 7 */
    replay r;
    cr_assert_eq(replay_load(&r, "fib-small_n4.transcript.txt"), 0);
    bb4_t xi[32], pc, qc, rr[32];
    logup_stage(&s, &r, xi, 1, &pc, &qc);
    gs_fs fs = replay_fs(&r);
    gs_batch_proof pf;
    gs_error err;
    glstark_status st = gs_batch_prove(s.eng, &fs, s.traces, s.M, s.l_skip, s.D, s.n_logup, xi, bb4_zero(), 1, &pf, rr, NULL, &err);
    cr_assert_eq(st, GLSTARK_ERR_UNSATISFIED, "status %d: %s", st, err.msg);
    cr_assert(strlen(err.msg) > 0);
    replay_free(&r);
    spec_fini(&s);
}

/* Unbalanced LogUp interactions are refused by the GKR prover. */
Test(zerocheck, gkr_refuses_unbalanced_interactions)
{
    spec s;
    ix_spec(&s);
    bb_t *h = (bb_t *)s.mats[1]->host;
    h[1] = bb_add(h[1], bb_one()); /* air 0 count column, row 1 */
    gs_buf *p, *q;
    cr_assert_eq(gs_buf_create(s.eng, 16 * sizeof(bb4_t), &p), GLSTARK_OK);
    cr_assert_eq(gs_buf_create(s.eng, 16 * sizeof(bb4_t), &q), GLSTARK_OK);
    bb4_t alpha = bb4_from_base(bb_from_u32(1234567)), beta = bb4_from_base(bb_from_u32(7654321));
    cr_assert_eq(s.eng->gkr->input_layer(s.eng, s.traces, 2, s.slots, 2, alpha, beta, 16, p, q), GLSTARK_OK);
    replay r;
    cr_assert_eq(replay_load(&r, "interactions-small.transcript.txt"), 0);
    gs_fs fs = replay_fs(&r);
    gs_gkr_proof pf;
    bb4_t xi[4];
    gs_error err;
    cr_assert_eq(gs_gkr_prove(s.eng, &fs, p, q, 4, &pf, xi, &err), GLSTARK_ERR_UNSATISFIED);
    /* slots past the leaf count are an argument error, not a crash */
    uint64_t bad[2] = {0, 13};
    cr_assert_eq(s.eng->gkr->input_layer(s.eng, s.traces, 2, bad, 2, alpha, beta, 16, p, q), GLSTARK_ERR_INVALID_ARGUMENT);
    /* bad parameters */
    cr_assert_eq(gs_gkr_prove(s.eng, &fs, p, q, 0, &pf, xi, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_batch_proof bp;
    cr_assert_eq(gs_batch_prove(s.eng, &fs, s.traces, 0, 2, 3, 2, xi, beta, 1, &bp, xi, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_batch_prove(s.eng, &fs, s.traces, 2, 2, 0, 2, xi, beta, 1, &bp, xi, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(p);
    gs_buf_destroy(q);
    replay_free(&r);
    spec_fini(&s);
}

/* The DAG checker rejects malformed node arrays. */
Test(zerocheck, dag_check_rejects_malformed)
{
    gs_cdag d = fib_dag();
    uint32_t w[1] = {2};
    cr_assert_eq(gs_cdag_check(&d, w, 1, 3), 0);
    cr_assert_neq(gs_cdag_check(&d, w, 1, 2), 0); /* public 2 out of range */
    uint32_t w1[1] = {1};
    cr_assert_neq(gs_cdag_check(&d, w1, 1, 3), 0); /* column 1 out of range */
    gs_cnode bad[2] = {{GS_CN_ADD, 0, 0, 0, 1, 0}, {GS_CN_CONST, 0, 0, 0, 0, 0}};
    gs_cdag db = {bad, 2, NULL, 0, NULL, 0, 1, 0, 0, 0};
    cr_assert_neq(gs_cdag_check(&db, w, 1, 0), 0); /* forward reference */
}

/* ---- self-consistency where OpenVM has no transcript log: lifted traces
 * (height < 2^l_skip), several traces of different heights with tails,
 * lifted interactions. Challenges come from a fixed-seed splitmix stream
 * that ignores observations, so prover and verifier see the same ones. */

typedef struct toy_fs {
    uint64_t state;
} toy_fs;

static void toy_observe(void *ctx, bb_t v)
{
    (void)ctx;
    (void)v;
}

static bb_t toy_sample(void *ctx)
{
    toy_fs *t = ctx;
    return bb_from_u64(splitmix64(&t->state));
}

static void fib_cols(uint32_t log_n, uint32_t *cols)
{
    size_t n = (size_t)1 << log_n;
    uint64_t a = 0, b = 1;
    for (size_t i = 0; i < n; i++) {
        cols[i] = (uint32_t)a;
        cols[n + i] = (uint32_t)b;
        uint64_t c = (a + b) % BB_P;
        a = b;
        b = c;
    }
}

/* Proves and verifies traces (sorted) with the toy transcript; returns the verifier's status. */
static glstark_status toy_roundtrip(gs_engine *eng, const gs_zc_trace *traces, uint32_t M, uint32_t l_skip, uint64_t seed,
                                    int tamper)
{
    gs_error err;
    size_t total = 0;
    for (uint32_t t = 0; t < M; t++) {
        uint32_t nt = traces[t].log_height > l_skip ? traces[t].log_height - l_skip : 0;
        total += (size_t)traces[t].dag->n_interactions << (l_skip + nt);
    }
    uint32_t n_logup = gs_gkr_n_logup(total, l_skip), R = total ? l_skip + n_logup : 0;
    gs_batch_trace shapes[8];
    cr_assert_leq(M, 8);
    for (uint32_t t = 0; t < M; t++)
        shapes[t] = gs_zc_trace_shape(&traces[t]);
    uint32_t n_max = gs_batch_n_max(shapes, M, l_skip), n_global = n_max > n_logup ? n_max : n_logup;
    uint64_t slots[8];
    uint64_t cur = 0;
    size_t si = 0;
    for (uint32_t t = 0; t < M; t++) {
        uint32_t nt = traces[t].log_height > l_skip ? traces[t].log_height - l_skip : 0;
        for (uint32_t k = 0; k < traces[t].dag->n_interactions; k++, cur += (uint64_t)1 << (l_skip + nt))
            slots[si++] = cur;
    }
    /* prover */
    toy_fs ts = {seed};
    gs_fs fs = {&ts, toy_observe, toy_sample, NULL};
    bb4_t alpha = gs_fs_sample_ext(&fs), beta = gs_fs_sample_ext(&fs);
    bb4_t xi[40], xv[40], rr[40], rv[40];
    gs_gkr_proof gp;
    memset(&gp, 0, sizeof gp);
    uint32_t len = 0;
    if (R) {
        size_t n = (size_t)1 << R;
        gs_buf *p, *q;
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb4_t), &p), GLSTARK_OK);
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb4_t), &q), GLSTARK_OK);
        cr_assert_eq(eng->gkr->input_layer(eng, traces, M, slots, l_skip, alpha, beta, n, p, q), GLSTARK_OK);
        cr_assert_eq(gs_gkr_prove(eng, &fs, p, q, R, &gp, xi, &err), GLSTARK_OK, "%s", err.msg);
        gs_buf_destroy(p);
        gs_buf_destroy(q);
        len = R;
    }
    while (len < l_skip + n_global)
        xi[len++] = gs_fs_sample_ext(&fs);
    gs_batch_proof bp;
    cr_assert_eq(gs_batch_prove(eng, &fs, traces, M, l_skip, 3, n_logup, xi, beta, 1, &bp, rr, NULL, &err), GLSTARK_OK, "%s",
                 err.msg);
    /* a local-row opening every AIR here uses (a 1-row trace's next-row
     * openings are multiplied by is_transition = 0, so they are not checked) */
    if (tamper)
        bp.openings[bp.n_openings - 4].c[0] = bb_add(bp.openings[bp.n_openings - 4].c[0], bb_one());
    /* verifier */
    toy_fs tv = {seed};
    gs_fs fv = {&tv, toy_observe, toy_sample, NULL};
    bb4_t va = gs_fs_sample_ext(&fv), vb = gs_fs_sample_ext(&fv);
    bb4_t pc = bb4_zero(), qc = va;
    len = 0;
    if (R) {
        cr_assert_eq(gs_gkr_verify(&fv, &gp, R, xv, &pc, &qc, &err), GLSTARK_OK, "%s", err.msg);
        len = R;
    }
    while (len < l_skip + n_global)
        xv[len++] = gs_fs_sample_ext(&fv);
    glstark_status st = gs_batch_verify(&fv, shapes, M, l_skip, 3, n_logup, xv, va, vb, pc, qc, &bp, rv, &err);
    if (st == GLSTARK_OK)
        cr_assert_eq(memcmp(rr, rv, (n_max + 1) * sizeof(bb4_t)), 0);
    else
        cr_log_info("verifier: %s", err.msg);
    gs_batch_proof_free(&bp);
    gs_gkr_proof_free(&gp);
    return st;
}

Test(zerocheck, selfcheck_lifted_and_mixed_fibonacci)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    gs_cdag dag = fib_dag();
    uint32_t widths[1] = {2};
    /* heights 2^6, 2^3, 2^1, 2^0 with l_skip 2: two full traces, two lifted */
    uint32_t logs[4] = {6, 3, 1, 0};
    gs_buf *mats[4];
    const gs_buf *parts[4][1];
    bb_t pubs[4][3];
    gs_zc_trace tr[4];
    for (int i = 0; i < 4; i++) {
        size_t n = (size_t)1 << logs[i];
        uint32_t *cols = malloc(2 * n * sizeof(uint32_t));
        fib_cols(logs[i], cols);
        mats[i] = upload(eng, cols, 2 * n);
        pubs[i][0] = 0;
        pubs[i][1] = bb_one();
        pubs[i][2] = bb_from_canonical(cols[2 * n - 1]);
        free(cols);
        parts[i][0] = mats[i];
        gs_zc_trace t = {&dag, logs[i], 1, parts[i], widths, pubs[i], 3, NULL};
        tr[i] = t;
    }
    for (uint32_t m = 1; m <= 4; m++) {
        uint64_t seed = 1000 + m;
        cr_log_info("fibonacci traces 0..%u, seed %llu", m - 1, (unsigned long long)seed);
        cr_assert_eq(toy_roundtrip(eng, tr, m, 2, seed, 0), GLSTARK_OK, "honest proof of %u traces rejected", m);
        cr_assert_eq(toy_roundtrip(eng, tr, m, 2, seed, 1), GLSTARK_ERR_REJECTED);
    }
    /* a lifted trace alone */
    cr_assert_eq(toy_roundtrip(eng, &tr[2], 1, 2, 77, 0), GLSTARK_OK);
    cr_assert_eq(toy_roundtrip(eng, &tr[3], 1, 2, 78, 0), GLSTARK_OK);
    for (int i = 0; i < 4; i++)
        gs_buf_destroy(mats[i]);
    gs_engine_destroy(eng);
}

Test(zerocheck, selfcheck_lifted_interactions)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    gs_cdag send = ix_dag(0), recv = ix_dag(1);
    uint32_t widths[1] = {2};
    /* sender, height 8: (count, message) = (1,5), (2,7), zeros;
     * receiver, height 2 (lifted, l_skip 2): (1,5), (2,7) */
    const uint32_t a_cols[16] = {1, 2, 0, 0, 0, 0, 0, 0, 5, 7, 0, 0, 0, 0, 0, 0};
    const uint32_t b_cols[4] = {1, 2, 5, 7};
    gs_buf *ma = upload(eng, a_cols, 16), *mb = upload(eng, b_cols, 4);
    const gs_buf *pa[1] = {ma}, *pb[1] = {mb};
    gs_zc_trace tr[2] = {{&send, 3, 1, pa, widths, NULL, 0, NULL}, {&recv, 1, 1, pb, widths, NULL, 0, NULL}};
    cr_log_info("seed 4242");
    cr_assert_eq(toy_roundtrip(eng, tr, 2, 2, 4242, 0), GLSTARK_OK);
    cr_assert_eq(toy_roundtrip(eng, tr, 2, 2, 4242, 1), GLSTARK_ERR_REJECTED);
    gs_buf_destroy(ma);
    gs_buf_destroy(mb);
    gs_engine_destroy(eng);
}
