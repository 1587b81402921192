/* LogUp fractional-sum GKR verifier (docs/protocol.md, 'LogUp GKR'), on the
 * host. */
#ifndef GS_VERIFY_GKR_VERIFY_H
#define GS_VERIFY_GKR_VERIFY_H

#include "common/fs.h"
#include "common/gkr.h"

/* Verifies a GKR proof of R layers; on success writes xi (length R) and the
 * claimed leaf-MLE values p̂(xi), q̂(xi). */
glstark_status gs_gkr_verify(gs_fs *fs, const gs_gkr_proof *pf, uint32_t n_layers, bb4_t *xi,
                             bb4_t *p_claim, bb4_t *q_claim, gs_error *err);

#endif
