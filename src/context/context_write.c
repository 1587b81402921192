/* Writing a proving-context file (version 1) from glstark's own AIRs: the
 * proving key's preprocessed traces, then every present trace in ascending
 * AIR order. The rows go to the file through a buffer of a few MB, so
 * writing a large trace never holds a second copy of it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "api/keys_internal.h"
#include "context/context.h"
#include "field/babybear.h"

enum { OUT_WORDS = 1 << 20 }; /* 4 MB */

typedef struct ctx_out {
    FILE *f;
    const char *path;
    uint32_t *buf;
    size_t used;
    int failed;
} ctx_out;

static void flush_out(ctx_out *o)
{
    if (o->failed || !o->used)
        return;
    uint8_t *b = (uint8_t *)o->buf;
    /* little-endian bytes whatever the host */
    for (size_t i = 0; i < o->used; i++) {
        const uint32_t v = o->buf[i];
        b[4 * i] = (uint8_t)v;
        b[4 * i + 1] = (uint8_t)(v >> 8);
        b[4 * i + 2] = (uint8_t)(v >> 16);
        b[4 * i + 3] = (uint8_t)(v >> 24);
    }
    if (fwrite(b, 4, o->used, o->f) != o->used)
        o->failed = 1;
    o->used = 0;
}

static void put_word(ctx_out *o, uint32_t v)
{
    if (o->used == OUT_WORDS)
        flush_out(o);
    o->buf[o->used++] = v;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static glstark_status fail(char *msg, size_t msg_size, glstark_status st, const char *fmt, ...)
{
    if (msg && msg_size) {
        char m[384];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m, sizeof m, fmt, ap);
        va_end(ap);
        snprintf(msg, msg_size, "glstark_context_write: %s", m);
    }
    return st;
}

/* One column-major part, as rows; every value checked below p. */
static glstark_status put_part(ctx_out *o, const glstark_trace_part *p, size_t height, size_t air, char *msg,
                               size_t msg_size)
{
    put_word(o, (uint32_t)height);
    put_word(o, (uint32_t)p->width);
    for (size_t r = 0; r < height; r++)
        for (size_t c = 0; c < p->width; c++) {
            const uint32_t v = p->values[c * height + r];
            if (v >= BB_P)
                return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                            "AIR %zu: row %zu, column %zu is not below p (values are canonical BabyBear)", air, r, c);
            put_word(o, v);
        }
    return GLSTARK_OK;
}

/* The shapes of the traces against the key, before a byte is written. */
static glstark_status check_traces(const gs_multi_pk *pk, const glstark_air_trace *traces, char *msg, size_t msg_size)
{
    const gs_multi_vk *vk = &pk->vk;
    int any = 0;
    for (size_t a = 0; a < vk->num_airs; a++) {
        const gs_air_vk *av = &vk->per_air[a];
        const glstark_air_trace *t = &traces[a];
        if (t->height == 0) {
            if (av->is_required)
                return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                            "AIR %zu is required by the key but its trace has height 0", a);
            continue;
        }
        any = 1;
        if (t->height & (t->height - 1) || t->height > UINT32_MAX)
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT, "AIR %zu: height %zu is not a power of two",
                        a, t->height);
        if (!t->common_main.values)
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                        "AIR %zu: no common main values (a streamed trace cannot be written)", a);
        if (t->common_main.width != av->common_main_width)
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT, "AIR %zu: common main width %zu, the key says %zu",
                        a, t->common_main.width, av->common_main_width);
        if (t->num_public_values != av->num_public_values || (av->num_public_values && !t->public_values))
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT, "AIR %zu: %zu public values, the key says %zu", a,
                        t->num_public_values, av->num_public_values);
        if (av->num_cached_mains && !t->cached_mains)
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT, "AIR %zu: no cached mains, the key has %zu",
                        a, av->num_cached_mains);
        for (size_t i = 0; i < av->num_cached_mains; i++)
            if (!t->cached_mains[i].values || t->cached_mains[i].width != av->cached_main_widths[i])
                return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                            "AIR %zu: cached main %zu is missing or not %zu columns wide", a, i,
                            av->cached_main_widths[i]);
        const glstark_air *air = pk->airs ? pk->airs[a] : NULL;
        if (av->has_preprocessed_data && air && air->preprocessed_height != t->height)
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                        "AIR %zu: %zu rows, its preprocessed trace has %zu", a, t->height, air->preprocessed_height);
    }
    if (!any)
        return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                    "no trace has a nonzero height (a context proves at least one AIR)");
    return GLSTARK_OK;
}

