/* The GLES engine's core: buffers as GL buffer objects, host transfers,
 * copies, fills, and the explicit sync point. */
#include "engine/gles/gles_engine.h"
#include "engine/zc_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "field/field_batch.h"

gs_gl_device *gs_gles_device(gs_engine *eng) { return ((gs_gles_state *)eng->impl)->dev; }

static void gles_destroy(gs_engine *eng)
{
    gs_gles_state *s = eng->impl;
    if (s && s->dev) {
        gs_error err;
        if (gs_gl_device_make_current(s->dev, &err) == GLSTARK_OK) {
            gs_gles_readback_free(&s->readback);
            gs_gles_upload_free(&s->upload);
            /* the twiddle tables and kept plans first: freed buffers land in the pool */
            gs_gles_zc_kept_free(eng);
            for (int i = 0; i < 2; i++)
                if (s->twiddles[i])
                    gs_buf_destroy(s->twiddles[i]);
            for (unsigned i = 0; i < s->pool.n; i++)
                glDeleteBuffers(1, &s->pool.free[i].name);
            gs_gles_buffer_release_free(eng);
            if (s->pool.hits + s->pool.misses)
                gs_gl_log(s->dev, GLSTARK_LOG_INFO, "buffer pool: %llu of %llu requests reused a buffer (%.1f MB)",
                          (unsigned long long)s->pool.hits, (unsigned long long)(s->pool.hits + s->pool.misses),
                          (double)s->pool.bytes_reused / 1e6);
        }
        gs_gl_device_close(s->dev);
    }
    if (s)
        gs_zc_cache_free(s->zc_cache);
    free(s);
    free(eng);
}

/* Slack a pooled buffer may have over the request: a quarter of it. */
static int pool_fits(size_t capacity, size_t bytes) { return capacity >= bytes && capacity - bytes <= bytes / 4; }

static void pool_release(gs_engine *eng, unsigned i)
{
    gs_gles_pool *p = &((gs_gles_state *)eng->impl)->pool;
    glDeleteBuffers(1, &p->free[i].name);
    gs_gles_buffer_deleted(eng, p->free[i].capacity);
    eng->bytes_pooled -= p->free[i].capacity;
    p->free[i] = p->free[--p->n];
}

void gs_gles_pool_release(gs_engine *eng)
{
    gs_gles_state *s = eng->impl;
    gs_error err;
    if (gs_gl_device_make_current(s->dev, &err) != GLSTARK_OK)
        return;
    while (s->pool.n)
        pool_release(eng, s->pool.n - 1);
    /* the caller asked for the memory back: not only once a buffer is made */
    if (gs_gles_let_go_deleted(eng) != GLSTARK_OK)
        gs_gl_log(s->dev, GLSTARK_LOG_WARN, "%s", eng->err.msg);
}

/* Larger buffers a request may take under GLSTARK_BUFFER_POOL_REUSE: up to
 * 64 times its size, or any up to 256 MiB. (Unbounded gave the same
 * keccakf figures; the bound keeps a small request from holding a huge
 * buffer, e.g. one a lazy driver accepted but cannot back.) */
static int pool_may_serve_larger(size_t capacity, size_t bytes)
{
    return capacity >= bytes && (capacity / 64 <= bytes || capacity <= ((size_t)256 << 20));
}

/* Takes the smallest pooled buffer for `bytes` (within the slack, or with
 * larger set as pool_may_serve_larger allows), or 0. */
static GLuint pool_take(gs_engine *eng, size_t bytes, int larger, size_t *capacity)
{
    gs_gles_pool *p = &((gs_gles_state *)eng->impl)->pool;
    unsigned best = p->n;
    for (unsigned i = 0; i < p->n; i++) {
        size_t c = p->free[i].capacity;
        if ((larger ? pool_may_serve_larger(c, bytes) : pool_fits(c, bytes)) &&
            (best == p->n || c < p->free[best].capacity))
            best = i;
    }
    if (best == p->n)
        return 0;
    GLuint name = p->free[best].name;
    *capacity = p->free[best].capacity;
    eng->bytes_pooled -= *capacity;
    p->free[best] = p->free[--p->n];
    p->hits++;
    p->bytes_reused += *capacity;
    return name;
}

/* The bytes the pool may make the engine hold (live, pooled and a new
 * request together) before it releases kept buffers: BOUNDED, the
 * high-water mark so far; REUSE, also up to half again the largest live
 * footprint. Without that slack a proof whose large requests no kept buffer
 * fits closely released the kept ones, which the next request then missed in
 * turn: keccakf-16384 on the H200 allocated 9.8 of its 10.8 GB anew in every
 * warm proof. */
static size_t pool_hold_limit(const gs_engine *eng, size_t live_after)
{
    const gs_gles_pool *p = &((const gs_gles_state *)eng->impl)->pool;
    if (!p->reuse_larger || eng->bytes_cap)
        return eng->bytes_peak;
    size_t mark = live_after > p->live_mark ? live_after : p->live_mark;
    size_t reuse = mark + mark / 2;
    return reuse > eng->bytes_peak ? reuse : eng->bytes_peak;
}

