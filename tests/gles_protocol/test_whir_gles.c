/* The GLES whir family against the CPU engine (itself checked against naive
 * definitions in tests/protocol/test_whir_ops.c): every op on fresh random
 * inputs from printed seeds, with 0/1/p-1 mixed in, lengths that are not
 * multiples of the work-group size (and 1), outputs poisoned first and whole
 * buffers compared (so words past the length must stay untouched). The
 * "windows" tests lower the per-binding limit to 4 KiB so the column
 * windows, row chunks and split butterfly halves run on any device. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_pair.h"
#include "engine/whir_ops.h"

static pair open_pair(uint64_t max_binding, uint64_t seed)
{
    pair p = ep_open_pair(max_binding, seed);
    cr_assert_not_null(p.g->whir, "the GLES engine has a whir family");
    return p;
}

static void same_ef(bb4_t a, bb4_t b, const char *what)
{
    for (int j = 0; j < 4; j++)
        cr_assert_eq(a.c[j], b.c[j], "%s: coefficient %d gles %08x cpu %08x", what, j, a.c[j], b.c[j]);
}

/* ---- per-op checks, shared by the default and the small-binding tests ---- */

static void check_batch(pair *p, size_t height, size_t w0, size_t w1, size_t off0, size_t off1)
{
    size_t t0 = off0 + w0 * height + 3, t1 = off1 + w1 * height + 2;
    uint32_t *m0 = rnd_words(&p->s, t0), *m1 = rnd_words(&p->s, t1);
    bb4_t co[64];
    for (size_t i = 0; i < w0 + w1; i++)
        co[i] = rnd4(&p->s);
    gs_buf *gm[2] = {mk(p->g, t0, m0, t0), mk(p->g, t1, m1, t1)};
    gs_buf *cm[2] = {mk(p->c, t0, m0, t0), mk(p->c, t1, m1, t1)};
    size_t offs[2] = {off0, off1}, wd[2] = {w0, w1};
    size_t ow = 4 * height + 8;
    gs_buf *go = mk(p->g, ow, NULL, 0), *c_o = mk(p->c, ow, NULL, 0);
    TU_OK(p->g, p->g->whir->batch_columns(p->g, (const gs_buf *const *)gm, offs, wd, 2, height, co, go));
    TU_OK(p->c, p->c->whir->batch_columns(p->c, (const gs_buf *const *)cm, offs, wd, 2, height, co, c_o));
    char what[96];
    snprintf(what, sizeof what, "batch_columns h %zu widths %zu,%zu offs %zu,%zu", height, w0, w1, off0, off1);
    same(go, c_o, ow, what);
    for (int i = 0; i < 2; i++) {
        gs_buf_destroy(gm[i]);
        gs_buf_destroy(cm[i]);
    }
    gs_buf_destroy(go);
    gs_buf_destroy(c_o);
    free(m0);
    free(m1);
}

static void check_prepare_f(pair *p, unsigned log_n, unsigned l)
{
    size_t w = (size_t)4 << log_n;
    uint32_t *d = rnd_words(&p->s, w);
    gs_buf *g = mk(p->g, w + 4, d, w), *c = mk(p->c, w + 4, d, w);
    TU_OK(p->g, p->g->whir->prepare_f(p->g, g, log_n, l));
    TU_OK(p->c, p->c->whir->prepare_f(p->c, c, log_n, l));
    char what[64];
    snprintf(what, sizeof what, "prepare_f log_n %u l_skip %u", log_n, l);
    same(g, c, w + 4, what);
    gs_buf_destroy(g);
    gs_buf_destroy(c);
    free(d);
}

static void check_eq_table(pair *p, unsigned n)
{
    bb4_t u[32];
    for (unsigned i = 0; i < n; i++)
        u[i] = rnd4(&p->s);
    size_t w = ((size_t)4 << n) + 4;
    gs_buf *g = mk(p->g, w, NULL, 0), *c = mk(p->c, w, NULL, 0);
    TU_OK(p->g, p->g->whir->eq_table(p->g, u, n, g));
    TU_OK(p->c, p->c->whir->eq_table(p->c, u, n, c));
    char what[64];
    snprintf(what, sizeof what, "eq_table n %u", n);
    same(g, c, w, what);
    gs_buf_destroy(g);
    gs_buf_destroy(c);
}

