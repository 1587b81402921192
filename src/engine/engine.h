/* The engine interface: what the protocol asks of a compute backend.
 *
 * The prover (src/prove/) is written once against this interface; the
 * CPU engine (src/engine/cpu/, plain C, the reference) and the GLES engine
 * (src/engine/gles/, GLSL compute) implement it with bit-identical results.
 *
 * Conventions every engine function follows:
 *  - Buffers belong to the engine that made them. Field data in a buffer is
 *    bb_t in Montgomery form (src/field/babybear.h), so uploads and
 *    downloads are plain byte copies and both engines hold identical bytes.
 *  - Matrices are column-major: column c of an h-row matrix is the h
 *    consecutive elements starting at c*h.
 *  - Extension elements are 4 consecutive bb_t (bb4_t layout).
 *  - Functions return a status and fill the engine's error message; they
 *    never abort on bad input.
 *
 * The interface is split into families, one ops table per concern, so each
 * family can grow in its own header without touching the others:
 *   core      buffers, copies, syncs (this file)
 *   dft       src/engine/dft_ops.h      batched NTT, RS encoding, stacking
 *   hash      src/engine/hash_ops.h     Poseidon2 row hashing, Merkle, grinding
 *   gkr, zerocheck, reduction, whir       src/engine/<family>_ops.h
 * Both engines implement every family. A family pointer may still be NULL
 * (an engine without it): callers then get GLSTARK_ERR_UNSUPPORTED from the
 * gs_engine_* wrappers, and the prover runs that phase on its fallback. */
#ifndef GS_ENGINE_ENGINE_H
#define GS_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "util/error.h"

typedef struct gs_engine gs_engine;

/* When the prover calls the core op `prepare`: as a proof begins, or while
 * the engine runs a long stretch of queued work whose results the host
 * waits for next (round 0's evaluations): a moment when host work the proof
 * needs later costs the proof nothing. */
typedef enum gs_prepare_stage { GS_PREPARE_PROOF_START = 0, GS_PREPARE_WHILE_BUSY = 1 } gs_prepare_stage;

/* What a proof about to run will need (core op `prepare`). */
typedef struct gs_prepare_hint {
    unsigned l_skip;
    int interactions; /* some AIR with a trace has LogUp interactions: the GKR layers run */
    gs_prepare_stage stage;
} gs_prepare_hint;

/* An engine-owned buffer. `host` is the data for the CPU engine; for the
 * GLES engine it is NULL except while mapped. */
typedef struct gs_buf {
    gs_engine *engine;
    size_t size;     /* bytes */
    void *host;      /* CPU engine storage, or the current mapping */
    uint32_t gl_name; /* GLES buffer object, 0 on the CPU engine */
    size_t capacity;  /* device bytes behind it (>= size; a pooled buffer may be larger); 0 = size */
    void *impl;      /* engine-private extra state */
} gs_buf;

