/* Poseidon2-16 over BabyBear (docs/protocol.md, 'Poseidon2 and the sponge').
 *
 * permute(s): ME; 4 x {add RC, x^7 on all cells, ME};
 *             13 x {add RC to cell 0, x^7 on cell 0, MI};
 *             4 x {add RC, x^7 on all cells, ME}.
 * ME = Plonky3's MDSMat4 on each group of 4 cells, then add the column sums
 * of the 4 groups. MI = all-ones matrix + diag(V) in true field values.
 * gs_poseidon2_permute_scalar below is the definition the vector versions
 * (poseidon2_single.c, poseidon2_x16.inc) are tested against. */
#include "hash/poseidon2.h"

#include <string.h>

#include "hash/poseidon2_constants.h"

/* x * 2^-k for 1 <= k <= 31, in Montgomery form: the Montgomery reduction
 * of x * 2^(32-k) divides by 2^32, leaving x * 2^-k (x < 2^31, so the
 * shifted value stays below 2^32 * p as the reduction requires). */
static inline bb_t div_2exp(bb_t x, unsigned k) { return bb_monty_reduce((uint64_t)x << (32 - k)); }

static inline bb_t sbox(bb_t x)
{
    bb_t x2 = bb_mul(x, x);
    bb_t x3 = bb_mul(x2, x);
    bb_t x4 = bb_mul(x2, x2);
    return bb_mul(x3, x4);
}

/* M4(x) = (2x0+3x1+x2+x3, x0+2x1+3x2+x3, x0+x1+2x2+3x3, 3x0+x1+x2+2x3);
 * with s = x0+x1+x2+x3 each output is s + x_i + 2 x_(i+1). */
static inline void mat4(bb_t *x)
{
    bb_t s = bb_add(bb_add(x[0], x[1]), bb_add(x[2], x[3]));
    bb_t y0 = bb_add(bb_add(s, x[0]), bb_double(x[1]));
    bb_t y1 = bb_add(bb_add(s, x[1]), bb_double(x[2]));
    bb_t y2 = bb_add(bb_add(s, x[2]), bb_double(x[3]));
    bb_t y3 = bb_add(bb_add(s, x[3]), bb_double(x[0]));
    x[0] = y0;
    x[1] = y1;
    x[2] = y2;
    x[3] = y3;
}

static inline void external_layer(bb_t st[16])
{
    for (int b = 0; b < 4; b++)
        mat4(st + 4 * b);
    for (int c = 0; c < 4; c++) {
        bb_t t = bb_add(bb_add(st[c], st[4 + c]), bb_add(st[8 + c], st[12 + c]));
        st[c] = bb_add(st[c], t);
        st[4 + c] = bb_add(st[4 + c], t);
        st[8 + c] = bb_add(st[8 + c], t);
        st[12 + c] = bb_add(st[12 + c], t);
    }
}

/* y_i = S + V_i s_i with
 * V = [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/2^8, 1/4, 1/8, 1/2^27, -1/2^8, -1/16, -1/2^27]. */
static inline void internal_layer(bb_t st[16])
{
    bb_t s = st[0];
    for (int i = 1; i < 16; i++)
        s = bb_add(s, st[i]);
    bb_t d[16];
    d[0] = bb_neg(bb_double(st[0]));
    d[1] = st[1];
    d[2] = bb_double(st[2]);
    d[3] = bb_halve(st[3]);
    d[4] = bb_add(bb_double(st[4]), st[4]);
    d[5] = bb_double(bb_double(st[5]));
    d[6] = bb_neg(bb_halve(st[6]));
    d[7] = bb_neg(bb_add(bb_double(st[7]), st[7]));
    d[8] = bb_neg(bb_double(bb_double(st[8])));
    d[9] = div_2exp(st[9], 8);
    d[10] = div_2exp(st[10], 2);
    d[11] = div_2exp(st[11], 3);
    d[12] = div_2exp(st[12], 27);
    d[13] = bb_neg(div_2exp(st[13], 8));
    d[14] = bb_neg(div_2exp(st[14], 4));
    d[15] = bb_neg(div_2exp(st[15], 27));
    for (int i = 0; i < 16; i++)
        st[i] = bb_add(s, d[i]);
}

void gs_poseidon2_permute_scalar(bb_t st[GS_P2_WIDTH])
{
    external_layer(st);
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++)
            st[i] = sbox(bb_add(st[i], gs_p2_rc_initial[r][i]));
        external_layer(st);
    }
    for (int r = 0; r < 13; r++) {
        st[0] = sbox(bb_add(st[0], gs_p2_rc_internal[r]));
        internal_layer(st);
    }
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++)
            st[i] = sbox(bb_add(st[i], gs_p2_rc_terminal[r][i]));
        external_layer(st);
    }
}

/* The internal diagonal's divisions by 2^k as Montgomery multipliers: the
 * Montgomery product of x with the word 2^(32-k) mod p is x * 2^(32-k) * 2^-32
 * = x / 2^k. */
