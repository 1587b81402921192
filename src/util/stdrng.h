/* Rust rand 0.9 `StdRng::seed_from_u64` (ChaCha12, PCG32 seed expansion),
 * reproduced exactly so glstark's keccakf demo draws the same inputs as
 * OpenVM's example for the same seed. Not a cryptographic API: it exists
 * for compatibility of test inputs. It keeps a 64-word buffer, refilled
 * with 4 ChaCha blocks at a time. */
#ifndef GS_UTIL_STDRNG_H
#define GS_UTIL_STDRNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct gs_stdrng {
    uint32_t key[8];
    uint64_t counter;    /* next block counter */
    uint32_t results[64];
    unsigned index;      /* next unread word; 64 = empty */
} gs_stdrng;

void gs_stdrng_seed_from_u64(gs_stdrng *rng, uint64_t seed);
uint32_t gs_stdrng_next_u32(gs_stdrng *rng);
uint64_t gs_stdrng_next_u64(gs_stdrng *rng);
void gs_stdrng_fill_bytes(gs_stdrng *rng, uint8_t *dst, size_t n);

#endif