static glstark_status write_body(ctx_out *o, const gs_multi_pk *pk, const glstark_air_trace *traces, char *msg,
                                 size_t msg_size)
{
    const gs_multi_vk *vk = &pk->vk;
    const size_t n = vk->num_airs;
    const uint8_t *magic = (const uint8_t *)GLSTARK_CONTEXT_MAGIC;
    for (int i = 0; i < 2; i++)
        put_word(o, (uint32_t)magic[4 * i] | ((uint32_t)magic[4 * i + 1] << 8) | ((uint32_t)magic[4 * i + 2] << 16) |
                        ((uint32_t)magic[4 * i + 3] << 24));
    put_word(o, GLSTARK_CONTEXT_VERSION);
    put_word(o, (uint32_t)n);
    size_t num_prep = 0, num_traces = 0;
    for (size_t a = 0; a < n; a++) {
        num_prep += vk->per_air[a].has_preprocessed_data != 0;
        num_traces += traces[a].height != 0;
    }
    put_word(o, (uint32_t)num_prep);
    for (size_t a = 0; a < n; a++) {
        if (!vk->per_air[a].has_preprocessed_data)
            continue;
        const glstark_air *air = pk->airs ? pk->airs[a] : NULL;
        if (!air || !air->preprocessed_trace)
            return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                        "AIR %zu has preprocessed columns but the proving key holds no preprocessed trace",
                        a);
        put_word(o, (uint32_t)a);
        put_word(o, (uint32_t)air->preprocessed_height);
        put_word(o, (uint32_t)air->preprocessed_width);
        const size_t cells = air->preprocessed_height * air->preprocessed_width;
        for (size_t i = 0; i < cells; i++)
            put_word(o, bb_to_canonical(air->preprocessed_trace[i]));
    }
    put_word(o, (uint32_t)num_traces);
    glstark_status st;
    for (size_t a = 0; a < n; a++) {
        const glstark_air_trace *t = &traces[a];
        if (!t->height)
            continue;
        put_word(o, (uint32_t)a);
        put_word(o, (uint32_t)t->num_public_values);
        for (size_t i = 0; i < t->num_public_values; i++) {
            if (t->public_values[i] >= BB_P)
                return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT, "AIR %zu: public value %zu is %u, not below p",
                            a, i, (unsigned)t->public_values[i]);
            put_word(o, t->public_values[i]);
        }
        const size_t nc = vk->per_air[a].num_cached_mains;
        put_word(o, (uint32_t)nc);
        for (size_t i = 0; i < nc; i++)
            if ((st = put_part(o, &t->cached_mains[i], t->height, a, msg, msg_size)))
                return st;
        put_word(o, 1); /* common_main_present */
        if ((st = put_part(o, &t->common_main, t->height, a, msg, msg_size)))
            return st;
    }
    return GLSTARK_OK;
}

glstark_status glstark_context_write(const char *path, const glstark_proving_key *pk, const glstark_air_trace *traces,
                                     size_t num_traces, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!path || !pk || !traces)
        return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT, "NULL path, key or traces");
    if (num_traces != pk->pk.vk.num_airs)
        return fail(msg, msg_size, GLSTARK_ERR_INVALID_ARGUMENT,
                    "%zu traces for a key of %zu AIRs (one per AIR, height 0 for an absent one)", num_traces,
                    pk->pk.vk.num_airs);
    glstark_status st = check_traces(&pk->pk, traces, msg, msg_size);
    if (st)
        return st;
    ctx_out o = {NULL, path, malloc(OUT_WORDS * sizeof(uint32_t)), 0, 0};
    if (!o.buf)
        return fail(msg, msg_size, GLSTARK_ERR_OUT_OF_MEMORY, "out of host memory");
    o.f = fopen(path, "wb");
    if (!o.f) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "glstark_context_write: cannot create %s: %s", path, strerror(errno));
        free(o.buf);
        return GLSTARK_ERR_IO;
    }
    st = write_body(&o, &pk->pk, traces, msg, msg_size);
    flush_out(&o);
    const int closed = fclose(o.f) == 0;
    free(o.buf);
    if (!st && (o.failed || !closed)) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "glstark_context_write: error writing %s (disk full?)", path);
        st = GLSTARK_ERR_IO;
    }
    if (st)
        remove(path); /* no half-written context is left behind */
    return st;
}
