/* The CPU engine's core: buffers are plain host allocations. */
#include "engine/cpu/cpu_engine.h"

#include "api/options.h"
#include "engine/zc_code.h"

#include "engine/cpu/canonical_simd.h"
#include "field/canonical.h"
#include "util/parallel_for.h"
#include "util/transpose.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void cpu_destroy(gs_engine *eng)
{
    gs_pool_free(((gs_cpu_state *)eng->impl)->pool);
    gs_zc_cache_free(((gs_cpu_state *)eng->impl)->zc_cache);
    free(eng->impl);
    free(eng);
}

static glstark_status cpu_buf_create(gs_engine *eng, size_t bytes, gs_buf **out)
{
    gs_buf *b = calloc(1, sizeof *b);
    void *mem = malloc(bytes);
    if (!b || !mem) {
        free(b);
        free(mem);
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "cpu engine: could not allocate a %zu-byte buffer; free memory or prove a smaller statement", bytes);
    }
    b->engine = eng;
    b->size = bytes;
    b->host = mem;
    eng->bytes_allocated += bytes;
    *out = b;
    return GLSTARK_OK;
}

static void cpu_buf_destroy(gs_engine *eng, gs_buf *buf)
{
    (void)eng;
    free(buf->host);
    free(buf);
}

static glstark_status cpu_buf_write(gs_engine *eng, gs_buf *buf, size_t off, const void *src, size_t n)
{
    (void)eng;
    memcpy((char *)buf->host + off, src, n);
    return GLSTARK_OK;
}

static glstark_status cpu_buf_read(gs_engine *eng, const gs_buf *buf, size_t off, void *dst, size_t n)
{
    eng->host_syncs++; /* counted as on the GLES engine, so the engines' figures compare */
    memcpy(dst, (const char *)buf->host + off, n);
    return GLSTARK_OK;
}

static glstark_status cpu_buf_copy(gs_engine *eng, gs_buf *dst, size_t doff, const gs_buf *src, size_t soff, size_t n)
{
    (void)eng;
    memmove((char *)dst->host + doff, (const char *)src->host + soff, n);
    return GLSTARK_OK;
}

static glstark_status cpu_buf_fill_u32(gs_engine *eng, gs_buf *buf, size_t off, size_t count, uint32_t v)
{
    (void)eng;
    uint32_t *p = (uint32_t *)((char *)buf->host + off);
    for (size_t i = 0; i < count; i++)
        p[i] = v;
    return GLSTARK_OK;
}

/* Values converted per step, each step checked just before (in cache). */
#define CANON_STEP 4096

typedef struct canon_job {
    bb_t *dst;
    const uint32_t *src;
    const gs_cpu_kernels *k;
    size_t first_bad[GS_PARALLEL_MAX]; /* per worker: its first value >= p, or SIZE_MAX */
} canon_job;

static void canon_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    canon_job *j = ctx;
    j->first_bad[worker] = SIZE_MAX;
    for (size_t s0 = b; s0 < e; s0 += CANON_STEP) {
        size_t n = e - s0 < CANON_STEP ? e - s0 : CANON_STEP;
        size_t bad = gs_first_non_canonical(j->src + s0, n, 1);
        if (bad < n) {
            j->first_bad[worker] = s0 + bad;
            return;
        }
        size_t i = s0 + gs_from_canonical_simd(j->k, j->dst + s0, j->src + s0, n);
        for (; i < s0 + n; i++)
            j->dst[i] = bb_mul(j->src[i], BB_R2); /* bb_from_canonical without its reduction: src[i] < p */
    }
}

static glstark_status cpu_buf_write_canonical(gs_engine *eng, gs_buf *buf, size_t off, const uint32_t *src,
                                              size_t count)
{
    canon_job j = {.dst = (bb_t *)((char *)buf->host + off), .src = src, .k = gs_cpu_engine_kernels(eng)};
    /* threads only pay off for large writes (a trace, not a vector) */
    unsigned threads = count >= ((size_t)1 << 16) ? gs_cpu_threads(eng) : 1;
    threads = threads > GS_PARALLEL_MAX ? GS_PARALLEL_MAX : threads;
    threads = (size_t)threads > count ? (unsigned)count : threads;
    gs_cpu_for(eng, threads, count, canon_range, &j);
    size_t bad = SIZE_MAX;
    for (unsigned w = 0; w < threads; w++)
        bad = j.first_bad[w] < bad ? j.first_bad[w] : bad;
    if (bad < count)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "canonical write: value %u at index %zu is not below p = %u", src[bad], bad,
                            (unsigned)BB_P);
    return GLSTARK_OK;
}

