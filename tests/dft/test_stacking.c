/* Stacking layout (src/common/stacking.c) and the engine's stacked matrix
 * and RS code matrix: against OpenVM's printed layouts, the repository KATs,
 * the Python model, and naive definitions. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "dft_test_util.h"
#include "cpu_test_engine.h"
#include "common/stacking.h"

#include "../util/test_files.h"

/* ------------------------------------------------------------ layout KATs */

static void layout_of(unsigned l, unsigned n, const gs_stack_trace_shape *sh, size_t nt, gs_stack_layout *lay)
{
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(l, n, sh, nt, lay, &err), GLSTARK_OK, "%s", err.msg);
}

/* Builds Q on the engine from single-column traces given as canonical ints. */
static void stack_and_read(gs_engine *eng, const gs_stack_layout *lay, uint32_t *const *cols, uint32_t *out)
{
    gs_trace_ref refs[8];
    gs_buf *bufs[8];
    for (size_t t = 0; t < lay->ntraces; t++) {
        size_t h = (size_t)1 << lay->traces[t].log_height, n = h * lay->traces[t].width;
        bb_t *v = malloc(n * sizeof *v);
        bb_array_from_canonical(v, cols[t], n);
        bufs[t] = t_buf(eng, v, n);
        refs[t].buf = bufs[t];
        refs[t].offset = 0;
        free(v);
    }
    size_t H = (size_t)1 << (lay->l_skip + lay->n_stack), total = H * lay->width;
    gs_buf *q = t_buf(eng, NULL, total);
    cr_assert_eq(gs_stack_matrix(eng, lay, refs, 0, lay->width, q, 0), GLSTARK_OK, "%s", eng->err.msg);
    bb_t *v = malloc(total * sizeof *v);
    gs_buf_read(q, 0, v, total * sizeof *v);
    bb_array_to_canonical(out, v, total);
    free(v);
    gs_buf_destroy(q);
    for (size_t t = 0; t < lay->ntraces; t++)
        gs_buf_destroy(bufs[t]);
}

/* stark-backend's test_stacked_matrix_manual_0 / _strided_0 / _strided_1
 * (docs/protocol.md, 'Test vectors'): columns [1,2,3,4], [5,6], [7]. */
Test(stacking, repository_kats)
{
    uint32_t c0[] = {1, 2, 3, 4}, c1[] = {5, 6}, c2[] = {7};
    uint32_t *cols[] = {c0, c1, c2};
    gs_stack_trace_shape sh[] = {{1, 2}, {1, 1}, {1, 0}};
    struct {
        unsigned l, n, width;
        uint32_t want[24];
    } k[] = {
        {0, 2, 2, {1, 2, 3, 4, 5, 6, 7, 0}},
        {2, 0, 3, {1, 2, 3, 4, 5, 0, 6, 0, 7, 0, 0, 0}},
        {3, 0, 3, {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}},
    };
    gs_engine *eng = mk_engine(2);
    for (int i = 0; i < 3; i++) {
        gs_stack_layout lay;
        layout_of(k[i].l, k[i].n, sh, 3, &lay);
        cr_assert_eq(lay.width, k[i].width, "R4 case %d width", i);
        uint32_t got[24];
        stack_and_read(eng, &lay, cols, got);
        size_t total = ((size_t)1 << (k[i].l + k[i].n)) * lay.width;
        for (size_t j = 0; j < total; j++)
            cr_assert_eq(got[j], k[i].want[j], "R4 case %d entry %zu", i, j);
        gs_stack_layout_free(&lay);
    }
    gs_engine_destroy(eng);
}

/* The layouts OpenVM printed for its own proofs (debug/NAME.challenges.txt,
 * traces and common-main slices). The trace list there is in stacking order;
 * the sort must reproduce it from air order. */
