/* Poseidon2-16 over BabyBear as configured by OpenVM stark-sdk
 * (Plonky3 0.4.3 default_babybear_poseidon2_16): x^7 S-box, an initial
 * external linear layer, 4 full + 13 partial + 4 full rounds.
 * Notes: docs/protocol.md, 'Poseidon2 and the sponge'.
 *
 * All state is bb_t in Montgomery form (src/field/babybear.h); callers
 * convert canonical values at their boundaries. No global mutable state:
 * the round constants are a generated const table (poseidon2_constants.h). */
#ifndef GS_HASH_POSEIDON2_H
#define GS_HASH_POSEIDON2_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"

#define GS_P2_WIDTH 16
#define GS_P2_RATE 8
#define GS_DIGEST_LEN 8 /* digest = 8 field elements */

/* Number of states gs_poseidon2_permute_batch works on side by side. */
#define GS_P2_LANES 16

/* The permutation, in place: the fastest single-state version this CPU
 * runs (gs_poseidon2_single_impl), all giving the same words. */
void gs_poseidon2_permute(bb_t st[GS_P2_WIDTH]);

/* The plain-C permutation, one cell at a time: the reference the vector
 * versions are tested against, and the version of builds without them. */
void gs_poseidon2_permute_scalar(bb_t st[GS_P2_WIDTH]);

/* GS_P2_LANES independent permutations in structure-of-arrays layout:
 * st[i][l] is cell i of state l. Same result as gs_poseidon2_permute on
 * each state; laid out so the compiler can vectorise across states. */
void gs_poseidon2_permute_batch(bb_t st[GS_P2_WIDTH][GS_P2_LANES]);

/* The plain-C version gs_poseidon2_permute_batch falls back to when the CPU
 * has no SIMD path (x86-64 with AVX2 or AVX-512F and AArch64 take an
 * intrinsics path). */
void gs_poseidon2_permute_batch_portable(bb_t st[GS_P2_WIDTH][GS_P2_LANES]);

/* The implementations of the batched permutation, for tests and benchmarks. */
typedef enum gs_p2_impl {
    GS_P2_IMPL_PORTABLE = 0,
    GS_P2_IMPL_AVX2 = 1,
    GS_P2_IMPL_AVX512 = 2,
    GS_P2_IMPL_NEON = 3 /* AArch64 builds only */
} gs_p2_impl;

/* Runs one given implementation; returns 0 (st untouched) if this build or
 * CPU does not have it. */
int gs_poseidon2_permute_batch_with(gs_p2_impl impl, bb_t st[GS_P2_WIDTH][GS_P2_LANES]);

/* The implementation gs_poseidon2_permute_batch uses on this CPU. */
gs_p2_impl gs_poseidon2_batch_impl(void);

/* The single-state versions, for tests and benchmarks: the state's 16
 * cells in one AVX-512 register, two AVX2 or four NEON registers
 * (poseidon2_single.c); GS_P2_IMPL_PORTABLE is gs_poseidon2_permute_scalar.
 * Runs impl on st; returns 0 (st untouched) if this build or CPU lacks it. */
int gs_poseidon2_permute_with(gs_p2_impl impl, bb_t st[GS_P2_WIDTH]);

/* The single-state version gs_poseidon2_permute uses on this CPU. */
gs_p2_impl gs_poseidon2_single_impl(void);

/* PaddingFreeSponge<Perm, 16, 8, 8>: overwrite the rate with each block of up
 * to 8 inputs (a short last block leaves the other rate cells as they were),
 * permute after every block, output cells 0..7. n == 0 gives zeros. */
void gs_poseidon2_hash(const bb_t *in, size_t n, bb_t out[GS_DIGEST_LEN]);

/* TruncatedPermutation: first 8 cells of permute(left || right). */
void gs_poseidon2_compress(const bb_t left[GS_DIGEST_LEN], const bb_t right[GS_DIGEST_LEN],
                           bb_t out[GS_DIGEST_LEN]);

#endif
