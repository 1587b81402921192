/* Moves sub-proofs between the forms the sub-protocols produce/consume
 * (gs_lz_proof of logup_zerocheck.h, gs_whir_proof of whir.h) and the Proof
 * struct the codec reads and writes (proof.h). The sub-protocols were built
 * and tested on their own types; this keeps them unchanged. (The WHIR
 * sub-proof needs no bridge: the Proof holds whir.h's gs_whir_proof.) */
#ifndef GS_PROTOCOL_PROOF_BRIDGE_H
#define GS_PROTOCOL_PROOF_BRIDGE_H

#include "protocol/logup_zerocheck.h"
#include "protocol/proof.h"

/* Copies lz's GKR and batch proof into p->gkr (all but logup_pow_witness) and
 * p->batch. traces give the column-opening part sizes. */
glstark_status gs_bridge_lz_to_proof(const gs_lz_proof *lz, const gs_zc_trace *traces, uint32_t n_traces,
                                     gs_proof *p, gs_error *err);

/* The reverse, for the verifier: *lz is allocated (gs_lz_proof_free).
 * Fails with GLSTARK_ERR_REJECTED if the proof's batch shape does not match
 * what the traces imply. */
glstark_status gs_bridge_proof_to_lz(const gs_proof *p, const gs_zc_trace *traces, uint32_t n_traces,
                                     uint32_t l_skip, uint32_t max_degree, gs_lz_proof *lz, gs_error *err);


#endif
