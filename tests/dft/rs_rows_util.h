/* Shared by the rs_code_rows tests: random stacked layouts with their trace
 * values, the expected rows taken from the CPU engine's rs_code_matrix
 * (tested against the definitions in test_stacking.c), and a checker that
 * runs rs_code_rows on any engine into a poisoned buffer. */
#ifndef GS_TESTS_DFT_RS_ROWS_UTIL_H
#define GS_TESTS_DFT_RS_ROWS_UTIL_H

#include <criterion/criterion.h>

#include "dft_test_util.h"
#include "common/stacking.h"

#define T_ROWS_POISON 0xDEADBEEFu

typedef struct t_rows_case {
    gs_stack_trace_shape sh[8];
    bb_t *vals[8];
    size_t nt;
    gs_stack_layout lay;
    unsigned L;
} t_rows_case;

/* A random layout with l_skip <= max_l and L in [min_L, max_L] (max_l <= min_L):
 * up to 4 traces of falling heights, short ones strided. */
static inline void t_rows_case_random(t_rows_case *k, uint64_t *s, unsigned min_L, unsigned max_L, unsigned max_l)
{
    unsigned l = (unsigned)(splitmix64(s) % (max_l + 1));
    k->L = min_L + (unsigned)(splitmix64(s) % (max_L - min_L + 1));
    k->nt = 1 + splitmix64(s) % 4;
    unsigned prev = k->L;
    for (size_t t = 0; t < k->nt; t++) {
        k->sh[t].log_height = (uint32_t)(splitmix64(s) % (prev + 1));
        prev = k->sh[t].log_height;
        k->sh[t].width = (uint32_t)(splitmix64(s) % 4) + (t == 0);
        size_t cnt = (size_t)k->sh[t].width << k->sh[t].log_height;
        k->vals[t] = malloc((cnt ? cnt : 1) * sizeof(bb_t));
        for (size_t i = 0; i < cnt; i++)
            k->vals[t][i] = t_rand_bb(s);
    }
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(l, k->L - l, k->sh, k->nt, &k->lay, &err), GLSTARK_OK, "%s", err.msg);
}

static inline void t_rows_case_free(t_rows_case *k)
{
    for (size_t t = 0; t < k->nt; t++)
        free(k->vals[t]);
    gs_stack_layout_free(&k->lay);
}

/* The case's traces on eng, each at element offset 1 of its buffer. */
static inline void t_rows_upload(gs_engine *eng, const t_rows_case *k, gs_trace_ref *refs)
{
    for (size_t t = 0; t < k->nt; t++) {
        size_t cnt = (size_t)k->sh[t].width << k->sh[t].log_height;
        refs[t].buf = t_buf(eng, NULL, cnt + 2);
        cr_assert_not_null(refs[t].buf);
        if (cnt)
            cr_assert_eq(gs_buf_write(refs[t].buf, 4, k->vals[t], cnt * 4), GLSTARK_OK);
        refs[t].offset = 1;
    }
}

static inline void t_rows_release(const t_rows_case *k, gs_trace_ref *refs)
{
    for (size_t t = 0; t < k->nt; t++)
        gs_buf_destroy(refs[t].buf);
}

/* The whole codeword (width columns of 2^(L+b)) from cpu's rs_code_matrix. */
static inline bb_t *t_rows_want(gs_engine *cpu, const t_rows_case *k, unsigned b)
{
    gs_trace_ref refs[8];
    t_rows_upload(cpu, k, refs);
    size_t total = ((size_t)k->lay.width) << (k->L + b);
    gs_buf *cw = t_buf(cpu, NULL, total);
    cr_assert_eq(gs_rs_code_matrix(cpu, &k->lay, refs, b, 0, k->lay.width, cw, 0), GLSTARK_OK, "%s",
                 cpu->err.msg);
    bb_t *want = malloc(total * sizeof *want);
    gs_buf_read(cw, 0, want, total * sizeof *want);
    gs_buf_destroy(cw);
    t_rows_release(k, refs);
    return want;
}

/* rs_code_rows of class p, columns [cb, ce), into a poisoned buffer at
 * element off: every entry is want's row p + m 2^b, every other word keeps
 * its poison. */
static inline void t_rows_check(gs_engine *eng, const t_rows_case *k, const gs_trace_ref *refs, const bb_t *want,
                                unsigned b, uint32_t p, uint32_t cb, uint32_t ce, size_t off, const char *tag)
{
    size_t H = (size_t)1 << k->L, N = H << b, total = off + (ce - cb) * H + 3;
    gs_buf *ob = t_buf(eng, NULL, total);
    cr_assert_not_null(ob);
    cr_assert_eq(gs_rs_code_rows(eng, &k->lay, refs, b, p, cb, ce, ob, off), GLSTARK_OK, "%s: %s", tag,
                 eng->err.msg);
    bb_t *got = malloc(total * sizeof *got);
    cr_assert_eq(gs_buf_read(ob, 0, got, total * sizeof *got), GLSTARK_OK);
    for (size_t i = 0; i < total; i++) {
        if (i < off || i >= off + (ce - cb) * H) {
            cr_assert_eq(got[i], T_ROWS_POISON, "%s (L %u l %u b %u p %u cols [%u,%u) off %zu): word %zu outside the "
                         "region changed", tag, k->L, k->lay.l_skip, b, p, cb, ce, off, i);
            continue;
        }
        size_t c = cb + (i - off) / H, m = (i - off) % H;
        cr_assert_eq(got[i], want[c * N + p + (m << b)],
                     "%s (L %u l %u b %u p %u cols [%u,%u) off %zu): column %zu row %zu (codeword row %zu)", tag, k->L,
                     k->lay.l_skip, b, p, cb, ce, off, c, m, p + (m << b));
    }
    free(got);
    gs_buf_destroy(ob);
}

