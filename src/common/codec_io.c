#include "common/codec_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 256

void gs_reader_init(gs_reader *rd, const uint8_t *buf, size_t len, gs_error *err)
{
    rd->buf = buf;
    rd->len = len;
    rd->pos = 0;
    rd->err = err;
    rd->what = "proof bytes";
    rd->format = "a valid OpenVM v2.0.1 proof encoding, codec version 3";
    rd->failed = GLSTARK_OK;
}

void gs_reader_init_format(gs_reader *rd, const uint8_t *buf, size_t len, const char *what, const char *format,
                           gs_error *err)
{
    gs_reader_init(rd, buf, len, err);
    rd->what = what;
    rd->format = format;
}

static void format_label(char *out, size_t cap, const char *fmt, va_list ap)
{
    vsnprintf(out, cap, fmt, ap);
}

glstark_status gs_rd_fail(gs_reader *rd, size_t at, const char *label, const char *why_fmt, ...)
{
    if (rd->failed)
        return rd->failed;
    rd->failed = GLSTARK_ERR_MALFORMED;
    char why[512];
    va_list ap;
    va_start(ap, why_fmt);
    vsnprintf(why, sizeof why, why_fmt, ap);
    va_end(ap);
    return gs_error_set(rd->err, GLSTARK_ERR_MALFORMED,
                        "malformed %s: %s at byte %zu: %s (the input has %zu bytes; it is not %s)", rd->what,
                        label, at, why, rd->len, rd->format);
}

/* Reports a truncation: `need` bytes for the named item at the current position. */
static glstark_status fail_truncated(gs_reader *rd, size_t need, const char *label)
{
    return gs_rd_fail(rd, rd->pos, label, "needs %zu more bytes but only %zu remain (truncated input)",
                      need, gs_reader_remaining(rd));
}

/* Reads one canonical field element at rd->pos without error formatting;
 * returns 0 ok, 1 truncated, 2 out of range (*raw holds the value), 3 an
 * earlier read failed. */
static inline int take_f(gs_reader *rd, bb_t *out, uint32_t *raw)
{
    if (rd->failed)
        return 3;
    if (rd->len - rd->pos < 4)
        return 1;
    uint32_t v = gs_load_u32le(rd->buf + rd->pos);
    *raw = v;
    if (v >= BB_P)
        return 2;
    *out = bb_from_canonical(v);
    rd->pos += 4;
    return 0;
}

static glstark_status report_f(gs_reader *rd, int code, uint32_t raw, const char *label)
{
    if (code == 3)
        return rd->failed;
    if (code == 1)
        return fail_truncated(rd, 4, label);
    return gs_rd_fail(rd, rd->pos, label, "value %u is not a canonical BabyBear element (must be < p = %u)",
                      raw, BB_P);
}

/* The label of a failed read, formatted from the caller's arguments. */
#define FORMAT_LABEL(label, fmt)                                                                                     \
    char label[LABEL_MAX];                                                                                           \
    do {                                                                                                             \
        va_list ap_;                                                                                                 \
        va_start(ap_, fmt);                                                                                          \
        format_label(label, sizeof label, fmt, ap_);                                                                 \
        va_end(ap_);                                                                                                 \
    } while (0)

/* Fails unless n bytes remain at the current position. */
#define NEED(rd, n, fmt)                                                                                             \
    do {                                                                                                             \
        if ((rd)->failed)                                                                                            \
            return (rd)->failed;                                                                                     \
        if (gs_reader_remaining(rd) < (n)) {                                                                         \
            FORMAT_LABEL(label_, fmt);                                                                               \
            return fail_truncated(rd, (n), label_);                                                                  \
        }                                                                                                            \
    } while (0)

glstark_status gs_rd_u8(gs_reader *rd, uint8_t *out, const char *fmt, ...)
{
    NEED(rd, 1, fmt);
    *out = rd->buf[rd->pos++];
    return GLSTARK_OK;
}

glstark_status gs_rd_u32(gs_reader *rd, uint32_t *out, const char *fmt, ...)
{
    NEED(rd, 4, fmt);
    *out = gs_load_u32le(rd->buf + rd->pos);
    rd->pos += 4;
    return GLSTARK_OK;
}

glstark_status gs_rd_u64(gs_reader *rd, uint64_t *out, const char *fmt, ...)
{
    NEED(rd, 8, fmt);
    const uint8_t *p = rd->buf + rd->pos;
    *out = (uint64_t)gs_load_u32le(p) | ((uint64_t)gs_load_u32le(p + 4) << 32);
    rd->pos += 8;
    return GLSTARK_OK;
}

/* The varint at rd->pos: 0 ok (*len bytes), 1 truncated, 2 over 64 bits,
 * 3 longer than 10 bytes. */