/* sumcheck_round, then fold, on f and w of length len (even). */
static void check_round_fold(pair *p, size_t len)
{
    size_t w = 4 * len + 8;
    uint32_t *f = rnd_words(&p->s, 4 * len), *ww = rnd_words(&p->s, 4 * len);
    gs_buf *gf = mk(p->g, w, f, 4 * len), *gw = mk(p->g, w, ww, 4 * len);
    gs_buf *cf = mk(p->c, w, f, 4 * len), *cw = mk(p->c, w, ww, 4 * len);
    bb4_t a[2], b[2];
    memset(a, 0x5A, sizeof a);
    TU_OK(p->g, p->g->whir->sumcheck_round(p->g, gf, gw, len, gs_sums_host(a)));
    TU_OK(p->c, p->c->whir->sumcheck_round(p->c, cf, cw, len, gs_sums_host(b)));
    char what[64];
    snprintf(what, sizeof what, "sumcheck_round len %zu s(1)", len);
    same_ef(a[0], b[0], what);
    snprintf(what, sizeof what, "sumcheck_round len %zu s(2)", len);
    same_ef(a[1], b[1], what);
    bb4_t al = rnd4(&p->s);
    size_t wo = 2 * len + 8; /* outputs of len/2 elements, poisoned past them */
    gs_buf *gfo = mk(p->g, wo, NULL, 0), *gwo = mk(p->g, wo, NULL, 0);
    gs_buf *cfo = mk(p->c, wo, NULL, 0), *cwo = mk(p->c, wo, NULL, 0);
    TU_OK(p->g, p->g->whir->fold(p->g, gf, gw, len, gs_chal_value(al), gfo, gwo));
    TU_OK(p->c, p->c->whir->fold(p->c, cf, cw, len, gs_chal_value(al), cfo, cwo));
    snprintf(what, sizeof what, "fold len %zu: f_out", len);
    same(gfo, cfo, wo, what);
    snprintf(what, sizeof what, "fold len %zu: w_out", len);
    same(gwo, cwo, wo, what);
    snprintf(what, sizeof what, "fold len %zu: f and w untouched", len);
    same(gf, cf, w, what);
    same(gw, cw, w, what);
    gs_buf *bufs[] = {gf, gw, cf, cw, gfo, gwo, cfo, cwo};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        gs_buf_destroy(bufs[i]);
    free(f);
    free(ww);
}

static void check_eval(pair *p, size_t len)
{
    uint32_t *d = rnd_words(&p->s, 4 * len + 4);
    gs_buf *g = mk(p->g, 4 * len + 4, d, 4 * len + 4), *c = mk(p->c, 4 * len + 4, d, 4 * len + 4);
    bb4_t z = rnd4(&p->s), a, b;
    memset(&a, 0x5A, sizeof a);
    TU_OK(p->g, p->g->whir->eval_univariate(p->g, g, len, z, &a));
    TU_OK(p->c, p->c->whir->eval_univariate(p->c, c, len, z, &b));
    char what[64];
    snprintf(what, sizeof what, "eval_univariate len %zu", len);
    same_ef(a, b, what);
    gs_buf_destroy(g);
    gs_buf_destroy(c);
    free(d);
}

/* fold_encode of f and w of length len (a power of two) into a 2^log_n
 * codeword: the fused kernel where everything fits a binding, the fold and a
 * whole DFT otherwise. */
static void check_fold_encode(pair *p, size_t len, unsigned log_n)
{
    size_t n = (size_t)1 << log_n, w = 4 * len + 4, wo = 2 * len + 8, wc = 4 * n + 4;
    uint32_t *f = rnd_words(&p->s, 4 * len), *ww = rnd_words(&p->s, 4 * len);
    gs_buf *gf = mk(p->g, w, f, 4 * len), *gw = mk(p->g, w, ww, 4 * len);
    gs_buf *cf = mk(p->c, w, f, 4 * len), *cw = mk(p->c, w, ww, 4 * len);
    gs_buf *gfo = mk(p->g, wo, NULL, 0), *gwo = mk(p->g, wo, NULL, 0), *gc = mk(p->g, wc, NULL, 0);
    gs_buf *cfo = mk(p->c, wo, NULL, 0), *cwo = mk(p->c, wo, NULL, 0), *cc = mk(p->c, wc, NULL, 0);
    bb4_t al = rnd4(&p->s);
    TU_OK(p->g, p->g->whir->fold_encode(p->g, gf, gw, len, gs_chal_value(al), gfo, gwo, log_n, gc));
    TU_OK(p->c, p->c->whir->fold_encode(p->c, cf, cw, len, gs_chal_value(al), cfo, cwo, log_n, cc));
    char what[80];
    snprintf(what, sizeof what, "fold_encode len %zu log_n %u: codeword", len, log_n);
    same(gc, cc, wc, what);
    snprintf(what, sizeof what, "fold_encode len %zu log_n %u: f_out", len, log_n);
    same(gfo, cfo, wo, what);
    snprintf(what, sizeof what, "fold_encode len %zu log_n %u: w_out", len, log_n);
    same(gwo, cwo, wo, what);
    gs_buf *bufs[] = {gf, gw, cf, cw, gfo, gwo, gc, cfo, cwo, cc};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        gs_buf_destroy(bufs[i]);
    free(f);
    free(ww);
}

