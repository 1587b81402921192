/* The WHIR engine family against naive definitions written out here
 * (products, subset sums, O(n^2) DFTs), on random inputs from fixed seeds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/whir_ops.h"

static uint64_t rng_state;
static void seed(uint64_t s)
{
    rng_state = s;
    cr_log_info("seed %llu", (unsigned long long)s);
}
static uint64_t next64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static bb_t rbb(void) { return bb_from_canonical((uint32_t)(next64() % BB_P)); }
static bb4_t rbb4(void)
{
    bb4_t r = {{rbb(), rbb(), rbb(), rbb()}};
    return r;
}

static gs_engine *eng;
static void setup(void)
{
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK);
    cr_assert_not_null(eng->whir);
}
static void teardown(void) { gs_engine_destroy(eng); }

static gs_buf *upload(const void *src, size_t bytes)
{
    gs_buf *b;
    cr_assert_eq(gs_buf_create(eng, bytes, &b), GLSTARK_OK);
    cr_assert_eq(gs_buf_write(b, 0, src, bytes), GLSTARK_OK);
    return b;
}
static gs_buf *poisoned(size_t bytes)
{
    gs_buf *b;
    cr_assert_eq(gs_buf_create(eng, bytes, &b), GLSTARK_OK);
    cr_assert_eq(gs_buf_fill_u32(b, 0, bytes / 4, 0xdeadbeefu), GLSTARK_OK);
    return b;
}
static void download(const gs_buf *b, void *dst, size_t bytes) { cr_assert_eq(gs_buf_read(b, 0, dst, bytes), GLSTARK_OK); }
static void assert_ext_eq(bb4_t a, bb4_t b, const char *what, size_t i)
{
    cr_assert(bb4_eq(a, b), "%s differs at %zu", what, i);
}

TestSuite(whir_ops, .init = setup, .fini = teardown);

Test(whir_ops, mobius_eq_table)
{
    seed(1);
    enum { N = 6 };
    bb4_t u[N];
    for (int i = 0; i < N; i++)
        u[i] = rbb4();
    gs_buf *o = poisoned(sizeof(bb4_t) << N);
    cr_assert_eq(eng->whir->mobius_eq_table(eng, u, N, o), GLSTARK_OK);
    bb4_t got[1 << N];
    download(o, got, sizeof got);
    bb4_t two = bb4_from_base(bb_from_u32(2));
    for (size_t b = 0; b < (1u << N); b++) {
        bb4_t e = bb4_one();
        for (int i = 0; i < N; i++)
            e = bb4_mul(e, (b >> i) & 1 ? u[i] : bb4_sub(bb4_one(), bb4_mul(two, u[i])));
        assert_ext_eq(got[b], e, "mobius_eq", b);
    }
    gs_buf_destroy(o);
}

Test(whir_ops, sumcheck_fold)
{
    seed(2);
    enum { LEN = 64 };
    bb4_t f[LEN], w[LEN];
    for (int i = 0; i < LEN; i++) {
        f[i] = rbb4();
        w[i] = rbb4();
    }
    gs_buf *bf = upload(f, sizeof f), *bw = upload(w, sizeof w);
    bb4_t s[2];
    cr_assert_eq(eng->whir->sumcheck_round(eng, bf, bw, LEN, s), GLSTARK_OK);
    /* s(X) = Σ_y (f0 + X(f1-f0))(w0 + X(w1-w0)) evaluated at 1 and 2 */
    for (int x = 1; x <= 2; x++) {
        bb4_t acc = bb4_zero();
        bb_t X = bb_from_u32((uint32_t)x);
        for (int y = 0; y < LEN / 2; y++) {
            bb4_t fx = bb4_add(f[2 * y], bb4_mul_base(bb4_sub(f[2 * y + 1], f[2 * y]), X));
            bb4_t wx = bb4_add(w[2 * y], bb4_mul_base(bb4_sub(w[2 * y + 1], w[2 * y]), X));
            acc = bb4_add(acc, bb4_mul(fx, wx));
        }
        assert_ext_eq(s[x - 1], acc, "s", (size_t)x);
    }
    bb4_t a = rbb4();
    cr_assert_eq(eng->whir->fold(eng, bf, bw, LEN, a), GLSTARK_OK);
    bb4_t gf[LEN / 2], gw[LEN / 2];
    download(bf, gf, sizeof gf);
    download(bw, gw, sizeof gw);
    for (int y = 0; y < LEN / 2; y++) {
        /* (1-a)·v0 + a·v1 */
        bb4_t ef = bb4_add(bb4_mul(bb4_sub(bb4_one(), a), f[2 * y]), bb4_mul(a, f[2 * y + 1]));
        bb4_t ew = bb4_add(bb4_mul(bb4_sub(bb4_one(), a), w[2 * y]), bb4_mul(a, w[2 * y + 1]));
        assert_ext_eq(gf[y], ef, "fold f", (size_t)y);
        assert_ext_eq(gw[y], ew, "fold w", (size_t)y);
    }
    gs_buf_destroy(bf);
    gs_buf_destroy(bw);
}

