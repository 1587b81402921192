#include "engine/engine.h"
#include "engine/read_later.h"

#include "engine/reduction_ops.h"

#include <stdlib.h>

void gs_engine_destroy(gs_engine *eng)
{
    gs_read_later_free(eng);
    if (eng && eng->core && eng->core->destroy)
        eng->core->destroy(eng);
}

static glstark_status check_range(gs_engine *eng, const gs_buf *buf, size_t offset, size_t bytes, const char *what)
{
    if (offset > buf->size || bytes > buf->size - offset)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: range [%zu, %zu+%zu) is outside the %zu-byte buffer; pass an offset and size within the buffer",
                            what, offset, offset, bytes, buf->size);
    return GLSTARK_OK;
}

int gs_buf_holds(const gs_buf *buf, const gs_engine *eng, size_t first, size_t count, size_t unit)
{
    return buf && buf->engine == eng && first <= buf->size / unit && count <= buf->size / unit - first;
}

glstark_status gs_buf_create(gs_engine *eng, size_t bytes, gs_buf **out)
{
    if (!eng || !out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (bytes == 0)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "buffer create: size 0 requested; ask for at least one byte");
    if (eng->bytes_cap && (bytes > eng->bytes_cap || eng->bytes_live > eng->bytes_cap - bytes))
        return gs_error_set(&eng->err, GLSTARK_ERR_DEVICE_MEMORY,
                            "buffer create: %zu bytes would exceed the engine's memory cap of %zu bytes (%zu in use); raise the cap or prove a smaller statement",
                            bytes, eng->bytes_cap, eng->bytes_live);
    glstark_status st = eng->core->buf_create(eng, bytes, out);
    if (st == GLSTARK_OK) {
        eng->bytes_live += (*out)->capacity ? (*out)->capacity : bytes;
        if (eng->bytes_live + eng->bytes_pooled > eng->bytes_peak)
            eng->bytes_peak = eng->bytes_live + eng->bytes_pooled;
    }
    return st;
}

void gs_buf_destroy(gs_buf *buf)
{
    if (!buf)
        return;
    gs_engine *eng = buf->engine;
    eng->bytes_live -= buf->capacity ? buf->capacity : buf->size;
    eng->core->buf_destroy(eng, buf);
}

glstark_status gs_buf_write(gs_buf *buf, size_t offset, const void *src, size_t bytes)
{
    glstark_status st = check_range(buf->engine, buf, offset, bytes, "buffer write");
    return st ? st : buf->engine->core->buf_write(buf->engine, buf, offset, src, bytes);
}

glstark_status gs_buf_write_canonical(gs_buf *buf, size_t offset, const uint32_t *src, size_t count)
{
    if (count > SIZE_MAX / sizeof(uint32_t))
        return gs_error_set(&buf->engine->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "canonical write: %zu values overflow a byte count", count);
    glstark_status st = check_range(buf->engine, buf, offset, count * sizeof(uint32_t), "canonical write");
    if (st || count == 0)
        return st;
    if (offset % sizeof(uint32_t))
        return gs_error_set(&buf->engine->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "canonical write: byte offset %zu is not a multiple of 4", offset);
    return buf->engine->core->buf_write_canonical(buf->engine, buf, offset, src, count);
}

glstark_status gs_buf_read(const gs_buf *buf, size_t offset, void *dst, size_t bytes)
{
    glstark_status st = check_range(buf->engine, buf, offset, bytes, "buffer read");
    if (st)
        return st;
    /* reads queued for later come along: one host sync for all */
    int done = 0;
    st = gs_read_later_with(buf, offset, dst, bytes, &done);
    return st || done ? st : buf->engine->core->buf_read(buf->engine, buf, offset, dst, bytes);
}

glstark_status gs_buf_copy(gs_buf *dst, size_t dst_off, const gs_buf *src, size_t src_off, size_t bytes)
{
    gs_engine *eng = dst->engine;
    if (src->engine != eng)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "buffer copy: source and destination belong to different engines; copy through the host");
    glstark_status st = check_range(eng, dst, dst_off, bytes, "buffer copy (destination)");
    if (!st)
        st = check_range(eng, src, src_off, bytes, "buffer copy (source)");
    return st ? st : eng->core->buf_copy(eng, dst, dst_off, src, src_off, bytes);
}

