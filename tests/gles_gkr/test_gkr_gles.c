/* The GLES engine's gkr family against the CPU engine (the reference, itself
 * tested against OpenVM in tests/protocol/test_gkr.c): every op on fresh
 * random inputs with fixed printed seeds, edge values 0, 1, p-1, sizes that
 * are not multiples of the workgroup (and 1), outputs poisoned first and the
 * poison past the outputs checked; the same under a tiny binding limit so
 * every kernel runs in many windowed chunks; then the whole GKR sub-protocol
 * (gs_gkr_prove) on both engines, on random balanced fractions and on
 * OpenVM's interactions-small fixture (whose transcript it must replay). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <string.h>

#include "../gles/gles_test_util.h"
#include "../protocol/cl_fixtures.h"
#include "../protocol/replay_fs.h"
#include "engine/gkr_ops.h"
#include "common/gkr.h"
#include "prove/gkr.h"

#define POISON 0xDEADBEEFu

static gs_engine *cpu_eng(void)
{
    gs_engine *e = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &e, &err), GLSTARK_OK, "%s", err.msg);
    return e;
}

static gs_engine *gles_eng(uint64_t max_binding)
{
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = max_binding;
    return tu_engine(&o);
}

/* random EF element; every 7th coordinate is an edge value 0, 1 or p-1 */
static bb4_t rnd_ef(uint64_t *s)
{
    bb4_t e;
    for (int i = 0; i < 4; i++) {
        uint64_t r = splitmix64(s);
        if (r % 7 == 0)
            e.c[i] = (r >> 8) % 3 == 0 ? 0 : (r >> 8) % 3 == 1 ? bb_one() : bb_from_canonical(BB_P - 1);
        else
            e.c[i] = bb_from_u64(r >> 3);
    }
    return e;
}

static bb4_t *rnd_vec(uint64_t *s, size_t n)
{
    bb4_t *v = tu_alloc((n ? n : 1) * sizeof(bb4_t));
    for (size_t i = 0; i < n; i++)
        v[i] = rnd_ef(s);
    /* whole edge elements at the front */
    if (n > 0)
        v[0] = bb4_zero();
    if (n > 1)
        v[1] = bb4_one();
    if (n > 2)
        for (int i = 0; i < 4; i++)
            v[2].c[i] = bb_from_canonical(BB_P - 1);
    return v;
}

/* An engine buffer of cap EF elements: poison, then data[0..n) if given. */
static gs_buf *mk(gs_engine *e, size_t cap, const bb4_t *data, size_t n)
{
    gs_buf *b = NULL;
    TU_OK(e, gs_buf_create(e, cap * sizeof(bb4_t), &b));
    TU_OK(e, gs_buf_fill_u32(b, 0, cap * 4, POISON));
    if (data && n)
        TU_OK(e, gs_buf_write(b, 0, data, n * sizeof(bb4_t)));
    return b;
}

static bb4_t *rd(gs_engine *e, gs_buf *b, size_t cap)
{
    bb4_t *v = tu_alloc(cap * sizeof(bb4_t));
    TU_OK(e, gs_buf_read(b, 0, v, cap * sizeof(bb4_t)));
    return v;
}

static void same(const bb4_t *g, const bb4_t *c, size_t n, const char *what, size_t size, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(memcmp(&g[i], &c[i], sizeof(bb4_t)) == 0,
                  "%s (size %zu, seed %llu): element %zu differs: gles %08x.. cpu %08x..", what, size,
                  (unsigned long long)seed, i, g[i].c[0], c[i].c[0]);
}

