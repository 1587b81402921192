/* The last rounds of a sumcheck on the host. Once a sumcheck's tables are
 * small, each round costs the engine a host sync (its two sums must be
 * observed before the next challenge) for almost no work; reading the
 * tables once and finishing on the host replaces those syncs with one read.
 * The arithmetic is the engines' (same formulas; field sums are exact, so
 * the grouping does not matter): the proof is the same bytes. */
#ifndef GS_PROVE_HOST_TAIL_H
#define GS_PROVE_HOST_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include "field/ext4.h"

/* Tables of at most this many extension elements (each of the two: 128
 * KiB) finish on the host. keccakf at L = 21: the stacked reduction's last
 * 7 rounds (42 columns of 2^7), WHIR's last round (2^13). The host's
 * extension arithmetic is scalar: at 2^15 (the stacked reduction's last 9
 * rounds) its tail took 5 ms on the H200's host where the GPU's rounds took
 * 1 ms and 9 syncs; each halving of the bound quarters that work and costs
 * one sync more. */
#define GS_HOST_TAIL_ENTRIES ((size_t)1 << 13)

/* WHIR (whir_ops.h sumcheck_round / fold, one table pair of len):
 * out[0] = Σ_y (f[2y] + f[2y+1]) w[2y+1],
 * out[1] = Σ_y (f[2y] + 2 f[2y+1]) (3 w[2y+1] − w[2y]). */
void gs_tail_whir_round(const bb4_t *f, const bb4_t *w, size_t len, bb4_t out[2]);
/* In place, y < len/2: f[y] = f[2y] + α f[2y+1],
 * w[y] = (1 − α) w[2y] + (2α − 1) w[2y+1]. */
void gs_tail_whir_fold(bb4_t *f, bb4_t *w, size_t len, bb4_t alpha);

/* Stacked reduction (reduction_ops.h round_evals / fold) over ncols column
 * pairs, column c at q + c * stride and w + c * stride:
 * out[0] = Σ_c Σ_y q[2y+1] w[2y+1],
 * out[1] = Σ_c Σ_y (2q[2y+1] − q[2y]) (2w[2y+1] − w[2y]). */
void gs_tail_sred_round(const bb4_t *q, const bb4_t *w, size_t stride, uint32_t ncols, size_t len, bb4_t out[2]);
/* In place, every column, y < len/2: v[y] = v[2y] + u (v[2y+1] − v[2y]). */
void gs_tail_sred_fold(bb4_t *q, bb4_t *w, size_t stride, uint32_t ncols, size_t len, bb4_t u);

#endif
