#include "field/babybear.h"
#include "field/ext4.h"

/* Canonical g_k for k = 0..27 (Plonky3 BabyBear TWO_ADIC_GENERATORS). */
static const uint32_t two_adic_generators[BB_TWO_ADICITY + 1] = {
    0x1,        0x78000000, 0x67055c21, 0x5ee99486, 0x0bb4c4e4, 0x2d4cc4da, 0x669d6090,
    0x17b56c64, 0x67456167, 0x688442f9, 0x145e952d, 0x4fe61226, 0x4c734715, 0x11c33e2a,
    0x62c3d2b1, 0x77cad399, 0x54c131f4, 0x4cabd6a6, 0x5cf5713f, 0x3e9430e8, 0x0ba067a3,
    0x18adc27d, 0x21fd55bc, 0x4b859b3d, 0x3bd57996, 0x4483d85a, 0x3a26eef8, 0x1a427a41,
};

bb_t bb_two_adic_generator(unsigned k)
{
    if (k > BB_TWO_ADICITY)
        return 0;
    return bb_from_canonical(two_adic_generators[k]);
}

void bb_batch_inv(bb_t *v, size_t n, bb_t *scratch)
{
    bb_t acc = bb_one();
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (v[i])
            acc = bb_mul(acc, v[i]);
    }
    bb_t inv = bb_inv(acc);
    for (size_t i = n; i-- > 0;) {
        if (!v[i])
            continue;
        bb_t vi = v[i];
        v[i] = bb_mul(inv, scratch[i]);
        inv = bb_mul(inv, vi);
    }
}

void bb_array_from_canonical(bb_t *dst, const uint32_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = bb_from_canonical(src[i]);
}

void bb_array_to_canonical(uint32_t *dst, const bb_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = bb_to_canonical(src[i]);
}

bb4_t bb4_inv(bb4_t a)
{
    const bb_t w = bb_from_canonical(BB4_W);
    bb_t a0 = a.c[0], a1 = a.c[1], a2 = a.c[2], a3 = a.c[3];
    /* a = e + X o with e = a0 + a2 Y, o = a1 + a3 Y (Y = X^2). Multiply by the
     * conjugate e - X o: the norm e^2 - Y o^2 lies in F[Y]. */
    bb_t n0 = bb_sub(bb_add(bb_square(a0), bb_mul(w, bb_square(a2))), bb_mul(bb_double(w), bb_mul(a1, a3)));
    bb_t n1 = bb_sub(bb_sub(bb_double(bb_mul(a0, a2)), bb_square(a1)), bb_mul(w, bb_square(a3)));
    /* (n0 + n1 Y)^-1 = (n0 - n1 Y) / (n0^2 - 11 n1^2) */
    bb_t d = bb_sub(bb_square(n0), bb_mul(w, bb_square(n1)));
    bb_t dinv = bb_inv(d);
    bb_t i0 = bb_mul(n0, dinv);
    bb_t i1 = bb_neg(bb_mul(n1, dinv));
    /* (e - X o) * (i0 + i1 Y) */
    bb_t e0 = bb_add(bb_mul(a0, i0), bb_mul(w, bb_mul(a2, i1)));
    bb_t e1 = bb_add(bb_mul(a0, i1), bb_mul(a2, i0));
    bb_t o0 = bb_add(bb_mul(a1, i0), bb_mul(w, bb_mul(a3, i1)));
    bb_t o1 = bb_add(bb_mul(a1, i1), bb_mul(a3, i0));
    bb4_t r = {{e0, bb_neg(o0), e1, bb_neg(o1)}};
    return r;
}

void bb4_batch_inv(bb4_t *v, size_t n, bb4_t *scratch)
{
    bb4_t acc = bb4_one();
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!bb4_is_zero(v[i]))
            acc = bb4_mul(acc, v[i]);
    }
    bb4_t inv = bb4_inv(acc);
    for (size_t i = n; i-- > 0;) {
        if (bb4_is_zero(v[i]))
            continue;
        bb4_t vi = v[i];
        v[i] = bb4_mul(inv, scratch[i]);
        inv = bb4_mul(inv, vi);
    }
}

void bb_pow_table(bb_t z, unsigned first, unsigned bits, bb_t *t)
{
    bb_t p = z;
    for (unsigned i = 0; i < first; i++)
        p = bb_square(p);
    t[0] = bb_one();
    for (unsigned i = 0; i < bits; i++) {
        size_t h = (size_t)1 << i;
        for (size_t b = 0; b < h; b++)
            t[b + h] = bb_mul(t[b], p);
        p = bb_square(p);
    }
}

void bb4_eq_table(const bb4_t *xi, size_t n, bb4_t *t)
{
    /* Coordinate k splits each entry e into e·xi[k] (bit k set) and
     * e - e·xi[k] (bit k clear): one product per new entry. */
    t[0] = bb4_one();
    for (size_t k = 0; k < n; k++) {
        size_t half = (size_t)1 << k;
        for (size_t x = 0; x < half; x++) {
            bb4_t hi = bb4_mul(t[x], xi[k]);
            t[x + half] = hi;
            t[x] = bb4_sub(t[x], hi);
        }
    }
}
