/* A growing byte buffer for building keys, encodings and text: appends
 * double the capacity as needed; a failed allocation sets `oom` and makes
 * later appends no-ops, so callers check once at the end. Start from
 * {0}; the bytes are the caller's to free (free(b.p)). */
#ifndef GS_UTIL_BYTEBUF_H
#define GS_UTIL_BYTEBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct gs_bytebuf {
    uint8_t *p;
    size_t len, cap;
    int oom;
} gs_bytebuf;

/* Room for n more bytes after len: 1, or 0 (and oom set) if it cannot be had. */
int gs_bytebuf_reserve(gs_bytebuf *b, size_t n);

/* Appends n bytes of src. */
void gs_bytebuf_put(gs_bytebuf *b, const void *src, size_t n);

#endif
