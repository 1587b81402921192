#include "common/poly.h"

#include <stdlib.h>

bb4_t gs_pow_2k(bb4_t x, uint32_t k)
{
    for (uint32_t i = 0; i < k; i++)
        x = bb4_square(x);
    return x;
}

bb4_t gs_eq1(bb4_t a, bb4_t b)
{
    /* 1 - a - b + 2ab */
    bb4_t ab = bb4_mul(a, b);
    bb4_t r = bb4_sub(bb4_add(ab, ab), bb4_add(a, b));
    return bb4_add_base(r, bb_one());
}

bb4_t gs_eq_mle(const bb4_t *x, const bb4_t *y, size_t n)
{
    bb4_t acc = bb4_one();
    for (size_t i = 0; i < n; i++) {
        bb4_t xy = bb4_mul(x[i], y[i]);
        /* x·y + (1 − x)(1 − y) = 1 − x − y + 2xy */
        bb4_t t = bb4_add(bb4_sub(bb4_sub(bb4_one(), x[i]), y[i]), bb4_add(xy, xy));
        acc = bb4_mul(acc, t);
    }
    return acc;
}

bb4_t gs_eq_uni(uint32_t l, bb4_t x, bb4_t y)
{
    bb4_t res = bb4_one();
    bb4_t a = x, b = y;
    bb_t one = bb_one();
    for (uint32_t i = 0; i < l; i++) {
        bb4_t t = bb4_mul(bb4_add_base(a, bb_neg(one)), bb4_add_base(b, bb_neg(one)));
        res = bb4_add(bb4_mul(bb4_add(a, b), res), t);
        a = bb4_square(a);
        b = bb4_square(b);
    }
    bb_t inv = bb_inv(bb_from_u32(1u << l));
    return bb4_mul_base(res, inv);
}

bb4_t gs_eq_uni_at_one(uint32_t l, bb4_t x)
{
    bb4_t res = bb4_one();
    bb4_t a = x;
    for (uint32_t i = 0; i < l; i++) {
        res = bb4_mul(res, bb4_add_base(a, bb_one()));
        a = bb4_square(a);
    }
    return bb4_mul_base(res, bb_inv(bb_from_u32(1u << l)));
}

bb4_t gs_in_uni(uint32_t l_skip, int32_t n, bb4_t z)
{
    if (n >= 0)
        return bb4_one();
    uint32_t neg = (uint32_t)(-n);
    return gs_eq_uni_at_one(neg, gs_pow_2k(z, l_skip - neg));
}

bb4_t gs_eq_prism(uint32_t l, const bb4_t *x, const bb4_t *y, uint32_t n)
{
    return bb4_mul(gs_eq_uni(l, x[0], y[0]), gs_eq_mle(x + 1, y + 1, n));
}

/* eval_eq_rot_cube: (eq, rot) where rot is the MLE of [x = y + 1 mod 2^n]. */
static void eq_rot_cube(const bb4_t *x, const bb4_t *y, uint32_t n, bb4_t *eq_out, bb4_t *rot_out)
{
    bb4_t rot = bb4_one(), eq = bb4_one(), one = bb4_one();
    for (uint32_t i = n; i-- > 0;) {
        bb4_t omx = bb4_sub(one, x[i]), omy = bb4_sub(one, y[i]);
        rot = bb4_add(bb4_mul(bb4_mul(x[i], omy), eq), bb4_mul(bb4_mul(omx, y[i]), rot));
        eq = bb4_mul(eq, bb4_add(bb4_mul(x[i], y[i]), bb4_mul(omx, omy)));
    }
    *eq_out = eq;
    *rot_out = rot;
}

bb4_t gs_rot_kernel_prism(uint32_t l, const bb4_t *x, const bb4_t *y, uint32_t n)
{
    bb4_t omega = bb4_from_base(bb_two_adic_generator(l));
    bb4_t eq, rot;
    eq_rot_cube(x + 1, y + 1, n, &eq, &rot);
    bb4_t y0w = bb4_mul(y[0], omega);
    bb4_t a = bb4_mul(gs_eq_uni(l, x[0], y0w), eq);
    bb4_t b = bb4_mul(bb4_mul(gs_eq_uni_at_one(l, x[0]), gs_eq_uni_at_one(l, y0w)), bb4_sub(rot, eq));
    return bb4_add(a, b);
}

