/* The whole prover on the GLES engine: every phase runs on GLES (a CPU
 * fallback engine is offered and must not be used), the proof bytes equal
 * OpenVM's .proof.bin byte for byte, and the verifier accepts. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gles/gles_test_util.h"
#include "air/keygen.h"
#include "glstark/airs.h"
#include "common/params.h"
#include "prove/prover.h"
#include "prove/spans.h"
#include "../util/splitmix.h"
#include "verify/verifier.h"
#include "../protocol/openvm_cases.h"

/* reencode: the codeword freed and encoded again; precompile: every program
 * started ahead (GLSTARK_PRECOMPILE_ON), and then none may be built that the
 * engine's lists did not name. */
static void prove_on_gles_with(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                               const glstark_air_trace *traces, const char *file, int reencode, int precompile,
                               gs_upload_choice upload)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_device_config dopt;
    dopt = tu_config();
    if (upload != GS_UPLOAD_CHOICE_AUTO) /* else the environment's, as in the floor runs */
        dopt.upload = upload;
    if (precompile) {
        dopt.precompile = GLSTARK_PRECOMPILE_ON;
        /* no dispatch time budget: its work-group variants follow rates
         * measured during the proof, which no list can name ahead */
        dopt.dispatch_ms = 0;
    }
    gs_engine *eng = tu_engine(&dopt), *cpu;
    if (upload == GS_UPLOAD_CHOICE_STAGED)
        cr_assert_eq(((const gs_gles_state *)eng->impl)->upload.mode, GS_UPLOAD_STAGED);
    cr_assert_eq(gs_cpu_engine_create(2, &cpu, &err), GLSTARK_OK);
    gs_prove_timings tm;
    const gs_prove_options opt = {.fallback = cpu, .reencode_codeword = reencode};
    size_t n;
    uint8_t *b = oc_prove_encoded(eng, &pk, traces, nairs, &opt, &tm, &n);
    cr_log_info("%s: prove %.3f s (sred %.3f, whir %.3f), fallback: %s", file, tm.total, tm.stacked_reduction,
                tm.whir, tm.fallback_phases ? tm.fallback_note : "none");
    cr_assert_eq(tm.fallback_phases, 0, "every phase runs on the GLES engine (%s)", tm.fallback_note);
    oc_expect_bytes(file, b, n);
    free(b);
    if (precompile) {
        gs_gl_device *dev = gs_gles_device(eng);
        if (!dev->caps.background_compile)
            cr_log_warn("'%s' compiles nothing ahead (no GL_KHR_parallel_shader_compile): lists unchecked",
                        dev->renderer);
        cr_assert(!dev->caps.background_compile || dev->compile_threads_on, "no background compile started");
        cr_assert_eq(dev->programs_unplanned, 0, "%s: %llu programs were built that no list started", file,
                     (unsigned long long)dev->programs_unplanned);
    }
    gs_engine_destroy(eng);
    gs_engine_destroy(cpu);
    gs_multi_pk_free(&pk);
}

static void prove_on_gles(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                          const glstark_air_trace *traces, const char *file)
{
    prove_on_gles_with(airs, nairs, sp, traces, file, 0, 0, GS_UPLOAD_CHOICE_AUTO);
}

/* The programs a proof starts ahead cover all it runs: with interactions
 * (the GKR layers) and without. */
static void prove_on_gles_precompiled(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                                      const glstark_air_trace *traces, const char *file)
{
    prove_on_gles_with(airs, nairs, sp, traces, file, 0, 1, GS_UPLOAD_CHOICE_AUTO);
}

/* The codeword freed after its tree and encoded again on the GPU for the
 * first queries (what glstark_prove's AUTO policy does on GLES). */
static void prove_on_gles_reencoded(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                                    const glstark_air_trace *traces, const char *file)
{
    prove_on_gles_with(airs, nairs, sp, traces, file, 1, 0, GS_UPLOAD_CHOICE_AUTO);
}

/* Every host write through a staging buffer and a GPU copy (the path of
 * hardware GPUs without the upload ring), the codeword re-encoded as
 * glstark_prove's AUTO policy does on GLES: OpenVM's bytes. */
