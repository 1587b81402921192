/* Batch constraint sumcheck verifier (docs/protocol.md, 'Batch constraint
 * sumcheck with univariate skip'), on the host. */
#ifndef GS_VERIFY_ZEROCHECK_VERIFY_H
#define GS_VERIFY_ZEROCHECK_VERIFY_H

#include "common/fs.h"
#include "common/zerocheck.h"

/* Verifier, T7..T13 and the final check. traces need dag,
 * log_height, n_parts, part_widths and publics.
 * p_claim, q_claim are GKR's p̂(xi), q̂(xi) (0 and alpha without GKR). */
glstark_status gs_batch_verify(gs_fs *fs, const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip,
                               uint32_t max_degree, uint32_t n_logup, const bb4_t *xi, bb4_t alpha, bb4_t beta,
                               bb4_t p_claim, bb4_t q_claim, const gs_batch_proof *pf, bb4_t *r_out, gs_error *err);

#endif