static unsigned pool_largest(const gs_gles_pool *p)
{
    unsigned big = 0;
    for (unsigned i = 1; i < p->n; i++)
        if (p->free[i].capacity > p->free[big].capacity)
            big = i;
    return big;
}

/* Before a fresh allocation: release pooled buffers, largest first, until
 * held bytes plus the request stay within pool_hold_limit (or the pool is
 * empty). */
static void pool_make_room(gs_engine *eng, size_t bytes)
{
    gs_gles_pool *p = &((gs_gles_state *)eng->impl)->pool;
    const size_t limit = pool_hold_limit(eng, eng->bytes_live + bytes);
    while (p->n && eng->bytes_live + eng->bytes_pooled + bytes > limit)
        pool_release(eng, pool_largest(p));
}

static glstark_status gles_buf_create(gs_engine *eng, size_t bytes, gs_buf **out)
{
    gs_gl_device *dev = gs_gles_device(eng);
    gs_gles_state *s = eng->impl;
    gs_buf *b = calloc(1, sizeof *b);
    if (!b)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles buffer create: out of host memory");
    size_t capacity = bytes;
    GLuint name = s->pool.on ? pool_take(eng, bytes, 0, &capacity) : 0;
    /* REUSE: rather than release kept buffers to allocate this one, serve it
     * from a larger kept buffer (held bytes stay the same). Not under a
     * memory cap, which counts live capacity: the slack would use it up. */
    if (!name && s->pool.reuse_larger && !eng->bytes_cap &&
        eng->bytes_live + eng->bytes_pooled + bytes > eng->bytes_peak)
        name = pool_take(eng, bytes, 1, &capacity);
    if (!name) {
        if (s->pool.on) {
            s->pool.misses++;
            pool_make_room(eng, bytes);
        }
        glstark_status st = gs_gles_let_go_deleted(eng);
        if (st) {
            free(b);
            return st;
        }
        if (dev->prof)
            gs_gl_profile_begin(dev);
        glGenBuffers(1, &name);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, name);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_COPY);
        if (dev->prof)
            gs_gl_profile_end(dev, "buffer create (glBufferData)", bytes);
        st = gs_gl_check(dev, &eng->err, "gles buffer create (glBufferData)");
        if (st) {
            glDeleteBuffers(1, &name);
            free(b);
            gs_error_prefix(&eng->err, "allocating %zu device bytes", bytes);
            return st;
        }
        eng->bytes_allocated += bytes;
    }
    b->engine = eng;
    b->size = bytes;
    b->capacity = capacity;
    b->gl_name = name;
    if (eng->bytes_live + capacity > s->pool.live_mark)
        s->pool.live_mark = eng->bytes_live + capacity;
    /* poison what can be written in reasonable time (not, e.g., a buffer the
     * driver accepted lazily far beyond its memory) */
    if (s->pool.poison && bytes <= ((size_t)1 << 30)) {
        glstark_status st = gs_gles_fill_pattern(eng, b, 0, bytes / 4, 0xDEADBEEFu, 0);
        if (st) {
            glDeleteBuffers(1, &name);
            free(b);
            return st;
        }
    }
    *out = b;
    return GLSTARK_OK;
}

static void gles_buf_destroy(gs_engine *eng, gs_buf *buf)
{
    gs_gles_pool *p = &((gs_gles_state *)eng->impl)->pool;
    size_t capacity = buf->capacity ? buf->capacity : buf->size;
    if (p->on && p->n == GS_GLES_POOL_MAX) {
        /* Full: a larger buffer takes the smallest one's place (large
         * buffers are the ones whose fresh allocation costs) */
        unsigned small = 0;
        for (unsigned i = 1; i < p->n; i++)
            if (p->free[i].capacity < p->free[small].capacity)
                small = i;
        if (p->free[small].capacity < capacity)
            pool_release(eng, small);
    }
    if (p->on && p->n < GS_GLES_POOL_MAX) {
        p->free[p->n].name = buf->gl_name;
        p->free[p->n].capacity = capacity;
        eng->bytes_pooled += capacity;
        p->n++;
    } else {
        GLuint name = buf->gl_name;
        glDeleteBuffers(1, &name);
        gs_gles_buffer_deleted(eng, capacity);
    }
    free(buf);
}

/* One host-to-GPU write through the upload writer (profiled; a wait for a
 * ring slot counts as a host sync). `canonical`: the bytes are words that
 * must be below p (see gs_gles_upload_write_canonical), *first_bad set. */
