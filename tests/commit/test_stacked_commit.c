/* Stacked commitment KAT: stack -> RS encode -> SWIRL Merkle root must equal
 * OpenVM's common_main_commit for its own traces and parameters (copies of
 * the shared OpenVM json vectors, copied into tests/data/openvm). Also: openings verify,
 * and bad input gives a status. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airs/keccak.h"
#include "glstark/airs.h"
#include "hash/merkle.h"
#include "prove/stacked_commit.h"

#include "../util/test_files.h"

/* The number after "key": in s (first occurrence at or after s). */
static long long json_num(const char *s, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(s, pat);
    cr_assert(p, "key %s missing", key);
    return strtoll(p + strlen(pat), NULL, 10);
}

/* All integers of the JSON array that starts at the first '[' at or after p,
 * flattened, up to its matching ']'. Returns the count; *end is set past it. */
static size_t json_ints(const char *p, uint64_t **out, const char **end)
{
    p = strchr(p, '[');
    cr_assert(p);
    size_t cap = 64, n = 0;
    uint64_t *v = malloc(cap * sizeof *v);
    int depth = 0;
    do {
        if (*p == '[') {
            depth++;
            p++;
        } else if (*p == ']') {
            depth--;
            p++;
        } else if (*p >= '0' && *p <= '9') {
            char *e;
            unsigned long long x = strtoull(p, &e, 10);
            if (n == cap)
                v = realloc(v, (cap *= 2) * sizeof *v);
            v[n++] = x;
            p = e;
        } else {
            cr_assert(*p, "unterminated array");
            p++;
        }
    } while (depth > 0);
    *out = v;
    if (end)
        *end = p;
    return n;
}

typedef struct kat {
    gs_stacked_params prm;
    size_t ntraces;
    uint32_t width[4], air[4];
    uint64_t height[4];
    bb_t *cols[4]; /* column-major, Montgomery */
    uint32_t commit[8];
} kat;

static void load_kat(const char *name, kat *k)
{
    char rel[256];
    snprintf(rel, sizeof rel, "openvm/%s.json", name);
    char *s = tf_read_text(rel);
    memset(k, 0, sizeof *k);
    const char *prm = strstr(s, "\"params\":");
    k->prm.l_skip = (unsigned)json_num(prm, "l_skip");
    k->prm.n_stack = (unsigned)json_num(prm, "n_stack");
    k->prm.log_blowup = (unsigned)json_num(prm, "log_blowup");
    k->prm.k_whir = (unsigned)json_num(strstr(prm, "\"whir\":"), "k");
    uint64_t *v;
    size_t n = json_ints(strstr(s, "\"common_main_commit\":"), &v, NULL);
    cr_assert_eq(n, 8u);
    for (int i = 0; i < 8; i++)
        k->commit[i] = (uint32_t)v[i];
    free(v);
    const char *tr = strstr(s, "\"traces_col_major\":");
    if (tr) { /* several traces, columns given per AIR */
        const char *p = tr;
        while ((p = strstr(p, "\"air\":")) != NULL) {
            size_t t = k->ntraces++;
            cr_assert_lt(t, 4u);
            k->air[t] = (uint32_t)json_num(p, "air");
            k->width[t] = (uint32_t)json_num(p, "width");
            n = json_ints(strstr(p, "\"columns\":"), &v, &p);
            k->height[t] = n / k->width[t];
            k->cols[t] = malloc(n * sizeof(bb_t));
            for (size_t i = 0; i < n; i++)
                k->cols[t][i] = bb_from_canonical((uint32_t)v[i]);
            free(v);
        }
    } else { /* one trace given row-major */
        k->ntraces = 1;
        k->width[0] = (uint32_t)json_num(s, "trace_width");
        n = json_ints(strstr(s, "\"trace_rows\":"), &v, NULL);
        uint32_t w = k->width[0];
        k->height[0] = n / w;
        k->cols[0] = malloc(n * sizeof(bb_t));
        for (size_t r = 0; r < k->height[0]; r++)
            for (uint32_t c = 0; c < w; c++)
                k->cols[0][c * k->height[0] + r] = bb_from_canonical((uint32_t)v[r * w + c]);
        free(v);
    }
    free(s);
}

static gs_engine *mk_engine(unsigned threads)
{
    gs_engine *eng = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(threads, &eng, &err), GLSTARK_OK, "engine: %s", err.msg);
    return eng;
}

