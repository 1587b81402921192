/* The whole prover against OpenVM: for each shared proof, glstark's proof
 * bytes (same AIR, trace, params) equal OpenVM's .proof.bin byte for byte,
 * and the C verifier accepts the proof object. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "glstark/airs.h"
#include "common/params.h"
#include "prove/prover.h"
#include "verify/verifier.h"
#include "openvm_cases.h"

/* Proves on the CPU engine with opt (NULL: defaults): OpenVM's bytes, and
 * the verifier accepts. */
static void prove_cpu_with(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                           const glstark_air_trace *traces, const char *file, const gs_prove_options *opt)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    gs_prove_timings tm;
    size_t n;
    uint8_t *b = oc_prove_encoded(eng, &pk, traces, nairs, opt, &tm, &n);
    cr_log_info("%s: prove %.3f s (pow %.3f, lz %.3f, sred %.3f, whir %.3f)", file, tm.total, tm.logup_pow,
                tm.logup_zerocheck, tm.stacked_reduction, tm.whir);
    oc_expect_bytes(file, b, n);
    free(b);
    gs_engine_destroy(eng);
    gs_multi_pk_free(&pk);
}

static void prove_and_compare(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                              const glstark_air_trace *traces, const char *file)
{
    prove_cpu_with(airs, nairs, sp, traces, file, NULL);
}

Test(prover, fib_small_n1) { oc_fib_small(1, "fib-small_n1.proof.bin", prove_and_compare); }
Test(prover, fib_small_n2) { oc_fib_small(2, "fib-small_n2.proof.bin", prove_and_compare); }
Test(prover, fib_small_n3) { oc_fib_small(3, "fib-small_n3.proof.bin", prove_and_compare); }
Test(prover, fib_small_n4) { oc_fib_small(4, "fib-small_n4.proof.bin", prove_and_compare); }
Test(prover, fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_and_compare); }
Test(prover, interactions_small) { oc_interactions_small(prove_and_compare); }
Test(prover, fib_app18_n10, .timeout = 120) { oc_fib_app18_n10(prove_and_compare); }
Test(prover, keccak_app21_p16, .timeout = 300) { oc_keccak_app21_p16(prove_and_compare); }

Test(prover, trace_value_not_below_p_refused)
{
    gs_error err;
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    oc_refuses_trace_value_not_below_p(eng);
    gs_engine_destroy(eng);
}

/* Streamed traces (trace_rows): the caller's rows, served block by block
 * from the arrays here while the prover sees no values array. The source
 * checks the prover asks for each AIR's rows in order, without gaps or
 * repeats, and poisons the block first; the bytes must be OpenVM's. */
typedef struct row_source {
    const glstark_air_trace *full;
    size_t nairs;
    size_t next[4]; /* next row expected per AIR */
    size_t calls;
    int fail_at_call; /* > 0: return this call's number as an error (1-based) */
    int poison_value; /* 1: put p into the block (not a field value) */
} row_source;

static int serve_rows(void *user, size_t air, size_t r0, size_t n, uint32_t *dst)
{
    row_source *rs = user;
    rs->calls++;
    cr_assert(air < rs->nairs, "rows asked for AIR %zu of %zu", air, rs->nairs);
    cr_assert_eq(r0, rs->next[air], "AIR %zu: rows from %zu asked, %zu expected next", air, r0, rs->next[air]);
    cr_assert(n >= 1 && r0 + n <= rs->full[air].height, "AIR %zu: rows [%zu, %zu) past the height", air, r0, r0 + n);
    rs->next[air] = r0 + n;
    if (rs->fail_at_call && (size_t)rs->fail_at_call == rs->calls)
        return 7;
    const glstark_trace_part *m = &rs->full[air].common_main;
    for (size_t c = 0; c < m->width; c++)
        for (size_t r = 0; r < n; r++)
            dst[c * n + r] = m->values[c * rs->full[air].height + r0 + r];
    if (rs->poison_value)
        dst[(m->width - 1) * n + n / 2] = BB_P;
    return 0;
}

/* The codeword freed after its Merkle tree and encoded again, a third of
 * the columns at a time, for WHIR's first queries: OpenVM's bytes still. */
static void prove_reencoded(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                            const glstark_air_trace *traces, const char *file)
{
    const gs_prove_options opt = {.reencode_codeword = 1};
    prove_cpu_with(airs, nairs, sp, traces, file, &opt);
}

Test(prover, reencoded_fib_small_n1) { oc_fib_small(1, "fib-small_n1.proof.bin", prove_reencoded); }
Test(prover, reencoded_fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_reencoded); }
Test(prover, reencoded_interactions_small) { oc_interactions_small(prove_reencoded); }
Test(prover, reencoded_fib_app18_n10, .timeout = 120) { oc_fib_app18_n10(prove_reencoded); }

/* The commit streamed (the codeword encoded 8 columns at a time into the
 * tree's row sponges, never whole; WHIR re-encodes for its queries) gives
 * the bytes of the kept-codeword path, which the OpenVM tests pin. */
