/* The public proving-context API (include/glstark/context.h): opening a
 * context file against its key, the proving key made from an OpenVM
 * verifying key, and proving a context's traces. The format itself is read
 * in context/context_parse.c and written in context/context_write.c. */
#include "glstark/context.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "air/air_internal.h"
#include "api/keys_internal.h"
#include "common/codec_io.h"
#include "context/context.h"
#include "util/read_file.h"

static void put_msg(char *msg, size_t size, const char *text)
{
    if (msg && size)
        snprintf(msg, size, "%s", text);
}

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif

/* Points ctx->words at the file's values: the bytes themselves where they
 * are already native aligned words, else one converted copy. */
static glstark_status set_words(glstark_context *ctx, gs_error *err)
{
    if (HOST_LITTLE_ENDIAN && ((uintptr_t)ctx->bytes % sizeof(uint32_t)) == 0) {
        ctx->words = (const uint32_t *)(const void *)ctx->bytes;
        return GLSTARK_OK;
    }
    const size_t n = ctx->len / 4;
    ctx->owned = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!ctx->owned)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "reading the context: out of host memory for %zu bytes",
                            ctx->len);
    for (size_t i = 0; i < n; i++)
        ctx->owned[i] = gs_load_u32le(ctx->bytes + 4 * i);
    ctx->words = ctx->owned;
    return GLSTARK_OK;
}

