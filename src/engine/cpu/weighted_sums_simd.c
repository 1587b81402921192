/* 16-lane vector weighted sums of columns (weighted_sums_simd.h). */
#include "engine/cpu/weighted_sums_simd.h"

#define GS_X16_TEMPLATE "engine/cpu/weighted_sums_x16.inc"
#include "field/x16_instantiate.h"

/* 1 if isa names a vector set this CPU runs. */
static int usable(gs_simd_isa isa) { return isa != GS_SIMD_NONE && gs_simd_available(isa); }

size_t gs_ple_fold_simd(gs_simd_isa isa, const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp, bb4_t *dst)
{
    if (!usable(isa) || n > ((size_t)1 << 20))
        return 0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return fold_avx512(m, n, xend, lw_comp, dst);
    return fold_avx2(m, n, xend, lw_comp, dst);
#elif defined(GS_HAVE_NEON_SIMD)
    return fold_neon(m, n, xend, lw_comp, dst);
#else
    (void)m, (void)xend, (void)lw_comp, (void)dst;
    return 0;
#endif
}

int gs_ple_block_sums16_simd(gs_simd_isa isa, const bb_t *m, size_t nx, const bb4_t *e, bb4_t out0[16],
                             bb4_t out1[16])
{
    if (!usable(isa))
        return 0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        block_sums16_avx512(m, nx, e, out0, out1);
    else
        block_sums16_avx2(m, nx, e, out0, out1);
    return 1;
#elif defined(GS_HAVE_NEON_SIMD)
    block_sums16_neon(m, nx, e, out0, out1);
    return 1;
#else
    (void)m, (void)nx, (void)e, (void)out0, (void)out1;
    return 0;
#endif
}

size_t gs_lincomb_rows_simd(gs_simd_isa isa, const bb_t *const *cols, const bb4_t *mu, size_t ncols, size_t r0,
                            size_t r1, bb4_t *out)
{
    if (!usable(isa))
        return r0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return lincomb_avx512(cols, mu, ncols, r0, r1, out);
    return lincomb_avx2(cols, mu, ncols, r0, r1, out);
#elif defined(GS_HAVE_NEON_SIMD)
    return lincomb_neon(cols, mu, ncols, r0, r1, out);
#else
    (void)cols, (void)mu, (void)ncols, (void)r1, (void)out;
    return r0;
#endif
}

int gs_matvec16_blocks_simd(gs_simd_isa isa, const bb_t mat[256], bb4_t *a, size_t nblocks)
{
    if (!usable(isa))
        return 0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        matvec16_avx512(mat, a, nblocks);
    else
        matvec16_avx2(mat, a, nblocks);
    return 1;
#elif defined(GS_HAVE_NEON_SIMD)
    matvec16_neon(mat, a, nblocks);
    return 1;
#else
    (void)mat, (void)a, (void)nblocks;
    return 0;
#endif
}

size_t gs_w_accumulate_simd(gs_simd_isa isa, bb4_t *w, const bb4_t *t0, const bb_t *lo, const bb_t *hi,
                            const bb4_t *gammas, size_t nz, unsigned nlo, unsigned nhi, size_t b0, size_t b1)
{
    if (!usable(isa))
        return b0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return w_accumulate_avx512(w, t0, lo, hi, gammas, nz, nlo, nhi, b0, b1);
    return w_accumulate_avx2(w, t0, lo, hi, gammas, nz, nlo, nhi, b0, b1);
#elif defined(GS_HAVE_NEON_SIMD)
    return w_accumulate_neon(w, t0, lo, hi, gammas, nz, nlo, nhi, b0, b1);
#else
    (void)w, (void)t0, (void)lo, (void)hi, (void)gammas, (void)nz, (void)nlo, (void)nhi, (void)b1;
    return b0;
#endif
}
