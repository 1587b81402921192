/* BabyBear Montgomery arithmetic on 16 AVX-512F lanes, values in [0, p),
 * bit-identical to bb_add/bb_sub/bb_mul in babybear.h. Shared by the CPU
 * engine's AVX-512 paths (batched Poseidon2, round 0's column transforms);
 * include only inside an x86-64 GCC/clang guard. The functions carry
 * target("avx512f"), so callers choose them at run time. */
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

/* a*b*2^-32: the low halves of a*b and q*p agree, so the result is the
 * difference of their high halves (plus p if negative). Even lanes come from
 * mul_epu32 directly, odd lanes after a 32-bit shift. */
BB16_FN __m512i bb16_mul(__m512i a, __m512i b)
{
    const __m512i p = _mm512_set1_epi32((int)BB_P), mu = _mm512_set1_epi32((int)BB_MU);
    __m512i pe = _mm512_mul_epu32(a, b);
    __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
    __m512i qpe = _mm512_mul_epu32(_mm512_mul_epu32(pe, mu), p);
    __m512i qpo = _mm512_mul_epu32(_mm512_mul_epu32(po, mu), p);
    __m512i ph = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
    __m512i qh = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(qpe, 32), qpo);
    __m512i d = _mm512_sub_epi32(ph, qh);
    return _mm512_min_epu32(d, _mm512_add_epi32(d, p));
}

#endif
