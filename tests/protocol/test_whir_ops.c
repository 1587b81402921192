/* The WHIR engine family against naive definitions written out here
 * (products, subset sums, O(n^2) DFTs), on random inputs from fixed seeds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/whir_ops.h"
#include "../util/splitmix.h"

static uint64_t rng_state;
static void seed(uint64_t s)
{
    rng_state = s;
    cr_log_info("seed %llu", (unsigned long long)s);
}
static uint64_t next64(void)
{ return splitmix64(&rng_state); }
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

/* naive subset sums over all index bits: out[x] = Σ_{b ⊆ x} in[b] (coefficients -> evaluations) */
static void naive_evals_of_coeffs(const bb4_t *in, bb4_t *out, size_t n)
{
    for (size_t x = 0; x < n; x++) {
        bb4_t acc = bb4_zero();
        for (size_t b = 0; b < n; b++)
            if ((b & ~x) == 0)
                acc = bb4_add(acc, in[b]);
        out[x] = acc;
    }
}

/* naive inverse of the superset sums m[b] = Σ_{x ⊇ b} w(x) (moments -> evaluations):
 * w(x) = Σ_{b ⊇ x} (−1)^|b \ x| m[b] */
static void naive_evals_of_moments(const bb4_t *m, bb4_t *out, size_t n)
{
    for (size_t x = 0; x < n; x++) {
        bb4_t acc = bb4_zero();
        for (size_t b = 0; b < n; b++)
            if ((x & ~b) == 0)
                acc = __builtin_popcountll((unsigned long long)(b & ~x)) & 1 ? bb4_sub(acc, m[b]) : bb4_add(acc, m[b]);
        out[x] = acc;
    }
}

/* WHIR's weight polynomial w = mobius_eq(u, ·) on the hypercube, written out:
 * moments must be eq(u, ·). */
Test(whir_ops, eq_table)
{
    seed(1);
    enum { N = 6 };
    bb4_t u[N];
    for (int i = 0; i < N; i++)
        u[i] = rbb4();
    u[0] = bb4_zero();
    u[1] = bb4_one();
    gs_buf *o = poisoned(sizeof(bb4_t) << N);
    cr_assert_eq(eng->whir->eq_table(eng, u, N, o), GLSTARK_OK);
    bb4_t got[1 << N], ev[1 << N];
    download(o, got, sizeof got);
    for (size_t b = 0; b < (1u << N); b++) {
        bb4_t e = bb4_one();
        for (int i = 0; i < N; i++)
            e = bb4_mul(e, (b >> i) & 1 ? u[i] : bb4_sub(bb4_one(), u[i]));
        assert_ext_eq(got[b], e, "eq", b);
    }
    /* as moments, they are the moments of mobius_eq(u, x) = Π (x_i ? u_i : 1 − 2u_i) */
    naive_evals_of_moments(got, ev, 1u << N);
    bb4_t two = bb4_from_base(bb_from_u32(2));
    for (size_t x = 0; x < (1u << N); x++) {
        bb4_t e = bb4_one();
        for (int i = 0; i < N; i++)
            e = bb4_mul(e, (x >> i) & 1 ? u[i] : bb4_sub(bb4_one(), bb4_mul(two, u[i])));
        assert_ext_eq(ev[x], e, "mobius_eq from moments", x);
    }
    gs_buf_destroy(o);
}

/* f as coefficients, w as moments: the round's h(1), h(2) and the folds must
 * agree with the same polynomials on the hypercube (converted naively). */