static void check_commit(const char *name, unsigned threads)
{
    kat k;
    load_kat(name, &k);
    gs_engine *eng = mk_engine(threads);
    /* OpenVM's stacking order: height descending, AIR index ascending */
    uint32_t lh[4], order[4];
    gs_error err;
    for (size_t t = 0; t < k.ntraces; t++) {
        cr_assert_eq(gs_stack_log_height(k.height[t], &lh[k.air[t]], &err), GLSTARK_OK);
    }
    cr_assert_eq(gs_stack_sort_order(lh, k.ntraces, order, &err), GLSTARK_OK);
    gs_commit_trace tr[4];
    for (size_t i = 0; i < k.ntraces; i++) {
        size_t t = 0;
        while (k.air[t] != order[i])
            t++;
        size_t n = (size_t)k.width[t] * k.height[t];
        gs_buf *b = NULL;
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &b), GLSTARK_OK);
        gs_buf_write(b, 0, k.cols[t], n * sizeof(bb_t));
        tr[i] = (gs_commit_trace){b, 0, k.width[t], k.height[t]};
    }
    gs_stacked_commit_data d;
    k.prm.keep_stacked_matrix = threads != 1;
    cr_assert_eq(gs_stacked_commit(eng, tr, k.ntraces, &k.prm, &d), GLSTARK_OK, "%s: %s", name, eng->err.msg);
    if (k.prm.keep_stacked_matrix) { /* Q holds every trace value where the layout says */
        size_t H = (size_t)1 << (k.prm.l_skip + k.prm.n_stack);
        bb_t *q = malloc(H * d.layout.width * sizeof *q), *col = NULL;
        cr_assert_eq(gs_buf_read(d.matrix, 0, q, H * d.layout.width * sizeof *q), GLSTARK_OK);
        for (size_t i = 0; i < d.layout.nslices; i++) {
            const gs_stack_slice *sl = &d.layout.slices[i];
            size_t h = (size_t)1 << sl->log_height;
            size_t stride = sl->log_height >= k.prm.l_skip ? 1 : (size_t)1 << (k.prm.l_skip - sl->log_height);
            col = realloc(col, h * sizeof *col);
            gs_buf_read(tr[sl->trace].buf, sl->trace_col * h * sizeof(bb_t), col, h * sizeof *col);
            for (size_t r = 0; r < h; r++)
                cr_assert_eq(q[sl->stacked_col * H + sl->row + r * stride], col[r], "%s: Q slice %zu row %zu", name,
                             i, r);
        }
        free(col);
        free(q);
    } else {
        cr_assert_null(d.matrix);
    }
    uint32_t root[8];
    bb_array_to_canonical(root, d.root, 8);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(root[i], k.commit[i], "%s (threads %u): root word %d is %u, OpenVM has %u", name, threads, i,
                     root[i], k.commit[i]);

    /* openings at a few indices verify against the root; a changed row fails */
    size_t K = (size_t)1 << k.prm.k_whir, W = d.layout.width;
    unsigned depth = d.tree.depth;
    uint32_t idx[3] = {0, 1, (uint32_t)((d.tree.height >> k.prm.k_whir) - 1)};
    bb_t *rows = malloc(3 * K * W * sizeof *rows), *proofs = malloc(3 * (depth ? depth : 1) * 8 * sizeof *proofs);
    cr_assert_eq(gs_stacked_commit_open(eng, &d, idx, 3, rows, proofs), GLSTARK_OK, "%s", eng->err.msg);
    for (int q = 0; q < 3; q++)
        cr_assert_eq(gs_merkle_verify(d.root, idx[q], rows + q * K * W, k.prm.k_whir, W, proofs + q * depth * 8,
                                      depth, &err),
                     GLSTARK_OK, "%s: opening %u does not verify: %s", name, idx[q], err.msg);
    rows[1] = bb_add(rows[1], bb_one());
    cr_assert_eq(gs_merkle_verify(d.root, idx[0], rows, k.prm.k_whir, W, proofs, depth, &err),
                 GLSTARK_ERR_REJECTED);
    free(rows);
    free(proofs);
    gs_stacked_commit_release(&d);
    for (size_t i = 0; i < k.ntraces; i++) {
        gs_buf_destroy(tr[i].buf);
        free(k.cols[i]);
    }
    gs_engine_destroy(eng);
}

Test(stacked_commit, fib_small_n1) { check_commit("fib-small_n1", 2); } /* strided: 2 rows < 2^l_skip */
Test(stacked_commit, fib_small_n2) { check_commit("fib-small_n2", 1); }
Test(stacked_commit, fib_small_n3) { check_commit("fib-small_n3", 2); }
Test(stacked_commit, fib_small_n4) { check_commit("fib-small_n4", 3); }
Test(stacked_commit, fib_small_n10) { check_commit("fib-small_n10", 2); }
Test(stacked_commit, interactions_small) { check_commit("interactions-small", 2); }
Test(stacked_commit, fib_app18_n10) { check_commit("fib-app18_n10", 2); }

/* keccak-app21_p16: Plonky3's KeccakAir trace of 16 permutations (inputs
 * from StdRng seed 42), app params for 2^21: l_skip 4, n_stack 17, k 4. The
 * trace (2633 x 2^9) stacks into one column; the codeword has 2^22 rows. */
