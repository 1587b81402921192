/* The SWIRL Merkle tree (src/hash/merkle.h) and the CPU engine's hash family:
 * against an independent straightforward implementation written here from the
 * Rust formulation of MerkleTree::new (docs/protocol.md, 'Stacked PCS'), against the
 * model's toy opening (model-derived: docs/protocol.md, 'Test vectors'), openings that verify and fail
 * when tampered with, and statuses for bad input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/hash_ops.h"
#include "hash/merkle.h"
#include "common/transcript.h"
#include "../util/splitmix.h"

static bb_t *random_matrix(size_t words, uint64_t *seed)
{
    bb_t *m = malloc(words * sizeof *m);
    cr_assert(m);
    for (size_t i = 0; i < words; i++)
        m[i] = bb_from_canonical((uint32_t)(splitmix64(seed) % BB_P));
    return m;
}

/* Naive reference, following the Rust: leaves of all rows; the first log_k
 * layers map entry i to C(prev[2xS + y], prev[(2x+1)S + y]) with x = i / S,
 * y = i % S; then adjacent pairs. Returns all layers from node0 up, as one
 * array in the merkle.h layout. */
static bb_t *naive_tree(const bb_t *mat, size_t n, size_t width, unsigned deg, unsigned log_k)
{
    size_t s = n >> log_k, len = width * deg;
    bb_t *row = malloc((len ? len : 1) * sizeof *row);
    bb_t *cur = malloc(n * 8 * sizeof *cur);
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c < width; c++)
            for (unsigned j = 0; j < deg; j++)
                row[c * deg + j] = mat[(c * n + r) * deg + j];
        gs_poseidon2_hash(row, len, cur + r * 8);
    }
    size_t m = n;
    for (unsigned lyr = 0; lyr < log_k; lyr++) {
        size_t next = m / 2;
        bb_t *nx = malloc(next * 8 * sizeof *nx);
        for (size_t i = 0; i < next; i++) {
            size_t x = i / s, y = i % s;
            gs_poseidon2_compress(cur + (2 * x * s + y) * 8, cur + ((2 * x + 1) * s + y) * 8, nx + i * 8);
        }
        free(cur);
        cur = nx;
        m = next;
    }
    cr_assert_eq(m, s);
    bb_t *all = malloc((2 * s - 1) * 8 * sizeof *all);
    memcpy(all, cur, s * 8 * sizeof *all);
    size_t off = s;
    while (m > 1) {
        for (size_t i = 0; i < m / 2; i++)
            gs_poseidon2_compress(all + (off - m + 2 * i) * 8, all + (off - m + 2 * i + 1) * 8, all + (off + i) * 8);
        off += m / 2;
        m /= 2;
    }
    cr_assert_eq(off, 2 * s - 1);
    free(cur);
    free(row);
    return all;
}

/* The workers each tree is built on: the calling thread, three threads
 * started per call, three threads of a pool. The digests must not depend on
 * them. */
#define N_WORKERS 3
#define ONE_THREAD ((gs_workers){NULL, 1})
static gs_workers workers_of(int v, gs_pool *pool)
{
    return v == 0 ? ONE_THREAD : v == 1 ? (gs_workers){NULL, 3} : (gs_workers){pool, 3};
}
static const char *const workers_name[N_WORKERS] = {"one thread", "3 threads started per call", "3 pool threads"};

typedef struct shape {
    size_t n, width;
    unsigned deg, log_k;
} shape;

static const shape shapes[] = {
    {1, 1, 1, 0},   {2, 1, 1, 1},  {2, 1, 1, 0},   {8, 3, 1, 1},    {16, 1, 4, 2},  {16, 2, 1, 4},
    {64, 5, 1, 3},  {32, 9, 1, 4}, {128, 8, 1, 2}, {256, 17, 1, 4}, {1024, 1, 4, 3}, {512, 3, 4, 4},
    {4096, 42, 1, 4}, {256, 23, 1, 3}, {64, 7, 1, 2},
};

