/* The recorded OpenVM proofs both whole-prover tests reproduce
 * (tests/protocol/test_prover.c on the CPU engine,
 * tests/gles_protocol/test_prover_gles.c on GLES): each case builds the
 * AIRs, traces and parameters of one .proof.bin and hands them to the test's
 * own prove-and-compare function; oc_expect_bytes compares with OpenVM's
 * file. Header-only (each test is its own executable); static inline so a
 * test need not use every case. */
#ifndef GS_TESTS_OPENVM_CASES_H
#define GS_TESTS_OPENVM_CASES_H

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glstark/airs.h"
#include "common/params.h"
#include "prove/prover.h"
#include "verify/verifier.h"
#include "util/stdrng.h"
#include "../util/test_files.h"

typedef void (*oc_prove_fn)(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                            const glstark_air_trace *traces, const char *file);

/* tests/data/openvm/<name>, whole. */
static inline uint8_t *oc_read(const char *name, size_t *n) { return tf_read("openvm", name, n); }

/* got[0..n) must equal OpenVM's file byte for byte. */
static inline void oc_expect_bytes(const char *file, const uint8_t *got, size_t n)
{
    size_t m;
    uint8_t *want = oc_read(file, &m);
    size_t i = 0;
    while (i < n && i < m && got[i] == want[i])
        i++;
    cr_assert(i == n && n == m, "%s: %zu bytes vs OpenVM's %zu, first difference at byte %zu", file, n, m, i);
    cr_log_info("%s: %zu bytes identical to OpenVM's", file, n);
    free(want);
}

/* Proves on eng with opt (may be NULL), checks the verifier accepts, and
 * returns the encoded proof (the caller frees it) in *n bytes. */
static inline uint8_t *oc_prove_encoded(gs_engine *eng, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                        size_t ntraces, const gs_prove_options *opt, gs_prove_timings *tm, size_t *n)
{
    gs_error err;
    gs_proof pf;
    uint8_t *b;
    cr_assert_eq(gs_prove(eng, pk, traces, ntraces, opt, &pf, tm, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_proof_encode(&pf, &b, n, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_verify(&pk->vk, &pf, &err), GLSTARK_OK, "own proof not accepted: %s", err.msg);
    gs_proof_free(&pf);
    return b;
}

/* Fibonacci with 2^log_n rows from (0, 1). */
static inline void oc_fib(unsigned log_n, const gs_system_params *sp, const char *file, oc_prove_fn prove)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    size_t h = (size_t)1 << log_n;
    uint32_t *tr = malloc(2 * h * sizeof(uint32_t)), pv[3];
    cr_assert_not_null(tr);
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};
    prove(&air, 1, sp, &t, file);
    free(tr);
    glstark_air_destroy(air);
}

static inline void oc_fib_small(unsigned log_n, const char *file, oc_prove_fn prove)
{
    gs_system_params sp;
    gs_default_test_params_small(&sp);
    oc_fib(log_n, &sp, file, prove);
}

static inline void oc_fib_app18_n10(oc_prove_fn prove)
{
    gs_system_params sp;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(18, &sp, &err), GLSTARK_OK, "%s", err.msg);
    oc_fib(10, &sp, "fib-app18_n10.proof.bin", prove);
}

/* The sender/receiver pair with a lookup: its AIRs, its traces (AIR 0: 4
 * rows in s, AIR 1: 8 rows in r, two columns each) and the small params. */
static inline void oc_interactions_fixture(glstark_air *airs[2], uint32_t s[8], uint32_t r[16],
                                           glstark_air_trace t[2], gs_system_params *sp)
{
    cr_assert_eq(glstark_interactions_fixture_airs(airs), GLSTARK_OK);
    glstark_interactions_fixture_traces(s, r);
    t[0] = (glstark_air_trace){4, {s, 2}, NULL, NULL, 0};
    t[1] = (glstark_air_trace){8, {r, 2}, NULL, NULL, 0};
    gs_default_test_params_small(sp);
}