static glstark_status upload(gs_engine *eng, gs_buf *buf, size_t off, const void *src, size_t n, int canonical,
                             size_t *first_bad)
{
    gs_gl_device *dev = gs_gles_device(eng);
    /* Shader writes still in flight must land before the host overwrites. */
    gs_gl_barrier_for(dev, GL_BUFFER_UPDATE_BARRIER_BIT);
    if (dev->prof)
        gs_gl_profile_begin(dev);
    gs_gles_state *s = eng->impl;
    uint64_t waits0 = s->upload.waits;
    glstark_status st =
        canonical ? gs_gles_upload_write_canonical(&s->upload, dev, buf->gl_name, off, src, n / sizeof(uint32_t),
                                                   first_bad, &eng->err)
                  : gs_gles_upload_write(&s->upload, dev, buf->gl_name, off, src, n, &eng->err);
    eng->upload_waits += s->upload.waits - waits0;
    if (dev->prof)
        gs_gl_profile_end(dev,
                          s->upload.mode == GS_UPLOAD_RING     ? "buffer write (ring)"
                          : s->upload.mode == GS_UPLOAD_STAGED ? "buffer write (staged copy)"
                                                               : "buffer write (glBufferSubData)",
                          n);
    return st;
}

static glstark_status gles_buf_write(gs_engine *eng, gs_buf *buf, size_t off, const void *src, size_t n)
{
    return n ? upload(eng, buf, off, src, n, 0, NULL) : GLSTARK_OK;
}

static glstark_status gles_buf_read(gs_engine *eng, const gs_buf *buf, size_t off, void *dst, size_t n)
{
    if (n == 0)
        return GLSTARK_OK;
    gs_gles_state *s = eng->impl;
    /* shader writes must be visible to copies and mappings */
    gs_gl_barrier_for(s->dev, GL_BUFFER_UPDATE_BARRIER_BIT);
    eng->host_syncs++;
    if (s->dev->prof)
        gs_gl_profile_begin(s->dev);
    glstark_status st = gs_gles_readback_read(&s->readback, s->dev, buf->gl_name, off, dst, n, &eng->err);
    if (s->dev->prof)
        gs_gl_profile_end(s->dev, "buffer read", n);
    return st;
}

static glstark_status gles_buf_copy_strided(gs_engine *eng, gs_buf *dst, size_t dst_word, size_t dst_stride,
                                            const gs_buf *src, size_t src_word, size_t src_stride, size_t item_words,
                                            size_t count);

/* Copies of at least this many bytes go through the copy kernel when the
 * engine uses shader copies (smaller ones are not worth a dispatch). */
#define GS_SHADER_COPY_MIN 65536u

/* A word-aligned copy between distinct ranges by glsl/gather.comp, in
 * pieces that fit one binding. */
static glstark_status shader_copy(gs_engine *eng, gs_buf *dst, size_t doff, const gs_buf *src, size_t soff, size_t n)
{
    gs_gl_device *dev = gs_gles_device(eng);
    size_t piece = (size_t)((dev->caps.max_binding_bytes - dev->caps.binding_offset_align) / 4);
    size_t dw = doff / 4, sw = soff / 4, words = n / 4;
    glstark_status st = GLSTARK_OK;
    for (size_t done = 0; !st && done < words; done += piece) {
        size_t w = words - done < piece ? words - done : piece;
        st = gles_buf_copy_strided(eng, dst, dw + done, 0, src, sw + done, 0, w, 1);
    }
    return st;
}

static glstark_status gles_buf_copy(gs_engine *eng, gs_buf *dst, size_t doff, const gs_buf *src, size_t soff,
                                    size_t n)
{
    if (n == 0)
        return GLSTARK_OK;
    gs_gl_device *dev = gs_gles_device(eng);
    const gs_gles_state *s = eng->impl;
    const int overlap = dst == src && doff < soff + n && soff < doff + n;
    if (s->shader_copy && !overlap && n >= GS_SHADER_COPY_MIN && (n | doff | soff) % 4 == 0) {
        glstark_status st = shader_copy(eng, dst, doff, src, soff, n);
        if (st != GLSTARK_ERR_UNSUPPORTED)
            return st; /* else the driver's copy below */
    }
    gs_gl_barrier_for(dev, GL_BUFFER_UPDATE_BARRIER_BIT);
    if (dev->prof)
        gs_gl_profile_begin(dev);
    if (overlap) {
        /* GL forbids overlapping copies within one buffer: go through a
         * scratch buffer (memmove semantics, as the CPU engine). */
        GLuint tmp = 0;
        glGenBuffers(1, &tmp);
        glBindBuffer(GL_COPY_WRITE_BUFFER, tmp);
        glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)n, NULL, GL_STREAM_COPY);
        glBindBuffer(GL_COPY_READ_BUFFER, src->gl_name);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)soff, 0, (GLsizeiptr)n);
        glBindBuffer(GL_COPY_READ_BUFFER, tmp);
        glBindBuffer(GL_COPY_WRITE_BUFFER, dst->gl_name);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, (GLintptr)doff, (GLsizeiptr)n);
        glDeleteBuffers(1, &tmp);
    } else {
        glBindBuffer(GL_COPY_READ_BUFFER, src->gl_name);
        glBindBuffer(GL_COPY_WRITE_BUFFER, dst->gl_name);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)soff, (GLintptr)doff, (GLsizeiptr)n);
    }
    if (dev->prof)
        gs_gl_profile_end(dev, "buffer copy (glCopyBufferSubData)", n);
    return gs_gl_check(dev, &eng->err, "gles buffer copy (glCopyBufferSubData)");
}