static void check_wacc(pair *p, unsigned n, size_t nz)
{
    size_t w = ((size_t)4 << n) + 4;
    uint32_t *d = rnd_words(&p->s, w);
    gs_buf *g = mk(p->g, w, d, w), *c = mk(p->c, w, d, w);
    bb4_t z0 = rnd4(&p->s), g0 = rnd4(&p->s);
    bb_t *zs = tu_alloc((nz + 1) * sizeof(bb_t));
    bb4_t *gm = tu_alloc((nz + 1) * sizeof(bb4_t));
    for (size_t q = 0; q < nz; q++) {
        zs[q] = rnd(&p->s);
        gm[q] = rnd4(&p->s);
    }
    TU_OK(p->g, p->g->whir->w_accumulate(p->g, g, n, z0, g0, zs, gm, nz));
    TU_OK(p->c, p->c->whir->w_accumulate(p->c, c, n, z0, g0, zs, gm, nz));
    char what[64];
    snprintf(what, sizeof what, "w_accumulate n %u points %zu", n, nz);
    same(g, c, w, what);
    gs_buf_destroy(g);
    gs_buf_destroy(c);
    free(zs);
    free(gm);
    free(d);
}

/* ---- default limits ---- */

Test(whir_gles, batch_columns)
{
    pair p = open_pair(0, 101);
    check_batch(&p, 1, 1, 2, 0, 1);
    check_batch(&p, 37, 3, 2, 3, 5);
    check_batch(&p, 300, 5, 1, 0, 7);
    check_batch(&p, 1024, 4, 3, 16, 1);
    close_pair(&p);
}