static void check_openvm_layout(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "layout/%s.layout.txt", name);
    char *txt = tf_read_text(rel), *p = txt;
    long long l = tf_next_num(&p), n = tf_next_num(&p);
    gs_stack_trace_shape sh[16];
    uint32_t air[16];
    size_t nt = 0;
    char *line;
    while ((line = strstr(p, "trace[")) && line < strstr(p, "common_main")) {
        p = line + 6;
        tf_next_num(&p); /* index */
        air[nt] = (uint32_t)tf_next_num(&p);
        sh[nt].log_height = (uint32_t)tf_next_num(&p);
        tf_next_num(&p); /* n */
        p = strstr(p, "common_main width = ");
        sh[nt].width = (uint32_t)tf_next_num(&p);
        nt++;
    }
    p = strstr(p, "stacked width = ");
    uint32_t width = (uint32_t)tf_next_num(&p);
    gs_stack_layout lay;
    layout_of((unsigned)l, (unsigned)n, sh, nt, &lay);
    cr_assert_eq(lay.width, width, "%s: stacked width", name);
    size_t k = 0;
    while ((line = strstr(p, "commit[0] mat["))) {
        p = line + 9; /* past "commit[0]" */
        uint32_t mat = (uint32_t)tf_next_num(&p), col = (uint32_t)tf_next_num(&p), scol = (uint32_t)tf_next_num(&p);
        uint32_t r0 = (uint32_t)tf_next_num(&p), r1 = (uint32_t)tf_next_num(&p), lh = (uint32_t)tf_next_num(&p);
        uint32_t stride = (uint32_t)tf_next_num(&p);
        cr_assert_lt(k, lay.nslices, "%s: more slices printed than built", name);
        const gs_stack_slice *s = &lay.slices[k++];
        cr_assert(s->trace == mat && s->trace_col == col && s->stacked_col == scol && s->row == r0 &&
                      s->log_height == lh,
                  "%s: slice %zu is (%u,%u)->col %u row %u, OpenVM has (%u,%u)->col %u row %u", name, k - 1,
                  s->trace, s->trace_col, s->stacked_col, s->row, mat, col, scol, r0);
        uint32_t slot = 1u << (lh > l ? lh : (uint32_t)l);
        cr_assert_eq(r1 - r0, slot, "%s: slot size", name);
        cr_assert_eq(stride, lh >= l ? 1u : 1u << (l - lh), "%s: stride", name);
    }
    cr_assert_eq(k, lay.nslices, "%s: slice count", name);
    /* sort_for_stacking from air order */
    uint32_t lh_by_air[16], order[16];
    for (size_t i = 0; i < nt; i++)
        lh_by_air[air[i]] = sh[i].log_height;
    gs_error err;
    cr_assert_eq(gs_stack_sort_order(lh_by_air, nt, order, &err), GLSTARK_OK);
    for (size_t i = 0; i < nt; i++)
        cr_assert_eq(order[i], air[i], "%s: sorted position %zu", name, i);
    gs_stack_layout_free(&lay);
    free(txt);
}

Test(stacking, openvm_layouts)
{
    const char *names[] = {"fib-small_n4", "fib-small_n10", "interactions-small", "fib-app18_n10",
                           "keccak-app21_p16"};
    for (int i = 0; i < 5; i++)
        check_openvm_layout(names[i]);
}

Test(stacking, model_layouts)
{
    char *txt = tf_read_text("layout/model-cases.txt"), *p = strstr(txt, "case ");
    int cases = 0;
    while (p && (p = strstr(p, "case "))) {
        p += 5;
        unsigned l = (unsigned)tf_next_num(&p), n = (unsigned)tf_next_num(&p);
        size_t nt = (size_t)tf_next_num(&p);
        gs_stack_trace_shape sh[16];
        for (size_t i = 0; i < nt; i++) {
            sh[i].width = (uint32_t)tf_next_num(&p);
            sh[i].log_height = (uint32_t)tf_next_num(&p);
        }
        size_t ns = (size_t)tf_next_num(&p);
        uint32_t width = (uint32_t)tf_next_num(&p);
        gs_stack_layout lay;
        layout_of(l, n, sh, nt, &lay);
        cr_assert_eq(lay.width, width, "model case %d width", cases);
        cr_assert_eq(lay.nslices, ns, "model case %d slices", cases);
        for (size_t k = 0; k < ns; k++) {
            gs_stack_slice *s = &lay.slices[k];
            uint32_t v[5];
            for (int j = 0; j < 5; j++)
                v[j] = (uint32_t)tf_next_num(&p);
            cr_assert(s->trace == v[0] && s->trace_col == v[1] && s->stacked_col == v[2] && s->row == v[3] &&
                          s->log_height == v[4],
                      "model case %d slice %zu", cases, k);
        }
        gs_stack_layout_free(&lay);
        cases++;
    }
    cr_assert_geq(cases, 10);
    free(txt);
}