glstark_status gs_buf_copy_strided(gs_buf *dst, size_t dst_word, size_t dst_stride, const gs_buf *src,
                                   size_t src_word, size_t src_stride, size_t item_words, size_t count)
{
    gs_engine *eng = dst->engine;
    if (src->engine != eng)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "strided copy: source and destination belong to different engines");
    if (count == 0 || item_words == 0)
        return GLSTARK_OK;
    if (count > 1 && dst_stride < item_words)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "strided copy: destination stride %zu is below the item size %zu (items would overlap)",
                            dst_stride, item_words);
    const size_t lim = SIZE_MAX / 4 - item_words;
    if ((count > 1 && (src_stride > lim / (count - 1) || dst_stride > lim / (count - 1))))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "strided copy: %zu items of %zu words every %zu / %zu words overflow", count, item_words,
                            src_stride, dst_stride);
    size_t s_span = (count - 1) * src_stride + item_words, d_span = (count - 1) * dst_stride + item_words;
    glstark_status st = check_range(eng, dst, dst_word * 4, d_span * 4, "strided copy (destination)");
    if (!st)
        st = check_range(eng, src, src_word * 4, s_span * 4, "strided copy (source)");
    if (st)
        return st;
    if (dst == src && dst_word < src_word + s_span && src_word < dst_word + d_span)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "strided copy: source and destination ranges of one buffer overlap; copy in two steps");
    if (eng->core->buf_copy_strided) {
        st = eng->core->buf_copy_strided(eng, dst, dst_word, dst_stride, src, src_word, src_stride, item_words, count);
        if (st != GLSTARK_ERR_UNSUPPORTED)
            return st;
        st = GLSTARK_OK;
    }
    for (size_t k = 0; !st && k < count; k++)
        st = eng->core->buf_copy(eng, dst, (dst_word + k * dst_stride) * 4, src, (src_word + k * src_stride) * 4,
                                 item_words * 4);
    return st;
}

glstark_status gs_buf_transpose(gs_buf *dst, size_t dst_word, size_t dst_stride, const gs_buf *src, size_t src_word,
                                size_t rows, size_t cols)
{
    gs_engine *eng = dst->engine;
    if (src->engine != eng)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "transpose: source and destination belong to different engines");
    if (rows == 0 || cols == 0)
        return GLSTARK_OK;
    if (src == dst)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "transpose: source and destination are one buffer (transpose into another)");
    if (cols > 1 && dst_stride < rows)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "transpose: destination stride %zu is below the %zu rows (columns would overlap)",
                            dst_stride, rows);
    const size_t lim = SIZE_MAX / 4;
    if (rows > lim / cols || (cols > 1 && dst_stride > (lim - rows) / (cols - 1)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "transpose: %zu rows x %zu columns (destination stride %zu) overflow", rows, cols,
                            dst_stride);
    glstark_status st = check_range(eng, dst, dst_word * 4, ((cols - 1) * dst_stride + rows) * 4,
                                    "transpose (destination)");
    if (!st)
        st = check_range(eng, src, src_word * 4, rows * cols * 4, "transpose (source)");
    if (st)
        return st;
    if (eng->core->buf_transpose) {
        st = eng->core->buf_transpose(eng, dst, dst_word, dst_stride, src, src_word, rows, cols);
        if (st != GLSTARK_ERR_UNSUPPORTED)
            return st;
        st = GLSTARK_OK;
    }
    /* column c is every cols-th word of the block, from word c */
    for (size_t c = 0; !st && c < cols; c++)
        st = gs_buf_copy_strided(dst, dst_word + c * dst_stride, 1, src, src_word + c, cols, 1, rows);
    return st;
}

glstark_status gs_buf_gather(gs_buf *dst, size_t dst_word, const gs_buf *src, size_t src_word, size_t item_words,
                             size_t stride_words, size_t count)
{
    return gs_buf_copy_strided(dst, dst_word, item_words, src, src_word, stride_words, item_words, count);
}

glstark_status gs_buf_fill_u32(gs_buf *buf, size_t offset, size_t count, uint32_t value)
{
    if (offset % 4)
        return gs_error_set(&buf->engine->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "buffer fill: offset %zu is not a multiple of 4", offset);
    if (count > SIZE_MAX / 4)
        return gs_error_set(&buf->engine->err, GLSTARK_ERR_INVALID_ARGUMENT, "buffer fill: count %zu overflows", count);
    glstark_status st = check_range(buf->engine, buf, offset, count * 4, "buffer fill");
    return st ? st : buf->engine->core->buf_fill_u32(buf->engine, buf, offset, count, value);
}

glstark_status gs_engine_finish(gs_engine *eng)
{
    eng->host_syncs++;
    return eng->core->finish(eng);
}

glstark_status gs_engine_prepare(gs_engine *eng, const gs_prepare_hint *hint)
{
    return eng->core->prepare ? eng->core->prepare(eng, hint) : GLSTARK_OK;
}

void gs_engine_trim(gs_engine *eng)
{
    if (eng->core->trim)
        eng->core->trim(eng);
}

void gs_engine_program_builds(const gs_engine *eng, uint64_t *count, uint64_t *ns)
{
    *count = 0;
    *ns = 0;
    if (eng->core->program_builds)
        eng->core->program_builds(eng, count, ns);
}

/* ---- shared argument checks of family ops ---- */

glstark_status gs_red_copies_check(gs_engine *eng, const gs_buf *dst, const gs_buf *src, const gs_red_copy *copies,
                                   size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const gs_red_copy *k = &copies[i];
        uint64_t len = k->log_len < 40 ? (uint64_t)1 << k->log_len : UINT64_MAX;
        if (k->log_len >= 40 || k->dst > dst->size / 16 || len > dst->size / 16 - k->dst || k->src > src->size / 16 ||
            len > src->size / 16 - k->src)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "reduction scaled_copies: copy %zu (2^%u elements from %llu to %llu) is outside the "
                                "buffers (%zu and %zu bytes)",
                                i, k->log_len, (unsigned long long)k->src, (unsigned long long)k->dst, src->size,
                                dst->size);
    }
    return GLSTARK_OK;
}
