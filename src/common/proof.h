/* The OpenVM SWIRL proof (stark-backend v2.0.1 `Proof`, proof.rs) in C, and
 * its byte codec (codec version 3; docs/protocol.md,
 * 'Codecs and the verifying key').
 *
 * Field values are held in Montgomery form (bb_t / bb4_t), as everywhere in
 * glstark; the codec converts at the byte boundary. Every array is owned by
 * the struct and released by gs_proof_free. Indices follow OpenVM: "air"
 * means vk order, "trace" means the sorted present-trace order
 * (height descending, then air id). */
#ifndef GS_COMMON_PROOF_H
#define GS_COMMON_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "common/whir.h"
#include "util/error.h"

#define GS_PROOF_CODEC_VERSION 3u

typedef struct gs_digest {
    bb_t v[8];
} gs_digest;

typedef struct gs_ef_vec {
    uint32_t len;
    bb4_t *v;
} gs_ef_vec;

typedef struct gs_trace_vdata {
    uint8_t present;               /* 0: the AIR has no trace (OpenVM `None`) */
    uint32_t log_height;
    uint32_t num_cached;
    gs_digest *cached_commitments; /* [num_cached] */
} gs_trace_vdata;

typedef struct gs_proof_gkr_claims {
    bb4_t p_xi_0, p_xi_1, q_xi_0, q_xi_1; /* encoded in this order; observed p0, q0, p1, q1 */
} gs_proof_gkr_claims;

typedef struct gs_proof_gkr {
    bb_t logup_pow_witness;
    bb4_t q0_claim;
    uint32_t num_layers;                  /* R = len(claims_per_layer) */
    gs_proof_gkr_claims *claims_per_layer; /* [R] */
    /* sumcheck_polys: layer j = 1..R-1 has j rounds of [s(1), s(2), s(3)],
     * stored flat; see gs_proof_gkr_sumcheck(). */
    bb4_t *sumcheck_polys;                /* [3 * R(R-1)/2] */
} gs_proof_gkr;

/* The 3 evaluations of round `round` (0-based, < layer) of GKR layer
 * `layer` (1-based, < R): OpenVM's sumcheck_polys[layer-1][round]. */
static inline bb4_t *gs_proof_gkr_sumcheck(const gs_proof_gkr *g, uint32_t layer, uint32_t round)
{
    size_t base = (size_t)(layer - 1) * layer / 2; /* rounds of layers 1..layer-1 */
    return g->sumcheck_polys + 3 * (base + round);
}

typedef struct gs_column_openings {
    uint32_t num_parts;            /* [common main, preprocessed?, cached_0, ...] */
    gs_ef_vec *parts;              /* each: [col, rot, col, rot, ...] or [col, ...] */
} gs_column_openings;

typedef struct gs_batch_constraint_proof {
    uint32_t num_traces;           /* M = present AIRs */
    bb4_t *numerator_term_per_air;   /* [M], sorted trace order */
    bb4_t *denominator_term_per_air; /* [M] */
    gs_ef_vec univariate_round_coeffs;
    uint32_t n_max;                /* number of multilinear rounds */
    uint32_t round_poly_len;       /* D + 1 evaluations per round (0 if n_max == 0) */
    bb4_t *sumcheck_round_polys;   /* [n_max][round_poly_len] */
    gs_column_openings *column_openings; /* [M] */
} gs_batch_constraint_proof;

typedef struct gs_stacking_proof {
    gs_ef_vec univariate_round_coeffs; /* 2(N-1)+1 */
    uint32_t num_rounds;               /* n_stack */
    bb4_t *sumcheck_round_polys;       /* [num_rounds][2]: s(1), s(2) */
    uint32_t num_commits;
    gs_ef_vec *stacking_openings;      /* [num_commits][stacked width] */
} gs_stacking_proof;

typedef struct gs_proof {
    gs_digest common_main_commit;
    uint32_t num_airs;
    gs_trace_vdata *trace_vdata;   /* [num_airs], vk order */
    uint32_t num_public_value_lists; /* OpenVM len(public_values); a valid proof has num_airs */
    struct gs_pv_list { uint32_t len; bb_t *v; } *public_values; /* [num_public_value_lists] */
    gs_proof_gkr gkr;
    gs_batch_constraint_proof batch;
    gs_stacking_proof stacking;
    gs_whir_proof whir;            /* WHIR sub-proof: struct and codec of whir.h */
} gs_proof;

/* Releases every array and zeroes *p (p itself is caller storage). */
void gs_proof_free(gs_proof *p);
/* Frees the stacking part of a proof (gs_proof_free calls it). */
void gs_stacking_proof_free(gs_stacking_proof *s);

/* Decodes OpenVM proof bytes (Proof::decode_from_bytes): version must be 3,
 * every field element canonical, no trailing bytes. On failure returns
 * GLSTARK_ERR_MALFORMED with "<field> at byte <offset>: <why>" (or
 * OUT_OF_MEMORY) and leaves *out zeroed. Only byte-level validity is checked
 * here; shape checks against a verifying key are the verifier's. */
glstark_status gs_proof_decode(const uint8_t *bytes, size_t len, gs_proof *out, gs_error *err);

/* Encodes p exactly as OpenVM's Proof::encode. *bytes is malloc'd (caller
 * frees). INVALID_ARGUMENT if p has a shape OpenVM cannot encode (e.g.
 * mismatched list lengths the codec leaves implicit). */
glstark_status gs_proof_encode(const gs_proof *p, uint8_t **bytes, size_t *len, gs_error *err);

#endif
