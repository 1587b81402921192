/* src/field (BabyBear in Montgomery form, its degree-4 extension) checked
 * against an independent definition: plain 64-bit arithmetic on canonical
 * integers mod p, and for the extension schoolbook products reduced with
 * X^4 = 11, all in u64. Random inputs use printed fixed seeds. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "field/field_batch.h"
#include "../util/splitmix.h"

#define P 2013265921ull /* 2^31 - 2^27 + 1, written independently of BB_P */

static uint32_t rnd(uint64_t *s) { return (uint32_t)(splitmix64(s) % P); }

/* ---- the independent definition ---- */

static uint64_t ref_add(uint64_t a, uint64_t b) { return (a + b) % P; }
static uint64_t ref_sub(uint64_t a, uint64_t b) { return (a + P - b) % P; }
static uint64_t ref_mul(uint64_t a, uint64_t b) { return a * b % P; }

static uint64_t ref_pow(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    a %= P;
    while (e) {
        if (e & 1)
            r = r * a % P;
        a = a * a % P;
        e >>= 1;
    }
    return r;
}

/* Extension elements as canonical u64[4]; product mod X^4 - 11. */
static void ref4_mul(const uint64_t a[4], const uint64_t b[4], uint64_t r[4])
{
    uint64_t t[7] = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            t[i + j] = (t[i + j] + a[i] * b[j]) % P;
    for (int k = 6; k >= 4; k--)
        t[k - 4] = (t[k - 4] + 11 * t[k]) % P;
    memcpy(r, t, 4 * sizeof r[0]);
}

static const uint32_t edges[] = {0, 1, 2, (uint32_t)P - 1, (uint32_t)P - 2, (uint32_t)(P / 2),
                                 (uint32_t)(P / 2 + 1), 1u << 27, (1u << 27) - 1, 1u << 30, 0x77FFFFFFu};
#define N_EDGES (sizeof edges / sizeof edges[0])

static void check_pair(uint32_t x, uint32_t y)
{
    bb_t a = bb_from_canonical(x), b = bb_from_canonical(y);
    cr_assert_lt(a, BB_P, "Montgomery form must be reduced");
    cr_assert_eq(bb_to_canonical(a), x, "round trip of %u", x);
    cr_assert_eq(bb_to_canonical(bb_add(a, b)), ref_add(x, y), "add %u %u", x, y);
    cr_assert_eq(bb_to_canonical(bb_sub(a, b)), ref_sub(x, y), "sub %u %u", x, y);
    cr_assert_eq(bb_to_canonical(bb_mul(a, b)), ref_mul(x, y), "mul %u %u", x, y);
    cr_assert_eq(bb_to_canonical(bb_neg(a)), ref_sub(0, x), "neg %u", x);
    cr_assert_eq(bb_to_canonical(bb_square(a)), ref_mul(x, x), "square %u", x);
    cr_assert_eq(bb_to_canonical(bb_double(a)), ref_add(x, x), "double %u", x);
    cr_assert_eq(bb_to_canonical(bb_halve(a)), ref_mul(x, (P + 1) / 2), "halve %u", x);
}

Test(field, base_ops_on_edges)
{
    for (size_t i = 0; i < N_EDGES; i++)
        for (size_t j = 0; j < N_EDGES; j++)
            check_pair(edges[i], edges[j]);
    cr_assert_eq(bb_one(), bb_from_canonical(1));
    cr_assert_eq(bb_zero(), bb_from_canonical(0));
    /* Any u32 is reduced on the way in. */
    cr_assert_eq(bb_to_canonical(bb_from_u32(0xFFFFFFFFu)), 0xFFFFFFFFull % P);
    cr_assert_eq(bb_to_canonical(bb_from_u32((uint32_t)P)), 0);
    cr_assert_eq(bb_to_canonical(bb_from_u64(0xFFFFFFFFFFFFFFFFull)), 0xFFFFFFFFFFFFFFFFull % P);
}

Test(field, base_ops_random)
{
    uint64_t seed = 0xF1E1D001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int i = 0; i < 200000; i++)
        check_pair(rnd(&seed), rnd(&seed));
}

Test(field, pow_and_inverse)
{
    uint64_t seed = 0xF1E1D002;
    cr_log_info("seed %llu", (unsigned long long)seed);
    cr_assert_eq(bb_inv(0), 0, "inv(0) is defined as 0");
    cr_assert_eq(bb_to_canonical(bb_inv(bb_one())), 1);
    cr_assert_eq(bb_to_canonical(bb_inv(bb_from_canonical((uint32_t)P - 1))), P - 1);
    for (int i = 0; i < 2000; i++) {
        uint32_t x = i < (int)N_EDGES ? edges[i] : rnd(&seed);
        uint64_t e = splitmix64(&seed);
        bb_t a = bb_from_canonical(x);
        cr_assert_eq(bb_to_canonical(bb_pow(a, e)), ref_pow(x, e), "pow %u^%llu", x, (unsigned long long)e);
        if (x) {
            uint32_t inv = bb_to_canonical(bb_inv(a));
            cr_assert_eq(ref_mul(x, inv), 1, "x * inv(x) for x = %u", x);
            cr_assert_eq(inv, ref_pow(x, P - 2));
        }
    }
}

