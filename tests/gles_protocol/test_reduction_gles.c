/* The GLES reduction family against the CPU engine (itself checked by the
 * stacked-reduction prover tests against OpenVM's proofs): round-0 block sums
 * on random stacked layouts (slices of every height, short ones included,
 * listed in shuffled order), the PLE fold into offset, strided output
 * columns, and product-sumcheck rounds and folds over column sets; random
 * inputs from printed seeds with 0/1/p-1 mixed in, outputs poisoned, whole
 * buffers compared. "small_bindings" lowers the per-binding limit to 4 KiB
 * so matrix windows, item batches and column pieces all run. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_pair.h"
#include "engine/reduction_ops.h"
#include "engine/read_later.h"

static pair open_pair(uint64_t max_binding, uint64_t seed)
{
    pair p = ep_open_pair(max_binding, seed);
    cr_assert_not_null(p.g->reduction, "the GLES engine has a reduction family");
    return p;
}

/* Block sums on a random layout: width columns of 2^(l + n_stack) rows,
 * each filled top-down with slots of random heights (2^h rows, h <= l +
 * n_stack, slot 2^max(h, l)), some slots left empty; slices shuffled. */
static void check_block_sums(pair *p, unsigned l, unsigned n_stack, uint32_t width)
{
    const uint32_t height = 1u << (l + n_stack);
    gs_red_slice *sl = tu_alloc((size_t)width * (height >> l) * sizeof *sl + sizeof *sl);
    uint32_t ns = 0;
    for (uint32_t c = 0; c < width; c++) {
        uint32_t row = 0;
        while (row < height) {
            uint32_t h = (uint32_t)(splitmix64(&p->s) % (l + n_stack + 1));
            uint32_t slot = 1u << (h > l ? h : l);
            while (row + slot > height) {
                h = h > l ? h - 1 : h;
                slot = 1u << (h > l ? h : l);
            }
            if (splitmix64(&p->s) % 5 != 0)
                sl[ns++] = (gs_red_slice){c, row, h};
            row += slot;
        }
    }
    for (uint32_t i = ns; i > 1; i--) { /* shuffle */
        uint32_t j = (uint32_t)(splitmix64(&p->s) % i);
        gs_red_slice t = sl[i - 1];
        sl[i - 1] = sl[j];
        sl[j] = t;
    }
    size_t mw = (size_t)width * height;
    uint32_t *m = rnd_words(&p->s, mw);
    size_t neq = ((size_t)2 << n_stack) - 1;
    bb4_t *eq = tu_alloc(neq * sizeof(bb4_t));
    for (size_t i = 0; i < neq; i++)
        eq[i] = rnd4(&p->s);
    size_t N = (size_t)1 << l, nout = (size_t)ns * 2 * N;
    bb4_t *a = tu_alloc(nout * sizeof(bb4_t) + 16), *b = tu_alloc(nout * sizeof(bb4_t) + 16);
    memset(a, 0x5A, nout * sizeof(bb4_t));
    memset(b, 0xA5, nout * sizeof(bb4_t));
    gs_buf *gm = mk(p->g, mw, m, mw), *cm = mk(p->c, mw, m, mw);
    TU_OK(p->g, p->g->reduction->block_sums(p->g, gm, height, l, sl, ns, eq, n_stack, a));
    TU_OK(p->c, p->c->reduction->block_sums(p->c, cm, height, l, sl, ns, eq, n_stack, b));
    TU_OK(p->g, gs_engine_read_flush(p->g));
    TU_OK(p->c, gs_engine_read_flush(p->c));
    for (size_t i = 0; i < nout; i++)
        for (int j = 0; j < 4; j++)
            cr_assert_eq(a[i].c[j], b[i].c[j],
                         "block_sums l %u n_stack %u width %u (%u slices): slice %zu half %zu z %zu coefficient %d", l,
                         n_stack, width, ns, i / (2 * N), (i / N) % 2, i % N, j);
    gs_buf_destroy(gm);
    gs_buf_destroy(cm);
    free(sl);
    free(m);
    free(eq);
    free(a);
    free(b);
}

/* fold_ple of matrix columns col0 .. col0 + width − 1: the CPU engine
 * against the definition, the GLES engine against the CPU engine. */