Test(merkle, matches_naive_tree_all_layers)
{
    uint64_t seed = 0x3e41e0001ull;
    printf("matches_naive_tree_all_layers: seed 0x%llx\n", (unsigned long long)seed);
    gs_error err;
    gs_pool *pool = gs_pool_new(3);
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *sh = &shapes[si];
        bb_t *mat = random_matrix(sh->n * sh->width * sh->deg, &seed);
        bb_t *want = naive_tree(mat, sh->n, sh->width, sh->deg, sh->log_k);
        size_t words = gs_merkle_digest_words(sh->n, sh->log_k);
        for (int v = 0; v < N_WORKERS; v++) {
            gs_merkle_tree t;
            cr_assert_eq(gs_merkle_commit(mat, sh->n, sh->width, sh->deg, sh->log_k, workers_of(v, pool), &t, &err),
                         GLSTARK_OK, "%s", err.msg);
            cr_expect_eq(memcmp(t.digests, want, words * sizeof(bb_t)), 0,
                         "shape %zu (n %zu, width %zu, deg %u, k %u), %s: digest layers differ", si, sh->n, sh->width,
                         sh->deg, sh->log_k, workers_name[v]);
            cr_expect_eq(memcmp(gs_merkle_root(&t), want + words - 8, 8 * sizeof(bb_t)), 0);
            gs_merkle_tree_free(&t);
        }
        free(want);
        free(mat);
    }
    gs_pool_free(pool);
}

/* The streamed form on the host, for every row-class count the shape
 * allows (1, 2, 4 classes) and groups of 8 or 16: each class's rows arrive
 * group by group in a group buffer that only the group's real columns are
 * written into (so a short last block's tail must survive there), states
 * and group buffer poisoned first (the first group must start every sponge
 * at zero). The tree equals the naive tree of the whole matrix. */
static void stream_on_host(const bb_t *mat, size_t n, size_t width, unsigned log_k, unsigned lc, size_t group,
                           gs_workers workers, bb_t *dg)
{
    const size_t rows = n >> lc;
    bb_t *states = malloc(rows * 8 * sizeof *states), *buf = malloc(group * rows * sizeof *buf);
    cr_assert(states && buf);
    for (size_t i = 0; i < rows * 8; i++)
        states[i] = 0xDEADBEEFu;
    for (size_t i = 0; i < group * rows; i++)
        buf[i] = 0xDEADBEEFu;
    gs_error err;
    for (size_t cls = 0; cls < ((size_t)1 << lc); cls++) {
        for (size_t c0 = 0; c0 < width; c0 += group) {
            size_t g = width - c0 < group ? width - c0 : group;
            for (size_t j = 0; j < g; j++)
                for (size_t m = 0; m < rows; m++)
                    buf[j * rows + m] = mat[(c0 + j) * n + (m << lc) + cls];
            gs_merkle_absorb_columns(states, buf, rows, width, group, c0, g, workers);
        }
        cr_assert_eq(gs_merkle_build_bottom_from_leaves(states, rows, log_k, lc, cls, workers, dg, &err), GLSTARK_OK,
                     "%s", err.msg);
    }
    gs_merkle_build_upper(n, log_k, workers, dg);
    free(states);
    free(buf);
}

Test(merkle, streamed_columns_match_naive_tree)
{
    uint64_t seed = 0x3e41e0005ull;
    printf("streamed_columns_match_naive_tree: seed 0x%llx\n", (unsigned long long)seed);
    gs_pool *pool = gs_pool_new(3);
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *sh = &shapes[si];
        if (sh->deg != 1)
            continue;
        bb_t *mat = random_matrix(sh->n * sh->width, &seed);
        bb_t *want = naive_tree(mat, sh->n, sh->width, 1, sh->log_k);
        size_t words = gs_merkle_digest_words(sh->n, sh->log_k), s = sh->n >> sh->log_k;
        bb_t *dg = malloc(words * sizeof(bb_t));
        for (unsigned lc = 0; lc <= 2; lc++) {
            if (s % ((size_t)1 << lc) != 0 || (lc > 0 && sh->log_k == 0))
                continue;
            for (size_t group = 8; group <= 16; group += 8)
                for (int v = 0; v < N_WORKERS; v++) {
                    for (size_t i = 0; i < words; i++)
                        dg[i] = 0xDEADBEEFu;
                    stream_on_host(mat, sh->n, sh->width, sh->log_k, lc, group, workers_of(v, pool), dg);
                    cr_expect_eq(memcmp(dg, want, words * sizeof(bb_t)), 0,
                                 "shape %zu (n %zu, width %zu, k %u), 2^%u classes, groups of %zu, %s: "
                                 "digest layers differ",
                                 si, sh->n, sh->width, sh->log_k, lc, group, workers_name[v]);
                }
        }
        free(dg);
        free(want);
        free(mat);
    }
    gs_pool_free(pool);
}

