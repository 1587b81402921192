/* Copies the LogUp/zerocheck sub-proofs from the form gs_lz_prove produces
 * (logup_zerocheck.h) into the Proof struct the codec writes (proof.h).
 * The sub-protocols were built and tested on their own types; this keeps
 * them unchanged. (The WHIR
 * sub-proof needs no bridge: the Proof holds whir.h's gs_whir_proof.) */
#ifndef GS_PROVE_PROOF_BRIDGE_H
#define GS_PROVE_PROOF_BRIDGE_H

#include "prove/logup_zerocheck.h"
#include "common/proof.h"

/* Copies lz's GKR and batch proof into p->gkr (all but logup_pow_witness) and
 * p->batch. traces give the column-opening part sizes. */
glstark_status gs_bridge_lz_to_proof(const gs_lz_proof *lz, const gs_zc_trace *traces, uint32_t n_traces,
                                     gs_proof *p, gs_error *err);

#endif
