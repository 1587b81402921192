/* The whole prover on the GLES engine: commitments, the stacked reduction
 * and WHIR run on GLES (the LogUp GKR / zerocheck phase falls back to the
 * CPU engine until those families land), and the proof bytes equal OpenVM's
 * .proof.bin byte for byte; the verifier accepts. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gles/gles_test_util.h"
#include "air/keygen.h"
#include "glstark/airs.h"
#include "protocol/params.h"
#include "protocol/prover.h"
#include "protocol/verifier.h"

static uint8_t *read_data(const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/openvm/%s", GLSTARK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    cr_assert_eq(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

static void prove_on_gles(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                          const glstark_air_trace *traces, const char *file)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng = tu_engine(NULL), *cpu;
    cr_assert_eq(gs_cpu_engine_create(2, &cpu, &err), GLSTARK_OK);
    gs_proof pf;
    gs_prove_timings tm;
    gs_prove_options opt = {0, cpu};
    cr_assert_eq(gs_prove(eng, &pk, traces, nairs, &opt, &pf, &tm, &err), GLSTARK_OK, "%s", err.msg);
    cr_log_info("%s: prove %.3f s (sred %.3f, whir %.3f), fallback: %s", file, tm.total, tm.stacked_reduction,
                tm.whir, tm.fallback_phases ? tm.fallback_note : "none");
    cr_assert_eq(tm.fallback_phases & (GS_PHASE_COMMIT | GS_PHASE_STACKED_REDUCTION | GS_PHASE_WHIR), 0,
                 "commit, stacked reduction and WHIR ran on the GLES engine (%s)", tm.fallback_note);
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
    size_t m;
    uint8_t *want = read_data(file, &m);
    size_t i = 0;
    while (i < n && i < m && b[i] == want[i])
        i++;
    cr_assert(i == n && n == m, "%s: %zu bytes vs OpenVM's %zu, first difference at byte %zu", file, n, m, i);
    cr_log_info("%s: %zu bytes identical to OpenVM's", file, n);
    free(want);
    free(b);
    cr_assert_eq(gs_verify(&pk.vk, &pf, &err), GLSTARK_OK, "%s: own proof not accepted: %s", file, err.msg);
    gs_proof_free(&pf);
    gs_engine_destroy(eng);
    gs_engine_destroy(cpu);
    gs_multi_pk_free(&pk);
}

static void fib(unsigned log_n, const gs_system_params *sp, const char *file)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    size_t h = (size_t)1 << log_n;
    uint32_t *tr = malloc(2 * h * sizeof(uint32_t)), pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};
    prove_on_gles(&air, 1, sp, &t, file);
    free(tr);
    glstark_air_destroy(air);
}

static void fib_small(unsigned log_n, const char *file)
{
    gs_system_params sp;
    gs_default_test_params_small(&sp);
    fib(log_n, &sp, file);
}

#ifndef GS_GLES_SLOW_ONLY
Test(prover_gles, fib_small_n1) { fib_small(1, "fib-small_n1.proof.bin"); }
Test(prover_gles, fib_small_n4) { fib_small(4, "fib-small_n4.proof.bin"); }
Test(prover_gles, fib_small_n10) { fib_small(10, "fib-small_n10.proof.bin"); }

Test(prover_gles, interactions_small)
{
    glstark_air *airs[2];
    cr_assert_eq(glstark_interactions_fixture_airs(airs), GLSTARK_OK);
    uint32_t s[8], r[16];
    glstark_interactions_fixture_traces(s, r);
    glstark_air_trace t[2] = {{4, {s, 2}, NULL, NULL, 0}, {8, {r, 2}, NULL, NULL, 0}};
    gs_system_params sp;
    gs_default_test_params_small(&sp);
    prove_on_gles(airs, 2, &sp, t, "interactions-small.proof.bin");
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

Test(prover_gles, fib_app18_n10, .timeout = 300)
{
    gs_system_params sp;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(18, &sp, &err), GLSTARK_OK);
    fib(10, &sp, "fib-app18_n10.proof.bin");
}
#endif

#ifdef GS_GLES_SLOW_ONLY
#include "util/stdrng.h"

/* keccakf, 16 permutations, seed 42, app params L = 21 (slow on llvmpipe). */
Test(prover_gles, keccak_app21_p16, .timeout = 1800)
{
    enum { P = 16 };
    uint64_t in[P][25];
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 42);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < 25; i++)
            in[p][i] = gs_stdrng_next_u64(&rng);
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    size_t h = glstark_keccak_trace_height(P);
    uint32_t *tr = malloc((size_t)GLSTARK_KECCAK_WIDTH * h * sizeof(uint32_t));
    cr_assert_eq(glstark_keccak_trace((const uint64_t(*)[25])in, P, tr), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, GLSTARK_KECCAK_WIDTH}, NULL, NULL, 0};
    gs_system_params sp;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(21, &sp, &err), GLSTARK_OK);
    prove_on_gles(&air, 1, &sp, &t, "keccak-app21_p16.proof.bin");
    free(tr);
    glstark_air_destroy(air);
}
#endif