static void prove_on_gles_staged(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                                 const glstark_air_trace *traces, const char *file)
{
    prove_on_gles_with(airs, nairs, sp, traces, file, 1, 0, GS_UPLOAD_CHOICE_STAGED);
}

/* The streamed commit on the GLES engine (8-column groups): the bytes of
 * the CPU engine's kept-codeword proof. */
static void streamed_commit_equals_cpu_kept(void)
{
    gs_error err;
    gs_engine *g = tu_engine(NULL), *cpu;
    cr_assert_eq(gs_cpu_engine_create(2, &cpu, &err), GLSTARK_OK);
    const gs_prove_options keep = {.skip_constraint_check = 1};
    const gs_prove_options streamed = {.skip_constraint_check = 1, .fallback = cpu, .reencode_codeword = 1,
                                       .stream_group_cols = 8};
    gs_prove_timings tm;
    oc_keccak_wide_same_bytes(cpu, &keep, g, &streamed, &tm, "GLES streamed commit against the CPU's kept path");
    cr_assert_eq(tm.fallback_phases, 0, "every phase runs on the GLES engine (%s)", tm.fallback_note);
    gs_engine_destroy(g);
    gs_engine_destroy(cpu);
}

/* A device whose bindings cannot hold one column group of a row class
 * refuses the streamed commit up front; the prover then encodes the
 * codeword whole on the same engine, which its spans show, and the bytes
 * stay the CPU's. 64 boolean columns of 2^12 rows (L = 12) stack to 64
 * columns: a group of 64 class columns is 1 MiB, over a 512 KiB limit that
 * every other kernel of this proof fits. */
static const glstark_span *span_named(const gs_span_rec *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->spans[i].name, name) == 0)
            return &r->spans[i];
    return NULL;
}

static int has_span(const gs_span_rec *r, const char *name) { return span_named(r, name) != NULL; }

static void stream_refused_commits_whole(void)
{
    gs_error err;
    gs_engine *engs[2] = {tu_engine(NULL), tu_engine_binding(512 << 10)}, *cpu;
    cr_assert_eq(gs_cpu_engine_create(2, &cpu, &err), GLSTARK_OK);
    enum { WIDE = 64 };
    glstark_air *air;
    cr_assert_eq(glstark_air_create("wide_bits", WIDE, 0, &air), GLSTARK_OK);
    for (size_t c = 0; c < WIDE; c++)
        cr_assert_eq(glstark_air_assert_bool(air, glstark_air_main(air, c, 0)), GLSTARK_OK);
    const size_t h = (size_t)1 << 12;
    uint32_t *tr = malloc(WIDE * h * sizeof(uint32_t));
    cr_assert_not_null(tr);
    uint64_t seed = 0x5EED0007u;
    printf("stream_refused_commits_whole: trace seed %llu\n", (unsigned long long)seed);
    for (size_t i = 0; i < WIDE * h; i++)
        tr[i] = (uint32_t)(splitmix64(&seed) & 1);
    glstark_air_trace t = {h, {tr, WIDE}, NULL, NULL, 0};
    gs_system_params sp;
    cr_assert_eq(gs_app_params_with_100_bits_security(12, &sp, &err), GLSTARK_OK, "%s", err.msg);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&sp, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    const gs_prove_options keep = {.skip_constraint_check = 1};
    const gs_prove_options streamed = {.skip_constraint_check = 1, .fallback = cpu, .reencode_codeword = 1,
                                       .stream_group_cols = 64};
    size_t nw;
    uint8_t *want = oc_prove_encoded(cpu, &pk, &t, 1, &keep, NULL, &nw);
    gs_span_rec *rec = calloc(1, sizeof *rec);
    cr_assert_not_null(rec);
    /* plentiful memory: the commit writes the traces itself (by row class
     * groups where it streams, all first where it falls back) */
    for (int k = 0; k < 4; k++) {
        const int e = k & 1;
        engs[e]->plentiful_memory = k >> 1;
        gs_span_rec_init(rec, engs[e], NULL, NULL, NULL);
        gs_proof pf;
        gs_prove_timings tm;
        cr_assert_eq(gs_prove_ex(engs[e], &pk, &t, 1, &streamed, rec, &pf, &tm, &err), GLSTARK_OK, "%s", err.msg);
        uint8_t *b;
        size_t n;
        cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert(n == nw && memcmp(b, want, n) == 0, "engine %d (plentiful %d): the proof differs from the CPU's", e,
                  k >> 1);
        cr_assert(strstr(tm.fallback_note, "commit") == NULL, "the commit stays on the GLES engine (%s)",
                  tm.fallback_note);
        cr_assert_eq(has_span(rec, "rs_code_merkle_streamed"), e == 0, "engine %d: the streamed commit", e);
        cr_assert_eq(has_span(rec, "merkle_tree"), e == 1, "engine %d: the whole-codeword commit", e);
        free(b);
        gs_proof_free(&pf);
    }
    free(rec);
    free(want);
    gs_multi_pk_free(&pk);
    free(tr);
    glstark_air_destroy(air);
    gs_engine_destroy(engs[0]);
    gs_engine_destroy(engs[1]);
    gs_engine_destroy(cpu);
}

