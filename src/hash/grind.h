/* Proof-of-work grinding on the sponge state (docs/protocol.md, 'Transcript and proof of work'),
 * CPU reference. The transcript (src/common/transcript.h) calls a grinder
 * through gs_grind_fn; engines provide theirs through the hash family
 * (src/engine/hash_ops.h, gs_engine_grind_fn). */
#ifndef GS_HASH_GRIND_H
#define GS_HASH_GRIND_H

#include <stdint.h>

#include "field/babybear.h"
#include "hash/poseidon2.h"
#include "util/error.h"

#define GS_POW_MAX_BITS 30u

/* A grinder finds the SMALLEST w in [0, p) such that, starting from the
 * sponge state st with absorb_idx pending observes, writing w into cell
 * absorb_idx and permuting gives canonical(st'[7]) & (2^bits - 1) == 0.
 * (That is exactly check_witness on a copy of the transcript: either the
 * observe fills the rate and permutes, or the following sample does.)
 * bits is 1..30. Returns GLSTARK_OK with *w set, or a status. GPU engines
 * plug in through the hash family (src/engine/hash_ops.h: grind). */
typedef glstark_status (*gs_grind_fn)(void *ctx, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx,
                                      unsigned bits, uint32_t *w, gs_error *err);

/* The CPU reference grinder: ctx may be NULL (one thread) or point to an
 * unsigned thread count. Searches ordered batches of candidates; within the
 * first batch holding a valid witness it returns the minimum. */
glstark_status gs_grind_cpu(void *ctx, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                            uint32_t *w, gs_error *err);

/* Does w pass for this sponge state (no transcript change)? */
int gs_pow_witness_ok(const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t w);

#endif