static void check_fold_ple(pair *p, unsigned l, uint32_t height, uint32_t col0, uint32_t width, size_t off, size_t pad)
{
    size_t mw = ((size_t)col0 + width) * height, nx = height >> l, stride = nx + pad;
    uint32_t *m = rnd_words(&p->s, mw);
    bb4_t lag[1024];
    for (size_t z = 0; z < ((size_t)1 << l); z++)
        lag[z] = rnd4(&p->s);
    size_t ow = 4 * (off + (width - 1) * stride + nx + 3);
    gs_buf *gm = mk(p->g, mw, m, mw), *cm = mk(p->c, mw, m, mw);
    gs_buf *go = mk(p->g, ow, NULL, 0), *co = mk(p->c, ow, NULL, 0);
    gs_red_cols g = {go, off, stride, width}, c = {co, off, stride, width};
    TU_OK(p->g, p->g->reduction->fold_ple(p->g, gm, col0, width, height, l, lag, &g));
    TU_OK(p->c, p->c->reduction->fold_ple(p->c, cm, col0, width, height, l, lag, &c));
    char what[112];
    snprintf(what, sizeof what, "fold_ple l %u height %u columns %u+%u off %zu pad %zu", l, height, col0, width, off,
             pad);
    const bb4_t *cout = (const bb4_t *)co->host;
    for (uint32_t col = 0; col < width; col++)
        for (size_t x = 0; x < nx; x++) {
            bb4_t e = bb4_zero();
            for (size_t z = 0; z < ((size_t)1 << l); z++)
                e = bb4_add(e, bb4_mul_base(lag[z], m[(col0 + col) * (size_t)height + (x << l) + z]));
            cr_assert(bb4_eq(cout[off + col * stride + x], e), "%s: column %u entry %zu against the definition", what,
                      col, x);
        }
    same(go, co, ow, what);
    gs_buf_destroy(gm);
    gs_buf_destroy(cm);
    gs_buf_destroy(go);
    gs_buf_destroy(co);
    free(m);
}

/* round_evals then fold on ncols column pairs of length len inside tables of
 * the given stride and offset. */
static void check_rounds(pair *p, size_t len, uint32_t ncols, size_t off, size_t stride, int max_rounds)
{
    size_t words = 4 * (off + (ncols - 1) * stride + len + 2);
    uint32_t *q = rnd_words(&p->s, words), *w = rnd_words(&p->s, words);
    gs_buf *gq = mk(p->g, words, q, words), *gw = mk(p->g, words, w, words);
    gs_buf *cq = mk(p->c, words, q, words), *cw = mk(p->c, words, w, words);
    gs_red_cols gqs = {gq, off, stride, ncols}, gws = {gw, off, stride, ncols};
    gs_red_cols cqs = {cq, off, stride, ncols}, cws = {cw, off, stride, ncols};
    char what[96];
    int rounds = 0;
    for (size_t n = len; n >= 2 && rounds < max_rounds; n /= 2, rounds++) {
        bb4_t a[2], b[2];
        memset(a, 0x5A, sizeof a);
        TU_OK(p->g, p->g->reduction->round_evals(p->g, &gqs, &gws, n, gs_sums_host(a)));
        TU_OK(p->c, p->c->reduction->round_evals(p->c, &cqs, &cws, n, gs_sums_host(b)));
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 4; j++)
                cr_assert_eq(a[k].c[j], b[k].c[j], "round len %zu cols %u: s(%d) coefficient %d", n, ncols, k + 1, j);
        bb4_t u = rnd4(&p->s);
        TU_OK(p->g, p->g->reduction->fold(p->g, &gqs, &gws, n, gs_chal_value(u)));
        TU_OK(p->c, p->c->reduction->fold(p->c, &cqs, &cws, n, gs_chal_value(u)));
        snprintf(what, sizeof what, "fold len %zu cols %u off %zu stride %zu: q", n, ncols, off, stride);
        same(gq, cq, words, what);
        snprintf(what, sizeof what, "fold len %zu cols %u off %zu stride %zu: w", n, ncols, off, stride);
        same(gw, cw, words, what);
        if (n % 2)
            break;
    }
    gs_buf_destroy(gq);
    gs_buf_destroy(gw);
    gs_buf_destroy(cq);
    gs_buf_destroy(cw);
    free(q);
    free(w);
}

/* Scaled copies (the weight tables): a random set of non-overlapping runs
 * of mixed lengths (2^0 .. 2^max_log) into a poisoned dst, shuffled so runs
 * of one length are interleaved with others, from a random src table;
 * scales with 0, 1 and p-1 mixed in. GLES vs the CPU engine, and the CPU
 * engine vs the definition. */
