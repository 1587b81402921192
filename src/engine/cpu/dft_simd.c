#include "engine/cpu/dft_simd.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GLSTARK_NO_AVX2)
#include <immintrin.h>

#define V_FN static inline __attribute__((target("avx2"), always_inline))

/* Montgomery arithmetic on 8 lanes, all values in [0, p). min_epu32 picks
 * the reduced one of s and s - p (or d and d + p) without a compare. */
V_FN __m256i v_add(__m256i a, __m256i b)
{
    __m256i s = _mm256_add_epi32(a, b);
    return _mm256_min_epu32(s, _mm256_sub_epi32(s, _mm256_set1_epi32((int)BB_P)));
}

V_FN __m256i v_sub(__m256i a, __m256i b)
{
    __m256i d = _mm256_sub_epi32(a, b);
    return _mm256_min_epu32(d, _mm256_add_epi32(d, _mm256_set1_epi32((int)BB_P)));
}

/* a*b*2^-32: the low halves of a*b and q*p agree, so the result is the
 * difference of their high halves (plus p if negative). Even lanes come from
 * mul_epu32 directly, odd lanes after a 32-bit shift. */
V_FN __m256i v_mul(__m256i a, __m256i b)
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

#define LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))

__attribute__((target("avx2"))) static size_t run2_avx2(bb_t *x, bb_t *y, const bb_t *w, size_t t, size_t stop)
{
    for (; t + 8 <= stop; t += 8) {
        __m256i u = LD(x + t), v = v_mul(LD(y + t), LD(w + t));
        ST(x + t, v_add(u, v));
        ST(y + t, v_sub(u, v));
    }
    return t;
}

__attribute__((target("avx2"))) static size_t run4_avx2(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1,
                                                        const bb_t *w2, const bb_t *w3, size_t t, size_t stop)
{
    for (; t + 8 <= stop; t += 8) {
        __m256i a1 = LD(w1 + t);
        __m256i x0 = LD(p0 + t), x1 = v_mul(LD(p1 + t), a1);
        __m256i x2 = LD(p2 + t), x3 = v_mul(LD(p3 + t), a1);
        __m256i y0 = v_add(x0, x1), y1 = v_sub(x0, x1);
        __m256i z2 = v_mul(v_add(x2, x3), LD(w2 + t)), z3 = v_mul(v_sub(x2, x3), LD(w3 + t));
        ST(p0 + t, v_add(y0, z2));
        ST(p2 + t, v_sub(y0, z2));
        ST(p1 + t, v_add(y1, z3));
        ST(p3 + t, v_sub(y1, z3));
    }
    return t;
}

int gs_dft_simd_available(void) { return __builtin_cpu_supports("avx2"); }

size_t gs_dft_run2_simd(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop)
{
    return run2_avx2(x, y, w, t0, stop);
}

size_t gs_dft_run4_simd(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2, const bb_t *w3,
                        size_t t0, size_t stop)
{
    return run4_avx2(p0, p1, p2, p3, w1, w2, w3, t0, stop);
}

#else /* no vector path on this target */

int gs_dft_simd_available(void) { return 0; }

size_t gs_dft_run2_simd(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop)
{
    (void)x, (void)y, (void)w, (void)stop;
    return t0;
}

size_t gs_dft_run4_simd(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2, const bb_t *w3,
                        size_t t0, size_t stop)
{
    (void)p0, (void)p1, (void)p2, (void)p3, (void)w1, (void)w2, (void)w3, (void)stop;
    return t0;
}
#endif
