/* The whole prover against OpenVM: for each shared proof, glstark's proof
 * bytes (same AIR, trace, params) equal OpenVM's .proof.bin byte for byte,
 * and the C verifier accepts the proof object. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "glstark/airs.h"
#include "protocol/params.h"
#include "protocol/prover.h"
#include "protocol/verifier.h"
#include "openvm_cases.h"

static void prove_and_compare(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                              const glstark_air_trace *traces, const char *file)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    gs_proof pf;
    gs_prove_timings tm;
    cr_assert_eq(gs_prove(eng, &pk, traces, nairs, NULL, &pf, &tm, &err), GLSTARK_OK, "%s", err.msg);
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
    cr_log_info("%s: prove %.3f s (pow %.3f, lz %.3f, sred %.3f, whir %.3f)", file, tm.total, tm.logup_pow,
                tm.logup_zerocheck, tm.stacked_reduction, tm.whir);
    oc_expect_bytes(file, b, n);
    free(b);
    cr_assert_eq(gs_verify(&pk.vk, &pf, &err), GLSTARK_OK, "%s: own proof not accepted: %s", file, err.msg);
    gs_proof_free(&pf);
    gs_engine_destroy(eng);
    gs_multi_pk_free(&pk);
}

Test(prover, fib_small_n1) { oc_fib_small(1, "fib-small_n1.proof.bin", prove_and_compare); }
Test(prover, fib_small_n2) { oc_fib_small(2, "fib-small_n2.proof.bin", prove_and_compare); }
Test(prover, fib_small_n3) { oc_fib_small(3, "fib-small_n3.proof.bin", prove_and_compare); }
Test(prover, fib_small_n4) { oc_fib_small(4, "fib-small_n4.proof.bin", prove_and_compare); }
Test(prover, fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_and_compare); }
Test(prover, interactions_small) { oc_interactions_small(prove_and_compare); }
Test(prover, fib_app18_n10, .timeout = 120) { oc_fib_app18_n10(prove_and_compare); }
Test(prover, keccak_app21_p16, .timeout = 300) { oc_keccak_app21_p16(prove_and_compare); }

/* Per-phase fallback: an engine missing some families proves with a second
 * engine for those phases, says so, and the bytes do not change. */
static void prove_with_fallback(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                                const glstark_air_trace *t, const char *file)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *main_eng, *cpu;
    cr_assert_eq(gs_cpu_engine_create(1, &main_eng, &err), GLSTARK_OK);
    cr_assert_eq(gs_cpu_engine_create(1, &cpu, &err), GLSTARK_OK);
    main_eng->gkr = NULL;
    main_eng->whir = NULL;
    gs_proof pf;
    gs_prove_timings tm;
    /* without a fallback: UNSUPPORTED naming the family */
    cr_assert_eq(gs_prove(main_eng, &pk, t, nairs, NULL, &pf, &tm, &err), GLSTARK_ERR_UNSUPPORTED);
    cr_assert(strstr(err.msg, "gkr") != NULL, "%s", err.msg);
    gs_prove_options opt = {.fallback = cpu};
    cr_assert_eq(gs_prove(main_eng, &pk, t, nairs, &opt, &pf, &tm, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(tm.fallback_phases, GS_PHASE_LOGUP_ZEROCHECK | GS_PHASE_WHIR);
    cr_log_info("%s", tm.fallback_note);
    cr_assert(strstr(tm.fallback_note, "WHIR") && strstr(tm.fallback_note, "gkr"), "%s", tm.fallback_note);
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK);
    oc_expect_bytes(file, b, n);
    free(b);
    gs_proof_free(&pf);
    gs_engine_destroy(main_eng);
    gs_engine_destroy(cpu);
    gs_multi_pk_free(&pk);
}

Test(prover, fallback_per_phase) { oc_interactions_small(prove_with_fallback); }

/* A trace that violates a constraint is refused before proving, naming the
 * AIR, the constraint and the row; bad shapes give a status and a message. */
Test(prover, refuses_bad_traces)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    uint32_t tr[32], pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, 16, tr, pv), GLSTARK_OK);
    gs_system_params sp;
    gs_default_test_params_small(&sp);
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&sp, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK);
    gs_proof pf;
    tr[16 + 5] += 1; /* right column, row 5 */
    glstark_air_trace t = {16, {tr, 2}, NULL, pv, 3};
    cr_assert_eq(gs_prove(eng, &pk, &t, 1, NULL, &pf, NULL, &err), GLSTARK_ERR_UNSATISFIED);
    cr_log_info("%s", err.msg);
    cr_assert(strstr(err.msg, "row") != NULL, "%s", err.msg);
    tr[16 + 5] -= 1;
    glstark_air_trace bad_h = {12, {tr, 2}, NULL, pv, 3};
    cr_assert_eq(gs_prove(eng, &pk, &bad_h, 1, NULL, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_trace bad_w = {16, {tr, 3}, NULL, pv, 3};
    cr_assert_eq(gs_prove(eng, &pk, &bad_w, 1, NULL, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_trace absent = {0, {NULL, 2}, NULL, NULL, 0};
    cr_assert_eq(gs_prove(eng, &pk, &absent, 1, NULL, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_prove(eng, &pk, &t, 2, NULL, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_engine_destroy(eng);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(air);
}
