/* The LogUp + zerocheck stage with DAGs made by keygen (src/air, converted by
 * gs_cdag_from_vk) and traces from the built-in AIRs, on the real transcript
 * from T0: the GKR and batch-constraint proof objects must equal OpenVM's
 * proof bytes for fib-small n4, interactions-small and Keccak-f with 16
 * permutations (app params, L = 21: l_skip 4, 61 round-0 coefficients,
 * 2633 columns with rotation, the 39k-node DAG). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "airs/keccak.h"
#include "engine/cpu/cpu_engine.h"
#include "engine/zerocheck_ops.h"
#include "glstark/airs.h"
#include "common/air_cdag.h"
#include "common/fs_transcript.h"
#include "prove/logup_zerocheck.h"
#include "verify/logup_zerocheck_verify.h"
#include "common/params.h"
#include "util/stdrng.h"
#include "../util/test_files.h"
#include "proof_reader.h"

/* Preamble T0..T3 from the proof bytes; returns the reader at the GKR q0 claim.
 * by_air[a] gives each AIR's height and public values for the checks. */
/* gs_lz_verify on the shapes of the prover's traces. */
static glstark_status lz_verify(gs_fs *fs, const gs_zc_trace *traces, uint32_t M, uint32_t l_skip, uint32_t D,
                                const gs_lz_proof *pf, bb4_t *r, gs_error *err)
{
    gs_batch_trace *shapes = gs_zc_trace_shapes(traces, M);
    cr_assert_not_null(shapes);
    glstark_status st = gs_lz_verify(fs, shapes, M, l_skip, D, pf, r, err);
    free(shapes);
    return st;
}

static void preamble(gs_transcript *ts, const bb_t prehash[8], rd *r, const gs_zc_trace *by_air, uint32_t airs,
                     unsigned pow_bits)
{
    gs_error err;
    cr_assert_eq(u32at(r), 3);
    gs_transcript_observe_commit(ts, prehash);
    bb_t d[8];
    for (int i = 0; i < 8; i++)
        d[i] = bb_from_canonical(u32at(r));
    gs_transcript_observe_commit(ts, d);
    cr_assert_eq(u32at(r), airs);
    r->i += (airs + 7) / 8;
    uint32_t logh[8];
    for (uint32_t a = 0; a < airs; a++) {
        logh[a] = u32at(r);
        cr_assert_eq(logh[a], by_air[a].log_height);
        cr_assert_eq(u32at(r), 0);
    }
    cr_assert_eq(u32at(r), airs);
    for (uint32_t a = 0; a < airs; a++) {
        gs_transcript_observe_u32(ts, 1);
        gs_transcript_observe_u32(ts, logh[a]);
        uint32_t npv = u32at(r);
        cr_assert_eq(npv, by_air[a].n_publics);
        for (uint32_t k = 0; k < npv; k++) {
            uint32_t v = u32at(r);
            cr_assert_eq(v, bb_to_canonical(by_air[a].publics[k]));
            gs_transcript_observe_u32(ts, v);
        }
    }
    cr_assert_eq(gs_transcript_check_witness(ts, pow_bits, u32at(r), &err), GLSTARK_OK);
}

