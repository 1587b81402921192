/* The stacked opening reduction (docs/protocol.md, 'Stacked reduction'; OpenVM v2.0.1
 * prover/stacked_reduction.rs and verifier/stacked_reduction.rs).
 *
 * It reduces the batch-constraint column claims T̂_c(r), T̂_c^rot(r) (one
 * pair per trace column, "slice" k of a stacked matrix) to one claim per
 * stacked column q̂_c(u) at a fresh point u = (u_0, u_1..u_{n_stack}):
 *   λ' = sample_ext
 *   s'_0: 2(N−1)+1 coefficients (observed), u_0 = sample_ext
 *   rounds j = 1..n_stack: s'_j(1), s'_j(2) (observed), u_j = sample_ext
 *   q̂_c(u) for every stacked column of every commit (observed)
 *
 * Claim k (slices enumerated commit by commit, in placement order) is
 * weighted λ'^(2k) and its rotation claim λ'^(2k+1) (rotation only where the
 * AIR has need_rot; the exponent is reserved either way).
 *
 * This header holds what both sides share (the commits' view of the stacked
 * layout and their shape checks), with no engine types; the prover
 * (prove/stacked_reduction.h) takes each commit's matrix next to it, the
 * verifier is verify/stacked_reduction_verify.h. */
#ifndef GS_COMMON_STACKED_REDUCTION_H
#define GS_COMMON_STACKED_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#include "common/proof.h"
#include "common/stack_layout.h"
#include "field/ext4.h"
#include "util/error.h"

/* One commitment's stacked matrix as the reduction sees it (its shape; the
 * prover passes the matrix itself separately). */
typedef struct gs_sred_commit {
    uint32_t width;               /* stacked width (columns of the matrix) */
    uint32_t num_slices;
    const gs_red_slice *slices;   /* in placement order (OpenVM sorted_cols) */
    const uint8_t *need_rot;      /* per slice: does its AIR have need_rot */
} gs_sred_commit;

/* The commit view of a stacked layout built by src/common/stacking.c
 * (gs_stack_layout_build): slices in placement order (= OpenVM's
 * sorted_cols), need_rot taken per layout trace. *slices_out and *rot_out
 * are malloc'd and owned by the caller (out points into them). */
struct gs_stack_layout;
glstark_status gs_sred_commit_from_layout(const struct gs_stack_layout *lay, const uint8_t *need_rot_per_trace,
                                          gs_sred_commit *out, gs_red_slice **slices_out, uint8_t **rot_out,
                                          gs_error *err);

typedef struct gs_sred_params {
    uint32_t l_skip;
    uint32_t n_stack;
} gs_sred_params;

/* The commits' shape checks both sides make: parameters in range, every
 * slice inside its matrix and covered by r (r_len coordinates). Writes the
 * totals over the commits and the largest ñ over slices. */
glstark_status gs_sred_check_commits(gs_sred_params prm, const gs_sred_commit *commits, uint32_t num_commits,
                                     uint32_t r_len, uint32_t *total_width, uint32_t *total_slices, uint32_t *max_nt,
                                     gs_error *err);



#endif