void gs_lagrange_d(uint32_t l, bb4_t z, bb4_t *w)
{
    size_t n = (size_t)1 << l;
    bb_t omega = bb_two_adic_generator(l);
    bb_t pw = bb_one();
    for (size_t k = 0; k < n; k++) {
        /* L_{w^k}(z) = eq_D(w^k, z) */
        w[k] = gs_eq_uni(l, bb4_from_base(pw), z);
        pw = bb_mul(pw, omega);
    }
}

bb4_t gs_eq_sharp(uint32_t l, const bb4_t *xi, bb4_t z)
{
    size_t n = (size_t)1 << l;
    bb4_t t[1u << 8], w[1u << 8];
    bb4_eq_table(xi, l, t);
    gs_lagrange_d(l, z, w);
    bb4_t acc = bb4_zero();
    for (size_t k = 0; k < n; k++)
        acc = bb4_add(acc, bb4_mul(t[k], w[k]));
    return acc;
}

bb4_t gs_interp_0n(const bb4_t *s, size_t n, bb4_t x)
{
    /* Lagrange on the integer nodes 0..n. */
    bb4_t acc = bb4_zero();
    for (size_t i = 0; i <= n; i++) {
        bb4_t num = bb4_one();
        bb_t den = bb_one();
        for (size_t j = 0; j <= n; j++) {
            if (j == i)
                continue;
            num = bb4_mul(num, bb4_add_base(x, bb_neg(bb_from_u32((uint32_t)j))));
            den = bb_mul(den, bb_sub(bb_from_u32((uint32_t)i), bb_from_u32((uint32_t)j)));
        }
        acc = bb4_add(acc, bb4_mul_base(bb4_mul(num, s[i]), bb_inv(den)));
    }
    return acc;
}

bb4_t gs_interp_cubic_0123(const bb4_t s[4], bb4_t x) { return gs_interp_0n(s, 3, x); }

bb4_t gs_interp_012(bb4_t e0, bb4_t e1, bb4_t e2, bb4_t x)
{
    bb4_t d1 = bb4_sub(e1, e0), d2 = bb4_sub(e2, e1);
    bb4_t p2 = bb4_mul_base(bb4_sub(d2, d1), bb_halve(bb_one()));
    bb4_t p1 = bb4_sub(d1, p2);
    return bb4_add(bb4_mul(bb4_add(bb4_mul(p2, x), p1), x), e0);
}

bb4_t gs_horner(const bb4_t *c, size_t n, bb4_t x)
{
    bb4_t acc = bb4_zero();
    for (size_t i = n; i-- > 0;)
        acc = bb4_add(bb4_mul(acc, x), c[i]);
    return acc;
}

int gs_interp_coeffs(const bb_t *xs, const bb4_t *ys, size_t stride, size_t n, bb4_t *c)
{
    bb_t *P = malloc((n + 1) * sizeof(bb_t)), *Q = malloc((n + 1) * sizeof(bb_t));
    if (!P || !Q) {
        free(P), free(Q);
        return -1;
    }
    /* P(Z) = prod (Z - x_j) */
    P[0] = bb_one();
    for (size_t j = 0; j < n; j++) {
        P[j + 1] = P[j];
        for (size_t k = j; k > 0; k--)
            P[k] = bb_sub(P[k - 1], bb_mul(xs[j], P[k]));
        P[0] = bb_neg(bb_mul(xs[j], P[0]));
    }
    for (size_t k = 0; k < n; k++)
        c[k] = bb4_zero();
    for (size_t i = 0; i < n; i++) {
        bb_t w = bb_one();
        for (size_t j = 0; j < n; j++)
            if (j != i)
                w = bb_mul(w, bb_sub(xs[i], xs[j]));
        /* Q = P / (Z - x_i), synthetic division from the top */
        Q[n - 1] = P[n];
        for (size_t k = n - 1; k > 0; k--)
            Q[k - 1] = bb_add(P[k], bb_mul(xs[i], Q[k]));
        bb4_t f = bb4_mul_base(ys[i * stride], bb_inv(w));
        for (size_t k = 0; k < n; k++)
            c[k] = bb4_add(c[k], bb4_mul_base(f, Q[k]));
    }
    free(P), free(Q);
    return 0;
}

bb4_t *gs_eq_tables_nested(const bb4_t *v, uint32_t max_n)
{
    bb4_t *t = malloc((((size_t)2 << max_n) - 1) * sizeof *t);
    if (t)
        for (uint32_t n = 0; n <= max_n; n++)
            bb4_eq_table(v, n, t + (((size_t)1 << n) - 1));
    return t;
}
