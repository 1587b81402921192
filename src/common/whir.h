/* WHIR opening of stacked commitments (OpenVM stark-backend v2.0.1,
 * SB/prover/whir.rs, SB/verifier/whir.rs, SB/proof.rs; notes in
 * docs/protocol.md, 'WHIR').
 *
 * WHIR is exposed with explicit inputs so it can be driven (and tested) on
 * its own: the commitments and their stacked matrices, the point u_cube, the
 * claimed stacked-column values, and a transcript already in the state the
 * stacked reduction left it in.
 *
 * Field values inside these structs are bb_t in Montgomery form; the codec
 * converts to and from canonical bytes. This header holds the parameters,
 * the proof and its codec; the prover is prove/whir.h, the verifier
 * verify/whir_verify.h. */
#ifndef GS_COMMON_WHIR_H
#define GS_COMMON_WHIR_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "common/params.h"
#include "util/error.h"

#define GS_WHIR_PROOF_MAX_ROUNDS 16

/* The WHIR part of SystemParams (SB/config.rs) plus the stacking shape it
 * needs: L = l_skip + n_stack variables, codeword length 2^(L + log_blowup). */
typedef struct gs_whir_params {
    uint32_t l_skip;
    uint32_t n_stack;
    uint32_t log_blowup;
    uint32_t k;                 /* variables folded per WHIR round */
    uint32_t num_rounds;        /* number of WHIR rounds (len of num_queries) */
    uint32_t num_queries[GS_WHIR_PROOF_MAX_ROUNDS];
    uint32_t mu_pow_bits;
    uint32_t folding_pow_bits;
    uint32_t query_phase_pow_bits;
} gs_whir_params;

/* Checks that the parameters describe a WHIR instance glstark can run:
 * at least one round (OpenVM panics on zero rounds), rounds·k ≤ L, pow bits
 * below 32, and a codeword domain within BabyBear's two-adicity. */
glstark_status gs_whir_params_check(const gs_whir_params *p, gs_error *err);

/* WHIR's parameters from SystemParams (both the prover and the verifier run
 * WHIR with these): GLSTARK_ERR_UNSUPPORTED for more than
 * GS_WHIR_PROOF_MAX_ROUNDS rounds, then gs_whir_params_check. */
glstark_status gs_whir_params_of(const gs_system_params *sp, gs_whir_params *out, gs_error *err);

/* Whether a proof for these parameters has an OpenVM encoding the decoder
 * reads back: OpenVM writes the later rounds' Merkle depth as 0 when round 0
 * opens no queries, so a later round with queries would be read at the wrong
 * depth. The prover refuses such parameters (GLSTARK_ERR_UNSUPPORTED) before
 * proving rather than hand back bytes no verifier can read. */
glstark_status gs_whir_params_encodable(const gs_whir_params *p, gs_error *err);

/* A digest as 8 field elements (Montgomery). */
typedef struct gs_whir_digest {
    bb_t v[8];
} gs_whir_digest;

/* OpenVM's WhirProof, with the nested vectors laid out flat:
 *   sumcheck_polys[2·j + {0,1}] = [s(1), s(2)] of sumcheck round j (ν·k rounds)
 *   initial_rows[c][((q·2^k) + t)·widths[c] + col]   (commit c, query q, row t)
 *   initial_proofs[c][(q·initial_merkle_depth + d)]
 *   codeword_values[r-1][q·2^k + t]                 (rounds r = 1..ν-1)
 *   codeword_proofs[r-1][q·depth_r + d], depth_r = first_codeword_merkle_depth - (r-1)
 * num_queries[0] is the initial round's query count (shared by all commits),
 * num_queries[r] for r ≥ 1 the count of codeword_values[r-1]. */
typedef struct gs_whir_proof {
    uint32_t num_rounds;           /* ν = len(codeword_commits) + 1 */
    uint32_t k;                    /* num sumcheck rounds / ν */
    uint32_t num_commits;          /* > 0 */
    bb_t mu_pow_witness;
    bb4_t *sumcheck_polys;         /* 2·ν·k */
    gs_whir_digest *codeword_commits; /* ν-1 */
    bb4_t *ood_values;             /* ν-1 */
    bb_t *folding_pow_witnesses;   /* ν·k */
    bb_t *query_pow_witnesses;     /* ν */
    uint32_t num_queries[GS_WHIR_PROOF_MAX_ROUNDS];
    uint32_t *widths;              /* num_commits */
    uint32_t initial_merkle_depth;
    bb_t **initial_rows;           /* num_commits arrays */
    gs_whir_digest **initial_proofs; /* num_commits arrays */
    uint32_t first_codeword_merkle_depth;
    bb4_t **codeword_values;       /* ν-1 arrays */
    gs_whir_digest **codeword_proofs; /* ν-1 arrays */
    uint32_t final_poly_len;
    bb4_t *final_poly;
} gs_whir_proof;

/* Allocates every array of a proof for the given shape (zero-filled).
 * depth_0 is the initial Merkle depth; codeword round r has depth depth_0 - r. */
glstark_status gs_whir_proof_alloc(gs_whir_proof *p, uint32_t num_rounds, uint32_t k, uint32_t num_commits,
                                   const uint32_t *widths, const uint32_t *num_queries, uint32_t depth_0,
                                   uint32_t final_poly_len, gs_error *err);
void gs_whir_proof_free(gs_whir_proof *p);

/* Byte size of the encoding (OpenVM's WhirProof::encode). */
size_t gs_whir_proof_encoded_size(const gs_whir_proof *p);

/* Writes exactly gs_whir_proof_encoded_size(p) bytes into out (cap bytes
 * available). */
glstark_status gs_whir_proof_encode(const gs_whir_proof *p, uint8_t *out, size_t cap, size_t *written,
                                    gs_error *err);

/* Decodes one WhirProof from the front of bytes[0..len) and reports how many
 * bytes it used in *consumed (a WhirProof is the last part of a Proof, so the
 * caller checks that nothing trails). On failure *p is left empty. */
glstark_status gs_whir_proof_decode(gs_whir_proof *p, const uint8_t *bytes, size_t len, size_t *consumed,
                                    gs_error *err);

/* The same from a reader (common/codec_io.h) at its position, which it
 * leaves after the WhirProof: the proof codec reads its WHIR part so, and
 * messages give offsets in the whole proof. Fields are named
 * "whir_proof.<field>". */
struct gs_reader;
glstark_status gs_whir_proof_read(struct gs_reader *rd, gs_whir_proof *p);

/* The proof-shape checks OpenVM's verifier makes before WHIR
 * (SB/verifier/proof_shape.rs), for a proof about commits of these widths. */
glstark_status gs_whir_proof_check_shape(const gs_whir_proof *p, const gs_whir_params *params,
                                         const uint32_t *widths, uint32_t num_commits, gs_error *err);

#endif
