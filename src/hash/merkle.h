/* The SWIRL Merkle tree of stark-backend's stacked PCS (docs/protocol.md,
 * 'Stacked PCS'),
 * CPU reference.
 *
 * The committed matrix is column-major with N = height rows (a power of two)
 * and `width` columns; each entry is elem_deg consecutive bb_t (1: base field,
 * 4: extension element, coefficients c0..c3). Entry (c, r) starts at element
 * (c*N + r)*elem_deg. Row r's preimage is every column's entry at r, in column
 * order, extension entries expanded to their coefficients; leaf(r) is its
 * sponge hash.
 *
 * With K = 2^log_k rows per query and S = N/K, the bottom digest layer has one
 * node per coset y < S: the binary compression tree over
 * [leaf(y), leaf(y+S), ..., leaf(y+(K-1)S)] (pairs (t, t+1) first). Upper layers
 * compress adjacent pairs until the root. An opening at y gives those K rows
 * and the log2(S) sibling digests from the bottom layer up.
 *
 * Digest layers are stored contiguously, bottom first: layer j holds S >> j
 * digests of 8 bb_t starting at digest gs_merkle_layer_offset(S, j); the root
 * is the last digest (offset 2S - 2). The same layout is used by engine
 * buffers (src/engine/hash_ops.h). */
#ifndef GS_HASH_MERKLE_H
#define GS_HASH_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "hash/poseidon2.h"
#include "util/error.h"

/* Largest supported height: 2^30 rows. */
#define GS_MERKLE_MAX_LOG_HEIGHT 30u

typedef struct gs_merkle_tree {
    size_t height;     /* N */
    size_t width;      /* columns */
    unsigned elem_deg; /* 1 or 4 */
    unsigned log_k;    /* K = 2^log_k rows per query */
    unsigned depth;    /* log2(S): digests per opening proof */
    bb_t *digests;     /* (2S - 1) * 8 bb_t, layers bottom first */
} gs_merkle_tree;

/* First digest of layer j when the bottom layer has s digests. */
static inline size_t gs_merkle_layer_offset(size_t s, unsigned j) { return 2 * s - ((2 * s) >> j); }

/* Checks a tree shape; on success sets *depth = log2(height) - log_k.
 * Needs height a power of two with 2^log_k <= height <= 2^30, width >= 1,
 * elem_deg 1 or 4, and a row preimage (width * elem_deg) that fits in 32 bits. */
glstark_status gs_merkle_check_shape(size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                                     unsigned *depth, gs_error *err);

/* Number of bb_t the digest layers take: (2S - 1) * 8. Shape must be valid. */
size_t gs_merkle_digest_words(size_t height, unsigned log_k);

/* Computes all digest layers of the matrix into digests (gs_merkle_digest_words
 * bb_t), using up to `threads` threads (0 or 1: the calling thread only). */
glstark_status gs_merkle_build(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                               unsigned threads, bb_t *digests, gs_error *err);

/* Allocating wrapper: fills *tree (free with gs_merkle_tree_free). */
/* The streamed form (engine/hash_ops.h gs_merkle_stream) on the host:
 * states hold 16 words per row, row-major (the first group, c0 = 0, starts
 * every sponge at zero whatever they held).
 * absorb_columns takes columns [c0, c0 + ncols) (c0 a multiple of 8; column
 * c at cols + (c - c0) * height) into every row's sponge; once all columns
 * are in, build_from_states builds the tree merkle_build would have from the
 * whole matrix (leaf r = the first 8 words of row r's state). */
void gs_merkle_absorb_columns(bb_t *states, const bb_t *cols, size_t height, size_t c0, size_t ncols,
                              unsigned threads);
glstark_status gs_merkle_build_from_states(const bb_t *states, size_t height, unsigned log_k, unsigned threads,
                                           bb_t *digests, gs_error *err);

glstark_status gs_merkle_commit(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                                unsigned threads, gs_merkle_tree *tree, gs_error *err);
void gs_merkle_tree_free(gs_merkle_tree *tree);

static inline const bb_t *gs_merkle_root(const gs_merkle_tree *tree)
{
    return tree->digests + gs_merkle_layer_offset((size_t)1 << tree->depth, tree->depth) * GS_DIGEST_LEN;
}

/* Opening at query index idx < S, against the matrix the tree was built
 * from: rows_out gets the K rows y + t*S (t = 0..K-1), each flattened to
 * width*elem_deg bb_t; proof_out gets depth digests, bottom to top. Either
 * output may be NULL. digests is the tree's digest array. */
glstark_status gs_merkle_open(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                              const bb_t *digests, size_t idx, bb_t *rows_out, bb_t *proof_out, gs_error *err);

/* Verifier: rows = K flattened rows of row_len bb_t each (in t order), proof =
 * depth digests. GLSTARK_OK if they hash up to root at index idx,
 * GLSTARK_ERR_REJECTED if not, GLSTARK_ERR_INVALID_ARGUMENT for
 * idx >= 2^depth or bad sizes. (As in stark-backend, the hash of a row does
 * not depend on how its elements split into columns.) */
glstark_status gs_merkle_verify(const bb_t root[GS_DIGEST_LEN], size_t idx, const bb_t *rows, unsigned log_k,
                                size_t row_len, const bb_t *proof, unsigned depth, gs_error *err);

#endif
