/* BabyBear Montgomery arithmetic on 8 AVX2 lanes, values in [0, p), bit-identical
 * to bb_add/bb_sub/bb_mul in babybear.h. Shared by the CPU engine's SIMD paths
 * (DFT butterflies, batched Poseidon2); bb8x2 below holds 16 lanes in two
 * registers for the kernels written once for 16 lanes (AVX-512's bb16_* has
 * the same names). Include only inside an x86-64 GCC/clang guard. The
 * functions carry target("avx2"), so callers choose them at run time. */
#ifndef GS_FIELD_BABYBEAR_AVX2_H
#define GS_FIELD_BABYBEAR_AVX2_H

#include <immintrin.h>

#include "field/babybear.h"

#define BB8_FN static inline __attribute__((target("avx2"), always_inline))

/* min_epu32 picks the reduced one of s and s - p (or d and d + p) without a compare. */
BB8_FN __m256i bb8_add(__m256i a, __m256i b)
{
    __m256i s = _mm256_add_epi32(a, b);
    return _mm256_min_epu32(s, _mm256_sub_epi32(s, _mm256_set1_epi32((int)BB_P)));
}

BB8_FN __m256i bb8_sub(__m256i a, __m256i b)
{
    __m256i d = _mm256_sub_epi32(a, b);
    return _mm256_min_epu32(d, _mm256_add_epi32(d, _mm256_set1_epi32((int)BB_P)));
}

/* The Montgomery product a b 2^-32 on signed words, for chains of products
 * (Poseidon2's S-box): a and b are int32 with |a b| < 2^31 p (any two words
 * of (-p, p) qualify, canonical words among them) and the result is left in
 * (-p, p); bb8_canonical brings it to [0, p). The low halves of a b and q p
 * agree (q = lo(a b) mu), so the 64-bit difference a b - q p holds the
 * result in its high half; with the products signed and q taken as a signed
 * word, |q p| < 2^31 p keeps it inside (-p, p). Even lanes come from
 * mul_epi32 directly, odd lanes after a 32-bit shift. */
BB8_FN __m256i bb8_mul_signed(__m256i a, __m256i b)
{
    const __m256i p = _mm256_set1_epi32((int)BB_P), mu = _mm256_set1_epi32((int)BB_MU);
    __m256i pe = _mm256_mul_epi32(a, b);
    __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
    __m256i de = _mm256_sub_epi64(pe, _mm256_mul_epi32(_mm256_mul_epu32(pe, mu), p));
    __m256i dodd = _mm256_sub_epi64(po, _mm256_mul_epi32(_mm256_mul_epu32(po, mu), p));
    return _mm256_blend_epi32(_mm256_srli_epi64(de, 32), dodd, 0xAA);
}

/* A signed word in (-p, p) to its value in [0, p). */
BB8_FN __m256i bb8_canonical(__m256i d)
{
    return _mm256_min_epu32(d, _mm256_add_epi32(d, _mm256_set1_epi32((int)BB_P)));
}

/* a*b*2^-32 for a, b in [0, p): the signed product, reduced. */
BB8_FN __m256i bb8_mul(__m256i a, __m256i b) { return bb8_canonical(bb8_mul_signed(a, b)); }

/* x / 2^k for 1 <= k <= 27 (on Montgomery words, so on the values too)
 * without a multiply: with x = hi 2^k + lo and 2^-27 = -15 mod p, x / 2^k =
 * hi - 15 lo 2^(27-k), both terms below p. */
BB8_FN __m256i bb8_div_2exp(__m256i x, int k)
{
    __m256i hi = _mm256_srl_epi32(x, _mm_cvtsi32_si128(k));
    __m256i lo = _mm256_and_si256(x, _mm256_set1_epi32((int)((1u << k) - 1)));
    __m256i t = _mm256_sll_epi32(lo, _mm_cvtsi32_si128(27 - k));
    t = _mm256_sub_epi32(_mm256_slli_epi32(t, 4), t); /* 15 lo 2^(27-k) */
    return bb8_sub(hi, t);
}

BB8_FN __m256i bb8_load(const bb_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
BB8_FN void bb8_store(bb_t *p, __m256i v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }

/* ---- 16 lanes in two registers: lanes 0..7 in h[0], 8..15 in h[1] ---- */
typedef struct bb8x2 {
    __m256i h[2];
} bb8x2;

BB8_FN bb8x2 bb8x2_load(const bb_t *p)
{
    bb8x2 r = {{_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)(p + 8))}};
    return r;
}

BB8_FN void bb8x2_store(bb_t *p, bb8x2 v)
{
    _mm256_storeu_si256((__m256i *)p, v.h[0]);
    _mm256_storeu_si256((__m256i *)(p + 8), v.h[1]);
}

BB8_FN bb8x2 bb8x2_set1(bb_t x)
{
    bb8x2 r = {{_mm256_set1_epi32((int)x), _mm256_set1_epi32((int)x)}};
    return r;
}

BB8_FN bb8x2 bb8x2_zero(void)
{
    bb8x2 r = {{_mm256_setzero_si256(), _mm256_setzero_si256()}};
    return r;
}

BB8_FN bb8x2 bb8x2_add(bb8x2 a, bb8x2 b)
{
    a.h[0] = bb8_add(a.h[0], b.h[0]);
    a.h[1] = bb8_add(a.h[1], b.h[1]);
    return a;
}