static void check_scaled_copies(pair *p, unsigned max_log, size_t dst_elems, size_t src_elems)
{
    gs_red_copy *cp = tu_alloc(dst_elems * sizeof *cp);
    size_t n = 0, at = 0;
    while (at < dst_elems) {
        unsigned ll = (unsigned)(splitmix64(&p->s) % (max_log + 1));
        while (((size_t)1 << ll) > dst_elems - at || ((size_t)1 << ll) > src_elems)
            ll--;
        size_t len = (size_t)1 << ll;
        if (splitmix64(&p->s) % 4 != 0) { /* leave some gaps untouched */
            cp[n].dst = at;
            cp[n].src = splitmix64(&p->s) % (src_elems - len + 1);
            cp[n].log_len = ll;
            cp[n].scale = rnd4(&p->s);
            n++;
        }
        at += len;
    }
    for (size_t i = n; i > 1; i--) { /* shuffle */
        size_t j = (size_t)(splitmix64(&p->s) % i);
        gs_red_copy t = cp[i - 1];
        cp[i - 1] = cp[j];
        cp[j] = t;
    }
    uint32_t *src = rnd_words(&p->s, 4 * src_elems);
    gs_buf *gd = mk(p->g, 4 * dst_elems, NULL, 0), *cd = mk(p->c, 4 * dst_elems, NULL, 0);
    gs_buf *gsb = mk(p->g, 4 * src_elems, src, 4 * src_elems), *csb = mk(p->c, 4 * src_elems, src, 4 * src_elems);
    TU_OK(p->g, p->g->reduction->scaled_copies(p->g, gd, gsb, cp, n));
    TU_OK(p->c, p->c->reduction->scaled_copies(p->c, cd, csb, cp, n));
    char what[96];
    snprintf(what, sizeof what, "scaled copies (%zu runs up to 2^%u into %zu elements)", n, max_log, dst_elems);
    same(gd, cd, 4 * dst_elems, what);
    /* the CPU engine against the definition, untouched gaps included */
    bb4_t *want = tu_alloc(dst_elems * sizeof(bb4_t)), *got = tu_alloc(dst_elems * sizeof(bb4_t));
    memset(want, 0, dst_elems * sizeof(bb4_t));
    for (size_t i = 0; i < 4 * dst_elems; i++)
        ((uint32_t *)want)[i] = 0xDEADBEEFu;
    const bb4_t *sv = (const bb4_t *)src;
    for (size_t i = 0; i < n; i++)
        for (size_t x = 0; x < ((size_t)1 << cp[i].log_len); x++)
            want[cp[i].dst + x] = bb4_mul(cp[i].scale, sv[cp[i].src + x]);
    TU_OK(p->c, gs_buf_read(cd, 0, got, dst_elems * sizeof(bb4_t)));
    cr_assert(memcmp(got, want, dst_elems * sizeof(bb4_t)) == 0, "%s: CPU engine differs from the definition", what);
    cr_log_info("%s: identical", what);
    free(want);
    free(got);
    free(src);
    free(cp);
    gs_buf_destroy(gd);
    gs_buf_destroy(cd);
    gs_buf_destroy(gsb);
    gs_buf_destroy(csb);
}