static int take_varint(const gs_reader *rd, uint64_t *out, size_t *len)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 10; i++) {
        if (rd->pos + i >= rd->len)
            return 1;
        uint8_t b = rd->buf[rd->pos + i];
        if (i == 9 && (b & 0xfe))
            return 2;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            *len = i + 1;
            return 0;
        }
    }
    return 3;
}

glstark_status gs_rd_varint(gs_reader *rd, uint64_t *out, uint64_t max, const char *fmt, ...)
{
    if (rd->failed)
        return rd->failed;
    uint64_t v = 0;
    size_t n = 0;
    int code = take_varint(rd, &v, &n);
    if (code == 0 && v <= max) {
        *out = v;
        rd->pos += n;
        return GLSTARK_OK;
    }
    FORMAT_LABEL(label, fmt);
    if (code == 1)
        return gs_rd_fail(rd, rd->pos, label, "varint cut short after %zu bytes (truncated input)",
                          gs_reader_remaining(rd));
    if (code == 2)
        return gs_rd_fail(rd, rd->pos, label, "varint does not fit in 64 bits");
    if (code == 3)
        return gs_rd_fail(rd, rd->pos, label, "varint longer than 10 bytes");
    return gs_rd_fail(rd, rd->pos, label, "value %llu exceeds the largest allowed, %llu", (unsigned long long)v,
                      (unsigned long long)max);
}

glstark_status gs_rd_f(gs_reader *rd, bb_t *out, const char *fmt, ...)
{
    uint32_t raw = 0;
    int code = take_f(rd, out, &raw);
    if (code == 0)
        return GLSTARK_OK;
    FORMAT_LABEL(label, fmt);
    return report_f(rd, code, raw, label);
}

/* Shared body of the vector reads: `n` elements of `per` field elements each.
 * suffix_kind: 0 "[i]", 1 "[i].c<j>", 2 "[i][j]". */
static glstark_status read_fields(gs_reader *rd, bb_t *out, size_t n, size_t per, int suffix_kind,
                                  const char *fmt, va_list ap)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < per; j++) {
            uint32_t raw = 0;
            int code = take_f(rd, &out[i * per + j], &raw);
            if (code == 0)
                continue;
            if (code == 3)
                return rd->failed;
            char base[LABEL_MAX], label[LABEL_MAX + 64];
            format_label(base, sizeof base, fmt, ap);
            if (suffix_kind == 0)
                snprintf(label, sizeof label, "%s[%zu]", base, i);
            else if (suffix_kind == 1)
                snprintf(label, sizeof label, "%s[%zu].c%zu", base, i, j);
            else
                snprintf(label, sizeof label, "%s[%zu][%zu]", base, i, j);
            return report_f(rd, code, raw, label);
        }
    }
    return GLSTARK_OK;
}

glstark_status gs_rd_ef(gs_reader *rd, bb4_t *out, const char *fmt, ...)
{
    for (int j = 0; j < 4; j++) {
        uint32_t raw = 0;
        int code = take_f(rd, &out->c[j], &raw);
        if (code == 0)
            continue;
        if (code == 3)
            return rd->failed;
        char base[LABEL_MAX], label[LABEL_MAX + 8];
        va_list ap;
        va_start(ap, fmt);
        format_label(base, sizeof base, fmt, ap);
        va_end(ap);
        snprintf(label, sizeof label, "%s.c%d", base, j);
        return report_f(rd, code, raw, label);
    }
    return GLSTARK_OK;
}

glstark_status gs_rd_digest(gs_reader *rd, bb_t out[8], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    glstark_status st = read_fields(rd, out, 8, 1, 0, fmt, ap);
    va_end(ap);
    return st;
}

glstark_status gs_rd_f_n(gs_reader *rd, bb_t *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    glstark_status st = read_fields(rd, out, n, 1, 0, fmt, ap);
    va_end(ap);
    return st;
}

glstark_status gs_rd_ef_n(gs_reader *rd, bb4_t *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    glstark_status st = read_fields(rd, (bb_t *)out, n, 4, 1, fmt, ap);
    va_end(ap);
    return st;
}

glstark_status gs_rd_digest_n(gs_reader *rd, bb_t *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    glstark_status st = read_fields(rd, out, n, 8, 2, fmt, ap);
    va_end(ap);
    return st;
}

