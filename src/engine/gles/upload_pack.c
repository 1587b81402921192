/* Narrow packing for trace uploads (upload_pack.h). The host packs while
 * it copies, on up to GS_UPLOAD_BATCH threads, so these loops are written
 * for speed: one pass for the OR that picks the width, and a loop per width
 * with the width a constant (SSE2 for bits on x86-64, which every x86-64
 * CPU has). */
#include "engine/gles/upload_pack.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

unsigned gs_pack_width(uint32_t bits)
{
    return bits <= 1u ? 1u : bits <= 0xFFu ? 8u : bits <= 0xFFFFu ? 16u : 32u;
}

uint32_t gs_words_or(const uint32_t *w, size_t n)
{
    uint32_t a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a |= w[i];
        b |= w[i + 1];
        c |= w[i + 2];
        d |= w[i + 3];
    }
    for (; i < n; i++)
        a |= w[i];
    return a | b | c | d;
}

size_t gs_packed_words(size_t n, unsigned width) { return (n * width + 31) / 32; }

/* 32 values of 0 or 1 per word. */
static void pack_bits(uint32_t *dst, const uint32_t *src, size_t full)
{
    for (size_t g = 0; g < full; g++) {
        const uint32_t *s = src + 32 * g;
#if defined(__SSE2__)
        /* each value's bit 0 moved to the sign bit, four signs per movemask */
        uint32_t word = 0;
        for (int q = 0; q < 8; q++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 4 * q));
            word |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(v, 31))) << (4 * q);
        }
        dst[g] = word;
#else
        uint32_t word = 0;
        for (unsigned k = 0; k < 32; k++)
            word |= s[k] << k;
        dst[g] = word;
#endif
    }
}

static void pack_bytes(uint32_t *dst, const uint32_t *src, size_t full)
{
    for (size_t g = 0; g < full; g++) {
        const uint32_t *s = src + 4 * g;
        dst[g] = s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24;
    }
}

static void pack_halves(uint32_t *dst, const uint32_t *src, size_t full)
{
    for (size_t g = 0; g < full; g++)
        dst[g] = src[2 * g] | src[2 * g + 1] << 16;
}

void gs_pack_words(uint32_t *dst, const uint32_t *src, size_t n, unsigned width)
{
    if (width >= 32) {
        memcpy(dst, src, n * sizeof(uint32_t));
        return;
    }
    const size_t per = 32 / width, full = n / per;
    if (width == 1)
        pack_bits(dst, src, full);
    else if (width == 8)
        pack_bytes(dst, src, full);
    else
        pack_halves(dst, src, full);
    if (full * per < n) {
        uint32_t word = 0;
        for (size_t k = 0; full * per + k < n; k++)
            word |= src[full * per + k] << (k * width);
        dst[full] = word;
    }
}

uint32_t gs_unpack_word(const uint32_t *packed, size_t i, unsigned width)
{
    if (width >= 32)
        return packed[i];
    const size_t bit = i * width;
    return (packed[bit / 32] >> (bit % 32)) & ((1u << width) - 1u);
}