/* Every class p < 2^b of a column range picked from s (col_begin > 0 when
 * the width allows) at a nonzero offset. Returns whether col_begin > 0. */
static inline int t_rows_check_classes(gs_engine *eng, const t_rows_case *k, const bb_t *want, unsigned b,
                                       uint64_t *s, const char *tag)
{
    gs_trace_ref refs[8];
    t_rows_upload(eng, k, refs);
    uint32_t w = k->lay.width;
    uint32_t cb = w > 1 ? 1 + (uint32_t)(splitmix64(s) % (w - 1)) : 0;
    uint32_t ce = cb + 1 + (uint32_t)(splitmix64(s) % (w - cb));
    size_t off = 1 + splitmix64(s) % 5;
    for (uint32_t p = 0; p < (1u << b); p++)
        t_rows_check(eng, k, refs, want, b, p, cb, ce, off, tag);
    if (w > 1) /* and the whole width from column 0 */
        t_rows_check(eng, k, refs, want, b, (uint32_t)(splitmix64(s) % (1u << b)), 0, w, off, tag);
    t_rows_release(k, refs);
    return cb > 0;
}

/* The case's stacked matrix Q (width columns of 2^L) from cpu's
 * stack_matrix, on the host. */
static inline bb_t *t_rows_q(gs_engine *cpu, const t_rows_case *k)
{
    gs_trace_ref refs[8];
    t_rows_upload(cpu, k, refs);
    size_t total = (size_t)k->lay.width << k->L;
    gs_buf *qb = t_buf(cpu, NULL, total);
    cr_assert_eq(gs_stack_matrix(cpu, &k->lay, refs, 0, k->lay.width, qb, 0), GLSTARK_OK, "%s", cpu->err.msg);
    bb_t *q = malloc(total * sizeof *q);
    gs_buf_read(qb, 0, q, total * sizeof *q);
    gs_buf_destroy(qb);
    t_rows_release(k, refs);
    return q;
}

/* rs_code_rows_folded of class p of 2^lc (lc > b) over columns [cb, ce) of
 * Q, given on eng at word qoff with a column stride of 2^L + pad, into a
 * poisoned buffer at element off: every entry is want's row p + m 2^lc,
 * every other word keeps its poison. */
static inline void t_rows_check_folded(gs_engine *eng, const t_rows_case *k, const bb_t *q, const bb_t *want,
                                       unsigned b, unsigned lc, uint32_t p, uint32_t cb, uint32_t ce, size_t qoff,
                                       size_t pad, size_t off, const char *tag)
{
    size_t H = (size_t)1 << k->L, N = H << b, Hf = N >> lc, stride = H + pad, n = ce - cb;
    gs_buf *qb = t_buf(eng, NULL, qoff + n * stride);
    for (size_t c = 0; c < n; c++)
        cr_assert_eq(gs_buf_write(qb, (qoff + c * stride) * 4, q + (cb + c) * H, H * 4), GLSTARK_OK);
    size_t total = off + n * Hf + 3;
    gs_buf *ob = t_buf(eng, NULL, total);
    gs_dft_cols qc = {qb, qoff, stride, n, k->L, 1};
    cr_assert_eq(gs_rs_code_rows_folded(eng, &qc, k->lay.l_skip, b, lc, p, ob, off), GLSTARK_OK, "%s: %s", tag,
                 eng->err.msg);
    bb_t *got = malloc(total * sizeof *got);
    cr_assert_eq(gs_buf_read(ob, 0, got, total * sizeof *got), GLSTARK_OK);
    for (size_t i = 0; i < total; i++) {
        if (i < off || i >= off + n * Hf) {
            cr_assert_eq(got[i], T_ROWS_POISON, "%s (L %u l %u b %u lc %u p %u): word %zu outside the region changed",
                         tag, k->L, k->lay.l_skip, b, lc, p, i);
            continue;
        }
        size_t c = cb + (i - off) / Hf, m = (i - off) % Hf;
        cr_assert_eq(got[i], want[c * N + p + (m << lc)],
                     "%s (L %u l %u b %u lc %u p %u cols [%u,%u)): column %zu row %zu (codeword row %zu)", tag, k->L,
                     k->lay.l_skip, b, lc, p, cb, ce, c, m, p + (m << lc));
    }
    free(got);
    gs_buf_destroy(ob);
    gs_buf_destroy(qb);
}

/* Every class p < 2^lc for lc = b + 1 and b + 2 (where the blocks still fit
 * a part: l_skip + lc - b <= L), over a column range picked from s, Q at an
 * offset with padding between its columns. Returns the checks made. */
static inline int t_rows_check_folded_classes(gs_engine *eng, gs_engine *cpu, const t_rows_case *k, const bb_t *want,
                                              unsigned b, uint64_t *s, const char *tag)
{
    bb_t *q = t_rows_q(cpu, k);
    uint32_t w = k->lay.width;
    uint32_t cb = w > 1 ? (uint32_t)(splitmix64(s) % w) : 0;
    uint32_t ce = cb + 1 + (uint32_t)(splitmix64(s) % (w - cb));
    int checks = 0;
    for (unsigned lc = b + 1; lc <= b + 2; lc++) {
        if (k->lay.l_skip + lc - b > k->L)
            continue;
        for (uint32_t p = 0; p < (1u << lc); p++, checks++)
            t_rows_check_folded(eng, k, q, want, b, lc, p, cb, ce, 1 + splitmix64(s) % 3, splitmix64(s) % 3,
                                splitmix64(s) % 4, tag);
    }
    free(q);
    return checks;
}

#endif
