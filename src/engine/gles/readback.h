/* Reading GPU buffers back to the host: the one place the GLES engine waits
 * for the GPU on the proof's behalf (each read is a counted host sync).
 *
 * ES has no glGetBufferSubData, so a read either maps the buffer holding the
 * data (MAP) or first copies the bytes into a small host-visible staging
 * buffer and reads that: mapped per read (STAGING), or mapped once for good
 * with GL_EXT_buffer_storage and waited on with a fence (PERSISTENT). On
 * NVIDIA, mapping a device buffer for reading costs ~2 ms per map, so the
 * ~100 reads of a proof decide whether it takes 0.3 s more or not. Reads
 * larger than the staging limit go through it in pieces (except in MAP). */
#ifndef GS_ENGINE_GLES_READBACK_H
#define GS_ENGINE_GLES_READBACK_H

#include <stddef.h>

#include "gles/gl_device.h"
#include "util/error.h"

/* Staging buffer size limit; larger reads are split. */
#define GS_READBACK_STAGING_MAX ((size_t)16 << 20)

typedef struct gs_gles_readback {
    glstark_readback mode; /* resolved: PERSISTENT, STAGING or MAP */
    GLuint buf;            /* staging buffer, 0 until the first staged read */
    size_t size;
    const void *map;       /* PERSISTENT: the mapping of buf */
} gs_gles_readback;

/* Picks the mode for dev (options and what the driver has) and records it
 * in dev->caps.readback. No GL work. */
void gs_gles_readback_init(gs_gles_readback *rb, gs_gl_device *dev);

/* Copies bytes [off, off + n) of buffer object src to dst, after the
 * caller's barrier made shader writes visible. Waits for the GPU. */
glstark_status gs_gles_readback_read(gs_gles_readback *rb, gs_gl_device *dev, GLuint src, size_t off, void *dst,
                                     size_t n, gs_error *err);

/* Deletes the staging buffer (the context must be current). */
void gs_gles_readback_free(gs_gles_readback *rb);

/* The mode's name for logs and glstark-info ("persistent", ...). */
const char *gs_gles_readback_name(glstark_readback mode);

#endif