static const size_t sizes[] = {1, 2, 3, 5, 127, 128, 129, 255, 257, 1000, 4099};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void check_layer_up(gs_engine *g, gs_engine *c, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    bb4_t *P = rnd_vec(&s, 2 * n), *Q = rnd_vec(&s, 2 * n);
    bb4_t *out[2][2];
    gs_engine *es[2] = {g, c};
    for (int k = 0; k < 2; k++) {
        gs_buf *p = mk(es[k], 2 * n, P, 2 * n), *q = mk(es[k], 2 * n, Q, 2 * n);
        gs_buf *pp = mk(es[k], n + 1, NULL, 0), *qp = mk(es[k], n + 1, NULL, 0);
        TU_OK(es[k], es[k]->gkr->layer_up(es[k], p, q, n, pp, qp));
        out[k][0] = rd(es[k], pp, n + 1);
        out[k][1] = rd(es[k], qp, n + 1);
        gs_buf_destroy(p), gs_buf_destroy(q), gs_buf_destroy(pp), gs_buf_destroy(qp);
    }
    same(out[0][0], out[1][0], n + 1, "layer_up p", n, seed);
    same(out[0][1], out[1][1], n + 1, "layer_up q", n, seed);
    cr_assert_eq(out[0][0][n].c[0], POISON, "layer_up wrote past its output");
    free(P), free(Q);
    for (int k = 0; k < 2; k++)
        free(out[k][0]), free(out[k][1]);
}

static void check_round(gs_engine *g, gs_engine *c, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    bb4_t *E = rnd_vec(&s, 2 * n), *P = rnd_vec(&s, 4 * n), *Q = rnd_vec(&s, 4 * n);
    bb4_t lambda = rnd_ef(&s), out[2][3];
    gs_engine *es[2] = {g, c};
    for (int k = 0; k < 2; k++) {
        gs_buf *e = mk(es[k], 2 * n, E, 2 * n), *p = mk(es[k], 4 * n, P, 4 * n), *q = mk(es[k], 4 * n, Q, 4 * n);
        memset(out[k], 0xAB, sizeof out[k]);
        TU_OK(es[k], es[k]->gkr->round(es[k], e, p, q, n, lambda, gs_sums_host(out[k])));
        /* the same sums left in an engine buffer, between poisoned elements */
        gs_buf *sb = mk(es[k], 5, NULL, 0);
        TU_OK(es[k], gs_buf_fill_u32(sb, 0, 20, 0xDEADBEEFu));
        TU_OK(es[k], es[k]->gkr->round(es[k], e, p, q, n, lambda, gs_sums_in(sb, 1)));
        bb4_t *in_buf = rd(es[k], sb, 5);
        same(out[k], in_buf + 1, 3, "round sums left in a buffer", n, seed);
        cr_assert(in_buf[0].c[0] == 0xDEADBEEFu && in_buf[4].c[3] == 0xDEADBEEFu, "round: neighbours overwritten");
        free(in_buf);
        gs_buf_destroy(sb);
        gs_buf_destroy(e), gs_buf_destroy(p), gs_buf_destroy(q);
    }
    same(out[0], out[1], 3, "round s(1..3)", n, seed);
    free(E), free(P), free(Q);
}

static void check_fold(gs_engine *g, gs_engine *c, size_t n, size_t stride, int in_place, uint64_t seed)
{
    uint64_t s = seed;
    size_t m = 2 * n * stride;
    bb4_t *S = rnd_vec(&s, m);
    bb4_t r = rnd_ef(&s);
    bb4_t *out[2];
    gs_engine *es[2] = {g, c};
    for (int k = 0; k < 2; k++) {
        gs_buf *src = mk(es[k], m, S, m);
        gs_buf *dst = in_place ? src : mk(es[k], n * stride + 1, NULL, 0);
        /* r from the host, or (odd seeds) sampled into an engine buffer */
        bb4_t held[2] = {bb4_one(), r};
        gs_buf *cb = mk(es[k], 2, held, 2);
        TU_OK(es[k], es[k]->gkr->fold(es[k], src, n, stride, seed & 1 ? gs_chal_in(cb, 1) : gs_chal_value(r), dst));
        gs_buf_destroy(cb);
        out[k] = rd(es[k], dst, in_place ? m : n * stride + 1);
        if (!in_place)
            gs_buf_destroy(dst);
        gs_buf_destroy(src);
    }
    size_t cmp = in_place ? n * stride : n * stride + 1;
    char what[64];
    snprintf(what, sizeof what, "fold stride %zu%s", stride, in_place ? " in place" : "");
    same(out[0], out[1], cmp, what, n, seed);
    if (!in_place)
        cr_assert_eq(out[0][n * stride].c[0], POISON, "fold wrote past its output");
    else /* the upper half is left as it was */
        same(out[0] + n * stride, S + n * stride, m - n * stride, "fold in place upper half", n, seed);
    free(S), free(out[0]), free(out[1]);
}

