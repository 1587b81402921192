/* The GLES engine's dft family against the CPU engine (itself tested against
 * naive definitions in test_dft.c): batched forward/inverse DFTs of base and
 * extension columns, heights 2^0 .. 2^20, 1 and 3 columns, strides and
 * offsets that are not aligned, edge values, outputs poisoned; the RS
 * message and the fused RS code matrix on random stacked layouts; and the
 * same with a lowered binding limit so column windows, the temporary for
 * unaligned codewords and the host fallback for over-long columns run; and
 * single row classes of the codeword (rs_code_rows) against the rows of the
 * CPU engine's rs_code_matrix. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>

#include "dft_test_util.h"
#include "rs_rows_util.h"
#include "../gles/gles_test_util.h"
#include "engine/gles/gles_engine.h"
#include "common/stacking.h"


typedef enum { OP_DFT_FWD, OP_DFT_INV, OP_RS_MSG } op_kind;

/* Runs op on a copy of data (total words, columns described by cols with
 * buf filled in here) on eng; poison around the columns stays untouched. */
static bb_t *run_op(gs_engine *eng, const bb_t *data, size_t total, gs_dft_cols cols, op_kind op, unsigned l)
{
    gs_buf *b = NULL;
    TU_OK(eng, gs_buf_create(eng, total * 4, &b));
    TU_OK(eng, gs_buf_fill_u32(b, 0, total, 0xDEADBEEFu));
    TU_OK(eng, gs_buf_write(b, 0, data, total * 4));
    cols.buf = b;
    if (op == OP_RS_MSG)
        TU_OK(eng, gs_rs_message(eng, &cols, l));
    else
        TU_OK(eng, gs_dft(eng, &cols, op == OP_DFT_INV ? GS_DFT_INVERSE : GS_DFT_FORWARD));
    bb_t *out = malloc(total * 4);
    TU_OK(eng, gs_buf_read(b, 0, out, total * 4));
    gs_buf_destroy(b);
    return out;
}

static void compare_dft(gs_engine *g, gs_engine *c, unsigned log_n, size_t ncols, unsigned ew, size_t pad,
                        size_t off, op_kind op, unsigned l, uint64_t *s, const char *tag)
{
    size_t len = ((size_t)ew) << log_n, stride = len + pad;
    size_t total = off + (ncols - 1) * stride + len + 5;
    bb_t *data = malloc(total * 4);
    for (size_t i = 0; i < total; i++)
        data[i] = t_rand_bb(s);
    /* a column of edge values */
    for (size_t i = 0; i < len; i++)
        data[off + i] = (i % 3 == 0) ? 0 : (i % 3 == 1) ? bb_one() : bb_from_canonical(BB_P - 1);
    gs_dft_cols cols = {NULL, off, stride, ncols, log_n, ew};
    bb_t *a = run_op(g, data, total, cols, op, l);
    bb_t *b = run_op(c, data, total, cols, op, l);
    for (size_t i = 0; i < total; i++)
        cr_assert_eq(a[i], b[i], "%s: op %d 2^%u x %zu cols ew %u pad %zu off %zu l %u: word %zu gles %08x cpu %08x", tag,
                     (int)op, log_n, ncols, ew, pad, off, l, i, a[i], b[i]);
    free(a);
    free(b);
    free(data);
}