Test(stacking, sort_order)
{
    uint32_t lh[] = {2, 3, 3, 0, 5, 3, 2}, want[] = {4, 1, 2, 5, 0, 6, 3}, order[7];
    gs_error err;
    cr_assert_eq(gs_stack_sort_order(lh, 7, order, &err), GLSTARK_OK);
    for (int i = 0; i < 7; i++)
        cr_assert_eq(order[i], want[i], "position %d", i);
    cr_assert_eq(gs_stack_sort_order(lh, 0, order, &err), GLSTARK_OK);
}

/* ------------------------------------------------------------ RS codeword */

typedef struct rs_case {
    unsigned l, n, b;
    size_t nt;
    gs_stack_trace_shape sh[8];
    bb_t *vals[8];
    uint32_t width;
    size_t N;
    bb_t *cw;
} rs_case;

static void load_rs_case(const char *name, rs_case *c)
{
    char rel[256];
    snprintf(rel, sizeof rel, "rs/%s.rs.txt", name);
    char *txt = tf_read_text(rel), *p = strstr(txt, "params ");
    c->l = (unsigned)tf_next_num(&p);
    c->n = (unsigned)tf_next_num(&p);
    c->b = (unsigned)tf_next_num(&p);
    c->nt = (size_t)tf_next_num(&p);
    for (size_t t = 0; t < c->nt; t++) {
        uint32_t w = (uint32_t)tf_next_num(&p), h = (uint32_t)tf_next_num(&p), lh;
        gs_error err;
        cr_assert_eq(gs_stack_log_height(h, &lh, &err), GLSTARK_OK);
        c->sh[t].width = w;
        c->sh[t].log_height = lh;
        c->vals[t] = malloc((size_t)w * h * sizeof(bb_t));
        for (size_t i = 0; i < (size_t)w * h; i++)
            c->vals[t][i] = bb_from_canonical((uint32_t)tf_next_num(&p));
    }
    c->width = (uint32_t)tf_next_num(&p);
    c->N = (size_t)tf_next_num(&p);
    c->cw = malloc(c->width * c->N * sizeof(bb_t));
    for (size_t i = 0; i < c->width * c->N; i++)
        c->cw[i] = bb_from_canonical((uint32_t)tf_next_num(&p));
    free(txt);
}

static void free_rs_case(rs_case *c)
{
    for (size_t t = 0; t < c->nt; t++)
        free(c->vals[t]);
    free(c->cw);
}

/* Computes the codeword on eng; one call for all columns, or one call per
 * column (the chunked path a GPU engine takes). */
static bb_t *engine_codeword(gs_engine *eng, const gs_stack_layout *lay, bb_t *const *vals, unsigned b, int per_column)
{
    gs_trace_ref refs[8];
    for (size_t t = 0; t < lay->ntraces; t++) {
        size_t n = (size_t)lay->traces[t].width << lay->traces[t].log_height;
        refs[t].buf = t_buf(eng, vals[t], n ? n : 1);
        refs[t].offset = 0;
    }
    size_t N = (size_t)1 << (lay->l_skip + lay->n_stack + b), total = N * lay->width;
    gs_buf *cw = t_buf(eng, NULL, total);
    if (per_column) {
        for (uint32_t c = 0; c < lay->width; c++)
            cr_assert_eq(gs_rs_code_matrix(eng, lay, refs, b, c, c + 1, cw, c * N), GLSTARK_OK, "%s",
                         eng->err.msg);
    } else {
        cr_assert_eq(gs_rs_code_matrix(eng, lay, refs, b, 0, lay->width, cw, 0), GLSTARK_OK, "%s", eng->err.msg);
    }
    bb_t *out = malloc(total * sizeof *out);
    gs_buf_read(cw, 0, out, total * sizeof *out);
    gs_buf_destroy(cw);
    for (size_t t = 0; t < lay->ntraces; t++)
        gs_buf_destroy(refs[t].buf);
    return out;
}

/* The model's codewords for OpenVM's traces and the D6 toy (strided). */
Test(rs_code_matrix, model_codewords)
{
    const char *names[] = {"fib-small_n1", "fib-small_n4", "interactions-small", "toy-d6"};
    for (int i = 0; i < 4; i++) {
        rs_case c;
        load_rs_case(names[i], &c);
        gs_stack_layout lay;
        layout_of(c.l, c.n, c.sh, c.nt, &lay);
        cr_assert_eq(lay.width, c.width, "%s: width", names[i]);
        for (unsigned threads = 1; threads <= 3; threads += 2)
            for (int per_col = 0; per_col < 2; per_col++) {
                gs_engine *eng = mk_engine_s(threads, per_col);
                bb_t *got = engine_codeword(eng, &lay, c.vals, c.b, per_col);
                for (size_t j = 0; j < c.width * c.N; j++)
                    cr_assert_eq(got[j], c.cw[j], "%s threads %u per_col %d: entry %zu", names[i], threads, per_col,
                                 j);
                free(got);
                gs_engine_destroy(eng);
            }
        gs_stack_layout_free(&lay);
        free_rs_case(&c);
    }
}

