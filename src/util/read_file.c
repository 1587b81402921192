#include "util/read_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

glstark_status gs_read_file(const char *path, size_t max, uint8_t **bytes, size_t *len, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = 0;
    if (max > SIZE_MAX / 2)
        max = SIZE_MAX / 2; /* so max + 1 below cannot wrap */
    *bytes = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "cannot open %s: %s", path, strerror(errno));
        return GLSTARK_ERR_IO;
    }
    /* Grow by doubling, never past max + 1 bytes: reading one byte more than
     * max is how a file that is too large shows (its size is not asked for
     * first, since pipes and devices have none). */
    size_t cap = max < ((size_t)1 << 16) ? max + 1 : (size_t)1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    int too_large = 0;
    while (b) {
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n > max) {
            too_large = 1;
            break;
        }
        if (n < cap)
            break;
        size_t next = cap > max / 2 ? max + 1 : cap * 2;
        uint8_t *nb = realloc(b, next);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap = next;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "out of host memory reading %s (%zu bytes read)", path, n);
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    if (too_large) {
        free(b);
        if (msg && msg_size)
            snprintf(msg, msg_size,
                     "%s holds more than %zu bytes, more than any proof or key; check the path (a device or a pipe "
                     "that never ends reads as endless)",
                     path, max);
        return GLSTARK_ERR_IO;
    }
    if (bad) {
        free(b);
        if (msg && msg_size)
            snprintf(msg, msg_size, "error reading %s after %zu bytes", path, n);
        return GLSTARK_ERR_IO;
    }
    *bytes = b;
    *len = n;
    return GLSTARK_OK;
}
