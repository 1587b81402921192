/* The proving-context file (format version 1, docs/openvm.md) as the
 * library holds it once read: for every AIR of the key, where its
 * preprocessed trace and its per_trace entry lie in the file's words. The
 * traces are never copied: each matrix is a pointer into the file's words
 * (the mapping, the caller's bytes, or one converted copy). */
#ifndef GS_CONTEXT_CONTEXT_H
#define GS_CONTEXT_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "air/keygen.h"
#include "glstark/context.h"
#include "util/error.h"

/* A row-major matrix of canonical values (row r, column c at r*width + c). */
typedef struct gs_ctx_matrix {
    size_t height, width;
    const uint32_t *rows; /* NULL: no such matrix */
} gs_ctx_matrix;

/* One AIR's entry of per_trace. */
typedef struct gs_ctx_trace {
    int present;
    size_t order; /* its place in the file's per_trace */
    size_t num_public_values;
    const uint32_t *public_values;
    size_t num_cached_mains;
    gs_ctx_matrix *cached_mains;
    gs_ctx_matrix common_main;
} gs_ctx_trace;

struct glstark_context {
    const uint8_t *bytes;  /* the file's bytes (little-endian), while parsing */
    const uint32_t *words; /* the same as native words: bytes itself on a little-endian host */
    size_t len;            /* bytes */
    void *map;             /* the read-only mapping (munmap), or NULL */
    size_t map_len;
    uint32_t *owned;       /* a converted copy (big-endian host, unaligned bytes, a pipe), or NULL */
    size_t num_airs;
    gs_ctx_matrix *preprocessed; /* per AIR; rows NULL when the AIR has none */
    gs_ctx_trace *traces;        /* per AIR */
    size_t num_traces;
};

/* Checks the bytes and fills ctx's tables (ctx->bytes, ctx->words and
 * ctx->len set by the caller). MALFORMED
 * for a format error, INVALID_ARGUMENT where the file disagrees with vk. */
glstark_status gs_ctx_parse(glstark_context *ctx, const gs_multi_vk *vk, gs_error *err);

/* Frees the tables (not the words). */
void gs_ctx_tables_free(glstark_context *ctx);

/* Rows [row_begin, row_begin + num_rows) of m into dst column-major
 * (column c at dst + c * num_rows). */
void gs_ctx_rows_to_columns(const gs_ctx_matrix *m, size_t row_begin, size_t num_rows, uint32_t *dst);

#endif