/* Random shapes (strided short traces, several stacked columns) against the
 * definition: stack by hand, naive RS message, naive DFT of the padded
 * message. */
Test(rs_code_matrix, random_vs_naive)
{
    uint64_t seed = 0xC0DE;
    printf("rs_code_matrix random seed %llu\n", (unsigned long long)seed);
    uint64_t s = seed;
    for (int iter = 0; iter < 12; iter++) {
        unsigned l = (unsigned)(splitmix64(&s) % 4), n = (unsigned)(splitmix64(&s) % 4), L = l + n;
        unsigned b = (unsigned)(splitmix64(&s) % 3);
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
        layout_of(l, n, sh, nt, &lay);
        size_t H = (size_t)1 << L, N = H << b;
        /* reference */
        bb_t *q = calloc(H * lay.width, sizeof *q), *msg = calloc(N, sizeof *msg);
        bb_t *want = malloc(N * lay.width * sizeof *want);
        for (size_t k = 0; k < lay.nslices; k++) {
            gs_stack_slice *sl = &lay.slices[k];
            size_t h = (size_t)1 << sl->log_height, stride = sl->log_height >= l ? 1 : (size_t)1 << (l - sl->log_height);
            for (size_t r = 0; r < h; r++)
                q[sl->stacked_col * H + sl->row + r * stride] = vals[sl->trace][sl->trace_col * h + r];
        }
        for (uint32_t c = 0; c < lay.width; c++) {
            memset(msg, 0, N * sizeof *msg);
            t_naive_rs_message(q + c * H, msg, H, l);
            t_naive_dft(msg, want + c * N, L + b, 0);
        }
        for (unsigned threads = 1; threads <= 3; threads++) {
            gs_engine *eng = mk_engine_s(threads, threads == 3);
            bb_t *got = engine_codeword(eng, &lay, vals, b, threads == 2);
            for (size_t j = 0; j < N * lay.width; j++)
                cr_assert_eq(got[j], want[j], "seed %llu iter %d (l %u n %u b %u) threads %u: entry %zu",
                             (unsigned long long)seed, iter, l, n, b, threads, j);
            free(got);
            gs_engine_destroy(eng);
        }
        free(q);
        free(msg);
        free(want);
        for (size_t t = 0; t < nt; t++)
            free(vals[t]);
        gs_stack_layout_free(&lay);
    }
}

/* Tall single column (the split-column path on several threads) against
 * the unfused engine path: stack_matrix -> rs_message -> pad -> dft. */
Test(rs_code_matrix, tall_column_vs_unfused)
{
    uint64_t seed = 777;
    printf("rs_code_matrix tall column seed %llu\n", (unsigned long long)seed);
    uint64_t s = seed;
    unsigned l = 4, n = 12, b = 1, L = l + n;
    gs_stack_trace_shape sh[2] = {{1, 15}, {3, 3}};
    bb_t *vals[2];
    for (int t = 0; t < 2; t++) {
        size_t cnt = (size_t)sh[t].width << sh[t].log_height;
        vals[t] = malloc(cnt * sizeof(bb_t));
        for (size_t i = 0; i < cnt; i++)
            vals[t][i] = t_rand_bb(&s);
    }
    gs_stack_layout lay;
    layout_of(l, n, sh, 2, &lay);
    cr_assert_eq(lay.width, 1);
    size_t H = (size_t)1 << L, N = H << b;
    gs_engine *eng = mk_engine(3);
    bb_t *got = engine_codeword(eng, &lay, vals, b, 0);
    gs_trace_ref refs[2];
    for (int t = 0; t < 2; t++) {
        refs[t].buf = t_buf(eng, vals[t], (size_t)sh[t].width << sh[t].log_height);
        refs[t].offset = 0;
    }
    gs_buf *buf = t_buf(eng, NULL, N);
    cr_assert_eq(gs_stack_matrix(eng, &lay, refs, 0, 1, buf, 0), GLSTARK_OK);
    gs_dft_cols c = {buf, 0, N, 1, L, 1};
    cr_assert_eq(gs_rs_message(eng, &c, l), GLSTARK_OK);
    cr_assert_eq(gs_buf_fill_u32(buf, H * sizeof(bb_t), N - H, 0), GLSTARK_OK);
    c.log_n = L + b;
    cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_OK);
    bb_t *want = malloc(N * sizeof *want);
    gs_buf_read(buf, 0, want, N * sizeof *want);
    for (size_t j = 0; j < N; j++)
        cr_assert_eq(got[j], want[j], "entry %zu", j);
    gs_buf_destroy(buf);
    for (int t = 0; t < 2; t++) {
        gs_buf_destroy(refs[t].buf);
        free(vals[t]);
    }
    free(got);
    free(want);
    gs_stack_layout_free(&lay);
    gs_engine_destroy(eng);
}