glstark_status gs_gles_bind(gs_engine *eng, GLuint binding, const gs_buf *buf, size_t offset, size_t bytes)
{
    return gs_gl_bind_range(gs_gles_device(eng), binding, buf->gl_name, offset, bytes, &eng->err);
}

glstark_status gs_gles_bind_at(gs_engine *eng, GLuint binding, const gs_buf *buf, size_t offset, size_t bytes,
                               uint32_t *lead)
{
    const size_t align = (size_t)gs_gles_device(eng)->caps.binding_offset_align;
    const size_t base = offset - offset % align;
    *lead = (uint32_t)((offset - base) / 4);
    return gs_gles_bind(eng, binding, buf, base, offset - base + bytes);
}

/* gs_buf_copy_strided on the GPU (glsl/gather.comp): runs of items whose
 * source and destination spans each fit one binding; an item wider than a
 * binding leaves it to the generic per-item copies. */
static glstark_status gles_buf_copy_strided(gs_engine *eng, gs_buf *dst, size_t dst_word, size_t dst_stride,
                                            const gs_buf *src, size_t src_word, size_t src_stride, size_t item_words,
                                            size_t count)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t align = dev->caps.binding_offset_align, maxw = dev->caps.max_binding_bytes / 4;
    uint64_t lead_max = align / 4;
    if (item_words + lead_max > maxw || src_stride > UINT32_MAX || dst_stride > UINT32_MAX)
        return GLSTARK_ERR_UNSUPPORTED;
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, "gather.comp", NULL, &prog, &eng->err);
    if (st)
        return st;
    GLuint p = gs_gl_program_name(prog);
    /* items per run: both windows (plus an alignment lead) within a binding */
    uint64_t room = maxw - lead_max - item_words;
    uint64_t per = src_stride ? room / src_stride + 1 : count;
    uint64_t per_dst = dst_stride ? room / dst_stride + 1 : count;
    if (per > per_dst)
        per = per_dst;
    if (per > UINT32_MAX / item_words)
        per = UINT32_MAX / item_words;
    for (uint64_t k0 = 0; !st && k0 < count; k0 += per) {
        uint64_t n = count - k0 < per ? count - k0 : per;
        uint64_t sb = (src_word + k0 * src_stride) * 4, db = (dst_word + k0 * dst_stride) * 4;
        uint64_t s_off = sb - sb % align, d_off = db - db % align;
        uint64_t s_len = sb - s_off + ((n - 1) * src_stride + item_words) * 4;
        uint64_t d_len = db - d_off + ((n - 1) * dst_stride + item_words) * 4;
        st = gs_gl_bind_range(dev, 0, dst->gl_name, d_off, d_len, &eng->err);
        if (!st)
            st = gs_gl_bind_range(dev, 1, src->gl_name, s_off, s_len, &eng->err);
        if (st)
            break;
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_item"), (GLuint)item_words);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_src_stride"), (GLuint)src_stride);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_dst_stride"), (GLuint)dst_stride);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_src_lead"), (GLuint)((sb - s_off) / 4));
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_dst_lead"), (GLuint)((db - d_off) / 4));
        st = gs_gl_dispatch_1d(dev, prog, n * item_words, &eng->err);
    }
    return st;
}

/* gs_buf_transpose on the GPU (glsl/transpose.comp): the source block is
 * bound whole; the destination columns go in groups whose span (from the
 * first column's start to the last column's end) fits one binding, so a
 * trace of any height works under the ES 3.1 floor's 128 MiB. */
