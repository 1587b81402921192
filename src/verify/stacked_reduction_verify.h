/* The stacked opening reduction's verifier (docs/protocol.md, 'Stacked
 * reduction'; see common/stacked_reduction.h), on the host. */
#ifndef GS_VERIFY_STACKED_REDUCTION_VERIFY_H
#define GS_VERIFY_STACKED_REDUCTION_VERIFY_H

#include "common/fs.h"
#include "common/stacked_reduction.h"

/* claims: per slice in claim order, [t_k, t_k^rot] (t_rot = 0 without
 * need_rot). Checks the proof's shape against the commits, the round-0 sum
 * (S0Mismatch) and the final sum (FinalSumMismatch); GLSTARK_ERR_REJECTED
 * with a message naming the failed check. Writes u[0..n_stack]. */
glstark_status gs_sred_verify(gs_fs *fs, const gs_stacking_proof *proof, gs_sred_params prm,
                              const gs_sred_commit *commits, uint32_t num_commits, const bb4_t *claims,
                              const bb4_t *r, uint32_t r_len, bb4_t *u, gs_error *err);

#endif
