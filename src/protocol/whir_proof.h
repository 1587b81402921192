/* The WHIR sub-proof of an OpenVM proof (stark-backend v2.0.1 `WhirProof`)
 * and its byte codec (codec version 3, part of the Proof encoding).
 *
 * Kept separate from proof.h so the WHIR prover/verifier (whir*.c) can fill
 * and read it without depending on the rest of the Proof struct.
 *
 * All field values are held in Montgomery form (bb_t); the codec converts
 * to and from the canonical u32 LE values on the wire. Shapes:
 *   nu = num_codeword_commits + 1 WHIR rounds, k = num_sumcheck_rounds / nu,
 *   R = 2^k rows per query. */
#ifndef GS_PROTOCOL_WHIR_PROOF_H
#define GS_PROTOCOL_WHIR_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "protocol/codec_io.h"
#include "util/error.h"

typedef struct gs_digest {
    bb_t v[8];
} gs_digest;

/* One non-initial WHIR round's query answers: the 2^k EF values of the
 * previous round's codeword at each queried coset, and their Merkle paths. */
typedef struct gs_whir_round_queries {
    uint32_t num_queries;
    bb4_t *values;             /* [num_queries][2^k] */
    uint32_t merkle_depth;     /* digests per path in this round */
    gs_digest *merkle_proofs;  /* [num_queries][merkle_depth], sibling digests bottom to top */
} gs_whir_round_queries;

typedef struct gs_whir_subproof {
    bb_t mu_pow_witness;
    uint32_t num_sumcheck_rounds;      /* nu * k */
    bb4_t *sumcheck_polys;             /* [num_sumcheck_rounds][2]: s(1), s(2) */
    uint32_t num_codeword_commits;     /* nu - 1 */
    gs_digest *codeword_commits;       /* [nu - 1] */
    bb4_t *ood_values;                 /* [nu - 1] */
    bb_t *folding_pow_witnesses;       /* [num_sumcheck_rounds] */
    bb_t *query_phase_pow_witnesses;   /* [nu] */
    uint32_t k;                        /* num_sumcheck_rounds / nu (derived) */

    /* Initial round: per committed stacked matrix, per query, 2^k rows of
     * that matrix's stacked width (base field), plus its Merkle path. */
    uint32_t num_commits;              /* > 0 */
    uint32_t initial_num_queries;
    uint32_t initial_merkle_depth;     /* 0 when initial_num_queries == 0 */
    uint32_t *widths;                  /* [num_commits]; 0 when there are no queries */
    bb_t **initial_rows;               /* [num_commits] -> [num_queries][2^k][width_c] */
    gs_digest **initial_merkle_proofs; /* [num_commits] -> [num_queries][initial_merkle_depth] */

    /* Rounds 1..nu-1 (nu - 1 entries). */
    gs_whir_round_queries *rounds;

    uint32_t final_poly_len;
    bb4_t *final_poly;                 /* coefficients, ascending */
} gs_whir_subproof;

/* Frees every array of p and zeroes it (p itself is caller storage). */
void gs_whir_subproof_free(gs_whir_subproof *p);

/* Decodes a WhirProof at the reader's position. On failure returns
 * GLSTARK_ERR_MALFORMED (or OUT_OF_MEMORY) naming the field and byte offset,
 * and leaves *out freed. Mirrors OpenVM's `impl Decode for WhirProof`. */
glstark_status gs_whir_subproof_decode(gs_reader *rd, gs_whir_subproof *out);

/* Appends OpenVM's `impl Encode for WhirProof` bytes of p to w. Fails with
 * INVALID_ARGUMENT on an unencodable shape (num_commits == 0, or
 * num_sumcheck_rounds not a multiple of nu). */
glstark_status gs_whir_subproof_encode(const gs_whir_subproof *p, gs_writer *w);

#endif
