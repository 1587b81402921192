/* Stacked-matrix layout (docs/protocol.md, 'Stacked PCS'), shared by the prover
 * (to build the stacked matrix and its codeword) and the verifier (to map
 * stacked openings back to trace columns). Pure host logic. */
#ifndef GS_COMMON_STACKING_H
#define GS_COMMON_STACKING_H

#include <stddef.h>
#include <stdint.h>

#include "common/stack_layout.h"
#include "util/error.h"

/* Largest l_skip + n_stack accepted (BabyBear two-adicity). */
#define GS_STACK_MAX_LOG_HEIGHT 27

/* log2 of a trace height; GLSTARK_ERR_INVALID_ARGUMENT if the height is 0 or
 * not a power of two. */
glstark_status gs_stack_log_height(uint64_t height, uint32_t *log_out, gs_error *err);

/* The stacking order of OpenVM's sort_for_stacking: log_height descending,
 * ties by position ascending. Writes the permutation into order[0..n):
 * order[k] = index of the k-th trace to stack. Stable, O(n log n). Fails only
 * on allocation failure. */
glstark_status gs_stack_sort_order(const uint32_t *log_heights, size_t n, uint32_t *order, gs_error *err);

/* Builds the layout of traces given in stacking order (log_height must be
 * non-increasing, each <= l_skip + n_stack). Zero-width traces take no
 * columns; the layout's width may be 0. On success *out owns its arrays;
 * free with gs_stack_layout_free. */
glstark_status gs_stack_layout_build(unsigned l_skip, unsigned n_stack, const gs_stack_trace_shape *shapes,
                                     size_t ntraces, gs_stack_layout *out, gs_error *err);

void gs_stack_layout_free(gs_stack_layout *layout);

#endif
