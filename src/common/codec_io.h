/* The one byte reader of the library's decoders (proof and WHIR proof,
 * verifying key, proving context), and the proof codec's writer.
 *
 * OpenVM's proof codec (stark-backend v2.0.1 `codec.rs` with the BabyBear
 * config): u32 little-endian, usize written as u32, a base field element as
 * its canonical value in a u32 (values >= p are rejected on read), an
 * extension element as 4 of them (c0..c3), a digest as 8. The verifying key
 * is postcard (LEB128 varints), read with gs_rd_varint.
 *
 * Every read names what it is reading with a printf-style label, which only
 * gets formatted when the read fails, so a malformed input is reported as
 * e.g. "batch_constraint_proof.column_openings[0][1][7].c2 at byte 1234:
 * value 4294967295 is not a canonical BabyBear element (>= p)". Every length
 * taken from the input is checked against the bytes that remain before
 * anything is allocated for it. */
#ifndef GS_COMMON_CODEC_IO_H
#define GS_COMMON_CODEC_IO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "util/bytebuf.h"
#include "util/error.h"

#if defined(__GNUC__)
#define GS_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define GS_PRINTF_LIKE(f, a)
#endif

typedef struct gs_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    gs_error *err; /* where failures are reported (may be NULL) */
    /* What the bytes should be, for messages: "proof bytes" and "a valid
     * OpenVM v2.0.1 proof encoding, codec version 3" unless set otherwise. */
    const char *what;
    const char *format;
    /* GLSTARK_OK until a read fails; then that failure's status. Every later
     * read returns it at once and leaves the first message alone, so a
     * decoder may read a run of fields and check once (the verifying-key
     * decoder does). */
    glstark_status failed;
} gs_reader;

/* A reader of proof bytes. */
void gs_reader_init(gs_reader *rd, const uint8_t *buf, size_t len, gs_error *err);
/* A reader of another format: failures say "malformed <what>: ... (it is not <format>)". */
void gs_reader_init_format(gs_reader *rd, const uint8_t *buf, size_t len, const char *what, const char *format,
                           gs_error *err);

static inline size_t gs_reader_remaining(const gs_reader *rd) { return rd->len - rd->pos; }

static inline uint32_t gs_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

glstark_status gs_rd_u8(gs_reader *rd, uint8_t *out, const char *fmt, ...) GS_PRINTF_LIKE(3, 4);
glstark_status gs_rd_u64(gs_reader *rd, uint64_t *out, const char *fmt, ...) GS_PRINTF_LIKE(3, 4);
/* A postcard (LEB128) unsigned varint of at most 10 bytes that fits in 64
 * bits (non-minimal encodings are accepted, as postcard does); fails unless
 * *out <= max. */
glstark_status gs_rd_varint(gs_reader *rd, uint64_t *out, uint64_t max, const char *fmt, ...)
    GS_PRINTF_LIKE(4, 5);

glstark_status gs_rd_u32(gs_reader *rd, uint32_t *out, const char *fmt, ...) GS_PRINTF_LIKE(3, 4);
glstark_status gs_rd_f(gs_reader *rd, bb_t *out, const char *fmt, ...) GS_PRINTF_LIKE(3, 4);
glstark_status gs_rd_ef(gs_reader *rd, bb4_t *out, const char *fmt, ...) GS_PRINTF_LIKE(3, 4);
glstark_status gs_rd_digest(gs_reader *rd, bb_t out[8], const char *fmt, ...) GS_PRINTF_LIKE(3, 4);

/* n consecutive elements; a failure names element "<label>[i]". */
glstark_status gs_rd_f_n(gs_reader *rd, bb_t *out, size_t n, const char *fmt, ...) GS_PRINTF_LIKE(4, 5);
glstark_status gs_rd_ef_n(gs_reader *rd, bb4_t *out, size_t n, const char *fmt, ...) GS_PRINTF_LIKE(4, 5);
glstark_status gs_rd_digest_n(gs_reader *rd, bb_t *out, size_t n, const char *fmt, ...) GS_PRINTF_LIKE(4, 5);

/* The length of a vector whose items take at least min_bytes each: a u32
 * (gs_rd_len) or a varint (gs_rd_varint_len), then gs_rd_check_fits. */
glstark_status gs_rd_len(gs_reader *rd, uint32_t *out, uint64_t min_bytes, const char *fmt, ...)
    GS_PRINTF_LIKE(4, 5);
glstark_status gs_rd_varint_len(gs_reader *rd, size_t *out, uint64_t min_bytes, const char *fmt, ...)
    GS_PRINTF_LIKE(4, 5);

/* Moves past n bytes (read later, after seeking back); fails unless they remain. */
glstark_status gs_rd_skip(gs_reader *rd, uint64_t n, const char *fmt, ...) GS_PRINTF_LIKE(3, 4);

/* A length field just read at byte `at` promises `count` items of at least
 * `min_bytes` each: fail (MALFORMED) unless they fit in the remaining bytes.
 * Called before allocating, so a huge length never causes a huge allocation. */
glstark_status gs_rd_check_fits(gs_reader *rd, size_t at, uint64_t count, uint64_t min_bytes,
                                const char *fmt, ...) GS_PRINTF_LIKE(5, 6);

/* Sets a MALFORMED error "<label> at byte <at>: <why>" (unless a read has
 * already failed: then returns that failure). */
glstark_status gs_rd_fail(gs_reader *rd, size_t at, const char *label, const char *why_fmt, ...)
    GS_PRINTF_LIKE(4, 5);

/* calloc that records OUT_OF_MEMORY in the reader (as a failed read) and
 * its error; count may be 0 (returns a non-NULL 1-byte block then, so NULL
 * always means failure). */
void *gs_rd_calloc(gs_reader *rd, size_t count, size_t size, const char *what);

/* The bytes so far in b (b.oom: an allocation failed and everything after
 * was dropped). */
typedef struct gs_writer {
    gs_bytebuf b;
} gs_writer;

void gs_writer_init(gs_writer *w);
void gs_writer_free(gs_writer *w);
/* Hands the bytes to the caller (who frees them) and resets w. */
uint8_t *gs_writer_take(gs_writer *w, size_t *len);

void gs_wr_bytes(gs_writer *w, const void *src, size_t n);
/* Appends n uninitialised bytes and returns where they start (NULL if the
 * allocation failed); valid until the next write. */
uint8_t *gs_wr_extend(gs_writer *w, size_t n);
void gs_wr_u8(gs_writer *w, uint8_t v);
void gs_wr_u32(gs_writer *w, uint32_t v);
void gs_wr_f(gs_writer *w, bb_t v);
void gs_wr_ef(gs_writer *w, bb4_t v);
void gs_wr_digest(gs_writer *w, const bb_t v[8]);
void gs_wr_f_n(gs_writer *w, const bb_t *v, size_t n);
void gs_wr_ef_n(gs_writer *w, const bb4_t *v, size_t n);

#endif
