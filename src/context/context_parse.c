/* Reading a proving-context file (version 1) against its verifying key.
 *
 * The layout (all u32 little-endian, values canonical BabyBear):
 *   "OVMCTX01" version num_airs
 *   num_preprocessed, then per entry (ascending air_id): air_id height width rows
 *   num_traces, then per entry (per_trace's order): air_id
 *     num_public_values values, num_cached_mains (height width rows)...,
 *     common_main_present (= 1) height width rows
 * Everything the key fixes (widths, counts, preprocessed presence and height,
 * required AIRs) is compared with it here, so the prover sees only inputs
 * OpenVM's prover would accept. */
#include "context/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/babybear.h"
#include "util/transpose.h"
#include "common/codec_io.h"

#define CTX_FORMAT "a proving-context file, format version 1 (docs/openvm.md)"

/* "AIR 3's common main: width is 7 in the context (byte 120) but 8 in the key" */
static glstark_status mismatch(gs_error *err, size_t at, const char *where, const char *what, size_t got, size_t want)
{
    return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                        "the context does not match its key: %s %s is %zu in the context (byte %zu) but %zu in the "
                        "key; write the context from the same circuit as the key",
                        where, what, got, at, want);
}

/* Reads height and width of a matrix and checks they fit the bytes left. */
static glstark_status read_dims(gs_reader *rd, gs_ctx_matrix *m, const char *label)
{
    uint32_t h = 0, w = 0;
    glstark_status st;
    const size_t at = rd->pos;
    if ((st = gs_rd_u32(rd, &h, "%s.height", label)) || (st = gs_rd_u32(rd, &w, "%s.width", label)))
        return st;
    /* h * w words must remain; the product of two u32 fits in u64 */
    if ((st = gs_rd_check_fits(rd, at, (uint64_t)h * w, 4, "%s (%u rows x %u columns)", label, h, w)))
        return st;
    m->height = h;
    m->width = w;
    return GLSTARK_OK;
}

/* Points m at its values (the bytes after the dimensions), checks each is
 * below p, and moves past them. */
static glstark_status take_values(gs_reader *rd, const glstark_context *ctx, gs_ctx_matrix *m, const char *label)
{
    const size_t n = m->height * m->width;
    const uint32_t *v = ctx->words + rd->pos / 4;
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= v[i] >= BB_P;
    if (bad)
        for (size_t i = 0; i < n; i++)
            if (v[i] >= BB_P)
                return gs_rd_fail(rd, rd->pos + 4 * i, label,
                                  "row %zu, column %zu holds %u, which is not a canonical BabyBear value (>= p = %u)",
                                  i / m->width, i % m->width, (unsigned)v[i], (unsigned)BB_P);
    m->rows = v;
    rd->pos += 4 * n;
    return GLSTARK_OK;
}

static int is_pow2(size_t x) { return x && !(x & (x - 1)); }

/* The preprocessed entries: exactly the AIRs whose key has preprocessed
 * data, ascending, each with the key's width and height. */
static glstark_status parse_preprocessed(gs_reader *rd, glstark_context *ctx, const gs_multi_vk *vk, gs_error *err)
{
    uint32_t n = 0;
    glstark_status st;
    size_t at;
    if ((st = gs_rd_len(rd, &n, 12, "num_preprocessed")))
        return st;
    size_t next = 0; /* the lowest air_id the next entry may have */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = 0;
        at = rd->pos;
        if ((st = gs_rd_u32(rd, &a, "preprocessed[%u].air_id", i)))
            return st;
        if (a >= ctx->num_airs)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "the context does not match its key: preprocessed trace %u (byte %zu) is for AIR %u, "
                                "but the key has %zu AIRs",
                                i, at, a, ctx->num_airs);
        if (a < next)
            return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                                "malformed context: preprocessed trace %u (byte %zu) is for AIR %u, which is not above "
                                "the previous entry's AIR (entries are in ascending air_id, once each)",
                                i, at, a);
        next = (size_t)a + 1;
        const gs_air_vk *av = &vk->per_air[a];
        if (!av->has_preprocessed_data)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "the context does not match its key: it has a preprocessed trace for AIR %u (byte "
                                "%zu), but the key's AIR %u has no preprocessed columns",
                                a, at, a);
        char label[64];
        snprintf(label, sizeof label, "preprocessed[%u] (AIR %u)", i, a);
        gs_ctx_matrix *m = &ctx->preprocessed[a];
        at = rd->pos;
        if ((st = read_dims(rd, m, label)))
            return st;
        const int64_t log_h = (int64_t)vk->params.l_skip + av->preprocessed_data.hypercube_dim;
        char where[64];
        snprintf(where, sizeof where, "AIR %u's preprocessed trace:", a);
        if (m->width != av->preprocessed_width)
            return mismatch(err, at, where, "width", m->width, av->preprocessed_width);
        if (log_h < 0 || log_h > 31 || m->height != ((size_t)1 << log_h))
            return mismatch(err, at, where, "height", m->height,
                            log_h >= 0 && log_h <= 31 ? (size_t)1 << log_h : 0);
        if ((st = take_values(rd, ctx, m, label)))
            return st;
    }
    for (size_t a = 0; a < ctx->num_airs; a++)
        if (vk->per_air[a].has_preprocessed_data && !ctx->preprocessed[a].rows)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "the context does not match its key: the key's AIR %zu has preprocessed columns, but "
                                "the context has no preprocessed trace for it (every such AIR needs one, present in "
                                "per_trace or not)",
                                a);
    return GLSTARK_OK;
}