static glstark_status gles_buf_transpose(gs_engine *eng, gs_buf *dst, size_t dst_word, size_t dst_stride,
                                         const gs_buf *src, size_t src_word, size_t rows, size_t cols)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t align = dev->caps.binding_offset_align, maxw = dev->caps.max_binding_bytes / 4;
    const uint64_t lead_max = align / 4;
    if ((uint64_t)rows * cols + lead_max > maxw || rows + lead_max > maxw || dst_stride > UINT32_MAX ||
        (uint64_t)rows * cols > UINT32_MAX)
        return GLSTARK_ERR_UNSUPPORTED; /* the caller's per-column copies */
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, "transpose.comp", NULL, &prog, &eng->err);
    if (st)
        return st;
    const GLuint p = gs_gl_program_name(prog);
    const uint64_t sb = (uint64_t)src_word * 4, s_off = sb - sb % align;
    st = gs_gl_bind_range(dev, 1, src->gl_name, s_off, sb - s_off + (uint64_t)rows * cols * 4, &eng->err);
    if (st)
        return st;
    /* columns per group: (n - 1) * stride + rows words after the lead */
    const uint64_t room = maxw - lead_max - rows;
    uint64_t per = dst_stride ? room / dst_stride + 1 : cols;
    for (uint64_t c0 = 0; !st && c0 < cols; c0 += per) {
        const uint64_t n = cols - c0 < per ? cols - c0 : per;
        const uint64_t db = ((uint64_t)dst_word + c0 * dst_stride) * 4, d_off = db - db % align;
        st = gs_gl_bind_range(dev, 0, dst->gl_name, d_off, db - d_off + ((n - 1) * dst_stride + rows) * 4,
                              &eng->err);
        if (st)
            break;
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_rows"), (GLuint)rows);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_cols"), (GLuint)cols);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_col0"), (GLuint)c0);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_dst_stride"), (GLuint)dst_stride);
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_src_lead"), (GLuint)((sb - s_off) / 4));
        glProgramUniform1ui(p, gs_gl_program_uniform(prog, "gs_dst_lead"), (GLuint)((db - d_off) / 4));
        st = gs_gl_dispatch_1d(dev, prog, n * rows, &eng->err);
    }
    return st;
}

/* Runs a one-word-per-invocation kernel (fill.comp, to_montgomery.comp) over
 * words [first_word, first_word + count) of buf: binding ranges start at
 * an aligned offset, the kernel skips `gs_first` leading words, and ranges
 * larger than one binding are split. value/step are fill.comp's uniforms
 * (ignored by kernels without them). */
static glstark_status word_pass(gs_engine *eng, const char *kernel, gs_buf *buf, size_t first_word, size_t count,
                                uint32_t value, uint32_t step)
{
    gs_gl_device *dev = gs_gles_device(eng);
    if (first_word > buf->size / 4 || count > buf->size / 4 - first_word)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: words [%zu, %zu+%zu) are outside the %zu-byte buffer", kernel, first_word,
                            first_word, count, buf->size);
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, kernel, NULL, &prog, &eng->err);
    if (st)
        return st;
    GLuint p = gs_gl_program_name(prog);
    GLint loc_first = glGetUniformLocation(p, "gs_first"), loc_value = glGetUniformLocation(p, "gs_value"),
          loc_step = glGetUniformLocation(p, "gs_step");
    uint64_t align = dev->caps.binding_offset_align, maxb = dev->caps.max_binding_bytes;
    uint64_t done = 0;
    while (done < count) {
        uint64_t byte = (uint64_t)(first_word + done) * 4;
        uint64_t bind_off = byte - byte % align;
        uint64_t lead = (byte - bind_off) / 4;
        uint64_t room = maxb / 4 - lead; /* words of this binding after `lead` */
        uint64_t todo = count - done < room ? count - done : room;
        uint64_t bind_len = (lead + todo) * 4;
        st = gs_gl_bind_range(dev, 0, buf->gl_name, bind_off, bind_len, &eng->err);
        if (st)
            return st;
        glUseProgram(p);
        glUniform1ui(loc_first, (GLuint)lead);
        if (loc_value >= 0)
            glUniform1ui(loc_value, value + (uint32_t)(done * step));
        if (loc_step >= 0)
            glUniform1ui(loc_step, step);
        st = gs_gl_dispatch_1d(dev, prog, todo, &eng->err);
        if (st)
            return st;
        done += todo;
    }
    return GLSTARK_OK;
}

glstark_status gs_gles_fill_pattern(gs_engine *eng, gs_buf *buf, size_t first_word, size_t count, uint32_t value,
                                    uint32_t step)
{
    return word_pass(eng, "fill.comp", buf, first_word, count, value, step);
}

static glstark_status gles_buf_write_canonical(gs_engine *eng, gs_buf *buf, size_t off, const uint32_t *src,
                                               size_t count)
{
    /* Upload the caller's words as they are, checked while they are copied,
     * and convert them in place on the GPU: no converted host copy of a
     * trace (345 MB for keccakf-1024) and no separate pass to check it. */
    size_t bad = count;
    glstark_status st = upload(eng, buf, off, src, count * sizeof(uint32_t), 1, &bad);
    if (!st && bad < count)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "canonical write: value %u at index %zu is not below p = %u", src[bad], bad,
                            (unsigned)BB_P);
    return st ? st : word_pass(eng, "to_montgomery.comp", buf, off / 4, count, 0, 0);
}

static glstark_status gles_buf_fill_u32(gs_engine *eng, gs_buf *buf, size_t off, size_t count, uint32_t v)
{
    /* Host writes after shader writes need the barrier; fills are shader
     * writes after possible copies, which GL orders by itself. */
    return gs_gles_fill_pattern(eng, buf, off / 4, count, v, 0);
}