Test(reduction_gles, scaled_copies)
{
    pair p = open_pair(0, 206);
    check_scaled_copies(&p, 0, 37, 5);
    check_scaled_copies(&p, 3, 1000, 64);
    check_scaled_copies(&p, 11, 3 << 12, 1 << 11);
    check_scaled_copies(&p, 20, (1 << 21) + 5, 1 << 20); /* runs longer than one dispatch's budget */
    close_pair(&p);
    /* 4 KiB bindings: runs are cut where the dst window would overflow */
    p = open_pair(4096, 207);
    check_scaled_copies(&p, 6, 5000, 256);
    /* bad arguments: a copy past either buffer, a run longer than a binding */
    gs_buf *d = mk(p.g, 64, NULL, 0), *sb = mk(p.g, 64, NULL, 0);
    gs_red_copy bad = {14, 0, 2, {{0, 0, 0, 0}}};
    cr_assert_eq(p.g->reduction->scaled_copies(p.g, d, sb, &bad, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(p.g->err.msg, "copy 0") != NULL, "%s", p.g->err.msg);
    bad = (gs_red_copy){0, 15, 1, {{0, 0, 0, 0}}};
    cr_assert_eq(p.g->reduction->scaled_copies(p.g, d, sb, &bad, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p.c->reduction->scaled_copies(p.c, d, sb, &bad, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(d);
    gs_buf_destroy(sb);
    gs_buf *big = mk(p.g, 4 * 1024, NULL, 0), *bs = mk(p.g, 4 * 256, NULL, 0);
    gs_red_copy run = {0, 0, 9, {{0, 0, 0, 0}}}; /* 512 EF = 8 KiB > the 4 KiB binding */
    cr_assert_eq(p.g->reduction->scaled_copies(p.g, big, bs, &run, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(big);
    gs_buf_destroy(bs);
    close_pair(&p);
}

Test(reduction_gles, block_sums)
{
    pair p = open_pair(0, 201);
    check_block_sums(&p, 0, 3, 2);
    check_block_sums(&p, 2, 2, 3);
    check_block_sums(&p, 4, 6, 5);
    check_block_sums(&p, 3, 10, 2); /* long slices: several items each */
    close_pair(&p);
}

Test(reduction_gles, fold_ple)
{
    pair p = open_pair(0, 202);
    check_fold_ple(&p, 0, 1, 0, 1, 0, 0);
    check_fold_ple(&p, 2, 4, 0, 3, 1, 2);
    check_fold_ple(&p, 4, 1024, 0, 5, 3, 7);
    check_fold_ple(&p, 3, 1 << 13, 0, 2, 0, 0);
    /* later columns only (the stacked reduction's column groups) */
    check_fold_ple(&p, 2, 64, 3, 2, 1, 0);
    check_fold_ple(&p, 5, 1 << 11, 1, 3, 0, 5);
    close_pair(&p);
}

Test(reduction_gles, rounds_and_folds)
{
    pair p = open_pair(0, 203);
    check_rounds(&p, 2, 1, 0, 2, 99);
    check_rounds(&p, 6, 3, 1, 9, 99);
    check_rounds(&p, 64, 5, 3, 64, 99);
    check_rounds(&p, 1 << 12, 3, 0, 1 << 12, 99);
    /* 3 x 2^20 entries: more than one dispatch's budget, so the column
     * group is cut into row pieces */
    check_rounds(&p, 1 << 20, 3, 1, (1 << 20) + 3, 1);
    /* 19 columns of 2^16 entries: off desktop-class devices the first fold
     * goes through its scratch 8 columns at a time, then 3
     * (GS_CW_FOLD_SCRATCH_BYTES) */
    check_rounds(&p, 1 << 16, 19, 5, (1 << 16) + 7, 2);
    close_pair(&p);
}

Test(reduction_gles, small_bindings)
{
    pair p = open_pair(4096, 204);
    check_block_sums(&p, 4, 6, 3);         /* columns of 4 KiB: one window each, items cut to fit */
    check_fold_ple(&p, 2, 2048, 0, 3, 1, 5); /* columns longer than a window: row chunks */
    check_fold_ple(&p, 2, 2048, 2, 2, 0, 1); /* ... from a later column */
    check_rounds(&p, 512, 3, 2, 600, 99);  /* column pieces */
    close_pair(&p);
}

Test(reduction_gles, bad_arguments)
{
    pair p = open_pair(0, 205);
    gs_buf *b = mk(p.g, 64, NULL, 0);
    gs_red_slice s = {4, 0, 4}; /* reads past the 64-word matrix */
    bb4_t eq[64], out[64];
    memset(eq, 0, sizeof eq);
    cr_assert_neq(p.g->reduction->block_sums(p.g, b, 16, 2, &s, 1, eq, 2, out), GLSTARK_OK);
    cr_assert(strlen(p.g->err.msg) > 0);
    s.col = 0;
    s.log_height = 6; /* needs eq table 4 > max_nt 2 */
    cr_assert_neq(p.g->reduction->block_sums(p.g, b, 64, 2, &s, 1, eq, 2, out), GLSTARK_OK);
    gs_red_cols c = {b, 0, 64, 4};
    cr_assert_neq(p.g->reduction->round_evals(p.g, &c, &c, 64, gs_sums_host(out)), GLSTARK_OK);
    /* columns 3 and 4 of 16 rows: past the 64-word matrix, on both engines */
    gs_buf *o = mk(p.g, 64, NULL, 0), *cb = mk(p.c, 64, NULL, 0), *co = mk(p.c, 64, NULL, 0);
    bb4_t lag[4] = {bb4_one(), bb4_one(), bb4_one(), bb4_one()};
    gs_red_cols go = {o, 0, 4, 2}, cc = {co, 0, 4, 2};
    cr_assert_eq(p.g->reduction->fold_ple(p.g, b, 3, 2, 16, 2, lag, &go), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(p.g->err.msg, "columns 3..4") != NULL, "%s", p.g->err.msg);
    cr_assert_eq(p.c->reduction->fold_ple(p.c, cb, 3, 2, 16, 2, lag, &cc), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(p.c->err.msg, "columns 3..4") != NULL, "%s", p.c->err.msg);
    cr_assert_eq(p.c->reduction->fold_ple(p.c, cb, 2, 2, 16, 2, lag, &cc), GLSTARK_OK);
    gs_buf_destroy(o);
    gs_buf_destroy(cb);
    gs_buf_destroy(co);
    gs_buf_destroy(b);
    close_pair(&p);
}
