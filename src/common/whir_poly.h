/* Small polynomial helpers of the WHIR verifier (SB/poly_common.rs,
 * SB/verifier/whir.rs), over EF with base-field points where the Rust uses
 * them. All inputs/outputs Montgomery. */
#ifndef GS_COMMON_WHIR_POLY_H
#define GS_COMMON_WHIR_POLY_H

#include <stddef.h>

#include "field/babybear.h"
#include "field/ext4.h"

/* eq(x, y) = Π_i (x_i·y_i + (1 − x_i)(1 − y_i)). */
bb4_t gs_whir_eval_eq(const bb4_t *x, const bb4_t *y, size_t n);

/* mobius_eq(u, x) = Π_i ((1 − 2u_i)(1 − x_i) + u_i·x_i). */
bb4_t gs_whir_eval_mobius_eq(const bb4_t *u, const bb4_t *x, size_t n);

/* MLE of the table c (length 2^n, bit i of the index ↔ x_i) at x.
 * scratch holds 2^n elements (it is overwritten). */
bb4_t gs_whir_eval_mle(const bb4_t *c, const bb4_t *x, size_t n, bb4_t *scratch);

/* Σ_i c[i]·x^i. */
bb4_t gs_whir_horner(const bb4_t *c, size_t len, bb4_t x);

/* The quadratic through (0, e0), (1, e1), (2, e2), at x. */
bb4_t gs_whir_interpolate_012(bb4_t e0, bb4_t e1, bb4_t e2, bb4_t x);

/* binary_k_fold: from the values v[0..2^k) of f on the coset {x·ω_k^t}, the k-fold fold
 * with the challenges a[0..k) at x^(2^k). v is overwritten. x ≠ 0. */
bb4_t gs_whir_binary_k_fold(bb4_t *v, const bb4_t *a, unsigned k, bb_t x);

#endif
