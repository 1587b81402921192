/* Narrow packing for trace uploads (upload.c, GLSTARK_UPLOAD=packed): a
 * piece of canonical field values whose largest value fits in 1, 8 or 16
 * bits crosses the bus as that many bits per value, and glsl/unpack.comp
 * widens it on the GPU. Traces are mostly bits and small limbs (keccakf's
 * 2633 columns: 2304 bits, the rest 16-bit limbs), and on a GPU behind
 * PCIe the bus, not the GPU, sets the copy's pace: a kernel widening bytes
 * read from the mapped ring ran 4x faster than copying the words
 * (docs/performance.md, "the trace upload packed narrow").
 *
 * Layout: value i of a piece packed at width w (1, 8 or 16) is bits
 * [(i w) mod 32, (i w) mod 32 + w) of word (i w) / 32, low bits first; the
 * last word's unused bits are zero. Width 32 is the words as they are. */
#ifndef GS_ENGINE_GLES_UPLOAD_PACK_H
#define GS_ENGINE_GLES_UPLOAD_PACK_H

#include <stddef.h>
#include <stdint.h>

/* The narrowest of 1, 8, 16 and 32 bits that holds every value whose bits
 * are in `bits` (the OR of the values, or their largest). */
unsigned gs_pack_width(uint32_t bits);

/* The OR of n words (0 for n = 0): below 2^k exactly when every word is. */
uint32_t gs_words_or(const uint32_t *w, size_t n);

/* Words that n values take at `width` bits. */
size_t gs_packed_words(size_t n, unsigned width);

/* Packs n values, each below 2^width (each 0 or 1 for width 1), into gs_packed_words(n, width) words
 * of dst (written in order, once each: dst may be write-combined memory). */
void gs_pack_words(uint32_t *dst, const uint32_t *src, size_t n, unsigned width);

/* Value i of a packed piece: the definition glsl/unpack.comp follows. */
uint32_t gs_unpack_word(const uint32_t *packed, size_t i, unsigned width);

#endif