/* naive inverse DFT of every block of 2^ls: out[blk + a] = 2^-ls Σ_z in[blk + z] ω^-(a z) */
static void naive_block_idft(const bb4_t *in, bb4_t *out, int n, int ls)
{
    const int b = 1 << ls;
    bb_t wi = bb_inv(bb_two_adic_generator((unsigned)ls)), binv = bb_inv(bb_from_u32((uint32_t)b));
    for (int blk = 0; blk < n; blk += b)
        for (int a = 0; a < b; a++) {
            bb4_t acc = bb4_zero();
            for (int z = 0; z < b; z++)
                acc = bb4_add(acc, bb4_mul_base(in[blk + z], bb_pow(wi, (uint64_t)(a * z))));
            out[blk + a] = bb4_mul_base(acc, binv);
        }
}

/* naive subset sum over the index bits in mask: out[t] = Σ_{a ⊆ t, a ≡ t off mask} in[a] */
static void naive_zeta(const bb4_t *in, bb4_t *out, size_t n, size_t mask)
{
    for (size_t t = 0; t < n; t++) {
        bb4_t acc = bb4_zero();
        for (size_t a = 0; a < n; a++)
            if ((a & ~t) == 0 && ((a ^ t) & ~mask) == 0)
                acc = bb4_add(acc, in[a]);
        out[t] = acc;
    }
}

/* Blocks of 16 (l_skip 4, the app parameters): the naive definition on a
 * small vector, and on 2^15 entries (the threaded path) one thread against
 * three (uneven splits) and against the naive block transform followed by
 * a fast subset sum written out here. */
Test(whir_ops, prepare_f_blocks_of_16)
{
    seed(4);
    enum { LS = 4, B = 1 << LS, LOGN = 15, N = 1 << LOGN };
    bb4_t *v = malloc(N * sizeof(bb4_t)), *e = malloc(N * sizeof(bb4_t)), *got = malloc(N * sizeof(bb4_t));
    cr_assert(v && e && got);
    for (int i = 0; i < N; i++)
        v[i] = rbb4();
    v[0] = bb4_zero();
    v[1] = bb4_one();
    v[2] = bb4_from_base(bb_from_canonical(BB_P - 1));
    /* naive inverse DFT per block, then subset sums over the block bits and
     * over all bits (the same bits twice at the bottom, as prepare_f does) */
    naive_block_idft(v, e, N, LS);
    for (int pass = 0; pass < 2; pass++)
        for (size_t h = 1; h < (pass ? (size_t)N : (size_t)B); h <<= 1)
            for (size_t t = 0; t < (size_t)N; t++)
                if (t & h)
                    e[t] = bb4_add(e[t], e[t ^ h]);
    gs_error err;
    gs_engine *three;
    cr_assert_eq(gs_cpu_engine_create(3, &three, &err), GLSTARK_OK);
    gs_engine *engines[2] = {eng, three};
    for (int k = 0; k < 2; k++) {
        gs_buf *b = NULL;
        cr_assert_eq(gs_buf_create(engines[k], N * sizeof(bb4_t), &b), GLSTARK_OK);
        cr_assert_eq(gs_buf_write(b, 0, v, N * sizeof(bb4_t)), GLSTARK_OK);
        cr_assert_eq(engines[k]->whir->prepare_f(engines[k], b, LOGN, LS), GLSTARK_OK);
        cr_assert_eq(gs_buf_read(b, 0, got, N * sizeof(bb4_t)), GLSTARK_OK);
        for (int i = 0; i < N; i++)
            assert_ext_eq(got[i], e[i], k ? "prepare_f, 3 threads" : "prepare_f, 1 thread", (size_t)i);
        gs_buf_destroy(b);
    }
    gs_engine_destroy(three);
    free(v);
    free(e);
    free(got);
}

Test(whir_ops, prepare_f_and_mobius)
{
    seed(3);
    enum { LOGN = 7, LS = 2, N = 1 << LOGN, B = 1 << LS };
    bb4_t v[N], e1[N], e2[N], e3[N];
    for (int i = 0; i < N; i++)
        v[i] = rbb4();
    naive_block_idft(v, e1, N, LS);
    naive_zeta(e1, e2, N, B - 1);
    naive_zeta(e2, e3, N, N - 1);
    gs_buf *b = upload(v, sizeof v);
    cr_assert_eq(eng->whir->prepare_f(eng, b, LOGN, LS), GLSTARK_OK);
    bb4_t got[N];
    download(b, got, sizeof got);
    for (int i = 0; i < N; i++)
        assert_ext_eq(got[i], e3[i], "prepare_f", (size_t)i);
    /* mobius undoes the full zeta */
    gs_buf *d = poisoned(sizeof v);
    cr_assert_eq(eng->whir->mobius(eng, b, d, N), GLSTARK_OK);
    download(d, got, sizeof got);
    for (int i = 0; i < N; i++)
        assert_ext_eq(got[i], e2[i], "mobius", (size_t)i);
    gs_buf_destroy(b);
    gs_buf_destroy(d);
}

