/* 16-lane vector extension folds (ext_fold_simd.h). */
#include "engine/cpu/ext_fold_simd.h"

#include "engine/cpu/kernels.h"

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

size_t gs_ext_fold_lerp_simd(const gs_cpu_kernels *k, bb4_t *out, const bb4_t *x, size_t n, const gs_ext_matrix *r)
{
    return k && k->ext_fold_lerp ? k->ext_fold_lerp(out, x, n, r->cols) : 0;
}

size_t gs_ext_fold_lin_simd(const gs_cpu_kernels *k, bb4_t *out, const bb4_t *x, size_t n, const gs_ext_matrix *a,
                            const gs_ext_matrix *b)
{
    if (!k || !k->ext_fold_lin)
        return 0;
    return k->ext_fold_lin(out, x, n, a ? (const bb_t(*)[16])a->cols : NULL, (const bb_t(*)[16])b->cols);
}