typedef struct gs_engine_core_ops {
    const char *name; /* "cpu" or "gles" */
    void (*destroy)(gs_engine *eng);
    glstark_status (*buf_create)(gs_engine *eng, size_t bytes, gs_buf **out);
    void (*buf_destroy)(gs_engine *eng, gs_buf *buf);
    glstark_status (*buf_write)(gs_engine *eng, gs_buf *buf, size_t offset, const void *src, size_t bytes);
    glstark_status (*buf_read)(gs_engine *eng, const gs_buf *buf, size_t offset, void *dst, size_t bytes);
    glstark_status (*buf_copy)(gs_engine *eng, gs_buf *dst, size_t dst_off, const gs_buf *src, size_t src_off, size_t bytes);
    glstark_status (*buf_fill_u32)(gs_engine *eng, gs_buf *buf, size_t offset, size_t count, uint32_t value);
    /* Writes `count` canonical field values at byte `offset`, stored in
     * Montgomery form: the trace upload, without a converted host copy (the
     * GLES engine converts on the GPU). Every value is checked to be below p
     * as it is copied (no separate pass over the source); a value that is
     * not gives GLSTARK_ERR_INVALID_ARGUMENT naming its index, and the
     * destination is then unspecified. */
    glstark_status (*buf_write_canonical)(gs_engine *eng, gs_buf *buf, size_t offset, const uint32_t *src,
                                          size_t count);
    /* Strided copy: `count` items of `item_words` words, item k read at
     * word src_word + k * src_stride of src and written at word
     * dst_word + k * dst_stride of dst (ranges checked, destinations
     * disjoint from each other and from the source items: gs_buf_copy_strided).
     * NULL, or GLSTARK_ERR_UNSUPPORTED without touching the error, means
     * "one buffer copy per item" (the generic fallback). */
    glstark_status (*buf_copy_strided)(gs_engine *eng, gs_buf *dst, size_t dst_word, size_t dst_stride,
                                       const gs_buf *src, size_t src_word, size_t src_stride, size_t item_words,
                                       size_t count);
    /* Transpose: src holds `rows` x `cols` words row-major from word
     * src_word (row r, column c at src_word + r * cols + c); word (r, c)
     * goes to dst_word + c * dst_stride + r (ranges checked, no overlap:
     * gs_buf_transpose). NULL, or GLSTARK_ERR_UNSUPPORTED without touching
     * the error, means "one strided copy per column". */
    glstark_status (*buf_transpose)(gs_engine *eng, gs_buf *dst, size_t dst_word, size_t dst_stride,
                                    const gs_buf *src, size_t src_word, size_t rows, size_t cols);
    /* Waits until all submitted work is done. Counted as a host sync. */
    glstark_status (*finish)(gs_engine *eng);
    /* Optional (NULL: nothing to do): a proof described by `hint` is about
     * to run, or is running queued work (hint->stage), so the engine may get
     * ready ahead of use (the GLES engine starts compiling the programs it
     * will run, or loads them while the GPU is busy). */
    glstark_status (*prepare)(gs_engine *eng, const gs_prepare_hint *hint);
    /* Optional (NULL: none, the CPU engine): GPU programs made ready since
     * the engine was created and the host nanoseconds spent on them. */
    void (*program_builds)(const gs_engine *eng, uint64_t *count, uint64_t *ns);
    /* Optional (NULL: nothing kept): releases what the engine keeps only to
     * make later calls faster (the GLES engine's DFT twiddle tables, 8 MiB
     * at a 2^21-row stacked matrix), which later calls make again. For a
     * prover short of memory, between the commits and the phases that do
     * not transform. */
    void (*trim)(gs_engine *eng);
} gs_engine_core_ops;

struct gs_dft_ops;
struct gs_hash_ops;
struct gs_whir_ops;
struct gs_gkr_ops;
struct gs_zerocheck_ops;
struct gs_reduction_ops;

struct gs_engine {
    const gs_engine_core_ops *core;
    const struct gs_dft_ops *dft;
    const struct gs_hash_ops *hash;
    const struct gs_whir_ops *whir;
    const struct gs_gkr_ops *gkr;
    const struct gs_zerocheck_ops *zerocheck;
    const struct gs_reduction_ops *reduction;
    void *impl;          /* engine-private state (e.g. the GL device) */
    gs_error err;        /* the last failure's status and message */
    /* Times the host waited for results since creation (the prover reports
     * it): every buf_read and finish (on GLES each is a GPU round trip), and
     * on the CPU engine the ops that hand values straight to the host. The
     * protocol never adds to it: it counts where the waiting happens. */
    uint64_t host_syncs;
    /* Times a buffer write waited for a slot of the GLES upload ring: the
     * GPU still copying out earlier slots behind work queued before them.
     * Flow control, not a round trip (the GPU stays busy and no result is
     * read), so it is counted apart from host_syncs. */
    uint64_t upload_waits;
    size_t bytes_live;   /* device bytes held by live buffers (their capacity) */
    size_t bytes_pooled; /* device bytes held free for reuse by the engine's buffer pool */
    size_t bytes_peak;   /* high-water mark of bytes_live + bytes_pooled */
    size_t bytes_cap;    /* 0 = no cap; otherwise allocations beyond it fail (tests use it) */
    /* Device bytes of buffers allocated anew since creation: every buffer on
     * the CPU engine, those the pool did not serve on GLES (the prover
     * reports each proof's share: what it paid first use of memory for). */
    uint64_t bytes_allocated;
    /* The span recorder of the prove call using this engine (prove/spans.h),
     * NULL outside one: lets protocol code mark sub-phases. Borrowed, not owned. */
    struct gs_span_rec *spans;
    /* Reads queued until the host's next read (engine/read_later.h); NULL
     * until the first. */
    struct gs_read_later *later;
    /* Nonzero where device memory is plentiful enough to trade some of it
     * for overlap (GLES on a desktop-class GPU): the streamed commit then
     * writes the traces itself and encodes every row class of a column
     * group while the host copies the next group, holding the caller's
     * trace through the commit and every class's sponge states at once. */
    int plentiful_memory;
};