glstark_status gs_gles_field_op(gs_engine *eng, int op, const gs_buf *a, const gs_buf *b, gs_buf *out, size_t n,
                                uint32_t param)
{
    gs_gl_device *dev = gs_gles_device(eng);
    if (!gs_field_op_valid(op))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "field op %d does not exist", op);
    if (n == 0)
        return GLSTARK_OK;
    unsigned wa = gs_field_op_words_a(op), wb = gs_field_op_words_b(op), wo = wa;
    int uses_b = gs_field_op_uses_b(op);
    if (uses_b && !b)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "field op %s needs a second input",
                            gs_field_op_name(op));
    if (n > a->size / (4 * wa) || n > out->size / (4 * wo) || (uses_b && n > b->size / (4 * wb)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "field op %s: %zu elements do not fit the buffers (%zu, %zu, %zu bytes)",
                            gs_field_op_name(op), n, a->size, uses_b ? b->size : 0, out->size);
    gs_gl_program *prog;
    char defines[32];
    snprintf(defines, sizeof defines, "GS_OP %d", op);
    glstark_status st = gs_gl_program_get(dev, "field_test.comp", defines, &prog, &eng->err);
    if (st)
        return st;
    GLuint p = gs_gl_program_name(prog);
    glUseProgram(p);
    GLint loc = glGetUniformLocation(p, "gs_param");
    if (loc >= 0)
        glUniform1ui(loc, param);
    uint64_t chunk = gs_gl_chunk_elems(dev, 4 * wa);
    uint64_t cb = gs_gl_chunk_elems(dev, 4 * wb);
    if (cb < chunk)
        chunk = cb;
    /* a, b and out advance by chunk elements of different sizes: a chunk
     * that is a multiple of the alignment (in elements) keeps every
     * binding offset aligned whatever the element size. */
    uint64_t align = dev->caps.binding_offset_align;
    if (chunk > align)
        chunk -= chunk % align;
    if (b == NULL)
        b = a; /* unary ops still need the binding to exist */
    for (uint64_t i = 0; i < n; i += chunk) {
        uint64_t m = n - i < chunk ? n - i : chunk;
        st = gs_gl_bind_range(dev, 0, a->gl_name, i * 4 * wa, m * 4 * wa, &eng->err);
        if (!st)
            st = gs_gl_bind_range(dev, 1, b->gl_name, uses_b ? i * 4 * wb : i * 4 * wa,
                                  uses_b ? m * 4 * wb : m * 4 * wa, &eng->err);
        if (!st)
            st = gs_gl_bind_range(dev, 2, out->gl_name, i * 4 * wo, m * 4 * wo, &eng->err);
        if (!st)
            st = gs_gl_dispatch_1d(dev, prog, m, &eng->err);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

static glstark_status gles_finish(gs_engine *eng)
{
    gs_gl_device *dev = gs_gles_device(eng);
    glFinish();
    return gs_gl_check(dev, &eng->err, "finish (glFinish)");
}

glstark_status gs_gles_precompile(gs_engine *eng, const gs_prepare_hint *hint)
{
    /* The core kernels: strided copies, fills, the trace's conversion. */
    static const char *const core[] = {"gather.comp", "fill.comp", "to_montgomery.comp"};
    gs_gl_device *dev = gs_gles_device(eng);
    glstark_status st = GLSTARK_OK;
    for (size_t i = 0; !st && i < sizeof core / sizeof core[0]; i++)
        st = gs_gl_program_prefetch(dev, core[i], NULL, &eng->err);
    if (!st && ((gs_gles_state *)eng->impl)->upload.packed)
        st = gs_gl_program_prefetch(dev, "unpack.comp", NULL, &eng->err);
    /* In the order a proof needs them: the driver may work through them in
     * the order they were started. */
    if (!st)
        st = gs_gles_dft_precompile(eng);
    if (!st)
        st = gs_gles_hash_precompile(eng);
    if (!st)
        st = gs_gles_gkr_precompile(eng, hint->interactions);
    if (!st)
        st = gs_gles_zerocheck_precompile(eng, hint->l_skip);
    if (!st)
        st = gs_gles_reduction_precompile(eng);
    if (!st)
        st = gs_gles_whir_precompile(eng);
    return st;
}

/* A build quicker than this came from the driver's shader cache. */
#define GS_CACHED_BUILD_NS ((uint64_t)20 * 1000 * 1000)

/* Background compiles, decided at the first proof. A cold compile is slow
 * where a cached one is not: on NVIDIA 580 a keccakf proof's 37 programs
 * took 2.0-2.6 s with an empty driver cache (the four Poseidon2 kernels
 * 0.17-0.44 s each) and ~1-7 ms each from the cache. So under AUTO the
 * Merkle compression kernel, a large program every commitment runs (the
 * levels above its leaves), is built first and timed: from the cache, the
 * rest builds at first use (starting the driver's compiler threads would
 * only add ~0.2 s at exit on NVIDIA 580); cold, every other program the
 * proof runs is started on the driver's threads at once (a device that
 * committed before its first proof, through the hash API, finds it cached
 * and counts as warm). The probe was the leaf kernel until a keccakf-1024
 * proof on the H200 was seen to load it (6.5 ms) and never run it: its
 * commitments take the streamed or the fused leaf kernel. Not at
 * device open: a process that never proves (a tool, most tests) would wait
 * at close for compiles it never uses. Nothing
 * here is fatal: a failure (a shader the driver rejects, host memory, a
 * lost context) shows again, with its cause, when the kernel is used.
 *
 * While the GPU is busy (GS_PREPARE_WHILE_BUSY: round 0's evaluations
 * queued, 20-60 ms of GPU work on the H200), a proof that builds at first
 * use takes every program still missing from the driver's cache now, on the
 * proving thread: each of those loads (1-7 ms for the Poseidon2 kernels on
 * NVIDIA 580) would otherwise come later with the GPU idle, waiting for the
 * dispatch behind it. Cold or compiling ahead, the background compiles
 * already cover them; a device that has them all finds each in its cache. */
static void load_while_busy(gs_engine *eng, const gs_prepare_hint *hint)
{
    gs_gles_state *s = eng->impl;
    gs_gl_device *dev = s->dev;
    glFlush(); /* the queued work starts before the host turns to the loads */
    dev->prefetch_builds_now = 1;
    glstark_status st = gs_gles_precompile(eng, hint);
    dev->prefetch_builds_now = 0;
    if (st) {
        gs_gl_log(dev, GLSTARK_LOG_WARN, "loading programs ahead failed (each builds again at first use): %s",
                  eng->err.msg);
        gs_error_clear(&eng->err);
    }
}

/* The DFT twiddle tables (src/engine/gles/dft_gles.c makes them again at
 * their next use). */
static void gles_trim(gs_engine *eng)
{
    gs_gles_state *s = eng->impl;
    for (int i = 0; i < 2; i++) {
        gs_buf_destroy(s->twiddles[i]);
        s->twiddles[i] = NULL;
        s->twiddles_log[i] = 0;
    }
}

static glstark_status gles_prepare(gs_engine *eng, const gs_prepare_hint *hint)
{
    gs_gles_state *s = eng->impl;
    gs_gl_device *dev = s->dev;
    if (hint->stage == GS_PREPARE_WHILE_BUSY) {
        if (dev->caps.background_compile && s->precompile_state == 2)
            load_while_busy(eng, hint);
        return GLSTARK_OK;
    }
    if (!dev->caps.background_compile || s->precompile_state == 2)
        return GLSTARK_OK;
    if (s->precompile_state == 0 && dev->cfg.precompile == GLSTARK_PRECOMPILE_AUTO) {
        gs_gl_program *p;
        uint64_t t0 = gs_monotonic_ns();
        glstark_status st = gs_gl_program_get(dev, "merkle_compress.comp", NULL, &p, &eng->err);
        uint64_t dt = gs_monotonic_ns() - t0;
        if (st || dt < GS_CACHED_BUILD_NS) {
            s->precompile_state = 2;
            gs_gl_log(dev, GLSTARK_LOG_INFO, "programs build at first use (the Merkle compression kernel: %s in %.1f ms)",
                      st ? "failed" : "built", (double)dt / 1e6);
            gs_error_clear(&eng->err);
            return GLSTARK_OK;
        }
    }
    s->precompile_state = 1;
    if (gs_gles_precompile(eng, hint) != GLSTARK_OK) {
        gs_gl_log(dev, GLSTARK_LOG_WARN, "starting background compiles failed: %s", eng->err.msg);
        gs_error_clear(&eng->err);
    }
    return GLSTARK_OK;
}

static void gles_program_builds(const gs_engine *eng, uint64_t *count, uint64_t *ns)
{
    const gs_gles_state *s = eng->impl;
    *count = s->dev->programs_built;
    *ns = s->dev->program_build_ns;
}

static const gs_engine_core_ops gles_core_ops = {
    .name = "gles",
    .destroy = gles_destroy,
    .buf_create = gles_buf_create,
    .buf_destroy = gles_buf_destroy,
    .buf_write = gles_buf_write,
    .buf_read = gles_buf_read,
    .buf_copy = gles_buf_copy,
    .buf_fill_u32 = gles_buf_fill_u32,
    .buf_copy_strided = gles_buf_copy_strided,
    .buf_transpose = gles_buf_transpose,
    .buf_write_canonical = gles_buf_write_canonical,
    .finish = gles_finish,
    .prepare = gles_prepare,
    .program_builds = gles_program_builds,
    .trim = gles_trim,
};

/* The buffer pool: GLSTARK_POOL's choice, else the device's default:
 * hardware with large bindings has memory to spare for the pool's slack.
 * Where GPU memory is the host's, buffers the pool keeps are memory the
 * host cannot use, and fresh ones cost little beside a proof there: no pool
 * (llvmpipe's board profile, deleted buffers let go: peak RSS 566-570 MiB
 * against 574-576 with the pool bounded, no slower; docs/performance.md,
 * "deleted buffers let go"). */
static glstark_buffer_pool pool_mode(const gs_gl_device *dev)
{
    if (dev->cfg.pool != GS_POOL_AUTO)
        return (glstark_buffer_pool)dev->cfg.pool;
    return dev->caps.desktop_class ? GLSTARK_BUFFER_POOL_REUSE : GLSTARK_BUFFER_POOL_OFF;
}

/* Large copies (GLSTARK_COPY, else automatic): glCopyBufferSubData moved
 * 88 GB/s on the H200 (NVIDIA 580) against 1.3 TB/s for a compute shader,
 * so hardware GPUs copy with the copy kernel; software renderers keep the
 * driver's memcpy. */
static int shader_copy_mode(const gs_gl_device *dev)
{
    if (dev->cfg.copy != GS_COPY_AUTO)
        return dev->cfg.copy == GS_COPY_SHADER;
    return !dev->is_software;
}

glstark_status gs_gles_engine_create(const gs_device_config *cfg, gs_engine **out, gs_error *err)
{
    *out = NULL;
    gs_engine *eng = calloc(1, sizeof *eng);
    gs_gles_state *s = calloc(1, sizeof *s);
    if (!eng || !s) {
        free(eng);
        free(s);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "gles engine: out of host memory");
    }
    glstark_status st = gs_gl_device_open(cfg, &s->dev, err);
    if (st) {
        free(eng);
        free(s);
        return st;
    }
    eng->core = &gles_core_ops;
    eng->plentiful_memory = s->dev->caps.desktop_class;
    s->let_go_deleted = !s->dev->caps.desktop_class;
    eng->impl = s;
    eng->bytes_cap = (size_t)s->dev->cfg.device_memory_cap;
    glstark_buffer_pool pool = pool_mode(s->dev);
    s->shader_copy = shader_copy_mode(s->dev);
    /* GLSTARK_DISPATCH_MS, else 50 ms on devices that are not desktop-class
     * (software renderers included: small boards' drivers reset a GPU job
     * after about half a second) and none on desktop-class GPUs. Every
     * dispatch is then cut to run about this long at the kernel's rate
     * measured on this device (src/gles/dispatch_plan.h). */
    s->dev->dispatch_budget_ns = gs_dispatch_budget_ns(s->dev->cfg.dispatch_ms, s->dev->caps.fast_class);
    gs_gl_log(s->dev, GLSTARK_LOG_INFO, "dispatch budget: %s%.0f ms", s->dev->dispatch_budget_ns ? "" : "none, ",
              (double)s->dev->dispatch_budget_ns * 1e-6);
    /* Under a budget the plans come in rounds of the work groups the device
     * runs side by side: measured once where the GPU does not say. Optional:
     * a failed probe leaves 1, the safe side. */
    if (s->dev->dispatch_budget_ns && (!s->dev->caps.parallel_reported || s->dev->cfg.measure_parallel)) {
        uint32_t P = 1;
        gs_error perr;
        if (gs_gl_measure_parallel(s->dev, s->dev->dispatch_budget_ns, &P, &perr) == GLSTARK_OK) {
            s->dev->caps.parallel_groups = P;
            s->dev->caps.parallel_measured = 1;
        } else {
            gs_gl_log(s->dev, GLSTARK_LOG_WARN, "work groups side by side: not measured (%s); planning with %u",
                      perr.msg, s->dev->caps.parallel_groups);
        }
    }
    gs_gles_readback_init(&s->readback, s->dev);
    gs_gl_log(s->dev, GLSTARK_LOG_INFO, "readback: %s", gs_gles_readback_name(s->readback.mode));
    if ((st = gs_gles_upload_init(&s->upload, s->dev, err)))
        goto fail;
    gs_gl_log(s->dev, GLSTARK_LOG_INFO, "upload: %s", gs_gles_upload_describe(&s->upload));
    s->pool.on = pool != GLSTARK_BUFFER_POOL_OFF;
    s->pool.reuse_larger = pool == GLSTARK_BUFFER_POOL_REUSE;
    s->pool.poison = s->dev->cfg.pool_poison;
    s->dev->caps.buffer_pool = pool;
    s->dev->caps.shader_copy = s->shader_copy;
    s->dev->caps.upload_ring = s->upload.mode == GS_UPLOAD_RING;
    s->dev->caps.upload_staged = s->upload.mode == GS_UPLOAD_STAGED;
    s->dev->caps.upload_packed = s->upload.packed;
    gs_gles_engine_attach_families(eng);
    *out = eng;
    return GLSTARK_OK;
fail:
    gs_gl_device_close(s->dev);
    free(eng);
    free(s);
    return st;
}
