/* The last sumcheck rounds on the host (host_tail.h). */
#include "prove/host_tail.h"

void gs_tail_whir_round(const bb4_t *f, const bb4_t *w, size_t len, bb4_t out[2])
{
    bb4_t s1 = bb4_zero(), s2 = bb4_zero();
    for (size_t y = 0; y < len / 2; y++) {
        bb4_t c0 = f[2 * y], c1 = f[2 * y + 1], m0 = w[2 * y], m1 = w[2 * y + 1];
        bb4_t e1 = bb4_add(c0, c1);
        s1 = bb4_add(s1, bb4_mul(e1, m1));
        bb4_t e2 = bb4_add(e1, c1), n2 = bb4_sub(bb4_add(bb4_add(m1, m1), m1), m0);
        s2 = bb4_add(s2, bb4_mul(e2, n2));
    }
    out[0] = s1;
    out[1] = s2;
}

void gs_tail_whir_fold(bb4_t *f, bb4_t *w, size_t len, bb4_t alpha)
{
    const bb4_t one_minus = bb4_sub(bb4_one(), alpha), two_minus = bb4_sub(bb4_add(alpha, alpha), bb4_one());
    /* y <= 2y: each entry is read before it is overwritten */
    for (size_t y = 0; y < len / 2; y++) {
        f[y] = bb4_add(f[2 * y], bb4_mul(alpha, f[2 * y + 1]));
        w[y] = bb4_add(bb4_mul(one_minus, w[2 * y]), bb4_mul(two_minus, w[2 * y + 1]));
    }
}

void gs_tail_sred_round(const bb4_t *q, const bb4_t *w, size_t stride, uint32_t ncols, size_t len, bb4_t out[2])
{
    bb4_t s1 = bb4_zero(), s2 = bb4_zero();
    for (uint32_t c = 0; c < ncols; c++) {
        const bb4_t *qc = q + c * stride, *wc = w + c * stride;
        for (size_t y = 0; y < len / 2; y++) {
            bb4_t q0 = qc[2 * y], q1 = qc[2 * y + 1], w0 = wc[2 * y], w1 = wc[2 * y + 1];
            s1 = bb4_add(s1, bb4_mul(q1, w1));
            bb4_t q2 = bb4_sub(bb4_add(q1, q1), q0), w2 = bb4_sub(bb4_add(w1, w1), w0);
            s2 = bb4_add(s2, bb4_mul(q2, w2));
        }
    }
    out[0] = s1;
    out[1] = s2;
}

void gs_tail_sred_fold(bb4_t *q, bb4_t *w, size_t stride, uint32_t ncols, size_t len, bb4_t u)
{
    for (uint32_t c = 0; c < ncols; c++) {
        bb4_t *v[2] = {q + c * stride, w + c * stride};
        for (int t = 0; t < 2; t++)
            for (size_t y = 0; y < len / 2; y++)
                v[t][y] = bb4_add(v[t][2 * y], bb4_mul(u, bb4_sub(v[t][2 * y + 1], v[t][2 * y])));
    }
}
