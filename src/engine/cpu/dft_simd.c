/* The CPU DFT's vector kernels (kernels.h): the butterfly runs, written
 * once (dft_runs.inc) and built per vector set at the set's native width,
 * and the x86 shuffles of the first radix-4 passes. The library is built for
 * baseline x86-64; the AVX2 and AVX-512 forms carry target attributes and
 * are used only when kernels.c finds the CPU runs them. Results are the
 * scalar code's words on every path (exact field arithmetic). */
#include "engine/cpu/kernels.h"

#define VEC_CAT_(a, b) a##b
#define VEC_CAT(a, b) VEC_CAT_(a, b)

#ifdef GS_HAVE_X86_SIMD
#include "field/babybear_avx2.h"
#include "field/babybear_avx512.h"

/* AVX-512: 16 butterflies per step, one register. */
#define VEC_T __m512i
#define VEC(op) VEC_CAT(bb16_, op)
#define VEC_LANES 16
#define VEC_KERNEL __attribute__((target("avx512f")))
#define VEC_NAME(name) VEC_CAT(name, _avx512)
#include "engine/cpu/dft_runs.inc"
#undef VEC_T
#undef VEC
#undef VEC_LANES
#undef VEC_KERNEL
#undef VEC_NAME

/* AVX2: 8 per step in one register rather than x16_select.h's 16 in two,
 * because half-size 8 makes runs of 8 that a 16-lane step would leave to
 * scalar code. */
#define VEC_T __m256i
#define VEC(op) VEC_CAT(bb8_, op)
#define VEC_LANES 8
#define VEC_KERNEL __attribute__((target("avx2")))
#define VEC_NAME(name) VEC_CAT(name, _avx2)
#include "engine/cpu/dft_runs.inc"
#undef VEC_T
#undef VEC
#undef VEC_LANES
#undef VEC_KERNEL
#undef VEC_NAME

/* The AVX-512 runs finish a run's last 8 butterflies with one AVX2 step. */
__attribute__((target("avx512f"))) size_t gs_dft_run2_avx512(bb_t *x, bb_t *y, const bb_t *w, size_t t0,
                                                              size_t stop)
{
    return run2_avx2(x, y, w, run2_avx512(x, y, w, t0, stop), stop);
}

__attribute__((target("avx512f"))) size_t gs_dft_run4_avx512(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3,
                                                              const bb_t *w1, const bb_t *w2, const bb_t *w3,
                                                              size_t t0, size_t stop)
{
    return run4_avx2(p0, p1, p2, p3, w1, w2, w3, run4_avx512(p0, p1, p2, p3, w1, w2, w3, t0, stop), stop);
}

__attribute__((target("avx2"))) size_t gs_dft_run2_avx2(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop)
{
    return run2_avx2(x, y, w, t0, stop);
}

__attribute__((target("avx2"))) size_t gs_dft_run4_avx2(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1,
                                                         const bb_t *w2, const bb_t *w3, size_t t0, size_t stop)
{
    return run4_avx2(p0, p1, p2, p3, w1, w2, w3, t0, stop);
}

/* The first radix-4 passes (half-sizes 1, 2, 4) have runs shorter than a
 * vector; these versions shuffle whole groups into lanes instead. They stay
 * AVX2-only, one form for both x86 sets: each shuffle pattern is tied to the
 * 8-lane register (groups of 4 and 8 elements within its 128-bit halves,
 * _mm256_shuffle_epi32, _mm256_permute2x128_si256), so an AVX-512 form would
 * be a different algorithm, not the same loop at another width; and these
 * passes are a small part of a transform. */