static void compare(rd *r, const gs_lz_proof *pf, const gs_zc_trace *traces, uint32_t M)
{
    cr_assert(bb4_eq(efat(r), pf->gkr.q0_claim), "q0_claim differs");
    uint32_t R = u32at(r);
    cr_assert_eq(R, pf->gkr.n_layers);
    for (uint32_t j = 0; j < R; j++) {
        const bb4_t want[4] = {pf->gkr.claims[j].p0, pf->gkr.claims[j].p1, pf->gkr.claims[j].q0, pf->gkr.claims[j].q1};
        for (int i = 0; i < 4; i++)
            cr_assert(bb4_eq(efat(r), want[i]), "layer %u claim %d", j, i);
    }
    for (size_t k = 0; R > 1 && k < 3 * (size_t)R * (R - 1) / 2; k++)
        cr_assert(bb4_eq(efat(r), pf->gkr.sumcheck[k]), "gkr sumcheck value %zu", k);
    const gs_batch_proof *bp = &pf->batch;
    cr_assert_eq(u32at(r), M);
    for (uint32_t t = 0; t < M; t++)
        cr_assert(bb4_eq(efat(r), bp->sum_p[t]), "numerator term %u", t);
    for (uint32_t t = 0; t < M; t++)
        cr_assert(bb4_eq(efat(r), bp->sum_q[t]), "denominator term %u", t);
    cr_assert_eq(u32at(r), bp->n_uni);
    for (uint32_t k = 0; k < bp->n_uni; k++)
        cr_assert(bb4_eq(efat(r), bp->uni[k]), "round-0 coefficient %u", k);
    cr_assert_eq(u32at(r), bp->n_rounds);
    if (bp->n_rounds) {
        cr_assert_eq(u32at(r), bp->round_len);
        for (size_t k = 0; k < (size_t)bp->n_rounds * bp->round_len; k++)
            cr_assert(bb4_eq(efat(r), bp->rounds[k]), "round value %zu", k);
    }
    size_t o = 0;
    for (uint32_t t = 0; t < M; t++) {
        cr_assert_eq(u32at(r), traces[t].n_parts);
        for (uint32_t p = 0; p < traces[t].n_parts; p++) {
            gs_batch_trace shape = gs_zc_trace_shape(&traces[t]);
            size_t len = gs_batch_part_openings(&shape, p);
            cr_assert_eq(u32at(r), len);
            for (size_t i = 0; i < len; i++, o++)
                cr_assert(bb4_eq(efat(r), bp->openings[o]), "opening %zu of trace %u", o, t);
        }
    }
    cr_log_info("GKR and batch proof equal OpenVM's bytes up to offset %zu", r->i);
}

static gs_buf *upload_canonical(gs_engine *eng, const uint32_t *v, size_t n)
{
    gs_buf *b;
    cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &b), GLSTARK_OK);
    for (size_t i = 0; i < n; i++)
        ((bb_t *)b->host)[i] = bb_from_canonical(v[i]);
    return b;
}

