/* Small polynomial helpers shared by the GKR and batch-constraint sumchecks
 * (docs/protocol.md, 'Conventions'): eq kernels on the hypercube and on the
 * univariate-skip domain D, Lagrange weights on D, and interpolation. */
#ifndef GS_COMMON_POLY_H
#define GS_COMMON_POLY_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"

/* eq(a, b) = a b + (1 - a)(1 - b) for one coordinate. */
bb4_t gs_eq1(bb4_t a, bb4_t b);
/* eq_D(x, y) for D of order 2^l (OpenVM eval_eq_uni). */
bb4_t gs_eq_uni(uint32_t l, bb4_t x, bb4_t y);
/* eq_D(x, 1) (OpenVM eval_eq_uni_at_one). */
bb4_t gs_eq_uni_at_one(uint32_t l, bb4_t x);
/* Lagrange weights w[k] = L_{omega^k}(z) on D of order 2^l (any z, also z in D). */
void gs_lagrange_d(uint32_t l, bb4_t z, bb4_t *w);
/* eq#(z) = sum_k eq_H(xi[0..l), bits(k)) L_{omega^k}(z). */
bb4_t gs_eq_sharp(uint32_t l, const bb4_t *xi, bb4_t z);
/* The cubic through (0,s0),(1,s1),(2,s2),(3,s3) at x. */
bb4_t gs_interp_cubic_0123(const bb4_t s[4], bb4_t x);
/* The polynomial of degree <= n through (i, s[i]), i = 0..n, at x. */
bb4_t gs_interp_0n(const bb4_t *s, size_t n, bb4_t x);
/* Horner evaluation of sum c[i] x^i. */
bb4_t gs_horner(const bb4_t *c, size_t n, bb4_t x);



/* Coefficients c[0..n) of the polynomial of degree < n through (xs[i], ys[i*stride]),
 * xs distinct base-field points. O(n^2). Returns -1 on allocation failure. */
int gs_interp_coeffs(const bb_t *xs, const bb4_t *ys, size_t stride, size_t n, bb4_t *c);
#endif
