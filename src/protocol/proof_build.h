/* Filling the Proof struct (proof.h) from the sub-provers' outputs. The
 * arrays are copied; what the struct held before is released. */
#ifndef GS_PROTOCOL_PROOF_BUILD_H
#define GS_PROTOCOL_PROOF_BUILD_H

#include "protocol/gkr.h"
#include "protocol/proof.h"
#include "protocol/zerocheck.h"

/* GkrProof from the LogUp PoW witness and gkr.h's proof; g = NULL when
 * there are no interactions (q0_claim = 1, no layers, as OpenVM writes). */
glstark_status gs_proof_set_gkr(gs_proof *p, bb_t logup_pow_witness, const gs_gkr_proof *g, gs_error *err);

/* BatchConstraintProof from zerocheck.h's proof: its flattened openings are
 * split per trace into num_parts[t] parts of part_lens[...] entries (all
 * traces' parts in order; gs_batch_part_openings gives each length). */
glstark_status gs_proof_set_batch(gs_proof *p, const gs_batch_proof *b, const uint32_t *num_parts,
                                  const uint32_t *part_lens, gs_error *err);

#endif