Test(merkle, openings_verify_and_tampering_fails)
{
    uint64_t seed = 0x3e41e0002ull;
    printf("openings_verify_and_tampering_fails: seed 0x%llx\n", (unsigned long long)seed);
    gs_error err;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *sh = &shapes[si];
        bb_t *mat = random_matrix(sh->n * sh->width * sh->deg, &seed);
        gs_merkle_tree t;
        cr_assert_eq(gs_merkle_commit(mat, sh->n, sh->width, sh->deg, sh->log_k, (gs_workers){NULL, 2}, &t, &err),
                     GLSTARK_OK);
        size_t s = sh->n >> sh->log_k, k = (size_t)1 << sh->log_k, len = sh->width * sh->deg;
        bb_t *rows = malloc(k * len * sizeof *rows);
        bb_t *proof = malloc((t.depth + 1) * 8 * sizeof *proof);
        for (size_t q = 0; q < 6; q++) {
            size_t idx = q == 0 ? 0 : q == 1 ? s - 1 : (size_t)(splitmix64(&seed) % s);
            cr_assert_eq(gs_merkle_open(mat, sh->n, sh->width, sh->deg, sh->log_k, t.digests, idx, rows, proof, &err),
                         GLSTARK_OK);
            /* opened rows are rows idx + t*S of the matrix */
            for (size_t tt = 0; tt < k; tt++)
                cr_expect_eq(rows[tt * len], mat[(idx + tt * s) * sh->deg]);
            const bb_t *root = gs_merkle_root(&t);
            cr_expect_eq(gs_merkle_verify(root, idx, rows, sh->log_k, len, proof, t.depth, &err), GLSTARK_OK,
                         "shape %zu idx %zu: %s", si, idx, err.msg);
            /* a changed sibling */
            if (t.depth > 0) {
                size_t j = (size_t)(splitmix64(&seed) % (t.depth * 8));
                proof[j] = bb_add(proof[j], bb_one());
                cr_expect_eq(gs_merkle_verify(root, idx, rows, sh->log_k, len, proof, t.depth, &err),
                             GLSTARK_ERR_REJECTED, "shape %zu: tampered sibling accepted", si);
                proof[j] = bb_sub(proof[j], bb_one());
            }
            /* a changed leaf value */
            size_t e = (size_t)(splitmix64(&seed) % (k * len));
            rows[e] = bb_add(rows[e], bb_one());
            cr_expect_eq(gs_merkle_verify(root, idx, rows, sh->log_k, len, proof, t.depth, &err),
                         GLSTARK_ERR_REJECTED, "shape %zu: tampered row accepted", si);
            cr_expect(strlen(err.msg) > 0);
            rows[e] = bb_sub(rows[e], bb_one());
            /* a different index (in range) */
            if (s > 1) {
                size_t other = idx ^ (1u + (size_t)(splitmix64(&seed) % (s - 1)));
                other %= s;
                if (other != idx)
                    cr_expect_eq(gs_merkle_verify(root, other, rows, sh->log_k, len, proof, t.depth, &err),
                                 GLSTARK_ERR_REJECTED, "shape %zu: wrong index accepted", si);
            }
            /* an out-of-range index */
            cr_expect_eq(gs_merkle_verify(root, s, rows, sh->log_k, len, proof, t.depth, &err),
                         GLSTARK_ERR_INVALID_ARGUMENT);
            cr_expect_eq(gs_merkle_verify(root, idx, rows, sh->log_k, len, proof, t.depth, &err), GLSTARK_OK);
        }
        free(rows);
        free(proof);
        gs_merkle_tree_free(&t);
        free(mat);
    }
}

