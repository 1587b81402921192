/* See whir_poly.h. */
#include "common/whir_poly.h"

bb4_t gs_whir_eval_mobius_eq(const bb4_t *u, const bb4_t *x, size_t n)
{
    bb4_t acc = bb4_one();
    for (size_t i = 0; i < n; i++) {
        bb4_t w0 = bb4_sub(bb4_one(), bb4_add(u[i], u[i]));
        bb4_t t = bb4_add(bb4_mul(w0, bb4_sub(bb4_one(), x[i])), bb4_mul(u[i], x[i]));
        acc = bb4_mul(acc, t);
    }
    return acc;
}

bb4_t gs_whir_eval_mle(const bb4_t *c, const bb4_t *x, size_t n, bb4_t *s)
{
    size_t len = (size_t)1 << n;
    for (size_t i = 0; i < len; i++)
        s[i] = c[i];
    /* fold the highest variable first: s[i] = s[i] + x_j·(s[i + h] − s[i]) */
    for (size_t j = n; j-- > 0;) {
        size_t h = (size_t)1 << j;
        for (size_t i = 0; i < h; i++)
            s[i] = bb4_add(s[i], bb4_mul(x[j], bb4_sub(s[i + h], s[i])));
    }
    return s[0];
}

bb4_t gs_whir_binary_k_fold(bb4_t *v, const bb4_t *a, unsigned k, bb_t x)
{
    size_t n = (size_t)1 << k;
    bb_t wk = bb_two_adic_generator(k), wk_inv = bb_inv(wk);
    bb_t xp = x, xip = bb_inv(x);
    for (unsigned j = 0; j < k; j++) {
        size_t m = n >> (j + 1);
        /* τ_i = ω_k^(i·2^j)·x^(2^j): the points of the current coset */
        bb_t step = bb_pow(wk, (uint64_t)1 << j), step_inv = bb_pow(wk_inv, (uint64_t)1 << j);
        bb_t t = xp, ti = xip;
        for (size_t i = 0; i < m; i++) {
            bb4_t diff = bb4_sub(v[i], v[i + m]);
            bb4_t coef = bb4_sub(a[j], bb4_from_base(t));
            v[i] = bb4_add(v[i], bb4_mul_base(bb4_mul(coef, diff), bb_halve(ti)));
            t = bb_mul(t, step);
            ti = bb_mul(ti, step_inv);
        }
        xp = bb_square(xp);
        xip = bb_square(xip);
    }
    return v[0];
}
