/* 16-lane vector forms of the CPU engine's weighted column sums: the
 * "prefix-Lagrange" sums over blocks of N = 2^l_skip rows (the zerocheck's
 * and the stacked reduction's fold_ple, the reduction's block sums) and
 * WHIR's batching of columns with extension weights. Built into x86-64
 * GCC/clang builds in AVX-512F and AVX2 forms (one source,
 * weighted_sums_x16.inc) with target attributes, and AArch64 ones in
 * Advanced SIMD; each function takes the engine's kernel table (kernels.h)
 * and does nothing where it is NULL or has no vector form. Every function
 * does a prefix of the work and returns where it stopped, so the caller's
 * plain C finishes the rest and the words are the same on every path. */
#ifndef GS_ENGINE_CPU_WEIGHTED_SUMS_SIMD_H
#define GS_ENGINE_CPU_WEIGHTED_SUMS_SIMD_H

#include <stddef.h>

#include "field/ext4.h"

struct gs_cpu_kernels; /* kernels.h */

/* dst[x] = sum_{k < n} lw[k] m[x n + k] for x = 0, 16, 32, ... while
 * x + 16 <= xend (16 blocks in the lanes, one gather per k); lw_comp holds
 * component j of lw[k] at [j n + k]. Returns the first x not done. Needs
 * n <= 2^20 (else does nothing) and m[x n + k] readable for x < xend. */
size_t gs_ple_fold_simd(const struct gs_cpu_kernels *k, const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp,
                        bb4_t *dst);

/* For 16-row blocks (n = 16): out0[z] = sum_x e[x] m[16 x + z] and
 * out1[z] = sum_x e[x - 1 mod nx] m[16 x + z] for z < 16 (the 16 rows of a
 * block in the lanes). Returns 1 if done, 0 if not (not available). */
int gs_ple_block_sums16_simd(const struct gs_cpu_kernels *k, const bb_t *m, size_t nx, const bb4_t *e,
                             bb4_t out0[16], bb4_t out1[16]);

/* out[r] = sum_j mu[j] cols[j][r] for r = r0, r0 + 16, ... while r + 16 <= r1
 * (16 rows in the lanes, every column loaded 16 words at a time). Returns
 * the first r not done (r0 when unavailable). */
size_t gs_lincomb_rows_simd(const struct gs_cpu_kernels *k, const bb_t *const *cols, const bb4_t *mu, size_t ncols,
                            size_t r0, size_t r1, bb4_t *out);

/* a[16 b + r] <- sum_k mat[16 r + k] a[16 b + k] for blocks b < nblocks (a
 * 16 x 16 base-field matrix times each block of 16 extension elements; the
 * matrix's rows in the lanes). Returns 1 if done, 0 if not (unavailable). */
int gs_matvec16_blocks_simd(const struct gs_cpu_kernels *k, const bb_t mat[256], bb4_t *a, size_t nblocks);

/* WHIR's w update: w[b] <- w[b] + t0[b] + sum_{q < nz} gammas[q] lo[q 2^nlo +
 * (b mod 2^nlo)] hi[q 2^nhi + (b >> nlo)] for b = b0, b0 + 1, .. in blocks of
 * 16 while b + 16 <= b1. Needs b0 a multiple of 16 and nlo >= 4 (else does
 * nothing). Returns the first b not done (b0 when unavailable). */
size_t gs_w_accumulate_simd(const struct gs_cpu_kernels *k, bb4_t *w, const bb4_t *t0, const bb_t *lo, const bb_t *hi,
                            const bb4_t *gammas, size_t nz, unsigned nlo, unsigned nhi, size_t b0, size_t b1);

#endif
