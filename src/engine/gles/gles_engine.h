/* The GLES engine: engine buffers are GL buffer objects on a headless
 * gs_gl_device (src/gles/). Family implementations reach the device with
 * gs_gles_device(eng), build programs with gs_gl_program_get, bind buffer
 * ranges with gs_gl_bind_range(dev, binding, buf->gl_name, ...) (or
 * gs_gles_bind), and launch with gs_gl_dispatch_1d. Nothing here waits for
 * the GPU except buf_read, finish and timers, which count host syncs. */
#ifndef GS_ENGINE_GLES_GLES_ENGINE_H
#define GS_ENGINE_GLES_GLES_ENGINE_H

#include "engine/engine.h"
#include "engine/gles/readback.h"
#include "engine/gles/upload.h"
#include "gles/gl_device.h"

/* The buffer pool: buffers freed by the engine's users are kept and handed
 * out again for requests they fit with little slack, instead of being
 * deleted and reallocated. A fresh allocation costs the driver more than its
 * size suggests (on the NVIDIA driver measured, first use of new memory runs
 * at ~19 GB/s: ~37 ms for keccakf's 705 MB codeword), and a proof allocates
 * about twice its peak over its phases. To keep the footprint where it would
 * be without a pool, a request the pool cannot serve first releases pooled
 * buffers until the engine's held bytes plus the request stay within the
 * high-water mark so far (GLSTARK_BUFFER_POOL_BOUNDED). Under that bound a
 * proof's buffers of many sizes (the constraint rounds' work buffers and
 * halving scratch, the reduction's and WHIR's folds) kept evicting each
 * other: keccakf-1024 allocated 1.46 GB afresh in every repeated proof on the
 * H100. GLSTARK_BUFFER_POOL_REUSE (the default on desktop-class GPUs; where
 * GPU memory is the host's the default is no pool) lets a
 * request that would otherwise grow the footprint take the smallest larger
 * free buffer (up to 64 times the request or 256 MiB): a repeated proof
 * allocates (almost) nothing, for a larger footprint (keccakf-1024, codeword
 * re-encoded: 1314 against 800 MiB). GLSTARK_POOL=0|bounded|reuse overrides;
 * GLSTARK_POOL_POISON=1 fills every handed-out buffer with 0xDEADBEEF so
 * nothing can rely on fresh memory reading as zero (the test suite sets it). */
/* Buffers the pool holds at most. A keccakf-1024 proof frees ~100
 * distinct buffers; with 64 the proof's largest (the 352 MB stacked matrix
 * and the 705 MB codeword, freed last) found the pool full and were
 * deleted, so every later proof allocated them afresh (bench_commit: first
 * use of new memory runs at ~19 GB/s on NVIDIA 580). */
#define GS_GLES_POOL_MAX 256

typedef struct gs_gles_pool {
    int on, poison;
    int reuse_larger; /* GLSTARK_BUFFER_POOL_REUSE */
    unsigned n;
    struct {
        GLuint name;
        size_t capacity;
    } free[GS_GLES_POOL_MAX];
    uint64_t hits, misses;
    uint64_t bytes_reused; /* capacity handed out again */
    size_t live_mark;      /* the most bytes live buffers ever held (REUSE's holding limit) */
} gs_gles_pool;

typedef struct gs_gles_state {
    gs_gl_device *dev;
    gs_gles_readback readback; /* how buf_read reaches the host */
    gs_gles_upload upload;     /* how buf_write reaches the GPU */
    gs_gles_pool pool;         /* freed buffers kept for reuse */
    int shader_copy;           /* large copies by glsl/gather.comp (GLSTARK_COPY) */
    struct gs_zc_cache *zc_cache; /* compiled constraint DAGs (src/engine/zc_code.h) */
    struct gs_zc_kept *zc_kept;   /* plans kept across multilinear rounds (zerocheck_gles.c) */
    /* DFT twiddle tables, [0] forward and [1] inverse roots, kept for the
     * engine's life: a table of 2^k words serves every size up to 2^k
     * (src/engine/gles/dft_gles.c). NULL until first needed. */
    struct gs_buf *twiddles[2];
    unsigned twiddles_log[2];
    /* Background compiles (gles_prepare): 0 not decided yet, 1 on (the
     * driver's cache was cold), 2 off (warm: programs build at first use). */
    int precompile_state;
    /* Deleted buffers let go before new ones are made (buffer_release.c):
     * on where the GPU's memory is the host's. */
    int let_go_deleted;
    size_t deleted_bytes;       /* deleted since the driver last let go */
    GLuint unbind_buffer;       /* bound at every slot by glsl/unbind.comp */
    uint64_t unbind_dispatches; /* times the driver was made to let go */
} gs_gles_state;