static glstark_status check_fits(gs_reader *rd, size_t at, uint64_t count, uint64_t min_bytes, const char *fmt,
                                 va_list ap)
{
    if (rd->failed)
        return rd->failed;
    uint64_t remaining = gs_reader_remaining(rd);
    /* count * min_bytes <= remaining, without overflow */
    if (min_bytes == 0 || count <= remaining / min_bytes)
        return GLSTARK_OK;
    char label[LABEL_MAX];
    format_label(label, sizeof label, fmt, ap);
    return gs_rd_fail(rd, at, label,
                      "length %llu needs at least %llu bytes each but only %llu bytes remain "
                      "(length field too large or input truncated)",
                      (unsigned long long)count, (unsigned long long)min_bytes,
                      (unsigned long long)remaining);
}

glstark_status gs_rd_check_fits(gs_reader *rd, size_t at, uint64_t count, uint64_t min_bytes,
                                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    glstark_status st = check_fits(rd, at, count, min_bytes, fmt, ap);
    va_end(ap);
    return st;
}

glstark_status gs_rd_len(gs_reader *rd, uint32_t *out, uint64_t min_bytes, const char *fmt, ...)
{
    const size_t at = rd->pos;
    NEED(rd, 4, fmt);
    uint32_t n = gs_load_u32le(rd->buf + rd->pos);
    rd->pos += 4;
    va_list ap;
    va_start(ap, fmt);
    glstark_status st = check_fits(rd, at, n, min_bytes, fmt, ap);
    va_end(ap);
    if (!st)
        *out = n;
    return st;
}

glstark_status gs_rd_varint_len(gs_reader *rd, size_t *out, uint64_t min_bytes, const char *fmt, ...)
{
    if (rd->failed)
        return rd->failed;
    const size_t at = rd->pos;
    uint64_t v = 0;
    size_t n = 0;
    if (take_varint(rd, &v, &n) == 0) {
        rd->pos += n;
        va_list ap;
        va_start(ap, fmt);
        glstark_status st = check_fits(rd, at, v, min_bytes, fmt, ap);
        va_end(ap);
        if (!st)
            *out = (size_t)v; /* fits: at most the remaining bytes */
        return st;
    }
    FORMAT_LABEL(label, fmt);
    return gs_rd_varint(rd, &v, UINT64_MAX, "%s", label); /* reports the bad varint */
}

glstark_status gs_rd_skip(gs_reader *rd, uint64_t n, const char *fmt, ...)
{
    NEED(rd, n, fmt);
    rd->pos += (size_t)n;
    return GLSTARK_OK;
}

void *gs_rd_calloc(gs_reader *rd, size_t count, size_t size, const char *what)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p && !rd->failed) {
        rd->failed = GLSTARK_ERR_OUT_OF_MEMORY;
        gs_error_set(rd->err, GLSTARK_ERR_OUT_OF_MEMORY, "out of host memory while decoding %s: %zu x %zu bytes for %s",
                     rd->what, count, size, what);
    }
    return p;
}

/* ---- writer ---- */

void gs_writer_init(gs_writer *w) { memset(w, 0, sizeof *w); }

void gs_writer_free(gs_writer *w)
{
    free(w->b.p);
    gs_writer_init(w);
}

uint8_t *gs_writer_take(gs_writer *w, size_t *len)
{
    uint8_t *p = w->b.p;
    *len = w->b.len;
    gs_writer_init(w);
    return p;
}

void gs_wr_bytes(gs_writer *w, const void *src, size_t n) { gs_bytebuf_put(&w->b, src, n); }

uint8_t *gs_wr_extend(gs_writer *w, size_t n)
{
    if (!gs_bytebuf_reserve(&w->b, n))
        return NULL;
    uint8_t *p = w->b.p + w->b.len;
    w->b.len += n;
    return p;
}

void gs_wr_u8(gs_writer *w, uint8_t v) { gs_wr_bytes(w, &v, 1); }

void gs_wr_u32(gs_writer *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    gs_wr_bytes(w, b, 4);
}

void gs_wr_f(gs_writer *w, bb_t v) { gs_wr_u32(w, bb_to_canonical(v)); }

void gs_wr_ef(gs_writer *w, bb4_t v)
{
    for (int j = 0; j < 4; j++)
        gs_wr_f(w, v.c[j]);
}

void gs_wr_digest(gs_writer *w, const bb_t v[8])
{
    for (int j = 0; j < 8; j++)
        gs_wr_f(w, v[j]);
}

void gs_wr_f_n(gs_writer *w, const bb_t *v, size_t n)
{
    if (!gs_bytebuf_reserve(&w->b, n * 4))
        return;
    for (size_t i = 0; i < n; i++)
        gs_wr_f(w, v[i]);
}

void gs_wr_ef_n(gs_writer *w, const bb4_t *v, size_t n)
{
    if (!gs_bytebuf_reserve(&w->b, n * 16))
        return;
    for (size_t i = 0; i < n; i++)
        gs_wr_ef(w, v[i]);
}
