/* The polynomial helpers of the protocol, one copy each, shared by the
 * prover and the verifier (docs/protocol.md, 'Conventions'; OpenVM's
 * poly_common.rs): eq kernels on the hypercube, on the univariate-skip domain
 * D and on the hyperprism D x H, Lagrange weights on D, Horner evaluation and
 * interpolation. All values Montgomery. */
#ifndef GS_COMMON_POLY_H
#define GS_COMMON_POLY_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"

/* x^(2^k): k squarings. */
bb4_t gs_pow_2k(bb4_t x, uint32_t k);
/* eq(a, b) = a b + (1 - a)(1 - b) for one coordinate. */
bb4_t gs_eq1(bb4_t a, bb4_t b);
/* eq_H(x, y) = prod_i (x_i y_i + (1 - x_i)(1 - y_i)) over n coordinates
 * (OpenVM eval_eq_mle). */
bb4_t gs_eq_mle(const bb4_t *x, const bb4_t *y, size_t n);
/* eq(v, x) on the hypercube for every n <= max_n, nested: the table for n
 * (2^n entries, entry x's bit i pairs with v[i]) starts at entry 2^n - 1 of
 * the returned array of 2^(max_n + 1) - 1 (malloc'd; NULL when out of
 * memory). */
bb4_t *gs_eq_tables_nested(const bb4_t *v, uint32_t max_n);
/* eq_D(x, y) for D of order 2^l (OpenVM eval_eq_uni). */
bb4_t gs_eq_uni(uint32_t l, bb4_t x, bb4_t y);
/* eq_D(x, 1) (OpenVM eval_eq_uni_at_one). */
bb4_t gs_eq_uni_at_one(uint32_t l, bb4_t x);
/* The indicator of the subgroup of order 2^(l_skip + n) inside D at z when
 * n < 0, else 1 (OpenVM eval_in_uni). */
bb4_t gs_in_uni(uint32_t l_skip, int32_t n, bb4_t z);
/* eq on the hyperprism D x H^n (D of order 2^l): eq_D(x_0, y_0) eq_H(x_1.., y_1..);
 * x, y have 1 + n entries (OpenVM eval_eq_prism). */
bb4_t gs_eq_prism(uint32_t l, const bb4_t *x, const bb4_t *y, uint32_t n);
/* The rotation kernel on the hyperprism (OpenVM eval_rot_kernel_prism);
 * x, y have 1 + n entries. */
bb4_t gs_rot_kernel_prism(uint32_t l, const bb4_t *x, const bb4_t *y, uint32_t n);
/* Lagrange weights w[k] = L_{omega^k}(z) on D of order 2^l (any z, also z in D). */
void gs_lagrange_d(uint32_t l, bb4_t z, bb4_t *w);
/* eq#(z) = sum_k eq_H(xi[0..l), bits(k)) L_{omega^k}(z). */
bb4_t gs_eq_sharp(uint32_t l, const bb4_t *xi, bb4_t z);
/* The cubic through (0,s0),(1,s1),(2,s2),(3,s3) at x. */
bb4_t gs_interp_cubic_0123(const bb4_t s[4], bb4_t x);
/* The polynomial of degree <= n through (i, s[i]), i = 0..n, at x. */
bb4_t gs_interp_0n(const bb4_t *s, size_t n, bb4_t x);
/* The quadratic through (0, e0), (1, e1), (2, e2), at x
 * (OpenVM interpolate_quadratic_at_012). */
bb4_t gs_interp_012(bb4_t e0, bb4_t e1, bb4_t e2, bb4_t x);
/* Horner evaluation of sum c[i] x^i. */
bb4_t gs_horner(const bb4_t *c, size_t n, bb4_t x);

/* Coefficients c[0..n) of the polynomial of degree < n through (xs[i], ys[i*stride]),
 * xs distinct base-field points. O(n^2). Returns -1 on allocation failure. */
int gs_interp_coeffs(const bb_t *xs, const bb4_t *ys, size_t stride, size_t n, bb4_t *c);
#endif