typedef struct transpose_job {
    uint32_t *dst;
    const uint32_t *src;
    size_t dst_stride, rows, cols;
} transpose_job;

/* Columns [b, e) of the block (util/transpose.h). */
static void transpose_range(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    const transpose_job *j = ctx;
    gs_transpose_columns(j->dst, j->dst_stride, j->src, j->rows, j->cols, b, e);
}

static glstark_status cpu_buf_transpose(gs_engine *eng, gs_buf *dst, size_t dst_word, size_t dst_stride,
                                        const gs_buf *src, size_t src_word, size_t rows, size_t cols)
{
    transpose_job j = {(uint32_t *)dst->host + dst_word, (const uint32_t *)src->host + src_word, dst_stride, rows,
                       cols};
    gs_cpu_for(eng, rows * cols >= ((size_t)1 << 16) ? gs_cpu_parts(eng, cols) : 1, cols, transpose_range, &j);
    return GLSTARK_OK;
}

unsigned gs_cpu_threads(const gs_engine *eng)
{
    const gs_cpu_state *st = eng->impl;
    return st && st->threads ? st->threads : 1;
}

gs_workers gs_cpu_workers(const gs_engine *eng)
{
    const gs_cpu_state *st = eng->impl;
    return (gs_workers){st ? st->pool : NULL, gs_cpu_threads(eng)};
}

void gs_cpu_for(const gs_engine *eng, unsigned threads, size_t n, gs_range_fn fn, void *ctx)
{
    gs_pool_for(gs_cpu_workers(eng).pool, threads, n, fn, ctx);
}

void gs_cpu_for_chunks(const gs_engine *eng, unsigned threads, size_t n, size_t grain, gs_range_fn fn, void *ctx)
{
    gs_pool_for_chunks(gs_cpu_workers(eng).pool, threads, n, grain, fn, ctx);
}

unsigned gs_cpu_parts(const gs_engine *eng, size_t n)
{
    unsigned t = gs_cpu_threads(eng);
    if (n < (size_t)t)
        t = n > 0 ? (unsigned)n : 1;
    return t;
}

static glstark_status cpu_finish(gs_engine *eng)
{
    (void)eng;
    return GLSTARK_OK;
}

static const gs_engine_core_ops cpu_core_ops = {
    .name = "cpu",
    .destroy = cpu_destroy,
    .buf_create = cpu_buf_create,
    .buf_destroy = cpu_buf_destroy,
    .buf_write = cpu_buf_write,
    .buf_read = cpu_buf_read,
    .buf_copy = cpu_buf_copy,
    .buf_fill_u32 = cpu_buf_fill_u32,
    .buf_write_canonical = cpu_buf_write_canonical,
    .buf_transpose = cpu_buf_transpose,
    .finish = cpu_finish,
};

glstark_status gs_cpu_engine_create(unsigned threads, gs_engine **out, gs_error *err)
{
    *out = NULL;
    gs_engine *eng = calloc(1, sizeof *eng);
    gs_cpu_state *st = calloc(1, sizeof *st);
    if (!eng || !st) {
        free(eng);
        free(st);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "cpu engine: out of host memory creating the engine");
    }
    if (threads == 0)
        threads = gs_online_cores();
    st->threads = threads;
    gs_simd_isa simd;
    glstark_status cs = gs_cpu_simd_choice(gs_option_getenv("GLSTARK_CPU_SIMD"), &simd, err);
    if (cs) {
        free(eng);
        free(st);
        return cs;
    }
    st->kernels = gs_cpu_kernels_of(simd); /* available: gs_cpu_simd_choice checked */
    /* NULL (one thread, or threads that could not start): calls start their
     * own threads, as before the pool */
    st->pool = gs_pool_new(threads);
    eng->core = &cpu_core_ops;
    eng->impl = st;
    gs_cpu_engine_attach_families(eng);
    *out = eng;
    return GLSTARK_OK;
}