/* The host syncs of round 0, the multilinear rounds and the column
 * openings do not grow with the number of traces: every trace's values of
 * one step are read together (engine/read_later.h). OpenVM's interactions
 * pair (a sender of 4 rows, a receiver of 8) proves with one sync in round
 * 0 and one for the openings (one per trace before) and at most two per
 * round (its sums, and the values of the traces it finishes); the bytes
 * stay OpenVM's. The stacked reduction's and WHIR's first sumcheck rounds
 * take none and GKR's one per layer: their challenges are sampled on the
 * engine. */
Test(prover_gles, traces_share_the_constraint_rounds_syncs)
{
    glstark_air *airs[2];
    uint32_t s[8], r[16];
    glstark_air_trace t[2];
    gs_multi_pk pk;
    oc_interactions_keyed(airs, s, r, t, &pk);
    gs_error err;
    gs_engine *eng = tu_engine(NULL);
    gs_span_rec *rec = calloc(1, sizeof *rec);
    cr_assert_not_null(rec);
    gs_span_rec_init(rec, eng, NULL, NULL, NULL);
    gs_proof pf;
    gs_prove_timings tm;
    const gs_prove_options opt = {.skip_constraint_check = 1};
    cr_assert_eq(gs_prove_ex(eng, &pk, t, 2, &opt, rec, &pf, &tm, &err), GLSTARK_OK, "%s", err.msg);
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
    oc_expect_bytes("interactions-small.proof.bin", b, n);
    const glstark_span *r0 = span_named(rec, "round0"), *mle = span_named(rec, "mle_rounds"),
                       *op = span_named(rec, "column_openings");
    cr_assert(r0 && mle && op);
    cr_assert_eq(r0->host_syncs, 1, "round 0 of two traces: %llu host syncs", (unsigned long long)r0->host_syncs);
    cr_assert_eq(op->host_syncs, 1, "the openings of two traces: %llu host syncs",
                 (unsigned long long)op->host_syncs);
    const uint32_t rounds = pf.batch.n_max;
    cr_assert_leq(mle->host_syncs, 2ull * rounds + 1, "%u rounds: %llu host syncs", rounds,
                  (unsigned long long)mle->host_syncs);
    /* the stacked reduction's and WHIR's sumcheck rounds sample on the
     * engine's sponge: none of them waits for the host */
    const glstark_span *sr = span_named(rec, "sred_rounds"), *ws = span_named(rec, "whir_sumcheck");
    cr_assert(sr && ws);
    cr_assert_eq(sr->host_syncs, 0, "the stacked reduction's rounds: %llu host syncs",
                 (unsigned long long)sr->host_syncs);
    cr_assert_eq(ws->host_syncs, 0, "WHIR's first sumcheck: %llu host syncs", (unsigned long long)ws->host_syncs);
    /* GKR: one read per layer (its claims; its rounds come along), not one
     * per round as well */
    const glstark_span *gk = span_named(rec, "logup_gkr");
    const uint32_t R = pf.gkr.num_layers;
    cr_assert(gk && R >= 3, "the pair's GKR has %u layers", R);
    cr_assert_leq(gk->host_syncs, R, "GKR of %u layers (%u rounds): %llu host syncs", R, R * (R - 1) / 2,
                  (unsigned long long)gk->host_syncs);
    free(b);
    gs_proof_free(&pf);
    free(rec);
    gs_engine_destroy(eng);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

/* Where the engine has memory to spare (plentiful, as on desktop-class
 * GPUs) the streamed commit writes the common mains itself, a column group
 * at a time just before encoding every row class of it, so the host copies
 * the next group while the GPU commits this one; elsewhere the upload
 * precedes the commit. Three AIRs of boolean columns, 2^12, 2^11 and 2^10
 * rows (L = 12), stack to 56 columns; groups of 8 cut the traces mid-way.
 * The caller's arrays are released only after the last write: the release
 * callback overwrites them with words >= p, so a write after it would be
 * refused or change the bytes, which must be the CPU engine's kept-codeword
 * proof. A word >= p in the last trace's last column is refused, located. */
typedef struct poisoning_release {
    uint32_t *arrays[3];
    size_t words[3];
    int calls;
} poisoning_release;

static void poison_on_release(void *user)
{
    poisoning_release *r = user;
    r->calls++;
    for (int i = 0; i < 3; i++)
        for (size_t w = 0; w < r->words[i]; w++)
            r->arrays[i][w] = 0xFFFFFFFFu;
}

static void bool_traces(glstark_air_trace t[3], uint32_t *tr[3], const size_t width[3], const size_t logh[3],
                        uint64_t seed)
{
    for (int i = 0; i < 3; i++) {
        const size_t h = (size_t)1 << logh[i];
        for (size_t w = 0; w < width[i] * h; w++)
            tr[i][w] = (uint32_t)(splitmix64(&seed) & 1);
        t[i] = (glstark_air_trace){h, {tr[i], width[i]}, NULL, NULL, 0};
    }
}

static void commit_writes_deferred_traces(int plentiful)
{
    gs_error err;
    gs_engine *g = tu_engine(NULL), *cpu;
    g->plentiful_memory = plentiful;
    cr_assert_eq(gs_cpu_engine_create(2, &cpu, &err), GLSTARK_OK);
    const size_t width[3] = {40, 24, 13}, logh[3] = {12, 11, 10};
    glstark_air *airs[3];
    uint32_t *tr[3];
    glstark_air_trace t[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "bits%d", i);
        cr_assert_eq(glstark_air_create(name, width[i], 0, &airs[i]), GLSTARK_OK);
        for (size_t c = 0; c < width[i]; c++)
            cr_assert_eq(glstark_air_assert_bool(airs[i], glstark_air_main(airs[i], c, 0)), GLSTARK_OK);
        tr[i] = malloc(width[i] << logh[i] << 2);
        cr_assert_not_null(tr[i]);
    }
    const uint64_t seed = 0x5EED0008u;
    printf("commit_writes_deferred_traces(%d): trace seed %llu\n", plentiful, (unsigned long long)seed);
    gs_system_params sp;
    cr_assert_eq(gs_app_params_with_100_bits_security(12, &sp, &err), GLSTARK_OK, "%s", err.msg);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&sp, airs, 3, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    const gs_prove_options keep = {.skip_constraint_check = 1};
    bool_traces(t, tr, width, logh, seed);
    size_t nw;
    uint8_t *want = oc_prove_encoded(cpu, &pk, t, 3, &keep, NULL, &nw);

    poisoning_release rel = {{tr[0], tr[1], tr[2]}, {width[0] << logh[0], width[1] << logh[1], width[2] << logh[2]}, 0};
    gs_prove_options streamed = {.skip_constraint_check = 1, .fallback = cpu, .reencode_codeword = 1,
                                 .stream_group_cols = 8, .traces_released = poison_on_release,
                                 .traces_released_user = &rel};
    bool_traces(t, tr, width, logh, seed);
    gs_proof pf;
    gs_prove_timings tm;
    cr_assert_eq(gs_prove_ex(g, &pk, t, 3, &streamed, NULL, &pf, &tm, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(rel.calls, 1, "the arrays are released once (%d)", rel.calls);
    cr_assert_eq(tm.fallback_phases, 0, "every phase on the GLES engine (%s)", tm.fallback_note);
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(n == nw && memcmp(b, want, n) == 0, "the proof differs from the CPU engine's");
    free(b);
    gs_proof_free(&pf);

    bool_traces(t, tr, width, logh, seed);
    tr[2][12 * 1024 + 77] = BB_P; /* AIR 2, column 12, row 77 */
    streamed.traces_released = NULL;
    cr_assert_eq(gs_prove_ex(g, &pk, t, 3, &streamed, NULL, &pf, &tm, &err), GLSTARK_ERR_INVALID_ARGUMENT, "%s",
                 err.msg);
    char bad[96];
    snprintf(bad, sizeof bad, "AIR 2 trace value %u (column 12, row 77) is not below p", (unsigned)BB_P);
    cr_assert(strstr(err.msg, bad), "'%s' lacks '%s'", err.msg, bad);

    free(want);
    gs_multi_pk_free(&pk);
    for (int i = 0; i < 3; i++) {
        free(tr[i]);
        glstark_air_destroy(airs[i]);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(cpu);
}

Test(prover_gles, traces_written_before_the_commit, .timeout = 300) { commit_writes_deferred_traces(0); }
Test(prover_gles, commit_writes_deferred_traces, .timeout = 300) { commit_writes_deferred_traces(1); }

/* A streamed trace (trace_rows) on the GLES engine: each block goes up in
 * one write and lands in its columns by one strided copy; 64-byte blocks
 * make many of them. The bytes must still be OpenVM's. */
typedef struct gles_rows {
    const glstark_air_trace *full;
    size_t calls;
} gles_rows;

static int gles_serve_rows(void *user, size_t air, size_t r0, size_t n, uint32_t *dst)
{
    gles_rows *g = user;
    g->calls++;
    const glstark_air_trace *t = &g->full[air];
    for (size_t c = 0; c < t->common_main.width; c++)
        memcpy(dst + c * n, t->common_main.values + c * t->height + r0, n * sizeof *dst);
    return 0;
}

static void prove_streamed_on_gles(glstark_air **airs, size_t nairs, const gs_system_params *sp,
                                   const glstark_air_trace *traces, const char *file)
{
    gs_error err;
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(sp, airs, nairs, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    gs_engine *eng = tu_engine(NULL);
    glstark_air_trace noval[4];
    cr_assert(nairs <= 4);
    for (size_t a = 0; a < nairs; a++) {
        noval[a] = traces[a];
        noval[a].common_main.values = NULL;
    }
    gles_rows g = {traces, 0};
    gs_prove_options opt = {.skip_constraint_check = 1, .trace_rows = gles_serve_rows, .trace_rows_user = &g,
                            .trace_block_bytes = 64};
    gs_proof pf;
    cr_assert_eq(gs_prove(eng, &pk, noval, nairs, &opt, &pf, NULL, &err), GLSTARK_OK, "%s", err.msg);
    cr_log_info("%s: streamed in %zu blocks", file, g.calls);
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&pf, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
    oc_expect_bytes(file, b, n);
    free(b);
    gs_proof_free(&pf);
    gs_engine_destroy(eng);
    gs_multi_pk_free(&pk);
}

#ifndef GS_GLES_SLOW_ONLY
Test(prover_gles, streamed_fib_small_n1) { oc_fib_small(1, "fib-small_n1.proof.bin", prove_streamed_on_gles); }
Test(prover_gles, streamed_fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_streamed_on_gles); }
Test(prover_gles, streamed_interactions_small) { oc_interactions_small(prove_streamed_on_gles); }
Test(prover_gles, fib_small_n1) { oc_fib_small(1, "fib-small_n1.proof.bin", prove_on_gles); }
Test(prover_gles, reencoded_fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_on_gles_reencoded); }
Test(prover_gles, reencoded_interactions_small) { oc_interactions_small(prove_on_gles_reencoded); }
Test(prover_gles, streamed_commit_equals_cpu_kept, .timeout = 300) { streamed_commit_equals_cpu_kept(); }
Test(prover_gles, stream_refused_commits_whole, .timeout = 300) { stream_refused_commits_whole(); }
Test(prover_gles, fib_small_n4) { oc_fib_small(4, "fib-small_n4.proof.bin", prove_on_gles); }
Test(prover_gles, fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_on_gles); }
Test(prover_gles, interactions_small) { oc_interactions_small(prove_on_gles); }

/* on every upload path */
Test(prover_gles, trace_value_not_below_p_refused)
{
    const char *modes[] = {"ring", "packed", "subdata", "staged"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        setenv("GLSTARK_UPLOAD", modes[m], 1);
        gs_engine *eng = tu_engine(NULL);
        oc_refuses_trace_value_not_below_p(eng);
        gs_engine_destroy(eng);
    }
    unsetenv("GLSTARK_UPLOAD");
}
Test(prover_gles, precompiled_interactions_small) { oc_interactions_small(prove_on_gles_precompiled); }
Test(prover_gles, staged_interactions_small) { oc_interactions_small(prove_on_gles_staged); }
Test(prover_gles, staged_fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_on_gles_staged); }
Test(prover_gles, precompiled_fib_small_n10) { oc_fib_small(10, "fib-small_n10.proof.bin", prove_on_gles_precompiled); }
Test(prover_gles, fib_app18_n10, .timeout = 300) { oc_fib_app18_n10(prove_on_gles); }
/* The trace packed narrow on its way to the GPU (GLSTARK_UPLOAD=packed, the
 * default on desktop-class GPUs): two Keccak-f permutations' 674 KB trace,
 * bits and 16-bit limbs; the bytes are the CPU engine's. Where the trace
 * fills the ring's pieces (llvmpipe's 512 KiB slots; the H200's take
 * writes of 1 MiB and more) it crossed packed, at most 16 bits a value
 * (each slot holds some 16-bit limbs); else it was a small write. */
