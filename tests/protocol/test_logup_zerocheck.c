/* The whole LogUp + zerocheck stage (T4..T13) against OpenVM: with the
 * challenges replayed from OpenVM's transcript log, the prover's GKR and
 * batch-constraint proof objects, encoded as OpenVM's codec does
 * (docs/protocol.md, 'Codecs and the verifying key'), must equal the
 * corresponding bytes of OpenVM's .proof.bin; the
 * verifier must accept them and the transcript must end where OpenVM's
 * stacking stage begins. */
#include <criterion/criterion.h>

#include "cl_fixtures.h"
#include "engine/cpu/cpu_engine.h"
#include "common/fs_transcript.h"
#include "prove/logup_zerocheck.h"
#include "verify/logup_zerocheck_verify.h"
#include "replay_fs.h"
#include "../util/test_files.h"
#include "proof_reader.h"

/* Skips the preamble; returns the offset where GkrProof starts (after the pow witness). */
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

static void skip_preamble(rd *r)
{
    cr_assert_eq(u32at(r), 3); /* codec version */
    r->i += 32;                /* common main commit */
    uint32_t airs = u32at(r);
    size_t bm = r->i;
    r->i += (airs + 7) / 8;
    for (uint32_t a = 0; a < airs; a++)
        if (r->b[bm + a / 8] >> (a % 8) & 1) {
            u32at(r);
            uint32_t cached = u32at(r);
            r->i += 32 * (size_t)cached;
        }
    cr_assert_eq(u32at(r), airs);
    for (uint32_t a = 0; a < airs; a++)
        r->i += 4 * (size_t)u32at(r);
    u32at(r); /* logup pow witness */
}

/* Our proof objects must equal OpenVM's bytes, value by value. */
static void compare_with_bytes(const char *proof_file, const gs_lz_proof *pf, const gs_zc_trace *traces, uint32_t M)
{
    size_t n;
    uint8_t *b = tf_read("constraint", proof_file, &n);
    rd r = {b, n, 0};
    skip_preamble(&r);
    cr_assert(bb4_eq(efat(&r), pf->gkr.q0_claim), "q0_claim differs");
    uint32_t R = u32at(&r);
    cr_assert_eq(R, pf->gkr.n_layers);
    for (uint32_t j = 0; j < R; j++) {
        cr_assert(bb4_eq(efat(&r), pf->gkr.claims[j].p0), "layer %u p0", j);
        cr_assert(bb4_eq(efat(&r), pf->gkr.claims[j].p1), "layer %u p1", j);
        cr_assert(bb4_eq(efat(&r), pf->gkr.claims[j].q0), "layer %u q0", j);
        cr_assert(bb4_eq(efat(&r), pf->gkr.claims[j].q1), "layer %u q1", j);
    }
    for (size_t k = 0; R > 1 && k < 3 * (size_t)R * (R - 1) / 2; k++)
        cr_assert(bb4_eq(efat(&r), pf->gkr.sumcheck[k]), "gkr sumcheck value %zu", k);
    const gs_batch_proof *bp = &pf->batch;
    cr_assert_eq(u32at(&r), M);
    for (uint32_t t = 0; t < M; t++)
        cr_assert(bb4_eq(efat(&r), bp->sum_p[t]), "numerator term %u", t);
    for (uint32_t t = 0; t < M; t++)
        cr_assert(bb4_eq(efat(&r), bp->sum_q[t]), "denominator term %u", t);
    cr_assert_eq(u32at(&r), bp->n_uni);
    for (uint32_t k = 0; k < bp->n_uni; k++)
        cr_assert(bb4_eq(efat(&r), bp->uni[k]), "round-0 coefficient %u", k);
    cr_assert_eq(u32at(&r), bp->n_rounds);
    if (bp->n_rounds) {
        cr_assert_eq(u32at(&r), bp->round_len);
        for (size_t k = 0; k < (size_t)bp->n_rounds * bp->round_len; k++)
            cr_assert(bb4_eq(efat(&r), bp->rounds[k]), "round value %zu", k);
    }
    size_t o = 0;
    for (uint32_t t = 0; t < M; t++) {
        cr_assert_eq(u32at(&r), traces[t].n_parts);
        for (uint32_t p = 0; p < traces[t].n_parts; p++) {
            gs_batch_trace shape = gs_zc_trace_shape(&traces[t]);
            size_t len = gs_batch_part_openings(&shape, p);
            cr_assert_eq(u32at(&r), len);
            for (size_t i = 0; i < len; i++, o++)
                cr_assert(bb4_eq(efat(&r), bp->openings[o]), "opening %zu of trace %u", o, t);
        }
    }
    cr_log_info("%s: GKR and batch proof equal OpenVM's bytes [%zu, %zu) of %zu", proof_file, (size_t)0, r.i, n);
    free(b);
}

