/* The engine's sponge (hash op sponge_step, glsl/sponge.comp) against the
 * host transcript, which defines it: random states at every absorb and
 * sample position, observed runs of several lengths from unaligned places,
 * proof-of-work searches, poisoned neighbours that must stay untouched, and
 * steps chained on one state; both engines. Then the ops that take a
 * challenge from an engine buffer against the same ops given its value, and
 * the host's replay (prove/sponge_rounds.h) refusing an engine that sampled
 * something else. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gles/gles_test_util.h"
#include "../util/splitmix.h"
#include "common/transcript.h"
#include "engine/challenge.h"
#include "engine/hash_ops.h"
#include "engine/read_later.h"
#include "engine/reduction_ops.h"
#include "engine/whir_ops.h"
#include "prove/sponge_rounds.h"

#define POISON 0xDEADBEEFu

static bb_t rand_bb(uint64_t *s)
{
    uint64_t r = splitmix64(s);
    uint32_t v = (r & 7) == 0 ? 0 : (r & 7) == 1 ? BB_P - 1 : (uint32_t)((r >> 8) % BB_P);
    return bb_from_canonical(v);
}

static bb4_t rand_ext(uint64_t *s)
{
    bb4_t e;
    for (int i = 0; i < 4; i++)
        e.c[i] = rand_bb(s);
    return e;
}

static gs_buf *poisoned(gs_engine *eng, size_t words)
{
    gs_buf *b = NULL;
    TU_OK(eng, gs_buf_create(eng, words * 4, &b));
    TU_OK(eng, gs_buf_fill_u32(b, 0, words, POISON));
    return b;
}

/* Steps on eng against the host transcript, three chained per state. */
static void steps_match(gs_engine *eng, uint64_t seed)
{
    printf("sponge steps on the %s engine: seed %llu\n", eng->core->name, (unsigned long long)seed);
    uint64_t s = seed;
    static const unsigned pows[] = {0, 0, 1, 5, 8};
    static const uint32_t nobs[] = {0, 1, 2, 3, 5};
    for (int trial = 0; trial < 24; trial++) {
        gs_transcript ts;
        gs_transcript_init(&ts);
        for (int i = 0; i < GS_P2_WIDTH; i++)
            ts.st[i] = rand_bb(&s);
        ts.absorb_idx = trial < 8 ? (unsigned)trial : (unsigned)(splitmix64(&s) % GS_P2_RATE);
        ts.sample_idx = ts.absorb_idx ? GS_P2_RATE : (unsigned)(splitmix64(&s) % (GS_P2_RATE + 1));
        gs_buf *state = NULL;
        TU_OK(eng, gs_engine_sponge_create(eng, ts.st, ts.absorb_idx, ts.sample_idx, &state));
        for (int chain = 0; chain < 3; chain++) {
            const uint32_t n_obs = nobs[splitmix64(&s) % 5];
            const unsigned pow = pows[splitmix64(&s) % 5];
            const size_t src_index = splitmix64(&s) % 7, dst_index = splitmix64(&s) % 5, wit_index = splitmix64(&s) % 9;
            bb4_t obs[5];
            for (uint32_t i = 0; i < n_obs; i++)
                obs[i] = rand_ext(&s);
            gs_buf *src = poisoned(eng, 4 * (src_index + 6)), *dst = poisoned(eng, 4 * (dst_index + 3)),
                   *wit = poisoned(eng, wit_index + 3);
            if (n_obs)
                TU_OK(eng, gs_buf_write(src, src_index * 16, obs, n_obs * 16));
            const gs_sponge_step step = {src, src_index, n_obs, pow, wit, wit_index, dst, dst_index};
            TU_OK(eng, gs_engine_sponge_step(eng, state, &step));

            /* the definition */
            for (uint32_t i = 0; i < n_obs; i++)
                gs_transcript_observe_ext(&ts, obs[i]);
            uint32_t w = 0;
            gs_error err = {0};
            cr_assert_eq(gs_transcript_grind(&ts, pow, NULL, NULL, &w, &err), GLSTARK_OK, "%s", err.msg);
            bb4_t want = gs_transcript_sample_ext(&ts);

            uint32_t got_state[GS_SPONGE_WORDS], got_dst[4 * 8], got_wit[12];
            TU_OK(eng, gs_buf_read(state, 0, got_state, sizeof got_state));
            TU_OK(eng, gs_buf_read(dst, 0, got_dst, 16 * (dst_index + 3)));
            TU_OK(eng, gs_buf_read(wit, 0, got_wit, 4 * (wit_index + 3)));
#define AT "trial %d step %d (observing %u, %u pow bits): "
            cr_assert(memcmp(got_state, ts.st, sizeof ts.st) == 0, AT "state differs", trial, chain, n_obs, pow);
            cr_assert_eq(got_state[GS_P2_WIDTH], ts.absorb_idx, AT "absorb position", trial, chain, n_obs, pow);
            cr_assert_eq(got_state[GS_P2_WIDTH + 1], ts.sample_idx, AT "sample position", trial, chain, n_obs, pow);
            cr_assert(memcmp(got_dst + 4 * dst_index, &want, 16) == 0, AT "challenge differs", trial, chain, n_obs,
                      pow);
            for (size_t i = 0; i < 4 * (dst_index + 3); i++)
                if (i / 4 != dst_index)
                    cr_assert_eq(got_dst[i], POISON, AT "challenge buffer word %zu overwritten", trial, chain, n_obs,
                                 pow, i);
            for (size_t i = 0; i < wit_index + 3; i++)
                cr_assert_eq(got_wit[i], pow && i == wit_index ? w : POISON, AT "witness word %zu", trial, chain,
                             n_obs, pow, i);
#undef AT
            gs_buf_destroy(src);
            gs_buf_destroy(dst);
            gs_buf_destroy(wit);
        }
        gs_buf_destroy(state);
    }
}