Test(stacked_commit, keccak_app21_p16, .timeout = 300)
{
    char *txt = tf_read_text("keccak_inputs_seed42_n16.txt"), *p = txt;
    uint64_t inputs[16][25];
    size_t n = 0;
    while (n < 16 * 25 && *p) {
        while (*p && (*p < '0' || *p > '9'))
            p++;
        if (!*p)
            break;
        inputs[n / 25][n % 25] = strtoull(p, &p, 10);
        n++;
    }
    free(txt);
    cr_assert_eq(n, 16u * 25u);
    size_t h = glstark_keccak_trace_height(16), cells = (size_t)GS_KC_WIDTH * h;
    cr_assert_eq(h, 512u);
    bb_t *trace = malloc(cells * sizeof *trace);
    cr_assert_eq(gs_keccak_trace_mont((const uint64_t(*)[25])inputs, 16, trace), GLSTARK_OK);

    char *js = tf_read_text("openvm/keccak-app21_p16.json");
    uint64_t *v;
    cr_assert_eq(json_ints(strstr(js, "\"common_main_commit\":"), &v, NULL), 8u);
    const char *prm_s = strstr(js, "\"params\":");
    gs_stacked_params prm = {(unsigned)json_num(prm_s, "l_skip"), (unsigned)json_num(prm_s, "n_stack"),
                             (unsigned)json_num(prm_s, "log_blowup"),
                             (unsigned)json_num(strstr(prm_s, "\"whir\":"), "k"), 0, 0};
    cr_assert(prm.l_skip == 4 && prm.n_stack == 17 && prm.log_blowup == 1 && prm.k_whir == 4);

    gs_engine *eng = mk_engine(0);
    gs_buf *b = NULL;
    cr_assert_eq(gs_buf_create(eng, cells * sizeof(bb_t), &b), GLSTARK_OK);
    gs_buf_write(b, 0, trace, cells * sizeof(bb_t));
    gs_commit_trace tr = {b, 0, GS_KC_WIDTH, h};
    gs_stacked_commit_data d;
    cr_assert_eq(gs_stacked_commit(eng, &tr, 1, &prm, &d), GLSTARK_OK, "%s", eng->err.msg);
    cr_assert_eq(d.layout.width, 1u);
    uint32_t root[8];
    bb_array_to_canonical(root, d.root, 8);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(root[i], (uint32_t)v[i], "keccak root word %d is %u, OpenVM has %u", i, root[i],
                     (uint32_t)v[i]);
    printf("keccak-app21_p16 commit: rs_code_matrix %.1f ms, merkle_tree %.1f ms\n", d.rs_code_matrix_s * 1e3,
           d.merkle_tree_s * 1e3);
    gs_stacked_commit_release(&d);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
    free(v);
    free(js);
    free(trace);
}

Test(stacked_commit, bad_input_gives_status)
{
    gs_engine *eng = mk_engine(1);
    gs_buf *b = NULL;
    cr_assert_eq(gs_buf_create(eng, 64 * sizeof(bb_t), &b), GLSTARK_OK);
    gs_buf_fill_u32(b, 0, 64, 0);
    gs_stacked_params prm = {2, 2, 1, 2, 1, 0};
    gs_stacked_commit_data d;
    gs_commit_trace ok = {b, 0, 2, 16};
    cr_assert_eq(gs_stacked_commit(eng, &ok, 1, &prm, &d), GLSTARK_OK, "%s", eng->err.msg);
    gs_stacked_commit_release(&d);
    gs_commit_trace zero_h = {b, 0, 2, 0}, odd_h = {b, 0, 2, 12}, tall = {b, 0, 1, 32}, big = {b, 0, 5, 16};
    gs_commit_trace no_cols = {b, 0, 0, 16}, off = {b, 40, 2, 16};
    cr_assert_eq(gs_stacked_commit(eng, &zero_h, 1, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(eng->err.msg) > 0);
    cr_assert_eq(gs_stacked_commit(eng, &odd_h, 1, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, &tall, 1, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, &big, 1, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, &no_cols, 1, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, &off, 1, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, NULL, 0, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_commit_trace unsorted[2] = {{b, 0, 1, 4}, {b, 0, 1, 16}};
    cr_assert_eq(gs_stacked_commit(eng, unsorted, 2, &prm, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_stacked_params bad_k = {2, 2, 1, 6, 0, 0}, bad_l = {10, 10, 10, 2, 0, 0};
    cr_assert_eq(gs_stacked_commit(eng, &ok, 1, &bad_k, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, &ok, 1, &bad_l, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_stacked_commit(eng, &ok, 1, NULL, &d), GLSTARK_ERR_INVALID_ARGUMENT);
    /* opening index out of range */
    cr_assert_eq(gs_stacked_commit(eng, &ok, 1, &prm, &d), GLSTARK_OK);
    uint32_t idx = 8; /* 32 rows / 4 per query = 8 positions */
    bb_t rows[64], proof[64];
    cr_assert_eq(gs_stacked_commit_open(eng, &d, &idx, 1, rows, proof), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_stacked_commit_release(&d);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}
