/* The engine's queue of reads the host needs only later (read_later.h). */
#include "engine/read_later.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct later_item {
    void *dst;
    size_t at;         /* bytes into the staging buffer */
    size_t item, count, stride;
} later_item;

struct gs_read_later {
    gs_buf *stage;     /* NULL when nothing is queued */
    size_t used;
    later_item *items;
    size_t n, cap;
};

static struct gs_read_later *queue_of(gs_engine *eng)
{
    if (!eng->later)
        eng->later = calloc(1, sizeof *eng->later);
    return eng->later;
}

/* Room for `more` bytes in the staging buffer: a larger one takes the
 * queued bytes with an engine copy (no host sync). */
static glstark_status stage_room(gs_engine *eng, struct gs_read_later *q, size_t more)
{
    size_t have = q->stage ? q->stage->size : 0;
    if (q->used + more <= have)
        return GLSTARK_OK;
    size_t want = have ? have : 4096;
    while (want < q->used + more)
        want *= 2;
    gs_buf *b = NULL;
    glstark_status st = gs_buf_create(eng, want, &b);
    if (!st && q->used)
        st = gs_buf_copy(b, 0, q->stage, 0, q->used);
    if (st) {
        gs_buf_destroy(b);
        return st;
    }
    gs_buf_destroy(q->stage);
    q->stage = b;
    return GLSTARK_OK;
}

/* Room for `more` items in the list. */
static glstark_status items_room(gs_engine *eng, struct gs_read_later *q, size_t more)
{
    if (q->n + more <= q->cap)
        return GLSTARK_OK;
    size_t cap = q->cap ? 2 * q->cap : 16;
    while (cap < q->n + more)
        cap *= 2;
    later_item *p = realloc(q->items, cap * sizeof *p);
    if (!p)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "read later: out of host memory");
    q->items = p;
    q->cap = cap;
    return GLSTARK_OK;
}

/* Appends bytes [off, off + bytes) of buf to the staging buffer with one
 * engine copy; *at says where they start there. */
static glstark_status stage_copy(gs_engine *eng, struct gs_read_later *q, const gs_buf *buf, size_t off, size_t bytes,
                                 size_t *at)
{
    /* word-aligned places, so large copies may go through a copy kernel */
    size_t padded = (bytes + 3) & ~(size_t)3;
    glstark_status st = stage_room(eng, q, padded);
    if (!st)
        st = gs_buf_copy(q->stage, q->used, buf, off, bytes);
    if (st)
        return st;
    *at = q->used;
    q->used += padded;
    return GLSTARK_OK;
}

/* Appends bytes [off, off + bytes) of buf to the staging buffer, for item. */
static glstark_status queue_copy(gs_engine *eng, struct gs_read_later *q, const gs_buf *buf, size_t off, size_t bytes,
                                 later_item it)
{
    glstark_status st = items_room(eng, q, 1);
    if (!st)
        st = stage_copy(eng, q, buf, off, bytes, &it.at);
    if (st)
        return st;
    q->items[q->n++] = it;
    return GLSTARK_OK;
}

glstark_status gs_buf_read_later(const gs_buf *buf, size_t offset, void *dst, size_t item_bytes, size_t count,
                                 size_t dst_stride)
{
    gs_engine *eng = buf->engine;
    if (count && item_bytes > SIZE_MAX / count)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "read later: %zu items of %zu bytes overflow",
                            count, item_bytes);
    if (count == 0 || item_bytes == 0)
        return GLSTARK_OK;
    struct gs_read_later *q = queue_of(eng);
    if (!q)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "read later: out of host memory");
    later_item it = {dst, 0, item_bytes, count, dst_stride};
    return queue_copy(eng, q, buf, offset, item_bytes * count, it);
}

glstark_status gs_buf_read_later_scatter(const gs_buf *buf, size_t offset, void *const *dsts, size_t ndst,
                                         size_t item_bytes, size_t count, size_t dst_stride)
{
    gs_engine *eng = buf->engine;
    if (count && item_bytes > SIZE_MAX / count)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "read later: %zu items of %zu bytes overflow",
                            count, item_bytes);
    const size_t per = item_bytes * count;
    if (ndst && per > SIZE_MAX / ndst)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "read later: %zu destinations of %zu bytes overflow", ndst, per);
    if (ndst == 0 || per == 0)
        return GLSTARK_OK;
    struct gs_read_later *q = queue_of(eng);
    if (!q)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "read later: out of host memory");
    size_t at = 0;
    glstark_status st = items_room(eng, q, ndst);
    if (!st)
        st = stage_copy(eng, q, buf, offset, per * ndst, &at);
    if (st)
        return st;
    for (size_t d = 0; d < ndst; d++)
        q->items[q->n++] = (later_item){dsts[d], at + d * per, item_bytes, count, dst_stride};
    return GLSTARK_OK;
}

/* Reads the staging buffer once and hands every queued item its bytes. */
static glstark_status read_all(gs_engine *eng, struct gs_read_later *q)
{
    unsigned char *host = malloc(q->used);
    if (!host)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "read later: out of host memory for %zu bytes",
                            q->used);
    gs_buf *stage = q->stage;
    size_t used = q->used;
    q->stage = NULL; /* gs_buf_read below must not take the queue along again */
    q->used = 0;
    glstark_status st = gs_buf_read(stage, 0, host, used);
    for (size_t i = 0; !st && i < q->n; i++) {
        const later_item *it = &q->items[i];
        for (size_t k = 0; k < it->count; k++)
            memcpy((unsigned char *)it->dst + k * it->stride, host + it->at + k * it->item, it->item);
    }
    q->n = 0;
    free(host);
    gs_buf_destroy(stage);
    return st;
}

glstark_status gs_engine_read_flush(gs_engine *eng)
{
    struct gs_read_later *q = eng->later;
    if (!q || !q->n)
        return GLSTARK_OK;
    return read_all(eng, q);
}

void gs_engine_read_drop(gs_engine *eng)
{
    struct gs_read_later *q = eng->later;
    if (!q)
        return;
    gs_buf_destroy(q->stage);
    q->stage = NULL;
    q->used = 0;
    q->n = 0;
}

glstark_status gs_read_later_with(const gs_buf *buf, size_t offset, void *dst, size_t bytes, int *done)
{
    gs_engine *eng = buf->engine;
    struct gs_read_later *q = eng->later;
    *done = 0;
    if (!q || !q->n || !q->stage || bytes == 0)
        return GLSTARK_OK;
    *done = 1;
    later_item it = {dst, 0, bytes, 1, bytes};
    glstark_status st = queue_copy(eng, q, buf, offset, bytes, it);
    return st ? st : read_all(eng, q);
}

void gs_read_later_free(gs_engine *eng)
{
    if (!eng || !eng->later)
        return;
    free(eng->later->items);
    free(eng->later);
    eng->later = NULL;
}