Test(sponge_gles, steps_match_the_transcript_gles)
{
    gs_engine *g = tu_engine_binding(0);
    steps_match(g, 0x5B0461u);
    gs_engine_destroy(g);
}

Test(sponge_gles, steps_match_the_transcript_cpu)
{
    gs_engine *c = tu_cpu_engine();
    steps_match(c, 0x5B0462u);
    gs_engine_destroy(c);
}

Test(sponge_gles, bad_steps_refused)
{
    gs_engine *g = tu_engine_binding(0), *c = tu_cpu_engine();
    bb_t st[GS_P2_WIDTH] = {0};
    gs_buf *state = NULL, *small = NULL, *dst = poisoned(g, 8), *other = poisoned(c, 8);
    cr_assert_eq(gs_engine_sponge_create(g, st, 8, 8, &state), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_engine_sponge_create(g, st, 0, 9, &state), GLSTARK_ERR_INVALID_ARGUMENT);
    TU_OK(g, gs_engine_sponge_create(g, st, 0, 0, &state));
    TU_OK(g, gs_buf_create(g, 16, &small));
    gs_sponge_step ok = {NULL, 0, 0, 0, NULL, 0, dst, 1};
    gs_sponge_step bad = ok;
    bad.dst_index = 2; /* past the buffer's two elements */
    cr_assert_eq(gs_engine_sponge_step(g, state, &bad), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(g->err.msg, "element 2"), "%s", g->err.msg);
    bad = ok;
    bad.pow_bits = GS_SPONGE_POW_MAX_BITS + 1;
    bad.witness = dst;
    cr_assert_eq(gs_engine_sponge_step(g, state, &bad), GLSTARK_ERR_INVALID_ARGUMENT);
    bad = ok;
    bad.pow_bits = 3; /* no witness buffer */
    cr_assert_eq(gs_engine_sponge_step(g, state, &bad), GLSTARK_ERR_INVALID_ARGUMENT);
    bad = ok;
    bad.src = dst;
    bad.n_obs = 3;
    cr_assert_eq(gs_engine_sponge_step(g, state, &bad), GLSTARK_ERR_INVALID_ARGUMENT);
    bad = ok;
    bad.dst = other; /* another engine's buffer */
    cr_assert_eq(gs_engine_sponge_step(g, state, &bad), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_engine_sponge_step(g, small, &ok), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(g->err.msg, "state"), "%s", g->err.msg);
    TU_OK(g, gs_engine_sponge_step(g, state, &ok));
    gs_buf_destroy(state);
    gs_buf_destroy(small);
    gs_buf_destroy(dst);
    gs_buf_destroy(other);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

static gs_buf *ext_buf(gs_engine *eng, const bb4_t *v, size_t n)
{
    gs_buf *b = NULL;
    TU_OK(eng, gs_buf_create(eng, n * 16, &b));
    TU_OK(eng, gs_buf_write(b, 0, v, n * 16));
    return b;
}

static void read_ext(gs_engine *eng, const gs_buf *b, bb4_t *out, size_t n)
{
    TU_OK(eng, gs_buf_read(b, 0, out, n * 16));
}

/* Every op that takes a challenge gives the same with it in a buffer (at an
 * odd element) as with its value, and the round sums left in a buffer equal
 * the ones returned. */
Test(sponge_gles, challenges_from_buffers_match_values)
{
    gs_engine *engs[2] = {tu_engine_binding(0), tu_cpu_engine()};
    uint64_t s = 0xC4A11u;
    printf("challenges from buffers: seed %llu\n", (unsigned long long)s);
    enum { LEN = 64, HALF = LEN / 2, LOGN = 6 };
    bb4_t f[LEN], w[LEN], a = rand_ext(&s), held[3];
    for (int i = 0; i < LEN; i++) {
        f[i] = rand_ext(&s);
        w[i] = rand_ext(&s);
    }
    held[0] = rand_ext(&s);
    held[1] = a;
    held[2] = rand_ext(&s);
    for (int e = 0; e < 2; e++) {
        gs_engine *eng = engs[e];
        gs_buf *ch = ext_buf(eng, held, 3), *bf = ext_buf(eng, f, LEN), *bw = ext_buf(eng, w, LEN);
        const gs_chal at = gs_chal_in(ch, 1), val = gs_chal_value(a);
        /* whir fold and fold_encode */
        bb4_t r1[2][LEN], r2[2][LEN];
        for (int k = 0; k < 2; k++) {
            gs_buf *fo = NULL, *wo = NULL, *cw = NULL;
            TU_OK(eng, gs_buf_create(eng, HALF * 16, &fo));
            TU_OK(eng, gs_buf_create(eng, HALF * 16, &wo));
            TU_OK(eng, gs_buf_create(eng, (size_t)16 << LOGN, &cw));
            TU_OK(eng, eng->whir->fold(eng, bf, bw, LEN, k ? at : val, fo, wo));
            read_ext(eng, fo, r1[k], HALF);
            read_ext(eng, wo, r1[k] + HALF, HALF);
            TU_OK(eng, eng->whir->fold_encode(eng, bf, bw, LEN, k ? at : val, fo, wo, LOGN, cw));
            read_ext(eng, cw, r2[k], LEN);
            gs_buf_destroy(fo);
            gs_buf_destroy(wo);
            gs_buf_destroy(cw);
        }
        cr_assert(memcmp(r1[0], r1[1], sizeof r1[0]) == 0, "%s whir fold: the buffer's challenge differs",
                  eng->core->name);
        cr_assert(memcmp(r2[0], r2[1], sizeof r2[0]) == 0, "%s whir fold_encode differs", eng->core->name);
        /* reduction fold, in place on two columns of each table */
        bb4_t q2[2][2 * LEN];
        for (int k = 0; k < 2; k++) {
            gs_buf *q = ext_buf(eng, f, LEN), *ww = ext_buf(eng, w, LEN);
            gs_red_cols qc = {q, 0, HALF, 2}, wc = {ww, 0, HALF, 2};
            TU_OK(eng, eng->reduction->fold(eng, &qc, &wc, HALF, k ? at : val));
            read_ext(eng, q, q2[k], LEN);
            read_ext(eng, ww, q2[k] + LEN, LEN);
            gs_buf_destroy(q);
            gs_buf_destroy(ww);
        }
        cr_assert(memcmp(q2[0], q2[1], sizeof q2[0]) == 0, "%s reduction fold differs", eng->core->name);
        /* sums to the host and to a buffer */
        bb4_t host[2], dev[4];
        gs_buf *sb = NULL;
        TU_OK(eng, gs_buf_create(eng, 4 * 16, &sb));
        TU_OK(eng, gs_buf_fill_u32(sb, 0, 16, POISON));
        TU_OK(eng, eng->whir->sumcheck_round(eng, bf, bw, LEN, gs_sums_host(host)));
        TU_OK(eng, eng->whir->sumcheck_round(eng, bf, bw, LEN, gs_sums_in(sb, 1)));
        read_ext(eng, sb, dev, 4);
        cr_assert(memcmp(host, dev + 1, sizeof host) == 0, "%s whir sums in a buffer differ", eng->core->name);
        cr_assert_eq(dev[0].c[0], POISON);
        cr_assert_eq(dev[3].c[3], POISON);
        gs_red_cols qc = {bf, 0, HALF, 2}, wc = {bw, 0, HALF, 2};
        TU_OK(eng, eng->reduction->round_evals(eng, &qc, &wc, HALF, gs_sums_host(host)));
        TU_OK(eng, eng->reduction->round_evals(eng, &qc, &wc, HALF, gs_sums_in(sb, 2)));
        read_ext(eng, sb, dev, 4);
        cr_assert(memcmp(host, dev + 2, sizeof host) == 0, "%s reduction sums in a buffer differ", eng->core->name);
        /* out of range */
        cr_assert_eq(eng->reduction->round_evals(eng, &qc, &wc, HALF, gs_sums_in(sb, 3)), GLSTARK_ERR_INVALID_ARGUMENT);
        gs_buf *fo = NULL, *wo = NULL;
        TU_OK(eng, gs_buf_create(eng, HALF * 16, &fo));
        TU_OK(eng, gs_buf_create(eng, HALF * 16, &wo));
        cr_assert_eq(eng->whir->fold(eng, bf, bw, LEN, gs_chal_in(ch, 3), fo, wo), GLSTARK_ERR_INVALID_ARGUMENT);
        gs_buf_destroy(fo);
        gs_buf_destroy(wo);
        gs_buf_destroy(sb);
        gs_buf_destroy(ch);
        gs_buf_destroy(bf);
        gs_buf_destroy(bw);
    }
    gs_engine_destroy(engs[0]);
    gs_engine_destroy(engs[1]);
}

/* The host's replay catches an engine whose challenge or witness is not
 * the transcript's: the engine's buffer is altered after the step. */
static void replay_refuses(gs_engine *eng, unsigned pow, int alter_witness)
{
    gs_transcript ts, host;
    gs_transcript_init(&ts);
    gs_transcript_observe_u32(&ts, 7);
    host = ts;
    gs_sponge_rounds r;
    gs_error err = {0};
    cr_assert_eq(gs_sponge_rounds_begin(&r, eng, &ts, 2, 2, pow, &err), GLSTARK_OK, "%s", err.msg);
    bb4_t sums[2] = {bb4_one(), bb4_zero()};
    gs_sums_dst d = gs_sponge_rounds_sums(&r);
    TU_OK(eng, gs_buf_write(d.buf, d.index * 16, sums, sizeof sums));
    gs_chal c;
    cr_assert_eq(gs_sponge_rounds_step(&r, &c, &err), GLSTARK_OK, "%s", err.msg);
    /* the untouched run replays */
    cr_assert_eq(gs_sponge_rounds_read_later(&r, &err), GLSTARK_OK);
    TU_OK(eng, gs_engine_read_flush(eng));
    gs_transcript t1 = host;
    bb4_t got;
    cr_assert_eq(gs_sponge_rounds_replay(&r, &t1, 0, NULL, NULL, &got, &err), GLSTARK_OK, "%s", err.msg);
    /* then altered on the engine */
    if (alter_witness) {
        uint32_t bad;
        TU_OK(eng, gs_buf_read(r.wits, 0, &bad, 4));
        bad++;
        TU_OK(eng, gs_buf_write(r.wits, 0, &bad, 4));
    } else {
        bb4_t bad = bb4_add(got, bb4_one());
        TU_OK(eng, gs_buf_write(r.chals, 0, &bad, sizeof bad));
    }
    cr_assert_eq(gs_sponge_rounds_read_later(&r, &err), GLSTARK_OK);
    TU_OK(eng, gs_engine_read_flush(eng));
    gs_transcript t2 = host;
    cr_assert_eq(gs_sponge_rounds_replay(&r, &t2, 0, NULL, NULL, NULL, &err), GLSTARK_ERR_INTERNAL);
    cr_assert(strstr(err.msg, alter_witness ? "witness" : "challenge"), "%s", err.msg);
    gs_sponge_rounds_free(&r);
}

Test(sponge_gles, replay_refuses_another_challenge)
{
    gs_engine *engs[2] = {tu_engine_binding(0), tu_cpu_engine()};
    for (int e = 0; e < 2; e++) {
        replay_refuses(engs[e], 0, 0);
        replay_refuses(engs[e], 4, 1);
        gs_engine_destroy(engs[e]);
    }
}
