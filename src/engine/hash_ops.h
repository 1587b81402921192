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

#include "engine/challenge.h"
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

/* A Merkle commitment of a height x width base-field matrix that is never
 * held whole (the prover encodes its codeword a piece at a time when it does
 * not keep it). The rows come in 2^log_classes row classes, in order: class
 * p is the rows r with r % 2^log_classes = p, row r at class index
 * r >> log_classes (class_rows of them), so a class of a codeword is one
 * coset of its domain's subgroup and encodes on its own. Within a class the
 * columns come in order, group_cols at a time (the last group shorter): the
 * caller writes a group into `group` (column j of the group at element
 * j * class_rows) and calls stream_columns, which absorbs it into every
 * class row's sponge. Between groups a row keeps only the sponge's 8
 * capacity words; the few rate words a short last block needs wait in
 * unused columns of `group` (src/hash/merkle.h), so the peak is 8 +
 * group_cols words per class row. Each class ends with its cosets' bottom
 * digests, the last one with the upper layers: the tree merkle_commit builds
 * from the whole matrix. */
typedef struct gs_merkle_stream {
    gs_buf *states;     /* 8 words per class row, the engine's layout (stream_begin) */
    gs_buf *group;      /* group_cols columns of class_rows words: the caller fills it */
    gs_buf *digests;    /* the tree's layers; the bottom one filled class by class */
    size_t height;      /* N rows in all */
    size_t width;       /* columns */
    size_t group_cols;  /* a multiple of 8 */
    size_t class_rows;  /* height >> log_classes */
    unsigned log_k;     /* rows per query = 2^log_k */
    unsigned log_classes;
    size_t cls;         /* the class being absorbed */
    size_t next_col;    /* its columns absorbed so far */
    /* One stream of a set made by gs_engine_merkle_stream_begin_classes:
     * it absorbs class `cls` only and is released when the class ends; the
     * set shares one digests buffer, which the last class's stream owns and
     * hands to the tree (shared_digests: this stream does not own it). */
    int one_class;
    int shared_digests;
} gs_merkle_stream;

/* A transcript step the engine's sponge runs (engine/challenge.h), exactly
 * as common/transcript.h would: observe the n_obs extension elements of src
 * from element src_index; then, with pow_bits > 0, the smallest proof-of-work
 * witness (gs_transcript_grind), written canonical as word witness_index of
 * witness; then sample one extension element into element dst_index of
 * dst. */
#define GS_SPONGE_POW_MAX_BITS 8u /* a serial search on one GPU thread */
typedef struct gs_sponge_step {
    const gs_buf *src;
    size_t src_index;
    uint32_t n_obs;
    unsigned pow_bits;
    gs_buf *witness;
    size_t witness_index;
    gs_buf *dst;
    size_t dst_index;
} gs_sponge_step;

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
    /* One transcript step on the engine's sponge (gs_sponge_step), on the
     * state in `state` (GS_SPONGE_WORDS words, updated in place). Nothing
     * returns to the host. Checked by gs_engine_sponge_step. */
    glstark_status (*sponge_step)(gs_engine *eng, gs_buf *state, const gs_sponge_step *step);
    /* Streamed commitment (gs_merkle_stream; checked by the wrappers):
     * stream_begin allocates ms->states; stream_columns absorbs columns
     * [ms->next_col, ms->next_col + ncols) of class ms->cls from ms->group,
     * and when they end the rows writes the class's bottom digests into
     * ms->digests, and after the last class the upper layers. NULL in an
     * engine without them. */
    glstark_status (*stream_begin)(gs_engine *eng, gs_merkle_stream *ms);
    glstark_status (*stream_columns)(gs_engine *eng, gs_merkle_stream *ms, size_t ncols);
} gs_hash_ops;

/* Checked wrappers (src/engine/hash.c). They return GLSTARK_ERR_UNSUPPORTED
 * when the engine has no hash family and leave the message in eng->err. */
glstark_status gs_engine_merkle_commit(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height,
                                       size_t width, unsigned elem_deg, unsigned log_k, gs_merkle_dev *tree);
/* Reads the root (8 Montgomery words) back to the host. */
glstark_status gs_engine_merkle_root(gs_engine *eng, const gs_merkle_dev *tree, bb_t root[GS_DIGEST_LEN]);
/* The same at the engine's next read (engine/read_later.h), so that several
 * commitments' roots share one host sync: root must stay valid until the
 * caller's gs_engine_read_flush. */
glstark_status gs_engine_merkle_root_later(gs_engine *eng, const gs_merkle_dev *tree, bb_t root[GS_DIGEST_LEN]);
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
/* Opened rows only, as gs_engine_merkle_open_later, but query q's K rows go
 * to dst[q] + t * row_stride words: a caller opening a subset of its
 * queries (one row class) places them among the others. */
glstark_status gs_engine_merkle_open_rows_to(gs_engine *eng, const gs_buf *mat, size_t mat_off,
                                            const gs_merkle_dev *tree, const uint32_t *indices, size_t n,
                                            bb_t *const *dst, size_t row_stride);
void gs_merkle_dev_release(gs_merkle_dev *tree);
/* Starts a streamed commitment of a height x width base-field matrix in
 * 2^log_classes row classes (S = height >> log_k a multiple of 2^log_classes,
 * and log_k >= 1 when there is more than one class) and column groups of
 * group_cols (a multiple of 8). */
glstark_status gs_engine_merkle_stream_begin(gs_engine *eng, size_t height, size_t width, unsigned log_k,
                                             unsigned log_classes, size_t group_cols, gs_merkle_stream *ms);
/* The same commitment as 2^log_classes streams ms[0 .. 2^log_classes), one
 * per row class, each with its own states and group buffer (twice or more
 * the memory of one stream), so the classes can be absorbed a column group
 * at a time: every class's group g before any class's group g + 1, the
 * classes of a group in order. ms[c] is fed like a one-class stream and released when its
 * class ends; the tree comes from the last class's last group, when every
 * class has ended its rows. After a failure, release each (any order). */
glstark_status gs_engine_merkle_stream_begin_classes(gs_engine *eng, size_t height, size_t width, unsigned log_k,
                                                     unsigned log_classes, size_t group_cols, gs_merkle_stream *ms);
/* Absorbs the next ncols columns of the present class from ms->group
 * (group_cols of them, fewer only for the group that ends the rows); after
 * the last class's last group *tree holds the commitment and the stream is
 * released, else tree->digests is NULL. */
glstark_status gs_engine_merkle_stream_columns(gs_engine *eng, gs_merkle_stream *ms, size_t ncols,
                                               gs_merkle_dev *tree);
void gs_merkle_stream_release(gs_merkle_stream *ms);
glstark_status gs_engine_grind(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                               uint32_t *witness);
/* A sponge state buffer holding st with the transcript's absorb and sample
 * positions (absorb_idx < 8, sample_idx <= 8). */
glstark_status gs_engine_sponge_create(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx,
                                       unsigned sample_idx, gs_buf **out);
/* Checks the step's ranges and bits, then runs it (hash op sponge_step);
 * GLSTARK_ERR_UNSUPPORTED where the engine has no sponge. */
glstark_status gs_engine_sponge_step(gs_engine *eng, gs_buf *state, const gs_sponge_step *step);

/* Same shape as gs_grind_fn (src/common/transcript.h) with ctx = the
 * gs_engine: pass it to gs_transcript_grind to grind on an engine. Copies
 * the engine's error into err on failure. */
glstark_status gs_engine_grind_fn(void *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                                  uint32_t *witness, gs_error *err);

#endif
