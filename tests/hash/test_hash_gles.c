/* The GLES engine's hash family against the CPU engine: Merkle trees (every
 * digest layer, not just the root) of random matrices of awkward shapes
 * with edge values, poisoned outputs, a lowered binding limit so the column
 * windows, row splits and resumable sponge states run in CI; openings equal
 * the CPU engine's and verify; grinding finds the same smallest witness. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gles/gles_test_util.h"
#include "engine/gles/gles_engine.h"
#include "engine/read_later.h"
#include "engine/hash_ops.h"
#include "hash/grind.h"
#include "hash/merkle.h"
#include "common/transcript.h"
#include "../util/splitmix.h"

/* Random Montgomery words with the edge values 0, 1, p-1 mixed in. */
static bb_t *random_words(size_t n, uint64_t *s)
{
    bb_t *m = malloc((n ? n : 1) * sizeof *m);
    cr_assert(m);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(s);
        uint32_t v = (r & 15) == 0 ? 0 : (r & 15) == 1 ? 1 : (r & 15) == 2 ? BB_P - 1 : (uint32_t)((r >> 8) % BB_P);
        m[i] = bb_from_canonical(v);
    }
    return m;
}


/* Builds the tree on eng from mat (placed at word offset `off` of a buffer
 * poisoned elsewhere) and returns every digest layer. */
static bb_t *tree_on(gs_engine *eng, const bb_t *mat, size_t off, size_t n, size_t width, unsigned deg, unsigned log_k,
                     gs_merkle_dev *tree, gs_buf **mat_buf)
{
    size_t words = n * width * deg;
    gs_buf *b = NULL;
    TU_OK(eng, gs_buf_create(eng, (off + words + 7) * 4, &b));
    TU_OK(eng, gs_buf_fill_u32(b, 0, off + words + 7, 0xDEADBEEFu));
    TU_OK(eng, gs_buf_write(b, off * 4, mat, words * 4));
    TU_OK(eng, gs_engine_merkle_commit(eng, b, off, n, width, deg, log_k, tree));
    size_t dw = gs_merkle_digest_words(n, log_k);
    bb_t *d = malloc(dw * sizeof *d);
    TU_OK(eng, gs_buf_read(tree->digests, 0, d, dw * 4));
    *mat_buf = b;
    return d;
}

typedef struct shape {
    size_t n, width;
    unsigned deg, log_k;
} shape;

