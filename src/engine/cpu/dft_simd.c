#include "engine/cpu/dft_simd.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GLSTARK_NO_AVX2)
#include "field/babybear_avx2.h"
#include "field/babybear_avx512.h"

#define LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))

__attribute__((target("avx2"))) static size_t run2_avx2(bb_t *x, bb_t *y, const bb_t *w, size_t t, size_t stop)
{
    for (; t + 8 <= stop; t += 8) {
        __m256i u = LD(x + t), v = bb8_mul(LD(y + t), LD(w + t));
        ST(x + t, bb8_add(u, v));
        ST(y + t, bb8_sub(u, v));
    }
    return t;
}

__attribute__((target("avx2"))) static size_t run4_avx2(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1,
                                                        const bb_t *w2, const bb_t *w3, size_t t, size_t stop)
{
    for (; t + 8 <= stop; t += 8) {
        __m256i a1 = LD(w1 + t);
        __m256i x0 = LD(p0 + t), x1 = bb8_mul(LD(p1 + t), a1);
        __m256i x2 = LD(p2 + t), x3 = bb8_mul(LD(p3 + t), a1);
        __m256i y0 = bb8_add(x0, x1), y1 = bb8_sub(x0, x1);
        __m256i z2 = bb8_mul(bb8_add(x2, x3), LD(w2 + t)), z3 = bb8_mul(bb8_sub(x2, x3), LD(w3 + t));
        ST(p0 + t, bb8_add(y0, z2));
        ST(p2 + t, bb8_sub(y0, z2));
        ST(p1 + t, bb8_add(y1, z3));
        ST(p3 + t, bb8_sub(y1, z3));
    }
    return t;
}

/* AVX-512 forms of the two runs: 16 butterflies per step where the CPU has
 * AVX-512F; the AVX2 loops above finish what is left. */
#define LD16(p) _mm512_loadu_si512((const void *)(p))
#define ST16(p, v) _mm512_storeu_si512((void *)(p), (v))

__attribute__((target("avx512f"))) static size_t run2_avx512(bb_t *x, bb_t *y, const bb_t *w, size_t t, size_t stop)
{
    for (; t + 16 <= stop; t += 16) {
        __m512i u = LD16(x + t), v = bb16_mul(LD16(y + t), LD16(w + t));
        ST16(x + t, bb16_add(u, v));
        ST16(y + t, bb16_sub(u, v));
    }
    return t;
}

__attribute__((target("avx512f"))) static size_t run4_avx512(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1,
                                                            const bb_t *w2, const bb_t *w3, size_t t, size_t stop)
{
    for (; t + 16 <= stop; t += 16) {
        __m512i a1 = LD16(w1 + t);
        __m512i x0 = LD16(p0 + t), x1 = bb16_mul(LD16(p1 + t), a1);
        __m512i x2 = LD16(p2 + t), x3 = bb16_mul(LD16(p3 + t), a1);
        __m512i y0 = bb16_add(x0, x1), y1 = bb16_sub(x0, x1);
        __m512i z2 = bb16_mul(bb16_add(x2, x3), LD16(w2 + t)), z3 = bb16_mul(bb16_sub(x2, x3), LD16(w3 + t));
        ST16(p0 + t, bb16_add(y0, z2));
        ST16(p2 + t, bb16_sub(y0, z2));
        ST16(p1 + t, bb16_add(y1, z3));
        ST16(p3 + t, bb16_sub(y1, z3));
    }
    return t;
}

/* The first radix-4 passes (half-sizes 1, 2, 4) have runs shorter than a
 * vector; these versions shuffle whole groups into lanes instead. */
__attribute__((target("avx2"))) static void small_h1(bb_t *a, size_t n, const bb_t *tw)
{
    /* two groups of 4 per vector; twiddles 1, 1 then (1, w_4) */
    const __m256i t2 = _mm256_setr_epi32((int)bb_one(), (int)tw[3], (int)bb_one(), (int)tw[3], (int)bb_one(),
                                         (int)tw[3], (int)bb_one(), (int)tw[3]);
    for (size_t s = 0; s < n; s += 8) {
        __m256i v = LD(a + s);
        __m256i x = _mm256_shuffle_epi32(v, 0xA0), y = _mm256_shuffle_epi32(v, 0xF5); /* [0,0,2,2], [1,1,3,3] */
        __m256i u = _mm256_blend_epi32(bb8_add(x, y), bb8_sub(x, y), 0xAA);              /* y0 y1 y2 y3 */
        __m256i x2 = _mm256_shuffle_epi32(u, 0x44), y2 = _mm256_shuffle_epi32(u, 0xEE); /* [0,1,0,1], [2,3,2,3] */
        y2 = bb8_mul(y2, t2);
        ST(a + s, _mm256_blend_epi32(bb8_add(x2, y2), bb8_sub(x2, y2), 0xCC));
    }
}

