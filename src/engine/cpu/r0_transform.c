/* Round 0's per-column coset transform (r0_transform.h). */
#include "engine/cpu/r0_transform.h"

#include "engine/cpu/kernels.h"

#include <stdlib.h>
#include <string.h>

#define VEC_LOG_N 4 /* the vector path holds a whole column of 16 words in one register */

/* Size-n radix-2 transform in place, natural order in and out:
 * v[m] <- sum_j v[j] w^(jm), with tw[k] = w^k for k < n/2. */
static void ntt_natural(bb_t *v, size_t n, const bb_t *tw, uint32_t log_n)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            bb_t x = v[i];
            v[i] = v[j];
            v[j] = x;
        }
    }
    for (uint32_t s = 1; s <= log_n; s++) {
        size_t len = (size_t)1 << s, half = len >> 1, step = n >> s;
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < half; k++) {
                bb_t u = v[i + k], x = bb_mul(v[i + k + half], tw[k * step]);
                v[i + k] = bb_add(u, x);
                v[i + k + half] = bb_sub(u, x);
            }
    }
}

static void column_portable(const gs_r0_transform *t, const bb_t *values, bb_t *out, bb_t *coef)
{
    size_t n = t->n;
    memcpy(coef, values, n * sizeof(bb_t));
    ntt_natural(coef, n, t->tw_inv, t->log_n); /* n times the coefficients */
    for (uint32_t i = 0; i < t->n_cos; i++) {
        bb_t *o = out + (size_t)i * n;
        const bb_t *sc = t->scale + (size_t)i * n;
        for (size_t j = 0; j < n; j++)
            o[j] = bb_mul(coef[j], sc[j]);
        ntt_natural(o, n, t->tw_fwd, t->log_n);
    }
}

static size_t bit_reverse(size_t x, uint32_t bits)
{
    size_t r = 0;
    for (uint32_t b = 0; b < bits; b++)
        r |= ((x >> b) & 1) << (bits - 1 - b);
    return r;
}

/* Lane twiddles of the vector path, 16 per layer. Layers 0..3: the inverse
 * transform as decimation in frequency with half-sizes h = 8, 4, 2, 1 (natural
 * order in, bit-reversed out); lane j with bit h set multiplies a - b by
 * w^-(j mod h)(n/2h), other lanes take no twiddle (1). Layers 4..7: the
 * forward transform as decimation in time with h = 1, 2, 4, 8 (bit-reversed in,
 * natural out); both lanes of a pair use w^(j mod h)(n/2h). */
static void fill_lanes(gs_r0_transform *t)
{
    size_t n = t->n;
    for (int l = 0; l < 4; l++) {
        size_t h = (size_t)8 >> l;
        for (size_t j = 0; j < 16; j++)
            t->lanes[16 * l + j] = (j & h) ? t->tw_inv[(j & (h - 1)) * (n / (2 * h))] : bb_one();
    }
    for (int l = 0; l < 4; l++) {
        size_t h = (size_t)1 << l;
        for (size_t j = 0; j < 16; j++)
            t->lanes[16 * (4 + l) + j] = t->tw_fwd[(j & (h - 1)) * (n / (2 * h))];
    }
}

#define GS_X16_TEMPLATE "engine/cpu/r0_transform_x16.inc"
#include "field/x16_instantiate.h"

int gs_r0_transform_available(gs_simd_isa impl, uint32_t log_n)
{
    const gs_cpu_kernels *k = gs_cpu_kernels_of(impl);
    if (!k)
        return 0;
    return k->r0_column ? log_n == VEC_LOG_N : log_n <= 27;
}

void gs_r0_transform_free(gs_r0_transform *t)
{
    free(t->tw_fwd);
    free(t->scale);
    free(t->lanes);
    free(t->lagr_last);
    memset(t, 0, sizeof(*t));
}

int gs_r0_transform_init(gs_r0_transform *t, uint32_t log_n, uint32_t n_cos, int impl)
{
    memset(t, 0, sizeof(*t));
    if (impl < 0)
        impl = gs_r0_transform_available(gs_simd_best(), log_n) ? (int)gs_simd_best() : GS_SIMD_NONE;
    if (!gs_r0_transform_available((gs_simd_isa)impl, log_n))
        return -1;
    size_t n = (size_t)1 << log_n;
    t->log_n = log_n;
    t->n = n;
    t->n_cos = n_cos;
    t->impl = (gs_simd_isa)impl;
    t->column = gs_cpu_kernels_of(t->impl)->r0_column;
    t->tw_fwd = malloc((n / 2 + 1) * 2 * sizeof(bb_t));
    t->scale = malloc(((size_t)n_cos * n * 2 + 1) * sizeof(bb_t));
    t->lanes = malloc(8 * 16 * sizeof(bb_t));
    t->lagr_last = malloc(((size_t)n_cos * n + 2 * n) * sizeof(bb_t));
    if (!t->tw_fwd || !t->scale || !t->lanes || !t->lagr_last) {
        gs_r0_transform_free(t);
        return -1;
    }
    t->tw_inv = t->tw_fwd + n / 2 + 1;
    t->scale_rev = t->scale + (size_t)n_cos * n;
    bb_t w = bb_two_adic_generator(log_n), wi = bb_inv(w), a = bb_one(), b = bb_one();
    for (size_t k = 0; k < n / 2; k++) {
        t->tw_fwd[k] = a;
        t->tw_inv[k] = b;
        a = bb_mul(a, w);
        b = bb_mul(b, wi);
    }
    bb_t g = bb_from_u32(31), gi = g, ninv = bb_inv(bb_from_u32((uint32_t)n));
    for (uint32_t i = 0; i < n_cos; i++) {
        bb_t s = ninv;
        for (size_t j = 0; j < n; j++) {
            t->scale[(size_t)i * n + j] = s;
            t->scale_rev[(size_t)i * n + bit_reverse(j, log_n)] = s;
            s = bb_mul(s, gi);
        }
        gi = bb_mul(gi, g);
    }
    if (log_n == VEC_LOG_N)
        fill_lanes(t);
    /* the last point's Lagrange polynomial: the transform of (0, ..., 0, 1) */
    bb_t *unit = t->lagr_last + (size_t)n_cos * n, *scratch = unit + n;
    memset(unit, 0, n * sizeof(bb_t));
    unit[n - 1] = bb_one();
    gs_r0_transform_column(t, unit, t->lagr_last, scratch);
    return 0;
}

void gs_r0_transform_next(const gs_r0_transform *t, const bb_t *local_out, bb_t delta, bb_t *out)
{
    size_t n = t->n;
    for (uint32_t i = 0; i < t->n_cos; i++) {
        const bb_t *lo = local_out + (size_t)i * n, *lg = t->lagr_last + (size_t)i * n;
        bb_t *o = out + (size_t)i * n;
        for (size_t k = 0; k + 1 < n; k++)
            o[k] = bb_add(lo[k + 1], bb_mul(delta, lg[k]));
        o[n - 1] = bb_add(lo[0], bb_mul(delta, lg[n - 1]));
    }
}

void gs_r0_transform_column(const gs_r0_transform *t, const bb_t *values, bb_t *out, bb_t *scratch)
{
    if (t->column)
        t->column(t, values, out);
    else
        column_portable(t, values, out, scratch);
}
