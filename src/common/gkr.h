/* LogUp fractional-sum GKR (docs/protocol.md, 'LogUp GKR'): the proof and
 * its shape. The prover is prove/gkr.h, the verifier verify/gkr_verify.h. */
#ifndef GS_COMMON_GKR_H
#define GS_COMMON_GKR_H

#include <stdint.h>

#include "field/ext4.h"
#include "util/error.h"

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

/* The three sums of round k (< j) of layer j's sumcheck: layer j's rounds
 * follow layers 1 .. j-1's, which hold j (j - 1) / 2 rounds in all. */
static inline bb4_t *gs_gkr_round_sums(const gs_gkr_proof *pf, uint32_t j, uint32_t k)
{
    return &pf->sumcheck[3 * ((size_t)j * (j - 1) / 2 + k)];
}

/* Allocates the arrays for R layers (zeroed). */
glstark_status gs_gkr_proof_alloc(gs_gkr_proof *pf, uint32_t n_layers, gs_error *err);
void gs_gkr_proof_free(gs_gkr_proof *pf);

/* n_logup of the input layer: 0 without interactions, else bitlen(total) - l_skip
 * (clamped at 0). */
uint32_t gs_gkr_n_logup(uint64_t total_interactions, uint32_t l_skip);

#endif
