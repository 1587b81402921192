/* 16-lane vector weighted sums of columns (weighted_sums_simd.h). */
#include "engine/cpu/weighted_sums_simd.h"

#include "engine/cpu/kernels.h"

#define GS_X16_TEMPLATE "engine/cpu/weighted_sums_x16.inc"
#include "field/x16_instantiate.h"

size_t gs_ple_fold_simd(const gs_cpu_kernels *k, const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp, bb4_t *dst)
{
    if (!k || !k->ple_fold || n > ((size_t)1 << 20))
        return 0;
    return k->ple_fold(m, n, xend, lw_comp, dst);
}

int gs_ple_block_sums16_simd(const gs_cpu_kernels *k, const bb_t *m, size_t nx, const bb4_t *e, bb4_t out0[16],
                             bb4_t out1[16])
{
    if (!k || !k->ple_block_sums16)
        return 0;
    k->ple_block_sums16(m, nx, e, out0, out1);
    return 1;
}

size_t gs_lincomb_rows_simd(const gs_cpu_kernels *k, const bb_t *const *cols, const bb4_t *mu, size_t ncols,
                            size_t r0, size_t r1, bb4_t *out)
{
    return k && k->lincomb_rows ? k->lincomb_rows(cols, mu, ncols, r0, r1, out) : r0;
}

int gs_matvec16_blocks_simd(const gs_cpu_kernels *k, const bb_t mat[256], bb4_t *a, size_t nblocks)
{
    if (!k || !k->matvec16_blocks)
        return 0;
    k->matvec16_blocks(mat, a, nblocks);
    return 1;
}

size_t gs_w_accumulate_simd(const gs_cpu_kernels *k, bb4_t *w, const bb4_t *t0, const bb_t *lo, const bb_t *hi,
                            const bb4_t *gammas, size_t nz, unsigned nlo, unsigned nhi, size_t b0, size_t b1)
{
    return k && k->w_accumulate ? k->w_accumulate(w, t0, lo, hi, gammas, nz, nlo, nhi, b0, b1) : b0;
}
