/* GPU-to-host reads for the GLES engine (see readback.h). */
#include "engine/gles/readback.h"

#include <string.h>

void gs_gles_readback_init(gs_gles_readback *rb, gs_gl_device *dev)
{
    memset(rb, 0, sizeof *rb);
    glstark_readback m = dev->cfg.readback;
    int can_persist = dev->BufferStorage != NULL;
    if (m == GLSTARK_READBACK_AUTO || (m == GLSTARK_READBACK_PERSISTENT && !can_persist))
        m = can_persist ? GLSTARK_READBACK_PERSISTENT : GLSTARK_READBACK_STAGING;
    rb->mode = m;
    dev->caps.readback = m;
}

const char *gs_gles_readback_name(glstark_readback mode)
{
    switch (mode) {
    case GLSTARK_READBACK_PERSISTENT: return "persistent";
    case GLSTARK_READBACK_STAGING: return "staging";
    case GLSTARK_READBACK_MAP: return "map";
    default: return "auto";
    }
}

void gs_gles_readback_free(gs_gles_readback *rb)
{
    gs_gl_unmap_delete(GL_COPY_WRITE_BUFFER, rb->buf, rb->map);
    rb->buf = 0;
    rb->size = 0;
    rb->map = NULL;
}

/* Makes the staging buffer at least n bytes (powers of two from 64 KiB). A
 * driver that refuses the persistent mapping drops this reader to STAGING. */
static glstark_status ensure_staging(gs_gles_readback *rb, gs_gl_device *dev, size_t n, gs_error *err)
{
    if (rb->buf && rb->size >= n)
        return GLSTARK_OK;
    gs_gles_readback_free(rb);
    size_t size = (size_t)64 << 10;
    while (size < n)
        size <<= 1;
    if (rb->mode == GLSTARK_READBACK_PERSISTENT) {
        rb->map = gs_gl_map_persistent(dev, GL_COPY_WRITE_BUFFER, size, GL_MAP_READ_BIT, &rb->buf);
        if (!rb->map) {
            gs_gl_log(dev, GLSTARK_LOG_WARN,
                      "readback: the driver refused a persistently mapped %zu-byte buffer; using a staging buffer "
                      "mapped per read instead",
                      size);
            rb->mode = GLSTARK_READBACK_STAGING;
            dev->caps.readback = rb->mode;
            return ensure_staging(rb, dev, n, err);
        }
    } else {
        glGenBuffers(1, &rb->buf);
        glBindBuffer(GL_COPY_WRITE_BUFFER, rb->buf);
        glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)size, NULL, GL_STREAM_READ);
    }
    glstark_status st = gs_gl_check(dev, err, "readback: creating the staging buffer");
    if (st) {
        gs_gles_readback_free(rb);
        return st;
    }
    rb->size = size;
    return GLSTARK_OK;
}

/* Maps bytes [off, off + n) of buf for reading (waits for the GPU) and
 * copies them out. */
static glstark_status map_and_copy(gs_gl_device *dev, GLuint buf, size_t off, void *dst, size_t n, gs_error *err)
{
    glBindBuffer(GL_COPY_READ_BUFFER, buf);
    const void *p = glMapBufferRange(GL_COPY_READ_BUFFER, (GLintptr)off, (GLsizeiptr)n, GL_MAP_READ_BIT);
    if (!p) {
        glstark_status st = gs_gl_check(dev, err, "gles buffer read (glMapBufferRange)");
        return st ? st : gs_error_set(err, GLSTARK_ERR_GPU, "gles buffer read: glMapBufferRange returned NULL");
    }
    memcpy(dst, p, n);
    if (!glUnmapBuffer(GL_COPY_READ_BUFFER))
        return gs_error_set(err, GLSTARK_ERR_GPU,
                            "gles buffer read: the mapping was corrupted (glUnmapBuffer false); read again");
    return gs_gl_check(dev, err, "gles buffer read");
}

/* Waits on a fence for everything queued so far. */
static glstark_status wait_fence(gs_gl_device *dev, gs_error *err)
{
    GLsync f = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!f) {
        glstark_status st = gs_gl_check(dev, err, "readback: glFenceSync");
        return st ? st : gs_error_set(err, GLSTARK_ERR_GPU, "readback: glFenceSync returned 0");
    }
    glstark_status st = gs_gl_wait_sync(dev, f, "readback: waiting for the GPU", err);
    glDeleteSync(f);
    return st;
}

glstark_status gs_gles_readback_read(gs_gles_readback *rb, gs_gl_device *dev, GLuint src, size_t off, void *dst,
                                     size_t n, gs_error *err)
{
    if (rb->mode == GLSTARK_READBACK_MAP)
        return map_and_copy(dev, src, off, dst, n, err);
    /* Large reads in staging-sized pieces: buffers allocated as immutable
     * storage cannot be mapped. */
    while (n > GS_READBACK_STAGING_MAX) {
        glstark_status st = gs_gles_readback_read(rb, dev, src, off, dst, GS_READBACK_STAGING_MAX, err);
        if (st)
            return st;
        off += GS_READBACK_STAGING_MAX;
        dst = (unsigned char *)dst + GS_READBACK_STAGING_MAX;
        n -= GS_READBACK_STAGING_MAX;
    }
    glstark_status st = ensure_staging(rb, dev, n, err);
    if (st)
        return st;
    glBindBuffer(GL_COPY_READ_BUFFER, src);
    glBindBuffer(GL_COPY_WRITE_BUFFER, rb->buf);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)off, 0, (GLsizeiptr)n);
    if ((st = gs_gl_check(dev, err, "readback: copying to the staging buffer")))
        return st;
    if (rb->mode == GLSTARK_READBACK_STAGING)
        return map_and_copy(dev, rb->buf, 0, dst, n, err);
    /* PERSISTENT + COHERENT: once the fence signals, the copy's bytes are
     * visible through the mapping */
    if ((st = wait_fence(dev, err)))
        return st;
    memcpy(dst, rb->map, n);
    return GLSTARK_OK;
}
