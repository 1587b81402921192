/* Host-to-GPU writes for the GLES engine (see upload.h). */
#include "engine/gles/upload.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/gles/upload_pack.h"
#include "field/canonical.h"
#include "util/parallel_for.h"

/* The path without the ring: a direct glBufferSubData where GL orders it
 * (software renderers), staged copies on hardware GPUs (upload.h). */
static gs_upload_mode mode_without_ring(const gs_gl_device *dev)
{
    return dev->is_software ? GS_UPLOAD_SUBDATA : GS_UPLOAD_STAGED;
}

glstark_status gs_gles_upload_init(gs_gles_upload *up, gs_gl_device *dev, gs_error *err)
{
    memset(up, 0, sizeof *up);
    int can_ring = dev->BufferStorage != NULL;
    /* automatic: the ring on hardware GPUs: faster where measured (34-39 vs
     * 61-75 ms for keccakf's trace on the H200) and every write ordered as a
     * GPU command (upload.h); on software renderers glBufferSubData, a plain
     * memcpy that the ring would only add a copy to; on hardware without
     * buffer storage the staged copies, which keep the ordering */
    up->mode = can_ring && !dev->is_software ? GS_UPLOAD_RING : mode_without_ring(dev);
    unsigned cores = gs_online_cores();
    up->threads = cores > GS_UPLOAD_BATCH ? GS_UPLOAD_BATCH : cores;
    up->slot_bytes = dev->caps.desktop_class ? GS_UPLOAD_SLOT_BYTES : GS_UPLOAD_SLOT_BYTES_SMALL;
    (void)err;
    if (dev->cfg.upload == GS_UPLOAD_CHOICE_SUBDATA) /* GLSTARK_UPLOAD */
        up->mode = mode_without_ring(dev);
    else if (dev->cfg.upload == GS_UPLOAD_CHOICE_STAGED)
        up->mode = GS_UPLOAD_STAGED;
    else if ((dev->cfg.upload == GS_UPLOAD_CHOICE_RING || dev->cfg.upload == GS_UPLOAD_CHOICE_PACKED) && can_ring)
        up->mode = GS_UPLOAD_RING;
    /* Packed where a bus sets the copy's pace: a desktop-class GPU's own
     * memory. Where the GPU shares the host's memory the copy is a memory
     * copy, which the host's packing and the GPU's widening would only add
     * to. */
    up->packed = up->mode == GS_UPLOAD_RING &&
                 (dev->cfg.upload == GS_UPLOAD_CHOICE_PACKED ||
                  (dev->cfg.upload == GS_UPLOAD_CHOICE_AUTO && dev->caps.desktop_class && !dev->is_software));
    /* the widening binds a slot and its destination (plus the offset's
     * alignment): a device whose bindings are smaller copies instead */
    if (dev->caps.max_binding_bytes < up->slot_bytes + dev->caps.binding_offset_align)
        up->packed = 0;
    return GLSTARK_OK;
}

const char *gs_gles_upload_name(gs_upload_mode mode)
{
    return mode == GS_UPLOAD_RING ? "ring" : mode == GS_UPLOAD_STAGED ? "staged" : "subdata";
}

const char *gs_gles_upload_describe(const gs_gles_upload *up)
{
    return up->packed ? "ring, canonical writes packed narrow" : gs_gles_upload_name(up->mode);
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
    if (up->stage)
        glDeleteBuffers(1, &up->stage);
    up->stage = 0;
}

/* Creates the ring; a refusal drops this writer to STAGED (SUBDATA on a
 * software renderer) for good. */