/* One per_trace entry: its AIR, public values, cached mains and common
 * main, each against the key; all parts of one AIR have one height, a
 * power of two, the preprocessed trace's where there is one. */
static glstark_status parse_trace(gs_reader *rd, glstark_context *ctx, const gs_multi_vk *vk, size_t t, gs_error *err)
{
    uint32_t a = 0, u = 0;
    glstark_status st;
    size_t at = rd->pos;
    if ((st = gs_rd_u32(rd, &a, "per_trace[%zu].air_id", t)))
        return st;
    if (a >= ctx->num_airs)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context does not match its key: per_trace[%zu] (byte %zu) is for AIR %u, but the key "
                            "has %zu AIRs",
                            t, at, a, ctx->num_airs);
    gs_ctx_trace *tr = &ctx->traces[a];
    if (tr->present)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context is not a valid per_trace: per_trace[%zu] (byte %zu) is for AIR %u, which "
                            "per_trace[%zu] already proves (each AIR at most once)",
                            t, at, a, tr->order);
    tr->present = 1;
    tr->order = t;
    const gs_air_vk *av = &vk->per_air[a];
    char where[64];
    snprintf(where, sizeof where, "AIR %u:", a);

    at = rd->pos;
    if ((st = gs_rd_len(rd, &u, 4, "per_trace[%zu] (AIR %u).num_public_values", t, a)))
        return st;
    if (u != av->num_public_values)
        return mismatch(err, at, where, "the number of public values", u, av->num_public_values);
    tr->num_public_values = u;
    tr->public_values = ctx->words + rd->pos / 4;
    for (uint32_t i = 0; i < u; i++) {
        uint32_t v = 0;
        const size_t vat = rd->pos;
        if ((st = gs_rd_u32(rd, &v, "per_trace[%zu] (AIR %u).public_values[%u]", t, a, i)))
            return st;
        if (v >= BB_P)
            return gs_rd_fail(rd, vat, "public value",
                              "AIR %u's public value %u is %u, not a canonical BabyBear value (>= p = %u)", a, i, v,
                              (unsigned)BB_P);
    }

    at = rd->pos;
    if ((st = gs_rd_u32(rd, &u, "per_trace[%zu] (AIR %u).num_cached_mains", t, a)))
        return st;
    if (u != av->num_cached_mains)
        return mismatch(err, at, where, "the number of cached mains", u, av->num_cached_mains);
    if ((st = gs_rd_check_fits(rd, at, u, 8, "per_trace[%zu] (AIR %u).cached_mains", t, a)))
        return st;
    tr->num_cached_mains = u;
    tr->cached_mains = calloc(u ? u : 1, sizeof *tr->cached_mains);
    if (!tr->cached_mains)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "reading the context: out of host memory");
    char label[96];
    for (uint32_t i = 0; i < u; i++) {
        gs_ctx_matrix *m = &tr->cached_mains[i];
        snprintf(label, sizeof label, "per_trace[%zu] (AIR %u).cached_mains[%u]", t, a, i);
        at = rd->pos;
        if ((st = read_dims(rd, m, label)))
            return st;
        if (m->width != av->cached_main_widths[i]) {
            snprintf(where, sizeof where, "AIR %u's cached main %u:", a, i);
            return mismatch(err, at, where, "width", m->width, av->cached_main_widths[i]);
        }
        if ((st = take_values(rd, ctx, m, label)))
            return st;
    }

    at = rd->pos;
    if ((st = gs_rd_u32(rd, &u, "per_trace[%zu] (AIR %u).common_main_present", t, a)))
        return st;
    if (u != 1)
        return gs_rd_fail(rd, at, "common_main_present",
                          "AIR %u's common_main_present is %u; version 1 requires 1 (OpenVM v2.0.1 always has a "
                          "common main)",
                          a, u);
    snprintf(label, sizeof label, "per_trace[%zu] (AIR %u).common_main", t, a);
    at = rd->pos;
    if ((st = read_dims(rd, &tr->common_main, label)))
        return st;
    if (tr->common_main.width != av->common_main_width)
    {
        snprintf(where, sizeof where, "AIR %u's common main:", a);
        return mismatch(err, at, where, "width", tr->common_main.width, av->common_main_width);
    }
    if ((st = take_values(rd, ctx, &tr->common_main, label)))
        return st;

    /* heights: one per AIR, a power of two, the preprocessed trace's */
    const size_t h = tr->common_main.height;
    if (!is_pow2(h))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context is not provable: AIR %u's common main has %zu rows, not a power of two "
                            "(pad the trace as OpenVM requires)",
                            a, h);
    for (size_t i = 0; i < tr->num_cached_mains; i++)
        if (tr->cached_mains[i].height != h)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "the context is not provable: AIR %u's cached main %zu has %zu rows but its common "
                                "main %zu (every part of one AIR's trace has the same height)",
                                a, i, tr->cached_mains[i].height, h);
    if (ctx->preprocessed[a].rows && ctx->preprocessed[a].height != h)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context is not provable: AIR %u's trace has %zu rows but its preprocessed trace %zu "
                            "(they must be equal)",
                            a, h, ctx->preprocessed[a].height);
    return GLSTARK_OK;
}

