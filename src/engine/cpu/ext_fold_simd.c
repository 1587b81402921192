/* 16-lane vector extension folds (ext_fold_simd.h). */
#include "engine/cpu/ext_fold_simd.h"

#define GS_X16_TEMPLATE "engine/cpu/ext_fold_x16.inc"
#include "field/x16_instantiate.h"

/* The columns of the matrix by which r multiplies (X^4 = 11), each repeated
 * for the four elements a vector holds: with w = 11, component k of r x is
 * sum_c cols[c][k] x_c, where cols[c][k] = r_(k-c) for c <= k and
 * w r_(k-c+4) otherwise (bb4_mul's schoolbook product regrouped). */
#if defined(GS_HAVE_X86_SIMD) || defined(GS_HAVE_NEON_SIMD)
static void ext_matrix_columns(bb4_t r, bb_t cols[4][16])
{
    const bb_t w = bb_from_canonical(11);
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) {
            bb_t e = c <= k ? r.c[k - c] : bb_mul(w, r.c[k - c + 4]);
            for (int g = 0; g < 4; g++)
                cols[c][4 * g + k] = e;
        }
}
#endif

static int usable(gs_simd_isa isa) { return isa != GS_SIMD_NONE && gs_simd_available(isa); }

size_t gs_ext_fold_lerp_simd(gs_simd_isa isa, bb4_t *out, const bb4_t *x, size_t n, bb4_t r)
{
    if (!usable(isa))
        return 0;
#if defined(GS_HAVE_X86_SIMD) || defined(GS_HAVE_NEON_SIMD)
    bb_t cols[4][16];
    ext_matrix_columns(r, cols);
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return fold_lerp_avx512(out, x, n, cols);
    return fold_lerp_avx2(out, x, n, cols);
#else
    return fold_lerp_neon(out, x, n, cols);
#endif
#else
    (void)out, (void)x, (void)n, (void)r;
    return 0;
#endif
}

size_t gs_ext_fold_lin_simd(gs_simd_isa isa, bb4_t *out, const bb4_t *x, size_t n, bb4_t a, bb4_t b)
{
    if (!usable(isa))
        return 0;
#if defined(GS_HAVE_X86_SIMD) || defined(GS_HAVE_NEON_SIMD)
    bb_t acols[4][16], bcols[4][16];
    int a_one = bb4_eq(a, bb4_one());
    if (!a_one)
        ext_matrix_columns(a, acols);
    ext_matrix_columns(b, bcols);
    const bb_t(*ac)[16] = a_one ? NULL : (const bb_t(*)[16])acols;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return fold_lin_avx512(out, x, n, ac, (const bb_t(*)[16])bcols);
    return fold_lin_avx2(out, x, n, ac, (const bb_t(*)[16])bcols);
#else
    return fold_lin_neon(out, x, n, ac, (const bb_t(*)[16])bcols);
#endif
#else
    (void)out, (void)x, (void)n, (void)a, (void)b;
    return 0;
#endif
}