static void ensure_ring(gs_gles_upload *up, gs_gl_device *dev)
{
    if (up->ring)
        return;
    const size_t size = GS_UPLOAD_SLOTS * up->slot_bytes;
    up->map = gs_gl_map_persistent(dev, GL_COPY_READ_BUFFER, size, GL_MAP_WRITE_BIT, &up->ring);
    if (!up->map) {
        up->mode = mode_without_ring(dev);
        up->packed = 0; /* packing rides on the ring */
        gs_gl_log(dev, GLSTARK_LOG_WARN,
                  "upload: the driver refused a persistently mapped %zu-byte ring; writing through %s", size,
                  gs_gles_upload_name(up->mode));
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
    size_t slot_bytes;
    int check; /* the words must be canonical field values */
    unsigned slot[GS_UPLOAD_BATCH];
    size_t from[GS_UPLOAD_BATCH], len[GS_UPLOAD_BATCH];
    size_t first_bad[GS_UPLOAD_BATCH]; /* per slot: byte offset in src of its first word >= p, or SIZE_MAX */
    int packed;                        /* pack each slot narrow (check is set too) */
    unsigned width[GS_UPLOAD_BATCH];   /* per slot: the bits a value took (32: copied as they are) */
} fill_job;

/* Bytes copied before the source just copied is checked: small enough that
 * the check reads it from the core's cache, not memory again. */
#define FILL_CHECK_STEP ((size_t)256 << 10)

/* Slot k as it is: copied in steps, each checked while in cache when the
 * words must be canonical. */
static void copy_slot(fill_job *j, size_t k)
{
    unsigned char *to = j->map + (size_t)j->slot[k] * j->slot_bytes;
    const unsigned char *from = j->src + j->from[k];
    j->first_bad[k] = SIZE_MAX;
    j->width[k] = 32;
    for (size_t at = 0; at < j->len[k]; at += FILL_CHECK_STEP) {
        size_t step = j->len[k] - at < FILL_CHECK_STEP ? j->len[k] - at : FILL_CHECK_STEP;
        memcpy(to + at, from + at, step);
        if (!j->check)
            continue;
        size_t words = step / sizeof(uint32_t);
        size_t bad = gs_first_non_canonical((const uint32_t *)(from + at), words, 1);
        if (bad < words) {
            j->first_bad[k] = j->from[k] + at + bad * sizeof(uint32_t);
            break;
        }
    }
}

/* Slot k of a packed batch: the OR of its values picks the width; values
 * below 2^16 are canonical, so only full-width slots need the check. */
static void pack_slot(fill_job *j, size_t k)
{
    const uint32_t *from = (const uint32_t *)(const void *)(j->src + j->from[k]);
    const size_t n = j->len[k] / sizeof(uint32_t);
    const unsigned width = gs_pack_width(gs_words_or(from, n));
    if (width == 32) {
        copy_slot(j, k);
        return;
    }
    j->first_bad[k] = SIZE_MAX;
    j->width[k] = width;
    gs_pack_words((uint32_t *)(void *)(j->map + (size_t)j->slot[k] * j->slot_bytes), from, n, width);
}

static void fill_slots(void *ctx, size_t b, size_t e, unsigned worker)
{
    (void)worker;
    fill_job *j = ctx;
    for (size_t k = b; k < e; k++) {
        if (j->packed)
            pack_slot(j, k);
        else
            copy_slot(j, k);
    }
}

/* Widens slots [k0, k1) of a packed batch (consecutive ring slots holding
 * consecutive pieces of one write, all full but perhaps the last) into dst
 * at byte off + j->from[k0]: one dispatch of glsl/unpack.comp, which reads
 * them from the ring itself, full-width slots included. */
static glstark_status unpack_group(gs_gles_upload *up, gs_gl_device *dev, gs_gl_program *prog, GLuint dst, size_t off,
                                   const fill_job *j, size_t k0, size_t k1, gs_error *err)
{
    const size_t align = dev->caps.binding_offset_align, first = off + j->from[k0], base = first - first % align;
    const size_t slot_words = up->slot_bytes / sizeof(uint32_t);
    size_t words = 0;
    GLuint width_log[GS_UPLOAD_BATCH] = {0}, src_word[GS_UPLOAD_BATCH] = {0};
    for (size_t k = k0; k < k1; k++) {
        const size_t n = j->len[k] / sizeof(uint32_t);
        width_log[k - k0] = j->width[k] == 1 ? 0u : j->width[k] == 8 ? 3u : j->width[k] == 16 ? 4u : 5u;
        src_word[k - k0] = (GLuint)((j->slot[k] - j->slot[k0]) * slot_words);
        words += n;
        up->packed_bytes += gs_packed_words(n, j->width[k]) * sizeof(uint32_t);
    }
    up->packed_words += words;
    glstark_status st = gs_gl_bind_range(dev, 0, up->ring, (uint64_t)j->slot[k0] * up->slot_bytes,
                                         (uint64_t)(k1 - k0) * up->slot_bytes, err);
    if (!st)
        st = gs_gl_bind_range(dev, 1, dst, base, first - base + words * sizeof(uint32_t), err);
    if (st)
        return st;
    unsigned slot_log = 0;
    while (((size_t)1 << slot_log) < slot_words)
        slot_log++;
    GLuint p = gs_gl_program_name(prog);
    glProgramUniform1ui(p, up->loc_slot_log, slot_log);
    glProgramUniform1uiv(p, up->loc_width_log, GS_UPLOAD_BATCH, width_log);
    glProgramUniform1uiv(p, up->loc_src_word, GS_UPLOAD_BATCH, src_word);
    glProgramUniform1ui(p, up->loc_lead, (GLuint)((first - base) / sizeof(uint32_t)));
    return gs_gl_dispatch_1d(dev, prog, words, err);
}

/* Widens a packed batch into dst, from byte off on: its slots in groups of
 * consecutive ring slots (a batch wraps at the ring's end) whose ring and
 * destination ranges each fit a binding (gs_gles_upload_init packs only
 * where one slot does). Usually one group, so one dispatch a batch. */
static glstark_status unpack_batch(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const fill_job *j,
                                   size_t cnt, gs_error *err)
{
    _Static_assert(GS_UPLOAD_BATCH == 8, "glsl/unpack.comp holds 8 slots a dispatch");
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, "unpack.comp", NULL, &prog, err);
    if (st)
        return st;
    if (!up->unpack_loc_ok) {
        up->loc_slot_log = gs_gl_program_uniform(prog, "gs_slot_log");
        up->loc_width_log = gs_gl_program_uniform(prog, "gs_width_log");
        up->loc_src_word = gs_gl_program_uniform(prog, "gs_src_word");
        up->loc_lead = gs_gl_program_uniform(prog, "gs_lead");
        up->unpack_loc_ok = 1;
    }
    const uint64_t limit = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    for (size_t k0 = 0, k1; !st && k0 < cnt; k0 = k1) {
        uint64_t dst_bytes = (off + j->from[k0]) % align + j->len[k0];
        for (k1 = k0 + 1; k1 < cnt && j->slot[k1] == j->slot[k1 - 1] + 1; k1++) {
            if ((uint64_t)(k1 + 1 - k0) * up->slot_bytes > limit || dst_bytes + j->len[k1] > limit)
                break;
            dst_bytes += j->len[k1];
        }
        st = unpack_group(up, dev, prog, dst, off, j, k0, k1, err);
    }
    return st;
}