/* Model-derived (docs/protocol.md, 'Test vectors'): the toy stacked commitment's opening
 * at index 3 (K = 4, S = 8, three base columns) verifies against its root;
 * the same rows at another index do not. */
Test(merkle, model_toy_opening_d6)
{
    static const uint32_t root_c[8] = {887046599, 1032475622, 375830140, 1793046685,
                                       1524643188, 1987886073, 1186623061, 19218781};
    static const uint32_t rows_c[12] = {1463060479, 1010032346, 385623142, 831276557, 86926254, 1856035410,
                                        1297792676, 962718378,  659226161, 1544264998, 1880753313, 156233417};
    static const uint32_t proof_c[24] = {
        1189742484, 1779640546, 1897301707, 1926738484, 969424433,  934553937, 356901399,  1529302353,
        1356583337, 656521429,  368731168,  1865969677, 1049563328, 83612202,  416948850,  745974883,
        250073610,  596710021,  1551847706, 285119538,  1898805485, 265178346, 672495704,  1916594898,
    };
    bb_t root[8], rows[12], proof[24];
    bb_array_from_canonical(root, root_c, 8);
    bb_array_from_canonical(rows, rows_c, 12);
    bb_array_from_canonical(proof, proof_c, 24);
    gs_error err;
    cr_expect_eq(gs_merkle_verify(root, 3, rows, 2, 3, proof, 3, &err), GLSTARK_OK, "%s", err.msg);
    cr_expect_eq(gs_merkle_verify(root, 2, rows, 2, 3, proof, 3, &err), GLSTARK_ERR_REJECTED);
}