/* The CPU engine: plain C, the reference. threads = 0 picks the core count. */
glstark_status gs_cpu_engine_create(unsigned threads, gs_engine **out, gs_error *err);

void gs_engine_destroy(gs_engine *eng);

/* Convenience wrappers that check arguments and forward to eng->core. */
glstark_status gs_buf_create(gs_engine *eng, size_t bytes, gs_buf **out);
void gs_buf_destroy(gs_buf *buf);
glstark_status gs_buf_write(gs_buf *buf, size_t offset, const void *src, size_t bytes);
/* Does buf, a buffer of eng, hold count items of unit bytes from item
 * first? 0 for NULL or another engine's buffer. For ops that take buffers
 * and places in them from the caller (engine/challenge.h, the sponge). */
int gs_buf_holds(const gs_buf *buf, const gs_engine *eng, size_t first, size_t count, size_t unit);
glstark_status gs_buf_read(const gs_buf *buf, size_t offset, void *dst, size_t bytes);
glstark_status gs_buf_copy(gs_buf *dst, size_t dst_off, const gs_buf *src, size_t src_off, size_t bytes);
glstark_status gs_buf_fill_u32(gs_buf *buf, size_t offset, size_t count, uint32_t value);
/* Item k < count of item_words words, from word src_word + k * src_stride
 * of src to word dst_word + k * dst_stride of dst: one kernel (GLES)
 * instead of one buffer copy per item. Items must not overlap each other
 * (dst_stride >= item_words) nor, within one buffer, the source items. */
glstark_status gs_buf_copy_strided(gs_buf *dst, size_t dst_word, size_t dst_stride, const gs_buf *src,
                                   size_t src_word, size_t src_stride, size_t item_words, size_t count);
/* The packed case: items land one after another at dst_word (e.g. the first
 * entry of every column, read back at once). */
glstark_status gs_buf_gather(gs_buf *dst, size_t dst_word, const gs_buf *src, size_t src_word, size_t item_words,
                             size_t stride_words, size_t count);
glstark_status gs_buf_write_canonical(gs_buf *buf, size_t offset, const uint32_t *src, size_t count);
/* A row-major block (rows x cols words at src_word of src) into columns:
 * word (r, c) to word dst_word + c * dst_stride + r of dst (dst_stride >=
 * rows; src and dst distinct buffers). How a row-major trace (a proving
 * context's) lands in the engine's column-major layout. */
glstark_status gs_buf_transpose(gs_buf *dst, size_t dst_word, size_t dst_stride, const gs_buf *src, size_t src_word,
                                size_t rows, size_t cols);
glstark_status gs_engine_finish(gs_engine *eng);
/* Tells the engine a proof begins, or is waiting on queued work (core op
 * `prepare`, hint->stage). */
glstark_status gs_engine_prepare(gs_engine *eng, const gs_prepare_hint *hint);
/* Core op `trim`, where the engine has one. */
void gs_engine_trim(gs_engine *eng);
/* Programs built so far and the nanoseconds spent (0, 0 without GPU programs). */
void gs_engine_program_builds(const gs_engine *eng, uint64_t *count, uint64_t *ns);

#endif