/* A small write in ring mode: appended to the open slot, whose fence is
 * renewed after each copy so it covers every copy out of the slot. */
static glstark_status small_write(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                  size_t n, gs_error *err)
{
    if (!up->open || up->fill + n > up->slot_bytes) {
        unsigned i = up->next;
        glstark_status st = wait_slot(up, dev, i, err);
        if (st)
            return st;
        up->cur = i;
        up->fill = 0;
        up->open = 1;
        up->next = (i + 1) % GS_UPLOAD_SLOTS;
    }
    size_t at = (size_t)up->cur * up->slot_bytes + up->fill;
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

/* STAGED: each piece of at most one slot's size is given to the staging
 * buffer as its new contents (glBufferData: fresh storage, so a copy still
 * reading the previous piece is not disturbed) and copied on the GPU, in
 * order with the kernels around it. */
static glstark_status staged_write(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                   size_t n, gs_error *err)
{
    if (!up->stage)
        glGenBuffers(1, &up->stage);
    glBindBuffer(GL_COPY_READ_BUFFER, up->stage);
    glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
    for (size_t done = 0; done < n;) {
        size_t len = n - done < up->slot_bytes ? n - done : up->slot_bytes;
        glBufferData(GL_COPY_READ_BUFFER, (GLsizeiptr)len, (const unsigned char *)src + done, GL_STREAM_COPY);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, (GLintptr)(off + done), (GLsizeiptr)len);
        done += len;
    }
    return gs_gl_check(dev, err, "gles buffer write (staged copy)");
}