/* Opens a device per cfg (resolved by api/options.c, or filled by a test)
 * and makes an engine on it. */
glstark_status gs_gles_engine_create(const gs_device_config *cfg, gs_engine **out, gs_error *err);

gs_gl_device *gs_gles_device(gs_engine *eng);

/* Drops the plans the zerocheck family keeps across multilinear rounds
 * (the op mle_rounds_done; also at engine destroy). */
void gs_gles_zc_kept_free(gs_engine *eng);

/* Deletes every buffer the pool holds (glstark_device_release_memory). */
void gs_gles_pool_release(gs_engine *eng);

/* Deleted buffers' memory (src/engine/gles/buffer_release.c): each
 * glDeleteBuffers of an engine buffer is counted; before a fresh allocation
 * (and after the pool is emptied) let_go makes the driver drop the deleted
 * buffers it still holds, where let_go_deleted is set. */
void gs_gles_buffer_deleted(gs_engine *eng, size_t bytes);
glstark_status gs_gles_let_go_deleted(gs_engine *eng);
/* Deletes the small buffer let_go binds (engine destroy). */
void gs_gles_buffer_release_free(gs_engine *eng);

/* Binds bytes [offset, offset+bytes) of buf to SSBO `binding`. */
glstark_status gs_gles_bind(gs_engine *eng, GLuint binding, const gs_buf *buf, size_t offset, size_t bytes);
/* Binds `bytes` of buf from byte `offset` (a multiple of 4, any alignment)
 * starting at the aligned offset at or below it; *lead = the word of
 * `offset` inside the binding. */
glstark_status gs_gles_bind_at(gs_engine *eng, GLuint binding, const gs_buf *buf, size_t offset, size_t bytes,
                               uint32_t *lead);

/* Enqueues out[i] = op(a[i], b[i]) for n elements on the GPU
 * (glsl/field_test.comp; ops of src/field/field_batch.h), splitting into
 * binding-sized chunks. b may be NULL for unary ops. No host sync. */
glstark_status gs_gles_field_op(gs_engine *eng, int op, const gs_buf *a, const gs_buf *b, gs_buf *out, size_t n,
                                uint32_t param);

/* Enqueues words[first + i] = value + i * step for i < count (glsl/fill.comp),
 * in binding-sized chunks. buf_fill_u32 is the step-0 case. */
glstark_status gs_gles_fill_pattern(gs_engine *eng, gs_buf *buf, size_t first_word, size_t count, uint32_t value,
                                    uint32_t step);

/* Sets eng->dft, eng->hash, ... to the GLES implementations that exist
 * (src/engine/gles/families.c). */
void gs_gles_engine_attach_families(gs_engine *eng);

/* Background compiles (gs_gl_program_prefetch) of the programs a proof
 * described by `hint` runs, family by family; the engine starts them when a
 * proof begins (core op `prepare`) and the driver's cache turns out cold. */
glstark_status gs_gles_precompile(gs_engine *eng, const gs_prepare_hint *hint);
glstark_status gs_gles_dft_precompile(gs_engine *eng);
glstark_status gs_gles_hash_precompile(gs_engine *eng);
glstark_status gs_gles_whir_precompile(gs_engine *eng);
glstark_status gs_gles_gkr_precompile(gs_engine *eng, int interactions);
glstark_status gs_gles_reduction_precompile(gs_engine *eng);
glstark_status gs_gles_zerocheck_precompile(gs_engine *eng, unsigned l_skip);

/* The end of a forward DFT (src/engine/gles/dft_gles.c): DIT layers
 * [first_layer, log_n) in place on one EF column of 2^log_n elements at the
 * start of buf, whose entries are already in bit-reversed order with layers
 * below first_layer done (e.g. a zero-padded message expanded by a kernel).
 * GLSTARK_ERR_UNSUPPORTED if the column does not fit one binding. */
glstark_status gs_gles_dft_finish_ext(gs_engine *eng, gs_buf *buf, unsigned log_n, unsigned first_layer);

#endif