Test(field, batch_inverse)
{
    uint64_t seed = 0xF1E1D003;
    cr_log_info("seed %llu", (unsigned long long)seed);
    enum { N = 1000 };
    bb_t v[N], orig[N], scratch[N];
    for (int i = 0; i < N; i++)
        v[i] = orig[i] = (i % 17 == 3) ? 0 : bb_from_canonical(rnd(&seed));
    bb_batch_inv(v, N, scratch);
    for (int i = 0; i < N; i++) {
        if (!orig[i])
            cr_assert_eq(v[i], 0, "zeros stay zero (index %d)", i);
        else
            cr_assert_eq(v[i], bb_inv(orig[i]), "batch inverse at %d", i);
    }
    bb_batch_inv(v, 0, scratch); /* empty is fine */
}

Test(field, two_adic_generators)
{
    for (unsigned k = 0; k <= BB_TWO_ADICITY; k++) {
        bb_t g = bb_two_adic_generator(k);
        uint32_t c = bb_to_canonical(g);
        cr_assert_eq(ref_pow(c, 1ull << k), 1, "g_%u^(2^%u) = 1", k, k);
        if (k > 0)
            cr_assert_eq(ref_pow(c, 1ull << (k - 1)), P - 1, "g_%u has order exactly 2^%u", k, k);
    }
    cr_assert_eq(bb_two_adic_generator(BB_TWO_ADICITY + 1), 0);
    cr_assert_eq((P - 1) % (1ull << BB_TWO_ADICITY), 0);
}

static void to4(bb4_t x, uint64_t out[4])
{
    for (int i = 0; i < 4; i++)
        out[i] = bb_to_canonical(x.c[i]);
}

static bb4_t from4(const uint64_t c[4])
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = bb_from_canonical((uint32_t)c[i]);
    return r;
}

Test(field, ext4_against_schoolbook)
{
    uint64_t seed = 0xF1E1D004;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int it = 0; it < 20000; it++) {
        uint64_t a[4], b[4], want[4], got[4];
        for (int i = 0; i < 4; i++) {
            a[i] = it < 500 ? edges[(size_t)(it + i) % N_EDGES] : rnd(&seed);
            b[i] = it < 500 ? edges[(size_t)(it / N_EDGES + 3 * i) % N_EDGES] : rnd(&seed);
        }
        bb4_t x = from4(a), y = from4(b);
        ref4_mul(a, b, want);
        to4(bb4_mul(x, y), got);
        cr_assert_arr_eq(got, want, sizeof want, "ext4 mul (iteration %d)", it);
        ref4_mul(a, a, want);
        to4(bb4_square(x), got);
        cr_assert_arr_eq(got, want, sizeof want, "ext4 square");
        to4(bb4_add(x, y), got);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(got[i], ref_add(a[i], b[i]));
        to4(bb4_sub(x, y), got);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(got[i], ref_sub(a[i], b[i]));
        to4(bb4_neg(x), got);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(got[i], ref_sub(0, a[i]));
        to4(bb4_mul_base(x, y.c[0]), got);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(got[i], ref_mul(a[i], b[0]));
    }
}

/* bb4_dot and bb4_acc against the schoolbook sum, on edge values (p - 1
 * everywhere: the largest raw products) and random ones, for lengths 0 to
 * 40 and 1000. */
