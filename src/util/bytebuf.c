#include "util/bytebuf.h"

#include <stdlib.h>
#include <string.h>

int gs_bytebuf_reserve(gs_bytebuf *b, size_t n)
{
    if (b->oom)
        return 0;
    if (b->len + n <= b->cap)
        return 1;
    if (n > SIZE_MAX - b->len) {
        b->oom = 1;
        return 0;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return 0;
        }
        cap *= 2;
    }
    uint8_t *q = realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return 0;
    }
    b->p = q;
    b->cap = cap;
    return 1;
}

void gs_bytebuf_put(gs_bytebuf *b, const void *src, size_t n)
{
    if (n == 0 || !gs_bytebuf_reserve(b, n))
        return;
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