Test(prover, streamed_commit_equals_kept, .timeout = 120)
{
    gs_error err;
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    const gs_prove_options kept = {.skip_constraint_check = 1};
    const gs_prove_options streamed = {.skip_constraint_check = 1, .reencode_codeword = 1, .stream_group_cols = 8};
    oc_keccak_wide_same_bytes(eng, &kept, eng, &streamed, NULL, "streamed commit against the kept path");
    gs_engine_destroy(eng);
}

static void prove_streamed(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                           const glstark_air_trace *traces, const char *file)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    glstark_air_trace noval[4];
    cr_assert(nairs <= 4);
    for (size_t a = 0; a < nairs; a++) {
        noval[a] = traces[a];
        noval[a].common_main.values = NULL;
    }
    /* blocks of 64 bytes: several per trace; and the default (one block) */
    const size_t blocks[2] = {64, 0};
    size_t calls64 = 0;
    for (int bi = 0; bi < 2; bi++) {
        row_source rs = {traces, nairs, {0}, 0, 0, 0};
        gs_prove_options opt = {.skip_constraint_check = 1, .trace_rows = serve_rows, .trace_rows_user = &rs,
                                .trace_block_bytes = blocks[bi]};
        gs_proof pf;
        cr_assert_eq(gs_prove(eng, &pk, noval, nairs, &opt, &pf, NULL, &err), GLSTARK_OK, "%s", err.msg);
        for (size_t a = 0; a < nairs; a++)
            cr_assert_eq(rs.next[a], traces[a].height, "%s: AIR %zu rows served up to %zu of %zu", file, a, rs.next[a],
                         traces[a].height);
        cr_log_info("%s: %zu trace_rows calls with %zu-byte blocks", file, rs.calls, blocks[bi]);
        if (bi == 0)
            calls64 = rs.calls;
        uint8_t *b;
        size_t n;
        cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
        oc_expect_bytes(file, b, n);
        free(b);
        gs_proof_free(&pf);
    }
    /* the same rows row-major (a proving context's layout), transposed by
     * the engine block by block: the same bytes */
    uint32_t *rm[4] = {NULL};
    for (size_t a = 0; a < nairs; a++) {
        const size_t h = traces[a].height, w = traces[a].common_main.width;
        rm[a] = malloc((h * w + 1) * sizeof(uint32_t));
        cr_assert_not_null(rm[a]);
        for (size_t r = 0; r < h; r++)
            for (size_t c = 0; c < w; c++)
                rm[a][r * w + c] = traces[a].common_main.values[c * h + r];
    }
    for (int bi = 0; bi < 2; bi++) {
        gs_prove_options opt = {.skip_constraint_check = 1, .trace_block_bytes = blocks[bi],
                                .row_major_mains = (const uint32_t *const *)rm};
        gs_proof pf;
        cr_assert_eq(gs_prove(eng, &pk, noval, nairs, &opt, &pf, NULL, &err), GLSTARK_OK, "%s", err.msg);
        uint8_t *b;
        size_t n;
        cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
        oc_expect_bytes(file, b, n);
        free(b);
        gs_proof_free(&pf);
    }
    for (size_t a = 0; a < nairs; a++)
        free(rm[a]);
    /* the source fails on its last call: the proof stops with its message */
    row_source rs = {traces, nairs, {0}, 0, (int)calls64, 0};
    gs_prove_options opt = {.skip_constraint_check = 1, .trace_rows = serve_rows, .trace_rows_user = &rs,
                            .trace_block_bytes = 64};
    gs_proof pf;
    cr_assert_eq(gs_prove(eng, &pk, noval, nairs, &opt, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "trace_rows returned 7") != NULL, "%s", err.msg);
    /* a value that is not below p: refused, naming where */
    row_source bad = {traces, nairs, {0}, 0, 0, 1};
    opt.trace_rows_user = &bad;
    cr_assert_eq(gs_prove(eng, &pk, noval, nairs, &opt, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "not below p") && strstr(err.msg, "trace_rows"), "%s", err.msg);
    /* the constraint check needs whole traces; no source at all is refused too */
    opt.trace_rows_user = &rs;
    opt.skip_constraint_check = 0;
    gs_multi_pk pk_airs;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk_airs, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_prove(eng, &pk_airs, noval, nairs, &opt, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "constraint check") != NULL, "%s", err.msg);
    cr_assert_eq(gs_prove(eng, &pk, noval, nairs, NULL, &pf, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "NULL") != NULL, "%s", err.msg);
    gs_multi_pk_free(&pk_airs);
    gs_engine_destroy(eng);
    gs_multi_pk_free(&pk);
}

/* n1: 2 rows, below 2^l_skip, so the trace gets its own buffer (not in place in the stacked matrix) */
Test(prover, streamed_fib_small_n1) { oc_fib_small(1, "fib-small_n1.proof.bin", prove_streamed); }
Test(prover, streamed_fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_streamed); }
Test(prover, streamed_interactions_small) { oc_interactions_small(prove_streamed); }
Test(prover, streamed_fib_app18_n10, .timeout = 120) { oc_fib_app18_n10(prove_streamed); }

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