Test(field, ext4_dot_against_schoolbook)
{
    uint64_t seed = 0xF1E1D00D;
    cr_log_info("seed %llu", (unsigned long long)seed);
    enum { MAXN = 1000 };
    bb4_t *x = malloc(MAXN * sizeof *x), *y = malloc(MAXN * sizeof *y);
    for (int rep = 0; rep < 3; rep++) {
        uint64_t a[4], b[4];
        for (size_t i = 0; i < MAXN; i++) {
            for (int k = 0; k < 4; k++) {
                a[k] = rep == 0 ? P - 1 : rep == 1 ? edges[(i + (size_t)k) % N_EDGES] : rnd(&seed);
                b[k] = rep == 0 ? P - 1 : rep == 1 ? edges[(3 * i + (size_t)k) % N_EDGES] : rnd(&seed);
            }
            x[i] = from4(a);
            y[i] = from4(b);
        }
        for (size_t len = 0; len <= 41; len++) {
            const size_t n = len == 41 ? MAXN : len;
            uint64_t want[4] = {0, 0, 0, 0}, t[4], xa[4], yb[4], got[4];
            for (size_t i = 0; i < n; i++) {
                to4(x[i], xa);
                to4(y[i], yb);
                ref4_mul(xa, yb, t);
                for (int k = 0; k < 4; k++)
                    want[k] = ref_add(want[k], t[k]);
            }
            to4(bb4_dot(x, y, n), got);
            cr_assert_arr_eq(got, want, sizeof want, "dot of %zu terms (set %d)", n, rep);
            /* the same sum from two accumulators merged (as threads' partials are) */
            bb4_acc lo = {0, 0, 0, 0, 0, 0, 0}, hi = lo;
            for (size_t i = 0; i < n; i++)
                bb4_acc_add(i < n / 3 ? &lo : &hi, x[i], y[i]);
            bb4_acc_merge(&lo, &hi);
            to4(bb4_acc_value(&lo), got);
            cr_assert_arr_eq(got, want, sizeof want, "merged accumulators of %zu terms (set %d)", n, rep);
        }
    }
    free(x);
    free(y);
}

Test(field, ext4_inverse_and_pow)
{
    uint64_t seed = 0xF1E1D005;
    cr_log_info("seed %llu", (unsigned long long)seed);
    cr_assert(bb4_is_zero(bb4_inv(bb4_zero())), "inv(0) = 0");
    for (int it = 0; it < 3000; it++) {
        uint64_t a[4], prod[4], one[4] = {1, 0, 0, 0};
        for (int i = 0; i < 4; i++)
            a[i] = it < 300 ? edges[(size_t)(it * 7 + i * 3) % N_EDGES] : rnd(&seed);
        if (!(a[0] | a[1] | a[2] | a[3]))
            continue;
        bb4_t x = from4(a);
        uint64_t inv[4];
        to4(bb4_inv(x), inv);
        ref4_mul(a, inv, prod);
        cr_assert_arr_eq(prod, one, sizeof one, "a * inv(a) = 1 (iteration %d)", it);
        cr_assert(bb4_eq(bb4_inv(bb4_inv(x)), x), "inv(inv(a)) = a");
        /* a^e by repeated schoolbook products. */
        uint64_t e = splitmix64(&seed) & 0xFFFF, want[4] = {1, 0, 0, 0}, base[4], got[4];
        memcpy(base, a, sizeof base);
        for (uint64_t k = e; k; k >>= 1) {
            if (k & 1)
                ref4_mul(want, base, want);
            ref4_mul(base, base, base);
        }
        to4(bb4_pow(x, e), got);
        cr_assert_arr_eq(got, want, sizeof want, "a^%llu", (unsigned long long)e);
    }
    /* Batch inverse with zeros. */
    enum { N = 300 };
    bb4_t v[N], orig[N], scratch[N];
    for (int i = 0; i < N; i++) {
        uint64_t c[4] = {rnd(&seed), rnd(&seed), rnd(&seed), rnd(&seed)};
        v[i] = orig[i] = (i % 11 == 5) ? bb4_zero() : from4(c);
    }
    bb4_batch_inv(v, N, scratch);
    for (int i = 0; i < N; i++)
        cr_assert(bb4_eq(v[i], bb4_is_zero(orig[i]) ? bb4_zero() : bb4_inv(orig[i])), "batch inverse at %d", i);
}

Test(field, canonical_array_conversions)
{
    uint32_t c[64], back[64];
    bb_t m[64];
    uint64_t seed = 0xF1E1D006;
    for (int i = 0; i < 64; i++)
        c[i] = i < (int)N_EDGES ? edges[i] : rnd(&seed);
    bb_array_from_canonical(m, c, 64);
    bb_array_to_canonical(back, m, 64);
    cr_assert_arr_eq(back, c, sizeof c);
    uint32_t c4[4] = {1, 2, (uint32_t)P - 1, 0}, o4[4];
    bb4_to_canonical(o4, bb4_from_canonical(c4));
    cr_assert_arr_eq(o4, c4, sizeof c4);
}

