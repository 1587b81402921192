/* Host-to-GPU writes for the GLES engine (see upload.h). */
#include "engine/gles/upload.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/parallel_for.h"

glstark_status gs_gles_upload_init(gs_gles_upload *up, gs_gl_device *dev, gs_error *err)
{
    memset(up, 0, sizeof *up);
    int can_ring = dev->BufferStorage != NULL;
    /* automatic: the ring on hardware GPUs: faster where measured (34-39 vs
     * 61-75 ms for keccakf's trace on the H200) and every write ordered as a
     * GPU command (upload.h); on software renderers glBufferSubData, a plain
     * memcpy that the ring would only add a copy to */
    up->mode = can_ring && !dev->is_software ? GS_UPLOAD_RING : GS_UPLOAD_SUBDATA;
    unsigned cores = gs_online_cores();
    up->threads = cores > GS_UPLOAD_BATCH ? GS_UPLOAD_BATCH : cores;
    (void)err;
    if (dev->cfg.upload == GS_UPLOAD_CHOICE_SUBDATA) /* GLSTARK_UPLOAD */
        up->mode = GS_UPLOAD_SUBDATA;
    else if (dev->cfg.upload == GS_UPLOAD_CHOICE_RING)
        up->mode = can_ring ? GS_UPLOAD_RING : GS_UPLOAD_SUBDATA;
    return GLSTARK_OK;
}

const char *gs_gles_upload_name(gs_upload_mode mode)
{
    return mode == GS_UPLOAD_RING ? "ring" : "subdata";
}

void gs_gles_upload_free(gs_gles_upload *up)
{
    for (unsigned i = 0; i < GS_UPLOAD_SLOTS; i++)
        if (up->fence[i]) {
            glDeleteSync(up->fence[i]);
            up->fence[i] = 0;
        }
    gs_gl_unmap_delete(GL_COPY_READ_BUFFER, up->ring, up->map);
    up->ring = 0;
    up->map = NULL;
}

/* Creates the ring; a refusal drops this writer to SUBDATA for good. */
static void ensure_ring(gs_gles_upload *up, gs_gl_device *dev)
{
    if (up->ring)
        return;
    const size_t size = GS_UPLOAD_SLOTS * GS_UPLOAD_SLOT_BYTES;
    up->map = gs_gl_map_persistent(dev, GL_COPY_READ_BUFFER, size, GL_MAP_WRITE_BIT, &up->ring);
    if (!up->map) {
        up->mode = GS_UPLOAD_SUBDATA;
        gs_gl_log(dev, GLSTARK_LOG_WARN,
                  "upload: the driver refused a persistently mapped %zu-byte ring; writing with glBufferSubData", size);
    }
}

/* Waits until the GPU has copied slot i out; only a real wait (the fence
 * not yet signaled when polled) counts as a host sync. */
static glstark_status wait_slot(gs_gles_upload *up, gs_gl_device *dev, unsigned i, gs_error *err)
{
    GLsync f = up->fence[i];
    if (!f)
        return GLSTARK_OK;
    glstark_status st = GLSTARK_OK;
    GLenum r = glClientWaitSync(f, 0, 0);
    if (r != GL_ALREADY_SIGNALED && r != GL_CONDITION_SATISFIED) {
        up->waits++;
        dev->host_syncs++;
        st = gs_gl_wait_sync(dev, f, "upload: waiting for the GPU", err);
    }
    glDeleteSync(f);
    up->fence[i] = 0;
    return st;
}

typedef struct fill_job {
    unsigned char *map;
    const unsigned char *src;
    unsigned slot[GS_UPLOAD_BATCH];
    size_t from[GS_UPLOAD_BATCH], len[GS_UPLOAD_BATCH];
} fill_job;

static void fill_slots(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    fill_job *j = ctx;
    for (size_t k = b; k < e; k++)
        memcpy(j->map + (size_t)j->slot[k] * GS_UPLOAD_SLOT_BYTES, j->src + j->from[k], j->len[k]);
}

/* A small write in ring mode: appended to the open slot, whose fence is
 * renewed after each copy so it covers every copy out of the slot. */
static glstark_status small_write(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                  size_t n, gs_error *err)
{
    if (!up->open || up->fill + n > GS_UPLOAD_SLOT_BYTES) {
        unsigned i = up->next;
        glstark_status st = wait_slot(up, dev, i, err);
        if (st)
            return st;
        up->cur = i;
        up->fill = 0;
        up->open = 1;
        up->next = (i + 1) % GS_UPLOAD_SLOTS;
    }
    size_t at = (size_t)up->cur * GS_UPLOAD_SLOT_BYTES + up->fill;
    memcpy((unsigned char *)up->map + at, src, n);
    glBindBuffer(GL_COPY_READ_BUFFER, up->ring);
    glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)at, (GLintptr)off, (GLsizeiptr)n);
    if (up->fence[up->cur])
        glDeleteSync(up->fence[up->cur]);
    up->fence[up->cur] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    up->fill += (n + 15) & ~(size_t)15;
    return gs_gl_check(dev, err, "gles buffer write (ring copy)");
}

glstark_status gs_gles_upload_write(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                    size_t n, gs_error *err)
{
    if (up->mode == GS_UPLOAD_RING)
        ensure_ring(up, dev);
    if (up->mode != GS_UPLOAD_RING) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
        glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)off, (GLsizeiptr)n, src);
        return gs_gl_check(dev, err, "gles buffer write (glBufferSubData)");
    }
    if (n < GS_UPLOAD_RING_MIN)
        return small_write(up, dev, dst, off, src, n, err);
    up->open = 0; /* large writes take whole slots; small ones then open a fresh one */
    glstark_status st = GLSTARK_OK;
    for (size_t done = 0; !st && done < n;) {
        /* the next batch of slots: wait until the GPU has drained them */
        fill_job j = {up->map, src, {0}, {0}, {0}};
        size_t cnt = 0, at = done;
        while (cnt < GS_UPLOAD_BATCH && at < n) {
            unsigned i = (up->next + (unsigned)cnt) % GS_UPLOAD_SLOTS;
            if ((st = wait_slot(up, dev, i, err)))
                return st;
            j.slot[cnt] = i;
            j.from[cnt] = at;
            j.len[cnt] = n - at < GS_UPLOAD_SLOT_BYTES ? n - at : GS_UPLOAD_SLOT_BYTES;
            at += j.len[cnt];
            cnt++;
        }
        gs_parallel_for(up->threads < cnt ? up->threads : (unsigned)cnt, cnt, fill_slots, &j);
        glBindBuffer(GL_COPY_READ_BUFFER, up->ring);
        glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
        for (size_t k = 0; k < cnt; k++) {
            glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                                (GLintptr)((size_t)j.slot[k] * GS_UPLOAD_SLOT_BYTES), (GLintptr)(off + j.from[k]),
                                (GLsizeiptr)j.len[k]);
            up->fence[j.slot[k]] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        }
        glFlush(); /* start the copies now, not at the next sync */
        up->next = (up->next + (unsigned)cnt) % GS_UPLOAD_SLOTS;
        done = at;
        st = gs_gl_check(dev, err, "gles buffer write (ring copy)");
    }
    return st;
}