/* Words, tables and the check against the key; frees ctx on failure. */
static glstark_status finish_open(glstark_context *ctx, const glstark_verifying_key *vk, glstark_context **out,
                                  char *msg, size_t msg_size)
{
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = set_words(ctx, &err);
    if (!st)
        st = gs_ctx_parse(ctx, &vk->vk, &err);
    ctx->bytes = NULL; /* from here on only the words are read */
    if (st) {
        put_msg(msg, msg_size, err.msg);
        glstark_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return GLSTARK_OK;
}

glstark_status glstark_context_from_bytes(const uint8_t *bytes, size_t len, const glstark_verifying_key *vk,
                                          glstark_context **out, char *msg, size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (out)
        *out = NULL;
    if (!out || !vk || (!bytes && len)) {
        put_msg(msg, msg_size, "glstark_context_from_bytes: NULL bytes, key or output");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    glstark_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        put_msg(msg, msg_size, "glstark_context_from_bytes: out of host memory");
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    static const uint8_t empty[4];
    ctx->bytes = bytes ? bytes : empty;
    ctx->len = len;
    return finish_open(ctx, vk, out, msg, msg_size);
}

glstark_status glstark_context_open(const char *path, const glstark_verifying_key *vk, glstark_context **out,
                                    char *msg, size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (out)
        *out = NULL;
    if (!path || !out || !vk) {
        put_msg(msg, msg_size, "glstark_context_open: NULL path, key or output");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    glstark_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        put_msg(msg, msg_size, "glstark_context_open: out of host memory");
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "cannot open the context %s: %s", path, strerror(errno));
        free(ctx);
        return GLSTARK_ERR_IO;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        /* a regular file is mapped: its pages are the page cache's, read
         * once by the parser and again as the prover asks for rows */
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (m == MAP_FAILED) {
            if (msg && msg_size)
                snprintf(msg, msg_size, "cannot map the context %s (%lld bytes): %s", path, (long long)sb.st_size,
                         strerror(errno));
            free(ctx);
            return GLSTARK_ERR_IO;
        }
        ctx->map = m;
        ctx->map_len = (size_t)sb.st_size;
        ctx->bytes = m;
        ctx->len = (size_t)sb.st_size;
    } else {
        /* a pipe or an empty file: read it whole (with the library's size limit) */
        close(fd);
        uint8_t *b = NULL;
        size_t n = 0;
        char m[512];
        glstark_status st = gs_read_file(path, GLSTARK_READ_FILE_MAX, &b, &n, m, sizeof m);
        if (st) {
            if (msg && msg_size)
                snprintf(msg, msg_size, "cannot read the context: %s", m);
            free(ctx);
            return st;
        }
        ctx->owned = (uint32_t *)(void *)b; /* malloc'd: aligned for words */
        ctx->bytes = b;
        ctx->len = n;
        if (!HOST_LITTLE_ENDIAN) {
            /* set_words makes a converted copy; the raw bytes go after parsing */
            ctx->owned = NULL;
            ctx->map = b;
        }
    }
    return finish_open(ctx, vk, out, msg, msg_size);
}

void glstark_context_destroy(glstark_context *ctx)
{
    if (!ctx)
        return;
    gs_ctx_tables_free(ctx);
    if (ctx->map && ctx->map_len)
        munmap(ctx->map, ctx->map_len);
    else
        free(ctx->map); /* a read buffer kept only for conversion (big-endian host) */
    free(ctx->owned);
    free(ctx);
}

size_t glstark_context_size(const glstark_context *ctx) { return ctx ? ctx->len : 0; }
size_t glstark_context_num_traces(const glstark_context *ctx) { return ctx ? ctx->num_traces : 0; }

size_t glstark_context_trace_height(const glstark_context *ctx, size_t air_id)
{
    if (!ctx || air_id >= ctx->num_airs || !ctx->traces[air_id].present)
        return 0;
    return ctx->traces[air_id].common_main.height;
}

glstark_status glstark_proving_key_from_context(const glstark_verifying_key *vk, const glstark_context *ctx,
                                                glstark_proving_key **out, char *msg, size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (out)
        *out = NULL;
    if (!vk || !ctx || !out) {
        put_msg(msg, msg_size, "glstark_proving_key_from_context: NULL key, context or output");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    const gs_multi_vk *v = &vk->vk;
    if (ctx->num_airs != v->num_airs) {
        if (msg && msg_size)
            snprintf(msg, msg_size,
                     "glstark_proving_key_from_context: the context was opened against a key of %zu AIRs, this key "
                     "has %zu",
                     ctx->num_airs, v->num_airs);
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = GLSTARK_OK;
    glstark_proving_key *k = calloc(1, sizeof *k);
    glstark_verifying_key *copy = NULL;
    if (!k || !(k->owned_airs = calloc(v->num_airs ? v->num_airs : 1, sizeof *k->owned_airs)) ||
        !(k->pk.airs = calloc(v->num_airs ? v->num_airs : 1, sizeof *k->pk.airs))) {
        st = gs_error_set(&err, GLSTARK_ERR_OUT_OF_MEMORY, "glstark_proving_key_from_context: out of host memory");
        goto fail;
    }
    for (size_t a = 0; a < v->num_airs; a++) {
        if ((st = gs_air_from_vk(&v->per_air[a], a, &k->owned_airs[a], &err)))
            goto fail;
        k->num_owned_airs = a + 1;
        k->pk.airs[a] = k->owned_airs[a];
        const gs_ctx_matrix *pm = &ctx->preprocessed[a];
        if (v->per_air[a].has_preprocessed_data && pm->rows &&
            (st = glstark_air_set_preprocessed_trace(k->owned_airs[a], pm->height, pm->rows))) {
            gs_error_set(&err, st, "AIR %zu's preprocessed trace: %s", a,
                         glstark_air_error_message(k->owned_airs[a]));
            goto fail;
        }
    }
    k->pk.num_airs = v->num_airs;
    /* the key itself, with its pre-hash, exactly as given */
    if ((st = gs_vk_copy_to_handle(v, &copy, &err)))
        goto fail;
    k->pk.vk = copy->vk;
    free(copy);
    *out = k;
    return GLSTARK_OK;
fail:
    put_msg(msg, msg_size, err.msg);
    glstark_proving_key_destroy(k);
    return st;
}

/* ---- proving ---- */

/* What glstark_prove_context lends the prover: the checker's column-major
 * copies (constraint check on) and the cached mains' copies. */
typedef struct ctx_prove {
    const glstark_context *ctx;
    uint32_t **column_copies; /* per AIR, or NULL */
    uint32_t **cached_copies;
    size_t num_cached_copies;
} ctx_prove;

static void free_column_copies(void *user)
{
    ctx_prove *cp = user;
    if (!cp->column_copies)
        return;
    for (size_t a = 0; a < cp->ctx->num_airs; a++)
        free(cp->column_copies[a]);
    free(cp->column_copies);
    cp->column_copies = NULL;
}

/* A whole matrix, column-major, in a new array. */
static uint32_t *columns_of(const gs_ctx_matrix *m)
{
    const size_t n = m->height * m->width;
    uint32_t *c = malloc((n ? n : 1) * sizeof *c);
    if (c)
        gs_ctx_rows_to_columns(m, 0, m->height, c);
    return c;
}

glstark_status glstark_prove_context(const glstark_proving_key *pk, const glstark_context *ctx,
                                     const glstark_prove_options *opts, glstark_prove_result *res)
{
    if (!res)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    glstark_prove_result_init(res); /* an output only (prove.h) */
    if (!pk || !ctx) {
        put_msg(res->message, sizeof res->message, "glstark_prove_context: NULL proving key or context");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    if (pk->pk.vk.num_airs != ctx->num_airs) {
        snprintf(res->message, sizeof res->message,
                 "glstark_prove_context: the proving key has %zu AIRs, the context %zu (make the key with "
                 "glstark_proving_key_from_context from the key the context was opened with)",
                 pk->pk.vk.num_airs, ctx->num_airs);
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    if (opts) {
        size_t n = opts->size && opts->size < sizeof o ? opts->size : sizeof o;
        memcpy(&o, opts, n);
    }
    if (o.trace_rows || o.traces_released) {
        put_msg(res->message, sizeof res->message,
                "glstark_prove_context: trace_rows and traces_released must be NULL (the context supplies the rows)");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    const size_t n_airs = ctx->num_airs;
    ctx_prove cp = {ctx, NULL, NULL, 0};
    glstark_air_trace *tr = calloc(n_airs ? n_airs : 1, sizeof *tr);
    const uint32_t **row_major = calloc(n_airs ? n_airs : 1, sizeof *row_major);
    glstark_trace_part *parts = NULL;
    size_t num_parts = 0;
    for (size_t a = 0; a < n_airs; a++)
        num_parts += ctx->traces[a].present ? ctx->traces[a].num_cached_mains : 0;
    parts = calloc(num_parts ? num_parts : 1, sizeof *parts);
    cp.cached_copies = calloc(num_parts ? num_parts : 1, sizeof *cp.cached_copies);
    if (!o.skip_constraint_check)
        cp.column_copies = calloc(n_airs ? n_airs : 1, sizeof *cp.column_copies);
    glstark_status st = GLSTARK_OK;
    if (!tr || !row_major || !parts || !cp.cached_copies || (!o.skip_constraint_check && !cp.column_copies))
        goto oom;
    size_t next_part = 0;
    for (size_t a = 0; a < n_airs; a++) {
        const gs_ctx_trace *t = &ctx->traces[a];
        if (!t->present)
            continue; /* height 0: the AIR is absent */
        tr[a].height = t->common_main.height;
        tr[a].common_main.width = t->common_main.width;
        tr[a].public_values = t->public_values;
        row_major[a] = t->common_main.rows;
        tr[a].num_public_values = t->num_public_values;
        if (cp.column_copies && !(tr[a].common_main.values = cp.column_copies[a] = columns_of(&t->common_main)))
            goto oom;
        tr[a].cached_mains = t->num_cached_mains ? parts + next_part : NULL;
        for (size_t i = 0; i < t->num_cached_mains; i++, next_part++) {
            if (!(cp.cached_copies[next_part] = columns_of(&t->cached_mains[i])))
                goto oom;
            parts[next_part] = (glstark_trace_part){cp.cached_copies[next_part], t->cached_mains[i].width};
            cp.num_cached_copies = next_part + 1;
        }
    }
    if (cp.column_copies) {
        o.traces_released = free_column_copies;
        o.traces_released_user = &cp;
    }
    st = gs_api_prove(pk, tr, n_airs, &o, row_major, res);
    goto out;
oom:
    st = GLSTARK_ERR_OUT_OF_MEMORY;
    put_msg(res->message, sizeof res->message,
            "glstark_prove_context: out of host memory for the traces' column-major copies (the constraint check "
            "needs one of every trace; skip_constraint_check streams the common mains instead)");
out:
    free_column_copies(&cp);
    if (cp.cached_copies)
        for (size_t i = 0; i < cp.num_cached_copies; i++)
            free(cp.cached_copies[i]);
    free(cp.cached_copies);
    free(parts);
    free(row_major);
    free(tr);
    return st;
}