/* The batch helper used as the GPU reference agrees with the scalar ops. */
Test(field, batch_reference_matches_scalar_ops)
{
    uint64_t seed = 0xF1E1D007;
    enum { N = 256 };
    uint32_t a[4 * N], b[4 * N], out[4 * N];
    for (int i = 0; i < 4 * N; i++) {
        a[i] = bb_from_canonical(rnd(&seed));
        b[i] = bb_from_canonical(rnd(&seed));
    }
    gs_field_batch_cpu(GS_FOP_MUL, a, b, out, N, 0);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], bb_mul(a[i], b[i]));
    gs_field_batch_cpu(GS_FOP_MUL_CHAIN, a, b, out, N, 3);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], bb_mul(bb_mul(bb_mul(a[i], b[i]), b[i]), b[i]));
    /* The butterfly chains against their definition in canonical integers:
     * (x, y) <- (x + w y, x - w y) mod p from (a, b), w in (b, b + a, b - a, a). */
    gs_field_batch_cpu(GS_FOP_BUTTERFLY_CHAIN, a, b, out, N, 5);
    for (int i = 0; i < N; i++) {
        uint64_t ca = bb_to_canonical(a[i]), cb = bb_to_canonical(b[i]);
        uint64_t w[4] = {cb, (cb + ca) % BB_P, (cb + BB_P - ca) % BB_P, ca}, sum = 0;
        for (int j = 0; j < 4; j++) {
            uint64_t x = ca, y = cb;
            for (int k = 0; k < 5; k++) {
                uint64_t t = w[j] * y % BB_P;
                y = (x + BB_P - t) % BB_P;
                x = (x + t) % BB_P;
            }
            sum = (sum + x) % BB_P;
        }
        cr_assert_eq(bb_to_canonical(out[i]), (uint32_t)sum, "element %d", i);
    }
    gs_field_batch_cpu(GS_FOP4_INV, a, b, out, N, 0);
    for (int i = 0; i < N; i++) {
        bb4_t x, y;
        memcpy(x.c, a + 4 * i, 16);
        memcpy(y.c, out + 4 * i, 16);
        cr_assert(bb4_eq(y, bb4_inv(x)));
    }
    cr_assert(!gs_field_op_valid(12) && gs_field_op_valid(GS_FOP4_MUL_BASE));
}

/* bb_pow_table: entry b is z^(b << first), checked with the u64 power, for
 * z in {0, 1, p - 1} and random z, over windows of index bits that start
 * at 0 and past 0 (as WHIR's split low/high tables use them). */
Test(field, pow_table_against_powers)
{
    uint64_t seed = 0xF1E1D008;
    cr_log_info("seed %llu", (unsigned long long)seed);
    bb_t t[1u << 7];
    const unsigned windows[][2] = {{0, 0}, {0, 1}, {0, 7}, {3, 5}, {7, 6}, {20, 4}};
    for (int it = 0; it < 8; it++) {
        uint64_t z = it == 0 ? 0 : it == 1 ? 1 : it == 2 ? P - 1 : rnd(&seed);
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
            unsigned first = windows[w][0], bits = windows[w][1];
            for (size_t b = 0; b < ((size_t)1 << bits); b++)
                t[b] = 0xDEADBEEFu; /* poison */
            bb_pow_table(bb_from_canonical((uint32_t)z), first, bits, t);
            for (size_t b = 0; b < ((size_t)1 << bits); b++)
                cr_assert_eq(bb_to_canonical(t[b]), ref_pow(z, (uint64_t)b << first),
                             "z = %llu, first %u, entry %zu", (unsigned long long)z, first, b);
        }
    }
}

/* bb4_eq_table: entry x is the product over coordinates k of xi_k (bit k of
 * x set) or 1 - xi_k (clear), written out with the schoolbook product. */
Test(field, eq_table_against_products)
{
    uint64_t seed = 0xF1E1D009;
    cr_log_info("seed %llu", (unsigned long long)seed);
    enum { NMAX = 6 };
    bb4_t xi[NMAX], t[1u << NMAX];
    uint64_t x4[NMAX][4], om[NMAX][4];
    for (size_t n = 0; n <= NMAX; n++) {
        for (size_t k = 0; k < n; k++) {
            for (int i = 0; i < 4; i++) /* edges in the first coordinates, then random */
                x4[k][i] = k < 2 ? edges[(k * 4 + (size_t)i + n) % N_EDGES] : rnd(&seed);
            for (int i = 0; i < 4; i++)
                om[k][i] = ref_sub(i == 0 ? 1 : 0, x4[k][i]);
            xi[k] = from4(x4[k]);
        }
        for (size_t x = 0; x < ((size_t)1 << n); x++)
            t[x].c[0] = t[x].c[1] = t[x].c[2] = t[x].c[3] = 0xDEADBEEFu; /* poison */
        bb4_eq_table(xi, n, t);
        for (size_t x = 0; x < ((size_t)1 << n); x++) {
            uint64_t want[4] = {1, 0, 0, 0}, got[4];
            for (size_t k = 0; k < n; k++) {
                uint64_t r[4];
                ref4_mul(want, (x >> k) & 1 ? x4[k] : om[k], r);
                memcpy(want, r, sizeof r);
            }
            to4(t[x], got);
            cr_assert_arr_eq(got, want, sizeof want, "n = %zu, entry %zu", n, x);
        }
    }
}