Test(merkle, bad_shapes_give_statuses)
{
    gs_error err;
    bb_t mat[64] = {0}, dg[1024];
    gs_merkle_tree t;
    struct {
        size_t n, w;
        unsigned deg, k;
    } bad[] = {{0, 1, 1, 0}, {3, 1, 1, 0}, {12, 2, 1, 1}, {8, 0, 1, 0}, {8, 1, 2, 0}, {8, 1, 1, 4}, {1, 1, 1, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_error_clear(&err);
        cr_expect_eq(gs_merkle_commit(mat, bad[i].n, bad[i].w, bad[i].deg, bad[i].k, ONE_THREAD, &t, &err),
                     GLSTARK_ERR_INVALID_ARGUMENT, "bad shape %zu accepted", i);
        cr_expect(strlen(err.msg) > 0);
        cr_expect_eq(gs_merkle_build(mat, bad[i].n, bad[i].w, bad[i].deg, bad[i].k, ONE_THREAD, dg, &err),
                     GLSTARK_ERR_INVALID_ARGUMENT);
    }
    cr_expect_eq(gs_merkle_commit(mat, ((size_t)1 << 31), 1, 1, 0, ONE_THREAD, &t, &err),
                 GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_merkle_commit(mat, 16, 4, 1, 2, ONE_THREAD, &t, &err), GLSTARK_OK);
    bb_t rows[16], proof[16];
    cr_expect_eq(gs_merkle_open(mat, 16, 4, 1, 2, t.digests, 4, rows, proof, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(err.msg, "out of range") != NULL);
    cr_expect_eq(gs_merkle_verify(gs_merkle_root(&t), 1, rows, 2, 4, proof, 70, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_merkle_tree_free(&t);
}

/* The CPU engine's hash family gives the reference results and checks its
 * arguments. */
Test(merkle, cpu_engine_family)
{
    uint64_t seed = 0x3e41e0003ull;
    printf("cpu_engine_family: seed 0x%llx\n", (unsigned long long)seed);
    gs_error err;
    gs_engine *eng = NULL;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
    cr_assert(eng->hash != NULL);
    const size_t n = 256, w = 7, pad = 5;
    const unsigned log_k = 3;
    bb_t *mat = random_matrix(n * w, &seed);
    gs_buf *buf = NULL;
    cr_assert_eq(gs_buf_create(eng, (pad + n * w) * sizeof(bb_t), &buf), GLSTARK_OK);
    cr_assert_eq(gs_buf_write(buf, pad * sizeof(bb_t), mat, n * w * sizeof(bb_t)), GLSTARK_OK);

    gs_merkle_tree ref;
    cr_assert_eq(gs_merkle_commit(mat, n, w, 1, log_k, ONE_THREAD, &ref, &err), GLSTARK_OK);
    gs_merkle_dev dev;
    cr_assert_eq(gs_engine_merkle_commit(eng, buf, pad, n, w, 1, log_k, &dev), GLSTARK_OK, "%s", eng->err.msg);
    bb_t root[8];
    cr_assert_eq(gs_engine_merkle_root(eng, &dev, root), GLSTARK_OK);
    cr_expect_eq(memcmp(root, gs_merkle_root(&ref), sizeof root), 0);

    uint32_t idx[3] = {0, 31, 17};
    size_t rw = ((size_t)1 << log_k) * w, pw = (size_t)dev.depth * 8;
    bb_t rows[3 * 56], proofs[3 * 40], rrow[56], rproof[40];
    cr_assert_eq(rw, 56);
    cr_assert_eq(pw, 40);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        rows[i] = 0xDEADBEEFu; /* poison */
    cr_assert_eq(gs_engine_merkle_open(eng, buf, pad, &dev, idx, 3, rows, proofs), GLSTARK_OK, "%s", eng->err.msg);
    for (int q = 0; q < 3; q++) {
        cr_assert_eq(gs_merkle_open(mat, n, w, 1, log_k, ref.digests, idx[q], rrow, rproof, &err), GLSTARK_OK);
        cr_expect_eq(memcmp(rows + q * rw, rrow, sizeof rrow), 0);
        cr_expect_eq(memcmp(proofs + q * pw, rproof, sizeof rproof), 0);
        cr_expect_eq(gs_merkle_verify(root, idx[q], rows + q * rw, log_k, w, proofs + q * pw, dev.depth, &err),
                     GLSTARK_OK);
    }
    /* bad inputs through the engine */
    uint32_t bad_idx = 32;
    cr_expect_eq(gs_engine_merkle_open(eng, buf, pad, &dev, &bad_idx, 1, rows, proofs), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect(strlen(eng->err.msg) > 0);
    gs_merkle_dev d2;
    cr_expect_eq(gs_engine_merkle_commit(eng, buf, pad + 1, n, w, 1, log_k, &d2), GLSTARK_ERR_INVALID_ARGUMENT,
                 "a matrix running past the buffer end must be refused");
    cr_expect_eq(gs_engine_merkle_commit(eng, buf, 0, 100, 1, 1, 0, &d2), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(gs_engine_merkle_commit(eng, buf, 0, 64, 0, 1, 0, &d2), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(d2.digests, NULL);

    /* grinding through the engine, plugged into the transcript */
    gs_transcript a, b;
    gs_transcript_init(&a);
    gs_transcript_observe_u32(&a, 42);
    b = a;
    for (unsigned bits = 1; bits <= 13; bits += 4) {
        uint32_t we = 0, wc = 0;
        cr_assert_eq(gs_transcript_grind(&a, bits, gs_engine_grind_fn, eng, &we, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert_eq(gs_transcript_grind(&b, bits, NULL, NULL, &wc, &err), GLSTARK_OK);
        cr_expect_eq(we, wc, "bits %u: engine %u, reference %u", bits, we, wc);
    }
    uint32_t wx;
    cr_expect_eq(gs_engine_grind(eng, a.st, 8, 3, &wx), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(gs_engine_grind(eng, a.st, 0, 31, &wx), GLSTARK_ERR_INVALID_ARGUMENT);

    gs_merkle_dev_release(&dev);
    gs_merkle_tree_free(&ref);
    gs_buf_destroy(buf);
    free(mat);
    cr_expect_eq(eng->bytes_live, 0);
    gs_engine_destroy(eng);
}
