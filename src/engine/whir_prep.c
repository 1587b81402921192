/* See whir_prep.h. */
#include "engine/whir_prep.h"

void gs_whir_prep_matrix(unsigned l, bb_t *mat)
{
    const uint32_t N = 1u << l;
    bb_t col[16];
    bb_t wi = bb_inv(bb_two_adic_generator(l)), ninv = bb_inv(bb_from_canonical(N));
    for (uint32_t j = 0; j < N; j++) {
        /* column j: the map applied to the unit vector e_j */
        bb_t wj = bb_pow(wi, j), x = ninv;
        for (uint32_t k = 0; k < N; k++) {
            col[k] = x; /* inverse DFT: N^-1 w^-jk */
            x = bb_mul(x, wj);
        }
        /* the block's subset sums */
        for (uint32_t h = 1; h < N; h <<= 1)
            for (uint32_t k = 0; k < N; k++)
                if (k & h)
                    col[k] = bb_add(col[k], col[k ^ h]);
        for (uint32_t k = 0; k < N; k++)
            mat[k * N + j] = col[k];
    }
}
