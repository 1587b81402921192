/* Host-to-GPU writes for the GLES engine.
 *
 * glBufferSubData copies the caller's bytes into driver memory and moves
 * them on from there; on the NVIDIA driver measured (docs/performance.md)
 * that runs at ~2.7 GB/s for the 345 MB keccakf trace. The RING path instead
 * keeps a few slots of persistently mapped, host-visible memory
 * (GL_EXT_buffer_storage): host threads copy chunks into free slots (one
 * thread per slot, up to GS_UPLOAD_BATCH at once: one core's memcpy is what
 * limits a single-threaded upload) while the GPU copies earlier slots into
 * the destination (glCopyBufferSubData); a fence per slot says when it may
 * be refilled. Only the calling thread makes GL calls. Small writes are
 * appended to one open slot, so in RING mode every host write is a copy
 * command in the GPU's stream.
 *
 * That matters beyond speed. On the NVIDIA 580 driver a glBufferSubData into a
 * buffer that an earlier, still running dispatch writes can be overtaken by
 * that dispatch's writes even after glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT)
 * (seen with test buffers poisoned by a fill kernel right after creation: the
 * uploaded inputs came back as the poison); a copy command is ordered like any
 * other GPU command. SUBDATA (the default on software renderers, which run
 * GL commands in order on the host) relies on the barrier as the GL spec
 * defines it. STAGED keeps the copy-command ordering without a mapping:
 * each piece goes into a staging buffer that no shader touches
 * (glBufferData, which gives it fresh storage while earlier copies may
 * still read the old) and is copied into the destination on the GPU.
 * Measured on the NVIDIA 580 driver (docs/performance.md): SUBDATA made
 * keccakf proofs that failed verification or the engine's own checks in
 * every configuration; STAGED and RING made OpenVM's bytes. So a hardware
 * driver without buffer storage, or one that refuses the mapping, gets
 * STAGED, and so does GLSTARK_UPLOAD=subdata on a hardware driver.
 *
 * PACKED (the ring with `packed` set) narrows canonical writes on their way:
 * each slot crosses at the narrowest of 1, 8, 16 or 32 bits that holds its
 * values, and glsl/unpack.comp, reading the slots from the ring, widens a
 * batch into the destination, one dispatch per run of consecutive slots
 * that fits a binding (upload_pack.h). */
#ifndef GS_ENGINE_GLES_UPLOAD_H
#define GS_ENGINE_GLES_UPLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "gles/gl_device.h"
#include "util/error.h"

#define GS_UPLOAD_SLOTS 16
/* Slot size on desktop-class GPUs, and on the others (caps.desktop_class):
 * the ring is pinned host memory, which a board shares with its GPU, so it
 * is 8 MiB there instead of 64 (docs/performance.md, the board profile). */
#define GS_UPLOAD_SLOT_BYTES ((size_t)4 << 20)
#define GS_UPLOAD_SLOT_BYTES_SMALL ((size_t)512 << 10)
/* Slots filled at once, one host thread each (half the ring, so the GPU
 * drains one half while the host fills the other). */
#define GS_UPLOAD_BATCH 8
/* Writes from this size (or a slot's, if smaller) take whole slots filled
 * by several threads; smaller ones are appended to the open slot. */
#define GS_UPLOAD_RING_MIN ((size_t)1 << 20)

typedef enum gs_upload_mode { GS_UPLOAD_SUBDATA = 1, GS_UPLOAD_RING = 2, GS_UPLOAD_STAGED = 3 } gs_upload_mode;

typedef struct gs_gles_upload {
    gs_upload_mode mode;
    GLuint ring;     /* GS_UPLOAD_SLOTS slots, 0 until the first large write */
    GLuint stage;    /* STAGED: the staging buffer, 0 until the first write */
    void *map;       /* its persistent, coherent mapping */
    size_t slot_bytes; /* GS_UPLOAD_SLOT_BYTES or GS_UPLOAD_SLOT_BYTES_SMALL */
    GLsync fence[GS_UPLOAD_SLOTS];
    unsigned next;   /* slot to fill next */
    unsigned cur;    /* the slot small writes append to, while `open` */
    int open;
    size_t fill;     /* bytes of `cur` used */
    uint64_t waits;  /* times the host found a slot still in use and waited */
    unsigned threads; /* host threads filling slots (1 .. GS_UPLOAD_BATCH) */
    int packed;       /* canonical writes cross packed narrow where they fit (upload_pack.h); only in RING */
    uint64_t packed_bytes, packed_words; /* bytes the packed path sent (full-width slots too), words they carried */
    int unpack_loc_ok;                   /* glsl/unpack.comp's uniform locations below are read */
    GLint loc_slot_log, loc_width_log, loc_src_word, loc_lead;
} gs_gles_upload;

/* Picks the mode: GLSTARK_UPLOAD=auto|packed|ring|subdata|staged. auto:
 * RING on hardware GPUs whose driver has GL_EXT_buffer_storage, packed
 * (RING with `packed` set) where the GPU is desktop-class (its own memory
 * behind a bus), STAGED on other hardware GPUs, SUBDATA on software
 * renderers; subdata is STAGED on hardware GPUs, packed is RING packed
 * wherever the ring is. Bad values are errors. No GL work. */
glstark_status gs_gles_upload_init(gs_gles_upload *up, gs_gl_device *dev, gs_error *err);

/* Writes n bytes of src into buffer object dst at byte off. Returns once src
 * may be reused; the GPU-side copies may still be queued (GL orders them
 * before later commands that read dst). */
glstark_status gs_gles_upload_write(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off, const void *src,
                                    size_t n, gs_error *err);

/* The same for `count` 32-bit words that must be canonical field values
 * (each < p), checked as they are copied (in ring mode each piece right
 * after its copy, while it is in cache: no separate pass over the source).
 * *first_bad is the index of the first word >= p, or count; after a bad
 * word dst holds an unspecified prefix of src. */
glstark_status gs_gles_upload_write_canonical(gs_gles_upload *up, gs_gl_device *dev, GLuint dst, size_t off,
                                              const uint32_t *src, size_t count, size_t *first_bad, gs_error *err);

/* Deletes the ring and the staging buffer (the context must be current). */
void gs_gles_upload_free(gs_gles_upload *up);

const char *gs_gles_upload_name(gs_upload_mode mode);
/* The writer's path in words, for logs: the mode, and whether it packs. */
const char *gs_gles_upload_describe(const gs_gles_upload *up);

#endif
