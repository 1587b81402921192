/* The Reed-Solomon message of 16-row blocks (l_skip = 4, the OpenVM
 * parameters) with one block in a 16-lane vector: the CPU engine turns every
 * 16 stacked values into c[a] = 2^-4 sum_z v[z] w^-az (the block's
 * polynomial coefficients) and then msg[t] = sum over a subset of t of c[a]
 * (docs/protocol.md, 'Stacked PCS'), 2^17 blocks per stacked column for keccakf.
 * Done one element at a time this was a bit reversal, four butterfly layers
 * and four subset-sum layers per block through memory.
 *
 * In the vector: the inverse DFT as decimation in frequency (natural order
 * in, coefficients out in bit-reversed lane order), the subset sums on that
 * order (a subset of t is a subset of rev(t) reversed, so the sums need no
 * reordering), the scaling, and one lane permutation back to natural order.
 * AVX-512F and AVX2 from one template (rs_block16_x16.inc); the words equal
 * the plain C path's (exact field arithmetic). */
#ifndef GS_ENGINE_CPU_RS_BLOCK16_H
#define GS_ENGINE_CPU_RS_BLOCK16_H

#include <stddef.h>

#include "field/babybear.h"

struct gs_cpu_kernels; /* kernels.h */

typedef struct gs_rs_block16 {
    bb_t lanes[4 * 16]; /* per inverse layer, each lane's twiddle (1 on lanes that take a + b) */
    bb_t scale;         /* 2^-4 */
} gs_rs_block16;

void gs_rs_block16_init(gs_rs_block16 *p);

/* In place: nblocks consecutive blocks of 16 words, each replaced by its RS
 * message block. Returns 1 if done, 0 (nothing touched) if k is NULL or has
 * no vector form. */
int gs_rs_block16_run(const gs_rs_block16 *p, const struct gs_cpu_kernels *k, bb_t *x, size_t nblocks);

#endif
