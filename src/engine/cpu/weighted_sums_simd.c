/* AVX-512 weighted sums of columns (weighted_sums_simd.h). */
#include "engine/cpu/weighted_sums_simd.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GLSTARK_NO_SIMD)
#include "field/babybear_avx512.h"

int gs_weighted_sums_simd_available(void) { return __builtin_cpu_supports("avx512f"); }

__attribute__((target("avx512f"))) static size_t fold_avx512(const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp,
                                                            bb4_t *dst)
{
    const __m512i vidx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                            _mm512_set1_epi32((int)n));
    size_t x = 0;
    for (; x + 16 <= xend; x += 16) {
        __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512()};
        const bb_t *base = m + x * n;
        for (size_t k = 0; k < n; k++) {
            __m512i v = _mm512_i32gather_epi32(vidx, (const void *)(base + k), 4);
            for (int j = 0; j < 4; j++)
                acc[j] = bb16_add(acc[j], bb16_mul(v, _mm512_set1_epi32((int)lw_comp[(size_t)j * n + k])));
        }
        uint32_t out[4][16];
        for (int j = 0; j < 4; j++)
            _mm512_storeu_si512(out[j], acc[j]);
        for (int l = 0; l < 16; l++)
            for (int j = 0; j < 4; j++)
                dst[x + (size_t)l].c[j] = out[j][l];
    }
    return x;
}

size_t gs_ple_fold_simd(const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp, bb4_t *dst)
{
    if (!gs_weighted_sums_simd_available() || n > ((size_t)1 << 20))
        return 0;
    return fold_avx512(m, n, xend, lw_comp, dst);
}

__attribute__((target("avx512f"))) static void block_sums16_avx512(const bb_t *m, size_t nx, const bb4_t *e,
                                                                  bb4_t out0[16], bb4_t out1[16])
{
    __m512i a0[4], a1[4];
    for (int j = 0; j < 4; j++)
        a0[j] = a1[j] = _mm512_setzero_si512();
    for (size_t x = 0; x < nx; x++) {
        __m512i v = _mm512_loadu_si512((const void *)(m + 16 * x));
        const bb4_t ec = e[x], ep = e[x == 0 ? nx - 1 : x - 1];
        for (int j = 0; j < 4; j++) {
            a0[j] = bb16_add(a0[j], bb16_mul(v, _mm512_set1_epi32((int)ec.c[j])));
            a1[j] = bb16_add(a1[j], bb16_mul(v, _mm512_set1_epi32((int)ep.c[j])));
        }
    }
    uint32_t o0[4][16], o1[4][16];
    for (int j = 0; j < 4; j++) {
        _mm512_storeu_si512(o0[j], a0[j]);
        _mm512_storeu_si512(o1[j], a1[j]);
    }
    for (int z = 0; z < 16; z++)
        for (int j = 0; j < 4; j++) {
            out0[z].c[j] = o0[j][z];
            out1[z].c[j] = o1[j][z];
        }
}

int gs_ple_block_sums16_simd(const bb_t *m, size_t nx, const bb4_t *e, bb4_t out0[16], bb4_t out1[16])
{
    if (!gs_weighted_sums_simd_available())
        return 0;
    block_sums16_avx512(m, nx, e, out0, out1);
    return 1;
}

__attribute__((target("avx512f"))) static size_t lincomb_avx512(const bb_t *const *cols, const bb4_t *mu, size_t ncols,
                                                                size_t r0, size_t r1, bb4_t *out)
{
    size_t r = r0;
    for (; r + 16 <= r1; r += 16) {
        __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512()};
        for (size_t j = 0; j < ncols; j++) {
            __m512i v = _mm512_loadu_si512((const void *)(cols[j] + r));
            for (int k = 0; k < 4; k++)
                acc[k] = bb16_add(acc[k], bb16_mul(v, _mm512_set1_epi32((int)mu[j].c[k])));
        }
        uint32_t o[4][16];
        for (int k = 0; k < 4; k++)
            _mm512_storeu_si512(o[k], acc[k]);
        for (int l = 0; l < 16; l++)
            for (int k = 0; k < 4; k++)
                out[r + (size_t)l].c[k] = o[k][l];
    }
    return r;
}

size_t gs_lincomb_rows_simd(const bb_t *const *cols, const bb4_t *mu, size_t ncols, size_t r0, size_t r1, bb4_t *out)
{
    if (!gs_weighted_sums_simd_available())
        return r0;
    return lincomb_avx512(cols, mu, ncols, r0, r1, out);
}

__attribute__((target("avx512f"))) static void matvec16_avx512(const bb_t mat[256], bb4_t *a, size_t nblocks)
{
    __m512i colk[16]; /* column k of the matrix: lane r = mat[16 r + k] */
    for (int k = 0; k < 16; k++) {
        uint32_t c[16];
        for (int r = 0; r < 16; r++)
            c[r] = mat[16 * r + k];
        colk[k] = _mm512_loadu_si512(c);
    }
    for (size_t b = 0; b < nblocks; b++) {
        bb4_t *x = a + 16 * b;
        __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512()};
        for (int k = 0; k < 16; k++)
            for (int j = 0; j < 4; j++)
                acc[j] = bb16_add(acc[j], bb16_mul(colk[k], _mm512_set1_epi32((int)x[k].c[j])));
        uint32_t o[4][16];
        for (int j = 0; j < 4; j++)
            _mm512_storeu_si512(o[j], acc[j]);
        for (int r = 0; r < 16; r++)
            for (int j = 0; j < 4; j++)
                x[r].c[j] = o[j][r];
    }
}

int gs_matvec16_blocks_simd(const bb_t mat[256], bb4_t *a, size_t nblocks)
{
    if (!gs_weighted_sums_simd_available())
        return 0;
    matvec16_avx512(mat, a, nblocks);
    return 1;
}

#else

int gs_matvec16_blocks_simd(const bb_t mat[256], bb4_t *a, size_t nblocks)
{
    (void)mat, (void)a, (void)nblocks;
    return 0;
}

size_t gs_lincomb_rows_simd(const bb_t *const *cols, const bb4_t *mu, size_t ncols, size_t r0, size_t r1, bb4_t *out)
{
    (void)cols, (void)mu, (void)ncols, (void)r1, (void)out;
    return r0;
}

int gs_weighted_sums_simd_available(void) { return 0; }

size_t gs_ple_fold_simd(const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp, bb4_t *dst)
{
    (void)m, (void)n, (void)xend, (void)lw_comp, (void)dst;
    return 0;
}

int gs_ple_block_sums16_simd(const bb_t *m, size_t nx, const bb4_t *e, bb4_t out0[16], bb4_t out1[16])
{
    (void)m, (void)nx, (void)e, (void)out0, (void)out1;
    return 0;
}

#endif