/* Proves with the sorted traces, compares with the proof, verifies. */
static void prove_compare_verify(gs_engine *eng, const bb_t prehash[8], const char *proof, const gs_zc_trace *by_air,
                                 uint32_t airs, const gs_zc_trace *sorted, uint32_t l_skip, unsigned pow_bits)
{
    size_t n;
    uint8_t *b = tf_read("", proof, &n);
    rd r = {b, n, 0};
    gs_transcript ts, tv;
    gs_transcript_init(&ts);
    preamble(&ts, prehash, &r, by_air, airs, pow_bits);
    tv = ts;
    gs_fs fs = gs_fs_wrap_transcript(&ts), fv = gs_fs_wrap_transcript(&tv);
    gs_lz_proof pf;
    gs_error err;
    bb4_t rp[64], rv[64];
    cr_assert_eq(gs_lz_prove(eng, &fs, sorted, airs, l_skip, 3, 1, &pf, rp, NULL, &err), GLSTARK_OK, "%s", err.msg);
    compare(&r, &pf, sorted, airs);
    cr_assert_eq(lz_verify(&fv, sorted, airs, l_skip, 3, &pf, rv, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(memcmp(ts.st, tv.st, sizeof ts.st), 0);
    gs_lz_proof_free(&pf);
    free(b);
}

Test(cl_keygen, fib_small_n4)
{
    gs_error err;
    gs_system_params params;
    gs_default_test_params_small(&params);
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&params, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_cdag_owned dag;
    cr_assert_eq(gs_cdag_from_vk(&pk.vk.per_air[0], &dag, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    uint32_t trace[32], pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, 16, trace, pv), GLSTARK_OK);
    gs_buf *m = upload_canonical(eng, trace, 32);
    const gs_buf *parts[1] = {m};
    uint32_t w[1] = {2};
    bb_t pubs[3] = {bb_from_canonical(pv[0]), bb_from_canonical(pv[1]), bb_from_canonical(pv[2])};
    gs_zc_trace tr = {&dag.dag, 4, 1, parts, w, pubs, 3, NULL};
    prove_compare_verify(eng, pk.vk.pre_hash, "openvm/fib-small_n4.proof.bin", &tr, 1, &tr, 2, 2);
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
    gs_cdag_owned_free(&dag);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(air);
}

Test(cl_keygen, interactions_small)
{
    gs_error err;
    gs_system_params params;
    gs_default_test_params_small(&params);
    glstark_air *airs[2];
    cr_assert_eq(glstark_interactions_fixture_airs(airs), GLSTARK_OK);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&params, airs, 2, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_cdag_owned d0, d1;
    cr_assert_eq(gs_cdag_from_vk(&pk.vk.per_air[0], &d0, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_cdag_from_vk(&pk.vk.per_air[1], &d1, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    uint32_t snd[8], rcv[16];
    glstark_interactions_fixture_traces(snd, rcv);
    gs_buf *m0 = upload_canonical(eng, snd, 8), *m1 = upload_canonical(eng, rcv, 16);
    const gs_buf *p0[1] = {m0}, *p1[1] = {m1};
    uint32_t w[1] = {2};
    gs_zc_trace by_air[2] = {{&d0.dag, 2, 1, p0, w, NULL, 0, NULL}, {&d1.dag, 3, 1, p1, w, NULL, 0, NULL}};
    gs_zc_trace sorted[2] = {by_air[1], by_air[0]};
    prove_compare_verify(eng, pk.vk.pre_hash, "openvm/interactions-small.proof.bin", by_air, 2, sorted, 2, 2);
    gs_buf_destroy(m0);
    gs_buf_destroy(m1);
    gs_engine_destroy(eng);
    gs_cdag_owned_free(&d0);
    gs_cdag_owned_free(&d1);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

Test(cl_keygen, keccak_app21_p16, .timeout = 600)
{
    gs_error err;
    gs_system_params params;
    cr_assert_eq(gs_app_params_with_100_bits_security(21, &params, &err), GLSTARK_OK);
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&params, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_cdag_owned dag;
    cr_assert_eq(gs_cdag_from_vk(&pk.vk.per_air[0], &dag, &err), GLSTARK_OK, "%s", err.msg);
    cr_log_info("keccak DAG: %u nodes, %u constraints", dag.dag.n_nodes, dag.dag.n_constraints);
    uint64_t (*inputs)[25] = malloc(16 * sizeof(*inputs));
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 42);
    for (int p = 0; p < 16; p++)
        for (int i = 0; i < 25; i++)
            inputs[p][i] = gs_stdrng_next_u64(&rng);
    size_t h = glstark_keccak_trace_height(16);
    uint32_t logh = 0;
    while (((size_t)1 << logh) < h)
        logh++;
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(0, &eng, &err), GLSTARK_OK);
    gs_buf *m;
    cr_assert_eq(gs_buf_create(eng, (size_t)GLSTARK_KECCAK_WIDTH * h * sizeof(bb_t), &m), GLSTARK_OK);
    cr_assert_eq(gs_keccak_trace_mont((const uint64_t (*)[25])inputs, 16, (bb_t *)m->host), GLSTARK_OK);
    free(inputs);
    const gs_buf *parts[1] = {m};
    uint32_t w[1] = {GLSTARK_KECCAK_WIDTH};
    gs_zc_trace tr = {&dag.dag, logh, 1, parts, w, NULL, 0, NULL};
    /* the folded tables: the selectors, every column at its row, and at the
     * next row only the step flags, the preimage and A (the transition
     * constraints in src/airs/keccak.c), each a contiguous range */
    uint32_t *layout, nf;
    cr_assert_eq(gs_zc_folded_layout(&tr, &layout, &nf, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(nf, 3 + GS_KC_WIDTH + 24 + 100 + 100, "folded columns: %u", nf);
    uint32_t next = 0;
    for (uint32_t i = 0; i < nf; i++) {
        if (layout[i] < 3 || !((layout[i] - 3) & 1))
            continue;
        uint32_t c = (layout[i] - 3) / 2;
        cr_assert(c < GS_KC_EXPORT || (c >= GS_KC_PREIMAGE && c < GS_KC_A + 100), "column %u read at the next row", c);
        next++;
    }
    cr_assert_eq(next, 224);
    free(layout);
    prove_compare_verify(eng, pk.vk.pre_hash, "openvm/keccak-app21_p16.proof.bin", &tr, 1, &tr, 4, 18);
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
    gs_cdag_owned_free(&dag);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(air);
}
