/* WHIR's prepare_f on blocks of 2^l <= 16 entries as one matrix, shared by
 * the engines (src/engine/whir_ops.h defines prepare_f). */
#ifndef GS_ENGINE_WHIR_PREP_H
#define GS_ENGINE_WHIR_PREP_H

#include "field/babybear.h"

/* Largest block size (log2) the matrix form handles. */
#define GS_WHIR_PREP_MAX_LOG 4u

/* prepare_f on one block as an N x N base-field matrix (N = 2^l,
 * l <= GS_WHIR_PREP_MAX_LOG), row-major: the inverse DFT over the order-N
 * subgroup followed by the block's subset sums. Exact arithmetic: applying
 * the matrix equals the two transforms one after the other. */
void gs_whir_prep_matrix(unsigned l, bb_t *mat);

#endif