Test(whir_gles, prepare_f)
{
    pair p = open_pair(0, 102);
    /* l_skip <= 4: the composed block matrix; above: the dft family + butterflies */
    unsigned cases[][2] = {{0, 0}, {1, 1}, {1, 0}, {5, 2}, {9, 4}, {12, 3}, {10, 0}, {8, 5}, {7, 7}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_prepare_f(&p, cases[i][0], cases[i][1]);
    close_pair(&p);
}

Test(whir_gles, eq_table)
{
    pair p = open_pair(0, 103);
    unsigned ns[] = {0, 1, 2, 5, 11};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        check_eq_table(&p, ns[i]);
    close_pair(&p);
}

Test(whir_gles, sumcheck_round_and_fold)
{
    pair p = open_pair(0, 104);
    size_t lens[] = {0, 2, 6, 38, 512, 4098, 1 << 14};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        check_round_fold(&p, lens[i]);
    close_pair(&p);
}

Test(whir_gles, eval_univariate)
{
    pair p = open_pair(0, 106);
    size_t lens[] = {0, 1, 7, 8, 9, 1001, 8195};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        check_eval(&p, lens[i]);
    close_pair(&p);
}

Test(whir_gles, fold_encode)
{
    pair p = open_pair(0, 107);
    /* (len, log_n): one coefficient, no blowup (half = 2^log_n), WHIR-like
     * blowups 2^4 .. 2^7, and more elements than one dispatch's budget */
    unsigned cases[][2] = {{1, 0}, {1, 3}, {5, 5}, {6, 7}, {11, 15}, {8, 15}, {13, 16}, {16, 21}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_fold_encode(&p, (size_t)1 << cases[i][0], cases[i][1]);
    close_pair(&p);
}

Test(whir_gles, w_accumulate)
{
    pair p = open_pair(0, 108);
    check_wacc(&p, 0, 0);
    check_wacc(&p, 1, 1);
    check_wacc(&p, 4, 3);
    check_wacc(&p, 9, 17);
    check_wacc(&p, 12, 5);
    close_pair(&p);
}

/* The work-group sums (glsl/group_sum.glsl) both ways: the shared-memory
 * tree, and subgroup shuffles where the device offers them in compute shaders (an
 * NVIDIA GPU does; llvmpipe does not, and then only the tree runs). Each
 * sum feeds the round values and the univariate evaluation, so both must
 * equal the CPU engine's. */
Test(whir_gles, group_sums_tree_and_subgroup)
{
    unsetenv("GLSTARK_SUBGROUPS");
    for (int way = 0; way < 2; way++) {
        gs_device_config o;
        o = tu_config();
        o.subgroups = way ? GLSTARK_SUBGROUPS_ON : GLSTARK_SUBGROUPS_OFF;
        if (way) {
            gs_device_config probe;
            probe = tu_config();
            gs_engine *e = tu_engine(&probe);
            int have = gs_gles_device(e)->caps.subgroup_reduce;
            gs_engine_destroy(e);
            if (!have) {
                cr_log_info("this device offers no subgroup shuffles (or floor mode): only the tree ran");
                break;
            }
        }
        pair p = ep_open_pair_opts(&o, 111 + (uint64_t)way);
        cr_assert_eq(gs_gles_device(p.g)->caps.subgroup_reduce, way, "subgroup reductions %s", way ? "on" : "off");
        size_t lens[] = {2, 6, 514, 4098, 1 << 15};
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            check_round_fold(&p, lens[i]);
            check_eval(&p, lens[i] + 1);
        }
        close_pair(&p);
    }
}

/* ---- a 4 KiB binding limit: every op through small windows ---- */

Test(whir_gles, small_bindings)
{
    pair p = open_pair(4096, 109);
    check_batch(&p, 700, 4, 3, 5, 9);    /* columns of 2800 bytes: one or two per window */
    check_batch(&p, 3000, 2, 1, 1, 0);   /* a column longer than a window: row chunks */
    check_prepare_f(&p, 10, 3);          /* the block matrix (l_skip <= 4) through windows */
    check_prepare_f(&p, 12, 10);         /* butterflies: groups beyond a window, then blocks beyond it (split halves) */
    check_eq_table(&p, 10);
    check_round_fold(&p, 1000);
    check_eval(&p, 999);
    check_wacc(&p, 10, 4);
    check_fold_encode(&p, 64, 7);   /* f fits a window, the codeword does not: fold + whole DFT */
    check_fold_encode(&p, 1024, 9); /* neither fits */
    close_pair(&p);
}

/* Wrong sizes give a status and a message, not a crash. */
Test(whir_gles, bad_arguments)
{
    pair p = open_pair(0, 110);
    gs_buf *b = mk(p.g, 16, NULL, 0);
    bb4_t o[2];
    cr_assert_neq(p.g->whir->sumcheck_round(p.g, b, b, 64, gs_sums_host(o)), GLSTARK_OK);
    cr_assert(strlen(p.g->err.msg) > 0);
    cr_assert_neq(p.g->whir->prepare_f(p.g, b, 2, 3), GLSTARK_OK);
    /* folds are out of place; a codeword must fit the coefficients; lengths are powers of two */
    gs_buf *f = mk(p.g, 64, NULL, 0), *w = mk(p.g, 64, NULL, 0), *fo = mk(p.g, 64, NULL, 0);
    gs_buf *wo = mk(p.g, 64, NULL, 0), *c = mk(p.g, 64, NULL, 0);
    bb4_t al = rnd4(&p.s);
    cr_assert_eq(p.g->whir->fold(p.g, f, w, 16, gs_chal_value(al), f, wo), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(p.g->err.msg, "distinct") != NULL, "%s", p.g->err.msg);
    cr_assert_eq(p.g->whir->fold(p.g, f, w, 16, gs_chal_value(al), fo, b), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p.g->whir->fold_encode(p.g, f, w, 16, gs_chal_value(al), fo, wo, 2, c), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p.g->whir->fold_encode(p.g, f, w, 12, gs_chal_value(al), fo, wo, 4, c), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p.g->whir->fold_encode(p.g, f, w, 16, gs_chal_value(al), fo, wo, 4, f), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p.g->whir->fold_encode(p.g, f, w, 16, gs_chal_value(al), fo, wo, 5, c), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(p.g->err.msg) > 0);
    gs_buf *bufs[] = {b, f, w, fo, wo, c};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        gs_buf_destroy(bufs[i]);
    close_pair(&p);
}