__attribute__((target("avx2"))) static void small_h1(bb_t *a, size_t n, const bb_t *tw)
{
    /* two groups of 4 per vector; twiddles 1, 1 then (1, w_4) */
    const __m256i t2 = _mm256_setr_epi32((int)bb_one(), (int)tw[3], (int)bb_one(), (int)tw[3], (int)bb_one(),
                                         (int)tw[3], (int)bb_one(), (int)tw[3]);
    for (size_t s = 0; s < n; s += 8) {
        __m256i v = bb8_load(a + s);
        __m256i x = _mm256_shuffle_epi32(v, 0xA0), y = _mm256_shuffle_epi32(v, 0xF5); /* [0,0,2,2], [1,1,3,3] */
        __m256i u = _mm256_blend_epi32(bb8_add(x, y), bb8_sub(x, y), 0xAA);              /* y0 y1 y2 y3 */
        __m256i x2 = _mm256_shuffle_epi32(u, 0x44), y2 = _mm256_shuffle_epi32(u, 0xEE); /* [0,1,0,1], [2,3,2,3] */
        y2 = bb8_mul(y2, t2);
        bb8_store(a + s, _mm256_blend_epi32(bb8_add(x2, y2), bb8_sub(x2, y2), 0xCC));
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
        __m256i v = bb8_load(a + s);
        __m256i x = _mm256_shuffle_epi32(v, 0x44), y = bb8_mul(_mm256_shuffle_epi32(v, 0xEE), t1);
        __m256i u = _mm256_blend_epi32(bb8_add(x, y), bb8_sub(x, y), 0xCC);      /* [y0 y1 | y2 y3] */
        __m256i x2 = _mm256_permute2x128_si256(u, u, 0x00);                    /* [y0 y1 | y0 y1] */
        __m256i y2 = bb8_mul(_mm256_permute2x128_si256(u, u, 0x11), t23);      /* [y2 y3 | y2 y3] */
        bb8_store(a + s, _mm256_blend_epi32(bb8_add(x2, y2), bb8_sub(x2, y2), 0xF0));
    }
}

__attribute__((target("avx2"))) static void small_h4(bb_t *a, size_t n, const bb_t *tw)
{
    /* one group of 16 per two vectors: [p0 | p1], [p2 | p3], four elements each */
    const __m128i w1 = _mm_loadu_si128((const __m128i *)(const void *)(tw + 4));
    const __m256i t1 = _mm256_set_m128i(w1, w1);
    const __m256i t23 = bb8_load(tw + 8); /* [w2 | w3] */
    for (size_t s = 0; s < n; s += 16) {
        __m256i v0 = bb8_load(a + s), v1 = bb8_load(a + s + 8);
        __m256i x = _mm256_permute2x128_si256(v0, v1, 0x20), y = _mm256_permute2x128_si256(v0, v1, 0x31);
        y = bb8_mul(y, t1);
        __m256i lo = bb8_add(x, y), hi = bb8_sub(x, y); /* [y0 | y2], [y1 | y3] */
        __m256i x2 = _mm256_permute2x128_si256(lo, hi, 0x20); /* [y0 | y1] */
        __m256i y2 = bb8_mul(_mm256_permute2x128_si256(lo, hi, 0x31), t23); /* [y2 w2 | y3 w3] */
        bb8_store(a + s, bb8_add(x2, y2));
        bb8_store(a + s + 8, bb8_sub(x2, y2));
    }
}

int gs_dft_pass4_small_avx2(bb_t *a, size_t n, size_t h, const bb_t *tw)
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
#endif /* GS_HAVE_X86_SIMD */

#ifdef GS_HAVE_NEON_SIMD
/* AArch64: 16 per step on four Advanced SIMD registers (babybear_neon.h);
 * the first radix-4 passes (runs shorter than a vector) stay scalar. */
#include "field/babybear_neon.h"

#define VEC_T bbn16
#define VEC(op) VEC_CAT(bbn16_, op)
#define VEC_LANES 16
#define VEC_KERNEL
#define VEC_NAME(name) VEC_CAT(name, _neon)
#include "engine/cpu/dft_runs.inc"

size_t gs_dft_run2_neon(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop)
{
    return run2_neon(x, y, w, t0, stop);
}

size_t gs_dft_run4_neon(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2, const bb_t *w3,
                        size_t t0, size_t stop)
{
    return run4_neon(p0, p1, p2, p3, w1, w2, w3, t0, stop);
}
#endif /* GS_HAVE_NEON_SIMD */