/* Below this a write is appended to the open slot (small_write), which must
 * hold it whole. */
static size_t ring_min(const gs_gles_upload *up)
{
    return up->slot_bytes < GS_UPLOAD_RING_MIN ? up->slot_bytes : GS_UPLOAD_RING_MIN;
}

/* The write behind both entry points; with `check`, n is a whole number of
 * words and *first_bad (bytes into src) is set to the first word >= p, or
 * n when there is none. A bad word stops the write after its batch. */
static glstark_status write_impl(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                 size_t n, int check, size_t *first_bad, gs_error *err)
{
    if (up->mode == GS_UPLOAD_RING)
        ensure_ring(up, dev);
    if (check)
        *first_bad = n;
    /* paths that copy no bytes themselves check the source in one pass */
    if (check && (up->mode != GS_UPLOAD_RING || n < ring_min(up))) {
        size_t words = n / sizeof(uint32_t), bad = gs_first_non_canonical(src, words, n < ring_min(up) ? 1 : 0);
        if (bad < words) {
            *first_bad = bad * sizeof(uint32_t);
            return GLSTARK_OK;
        }
    }
    if (up->mode == GS_UPLOAD_STAGED)
        return staged_write(up, dev, dst, off, src, n, err);
    if (up->mode != GS_UPLOAD_RING) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
        glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)off, (GLsizeiptr)n, src);
        return gs_gl_check(dev, err, "gles buffer write (glBufferSubData)");
    }
    if (n < ring_min(up))
        return small_write(up, dev, dst, off, src, n, err);
    up->open = 0; /* large writes take whole slots; small ones then open a fresh one */
    glstark_status st = GLSTARK_OK;
    for (size_t done = 0; !st && done < n;) {
        /* the next batch of slots: wait until the GPU has drained them */
        fill_job j = {.map = up->map, .src = src, .slot_bytes = up->slot_bytes, .check = check,
                      .packed = check && up->packed};
        size_t cnt = 0, at = done;
        while (cnt < GS_UPLOAD_BATCH && at < n) {
            unsigned i = (up->next + (unsigned)cnt) % GS_UPLOAD_SLOTS;
            if ((st = wait_slot(up, dev, i, err)))
                return st;
            j.slot[cnt] = i;
            j.from[cnt] = at;
            j.len[cnt] = n - at < up->slot_bytes ? n - at : up->slot_bytes;
            at += j.len[cnt];
            cnt++;
        }
        gs_parallel_for(up->threads < cnt ? up->threads : (unsigned)cnt, cnt, fill_slots, &j);
        for (size_t k = 0; check && k < cnt; k++)
            if (j.first_bad[k] < *first_bad)
                *first_bad = j.first_bad[k];
        if (check && *first_bad < n)
            break; /* a bad value: the write stops, its last batch unused */
        if (j.packed) {
            if ((st = unpack_batch(up, dev, dst, off, &j, cnt, err)))
                return st;
            for (size_t k = 0; k < cnt; k++)
                up->fence[j.slot[k]] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        } else {
            glBindBuffer(GL_COPY_READ_BUFFER, up->ring);
            glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
            for (size_t k = 0; k < cnt; k++) {
                glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                                    (GLintptr)((size_t)j.slot[k] * up->slot_bytes), (GLintptr)(off + j.from[k]),
                                    (GLsizeiptr)j.len[k]);
                up->fence[j.slot[k]] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
            }
        }
        glFlush(); /* start the copies now, not at the next sync */
        up->next = (up->next + (unsigned)cnt) % GS_UPLOAD_SLOTS;
        done = at;
        st = gs_gl_check(dev, err, "gles buffer write (ring copy)");
    }
    return st;
}

glstark_status gs_gles_upload_write(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                    size_t n, gs_error *err)
{
    return write_impl(up, dev, dst, off, src, n, 0, NULL, err);
}

glstark_status gs_gles_upload_write_canonical(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off,
                                              const uint32_t *src, size_t count, size_t *first_bad, gs_error *err)
{
    size_t bad_byte;
    glstark_status st = write_impl(up, dev, dst, off, src, count * sizeof(uint32_t), 1, &bad_byte, err);
    *first_bad = bad_byte / sizeof(uint32_t);
    return st;
}