glstark_status gs_ctx_parse(glstark_context *ctx, const gs_multi_vk *vk, gs_error *err)
{
    gs_reader rd;
    gs_reader_init_format(&rd, ctx->bytes, ctx->len, "context file", CTX_FORMAT, err);
    glstark_status st;
    if (ctx->len < 8 || memcmp(ctx->bytes, GLSTARK_CONTEXT_MAGIC, 8) != 0)
        return gs_rd_fail(&rd, 0, "magic", "the file does not start with \"%s\"", GLSTARK_CONTEXT_MAGIC);
    rd.pos = 8;
    uint32_t version = 0, num_airs = 0, num_traces = 0;
    if ((st = gs_rd_u32(&rd, &version, "version")))
        return st;
    if (version != GLSTARK_CONTEXT_VERSION)
        return gs_rd_fail(&rd, 8, "version", "version %u; this library reads version %u", version,
                          GLSTARK_CONTEXT_VERSION);
    if ((st = gs_rd_u32(&rd, &num_airs, "num_airs")))
        return st;
    if (num_airs != vk->num_airs)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context does not match its key: it is for %u AIRs (num_airs, byte 12), the key has "
                            "%zu",
                            num_airs, vk->num_airs);
    ctx->num_airs = num_airs;
    ctx->preprocessed = calloc(num_airs ? num_airs : 1, sizeof *ctx->preprocessed);
    ctx->traces = calloc(num_airs ? num_airs : 1, sizeof *ctx->traces);
    if (!ctx->preprocessed || !ctx->traces)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "reading the context: out of host memory");
    if ((st = parse_preprocessed(&rd, ctx, vk, err)))
        return st;
    const size_t at = rd.pos;
    if ((st = gs_rd_u32(&rd, &num_traces, "num_traces")))
        return st;
    if (num_traces == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context has no traces (num_traces = 0 at byte %zu); OpenVM proves at least one", at);
    if ((st = gs_rd_check_fits(&rd, at, num_traces, 32, "num_traces")))
        return st;
    if (num_traces > num_airs)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "the context does not match its key: %u traces (byte %zu) for %u AIRs (each AIR at most "
                            "once)",
                            num_traces, at, num_airs);
    ctx->num_traces = num_traces;
    for (size_t t = 0; t < num_traces; t++)
        if ((st = parse_trace(&rd, ctx, vk, t, err)))
            return st;
    if (gs_reader_remaining(&rd))
        return gs_rd_fail(&rd, rd.pos, "end of file", "%zu bytes follow the last trace (nothing may)",
                          gs_reader_remaining(&rd));
    for (size_t a = 0; a < num_airs; a++)
        if (vk->per_air[a].is_required && !ctx->traces[a].present)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "the context does not match its key: AIR %zu is required by the key but has no trace "
                                "in the context",
                                a);
    return GLSTARK_OK;
}

void gs_ctx_tables_free(glstark_context *ctx)
{
    if (ctx->traces)
        for (size_t a = 0; a < ctx->num_airs; a++)
            free(ctx->traces[a].cached_mains);
    free(ctx->traces);
    free(ctx->preprocessed);
    ctx->traces = NULL;
    ctx->preprocessed = NULL;
}

void gs_ctx_rows_to_columns(const gs_ctx_matrix *m, size_t row_begin, size_t num_rows, uint32_t *dst)
{
    gs_transpose_columns(dst, num_rows, m->rows + row_begin * m->width, num_rows, m->width, 0, m->width);
}