Test(whir_ops, eval_encode)
{
    seed(4);
    enum { LEN = 20, LOGN = 6, N = 1 << LOGN };
    bb4_t g[LEN];
    for (int i = 0; i < LEN; i++)
        g[i] = rbb4();
    gs_buf *bg = upload(g, sizeof g);
    bb4_t z = rbb4(), got;
    cr_assert_eq(eng->whir->eval_univariate(eng, bg, LEN, z, &got), GLSTARK_OK);
    bb4_t acc = bb4_zero();
    for (int i = 0; i < LEN; i++)
        acc = bb4_add(acc, bb4_mul(g[i], bb4_pow(z, (uint64_t)i)));
    assert_ext_eq(got, acc, "eval", 0);
    gs_buf *cw = poisoned(N * sizeof(bb4_t));
    cr_assert_eq(eng->whir->encode_ext(eng, bg, LEN, LOGN, cw), GLSTARK_OK);
    bb4_t out[N];
    download(cw, out, sizeof out);
    bb_t w = bb_two_adic_generator(LOGN);
    for (int i = 0; i < N; i++) {
        bb4_t e = bb4_zero();
        for (int j = 0; j < LEN; j++)
            e = bb4_add(e, bb4_mul_base(g[j], bb_pow(w, (uint64_t)i * j)));
        assert_ext_eq(out[i], e, "codeword", (size_t)i);
    }
    gs_buf_destroy(bg);
    gs_buf_destroy(cw);
}

Test(whir_ops, w_accumulate_and_batch)
{
    seed(5);
    enum { N = 5, LEN = 1 << N, NZ = 3 };
    bb4_t w[LEN];
    for (int i = 0; i < LEN; i++)
        w[i] = rbb4();
    bb4_t z0 = rbb4(), g0 = rbb4(), gs[NZ];
    bb_t zs[NZ];
    for (int q = 0; q < NZ; q++) {
        zs[q] = rbb();
        gs[q] = rbb4();
    }
    gs_buf *bw = upload(w, sizeof w);
    cr_assert_eq(eng->whir->w_accumulate(eng, bw, N, z0, g0, zs, gs, NZ), GLSTARK_OK);
    bb4_t got[LEN];
    download(bw, got, sizeof got);
    for (size_t b = 0; b < LEN; b++) {
        bb4_t e = bb4_one();
        for (int i = 0; i < N; i++) {
            bb4_t p = bb4_pow(z0, 1ull << i);
            e = bb4_mul(e, (b >> i) & 1 ? p : bb4_sub(bb4_one(), p));
        }
        bb4_t acc = bb4_add(w[b], bb4_mul(g0, e));
        for (int q = 0; q < NZ; q++) {
            bb_t eb = bb_one();
            for (int i = 0; i < N; i++) {
                bb_t p = bb_pow(zs[q], 1ull << i);
                eb = bb_mul(eb, (b >> i) & 1 ? p : bb_sub(bb_one(), p));
            }
            acc = bb4_add(acc, bb4_mul_base(gs[q], eb));
        }
        assert_ext_eq(got[b], acc, "w_accumulate", b);
    }
    /* batch_columns over two matrices */
    enum { H = 16 };
    bb_t m0[2 * H], m1[3 * H];
    for (int i = 0; i < 2 * H; i++)
        m0[i] = rbb();
    for (int i = 0; i < 3 * H; i++)
        m1[i] = rbb();
    bb4_t mu[5];
    for (int i = 0; i < 5; i++)
        mu[i] = rbb4();
    gs_buf *b0 = upload(m0, sizeof m0), *b1 = upload(m1, sizeof m1), *o = poisoned(H * sizeof(bb4_t));
    const gs_buf *mats[2] = {b0, b1};
    size_t widths[2] = {2, 3}, offs[2] = {0, 0};
    cr_assert_eq(eng->whir->batch_columns(eng, mats, offs, widths, 2, H, mu, o), GLSTARK_OK);
    bb4_t bo[H];
    download(o, bo, sizeof bo);
    for (int r = 0; r < H; r++) {
        bb4_t e = bb4_zero();
        for (int j = 0; j < 2; j++)
            e = bb4_add(e, bb4_mul_base(mu[j], m0[j * H + r]));
        for (int j = 0; j < 3; j++)
            e = bb4_add(e, bb4_mul_base(mu[2 + j], m1[j * H + r]));
        assert_ext_eq(bo[r], e, "batch", (size_t)r);
    }
    /* an undersized buffer is an error with a message, not a crash */
    cr_assert_eq(eng->whir->batch_columns(eng, mats, offs, widths, 2, 2 * H, mu, o), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(eng->err.msg) > 0);
    gs_buf_destroy(bw);
    gs_buf_destroy(b0);
    gs_buf_destroy(b1);
    gs_buf_destroy(o);
}