static void compare_shapes(uint64_t max_binding, const shape *shapes, size_t count, uint64_t seed)
{
    gs_engine *g = tu_engine_binding(max_binding), *c = tu_cpu_engine();
    cr_log_info("binding limit %llu bytes (device %llu), seed %llu", (unsigned long long)max_binding,
                (unsigned long long)gs_gles_device(g)->caps.max_binding_bytes, (unsigned long long)seed);
    printf("merkle gles vs cpu: binding limit %llu, seed %llu\n", (unsigned long long)max_binding,
           (unsigned long long)seed);
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        const shape *sh = &shapes[i];
        bb_t *mat = random_words(sh->n * sh->width * sh->deg, &s);
        size_t off = (size_t)(splitmix64(&s) % 5); /* unaligned matrix offsets */
        gs_merkle_dev tg, tc;
        gs_buf *bg, *bc;
        bb_t *dg = tree_on(g, mat, off, sh->n, sh->width, sh->deg, sh->log_k, &tg, &bg);
        bb_t *dc = tree_on(c, mat, off, sh->n, sh->width, sh->deg, sh->log_k, &tc, &bc);
        size_t dw = gs_merkle_digest_words(sh->n, sh->log_k);
        for (size_t w = 0; w < dw; w++)
            cr_assert_eq(dg[w], dc[w], "shape %zu (n %zu, width %zu, deg %u, k %u, off %zu): digest word %zu differs",
                         i, sh->n, sh->width, sh->deg, sh->log_k, off, w);
        /* openings */
        size_t S = sh->n >> sh->log_k, K = (size_t)1 << sh->log_k;
        uint32_t idx[3] = {0, (uint32_t)(S - 1), (uint32_t)(splitmix64(&s) % S)};
        size_t rw = K * sh->width * sh->deg, pw = tg.depth * 8u;
        bb_t *rg = malloc(3 * rw * 4 + 4), *rc = malloc(3 * rw * 4 + 4);
        bb_t *pg = malloc(3 * pw * 4 + 4), *pc = malloc(3 * pw * 4 + 4);
        TU_OK(g, gs_engine_merkle_open(g, bg, off, &tg, idx, 3, rg, pg));
        TU_OK(c, gs_engine_merkle_open(c, bc, off, &tc, idx, 3, rc, pc));
        cr_assert_eq(memcmp(rg, rc, 3 * rw * 4), 0, "shape %zu: opened rows differ", i);
        cr_assert_eq(memcmp(pg, pc, 3 * pw * 4), 0, "shape %zu: opening proofs differ", i);
        bb_t root[8];
        TU_OK(g, gs_engine_merkle_root(g, &tg, root));
        gs_error err;
        for (int q = 0; q < 3; q++)
            cr_assert_eq(gs_merkle_verify(root, idx[q], rg + q * rw, sh->log_k, sh->width * sh->deg, pg + q * pw,
                                          tg.depth, &err),
                         GLSTARK_OK, "shape %zu query %d: %s", i, q, err.msg);
        free(rg);
        free(rc);
        free(pg);
        free(pc);
        gs_merkle_dev_release(&tg);
        gs_merkle_dev_release(&tc);
        gs_buf_destroy(bg);
        gs_buf_destroy(bc);
        free(dg);
        free(dc);
        free(mat);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* Heights 1 .. 2^20, widths 1 and 3 and ones that are not multiples of the
 * rate or the work-group size, base and extension entries. Cosets of up to
 * 2^8 rows: the fused leaf-and-coset kernel takes the shapes with rows of at
 * most 16 elements whose cosets fill a work group (up to K = the local
 * size), the separate passes the others (and every shape under the small
 * binding limit below). */
static const shape shapes_default[] = {
    {1, 1, 1, 0},    {2, 1, 1, 1},   {2, 3, 1, 0},     {8, 3, 1, 1},     {16, 1, 4, 2},   {16, 2, 1, 4},
    {64, 5, 1, 3},   {32, 9, 1, 4},  {128, 8, 1, 2},   {256, 17, 1, 4},  {1024, 1, 4, 3}, {512, 3, 4, 4},
    {4096, 42, 1, 4}, {1u << 14, 3, 1, 4}, {1u << 20, 1, 1, 4}, {1u << 12, 5, 1, 8}, {1u << 13, 3, 4, 7},
    {1u << 11, 9, 4, 5},
};

Test(hash_gles, merkle_matches_cpu)
{
    compare_shapes(0, shapes_default, sizeof shapes_default / sizeof shapes_default[0], 0x5EED0001u);
}

/* A 4 KiB binding limit: each leaf dispatch sees a few columns or a part of
 * one, rows are absorbed over several windows, the compressions chunk. */
Test(hash_gles, merkle_small_bindings)
{
    static const shape sh[] = {
        {256, 42, 1, 4}, {1024, 3, 1, 2}, {2048, 1, 1, 0}, {512, 5, 4, 3}, {64, 11, 1, 1}, {4096, 2, 1, 4},
    };
    compare_shapes(4096, sh, sizeof sh / sizeof sh[0], 0x5EED0002u);
}

/* Many queries at once, as a WHIR query round opens them (duplicates, both
 * ends, random ones): the rows and the sibling digests are gathered by one
 * kernel each into a staging buffer the pool hands out poisoned, and must
 * equal the CPU engine's. Under the device's bindings each gather is one
 * window; under a 4 KiB limit the paths of this many queries exceed one
 * binding and fall back to a buffer copy per digest (merkle_small_bindings
 * has the kernel at unaligned output words with a few queries). */
static void many_queries(uint64_t max_binding, uint64_t seed)
{
    gs_device_config cfg = tu_config();
    cfg.max_binding_bytes = max_binding;
    cfg.pool_poison = 1;
    gs_engine *g = tu_engine(&cfg), *c = tu_cpu_engine();
    printf("merkle openings, many queries: binding limit %llu, seed %llu\n", (unsigned long long)max_binding,
           (unsigned long long)seed);
    static const shape shapes[] = {{1u << 12, 3, 1, 4}, {1u << 10, 2, 4, 2}, {64, 11, 1, 1}, {1u << 13, 1, 1, 0}};
    uint64_t s = seed;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const shape *sh = &shapes[i];
        bb_t *mat = random_words(sh->n * sh->width * sh->deg, &s);
        gs_merkle_dev tg, tc;
        gs_buf *bg, *bc;
        bb_t *dg = tree_on(g, mat, 1, sh->n, sh->width, sh->deg, sh->log_k, &tg, &bg);
        bb_t *dc = tree_on(c, mat, 1, sh->n, sh->width, sh->deg, sh->log_k, &tc, &bc);
        const size_t S = sh->n >> sh->log_k, K = (size_t)1 << sh->log_k, nq = 193;
        uint32_t idx[193];
        for (size_t q = 0; q < nq; q++)
            idx[q] = q == 0 ? 0 : q == 1 ? (uint32_t)(S - 1) : q % 7 == 0 ? idx[q - 1] : (uint32_t)(splitmix64(&s) % S);
        const size_t rw = K * sh->width * sh->deg, pw = tg.depth * 8u;
        bb_t *rg = malloc(nq * rw * 4), *rc = malloc(nq * rw * 4), *pg = malloc(nq * pw * 4 + 4),
             *pc = malloc(nq * pw * 4 + 4);
        TU_OK(g, gs_engine_merkle_open(g, bg, 1, &tg, idx, nq, rg, pg));
        TU_OK(c, gs_engine_merkle_open(c, bc, 1, &tc, idx, nq, rc, pc));
        for (size_t q = 0; q < nq; q++) {
            cr_assert_eq(memcmp(rg + q * rw, rc + q * rw, rw * 4), 0, "shape %zu query %zu (row %u): rows differ", i, q,
                         idx[q]);
            cr_assert_eq(memcmp(pg + q * pw, pc + q * pw, pw * 4), 0, "shape %zu query %zu (row %u): paths differ", i,
                         q, idx[q]);
        }
        free(rg), free(rc), free(pg), free(pc), free(dg), free(dc), free(mat);
        gs_merkle_dev_release(&tg);
        gs_merkle_dev_release(&tc);
        gs_buf_destroy(bg);
        gs_buf_destroy(bc);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(hash_gles, openings_many_queries) { many_queries(0, 0x5EED0005u); }
Test(hash_gles, openings_many_queries_small_bindings) { many_queries(4096, 0x5EED0006u); }

/* The streamed commitment (gs_merkle_stream): 1, 2 or 4 row classes, each
 * class's columns in groups of `group` (a multiple of 8, the last group
 * shorter) written into the stream's group buffer, real columns only, so a
 * short block's tail must survive there; states and group buffer poisoned
 * first. Every digest layer must equal the CPU engine's tree of the whole
 * matrix. */
/* The streamed tree of mat on eng: class by class (by_group 0, one
 * gs_merkle_stream), or a column group at a time across the classes
 * (by_group 1, gs_engine_merkle_stream_begin_classes: every class of group
 * g before group g + 1). States and group buffers are poisoned first. */
static bb_t *stream_tree_on(gs_engine *eng, const bb_t *mat, size_t n, size_t width, unsigned log_k, unsigned lc,
                            size_t group, int by_group, gs_merkle_dev *tree)
{
    const size_t rows = n >> lc, classes = (size_t)1 << lc;
    gs_merkle_stream ms[4];
    glstark_status st = by_group ? gs_engine_merkle_stream_begin_classes(eng, n, width, log_k, lc, group, ms)
                                 : gs_engine_merkle_stream_begin(eng, n, width, log_k, lc, group, &ms[0]);
    if (st == GLSTARK_ERR_UNSUPPORTED && strcmp(eng->core->name, "cpu") != 0) {
        /* a group that does not fit one binding is refused up front */
        cr_assert(strstr(eng->err.msg, "binding limit") != NULL, "%s", eng->err.msg);
        cr_assert_null(ms[0].states);
        return NULL;
    }
    TU_OK(eng, st);
    const size_t nstreams = by_group ? classes : 1;
    for (size_t k = 0; k < nstreams; k++) {
        /* the first group must not read them */
        TU_OK(eng, gs_buf_fill_u32(ms[k].states, 0, ms[k].states->size / 4, 0xDEADBEEFu));
        TU_OK(eng, gs_buf_fill_u32(ms[k].group, 0, ms[k].group->size / 4, 0xDEADBEEFu));
    }
    bb_t *buf = malloc(group * rows * sizeof *buf);
    const size_t ngroups = (width + group - 1) / group;
    for (size_t step = 0; step < classes * ngroups; step++) {
        const size_t cls = by_group ? step % classes : step / ngroups;
        const size_t c0 = (by_group ? step / classes : step % ngroups) * group;
        const size_t g = width - c0 < group ? width - c0 : group;
        gs_merkle_stream *m = &ms[by_group ? cls : 0];
        for (size_t j = 0; j < g; j++)
            for (size_t r = 0; r < rows; r++)
                buf[j * rows + r] = mat[(c0 + j) * n + (r << lc) + cls];
        TU_OK(eng, gs_buf_write(m->group, 0, buf, g * rows * 4));
        TU_OK(eng, gs_engine_merkle_stream_columns(eng, m, g, tree));
        cr_assert((step + 1 == classes * ngroups) == (tree->digests != NULL),
                  "the tree comes with the last class's last group only (step %zu)", step);
        if (by_group && c0 + g == width)
            cr_assert_null(m->states, "a class's stream is released when its rows end");
    }
    free(buf);
    for (size_t k = 0; k < nstreams; k++) {
        cr_assert_null(ms[k].states, "the states are released after the last group");
        cr_assert_null(ms[k].group, "the group buffer is released after the last group");
    }
    size_t dw = gs_merkle_digest_words(n, log_k);
    bb_t *d = malloc(dw * sizeof *d);
    TU_OK(eng, gs_buf_read(tree->digests, 0, d, dw * 4));
    return d;
}

static void compare_streamed(uint64_t max_binding, const shape *shapes, size_t count, uint64_t seed)
{
    gs_engine *g = tu_engine_binding(max_binding), *c = tu_cpu_engine();
    printf("merkle stream gles and cpu vs whole-matrix cpu: binding limit %llu, seed %llu\n",
           (unsigned long long)max_binding, (unsigned long long)seed);
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        const shape *sh = &shapes[i];
        bb_t *mat = random_words(sh->n * sh->width, &s);
        gs_merkle_dev tw;
        gs_buf *bw;
        bb_t *want = tree_on(c, mat, 0, sh->n, sh->width, 1, sh->log_k, &tw, &bw);
        size_t dw = gs_merkle_digest_words(sh->n, sh->log_k), cosets = sh->n >> sh->log_k;
        const size_t groups[3] = {8, 16, (sh->width + 7) / 8 * 8};
        int ran = 0;
        for (unsigned lc = 0; lc <= 2; lc++) {
            if (cosets % ((size_t)1 << lc) != 0 || (lc > 0 && sh->log_k == 0))
                continue;
            for (int gi = 0; gi < 3 * 2; gi++) {
                for (int e = 0; e < 2; e++) {
                    gs_engine *eng = e ? g : c;
                    gs_merkle_dev t;
                    const int by_group = gi & 1;
                    bb_t *d = stream_tree_on(eng, mat, sh->n, sh->width, sh->log_k, lc, groups[gi / 2], by_group, &t);
                    if (!d) {
                        cr_assert(max_binding != 0 && groups[gi / 2] * (sh->n >> lc) * 4 > max_binding / 2,
                                  "shape %zu refused with %zu rows of groups of %zu under %llu bytes", i,
                                  sh->n >> lc, groups[gi / 2], (unsigned long long)max_binding);
                        continue;
                    }
                    ran += e;
                    for (size_t w = 0; w < dw; w++)
                        cr_assert_eq(d[w], want[w],
                                     "%s, shape %zu (n %zu, width %zu, k %u), 2^%u classes, groups of %zu%s: word "
                                     "%zu differs",
                                     eng->core->name, i, sh->n, sh->width, sh->log_k, lc, groups[gi / 2],
                                     by_group ? " across the classes" : "", w);
                    cr_assert_eq(t.depth, tw.depth);
                    gs_merkle_dev_release(&t);
                    free(d);
                }
            }
        }
        cr_assert(ran > 0, "shape %zu: no streamed commitment ran on the gles engine", i);
        gs_merkle_dev_release(&tw);
        gs_buf_destroy(bw);
        free(want);
        free(mat);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

static const shape shapes_stream[] = {
    {1, 1, 1, 0},     {2, 3, 1, 1},      {16, 9, 1, 4},       {64, 8, 1, 3},       {256, 17, 1, 4},
    {1024, 42, 1, 4}, {4096, 24, 1, 2},  {1u << 14, 9, 1, 4}, {1u << 12, 16, 1, 8}, {512, 7, 1, 2},
    {256, 23, 1, 3},
};

Test(hash_gles, merkle_stream_matches_whole)
{
    compare_streamed(0, shapes_stream, sizeof shapes_stream / sizeof shapes_stream[0], 0x5EED0003u);
}

/* Under a 4 KiB binding limit: many tiles, so each tile's window of states,
 * and windows that must stretch to a short block's tail columns. */
Test(hash_gles, merkle_stream_small_bindings)
{
    static const shape sh[] = {{256, 42, 1, 4}, {64, 9, 1, 0}, {256, 17, 1, 2}, {128, 23, 1, 3}};
    compare_streamed(4096, sh, sizeof sh / sizeof sh[0], 0x5EED0004u);
}

/* Rows enough that a dispatch's permutation budget leaves one rate block
 * per dispatch on a software renderer: a group of 16 splits into windows,
 * and the one permuting the block before the short one must still reach
 * the tail columns at the group's start. */
Test(hash_gles, merkle_stream_split_group)
{
    gs_engine *g = tu_engine_binding(0), *c = tu_cpu_engine();
    uint64_t s = 0x5EED0005u;
    printf("merkle stream split group: seed %llu\n", (unsigned long long)s);
    const size_t n = (size_t)1 << 17, width = 23;
    bb_t *mat = random_words(n * width, &s);
    gs_merkle_dev tw, t;
    gs_buf *bw;
    bb_t *want = tree_on(c, mat, 0, n, width, 1, 4, &tw, &bw);
    bb_t *d = stream_tree_on(g, mat, n, width, 4, 0, 16, 0, &t);
    size_t dw = gs_merkle_digest_words(n, 4);
    cr_assert_not_null(d);
    for (size_t w = 0; w < dw; w++)
        cr_assert_eq(d[w], want[w], "word %zu differs", w);
    gs_merkle_dev_release(&t);
    gs_merkle_dev_release(&tw);
    gs_buf_destroy(bw);
    free(d);
    free(want);
    free(mat);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* Groups that are not whole rate blocks, groups that do not end the rows
 * shorter than the stream's, classes that split cosets or need K >= 2,
 * more columns than the matrix has, nothing after the last group. */
Test(hash_gles, merkle_stream_bad_input)
{
    gs_engine *engs[2] = {tu_engine_binding(0), tu_cpu_engine()};
    for (int e = 0; e < 2; e++) {
        gs_engine *eng = engs[e];
        gs_merkle_stream ms;
        gs_merkle_dev t;
        cr_assert_eq(gs_engine_merkle_stream_begin(eng, 64, 20, 2, 0, 12, &ms), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "multiple of 8") != NULL, "%s", eng->err.msg);
        cr_assert_null(ms.states);
        cr_assert_eq(gs_engine_merkle_stream_begin(eng, 64, 20, 2, 5, 8, &ms), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "row classes") != NULL, "%s", eng->err.msg);
        cr_assert_eq(gs_engine_merkle_stream_begin(eng, 64, 20, 0, 1, 8, &ms), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert_eq(gs_engine_merkle_stream_begin(eng, 48, 20, 2, 0, 8, &ms), GLSTARK_ERR_INVALID_ARGUMENT);
        TU_OK(eng, gs_engine_merkle_stream_begin(eng, 64, 20, 2, 1, 16, &ms));
        TU_OK(eng, gs_buf_fill_u32(ms.group, 0, ms.group->size / 4, 0));
        cr_assert_eq(gs_engine_merkle_stream_columns(eng, &ms, 8, &t), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "must have the stream's 16") != NULL, "%s", eng->err.msg);
        cr_assert_eq(gs_engine_merkle_stream_columns(eng, &ms, 17, &t), GLSTARK_ERR_INVALID_ARGUMENT);
        for (int cls = 0; cls < 2; cls++) {
            TU_OK(eng, gs_engine_merkle_stream_columns(eng, &ms, 16, &t));
            cr_assert_null(t.digests);
            cr_assert_eq(gs_engine_merkle_stream_columns(eng, &ms, 5, &t), GLSTARK_ERR_INVALID_ARGUMENT);
            TU_OK(eng, gs_engine_merkle_stream_columns(eng, &ms, 4, &t));
            cr_assert((cls == 1) == (t.digests != NULL), "the tree comes after the last class only");
        }
        gs_merkle_dev_release(&t);
        cr_assert_eq(gs_engine_merkle_stream_columns(eng, &ms, 4, &t), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "already finished") != NULL, "%s", eng->err.msg);
        gs_merkle_stream_release(&ms);
        gs_engine_destroy(eng);
    }
}

/* Opened rows placed per query (a row class's queries among the others):
 * each query's K rows where dst[q] points, every other word untouched,
 * equal to the CPU engine's opening; a query past the tree is refused. */
Test(hash_gles, open_rows_to_places_each_query)
{
    gs_engine *engs[2] = {tu_engine_binding(0), tu_cpu_engine()};
    uint64_t s = 0x5EED0006u;
    printf("open_rows_to seed %llu\n", (unsigned long long)s);
    const size_t n = 256, width = 5, stride = 13;
    const unsigned log_k = 2;
    const size_t k = (size_t)1 << log_k, nq = 4;
    const uint32_t idx[4] = {63, 0, 17, 17};
    bb_t *mat = random_words(n * width, &s);
    gs_engine *cpu = engs[1];
    gs_merkle_dev tw;
    gs_buf *bw;
    bb_t *want_tree = tree_on(cpu, mat, 0, n, width, 1, log_k, &tw, &bw);
    bb_t want[4 * 4 * 5];
    TU_OK(cpu, gs_engine_merkle_open(cpu, bw, 0, &tw, idx, nq, want, NULL));
    for (int e = 0; e < 2; e++) {
        gs_engine *eng = engs[e];
        gs_merkle_dev t;
        gs_buf *b;
        free(tree_on(eng, mat, 0, n, width, 1, log_k, &t, &b));
        bb_t out[4 * 4 * 13 + 3];
        for (size_t i = 0; i < sizeof out / sizeof out[0]; i++)
            out[i] = 0xDEADBEEFu;
        /* queries in reverse order of their slots */
        bb_t *dst[4];
        for (size_t q = 0; q < nq; q++)
            dst[q] = out + 1 + (nq - 1 - q) * k * stride;
        TU_OK(eng, gs_engine_merkle_open_rows_to(eng, b, 0, &t, idx, nq, dst, stride));
        TU_OK(eng, gs_engine_read_flush(eng));
        for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
            size_t rel = i - 1, slot = rel / (k * stride), within = rel % (k * stride);
            size_t tt = within / stride, c = within % stride;
            if (i == 0 || slot >= nq || c >= width) {
                cr_assert_eq(out[i], 0xDEADBEEFu, "%s: word %zu outside the rows was written", eng->core->name, i);
                continue;
            }
            size_t q = nq - 1 - slot;
            cr_assert_eq(out[i], want[(q * k + tt) * width + c], "%s: query %zu row %zu column %zu differs",
                         eng->core->name, q, tt, c);
        }
        const uint32_t bad = (uint32_t)(n >> log_k);
        cr_assert_eq(gs_engine_merkle_open_rows_to(eng, b, 0, &t, &bad, 1, dst, stride), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert_eq(gs_engine_merkle_open_rows_to(eng, b, 0, &t, idx, 1, dst, width - 1),
                     GLSTARK_ERR_INVALID_ARGUMENT);
        gs_merkle_dev_release(&t);
        gs_buf_destroy(b);
    }
    free(want_tree);
    gs_merkle_dev_release(&tw);
    gs_buf_destroy(bw);
    free(mat);
    gs_engine_destroy(engs[0]);
    gs_engine_destroy(engs[1]);
}

Test(hash_gles, grind_same_witness)
{
    gs_engine *g = tu_engine_binding(0), *c = tu_cpu_engine();
    uint64_t s = 0x6121D;
    printf("grind seed %llu\n", (unsigned long long)s);
    for (unsigned bits = 1; bits <= 16; bits += (bits < 4 ? 1 : 3)) {
        bb_t st[GS_P2_WIDTH];
        for (int i = 0; i < GS_P2_WIDTH; i++)
            st[i] = bb_from_canonical((uint32_t)(splitmix64(&s) % BB_P));
        unsigned absorb = (unsigned)(splitmix64(&s) % GS_P2_RATE);
        uint32_t wg = 0xFFFFFFFFu, wc = 0xFFFFFFFEu;
        TU_OK(g, gs_engine_grind(g, st, absorb, bits, &wg));
        TU_OK(c, gs_engine_grind(c, st, absorb, bits, &wc));
        cr_assert_eq(wg, wc, "%u bits, absorb %u: gles found %u, cpu %u", bits, absorb, wg, wc);
        cr_assert(gs_pow_witness_ok(st, absorb, bits, wg));
        for (uint32_t w = 0; w < wg && w < 4096; w++)
            cr_assert(!gs_pow_witness_ok(st, absorb, bits, w), "%u bits: %u < %u also passes", bits, w, wg);
    }
    /* bad input: a status, no crash */
    bb_t st[GS_P2_WIDTH] = {0};
    uint32_t w;
    cr_assert_eq(gs_engine_grind(g, st, 8, 4, &w), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_engine_grind(g, st, 0, 31, &w), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(hash_gles, bad_input)
{
    gs_engine *g = tu_engine_binding(0);
    gs_buf *b = NULL;
    TU_OK(g, gs_buf_create(g, 64 * 4, &b));
    gs_merkle_dev t;
    cr_assert_eq(gs_engine_merkle_commit(g, b, 0, 3, 1, 1, 0, &t), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_engine_merkle_commit(g, b, 0, 64, 2, 1, 0, &t), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_engine_merkle_commit(g, b, 0, 16, 1, 1, 5, &t), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_engine_merkle_commit(g, b, 0, 16, 1, 2, 1, &t), GLSTARK_ERR_INVALID_ARGUMENT);
    TU_OK(g, gs_engine_merkle_commit(g, b, 0, 16, 2, 1, 2, &t));
    uint32_t idx = 4;
    bb_t rows[64], proof[64];
    cr_assert_eq(gs_engine_merkle_open(g, b, 0, &t, &idx, 1, rows, proof), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(g->err.msg) > 0);
    gs_merkle_dev_release(&t);
    gs_buf_destroy(b);
    gs_engine_destroy(g);
}

/* OpenVM's prover logs (serial builds, so every witness is the smallest
 * valid one): replaying the transcript, the GLES grinder must find each
 * witness from the state just before it is observed. */
static void replay_grinds(const char *name)
{
    gs_engine *g = tu_engine_binding(0);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GLSTARK_TEST_DATA, name);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    gs_transcript ts;
    gs_transcript_init(&ts);
    char buf[512];
    unsigned pending = 0, bits;
    size_t grinds = 0;
    while (fgets(buf, sizeof buf, f)) {
        unsigned long v;
        char *cw;
        if (buf[0] == '#' && (cw = strstr(buf, "[check_witness ")) != NULL && sscanf(cw, "[check_witness %u]", &bits) == 1) {
            pending = bits;
        } else if (sscanf(buf, "observe %lu", &v) == 1) {
            if (pending) {
                uint32_t w = 0xFFFFFFFFu;
                TU_OK(g, gs_engine_grind(g, ts.st, ts.absorb_idx, pending, &w));
                cr_assert_eq(w, v, "%s: gles grind(%u) found %u, OpenVM's witness is %lu", name, pending, w, v);
                pending = 0;
                grinds++;
            }
            gs_transcript_observe_u32(&ts, (uint32_t)v);
        } else if (sscanf(buf, "sample %lu", &v) == 1) {
            gs_transcript_sample(&ts);
        }
    }
    fclose(f);
    printf("%s: %zu witnesses found on the GPU\n", name, grinds);
    cr_assert_gt(grinds, 0);
    gs_engine_destroy(g);
}

Test(hash_gles, grind_openvm_witnesses_small) { replay_grinds("fib-small_n4.transcript.txt"); }

/* 18-, 15-, 20- and 5-bit proofs of work. */
Test(hash_gles, grind_openvm_witnesses_app18) { replay_grinds("fib-app18_n10.transcript.txt"); }