Test(prover_gles, packed_upload_equals_cpu, .timeout = 300)
{
    gs_error err;
    gs_device_config cfg = tu_config();
    cfg.upload = GS_UPLOAD_CHOICE_PACKED;
    gs_engine *g = tu_engine(&cfg), *cpu;
    const gs_gles_upload *up = &((const gs_gles_state *)g->impl)->upload;
    if (!gs_gles_device(g)->BufferStorage) {
        cr_log_warn("no GL_EXT_buffer_storage: no ring, nothing packed");
        gs_engine_destroy(g);
        return;
    }
    glstark_air *air;
    uint32_t *tr;
    glstark_air_trace t;
    gs_system_params sp;
    oc_keccak_wide(&air, &tr, &t, &sp);
    const size_t trace_bytes = t.height * t.common_main.width * sizeof(uint32_t);
    const size_t piece_min = up->slot_bytes < GS_UPLOAD_RING_MIN ? up->slot_bytes : GS_UPLOAD_RING_MIN;
    free(tr);
    glstark_air_destroy(air);
    cr_assert_eq(gs_cpu_engine_create(2, &cpu, &err), GLSTARK_OK);
    const gs_prove_options opt = {.fallback = cpu};
    oc_keccak_wide_same_bytes(cpu, &opt, g, &opt, NULL, "GLES with the trace packed against the CPU engine");
    if (trace_bytes >= piece_min) {
        cr_assert_gt(up->packed_words, 0, "the trace crossed through the packed path");
        cr_assert_leq(up->packed_bytes, up->packed_words * 2, "%llu bytes carried %llu values: not packed narrow",
                      (unsigned long long)up->packed_bytes, (unsigned long long)up->packed_words);
    } else {
        cr_log_info("a %zu-byte trace is a small write here (pieces from %zu bytes): not packed", trace_bytes,
                    piece_min);
        cr_assert_eq(up->packed_words, 0);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(cpu);
}
#else
/* keccakf-16 at L = 21: minutes on llvmpipe */
Test(prover_gles, keccak_app21_p16, .timeout = 1800) { oc_keccak_app21_p16(prove_on_gles); }
#endif