/* The sender/receiver pair with a lookup (interactions-small). */
static inline void oc_interactions_small(oc_prove_fn prove)
{
    glstark_air *airs[2];
    uint32_t s[8], r[16];
    glstark_air_trace t[2];
    gs_system_params sp;
    oc_interactions_fixture(airs, s, r, t, &sp);
    prove(airs, 2, &sp, t, "interactions-small.proof.bin");
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

/* The interactions pair (oc_interactions_fixture) and its proving key. */
static inline void oc_interactions_keyed(glstark_air *airs[2], uint32_t s[8], uint32_t r[16], glstark_air_trace t[2],
                                         gs_multi_pk *pk)
{
    gs_system_params sp;
    gs_error err;
    oc_interactions_fixture(airs, s, r, t, &sp);
    cr_assert_eq(gs_keygen(&sp, airs, 2, NULL, pk, &err), GLSTARK_OK, "%s", err.msg);
}

/* A whole trace (a values array, not streamed) holding a value that is not
 * below p is refused on `eng` naming the AIR, the value, its column and its
 * row, with the constraint check off (the upload's own check finds it); a
 * value of p - 1 there proves. The interactions pair: AIR 1 has 8 rows. */
static inline void oc_refuses_trace_value_not_below_p(gs_engine *eng)
{
    glstark_air *airs[2];
    uint32_t s[8], r[16];
    glstark_air_trace t[2];
    gs_multi_pk pk;
    oc_interactions_keyed(airs, s, r, t, &pk);
    gs_error err;
    const gs_prove_options opt = {.skip_constraint_check = 1};
    const uint32_t bad[] = {BB_P, 0xFFFFFFFFu};
    for (size_t k = 0; k < 2; k++) {
        const uint32_t keep = r[1 * 8 + 5];
        r[1 * 8 + 5] = bad[k]; /* column 1, row 5 */
        gs_proof pf;
        cr_assert_eq(gs_prove(eng, &pk, t, 2, &opt, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT, "%s", err.msg);
        char want[96];
        snprintf(want, sizeof want, "AIR 1 trace value %u (column 1, row 5) is not below p", bad[k]);
        cr_assert(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
        r[1 * 8 + 5] = keep;
    }
    gs_proof pf;
    cr_assert_eq(gs_prove(eng, &pk, t, 2, &opt, &pf, NULL, &err), GLSTARK_OK, "%s", err.msg);
    gs_proof_free(&pf);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

/* P Keccak-f inputs from StdRng seed 42 (25 next_u64 per permutation). */
static inline void oc_keccak_inputs(uint64_t (*in)[25], size_t P)
{
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 42);
    for (size_t p = 0; p < P; p++)
        for (int i = 0; i < 25; i++)
            in[p][i] = gs_stdrng_next_u64(&rng);
}

/* The Keccak AIR and the trace of P permutations (the caller frees *tr and
 * destroys *air). */
static inline void oc_keccak_trace(const uint64_t (*in)[25], size_t P, glstark_air **air, uint32_t **tr,
                                   glstark_air_trace *t)
{
    cr_assert_eq(glstark_keccak_air(air), GLSTARK_OK);
    size_t h = glstark_keccak_trace_height(P);
    *tr = malloc((size_t)GLSTARK_KECCAK_WIDTH * h * sizeof(uint32_t));
    cr_assert_not_null(*tr);
    cr_assert_eq(glstark_keccak_trace(in, P, *tr), GLSTARK_OK);
    *t = (glstark_air_trace){h, {*tr, GLSTARK_KECCAK_WIDTH}, NULL, NULL, 0};
}

/* keccakf, 16 permutations, seed 42 (StdRng, 25 next_u64 per permutation;
 * checked against OpenVM's recorded inputs), app params L = 21. */
static inline void oc_keccak_app21_p16(oc_prove_fn prove)
{
    enum { P = 16 };
    uint64_t in[P][25];
    oc_keccak_inputs(in, P);
    char path[1024];
    snprintf(path, sizeof path, "%s/keccak_inputs_seed42_n16.txt", GLSTARK_TEST_DATA);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < 25; i++) {
            unsigned long long v;
            cr_assert_eq(fscanf(f, "%llu", &v), 1);
            cr_assert_eq(v, in[p][i], "input %d lane %d", p, i);
        }
    fclose(f);
    glstark_air *air;
    uint32_t *tr;
    glstark_air_trace t;
    oc_keccak_trace((const uint64_t(*)[25])in, P, &air, &tr, &t);
    gs_system_params sp;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(21, &sp, &err), GLSTARK_OK, "%s", err.msg);
    prove(&air, 1, &sp, &t, "keccak-app21_p16.proof.bin");
    free(tr);
    glstark_air_destroy(air);
}

/* keccakf, 2 permutations (seed 42), app params with L = 12: 64 rows of
 * 2633 columns stack into 42 columns, wide enough for the streamed commit
 * (16 state words + a group of 8 < 42). Not an OpenVM recording: tests prove
 * it two ways and compare. The caller frees *tr and destroys *air. */
static inline void oc_keccak_wide(glstark_air **air, uint32_t **tr, glstark_air_trace *t, gs_system_params *sp)
{
    enum { P = 2 };
    uint64_t in[P][25];
    oc_keccak_inputs(in, P);
    oc_keccak_trace((const uint64_t(*)[25])in, P, air, tr, t);
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(12, sp, &err), GLSTARK_OK, "%s", err.msg);
}

/* The wide Keccak case proved by engine a with options oa and by engine b
 * with ob (tm_b: the second proof's timings, or NULL): both verify and are
 * the same bytes. */
static inline void oc_keccak_wide_same_bytes(gs_engine *a, const gs_prove_options *oa, gs_engine *b,
                                             const gs_prove_options *ob, gs_prove_timings *tm_b, const char *what)
{
    glstark_air *air;
    uint32_t *tr;
    glstark_air_trace t;
    gs_system_params sp;
    oc_keccak_wide(&air, &tr, &t, &sp);
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&sp, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    size_t n[2];
    uint8_t *pa = oc_prove_encoded(a, &pk, &t, 1, oa, NULL, &n[0]);
    uint8_t *pb = oc_prove_encoded(b, &pk, &t, 1, ob, tm_b, &n[1]);
    cr_assert(n[0] == n[1] && memcmp(pa, pb, n[0]) == 0, "%s: the proof differs", what);
    free(pa);
    free(pb);
    gs_multi_pk_free(&pk);
    free(tr);
    glstark_air_destroy(air);
}

#endif