__attribute__((target("avx2"))) static void small_h2(bb_t *a, size_t n, const bb_t *tw)
{
    /* one group of 8 per vector: [p0 p1 | p2 p3], two elements each */
    const bb_t *w1 = tw + 2, *w2 = tw + 4, *w3 = tw + 6;
    const __m256i t1 = _mm256_setr_epi32((int)w1[0], (int)w1[1], (int)w1[0], (int)w1[1], (int)w1[0], (int)w1[1],
                                         (int)w1[0], (int)w1[1]);
    const __m256i t23 = _mm256_setr_epi32((int)w2[0], (int)w2[1], (int)w3[0], (int)w3[1], (int)w2[0], (int)w2[1],
                                          (int)w3[0], (int)w3[1]);
    for (size_t s = 0; s < n; s += 8) {
        __m256i v = LD(a + s);
        __m256i x = _mm256_shuffle_epi32(v, 0x44), y = bb8_mul(_mm256_shuffle_epi32(v, 0xEE), t1);
        __m256i u = _mm256_blend_epi32(bb8_add(x, y), bb8_sub(x, y), 0xCC);      /* [y0 y1 | y2 y3] */
        __m256i x2 = _mm256_permute2x128_si256(u, u, 0x00);                    /* [y0 y1 | y0 y1] */
        __m256i y2 = bb8_mul(_mm256_permute2x128_si256(u, u, 0x11), t23);      /* [y2 y3 | y2 y3] */
        ST(a + s, _mm256_blend_epi32(bb8_add(x2, y2), bb8_sub(x2, y2), 0xF0));
    }
}

__attribute__((target("avx2"))) static void small_h4(bb_t *a, size_t n, const bb_t *tw)
{
    /* one group of 16 per two vectors: [p0 | p1], [p2 | p3], four elements each */
    const __m128i w1 = _mm_loadu_si128((const __m128i *)(const void *)(tw + 4));
    const __m256i t1 = _mm256_set_m128i(w1, w1);
    const __m256i t23 = LD(tw + 8); /* [w2 | w3] */
    for (size_t s = 0; s < n; s += 16) {
        __m256i v0 = LD(a + s), v1 = LD(a + s + 8);
        __m256i x = _mm256_permute2x128_si256(v0, v1, 0x20), y = _mm256_permute2x128_si256(v0, v1, 0x31);
        y = bb8_mul(y, t1);
        __m256i lo = bb8_add(x, y), hi = bb8_sub(x, y); /* [y0 | y2], [y1 | y3] */
        __m256i x2 = _mm256_permute2x128_si256(lo, hi, 0x20); /* [y0 | y1] */
        __m256i y2 = bb8_mul(_mm256_permute2x128_si256(lo, hi, 0x31), t23); /* [y2 w2 | y3 w3] */
        ST(a + s, bb8_add(x2, y2));
        ST(a + s + 8, bb8_sub(x2, y2));
    }
}

int gs_dft_simd_available(void) { return __builtin_cpu_supports("avx2"); }

int gs_dft_pass4_small_simd(bb_t *a, size_t n, size_t h, const bb_t *tw)
{
    if (n < 16)
        return 0;
    switch (h) {
    case 1: small_h1(a, n, tw); return 1;
    case 2: small_h2(a, n, tw); return 1;
    case 4: small_h4(a, n, tw); return 1;
    default: return 0;
    }
}

size_t gs_dft_run2_simd(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop)
{
    if (__builtin_cpu_supports("avx512f"))
        t0 = run2_avx512(x, y, w, t0, stop);
    return run2_avx2(x, y, w, t0, stop);
}

size_t gs_dft_run4_simd(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2, const bb_t *w3,
                        size_t t0, size_t stop)
{
    if (__builtin_cpu_supports("avx512f"))
        t0 = run4_avx512(p0, p1, p2, p3, w1, w2, w3, t0, stop);
    return run4_avx2(p0, p1, p2, p3, w1, w2, w3, t0, stop);
}

#elif defined(__aarch64__) && defined(__GNUC__) && !defined(GLSTARK_NO_SIMD)
/* AArch64: the runs 16 butterflies per step on four Advanced SIMD registers
 * (babybear_neon.h); the first radix-4 passes (runs shorter than a vector)
 * stay scalar. */
#include "field/babybear_neon.h"

int gs_dft_simd_available(void) { return 1; }

int gs_dft_pass4_small_simd(bb_t *a, size_t n, size_t h, const bb_t *tw)
{
    (void)a, (void)n, (void)h, (void)tw;
    return 0;
}

size_t gs_dft_run2_simd(bb_t *x, bb_t *y, const bb_t *w, size_t t, size_t stop)
{
    for (; t + 16 <= stop; t += 16) {
        bbn16 u = bbn16_load(x + t), v = bbn16_mul(bbn16_load(y + t), bbn16_load(w + t));
        bbn16_store(x + t, bbn16_add(u, v));
        bbn16_store(y + t, bbn16_sub(u, v));
    }
    return t;
}

size_t gs_dft_run4_simd(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2, const bb_t *w3,
                        size_t t, size_t stop)
{
    for (; t + 16 <= stop; t += 16) {
        bbn16 a1 = bbn16_load(w1 + t);
        bbn16 x0 = bbn16_load(p0 + t), x1 = bbn16_mul(bbn16_load(p1 + t), a1);
        bbn16 x2 = bbn16_load(p2 + t), x3 = bbn16_mul(bbn16_load(p3 + t), a1);
        bbn16 y0 = bbn16_add(x0, x1), y1 = bbn16_sub(x0, x1);
        bbn16 z2 = bbn16_mul(bbn16_add(x2, x3), bbn16_load(w2 + t));
        bbn16 z3 = bbn16_mul(bbn16_sub(x2, x3), bbn16_load(w3 + t));
        bbn16_store(p0 + t, bbn16_add(y0, z2));
        bbn16_store(p2 + t, bbn16_sub(y0, z2));
        bbn16_store(p1 + t, bbn16_add(y1, z3));
        bbn16_store(p3 + t, bbn16_sub(y1, z3));
    }
    return t;
}

#else /* no vector path on this target */

int gs_dft_simd_available(void) { return 0; }

int gs_dft_pass4_small_simd(bb_t *a, size_t n, size_t h, const bb_t *tw)
{
    (void)a, (void)n, (void)h, (void)tw;
    return 0;
}

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