Test(dft_gles, dft_matches_cpu)
{
    uint64_t seed = 0xDF7001, s = seed;
    printf("dft_gles seed %llu\n", (unsigned long long)seed);
    gs_engine *g = tu_engine_binding(0), *c = tu_cpu_engine();
    for (unsigned k = 0; k <= 16; k++) {
        compare_dft(g, c, k, 1, 1, 0, 0, OP_DFT_FWD, 0, &s, "fwd 1 col");
        compare_dft(g, c, k, 3, 1, k & 3, 1 + k % 3, OP_DFT_INV, 0, &s, "inv 3 cols");
        if (k <= 12)
            compare_dft(g, c, k, k % 2 ? 1 : 3, 4, 4 * (k % 2), 4, k % 2 ? OP_DFT_FWD : OP_DFT_INV, 0, &s, "ext4");
    }
    compare_dft(g, c, 18, 3, 1, 7, 3, OP_DFT_FWD, 0, &s, "2^18");
    compare_dft(g, c, 20, 1, 1, 0, 0, OP_DFT_INV, 0, &s, "2^20");
    for (unsigned l = 1; l <= 7; l++)
        compare_dft(g, c, l + 3, 3, 1, l, 2, OP_RS_MSG, l, &s, "rs_message");
    compare_dft(g, c, 14, 1, 1, 0, 0, OP_RS_MSG, 4, &s, "rs_message 2^14");
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* gs_engine_trim releases the twiddle tables a DFT left (the engine's live
 * bytes drop by at least a 2^14-entry table) and the next DFTs, which make
 * them again, still match the CPU engine; on the CPU engine it does
 * nothing. */
Test(dft_gles, trim_releases_twiddles)
{
    uint64_t seed = 0xDF7005, s = seed;
    printf("dft_gles trim seed %llu\n", (unsigned long long)seed);
    gs_engine *g = tu_engine_binding(0), *c = tu_cpu_engine();
    compare_dft(g, c, 14, 2, 1, 0, 0, OP_DFT_FWD, 0, &s, "before trim");
    compare_dft(g, c, 14, 1, 1, 0, 0, OP_DFT_INV, 0, &s, "before trim");
    const size_t live = g->bytes_live;
    gs_engine_trim(g);
    cr_assert_geq(live - g->bytes_live, ((size_t)1 << 14) * sizeof(bb_t), "trim released %zu of %zu live bytes",
                  live - g->bytes_live, live);
    compare_dft(g, c, 14, 2, 1, 3, 1, OP_DFT_FWD, 0, &s, "after trim");
    compare_dft(g, c, 14, 1, 1, 0, 0, OP_DFT_INV, 0, &s, "after trim");
    const size_t cpu_live = c->bytes_live;
    gs_engine_trim(c);
    cr_assert_eq(c->bytes_live, cpu_live);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* A 4 KiB binding: columns of more than 1024 words take the host fallback,
 * shorter ones run in multi-column windows. */
Test(dft_gles, dft_small_bindings)
{
    uint64_t seed = 0xDF7002, s = seed;
    printf("dft_gles small bindings seed %llu\n", (unsigned long long)seed);
    gs_engine *g = tu_engine_binding(4096), *c = tu_cpu_engine();
    compare_dft(g, c, 8, 9, 1, 3, 1, OP_DFT_FWD, 0, &s, "windows");
    compare_dft(g, c, 6, 7, 4, 0, 2, OP_DFT_INV, 0, &s, "ext windows");
    compare_dft(g, c, 12, 2, 1, 1, 3, OP_DFT_FWD, 0, &s, "host fallback");
    compare_dft(g, c, 10, 1, 1, 0, 0, OP_DFT_INV, 0, &s, "exactly one binding");
    compare_dft(g, c, 10, 2, 1, 0, 1, OP_DFT_FWD, 0, &s, "one binding plus a lead: host");
    compare_dft(g, c, 12, 2, 1, 1, 3, OP_RS_MSG, 3, &s, "rs_message pieces");
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* Random stacked layouts: codeword on both engines, several column groups. */
/* Takes g (destroyed at the end). */
static void compare_rs(gs_engine *g, uint64_t seed, int iters, unsigned max_l, unsigned max_n)
{
    printf("rs_code_matrix gles vs cpu: binding limit %llu, DFT blocks 2^%u, seed %llu\n",
           (unsigned long long)gs_gles_device(g)->caps.max_binding_bytes, gs_gles_device(g)->caps.dft_block_log,
           (unsigned long long)seed);
    uint64_t s = seed;
    gs_engine *c = tu_cpu_engine();
    for (int iter = 0; iter < iters; iter++) {
        unsigned l = (unsigned)(splitmix64(&s) % (max_l + 1)), n = (unsigned)(splitmix64(&s) % (max_n + 1));
        unsigned L = l + n, b = (unsigned)(splitmix64(&s) % 3);
        size_t nt = 1 + splitmix64(&s) % 4;
        gs_stack_trace_shape sh[8];
        bb_t *vals[8];
        unsigned prev = L;
        for (size_t t = 0; t < nt; t++) {
            sh[t].log_height = (uint32_t)(splitmix64(&s) % (prev + 1));
            prev = sh[t].log_height;
            sh[t].width = (uint32_t)(splitmix64(&s) % 4) + (t == 0);
            size_t cnt = (size_t)sh[t].width << sh[t].log_height;
            vals[t] = malloc((cnt ? cnt : 1) * sizeof(bb_t));
            for (size_t i = 0; i < cnt; i++)
                vals[t][i] = t_rand_bb(&s);
        }
        gs_stack_layout lay;
        gs_error err;
        cr_assert_eq(gs_stack_layout_build(l, n, sh, nt, &lay, &err), GLSTARK_OK, "%s", err.msg);
        size_t N = (size_t)1 << (L + b), off = (size_t)(splitmix64(&s) % 3);
        bb_t *out[2], *q[2];
        gs_engine *engs[2] = {g, c};
        for (int e = 0; e < 2; e++) {
            gs_engine *eng = engs[e];
            gs_trace_ref refs[8];
            for (size_t t = 0; t < nt; t++) {
                size_t cnt = (size_t)sh[t].width << sh[t].log_height;
                refs[t].buf = NULL;
                TU_OK(eng, gs_buf_create(eng, (cnt + 3) * 4, &refs[t].buf));
                TU_OK(eng, gs_buf_fill_u32(refs[t].buf, 0, cnt + 3, 0xBADu));
                if (cnt)
                    TU_OK(eng, gs_buf_write(refs[t].buf, 4, vals[t], cnt * 4));
                refs[t].offset = 1;
            }
            size_t total = off + N * lay.width + 2;
            gs_buf *cw = NULL;
            TU_OK(eng, gs_buf_create(eng, total * 4, &cw));
            TU_OK(eng, gs_buf_fill_u32(cw, 0, total, 0xDEADBEEFu));
            /* first column alone, the rest together: both call shapes */
            TU_OK(eng, gs_rs_code_matrix(eng, &lay, refs, b, 0, 1, cw, off));
            if (lay.width > 1)
                TU_OK(eng, gs_rs_code_matrix(eng, &lay, refs, b, 1, lay.width, cw, off + N));
            out[e] = malloc(total * 4);
            TU_OK(eng, gs_buf_read(cw, 0, out[e], total * 4));
            /* the stacked matrix itself, at an odd offset */
            size_t H = (size_t)1 << L, qtotal = H * lay.width + 3;
            gs_buf *qb = NULL;
            TU_OK(eng, gs_buf_create(eng, qtotal * 4, &qb));
            TU_OK(eng, gs_buf_fill_u32(qb, 0, qtotal, 0xDEADBEEFu));
            TU_OK(eng, gs_stack_matrix(eng, &lay, refs, 0, lay.width, qb, 1));
            q[e] = malloc(qtotal * 4);
            TU_OK(eng, gs_buf_read(qb, 0, q[e], qtotal * 4));
            /* Q encoded as one trace stacked onto itself (what the prover
             * does) gives the same codeword as the original layout */
            gs_stack_layout qlay;
            gs_stack_trace_shape qsh = {lay.width, L};
            cr_assert_eq(gs_stack_layout_build(l, n, &qsh, 1, &qlay, &err), GLSTARK_OK, "%s", err.msg);
            gs_trace_ref qref = {qb, 1};
            TU_OK(eng, gs_buf_fill_u32(cw, 0, total, 0x5EEDu));
            TU_OK(eng, gs_rs_code_matrix(eng, &qlay, &qref, b, 0, lay.width, cw, off));
            bb_t *again = malloc(total * 4);
            TU_OK(eng, gs_buf_read(cw, 0, again, total * 4));
            cr_assert_eq(memcmp(again + off, out[e] + off, N * lay.width * 4), 0,
                         "seed %llu iter %d engine %d: encoding Q itself differs from encoding the traces",
                         (unsigned long long)seed, iter, e);
            free(again);
            gs_stack_layout_free(&qlay);
            gs_buf_destroy(qb);
            gs_buf_destroy(cw);
            for (size_t t = 0; t < nt; t++)
                gs_buf_destroy(refs[t].buf);
        }
        size_t total = off + N * lay.width + 2;
        for (size_t i = 0; i < total; i++)
            cr_assert_eq(out[0][i], out[1][i], "seed %llu iter %d (l %u n %u b %u width %u off %zu): word %zu",
                         (unsigned long long)seed, iter, l, n, b, lay.width, off, i);
        size_t qtotal = ((size_t)1 << L) * lay.width + 3;
        cr_assert_eq(memcmp(q[0], q[1], qtotal * 4), 0, "seed %llu iter %d: stacked matrices differ",
                     (unsigned long long)seed, iter);
        free(q[0]);
        free(q[1]);
        free(out[0]);
        free(out[1]);
        for (size_t t = 0; t < nt; t++)
            free(vals[t]);
        gs_stack_layout_free(&lay);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(dft_gles, rs_code_matrix_matches_cpu) { compare_rs(tu_engine_binding(0), 0xC0DE01, 16, 6, 10); }

Test(dft_gles, rs_code_matrix_small_bindings) { compare_rs(tu_engine_binding(16384), 0xC0DE02, 12, 4, 6); }

/* A GLES engine whose DFT shared-memory pass works on blocks of 2^block_log words. */
static gs_engine *engine_dft_block(unsigned block_log)
{
    gs_device_config o;
    o = tu_config();
    o.dft_block_log = block_log;
    return tu_engine(&o);
}

/* Shared-memory blocks of 2^5 and 2^7 words: a 2^16 transform takes three
 * and three register passes after the shared one (2^22 takes three with the
 * device's 2^11). Every size around the block boundaries, both directions,
 * extension columns, RS messages and code matrices. */
Test(dft_gles, dft_small_blocks)
{
    uint64_t seed = 0xDF7003, s = seed;
    printf("dft_gles small blocks seed %llu\n", (unsigned long long)seed);
    gs_engine *c = tu_cpu_engine();
    static const unsigned blocks[] = {5, 7};
    for (size_t bi = 0; bi < 2; bi++) {
        gs_engine *g = engine_dft_block(blocks[bi]);
        cr_assert_eq(gs_gles_device(g)->caps.dft_block_log, blocks[bi]);
        for (unsigned k = 1; k <= 16; k++) {
            compare_dft(g, c, k, 3, 1, k & 3, 1 + k % 3, k % 2 ? OP_DFT_FWD : OP_DFT_INV, 0, &s, "small blocks");
            if (k <= 11)
                compare_dft(g, c, k, 2, 4, 4, 4, k % 2 ? OP_DFT_INV : OP_DFT_FWD, 0, &s, "small blocks ext4");
        }
        compare_dft(g, c, 12, 2, 1, 0, 0, OP_RS_MSG, 6, &s, "small blocks rs_message");
        compare_rs(g, 0xC0DE04 + bi, 6, 6, 10);
    }
    gs_engine_destroy(c);
}

/* The keccak-like shape scaled down: one wide trace, l_skip 4, blowup 1,
 * column groups; and a codeword column too tall for the binding limit. */
Test(dft_gles, rs_code_matrix_wide_and_unsupported)
{
    uint64_t s = 0xC0DE03;
    printf("rs wide seed %llu\n", (unsigned long long)s);
    gs_engine *g = tu_engine_binding(1 << 20), *c = tu_cpu_engine();
    gs_stack_trace_shape sh = {37, 9};
    gs_stack_layout lay;
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(4, 12, &sh, 1, &lay, &err), GLSTARK_OK);
    size_t cnt = (size_t)37 << 9, N = (size_t)1 << 17;
    bb_t *vals = malloc(cnt * 4);
    for (size_t i = 0; i < cnt; i++)
        vals[i] = t_rand_bb(&s);
    bb_t *out[2];
    gs_engine *engs[2] = {g, c};
    for (int e = 0; e < 2; e++) {
        gs_trace_ref ref = {NULL, 0};
        TU_OK(engs[e], gs_buf_create(engs[e], cnt * 4, &ref.buf));
        TU_OK(engs[e], gs_buf_write(ref.buf, 0, vals, cnt * 4));
        gs_buf *cw = NULL;
        TU_OK(engs[e], gs_buf_create(engs[e], N * lay.width * 4, &cw));
        TU_OK(engs[e], gs_buf_fill_u32(cw, 0, N * lay.width, 0xDEADBEEFu));
        TU_OK(engs[e], gs_rs_code_matrix(engs[e], &lay, &ref, 1, 0, lay.width, cw, 0));
        out[e] = malloc(N * lay.width * 4);
        TU_OK(engs[e], gs_buf_read(cw, 0, out[e], N * lay.width * 4));
        gs_buf_destroy(cw);
        gs_buf_destroy(ref.buf);
    }
    cr_assert_eq(memcmp(out[0], out[1], N * lay.width * 4), 0, "wide codeword differs");
    free(out[0]);
    free(out[1]);
    free(vals);
    gs_stack_layout_free(&lay);
    gs_engine_destroy(g);
    /* 2^17-row codeword columns (512 KiB) against a 64 KiB limit: a status. */
    g = tu_engine_binding(1 << 16);
    gs_stack_trace_shape sh2 = {1, 16};
    cr_assert_eq(gs_stack_layout_build(4, 12, &sh2, 1, &lay, &err), GLSTARK_OK);
    gs_trace_ref ref = {NULL, 0};
    gs_buf *cw = NULL;
    TU_OK(g, gs_buf_create(g, ((size_t)1 << 16) * 4, &ref.buf));
    TU_OK(g, gs_buf_create(g, N * 4, &cw));
    cr_assert_eq(gs_rs_code_matrix(g, &lay, &ref, 1, 0, 1, cw, 0), GLSTARK_ERR_UNSUPPORTED);
    cr_assert(strlen(g->err.msg) > 0);
    gs_buf_destroy(cw);
    gs_buf_destroy(ref.buf);
    gs_stack_layout_free(&lay);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* The GPU's twiddle tables against their definition: entry h + t is
 * w_(2h)^t in Montgomery form, w_(2h) the two-adic generator of order 2h
 * (its inverse in the inverse table), built here as a running product; a
 * table grown for a larger transform keeps the smaller one's entries. Both
 * field-multiply variants (the GPU computes the powers with either). */
static void check_twiddles(glstark_field_mul fm, uint64_t *s)
{
    gs_device_config o;
    o = tu_config();
    o.field_mul = fm;
    gs_engine *g = tu_engine(&o), *c = tu_cpu_engine();
    const unsigned logn = 13, inv_logn = 9;
    compare_dft(g, c, 6, 1, 1, 0, 0, OP_DFT_FWD, 0, s, "table fwd small");
    compare_dft(g, c, logn, 1, 1, 0, 0, OP_DFT_FWD, 0, s, "table fwd grown");
    compare_dft(g, c, inv_logn, 1, 1, 0, 0, OP_DFT_INV, 0, s, "table inv");
    gs_gles_state *gs = g->impl;
    for (int inv = 0; inv < 2; inv++) {
        unsigned k = inv ? inv_logn : logn;
        size_t n = (size_t)1 << k;
        cr_assert_not_null(gs->twiddles[inv]);
        cr_assert_eq(gs->twiddles_log[inv], k);
        uint32_t *w = malloc(n * 4);
        TU_OK(g, gs_buf_read(gs->twiddles[inv], 0, w, n * 4));
        cr_assert_eq(w[0], bb_one(), "table %d entry 0: %08x", inv, w[0]);
        for (unsigned lh = 0; lh < k; lh++) {
            size_t h = (size_t)1 << lh;
            bb_t root = bb_two_adic_generator(lh + 1);
            if (inv)
                root = bb_inv(root);
            bb_t x = bb_one();
            for (size_t t = 0; t < h; t++, x = bb_mul(x, root))
                cr_assert_eq(w[h + t], x, "table %d entry %zu: %08x, want %08x", inv, h + t, w[h + t], x);
        }
        free(w);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(dft_gles, twiddle_tables_match_definition)
{
    uint64_t seed = 0xDF7004, s = seed;
    printf("twiddle tables seed %llu\n", (unsigned long long)seed);
    check_twiddles(GLSTARK_FIELD_MUL_WIDE, &s);
    check_twiddles(GLSTARK_FIELD_MUL_SHIFT, &s);
}

/* A codeword column as large as a binding (2^12 words = 16 KiB bindings)
 * written from an unaligned word: no window holds it from there, so the
 * engine encodes into an aligned temporary and copies it into place. The
 * words around the destination stay poisoned; the codeword is the CPU's. */
Test(dft_gles, rs_code_matrix_column_filling_a_binding_unaligned)
{
    gs_engine *engs[2] = {tu_engine_binding(16384), tu_cpu_engine()};
    uint64_t seed = 0xC0DE03;
    printf("rs_code_matrix, one 2^12-word codeword column at word 1 of 16 KiB bindings, seed %llu\n",
           (unsigned long long)seed);
    gs_stack_trace_shape sh = {2, 11}; /* two columns of 2^11 rows: Q is 2^11 x 2 */
    gs_stack_layout lay;
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(2, 9, &sh, 1, &lay, &err), GLSTARK_OK, "%s", err.msg);
    const size_t rows = (size_t)1 << 11, N = (size_t)1 << 12, off = 1, total = off + N * lay.width + 5;
    bb_t *vals = malloc(2 * rows * sizeof(bb_t)), *out[2];
    uint64_t s = seed;
    for (size_t i = 0; i < 2 * rows; i++)
        vals[i] = t_rand_bb(&s);
    for (int e = 0; e < 2; e++) {
        gs_engine *eng = engs[e];
        gs_trace_ref ref = {NULL, 0};
        TU_OK(eng, gs_buf_create(eng, 2 * rows * 4, &ref.buf));
        TU_OK(eng, gs_buf_write(ref.buf, 0, vals, 2 * rows * 4));
        gs_buf *cw = NULL;
        TU_OK(eng, gs_buf_create(eng, total * 4, &cw));
        TU_OK(eng, gs_buf_fill_u32(cw, 0, total, 0xDEADBEEFu));
        TU_OK(eng, gs_rs_code_matrix(eng, &lay, &ref, 1, 0, lay.width, cw, off));
        out[e] = malloc(total * 4);
        TU_OK(eng, gs_buf_read(cw, 0, out[e], total * 4));
        gs_buf_destroy(cw);
        gs_buf_destroy(ref.buf);
    }
    cr_assert_eq(out[0][0], 0xDEADBEEFu, "the word before the codeword changed");
    for (size_t i = off + N * lay.width; i < total; i++)
        cr_assert_eq(out[0][i], 0xDEADBEEFu, "word %zu after the codeword changed", i);
    for (size_t i = 0; i < total; i++)
        cr_assert_eq(out[0][i], out[1][i], "seed %llu: word %zu", (unsigned long long)seed, i);
    free(out[0]);
    free(out[1]);
    free(vals);
    gs_stack_layout_free(&lay);
    gs_engine_destroy(engs[0]);
    gs_engine_destroy(engs[1]);
}

/* rs_code_rows on g (destroyed at the end) for every row class of random
 * layouts with L in [min_L, max_L], b = 1 and 2, against the rows of the CPU
 * engine's rs_code_matrix; column subranges at nonzero offsets, poison around. */
static void compare_rows(gs_engine *g, uint64_t seed, int iters, unsigned min_L, unsigned max_L, unsigned max_l)
{
    printf("rs_code_rows gles vs cpu: binding limit %llu, DFT blocks 2^%u, seed %llu\n",
           (unsigned long long)gs_gles_device(g)->caps.max_binding_bytes, gs_gles_device(g)->caps.dft_block_log,
           (unsigned long long)seed);
    uint64_t s = seed;
    gs_engine *c = tu_cpu_engine();
    int subranges = 0;
    for (int iter = 0; iter < iters; iter++) {
        t_rows_case k;
        t_rows_case_random(&k, &s, min_L, max_L, max_l);
        char tag[64];
        snprintf(tag, sizeof tag, "seed %llu iter %d", (unsigned long long)seed, iter);
        for (unsigned b = 1; b <= 2; b++) {
            bb_t *want = t_rows_want(c, &k, b);
            subranges += t_rows_check_classes(g, &k, want, b, &s, tag);
            free(want);
        }
        t_rows_case_free(&k);
    }
    cr_assert_gt(subranges, 0, "seed %llu: no layout had a column range starting past column 0",
                 (unsigned long long)seed);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(dft_gles, rs_code_rows_matches_cpu) { compare_rows(tu_engine_binding(0), 0x5057101, 14, 3, 12, 4); }

/* rs_code_rows_folded on g (destroyed at the end): every class of 2^(b+1)
 * and 2^(b+2) of random layouts against the rows of the CPU engine's
 * rs_code_matrix (the CPU's own folded rows are tested the same way). */
static void compare_folded(gs_engine *g, uint64_t seed, int iters, unsigned min_L, unsigned max_L)
{
    printf("rs_code_rows_folded gles vs cpu: binding limit %llu, seed %llu\n",
           (unsigned long long)gs_gles_device(g)->caps.max_binding_bytes, (unsigned long long)seed);
    uint64_t s = seed;
    gs_engine *c = tu_cpu_engine();
    int checks = 0;
    for (int iter = 0; iter < iters; iter++) {
        t_rows_case k;
        t_rows_case_random(&k, &s, min_L, max_L, 4);
        char tag[64];
        snprintf(tag, sizeof tag, "seed %llu iter %d", (unsigned long long)seed, iter);
        for (unsigned b = 1; b <= 2; b++) {
            bb_t *want = t_rows_want(c, &k, b);
            checks += t_rows_check_folded_classes(g, c, &k, want, b, &s, tag);
            free(want);
        }
        t_rows_case_free(&k);
    }
    cr_assert_gt(checks, 20, "seed %llu: too few folded classes checked (%d)", (unsigned long long)seed, checks);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(dft_gles, rs_code_rows_folded_matches_cpu) { compare_folded(tu_engine_binding(0), 0x5057105, 8, 4, 12); }

/* 16 KiB bindings: output windows of one or two columns. */
Test(dft_gles, rs_code_rows_folded_small_bindings) { compare_folded(tu_engine_binding(16384), 0x5057106, 6, 4, 11); }

/* Where a class's stacked columns are one run of one trace (keccakf's
 * trace is), rs_code_rows reads them in place and does the RS message, the
 * twist and the bit reversal in one tiled pass (MODE_ENCODE_TILED); it needs
 * 2^L >= 2^10 and blocks of at most 2^5. Cases: one trace of every shape
 * that reaches it (l_skip 0..5, heights L and below, widths that leave the
 * last column padded, which is not a run; L 12 and 13, where the twist's
 * row factors are not the coarse table's first entries); l_skip 6 and a
 * column filled from two traces, which never take it. Every class of b = 1 and 2 against
 * the CPU engine's codeword; whether the pass ran is read from the program
 * cache. */
Test(dft_gles, rs_code_rows_one_run_in_one_pass)
{
    uint64_t seed = 0x5057107, s = seed;
    printf("rs_code_rows from one run of the trace, seed %llu\n", (unsigned long long)seed);
    gs_engine *c = tu_cpu_engine();
    static const struct {
        unsigned l, L, ntr, h0, w0;
        int fused;
    } cases[] = {
        {0, 10, 1, 10, 2, 1}, {1, 10, 1, 10, 1, 1}, {2, 11, 1, 9, 8, 1}, {3, 10, 1, 10, 3, 1},
        {4, 11, 1, 11, 2, 1}, {5, 10, 1, 8, 9, 1},  {4, 10, 1, 7, 8, 1},  {6, 10, 1, 10, 2, 0},
        {4, 10, 2, 9, 1, 0},  {2, 12, 1, 12, 3, 1}, {3, 13, 1, 11, 8, 1},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        t_rows_case k = {.nt = cases[ci].ntr, .L = cases[ci].L};
        for (size_t t = 0; t < k.nt; t++) {
            /* a second trace of half the height and twice the width
             * completes the first's columns from another buffer */
            k.sh[t] = (gs_stack_trace_shape){t ? 2 * cases[ci].w0 : cases[ci].w0, t ? cases[ci].h0 - 1 : cases[ci].h0};
            size_t cnt = (size_t)k.sh[t].width << k.sh[t].log_height;
            k.vals[t] = malloc(cnt * sizeof(bb_t));
            for (size_t i = 0; i < cnt; i++)
                k.vals[t][i] = t_rand_bb(&s);
        }
        gs_error err;
        cr_assert_eq(gs_stack_layout_build(cases[ci].l, cases[ci].L - cases[ci].l, k.sh, k.nt, &k.lay, &err),
                     GLSTARK_OK, "%s", err.msg);
        char tag[64];
        snprintf(tag, sizeof tag, "seed %llu case %zu", (unsigned long long)seed, ci);
        for (unsigned b = 1; b <= 2; b++) {
            gs_engine *g = tu_engine_binding(0);
            const gs_gl_device *dev = gs_gles_device(g);
            cr_assert_not(gs_gl_program_cached(dev, "dft.comp", "DFT_MODE 13\n"), "%s: the pass ran before", tag);
            bb_t *want = t_rows_want(c, &k, b);
            gs_trace_ref refs[8];
            t_rows_upload(g, &k, refs);
            /* the whole width, then the first column alone (a run whenever
             * the trace fills it), at unaligned offsets */
            for (uint32_t p = 0; p < (1u << b); p++) {
                t_rows_check(g, &k, refs, want, b, p, 0, k.lay.width, 3, tag);
                t_rows_check(g, &k, refs, want, b, p, 0, 1, 1, tag);
            }
            cr_assert_eq(gs_gl_program_cached(dev, "dft.comp", "DFT_MODE 13\n"), cases[ci].fused,
                         "%s (l %u L %u, %u traces): the one-pass encoding %s", tag, cases[ci].l, cases[ci].L,
                         cases[ci].ntr, cases[ci].fused ? "did not run" : "ran where it cannot");
            t_rows_release(&k, refs);
            free(want);
            gs_engine_destroy(g);
        }
        t_rows_case_free(&k);
    }
    gs_engine_destroy(c);
}

/* 16 KiB bindings: columns of up to 2^11 words at unaligned offsets run in
 * windows of one or two columns. */
Test(dft_gles, rs_code_rows_small_bindings) { compare_rows(tu_engine_binding(16384), 0x5057102, 12, 3, 11, 4); }

/* Shared-memory blocks of 2^5 words: the bit-reversal pass (plain and tiled)
 * and the register passes run instead of one shared sweep. */
Test(dft_gles, rs_code_rows_small_blocks) { compare_rows(engine_dft_block(5), 0x5057103, 8, 3, 12, 4); }

/* A 2^12-word column fills a 16 KiB binding: from word 0 it is encoded, from
 * an unaligned word no window holds it and the engine says so (it never
 * uses a temporary as large as the output), leaving the buffer untouched;
 * bad arguments give INVALID_ARGUMENT. */
Test(dft_gles, rs_code_rows_column_filling_a_binding_and_bad_input)
{
    uint64_t seed = 0x5057104, s = seed;
    printf("rs_code_rows 2^12-word column, 16 KiB bindings, seed %llu\n", (unsigned long long)seed);
    gs_engine *g = tu_engine_binding(16384), *c = tu_cpu_engine();
    t_rows_case k = {.nt = 1, .L = 12};
    k.sh[0] = (gs_stack_trace_shape){2, 12};
    k.vals[0] = malloc(((size_t)2 << 12) * sizeof(bb_t));
    for (size_t i = 0; i < ((size_t)2 << 12); i++)
        k.vals[0][i] = t_rand_bb(&s);
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(3, 9, k.sh, 1, &k.lay, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(k.lay.width, 2);
    bb_t *want = t_rows_want(c, &k, 1);
    gs_trace_ref refs[8];
    t_rows_upload(g, &k, refs);
    for (uint32_t p = 0; p < 2; p++)
        t_rows_check(g, &k, refs, want, 1, p, 0, 2, 0, "filling a binding");
    size_t H = (size_t)1 << 12, total = 1 + 2 * H;
    gs_buf *ob = t_buf(g, NULL, total);
    cr_assert_eq(gs_rs_code_rows(g, &k.lay, refs, 1, 1, 0, 1, ob, 1), GLSTARK_ERR_UNSUPPORTED);
    cr_assert(strlen(g->err.msg) > 0);
    cr_assert_eq(gs_rs_code_rows(g, &k.lay, refs, 1, 2, 0, 1, ob, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(g, &k.lay, refs, 2, 0, 1, 3, ob, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(g, &k.lay, refs, 2, 3, 0, 2, ob, 2), GLSTARK_ERR_INVALID_ARGUMENT);
    bb_t *got = malloc(total * sizeof *got);
    TU_OK(g, gs_buf_read(ob, 0, got, total * sizeof *got));
    for (size_t i = 0; i < total; i++)
        cr_assert_eq(got[i], T_ROWS_POISON, "word %zu changed by a call that failed", i);
    free(got);
    gs_buf_destroy(ob);
    free(want);
    t_rows_release(&k, refs);
    t_rows_case_free(&k);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}
