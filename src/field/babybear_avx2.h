/* BabyBear Montgomery arithmetic on 8 AVX2 lanes, values in [0, p), bit-identical
 * to bb_add/bb_sub/bb_mul in babybear.h. Shared by the CPU engine's SIMD paths
 * (DFT butterflies, batched Poseidon2); include only inside an x86-64 GCC/clang
 * guard. The functions carry target("avx2"), so callers choose them at run time. */
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

/* a*b*2^-32: the low halves of a*b and q*p agree, so the result is the
 * difference of their high halves (plus p if negative). Even lanes come from
 * mul_epu32 directly, odd lanes after a 32-bit shift. */
BB8_FN __m256i bb8_mul(__m256i a, __m256i b)
{
    const __m256i p = _mm256_set1_epi32((int)BB_P), mu = _mm256_set1_epi32((int)BB_MU);
    __m256i pe = _mm256_mul_epu32(a, b);
    __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
    __m256i qpe = _mm256_mul_epu32(_mm256_mul_epu32(pe, mu), p);
    __m256i qpo = _mm256_mul_epu32(_mm256_mul_epu32(po, mu), p);
    __m256i ph = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    __m256i qh = _mm256_blend_epi32(_mm256_srli_epi64(qpe, 32), qpo, 0xAA);
    __m256i d = _mm256_sub_epi32(ph, qh);
    return _mm256_min_epu32(d, _mm256_add_epi32(d, p));
}

#endif
