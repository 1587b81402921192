/* Engine family "hash": Poseidon2 row hashing into the SWIRL Merkle tree, Merkle
 * openings, and proof-of-work grinding.
 *
 * The matrix and the digest layers live in engine buffers; only roots,
 * opened rows and paths (small) come back to the host. Layouts are exactly
 * those of src/hash/merkle.h, so every engine produces identical bytes:
 *  - matrix: column-major Montgomery bb_t, entry (c, r) = elem_deg words at
 *    element mat_off + (c*height + r)*elem_deg;
 *  - digests buffer: (2S - 1) * 8 words, layers bottom first, layer j at digest
 *    gs_merkle_layer_offset(S, j), root last, S = height >> log_k. */
#ifndef GS_ENGINE_HASH_OPS_H
#define GS_ENGINE_HASH_OPS_H

#include "engine/engine.h"
#include "hash/merkle.h"
#include "hash/poseidon2.h"

/* A Merkle tree whose digest layers an engine holds. */
typedef struct gs_merkle_dev {
    gs_buf *digests;   /* owned; gs_merkle_dev_release frees it */
    size_t height;     /* N rows */
    size_t width;      /* columns */
    unsigned elem_deg; /* 1 (base field) or 4 (extension) */
    unsigned log_k;    /* rows per query = 2^log_k */
    unsigned depth;    /* log2(N) - log_k = digests per opening proof */
} gs_merkle_dev;

/* A Merkle commitment of a base-field matrix that arrives a group of columns
 * at a time, in order, and is never held whole (the prover encodes its
 * codeword a group at a time when it does not keep it): the overwrite
 * sponge of every row waits in `states` between groups. The tree is the one
 * merkle_commit builds from the whole matrix. */
typedef struct gs_merkle_stream {
    gs_buf *states;    /* owned (gs_merkle_stream_release); the engine's own layout */
    size_t height;     /* N rows */
    size_t width;      /* columns in all */
    unsigned log_k;    /* rows per query = 2^log_k */
    size_t next_col;   /* columns absorbed so far */
} gs_merkle_stream;

typedef struct gs_hash_ops {
    /* Allocates tree->digests and builds every layer from the matrix in mat.
     * Arguments are checked by the wrapper (gs_engine_merkle_commit). */
    glstark_status (*merkle_commit)(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height, size_t width,
                                    unsigned elem_deg, unsigned log_k, gs_merkle_dev *tree);
    /* For each of n query indices (checked < S by the wrapper): the K opened
     * rows into rows_out + q*K*width*elem_deg and the path into
     * proofs_out + q*depth*8 (host arrays; either may be NULL). mat is the
     * buffer the tree was committed from. */
    glstark_status (*merkle_open)(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                  const uint32_t *indices, size_t n, bb_t *rows_out, bb_t *proofs_out);
    /* Optional (NULL: the CPU engine, whose openings are host memory
     * already): merkle_open's rows and paths gathered on the engine into a
     * new buffer *out (rows first, then paths; rows / proofs say which),
     * for a read made later (gs_engine_merkle_open_later). */
    glstark_status (*merkle_gather)(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                    const uint32_t *indices, size_t n, int rows, int proofs, gs_buf **out);
    /* Smallest w in [0, p) with canonical(permute(st with cell absorb_idx := w)[7])
     * divisible by 2^bits (bits 1..30, absorb_idx < 8; checked by the wrapper).
     * A GPU searches ordered batches and returns the minimum of the first
     * batch that holds a valid witness. */
    glstark_status (*grind)(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                            uint32_t *witness);
    /* Streamed commitment (gs_merkle_stream; checked by the wrappers):
     * stream_begin allocates ms->states; stream_columns absorbs columns
     * [ms->next_col, ms->next_col + ncols), column c at element
     * cols_off + (c - ms->next_col) * height of cols, and when they are the
     * last ones builds the tree into *tree. NULL in an engine without them. */
    glstark_status (*stream_begin)(gs_engine *eng, gs_merkle_stream *ms);
    glstark_status (*stream_columns)(gs_engine *eng, gs_merkle_stream *ms, const gs_buf *cols, size_t cols_off,
                                     size_t ncols, gs_merkle_dev *tree);
} gs_hash_ops;

/* Checked wrappers (src/engine/hash.c). They return GLSTARK_ERR_UNSUPPORTED
 * when the engine has no hash family and leave the message in eng->err. */
glstark_status gs_engine_merkle_commit(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height,
                                       size_t width, unsigned elem_deg, unsigned log_k, gs_merkle_dev *tree);
/* Reads the root (8 Montgomery words) back to the host. */
glstark_status gs_engine_merkle_root(gs_engine *eng, const gs_merkle_dev *tree, bb_t root[GS_DIGEST_LEN]);
glstark_status gs_engine_merkle_open(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                     const uint32_t *indices, size_t n, bb_t *rows_out, bb_t *proofs_out);
/* gs_engine_merkle_open for results no challenge depends on: where the
 * engine gathers on the device, the rows and paths are read with the host's
 * next read (engine/read_later.h; the caller flushes before it returns),
 * else at once. Opened row i (of n * K, each width * elem_deg words) goes
 * to rows_out + i * row_stride words (row_stride >= width * elem_deg, so a
 * column group can land inside wider rows); paths as merkle_open. */
glstark_status gs_engine_merkle_open_later(gs_engine *eng, const gs_buf *mat, size_t mat_off,
                                           const gs_merkle_dev *tree, const uint32_t *indices, size_t n,
                                           bb_t *rows_out, size_t row_stride, bb_t *proofs_out);
void gs_merkle_dev_release(gs_merkle_dev *tree);
/* Starts a streamed commitment of a height x width base-field matrix. */
glstark_status gs_engine_merkle_stream_begin(gs_engine *eng, size_t height, size_t width, unsigned log_k,
                                             gs_merkle_stream *ms);
/* Absorbs the next ncols columns (a multiple of 8, the sponge's rate, except
 * for the group that ends the rows); after the last group *tree holds the
 * commitment and the states are released. */
glstark_status gs_engine_merkle_stream_columns(gs_engine *eng, gs_merkle_stream *ms, const gs_buf *cols,
                                               size_t cols_off, size_t ncols, gs_merkle_dev *tree);
void gs_merkle_stream_release(gs_merkle_stream *ms);
glstark_status gs_engine_grind(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                               uint32_t *witness);

/* Same shape as gs_grind_fn (src/common/transcript.h) with ctx = the
 * gs_engine: pass it to gs_transcript_grind to grind on an engine. Copies
 * the engine's error into err on failure. */
glstark_status gs_engine_grind_fn(void *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                                  uint32_t *witness, gs_error *err);

#endif
