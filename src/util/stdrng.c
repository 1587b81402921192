#include "util/stdrng.h"

static uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

static void quarter_round(uint32_t *x, int a, int b, int c, int d)
{
    x[a] += x[b]; x[d] ^= x[a]; x[d] = rotl32(x[d], 16);
    x[c] += x[d]; x[b] ^= x[c]; x[b] = rotl32(x[b], 12);
    x[a] += x[b]; x[d] ^= x[a]; x[d] = rotl32(x[d], 8);
    x[c] += x[d]; x[b] ^= x[c]; x[b] = rotl32(x[b], 7);
}

/* One ChaCha12 block with a 64-bit counter and a zero 64-bit stream id. */
static void chacha12_block(const uint32_t key[8], uint64_t counter, uint32_t out[16])
{
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++)
        s[4 + i] = key[i];
    s[12] = (uint32_t)counter;
    s[13] = (uint32_t)(counter >> 32);
    s[14] = 0;
    s[15] = 0;
    uint32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = s[i];
    for (int r = 0; r < 6; r++) {
        quarter_round(x, 0, 4, 8, 12);
        quarter_round(x, 1, 5, 9, 13);
        quarter_round(x, 2, 6, 10, 14);
        quarter_round(x, 3, 7, 11, 15);
        quarter_round(x, 0, 5, 10, 15);
        quarter_round(x, 1, 6, 11, 12);
        quarter_round(x, 2, 7, 8, 13);
        quarter_round(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + s[i];
}

static void refill(gs_stdrng *rng)
{
    for (int j = 0; j < 4; j++)
        chacha12_block(rng->key, rng->counter + (uint64_t)j, &rng->results[16 * j]);
    rng->counter += 4;
}

void gs_stdrng_seed_from_u64(gs_stdrng *rng, uint64_t seed)
{
    /* rand_core's default seed_from_u64: 8 outputs of PCG32 (XSH-RR). */
    uint64_t state = seed;
    for (int i = 0; i < 8; i++) {
        state = state * 6364136223846793005ULL + 11634580027462260723ULL;
        uint32_t xorshifted = (uint32_t)(((state >> 18) ^ state) >> 27);
        uint32_t rot = (uint32_t)(state >> 59);
        rng->key[i] = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
    }
    rng->counter = 0;
    rng->index = 64;
}

uint32_t gs_stdrng_next_u32(gs_stdrng *rng)
{
    if (rng->index >= 64) {
        refill(rng);
        rng->index = 0;
    }
    return rng->results[rng->index++];
}

uint64_t gs_stdrng_next_u64(gs_stdrng *rng)
{
    if (rng->index < 63) {
        uint64_t v = rng->results[rng->index] | (uint64_t)rng->results[rng->index + 1] << 32;
        rng->index += 2;
        return v;
    }
    if (rng->index >= 64) {
        refill(rng);
        rng->index = 2;
        return rng->results[0] | (uint64_t)rng->results[1] << 32;
    }
    /* One word left: it is the low half, the next buffer's first word the high half. */
    uint64_t lo = rng->results[63];
    refill(rng);
    rng->index = 1;
    return lo | (uint64_t)rng->results[0] << 32;
}

void gs_stdrng_fill_bytes(gs_stdrng *rng, uint8_t *dst, size_t n)
{
    size_t filled = 0;
    while (filled < n) {
        if (rng->index >= 64) {
            refill(rng);
            rng->index = 0;
        }
        uint32_t w = rng->results[rng->index++];
        for (int b = 0; b < 4 && filled < n; b++)
            dst[filled++] = (uint8_t)(w >> (8 * b));
    }
}
