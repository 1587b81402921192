/* The polynomial helpers only the WHIR verifier uses (SB/poly_common.rs,
 * SB/verifier/whir.rs), over EF with base-field points where the Rust uses
 * them. All inputs/outputs Montgomery. eq, Horner and the quadratic
 * interpolation are in common/poly.h. */
#ifndef GS_COMMON_WHIR_POLY_H
#define GS_COMMON_WHIR_POLY_H

#include <stddef.h>

#include "field/babybear.h"
#include "field/ext4.h"

/* mobius_eq(u, x) = Π_i ((1 − 2u_i)(1 − x_i) + u_i·x_i). */
bb4_t gs_whir_eval_mobius_eq(const bb4_t *u, const bb4_t *x, size_t n);

/* MLE of the table c (length 2^n, bit i of the index ↔ x_i) at x.
 * scratch holds 2^n elements (it is overwritten). */
bb4_t gs_whir_eval_mle(const bb4_t *c, const bb4_t *x, size_t n, bb4_t *scratch);

/* binary_k_fold: from the values v[0..2^k) of f on the coset {x·ω_k^t}, the k-fold fold
 * with the challenges a[0..k) at x^(2^k). v is overwritten. x ≠ 0. */
bb4_t gs_whir_binary_k_fold(bb4_t *v, const bb4_t *a, unsigned k, bb_t x);

#endif