BB8_FN bb8x2 bb8x2_sub(bb8x2 a, bb8x2 b)
{
    a.h[0] = bb8_sub(a.h[0], b.h[0]);
    a.h[1] = bb8_sub(a.h[1], b.h[1]);
    return a;
}

BB8_FN bb8x2 bb8x2_mul(bb8x2 a, bb8x2 b)
{
    a.h[0] = bb8_mul(a.h[0], b.h[0]);
    a.h[1] = bb8_mul(a.h[1], b.h[1]);
    return a;
}

BB8_FN bb8x2 bb8x2_mul_signed(bb8x2 a, bb8x2 b)
{
    a.h[0] = bb8_mul_signed(a.h[0], b.h[0]);
    a.h[1] = bb8_mul_signed(a.h[1], b.h[1]);
    return a;
}

BB8_FN bb8x2 bb8x2_canonical(bb8x2 d)
{
    d.h[0] = bb8_canonical(d.h[0]);
    d.h[1] = bb8_canonical(d.h[1]);
    return d;
}

/* Plain 32-bit addition, no reduction (for sums the caller keeps in range). */
BB8_FN bb8x2 bb8x2_add_wrap(bb8x2 a, bb8x2 b)
{
    a.h[0] = _mm256_add_epi32(a.h[0], b.h[0]);
    a.h[1] = _mm256_add_epi32(a.h[1], b.h[1]);
    return a;
}

BB8_FN bb8x2 bb8x2_div_2exp(bb8x2 x, int k)
{
    x.h[0] = bb8_div_2exp(x.h[0], k);
    x.h[1] = bb8_div_2exp(x.h[1], k);
    return x;
}

/* Lane j takes base[idx lane j]. */
BB8_FN bb8x2 bb8x2_gather(const bb_t *base, bb8x2 idx)
{
    bb8x2 r = {{_mm256_i32gather_epi32((const int *)base, idx.h[0], 4),
                _mm256_i32gather_epi32((const int *)base, idx.h[1], 4)}};
    return r;
}

/* Lane j takes lane j ^ h of v (h = 1, 2, 4 or 8). */
BB8_FN bb8x2 bb8x2_partner(bb8x2 v, int h)
{
    if (h == 8) {
        bb8x2 r = {{v.h[1], v.h[0]}};
        return r;
    }
    const __m256i idx = _mm256_xor_si256(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(h));
    bb8x2 r = {{_mm256_permutevar8x32_epi32(v.h[0], idx), _mm256_permutevar8x32_epi32(v.h[1], idx)}};
    return r;
}

/* Lane j takes lane rev4(j) of v (its 4-bit index reversed). Output lane j
 * reads lane rev4(j), whose low bit is j's high bit: the low output half
 * takes the even lanes of both inputs, the high half the odd ones, each
 * input half contributing every other output lane. */
BB8_FN bb8x2 bb8x2_bitrev(bb8x2 v)
{
    const __m256i lo = _mm256_setr_epi32(0, 0, 4, 4, 2, 2, 6, 6), hi = _mm256_setr_epi32(1, 1, 5, 5, 3, 3, 7, 7);
    bb8x2 r = {{_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v.h[0], lo), _mm256_permutevar8x32_epi32(v.h[1], lo), 0xAA),
                _mm256_blend_epi32(_mm256_permutevar8x32_epi32(v.h[0], hi), _mm256_permutevar8x32_epi32(v.h[1], hi), 0xAA)}};
    return r;
}

/* Lanes whose index has bit h set from b, the others from a (h = 1, 2, 4 or
 * 8). A mask vector rather than an immediate, so unoptimised builds compile. */
BB8_FN bb8x2 bb8x2_blend_upper(bb8x2 a, bb8x2 b, int h)
{
    if (h == 8) {
        bb8x2 r = {{a.h[0], b.h[1]}};
        return r;
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i up = _mm256_cmpeq_epi32(_mm256_and_si256(lane, _mm256_set1_epi32(h)), _mm256_set1_epi32(h));
    bb8x2 r = {{_mm256_blendv_epi8(a.h[0], b.h[0], up), _mm256_blendv_epi8(a.h[1], b.h[1], up)}};
    return r;
}

/* Lane j takes lane 4 (j / 4) + c of v (c < 4): component c of each of the
 * four extension elements the 16 lanes hold, spread over its lanes. */
BB8_FN bb8x2 bb8x2_bcast4(bb8x2 v, int c)
{
    const __m256i idx = _mm256_or_si256(_mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4), _mm256_set1_epi32(c));
    bb8x2 r = {{_mm256_permutevar8x32_epi32(v.h[0], idx), _mm256_permutevar8x32_epi32(v.h[1], idx)}};
    return r;
}

/* The even (odd) 4-lane groups of a, then those of b: from eight extension
 * elements stored in a then b, elements 0, 2, 4, 6 (1, 3, 5, 7). */
BB8_FN bb8x2 bb8x2_even4(bb8x2 a, bb8x2 b)
{
    bb8x2 r = {{_mm256_permute2x128_si256(a.h[0], a.h[1], 0x20), _mm256_permute2x128_si256(b.h[0], b.h[1], 0x20)}};
    return r;
}

BB8_FN bb8x2 bb8x2_odd4(bb8x2 a, bb8x2 b)
{
    bb8x2 r = {{_mm256_permute2x128_si256(a.h[0], a.h[1], 0x31), _mm256_permute2x128_si256(b.h[0], b.h[1], 0x31)}};
    return r;
}

#endif