/* ---------------------------------------------------------------- bad input */

Test(stacking, bad_input_gives_status)
{
    gs_error err;
    uint32_t lh;
    cr_assert_eq(gs_stack_log_height(0, &lh, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(err.msg) > 0);
    cr_assert_eq(gs_stack_log_height(12, &lh, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stack_log_height(1, &lh, &err), GLSTARK_OK);
    cr_assert_eq(lh, 0u);
    cr_assert_eq(gs_stack_log_height((uint64_t)1 << 40, &lh, &err), GLSTARK_OK);
    cr_assert_eq(lh, 40u);

    gs_stack_layout lay;
    gs_stack_trace_shape unsorted[] = {{1, 2}, {1, 3}};
    cr_assert_eq(gs_stack_layout_build(2, 2, unsorted, 2, &lay, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_stack_trace_shape tall[] = {{1, 5}};
    cr_assert_eq(gs_stack_layout_build(2, 2, tall, 1, &lay, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stack_layout_build(20, 8, tall, 1, &lay, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stack_layout_build(2, 2, NULL, 1, &lay, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_stack_trace_shape empty[] = {{0, 3}};
    cr_assert_eq(gs_stack_layout_build(2, 2, empty, 1, &lay, &err), GLSTARK_OK);
    cr_assert_eq(lay.width, 0u);
    gs_stack_layout_free(&lay);

    /* engine entry points */
    gs_engine *eng = mk_engine(1);
    gs_stack_trace_shape sh[] = {{2, 3}, {1, 1}};
    layout_of(2, 2, sh, 2, &lay); /* 16 rows: 8 + 8 | 4 -> width 2 */
    cr_assert_eq(lay.width, 2u);
    bb_t v[16] = {0};
    gs_trace_ref refs[2] = {{t_buf(eng, v, 16), 0}, {t_buf(eng, v, 2), 0}};
    gs_buf *cw = t_buf(eng, NULL, 64);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 0, 2, cw, 0), GLSTARK_OK, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 0, 2, cw, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 2, 0, 2, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 1, 1, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 0, 3, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 30, 0, 1, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 0, 1, NULL, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stack_matrix(eng, &lay, refs, 0, 2, cw, 40), GLSTARK_ERR_INVALID_ARGUMENT);
    /* a trace buffer too small for its shape */
    gs_trace_ref small[2] = {{refs[0].buf, 4}, {refs[1].buf, 0}};
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, small, 1, 0, 2, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_trace_ref missing[2] = {{NULL, 0}, {refs[1].buf, 0}};
    cr_assert_eq(gs_stack_matrix(eng, &lay, missing, 0, 2, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    /* corrupted slices */
    lay.slices[1].trace_col = 5;
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 0, 2, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    lay.slices[1].trace_col = 1;
    lay.slices[1].row = 12; /* 12 + 8 > 16 */
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, 1, 0, 2, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    lay.slices[1].row = 8;
    lay.slices[2].log_height = 3;
    cr_assert_eq(gs_stack_matrix(eng, &lay, refs, 0, 2, cw, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    lay.slices[2].log_height = 1;
    cr_assert_eq(gs_stack_matrix(eng, &lay, refs, 0, 2, cw, 0), GLSTARK_OK);
    gs_stack_layout_free(&lay);
    gs_buf_destroy(cw);
    gs_buf_destroy(refs[0].buf);
    gs_buf_destroy(refs[1].buf);
    gs_engine_destroy(eng);
}
