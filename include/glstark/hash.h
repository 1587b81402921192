/* glstark hash building blocks on the host: the Poseidon2-16 permutation over
 * BabyBear exactly as OpenVM stark-sdk configures it (Plonky3 0.4.3
 * default_babybear_poseidon2_16), its sponge hash and its 2-to-1 compression.
 *
 * Values are CANONICAL BabyBear integers in [0, p), p = 2013265921. Inputs at
 * or above p are rejected. All functions are thread-safe and allocation-free.
 * Merkle trees over matrices held on a device come with the device API. */
#ifndef GLSTARK_HASH_H
#define GLSTARK_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GLSTARK_BABYBEAR_P 2013265921u
#define GLSTARK_POSEIDON2_WIDTH 16
#define GLSTARK_DIGEST_WORDS 8

/* Permutes state in place. GLSTARK_ERR_INVALID_ARGUMENT (state untouched) if
 * an entry is not below p or state is NULL. */
GLSTARK_API glstark_status glstark_poseidon2_permute(uint32_t state[GLSTARK_POSEIDON2_WIDTH]);

/* PaddingFreeSponge (rate 8, output 8, overwrite mode, no padding): the
 * digest of n field elements; n = 0 gives eight zeros. in may be NULL when
 * n = 0. */
GLSTARK_API glstark_status glstark_poseidon2_hash(const uint32_t *in, size_t n,
                                                  uint32_t digest[GLSTARK_DIGEST_WORDS]);

/* 2-to-1 compression: the first 8 words of permute(left || right). out may
 * alias left or right. */
GLSTARK_API glstark_status glstark_poseidon2_compress(const uint32_t left[GLSTARK_DIGEST_WORDS],
                                                      const uint32_t right[GLSTARK_DIGEST_WORDS],
                                                      uint32_t out[GLSTARK_DIGEST_WORDS]);

#ifdef __cplusplus
}
#endif
#endif