Test(whir_ops, sumcheck_fold)
{
    seed(2);
    enum { LEN = 64 };
    bb4_t f[LEN], w[LEN], fe[LEN], we[LEN];
    for (int i = 0; i < LEN; i++) {
        f[i] = rbb4();
        w[i] = rbb4();
    }
    f[3] = bb4_zero();
    w[5] = bb4_from_base(bb_from_canonical(BB_P - 1));
    naive_evals_of_coeffs(f, fe, LEN);
    naive_evals_of_moments(w, we, LEN);
    gs_buf *bf = upload(f, sizeof f), *bw = upload(w, sizeof w);
    bb4_t s[2];
    cr_assert_eq(eng->whir->sumcheck_round(eng, bf, bw, LEN, gs_sums_host(s)), GLSTARK_OK);
    /* h(X) = Σ_y (fe0 + X(fe1-fe0))(we0 + X(we1-we0)) evaluated at 1 and 2 */
    for (int x = 1; x <= 2; x++) {
        bb4_t acc = bb4_zero();
        bb_t X = bb_from_u32((uint32_t)x);
        for (int y = 0; y < LEN / 2; y++) {
            bb4_t fx = bb4_add(fe[2 * y], bb4_mul_base(bb4_sub(fe[2 * y + 1], fe[2 * y]), X));
            bb4_t wx = bb4_add(we[2 * y], bb4_mul_base(bb4_sub(we[2 * y + 1], we[2 * y]), X));
            acc = bb4_add(acc, bb4_mul(fx, wx));
        }
        assert_ext_eq(s[x - 1], acc, "h", (size_t)x);
    }
    bb4_t a = rbb4();
    gs_buf *fo = poisoned(sizeof f / 2), *wo = poisoned(sizeof w / 2);
    cr_assert_eq(eng->whir->fold(eng, bf, bw, LEN, gs_chal_value(a), fo, wo), GLSTARK_OK);
    bb4_t gf[LEN / 2], gw[LEN / 2], gfe[LEN / 2], gwe[LEN / 2];
    download(fo, gf, sizeof gf);
    download(wo, gw, sizeof gw);
    naive_evals_of_coeffs(gf, gfe, LEN / 2);
    naive_evals_of_moments(gw, gwe, LEN / 2);
    for (int y = 0; y < LEN / 2; y++) {
        /* on the hypercube the fold is (1-a)·v0 + a·v1 */
        bb4_t ef = bb4_add(bb4_mul(bb4_sub(bb4_one(), a), fe[2 * y]), bb4_mul(a, fe[2 * y + 1]));
        bb4_t ew = bb4_add(bb4_mul(bb4_sub(bb4_one(), a), we[2 * y]), bb4_mul(a, we[2 * y + 1]));
        assert_ext_eq(gfe[y], ef, "fold f", (size_t)y);
        assert_ext_eq(gwe[y], ew, "fold w", (size_t)y);
    }
    /* the fold is out of place: aliasing is refused with a message */
    cr_assert_eq(eng->whir->fold(eng, bf, bw, LEN, gs_chal_value(a), bf, wo), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(eng->err.msg, "distinct") != NULL, "%s", eng->err.msg);
    /* an output too short is refused */
    cr_assert_eq(eng->whir->fold(eng, bf, bw, 2 * LEN, gs_chal_value(a), fo, wo), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(bf);
    gs_buf_destroy(bw);
    gs_buf_destroy(fo);
    gs_buf_destroy(wo);
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

/* Blocks of 16 (l_skip 4, the app parameters), on 2^15 entries (the
 * threaded path): one thread and three (uneven splits) against the naive
 * block transform followed by a subset sum written out here. */
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
    /* naive inverse DFT per block, then subset sums over the block bits */
    naive_block_idft(v, e, N, LS);
    for (size_t h = 1; h < (size_t)B; h <<= 1)
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

/* Blocks of 4 and a whole vector that is one block (the dft family's path
 * for blocks above 16 is the same code with l_skip 5). */
Test(whir_ops, prepare_f_small_and_large_blocks)
{
    seed(3);
    for (int ls = 2; ls <= 5; ls += 3) {
        enum { LOGN = 7, N = 1 << LOGN };
        bb4_t v[N], e1[N], e2[N];
        for (int i = 0; i < N; i++)
            v[i] = rbb4();
        naive_block_idft(v, e1, N, ls);
        naive_zeta(e1, e2, N, ((size_t)1 << ls) - 1);
        gs_buf *b = upload(v, sizeof v);
        cr_assert_eq(eng->whir->prepare_f(eng, b, LOGN, (unsigned)ls), GLSTARK_OK);
        bb4_t got[N];
        download(b, got, sizeof got);
        for (int i = 0; i < N; i++)
            assert_ext_eq(got[i], e2[i], ls == 2 ? "prepare_f l_skip 2" : "prepare_f l_skip 5", (size_t)i);
        gs_buf_destroy(b);
    }
}

/* Long evaluations split over threads (uneven ranges with 3): each range's
 * Horner sum shifted by z^(its start) must give the one-thread sum, and the
 * definition sum_i g_i z^i. */
Test(whir_ops, eval_univariate_threads)
{
    seed(7);
    const size_t lens[] = {(1u << 14) - 1, 1u << 14, 20007, 1u << 16};
    gs_engine *e3 = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(3, &e3, &err), GLSTARK_OK, "%s", err.msg);
    for (size_t t = 0; t < sizeof lens / sizeof *lens; t++) {
        size_t len = lens[t];
        bb4_t *g = malloc(len * sizeof *g);
        for (size_t i = 0; i < len; i++)
            g[i] = rbb4();
        gs_buf *b = NULL;
        cr_assert_eq(gs_buf_create(e3, len * sizeof *g, &b), GLSTARK_OK);
        cr_assert_eq(gs_buf_write(b, 0, g, len * sizeof *g), GLSTARK_OK);
        bb4_t z = rbb4(), got, want = bb4_zero(), pw = bb4_one();
        for (size_t i = 0; i < len; i++) {
            want = bb4_add(want, bb4_mul(g[i], pw));
            pw = bb4_mul(pw, z);
        }
        cr_assert_eq(e3->whir->eval_univariate(e3, b, len, z, &got), GLSTARK_OK, "%s", e3->err.msg);
        assert_ext_eq(got, want, "eval_univariate on 3 threads", len);
        gs_buf_destroy(b);
        free(g);
    }
    gs_engine_destroy(e3);
}

Test(whir_ops, eval_and_fold_encode)
{
    seed(4);
    enum { LEN = 20, HALF = 16, LOGN = 6, N = 1 << LOGN };
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
    /* fold_encode: the fold of fold, and f_out's RS codeword as a naive DFT */
    bb4_t f[2 * HALF], w[2 * HALF];
    for (int i = 0; i < 2 * HALF; i++) {
        f[i] = rbb4();
        w[i] = rbb4();
    }
    bb4_t a = rbb4();
    gs_buf *bf = upload(f, sizeof f), *bw = upload(w, sizeof w);
    gs_buf *fo = poisoned(sizeof f / 2), *wo = poisoned(sizeof w / 2), *cw = poisoned(N * sizeof(bb4_t));
    cr_assert_eq(eng->whir->fold_encode(eng, bf, bw, 2 * HALF, gs_chal_value(a), fo, wo, LOGN, cw), GLSTARK_OK);
    bb4_t out[N], gf[HALF], gw[HALF];
    download(cw, out, sizeof out);
    download(fo, gf, sizeof gf);
    download(wo, gw, sizeof gw);
    bb4_t one_minus = bb4_sub(bb4_one(), a), two_minus = bb4_sub(bb4_add(a, a), bb4_one());
    for (int y = 0; y < HALF; y++) {
        assert_ext_eq(gf[y], bb4_add(f[2 * y], bb4_mul(a, f[2 * y + 1])), "fold_encode f_out", (size_t)y);
        assert_ext_eq(gw[y], bb4_add(bb4_mul(one_minus, w[2 * y]), bb4_mul(two_minus, w[2 * y + 1])),
                      "fold_encode w_out", (size_t)y);
    }
    bb_t om = bb_two_adic_generator(LOGN);
    for (int i = 0; i < N; i++) {
        bb4_t e = bb4_zero();
        for (int j = 0; j < HALF; j++)
            e = bb4_add(e, bb4_mul_base(gf[j], bb_pow(om, (uint64_t)i * j)));
        assert_ext_eq(out[i], e, "codeword", (size_t)i);
    }
    /* a codeword too short for the coefficients, or shared with f, is refused */
    cr_assert_eq(eng->whir->fold_encode(eng, bf, bw, 2 * HALF, gs_chal_value(a), fo, wo, 3, cw), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(eng->whir->fold_encode(eng, bf, bw, 2 * HALF, gs_chal_value(a), fo, wo, LOGN, bf), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(bg);
    gs_buf_destroy(bf);
    gs_buf_destroy(bw);
    gs_buf_destroy(fo);
    gs_buf_destroy(wo);
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
    /* moments of gamma·eq_pt(z, ·) are gamma·z^b */
    for (size_t b = 0; b < LEN; b++) {
        bb4_t acc = bb4_add(w[b], bb4_mul(g0, bb4_pow(z0, b)));
        for (int q = 0; q < NZ; q++)
            acc = bb4_add(acc, bb4_mul_base(gs[q], bb_pow(zs[q], b)));
        assert_ext_eq(got[b], acc, "w_accumulate", b);
    }
    /* and z^b as moments is eq_pt(z, x) = Π (x_i ? z^(2^i) : 1 − z^(2^i)) on the hypercube */
    {
        bb4_t m[LEN], ev[LEN];
        for (size_t b = 0; b < LEN; b++)
            m[b] = bb4_pow(z0, b);
        naive_evals_of_moments(m, ev, LEN);
        for (size_t x = 0; x < LEN; x++) {
            bb4_t e = bb4_one();
            for (int i = 0; i < N; i++) {
                bb4_t p = bb4_pow(z0, 1ull << i);
                e = bb4_mul(e, (x >> i) & 1 ? p : bb4_sub(bb4_one(), p));
            }
            assert_ext_eq(ev[x], e, "eq_pt from moments", x);
        }
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
