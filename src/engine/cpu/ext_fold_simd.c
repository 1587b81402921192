/* 16-lane vector extension folds (ext_fold_simd.h). */
#include "engine/cpu/ext_fold_simd.h"

#define GS_X16_TEMPLATE "engine/cpu/ext_fold_x16.inc"
#include "field/x16_instantiate.h"

/* With w = 11 (X^4 = 11), component k of r x is sum_c cols[c][k] x_c, where
 * cols[c][k] = r_(k-c) for c <= k and w r_(k-c+4) otherwise (bb4_mul's
 * schoolbook product regrouped). */
void gs_ext_matrix_of(bb4_t r, gs_ext_matrix *m)
{
    const bb_t w = bb_from_canonical(11);
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) {
            bb_t e = c <= k ? r.c[k - c] : bb_mul(w, r.c[k - c + 4]);
            for (int g = 0; g < 4; g++)
                m->cols[c][4 * g + k] = e;
        }
}

static int usable(gs_simd_isa isa) { return isa != GS_SIMD_NONE && gs_simd_available(isa); }

size_t gs_ext_fold_lerp_simd(gs_simd_isa isa, bb4_t *out, const bb4_t *x, size_t n, const gs_ext_matrix *r)
{
    if (!usable(isa))
        return 0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return fold_lerp_avx512(out, x, n, r->cols);
    return fold_lerp_avx2(out, x, n, r->cols);
#elif defined(GS_HAVE_NEON_SIMD)
    return fold_lerp_neon(out, x, n, r->cols);
#else
    (void)out, (void)x, (void)n, (void)r;
    return 0;
#endif
}

size_t gs_ext_fold_lin_simd(gs_simd_isa isa, bb4_t *out, const bb4_t *x, size_t n, const gs_ext_matrix *a,
                            const gs_ext_matrix *b)
{
    if (!usable(isa))
        return 0;
    const bb_t(*ac)[16] = a ? (const bb_t(*)[16])a->cols : NULL;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return fold_lin_avx512(out, x, n, ac, (const bb_t(*)[16])b->cols);
    return fold_lin_avx2(out, x, n, ac, (const bb_t(*)[16])b->cols);
#elif defined(GS_HAVE_NEON_SIMD)
    return fold_lin_neon(out, x, n, ac, (const bb_t(*)[16])b->cols);
#else
    (void)out, (void)x, (void)n, (void)ac, (void)b;
    return 0;
#endif
}