#define MONT_2POW(e) ((uint32_t)(((uint64_t)1 << (e)) % BB_P))

#if defined(__x86_64__) && defined(__GNUC__) && GS_P2_LANES == 16 && !defined(GLSTARK_NO_SIMD)
/* x86-64 SIMD versions of the batched permutation, chosen at run time from
 * what the CPU has (the library itself is built for baseline x86-64): one
 * 16-lane vector holds one cell of all 16 states, as one AVX-512F register
 * or two AVX2 registers (poseidon2_x16.inc is the one source of both). */
#define HAVE_AVX2_PATH 1
#define GS_X16_TEMPLATE "hash/poseidon2_x16.inc"
#include "field/x16_instantiate.h"
#elif defined(__aarch64__) && defined(__GNUC__) && GS_P2_LANES == 16 && !defined(GLSTARK_NO_SIMD)
/* AArch64: the same template on four Advanced SIMD registers per cell
 * (babybear_neon.h), always present on these CPUs. */
#define HAVE_NEON_PATH 1
#define GS_X16_TEMPLATE "hash/poseidon2_x16.inc"
#include "field/x16_instantiate.h"
#endif

/* Portable version: GS_P2_LANES states side by side (cell-major), every step
 * a loop over lanes with no data-dependent branches. */
#define NL GS_P2_LANES
typedef bb_t lane_t[NL];

static inline uint32_t lane_mont(uint32_t a, uint32_t b)
{
    /* Montgomery product via the high halves only: q*p agrees with a*b in
     * the low 32 bits, so (a*b - q*p) / 2^32 = hi(a*b) - hi(q*p) (+p if negative). */
    uint64_t x = (uint64_t)a * b;
    uint32_t q = (uint32_t)x * BB_MU;
    uint64_t qp = (uint64_t)q * BB_P;
    uint32_t xh = (uint32_t)(x >> 32), qh = (uint32_t)(qp >> 32);
    uint32_t r = xh - qh;
    return xh < qh ? r + BB_P : r;
}

static inline uint32_t lane_add(uint32_t a, uint32_t b)
{
    uint32_t s = a + b, m = s - BB_P;
    return m < s ? m : s; /* unsigned min(s, s - p) */
}

static inline uint32_t lane_sub(uint32_t a, uint32_t b)
{
    uint32_t d = a - b, m = d + BB_P;
    return m < d ? m : d; /* unsigned min(d, d + p) */
}

static inline void sbox_lanes(lane_t x)
{
    for (int l = 0; l < NL; l++) {
        uint32_t x2 = lane_mont(x[l], x[l]);
        uint32_t x3 = lane_mont(x2, x[l]);
        uint32_t x4 = lane_mont(x2, x2);
        x[l] = lane_mont(x3, x4);
    }
}

static inline void external_lanes(lane_t *st)
{
    for (int b = 0; b < 4; b++) {
        lane_t *x = st + 4 * b;
        for (int l = 0; l < NL; l++) {
            /* M4 with shared partial sums (11 additions; mat4 above is the definition) */
            uint32_t x0 = x[0][l], x1 = x[1][l], x2 = x[2][l], x3 = x[3][l];
            uint32_t t01 = lane_add(x0, x1), t23 = lane_add(x2, x3), t0123 = lane_add(t01, t23);
            uint32_t t01123 = lane_add(t0123, x1), t01233 = lane_add(t0123, x3);
            x[0][l] = lane_add(t01123, t01);
            x[1][l] = lane_add(t01123, lane_add(x2, x2));
            x[2][l] = lane_add(t01233, t23);
            x[3][l] = lane_add(t01233, lane_add(x0, x0));
        }
    }
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < NL; l++) {
            uint32_t t = lane_add(lane_add(st[c][l], st[4 + c][l]), lane_add(st[8 + c][l], st[12 + c][l]));
            st[c][l] = lane_add(st[c][l], t);
            st[4 + c][l] = lane_add(st[4 + c][l], t);
            st[8 + c][l] = lane_add(st[8 + c][l], t);
            st[12 + c][l] = lane_add(st[12 + c][l], t);
        }
}

