/* Round 0 of the batch-constraint sumcheck needs every trace column, given by
 * its N values on the skip domain D = <w> (N = 2^l_skip), at the points of the
 * cosets g^i D, i = 1..n_cos (g = 31): an inverse DFT to coefficients, then
 * per coset a scaling by g^(ij)/N and a forward DFT. This is that per-column
 * transform, planned once per round and applied to thousands of columns.
 *
 * Three implementations give identical words (exact field arithmetic): plain
 * C for every N, and for N = 16 (l_skip = 4, the OpenVM parameters) a 16-lane
 * vector holding the whole column, in AVX-512F (one register) or AVX2 (two;
 * r0_transform_x16.inc is the one source of both). The plan picks the
 * fastest the CPU runs. */
#ifndef GS_ENGINE_CPU_R0_TRANSFORM_H
#define GS_ENGINE_CPU_R0_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/simd_isa.h"

typedef struct gs_r0_transform {
    uint32_t log_n;
    size_t n;
    uint32_t n_cos;
    gs_simd_isa impl;
    void (*column)(const struct gs_r0_transform *t, const bb_t *values, bb_t *out); /* impl's vector form, or NULL */
    bb_t *tw_fwd, *tw_inv; /* n/2 each: w^k and w^-k */
    bb_t *scale;           /* n_cos x n: coset i+1's g^((i+1) j) / n at [i n + j] */
    bb_t *scale_rev;       /* the same with j bit-reversed (the vector path's coefficient order) */
    bb_t *lanes;           /* vector path: per layer, the twiddle of each lane (8 layers x 16) */
    bb_t *lagr_last;       /* n_cos x n: the Lagrange polynomial of the last point of D on the cosets */
} gs_r0_transform;

/* 1 if impl can run here for transforms of 2^log_n points. */
int gs_r0_transform_available(gs_simd_isa impl, uint32_t log_n);

/* Plans transforms of 2^log_n points (log_n <= 27) onto n_cos cosets with
 * implementation impl (the fastest available when impl < 0). Returns 0, or -1
 * when impl is unavailable, log_n is out of range or memory runs out (nothing
 * to free then). */
int gs_r0_transform_init(gs_r0_transform *t, uint32_t log_n, uint32_t n_cos, int impl);
void gs_r0_transform_free(gs_r0_transform *t);

/* values: the column's n values on D (natural order). out: n_cos x n, coset
 * i+1's values at out[i n + k] = f(g^(i+1) w^k). scratch: n words. values and
 * out must not overlap. Safe to call from many threads on one plan. */
void gs_r0_transform_column(const gs_r0_transform *t, const bb_t *values, bb_t *out, bb_t *scratch);

/* The next-row column from the local one without a transform. With f the
 * local column's polynomial, the column shifted by one row is f(wX) plus
 * (first value of the next block - first value of this block) times the
 * Lagrange polynomial of D's last point: its coset values are the local
 * ones rotated by one place plus delta times that polynomial's values.
 * local_out: the local column's n_cos x n coset values; out: the shifted
 * column's (must not overlap local_out). */
void gs_r0_transform_next(const gs_r0_transform *t, const bb_t *local_out, bb_t delta, bb_t *out);

#endif
