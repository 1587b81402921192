/* The WHIR opening prover (OpenVM stark-backend v2.0.1 SB/prover/whir.rs;
 * see common/whir.h) over the engine's whir, dft and hash families. */
#ifndef GS_PROVE_WHIR_H
#define GS_PROVE_WHIR_H

#include "common/transcript.h"
#include "common/whir.h"

/* What the prover needs of one stacked commitment: the stacked evaluation
 * matrix Q (width columns of 2^L rows, column-major, from element
 * matrix_off of its buffer), the RS codeword matrix the Merkle tree was
 * built from (2^(L+log_blowup) rows, from element codeword_off), and the
 * tree (rows per query 2^k). All stay on the engine. codeword may be NULL:
 * the first round's queries then encode Q again, a third of its columns at a
 * time (the same rows, so the same proof), for a prover that freed the
 * codeword after its Merkle tree to lower its peak memory. */
struct gs_buf;
struct gs_engine;
struct gs_merkle_dev;
typedef struct gs_whir_commit_data {
    const struct gs_buf *matrix;
    size_t matrix_off;
    const struct gs_buf *codeword;
    size_t codeword_off;
    const struct gs_merkle_dev *tree;
    uint32_t width;
} gs_whir_commit_data;

/* The WHIR opening prover (OpenVM's prove_whir_opening) on an engine, with
 * every transcript operation in OpenVM's order. Proof-of-work is ground on
 * the engine (smallest witness). u is u_cube (u_len = l_skip + n_stack).
 * On success *proof is allocated (free with gs_whir_proof_free). */
glstark_status gs_whir_prove(struct gs_engine *eng, struct gs_transcript *ts, const gs_whir_params *params,
                             const gs_whir_commit_data *commits, uint32_t num_commits, const bb4_t *u, size_t u_len,
                             gs_whir_proof *proof, gs_error *err);

#endif
