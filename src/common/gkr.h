/* LogUp fractional-sum GKR (docs/protocol.md, 'LogUp GKR'): prover over the
 * engine's gkr family, verifier on the host. */
#ifndef GS_COMMON_GKR_H
#define GS_COMMON_GKR_H

#include "engine/gkr_ops.h"
#include "common/fs.h"

typedef struct gs_gkr_layer_claims {
    bb4_t p0, p1, q0, q1; /* p_xi_0, p_xi_1, q_xi_0, q_xi_1 (encoded in this order) */
} gs_gkr_layer_claims;

/* R = l_skip + n_logup layers. sumcheck holds, for layer j = 1..R-1 and
 * round k < j, the triple s(1), s(2), s(3) at 3 * (j(j-1)/2 + k). */
typedef struct gs_gkr_proof {
    bb4_t q0_claim;
    uint32_t n_layers;
    gs_gkr_layer_claims *claims; /* n_layers */
    bb4_t *sumcheck;             /* 3 * n_layers (n_layers - 1) / 2 */
} gs_gkr_proof;

/* Allocates the arrays for R layers (zeroed). */
glstark_status gs_gkr_proof_alloc(gs_gkr_proof *pf, uint32_t n_layers, gs_error *err);
void gs_gkr_proof_free(gs_gkr_proof *pf);

/* n_logup of the input layer: 0 without interactions, else bitlen(total) - l_skip
 * (clamped at 0). */
uint32_t gs_gkr_n_logup(uint64_t total_interactions, uint32_t l_skip);

/* Proves that the fractions (p, q) on 2^R leaves (EF engine buffers, which
 * are clobbered) sum to zero. Writes the proof and the final point xi
 * (length R). Fails with GLSTARK_ERR_UNSATISFIED if the sum is not 0. */
glstark_status gs_gkr_prove(gs_engine *eng, gs_fs *fs, gs_buf *p, gs_buf *q, uint32_t n_layers,
                            gs_gkr_proof *out, bb4_t *xi, gs_error *err);

/* Verifies a GKR proof of R layers; on success writes xi (length R) and the
 * claimed leaf-MLE values p̂(xi), q̂(xi). */
glstark_status gs_gkr_verify(gs_fs *fs, const gs_gkr_proof *pf, uint32_t n_layers, bb4_t *xi,
                             bb4_t *p_claim, bb4_t *q_claim, gs_error *err);

#endif
