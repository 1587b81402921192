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
#include "util/thread_pool.h"

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
 * bb_t) on `workers` (threads 0 or 1: the calling thread only). The digests
 * do not depend on the workers. */
glstark_status gs_merkle_build(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                               gs_workers workers, bb_t *digests, gs_error *err);

/* The streamed form (engine/hash_ops.h gs_merkle_stream) on the host, for
 * the n rows of one row class. `states` holds 8 words per row: the sponge's
 * capacity words between column groups (the overwrite sponge replaces the
 * rate words at every block), the row's leaf digest once its last element
 * is in. absorb_columns takes columns [c0, c0 + ncols) of a width-column
 * matrix from `group` (column c at group + (c - c0) * n; c0 a multiple of
 * group_cols, itself a multiple of 8); c0 = 0 starts every sponge at zero,
 * whatever states held. A short last block (width % 8 = r != 0) keeps the
 * previous permutation's rate words r..7: the call that permutes the block
 * before it writes them into `group` at the columns the short block's
 * missing words would take in the last group (gs_merkle_stream_tail_col),
 * where the short block reads them back, so group must keep those columns
 * between calls. build_bottom_from_leaves then compresses the class's leaves
 * into its bottom digests (see gs_merkle_stream_bottom_index). */
void gs_merkle_absorb_columns(bb_t *states, bb_t *group, size_t n, size_t width, size_t group_cols, size_t c0,
                              size_t ncols, gs_workers workers);
/* Group column where the short last block's word 0 would lie (its words
 * r..7 wait at tail_col + r .. tail_col + 7); meaningless when width % 8 = 0. */
static inline size_t gs_merkle_stream_tail_col(size_t width, size_t group_cols)
{
    return (width & ~(size_t)7) - (width - 1) / group_cols * group_cols;
}
/* Rows of class p (rows r with r % 2^lc = p, at class index r >> lc) form
 * whole cosets when S = height >> log_k is a multiple of 2^lc: coset y' of
 * the class's own tree (n = height >> lc rows, S' = S >> lc) is coset
 * (y' << lc) | p of the whole tree. */
static inline size_t gs_merkle_stream_bottom_index(size_t y, unsigned log_classes, size_t cls)
{
    return (y << log_classes) | cls;
}
/* The row classes (log2) a codeword of `height` rows with blowup 2^log_blowup
 * is committed or re-encoded in: one per coset of the trace-height subgroup
 * when every query coset lies in one (K >= 2 and S a multiple of 2^b), else
 * one class of every row. */
static inline unsigned gs_merkle_stream_log_classes(size_t height, unsigned log_k, unsigned log_blowup)
{
    return log_k >= 1 && (height >> log_k) % ((size_t)1 << log_blowup) == 0 ? log_blowup : 0;
}
/* Words of one column group of a row class, the prover's budget for the
 * streamed commit and for WHIR's re-encoded first queries (64 MiB). */
#define GS_MERKLE_STREAM_GROUP_WORDS ((size_t)16 << 20)
/* The bottom digests of class cls from its n leaves (8 words per row), into
 * the whole tree's bottom layer in digests. */
glstark_status gs_merkle_build_bottom_from_leaves(const bb_t *leaves, size_t n, unsigned log_k, unsigned log_classes,
                                                 size_t cls, gs_workers workers, bb_t *digests, gs_error *err);
/* The layers above the bottom one (every class's bottom digests in place). */
void gs_merkle_build_upper(size_t height, unsigned log_k, gs_workers workers, bb_t *digests);

/* Allocating wrapper: fills *tree (free with gs_merkle_tree_free). */
glstark_status gs_merkle_commit(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                                gs_workers workers, gs_merkle_tree *tree, gs_error *err);
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