static void check_eq(gs_engine *g, gs_engine *c, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    bb4_t xi[16];
    for (size_t i = 0; i < n; i++)
        xi[i] = rnd_ef(&s);
    if (n > 1)
        xi[1] = bb4_zero();
    if (n > 2)
        xi[2] = bb4_one();
    size_t len = (size_t)1 << n;
    bb4_t *out[2];
    gs_engine *es[2] = {g, c};
    for (int k = 0; k < 2; k++) {
        gs_buf *d = mk(es[k], len + 1, NULL, 0);
        TU_OK(es[k], es[k]->gkr->eq_table(es[k], xi, n, d));
        out[k] = rd(es[k], d, len + 1);
        gs_buf_destroy(d);
    }
    same(out[0], out[1], len, "eq_table", n, seed);
    cr_assert_eq(out[0][len].c[0], POISON, "eq_table wrote past its output");
    free(out[0]), free(out[1]);
}

static void all_ops(uint64_t max_binding, uint64_t seed0)
{
    gs_engine *g = gles_eng(max_binding), *c = cpu_eng();
    size_t live0 = g->bytes_live;
    cr_log_info("gkr ops, binding limit %llu, seeds from %llu", (unsigned long long)max_binding,
                (unsigned long long)seed0);
    for (size_t i = 0; i < NSIZES; i++) {
        uint64_t seed = seed0 + 16 * i;
        check_layer_up(g, c, sizes[i], seed);
        check_round(g, c, sizes[i], seed + 1);
        check_fold(g, c, sizes[i], 1, 0, seed + 2);
        check_fold(g, c, sizes[i], 2, 0, seed + 3);
        check_fold(g, c, sizes[i], 1, 1, seed + 4);
        check_fold(g, c, sizes[i], 2, 1, seed + 5);
        check_fold(g, c, sizes[i], 3, 0, seed + 6);
    }
    for (size_t n = 0; n <= 12; n++)
        check_eq(g, c, n, seed0 + 1000 + n);
    /* empty work is a no-op */
    gs_buf *b = mk(g, 4, NULL, 0);
    bb4_t out[3];
    memset(out, 0xAB, sizeof out);
    TU_OK(g, g->gkr->layer_up(g, b, b, 0, b, b));
    TU_OK(g, g->gkr->round(g, b, b, b, 0, bb4_one(), gs_sums_host(out)));
    TU_OK(g, g->gkr->fold(g, b, 0, 1, gs_chal_value(bb4_one()), b));
    for (int i = 0; i < 3; i++)
        cr_assert(bb4_is_zero(out[i]), "an empty round sums to zero");
    bb4_t *v = rd(g, b, 4);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(v[i].c[0], POISON, "empty ops wrote");
    free(v);
    gs_buf_destroy(b);
    /* the temporaries of round and in-place fold are all released */
    cr_assert_eq(g->bytes_live, live0, "%zu device bytes leaked", g->bytes_live - live0);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(gkr_gles, ops_match_cpu)
{
    all_ops(0, 0x6B770000ull);
}

/* 1 KiB per binding (4 KiB after floor-mode alignment): every op runs in
 * many aligned windows and dispatches. */
Test(gkr_gles, ops_match_cpu_small_bindings)
{
    all_ops(1024, 0x6B771000ull);
}

Test(gkr_gles, bad_sizes_give_a_status)
{
    gs_engine *g = gles_eng(0);
    gs_buf *a = mk(g, 4, NULL, 0), *b = mk(g, 4, NULL, 0);
    bb4_t out[3];
    cr_assert_eq(g->gkr->layer_up(g, a, a, 3, b, b), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_neq(g->err.msg[0], 0);
    cr_assert_eq(g->gkr->round(g, a, a, a, 2, bb4_one(), gs_sums_host(out)), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(g->gkr->fold(g, a, 3, 1, gs_chal_value(bb4_one()), b), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(g->gkr->round(g, b, b, b, 0, bb4_one(), gs_sums_in(a, 2)), GLSTARK_ERR_INVALID_ARGUMENT,
                 "sums past the buffer's end");
    cr_assert_eq(g->gkr->fold(g, b, 0, 1, gs_chal_in(a, 9), b), GLSTARK_ERR_INVALID_ARGUMENT,
                 "a challenge past the buffer's end");
    bb4_t xi[3] = {bb4_one(), bb4_one(), bb4_one()};
    cr_assert_eq(g->gkr->eq_table(g, xi, 3, a), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(a), gs_buf_destroy(b);
    gs_engine_destroy(g);
}

/* ---- the whole sub-protocol ---- */

/* A transcript stand-in: observes fold into a splitmix state and are logged,
 * so both engines get the same challenges only if they observe the same. */
typedef struct log_fs {
    uint64_t s;
    bb_t *log;
    size_t n, cap;
} log_fs;

static void lf_observe(void *c, bb_t v)
{
    log_fs *f = c;
    f->s = (f->s ^ v) * 0x9E3779B97F4A7C15ull;
    if (f->n < f->cap)
        f->log[f->n] = v;
    f->n++;
}

static bb_t lf_sample(void *c) { return bb_from_u64(splitmix64(&((log_fs *)c)->s)); }

static void prove_on(gs_engine *e, const bb4_t *P, const bb4_t *Q, uint32_t R, uint64_t seed, log_fs *lf,
                     gs_gkr_proof *pf, bb4_t *xi, glstark_status want)
{
    size_t n = (size_t)1 << R;
    gs_buf *p = mk(e, n, P, n), *q = mk(e, n, Q, n);
    lf->s = seed;
    lf->n = 0;
    gs_fs fs = {lf, lf_observe, lf_sample, NULL};
    gs_error err;
    glstark_status st = gs_gkr_prove(e, &fs, p, q, R, pf, xi, &err);
    cr_assert_eq(st, want, "%s: gkr prove R %u -> %s: %s", e->core->name, R, glstark_status_name(st), err.msg);
    gs_buf_destroy(p), gs_buf_destroy(q);
}

Test(gkr_gles, prove_matches_cpu_on_random_balanced_fractions)
{
    gs_engine *g = gles_eng(0), *c = cpu_eng();
    for (uint32_t R = 1; R <= 11; R++) {
        uint64_t seed = 0x6B772000ull + R;
        cr_log_info("prove R = %u, seed %llu", R, (unsigned long long)seed);
        size_t n = (size_t)1 << R;
        uint64_t s = seed;
        bb4_t *P = rnd_vec(&s, n), *Q = tu_alloc(n * sizeof(bb4_t));
        for (size_t i = 0; i < n; i++) {
            do
                Q[i] = rnd_ef(&s);
            while (bb4_is_zero(Q[i]));
        }
        bb4_t sum = bb4_zero();
        for (size_t i = 0; i + 1 < n; i++)
            sum = bb4_add(sum, bb4_mul(P[i], bb4_inv(Q[i])));
        P[n - 1] = bb4_neg(bb4_mul(sum, Q[n - 1]));
        size_t cap = 64 * (size_t)R * R + 64;
        log_fs lg = {0, tu_alloc(cap * 4), 0, cap}, lc = {0, tu_alloc(cap * 4), 0, cap};
        gs_gkr_proof pg, pc;
        bb4_t xg[16], xc[16];
        prove_on(g, P, Q, R, seed, &lg, &pg, xg, GLSTARK_OK);
        prove_on(c, P, Q, R, seed, &lc, &pc, xc, GLSTARK_OK);
        cr_assert_eq(lg.n, lc.n, "R %u: %zu observations on gles, %zu on cpu", R, lg.n, lc.n);
        cr_assert_eq(memcmp(lg.log, lc.log, (lg.n < cap ? lg.n : cap) * 4), 0, "R %u: transcripts differ", R);
        cr_assert(bb4_eq(pg.q0_claim, pc.q0_claim));
        cr_assert_eq(memcmp(pg.claims, pc.claims, R * sizeof(gs_gkr_layer_claims)), 0, "R %u: claims differ", R);
        cr_assert_eq(memcmp(pg.sumcheck, pc.sumcheck, 3 * (size_t)R * (R - 1) / 2 * sizeof(bb4_t)), 0,
                     "R %u: sumcheck messages differ", R);
        cr_assert_eq(memcmp(xg, xc, R * sizeof(bb4_t)), 0, "R %u: xi differs", R);
        gs_gkr_proof_free(&pg), gs_gkr_proof_free(&pc);
        /* unbalanced: both refuse */
        P[0] = bb4_add(P[0], bb4_one());
        prove_on(g, P, Q, R, seed, &lg, &pg, xg, GLSTARK_ERR_UNSATISFIED);
        prove_on(c, P, Q, R, seed, &lc, &pc, xc, GLSTARK_ERR_UNSATISFIED);
        free(lg.log), free(lc.log), free(P), free(Q);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

static gs_buf *upload_cols(gs_engine *eng, const uint32_t *cols, size_t n)
{
    bb_t *h = tu_alloc(n * sizeof(bb_t));
    for (size_t i = 0; i < n; i++)
        h[i] = bb_from_canonical(cols[i]);
    gs_buf *b = NULL;
    TU_OK(eng, gs_buf_create(eng, n * sizeof(bb_t), &b));
    TU_OK(eng, gs_buf_write(b, 0, h, n * sizeof(bb_t)));
    free(h);
    return b;
}

/* OpenVM's interactions-small: the input layer and the whole GKR on the
 * GLES engine replay OpenVM's transcript (alpha, beta and every challenge
 * from its log) and give the CPU engine's leaves. */
Test(gkr_gles, interactions_small_replays_openvm)
{
    gs_engine *g = gles_eng(0), *c = cpu_eng();
    gs_cdag dags[2] = {ix_dag(1), ix_dag(0)};
    uint32_t widths[1] = {2};
    gs_buf *mg[2] = {upload_cols(g, &ix1_cols[0][0], 16), upload_cols(g, &ix0_cols[0][0], 8)};
    gs_buf *mc[2] = {upload_cols(c, &ix1_cols[0][0], 16), upload_cols(c, &ix0_cols[0][0], 8)};
    const gs_buf *pg[2][1] = {{mg[0]}, {mg[1]}}, *pc[2][1] = {{mc[0]}, {mc[1]}};
    gs_zc_trace tg[2], tc[2];
    for (int t = 0; t < 2; t++) {
        gs_zc_trace a = {&dags[t], t == 0 ? 3u : 2u, 1, pg[t], widths, NULL, 0, NULL};
        gs_zc_trace b = {&dags[t], t == 0 ? 3u : 2u, 1, pc[t], widths, NULL, 0, NULL};
        tg[t] = a;
        tc[t] = b;
    }
    replay r;
    cr_assert_eq(replay_load(&r, "interactions-small.transcript.txt"), 0);
    bb4_t alpha = replay_ext(&r, "gkr.alpha_logup"), beta = replay_ext(&r, "gkr.beta_logup");
    uint64_t slots[2] = {0, 8};
    gs_buf *p = mk(g, 16, NULL, 0), *q = mk(g, 16, NULL, 0);
    gs_buf *cp = mk(c, 16, NULL, 0), *cq = mk(c, 16, NULL, 0);
    TU_OK(g, g->gkr->input_layer(g, tg, 2, slots, 2, alpha, beta, 16, p, q));
    TU_OK(c, c->gkr->input_layer(c, tc, 2, slots, 2, alpha, beta, 16, cp, cq));
    bb4_t *a0 = rd(g, p, 16), *a1 = rd(c, cp, 16), *b0 = rd(g, q, 16), *b1 = rd(c, cq, 16);
    same(a0, a1, 16, "input layer p", 16, 0);
    same(b0, b1, 16, "input layer q", 16, 0);
    r.pos = (size_t)replay_find(&r, "gkr.q0_claim");
    gs_fs fs = replay_fs(&r);
    gs_gkr_proof pf;
    bb4_t xi[4];
    gs_error err;
    cr_assert_eq(gs_gkr_prove(g, &fs, p, q, 4, &pf, xi, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(r.first_bad < 0, "GLES transcript differs from OpenVM: %s", r.bad_what);
    cr_assert_eq(r.pos, (size_t)replay_find(&r, "batch.lambda"), "GKR ended at op %zu", r.pos);
    cr_assert(bb4_eq(xi[0], replay_ext(&r, "gkr.layer[3].mu")));
    cr_assert(bb4_eq(xi[3], replay_ext(&r, "gkr.layer[3].sumcheck[2].r")));
    gs_gkr_proof_free(&pf);
    free(a0), free(a1), free(b0), free(b1);
    gs_buf_destroy(p), gs_buf_destroy(q), gs_buf_destroy(cp), gs_buf_destroy(cq);
    for (int t = 0; t < 2; t++)
        gs_buf_destroy(mg[t]), gs_buf_destroy(mc[t]);
    replay_free(&r);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* ---- input layer on random DAGs ----
 * Three parts in opening order [common main, preprocessed, cached_0]
 * (common main is OpenVM part_index n_cached = 1, cached_0 is part_index 0),
 * random variables with rotations, publics, constants 0/1/p-1, selectors,
 * ADD/SUB/NEG/MUL, interactions with messages of length 0..5 on random
 * buses; heights below and above 2^l_skip (lifted traces); slots spread
 * over a larger leaf array whose gaps must stay (0, alpha). */
typedef struct rnd_dag {
    gs_cnode nodes[96];
    uint32_t msg[8][6];
    gs_cinteraction its[8];
    gs_cdag dag;
} rnd_dag;

static void make_dag(rnd_dag *r, uint64_t *s, const uint32_t widths[3], uint32_t n_pub, uint32_t n_int)
{
    uint32_t n = 0;
    for (; n < 96; n++) {
        gs_cnode *c = &r->nodes[n];
        memset(c, 0, sizeof(*c));
        uint64_t x = splitmix64(s);
        unsigned kind = n < 12 ? (unsigned)(x % 7) : (unsigned)(x % 11);
        if (kind >= GS_CN_ADD && n == 0)
            kind = GS_CN_CONST;
        c->kind = (uint8_t)kind;
        uint64_t y = splitmix64(s);
        switch (kind) {
        case GS_CN_VAR_PREP:
            c->a = (uint32_t)(y % widths[1]);
            c->offset = (uint8_t)((y >> 8) & 1);
            break;
        case GS_CN_VAR_MAIN: {
            int cached = (y >> 16) & 1;
            c->part = cached ? 0 : 1;
            c->a = (uint32_t)(y % widths[cached ? 2 : 0]);
            c->offset = (uint8_t)((y >> 8) & 1);
            break;
        }
        case GS_CN_PUBLIC: c->a = (uint32_t)(y % n_pub); break;
        case GS_CN_IS_FIRST:
        case GS_CN_IS_LAST:
        case GS_CN_IS_TRANSITION: break;
        case GS_CN_CONST:
            c->value = y % 4 == 0 ? 0 : y % 4 == 1 ? bb_one() : y % 4 == 2 ? bb_from_canonical(BB_P - 1) : bb_from_u64(y >> 2);
            break;
        default:
            c->a = (uint32_t)(y % n);
            c->b = (uint32_t)((y >> 32) % n);
        }
    }
    for (uint32_t k = 0; k < n_int; k++) {
        uint64_t y = splitmix64(s);
        r->its[k].message_len = (uint32_t)(y % 6);
        for (uint32_t j = 0; j < r->its[k].message_len; j++)
            r->msg[k][j] = (uint32_t)(splitmix64(s) % 96);
        r->its[k].message = r->msg[k];
        r->its[k].count = (uint32_t)((y >> 8) % 96);
        r->its[k].bus_index = (uint16_t)((y >> 24) % 7);
    }
    gs_cdag d = {r->nodes, 96, NULL, 0, r->its, n_int, 3, 1, 1, 1};
    r->dag = d;
}

static void check_input_layer(uint64_t max_binding, uint64_t seed)
{
    gs_engine *g = gles_eng(max_binding), *c = cpu_eng();
    uint64_t s = seed;
    const uint32_t l_skip = 3, n_traces = 3;
    const uint32_t log_h[3] = {6, 1, 3}, n_int[3] = {3, 2, 0};
    static const uint32_t widths[3][3] = {{5, 2, 3}, {1, 1, 2}, {2, 1, 1}};
    rnd_dag dags[3];
    bb_t pubs[3][4];
    gs_buf *bg[3][3], *bc[3][3];
    gs_zc_trace tg[3], tc[3];
    uint64_t slots[8];
    size_t si = 0, leaf = 5; /* slots need not be aligned */
    for (uint32_t t = 0; t < n_traces; t++) {
        make_dag(&dags[t], &s, widths[t], 4, n_int[t]);
        for (int i = 0; i < 4; i++)
            pubs[t][i] = bb_from_u64(splitmix64(&s));
        size_t h = (size_t)1 << log_h[t];
        for (int pi = 0; pi < 3; pi++) {
            size_t words = h * widths[t][pi];
            bb_t *v = tu_alloc(words * 4);
            for (size_t i = 0; i < words; i++) {
                uint64_t x = splitmix64(&s);
                v[i] = x % 5 == 0 ? 0 : x % 5 == 1 ? bb_one() : x % 5 == 2 ? bb_from_canonical(BB_P - 1) : bb_from_u64(x);
            }
            TU_OK(g, gs_buf_create(g, words * 4, &bg[t][pi]));
            TU_OK(g, gs_buf_write(bg[t][pi], 0, v, words * 4));
            TU_OK(c, gs_buf_create(c, words * 4, &bc[t][pi]));
            TU_OK(c, gs_buf_write(bc[t][pi], 0, v, words * 4));
            free(v);
        }
        gs_zc_trace a = {&dags[t].dag, log_h[t], 3, (const gs_buf *const *)bg[t], widths[t], pubs[t], 4, NULL};
        gs_zc_trace b = {&dags[t].dag, log_h[t], 3, (const gs_buf *const *)bc[t], widths[t], pubs[t], 4, NULL};
        tg[t] = a;
        tc[t] = b;
        size_t len = (size_t)1 << (log_h[t] > l_skip ? log_h[t] : l_skip);
        for (uint32_t k = 0; k < n_int[t]; k++) {
            slots[si++] = leaf;
            leaf += len + (splitmix64(&s) % 3);
        }
    }
    size_t n_leaves = leaf + 7;
    bb4_t alpha = rnd_ef(&s), beta = rnd_ef(&s);
    gs_buf *p = mk(g, n_leaves, NULL, 0), *q = mk(g, n_leaves, NULL, 0);
    gs_buf *cp = mk(c, n_leaves, NULL, 0), *cq = mk(c, n_leaves, NULL, 0);
    TU_OK(g, g->gkr->input_layer(g, tg, n_traces, slots, l_skip, alpha, beta, n_leaves, p, q));
    TU_OK(c, c->gkr->input_layer(c, tc, n_traces, slots, l_skip, alpha, beta, n_leaves, cp, cq));
    bb4_t *a0 = rd(g, p, n_leaves), *a1 = rd(c, cp, n_leaves), *b0 = rd(g, q, n_leaves), *b1 = rd(c, cq, n_leaves);
    same(a0, a1, n_leaves, "input layer p", n_leaves, seed);
    same(b0, b1, n_leaves, "input layer q", n_leaves, seed);
    /* a bad slot is refused with a message */
    slots[0] = n_leaves;
    cr_assert_eq(g->gkr->input_layer(g, tg, n_traces, slots, l_skip, alpha, beta, n_leaves, p, q),
                 GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_neq(g->err.msg[0], 0);
    free(a0), free(a1), free(b0), free(b1);
    gs_buf_destroy(p), gs_buf_destroy(q), gs_buf_destroy(cp), gs_buf_destroy(cq);
    for (uint32_t t = 0; t < n_traces; t++)
        for (int pi = 0; pi < 3; pi++)
            gs_buf_destroy(bg[t][pi]), gs_buf_destroy(bc[t][pi]);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(gkr_gles, input_layer_matches_cpu_on_random_dags)
{
    for (uint64_t i = 0; i < 6; i++) {
        uint64_t seed = 0x6B773000ull + i;
        cr_log_info("input layer, seed %llu", (unsigned long long)seed);
        check_input_layer(0, seed);
    }
}

/* 1 KiB bindings: several row chunks and column windows per part. */
Test(gkr_gles, input_layer_matches_cpu_small_bindings)
{
    for (uint64_t i = 0; i < 3; i++) {
        uint64_t seed = 0x6B774000ull + i;
        cr_log_info("input layer (1 KiB bindings), seed %llu", (unsigned long long)seed);
        check_input_layer(1024, seed);
    }
}