static gs_buf *upload(gs_engine *eng, const uint32_t *cols, size_t n)
{
    gs_buf *b = NULL;
    cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &b), GLSTARK_OK);
    for (size_t i = 0; i < n; i++)
        ((bb_t *)b->host)[i] = bb_from_canonical(cols[i]);
    return b;
}

static void run(const char *spec, const gs_zc_trace *traces, uint32_t M, uint32_t l_skip, gs_engine *eng)
{
    char log[256], pfile[256];
    snprintf(log, sizeof log, "%s.transcript.txt", spec);
    snprintf(pfile, sizeof pfile, "%s.proof.bin", spec);
    replay r;
    cr_assert_eq(replay_load(&r, log), 0);
    size_t start = (size_t)replay_find(&r, "gkr.alpha_logup"), end = (size_t)replay_find(&r, "stacking.lambda");
    r.pos = start;
    gs_fs fs = replay_fs(&r);
    gs_lz_proof pf;
    gs_error err;
    bb4_t rp[32], rv[32];
    cr_assert_eq(gs_lz_prove(eng, &fs, traces, M, l_skip, 3, 1, &pf, rp, NULL, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(r.first_bad < 0, "%s: %s", spec, r.bad_what);
    cr_assert_eq(r.pos, end);
    compare_with_bytes(pfile, &pf, traces, M);
    r.pos = start;
    cr_assert_eq(lz_verify(&fs, traces, M, l_skip, 3, &pf, rv, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(r.first_bad < 0, "%s: %s", spec, r.bad_what);
    cr_assert_eq(r.pos, end);
    cr_assert_eq(memcmp(rp, rv, (pf.batch.n_rounds + 1) * sizeof(bb4_t)), 0);
    gs_lz_proof_free(&pf);
    replay_free(&r);
}

static void fib(const char *spec, uint32_t log_n, uint32_t l_skip)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
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
    gs_cdag dag = fib_dag();
    gs_buf *m = upload(eng, cols, 2 * n);
    const gs_buf *parts[1] = {m};
    uint32_t w[1] = {2};
    bb_t pubs[3] = {0, bb_one(), bb_from_canonical(cols[2 * n - 1])};
    gs_zc_trace tr = {&dag, log_n, 1, parts, w, pubs, 3, NULL};
    free(cols);
    run(spec, &tr, 1, l_skip, eng);
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
}

Test(logup_zerocheck, fib_small_n4) { fib("fib-small_n4", 4, 2); }
Test(logup_zerocheck, fib_small_n10) { fib("fib-small_n10", 10, 2); }
Test(logup_zerocheck, fib_app18_n10) { fib("fib-app18_n10", 10, 4); }

Test(logup_zerocheck, interactions_small)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    gs_cdag d1 = ix_dag(1), d0 = ix_dag(0);
    gs_buf *m1 = upload(eng, &ix1_cols[0][0], 16), *m0 = upload(eng, &ix0_cols[0][0], 8);
    const gs_buf *p1[1] = {m1}, *p0[1] = {m0};
    uint32_t w[1] = {2};
    gs_zc_trace tr[2] = {{&d1, 3, 1, p1, w, NULL, 0, NULL}, {&d0, 2, 1, p0, w, NULL, 0, NULL}};
    run("interactions-small", tr, 2, 2, eng);
    /* unsorted traces are refused */
    gs_zc_trace bad[2] = {tr[1], tr[0]};
    gs_lz_proof pf;
    bb4_t rr[8];
    replay r;
    cr_assert_eq(replay_load(&r, "interactions-small.transcript.txt"), 0);
    gs_fs fs = replay_fs(&r);
    cr_assert_eq(gs_lz_prove(eng, &fs, bad, 2, 2, 3, 1, &pf, rr, NULL, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    replay_free(&r);
    gs_buf_destroy(m1);
    gs_buf_destroy(m0);
    gs_engine_destroy(eng);
}

/* ---- with the real duplex-sponge transcript from the very first operation:
 * preamble T0..T3 from the proof's own preamble (commit, heights, public
 * values, LogUp PoW witness) and the vk pre-hash, then our T4..T13; the
 * result must equal OpenVM's proof bytes. Covers fib-small n1..n3, for which
 * no transcript log exists (n1 is a lifted trace: 2 rows < 2^l_skip). */

static const uint32_t fib_small_prehash[8] = {471505953, 1807114792, 170193425, 441704158,
                                              1816165566, 828129030, 622714888, 981876475};
static const uint32_t fib_app18_prehash[8] = {268233371, 1170275518, 727779061, 445743125,
                                              1741005713, 1570883619, 877356496, 1936716274};
static const uint32_t ix_small_prehash[8] = {338643893, 1934805690, 1305506116, 1694651551,
                                             782855467, 1598392974, 216950333, 68373398};

/* Runs T0..T3 on ts from the proof bytes; checks the traces' heights and
 * public values against the proof. */
static void preamble(gs_transcript *ts, const uint32_t prehash[8], const char *proof_file, const gs_zc_trace *air_traces,
                     uint32_t airs, unsigned pow_bits)
{
    size_t n;
    uint8_t *b = tf_read("constraint", proof_file, &n);
    rd r = {b, n, 0};
    bb_t d[8];
    gs_error err;
    cr_assert_eq(u32at(&r), 3);
    for (int i = 0; i < 8; i++)
        d[i] = bb_from_canonical(prehash[i]);
    gs_transcript_observe_commit(ts, d);
    for (int i = 0; i < 8; i++)
        d[i] = bb_from_canonical(u32at(&r));
    gs_transcript_observe_commit(ts, d);
    cr_assert_eq(u32at(&r), airs);
    size_t bm = r.i;
    r.i += (airs + 7) / 8;
    uint32_t logh[8] = {0};
    for (uint32_t a = 0; a < airs; a++) {
        cr_assert(b[bm + a / 8] >> (a % 8) & 1, "air %u absent", a);
        logh[a] = u32at(&r);
        cr_assert_eq(logh[a], air_traces[a].log_height);
        cr_assert_eq(u32at(&r), 0);
    }
    cr_assert_eq(u32at(&r), airs);
    for (uint32_t a = 0; a < airs; a++) {
        gs_transcript_observe_u32(ts, 1); /* present (is_required = false) */
        gs_transcript_observe_u32(ts, logh[a]);
        uint32_t npv = u32at(&r);
        cr_assert_eq(npv, air_traces[a].n_publics);
        for (uint32_t k = 0; k < npv; k++) {
            uint32_t v = u32at(&r);
            cr_assert_eq(v, bb_to_canonical(air_traces[a].publics[k]), "public value %u", k);
            gs_transcript_observe_u32(ts, v);
        }
    }
    uint32_t w = u32at(&r);
    cr_assert_eq(gs_transcript_check_witness(ts, pow_bits, w, &err), GLSTARK_OK, "OpenVM's LogUp witness %u", w);
    free(b);
}

static void full_fib(uint32_t log_n, uint32_t l_skip, const uint32_t prehash[8], const char *spec, unsigned pow_bits)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
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
    gs_cdag dag = fib_dag();
    gs_buf *m = upload(eng, cols, 2 * n);
    const gs_buf *parts[1] = {m};
    uint32_t w[1] = {2};
    bb_t pubs[3] = {0, bb_one(), bb_from_canonical(cols[2 * n - 1])};
    gs_zc_trace tr = {&dag, log_n, 1, parts, w, pubs, 3, NULL};
    free(cols);
    char pfile[256];
    snprintf(pfile, sizeof pfile, "%s.proof.bin", spec);
    gs_transcript ts, tv;
    gs_transcript_init(&ts);
    preamble(&ts, prehash, pfile, &tr, 1, pow_bits);
    tv = ts;
    gs_fs fs = gs_fs_wrap_transcript(&ts), fv = gs_fs_wrap_transcript(&tv);
    gs_lz_proof pf;
    bb4_t rp[32], rv[32];
    cr_assert_eq(gs_lz_prove(eng, &fs, &tr, 1, l_skip, 3, 1, &pf, rp, NULL, &err), GLSTARK_OK, "%s", err.msg);
    compare_with_bytes(pfile, &pf, &tr, 1);
    cr_assert_eq(lz_verify(&fv, &tr, 1, l_skip, 3, &pf, rv, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(memcmp(ts.st, tv.st, sizeof ts.st), 0, "prover and verifier transcripts diverge");
    gs_lz_proof_free(&pf);
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
}

Test(logup_zerocheck, transcript_fib_small_n1_lifted) { full_fib(1, 2, fib_small_prehash, "fib-small_n1", 2); }
Test(logup_zerocheck, transcript_fib_small_n2) { full_fib(2, 2, fib_small_prehash, "fib-small_n2", 2); }
Test(logup_zerocheck, transcript_fib_small_n3) { full_fib(3, 2, fib_small_prehash, "fib-small_n3", 2); }
Test(logup_zerocheck, transcript_fib_small_n4) { full_fib(4, 2, fib_small_prehash, "fib-small_n4", 2); }
Test(logup_zerocheck, transcript_fib_small_n10) { full_fib(10, 2, fib_small_prehash, "fib-small_n10", 2); }
Test(logup_zerocheck, transcript_fib_app18_n10) { full_fib(10, 4, fib_app18_prehash, "fib-app18_n10", 18); }

Test(logup_zerocheck, transcript_interactions_small)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    gs_cdag d1 = ix_dag(1), d0 = ix_dag(0);
    gs_buf *m1 = upload(eng, &ix1_cols[0][0], 16), *m0 = upload(eng, &ix0_cols[0][0], 8);
    const gs_buf *p1[1] = {m1}, *p0[1] = {m0};
    uint32_t w[1] = {2};
    gs_zc_trace by_air[2] = {{&d0, 2, 1, p0, w, NULL, 0, NULL}, {&d1, 3, 1, p1, w, NULL, 0, NULL}};
    gs_zc_trace sorted[2] = {by_air[1], by_air[0]};
    gs_transcript ts, tv;
    gs_transcript_init(&ts);
    preamble(&ts, ix_small_prehash, "interactions-small.proof.bin", by_air, 2, 2);
    tv = ts;
    gs_fs fs = gs_fs_wrap_transcript(&ts), fv = gs_fs_wrap_transcript(&tv);
    gs_lz_proof pf;
    bb4_t rp[32], rv[32];
    cr_assert_eq(gs_lz_prove(eng, &fs, sorted, 2, 2, 3, 1, &pf, rp, NULL, &err), GLSTARK_OK, "%s", err.msg);
    compare_with_bytes("interactions-small.proof.bin", &pf, sorted, 2);
    cr_assert_eq(lz_verify(&fv, sorted, 2, 2, 3, &pf, rv, &err), GLSTARK_OK, "%s", err.msg);
    gs_lz_proof_free(&pf);
    gs_buf_destroy(m1);
    gs_buf_destroy(m0);
    gs_engine_destroy(eng);
}
