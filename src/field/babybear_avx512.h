/* BabyBear Montgomery arithmetic on 16 AVX-512F lanes, values in [0, p),
 * bit-identical to bb_add/bb_sub/bb_mul in babybear.h. Shared by the CPU
 * engine's AVX-512 paths (batched Poseidon2, the DFT, and the 16-lane kernel
 * templates, whose AVX2 twin is bb8x2 in babybear_avx2.h); include only
 * inside an x86-64 GCC/clang guard. The functions carry target("avx512f"),
 * so callers choose them at run time. */
#ifndef GS_FIELD_BABYBEAR_AVX512_H
#define GS_FIELD_BABYBEAR_AVX512_H

#include <immintrin.h>

#include "field/babybear.h"

#define BB16_FN static inline __attribute__((target("avx512f"), always_inline))

/* min_epu32 picks the reduced one of s and s - p (or d and d + p) without a compare. */
BB16_FN __m512i bb16_add(__m512i a, __m512i b)
{
    __m512i s = _mm512_add_epi32(a, b);
    return _mm512_min_epu32(s, _mm512_sub_epi32(s, _mm512_set1_epi32((int)BB_P)));
}

BB16_FN __m512i bb16_sub(__m512i a, __m512i b)
{
    __m512i d = _mm512_sub_epi32(a, b);
    return _mm512_min_epu32(d, _mm512_add_epi32(d, _mm512_set1_epi32((int)BB_P)));
}

/* The signed Montgomery product of babybear_avx2.h's bb8_mul_signed: int32
 * words with |a b| < 2^31 p in, a b 2^-32 mod p in (-p, p) out. */
BB16_FN __m512i bb16_mul_signed(__m512i a, __m512i b)
{
    const __m512i p = _mm512_set1_epi32((int)BB_P), mu = _mm512_set1_epi32((int)BB_MU);
    __m512i pe = _mm512_mul_epi32(a, b);
    __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
    __m512i de = _mm512_sub_epi64(pe, _mm512_mul_epi32(_mm512_mul_epu32(pe, mu), p));
    __m512i dodd = _mm512_sub_epi64(po, _mm512_mul_epi32(_mm512_mul_epu32(po, mu), p));
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(de, 32), dodd);
}

/* A signed word in (-p, p) to its value in [0, p). */
BB16_FN __m512i bb16_canonical(__m512i d)
{
    return _mm512_min_epu32(d, _mm512_add_epi32(d, _mm512_set1_epi32((int)BB_P)));
}

/* a*b*2^-32 for a, b in [0, p): the signed product, reduced. */
BB16_FN __m512i bb16_mul(__m512i a, __m512i b) { return bb16_canonical(bb16_mul_signed(a, b)); }

/* Plain 32-bit addition, no reduction (for sums the caller keeps in range). */
BB16_FN __m512i bb16_add_wrap(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }

/* x / 2^k for 1 <= k <= 27 (on Montgomery words, so on the values too)
 * without a multiply: with x = hi 2^k + lo and 2^-27 = -15 mod p, x / 2^k =
 * hi - 15 lo 2^(27-k), both terms below p. */
BB16_FN __m512i bb16_div_2exp(__m512i x, int k)
{
    __m512i hi = _mm512_srl_epi32(x, _mm_cvtsi32_si128(k));
    __m512i lo = _mm512_and_si512(x, _mm512_set1_epi32((int)((1u << k) - 1)));
    __m512i t = _mm512_sll_epi32(lo, _mm_cvtsi32_si128(27 - k));
    t = _mm512_sub_epi32(_mm512_slli_epi32(t, 4), t); /* 15 lo 2^(27-k) */
    return bb16_sub(hi, t);
}

/* The 16-lane kernel interface (same names as bb8x2_* in babybear_avx2.h). */
BB16_FN __m512i bb16_load(const bb_t *p) { return _mm512_loadu_si512((const void *)p); }
BB16_FN void bb16_store(bb_t *p, __m512i v) { _mm512_storeu_si512((void *)p, v); }
BB16_FN __m512i bb16_set1(bb_t x) { return _mm512_set1_epi32((int)x); }
BB16_FN __m512i bb16_zero(void) { return _mm512_setzero_si512(); }

/* Lane j takes base[idx lane j]. */
BB16_FN __m512i bb16_gather(const bb_t *base, __m512i idx) { return _mm512_i32gather_epi32(idx, (const void *)base, 4); }

/* Lane j takes lane j ^ h of v (h = 1, 2, 4 or 8). */
BB16_FN __m512i bb16_partner(__m512i v, int h)
{
    const __m512i idx = _mm512_xor_si512(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                         _mm512_set1_epi32(h));
    return _mm512_permutexvar_epi32(idx, v);
}

/* Lane j takes lane rev4(j) of v (its 4-bit index reversed). */
BB16_FN __m512i bb16_bitrev(__m512i v)
{
    const __m512i idx = _mm512_set_epi32(15, 7, 11, 3, 13, 5, 9, 1, 14, 6, 10, 2, 12, 4, 8, 0);
    return _mm512_permutexvar_epi32(idx, v);
}

/* Lanes whose index has bit h set from b, the others from a (h = 1, 2, 4 or 8). */
BB16_FN __m512i bb16_blend_upper(__m512i a, __m512i b, int h)
{
    __mmask16 up = h == 8 ? 0xFF00 : h == 4 ? 0xF0F0 : h == 2 ? 0xCCCC : 0xAAAA;
    return _mm512_mask_blend_epi32(up, a, b);
}

/* Lane j takes lane 4 (j / 4) + c of v (c < 4): component c of each of the
 * four extension elements a vector holds, spread over that element's lanes. */
BB16_FN __m512i bb16_bcast4(__m512i v, int c)
{
    const __m512i idx = _mm512_or_si512(_mm512_set_epi32(12, 12, 12, 12, 8, 8, 8, 8, 4, 4, 4, 4, 0, 0, 0, 0),
                                        _mm512_set1_epi32(c));
    return _mm512_permutexvar_epi32(idx, v);
}

/* The even (odd) 4-lane groups of a, then those of b: from eight extension
 * elements stored in a then b, elements 0, 2, 4, 6 (1, 3, 5, 7). */
BB16_FN __m512i bb16_even4(__m512i a, __m512i b) { return _mm512_shuffle_i32x4(a, b, 0x88); }
BB16_FN __m512i bb16_odd4(__m512i a, __m512i b) { return _mm512_shuffle_i32x4(a, b, 0xDD); }

#endif