static inline void internal_lanes(lane_t *st)
{
    for (int l = 0; l < NL; l++) {
        uint32_t s = st[0][l];
        for (int i = 1; i < 16; i++)
            s = lane_add(s, st[i][l]);
        uint32_t v0 = st[0][l], v2 = st[2][l], v4 = st[4][l], v5 = st[5][l], v7 = st[7][l], v8 = st[8][l];
        uint32_t d2 = lane_add(v2, v2), d4 = lane_add(v4, v4), d5 = lane_add(v5, v5), d7 = lane_add(v7, v7),
                 d8 = lane_add(v8, v8);
        st[0][l] = lane_sub(s, lane_add(v0, v0));
        st[1][l] = lane_add(s, st[1][l]);
        st[2][l] = lane_add(s, d2);
        st[3][l] = lane_add(s, lane_mont(st[3][l], MONT_2POW(31)));
        st[4][l] = lane_add(s, lane_add(d4, v4));
        st[5][l] = lane_add(s, lane_add(d5, d5));
        st[6][l] = lane_sub(s, lane_mont(st[6][l], MONT_2POW(31)));
        st[7][l] = lane_sub(s, lane_add(d7, v7));
        st[8][l] = lane_sub(s, lane_add(d8, d8));
        st[9][l] = lane_add(s, lane_mont(st[9][l], MONT_2POW(24)));
        st[10][l] = lane_add(s, lane_mont(st[10][l], MONT_2POW(30)));
        st[11][l] = lane_add(s, lane_mont(st[11][l], MONT_2POW(29)));
        st[12][l] = lane_add(s, lane_mont(st[12][l], MONT_2POW(5)));
        st[13][l] = lane_sub(s, lane_mont(st[13][l], MONT_2POW(24)));
        st[14][l] = lane_sub(s, lane_mont(st[14][l], MONT_2POW(28)));
        st[15][l] = lane_sub(s, lane_mont(st[15][l], MONT_2POW(5)));
    }
}

void gs_poseidon2_permute_batch_portable(bb_t st[GS_P2_WIDTH][GS_P2_LANES])
{
    lane_t *s = st;
    external_lanes(s);
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++) {
            for (int l = 0; l < NL; l++)
                s[i][l] = lane_add(s[i][l], gs_p2_rc_initial[r][i]);
            sbox_lanes(s[i]);
        }
        external_lanes(s);
    }
    for (int r = 0; r < 13; r++) {
        for (int l = 0; l < NL; l++)
            s[0][l] = lane_add(s[0][l], gs_p2_rc_internal[r]);
        sbox_lanes(s[0]);
        internal_lanes(s);
    }
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++) {
            for (int l = 0; l < NL; l++)
                s[i][l] = lane_add(s[i][l], gs_p2_rc_terminal[r][i]);
            sbox_lanes(s[i]);
        }
        external_lanes(s);
    }
}

int gs_poseidon2_permute_batch_with(gs_p2_impl impl, bb_t st[GS_P2_WIDTH][GS_P2_LANES])
{
    switch (impl) {
    case GS_P2_IMPL_PORTABLE:
        gs_poseidon2_permute_batch_portable(st);
        return 1;
#ifdef HAVE_AVX2_PATH
    case GS_P2_IMPL_AVX2:
        if (!__builtin_cpu_supports("avx2"))
            return 0;
        permute_batch_avx2(st);
        return 1;
    case GS_P2_IMPL_AVX512:
        if (!__builtin_cpu_supports("avx512f"))
            return 0;
        permute_batch_avx512(st);
        return 1;
#endif
#ifdef HAVE_NEON_PATH
    case GS_P2_IMPL_NEON:
        permute_batch_neon(st);
        return 1;
#endif
    default:
        return 0;
    }
}

gs_p2_impl gs_poseidon2_batch_impl(void)
{
#ifdef HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx512f"))
        return GS_P2_IMPL_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return GS_P2_IMPL_AVX2;
#endif
#ifdef HAVE_NEON_PATH
    return GS_P2_IMPL_NEON;
#endif
    return GS_P2_IMPL_PORTABLE;
}

void gs_poseidon2_permute_batch(bb_t st[GS_P2_WIDTH][GS_P2_LANES])
{
#ifdef HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx512f")) {
        permute_batch_avx512(st);
        return;
    }
    if (__builtin_cpu_supports("avx2")) {
        permute_batch_avx2(st);
        return;
    }
#endif
#ifdef HAVE_NEON_PATH
    permute_batch_neon(st);
    return;
#endif
    gs_poseidon2_permute_batch_portable(st);
}

void gs_poseidon2_hash(const bb_t *in, size_t n, bb_t out[GS_DIGEST_LEN])
{
    bb_t st[GS_P2_WIDTH] = {0};
    for (size_t off = 0; off < n; off += GS_P2_RATE) {
        size_t m = n - off < GS_P2_RATE ? n - off : GS_P2_RATE;
        memcpy(st, in + off, m * sizeof(bb_t));
        gs_poseidon2_permute(st);
    }
    memcpy(out, st, GS_DIGEST_LEN * sizeof(bb_t));
}

void gs_poseidon2_compress(const bb_t left[GS_DIGEST_LEN], const bb_t right[GS_DIGEST_LEN],
                           bb_t out[GS_DIGEST_LEN])
{
    bb_t st[GS_P2_WIDTH];
    memcpy(st, left, GS_DIGEST_LEN * sizeof(bb_t));
    memcpy(st + GS_DIGEST_LEN, right, GS_DIGEST_LEN * sizeof(bb_t));
    gs_poseidon2_permute(st);
    memcpy(out, st, GS_DIGEST_LEN * sizeof(bb_t));
}
