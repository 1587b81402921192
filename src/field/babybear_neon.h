/* BabyBear Montgomery arithmetic on AArch64 Advanced SIMD (NEON): 16 lanes
 * as four 4-lane registers (bbn16), the same operation names and words as
 * bb8x2_* (babybear_avx2.h) and bb16_* (babybear_avx512.h), so the CPU
 * engine's 16-lane kernel templates (x16_select.h) build for ARM boards too.
 * Advanced SIMD is part of every AArch64 CPU, so no run-time check is
 * needed. Include only inside an AArch64 GCC/clang guard.
 *
 * The Montgomery product uses the saturating doubling high multiply
 * (SQDMULH): with q = lo32(a b mu), hi(2 a b) - hi(2 q p) is 2 (a b - q p) /
 * 2^32 exactly, because a b and q p agree in their low 32 bits; one halving
 * subtract gives (a b - q p) / 2^32 in (-p, p). Five instructions per four
 * lanes where the 64-bit products of the x86 forms take eleven. */
#ifndef GS_FIELD_BABYBEAR_NEON_H
#define GS_FIELD_BABYBEAR_NEON_H

#include <arm_neon.h>

#include "field/babybear.h"

#define BBN_FN static inline __attribute__((always_inline))

typedef struct bbn16 {
    uint32x4_t r[4]; /* lanes 4i .. 4i+3 in r[i] */
} bbn16;

/* ---- one 4-lane register ---- */

BBN_FN uint32x4_t bbn_add1(uint32x4_t a, uint32x4_t b)
{
    uint32x4_t s = vaddq_u32(a, b);
    return vminq_u32(s, vsubq_u32(s, vdupq_n_u32(BB_P)));
}

BBN_FN uint32x4_t bbn_sub1(uint32x4_t a, uint32x4_t b)
{
    uint32x4_t d = vsubq_u32(a, b);
    return vminq_u32(d, vaddq_u32(d, vdupq_n_u32(BB_P)));
}

/* a b 2^-32 in (-p, p) for int32 words with |a b| < 2^31 p (so 2 a b and
 * 2 q p never saturate). */
BBN_FN int32x4_t bbn_mul_signed1(int32x4_t a, int32x4_t b)
{
    int32x4_t ab_hi = vqdmulhq_s32(a, b);
    int32x4_t q = vmulq_s32(a, vmulq_s32(b, vdupq_n_s32((int32_t)BB_MU)));
    int32x4_t qp_hi = vqdmulhq_s32(q, vdupq_n_s32((int32_t)BB_P));
    return vhsubq_s32(ab_hi, qp_hi);
}

/* A signed word in (-p, p) to its value in [0, p). */
BBN_FN uint32x4_t bbn_canonical1(uint32x4_t d) { return vminq_u32(d, vaddq_u32(d, vdupq_n_u32(BB_P))); }

BBN_FN uint32x4_t bbn_mul1(uint32x4_t a, uint32x4_t b)
{
    return bbn_canonical1(vreinterpretq_u32_s32(bbn_mul_signed1(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b))));
}

/* x / 2^k for 1 <= k <= 27: with x = hi 2^k + lo and 2^-27 = -15 mod p,
 * x / 2^k = hi - 15 lo 2^(27-k), both terms below p (as babybear_avx2.h). */
BBN_FN uint32x4_t bbn_div_2exp1(uint32x4_t x, int k)
{
    uint32x4_t hi = vshlq_u32(x, vdupq_n_s32(-k));
    uint32x4_t lo = vandq_u32(x, vdupq_n_u32((1u << k) - 1));
    uint32x4_t t = vshlq_u32(lo, vdupq_n_s32(27 - k));
    t = vsubq_u32(vshlq_n_u32(t, 4), t);
    return bbn_sub1(hi, t);
}

/* ---- 16 lanes ---- */

BBN_FN bbn16 bbn16_load(const bb_t *p)
{
    bbn16 v = {{vld1q_u32(p), vld1q_u32(p + 4), vld1q_u32(p + 8), vld1q_u32(p + 12)}};
    return v;
}

BBN_FN void bbn16_store(bb_t *p, bbn16 v)
{
    for (int i = 0; i < 4; i++)
        vst1q_u32(p + 4 * i, v.r[i]);
}

BBN_FN bbn16 bbn16_set1(bb_t x)
{
    uint32x4_t d = vdupq_n_u32(x);
    bbn16 v = {{d, d, d, d}};
    return v;
}

BBN_FN bbn16 bbn16_zero(void) { return bbn16_set1(0); }

#define BBN16_LANEWISE2(name, op)                                                                                   \
    BBN_FN bbn16 bbn16_##name(bbn16 a, bbn16 b)                                                                     \
    {                                                                                                               \
        for (int i = 0; i < 4; i++)                                                                                 \
            a.r[i] = op(a.r[i], b.r[i]);                                                                            \
        return a;                                                                                                   \
    }

BBN16_LANEWISE2(add, bbn_add1)
BBN16_LANEWISE2(sub, bbn_sub1)
BBN16_LANEWISE2(mul, bbn_mul1)
/* plain 32-bit addition, no reduction (for sums the caller keeps in range) */
BBN16_LANEWISE2(add_wrap, vaddq_u32)
#undef BBN16_LANEWISE2

BBN_FN bbn16 bbn16_mul_signed(bbn16 a, bbn16 b)
{
    for (int i = 0; i < 4; i++)
        a.r[i] = vreinterpretq_u32_s32(bbn_mul_signed1(vreinterpretq_s32_u32(a.r[i]), vreinterpretq_s32_u32(b.r[i])));
    return a;
}

BBN_FN bbn16 bbn16_canonical(bbn16 d)
{
    for (int i = 0; i < 4; i++)
        d.r[i] = bbn_canonical1(d.r[i]);
    return d;
}

BBN_FN bbn16 bbn16_div_2exp(bbn16 x, int k)
{
    for (int i = 0; i < 4; i++)
        x.r[i] = bbn_div_2exp1(x.r[i], k);
    return x;
}

/* Lane j takes base[idx lane j] (no gather instruction: lane by lane). */
BBN_FN bbn16 bbn16_gather(const bb_t *base, bbn16 idx)
{
    uint32_t ix[16], v[16];
    bbn16_store(ix, idx);
    for (int j = 0; j < 16; j++)
        v[j] = base[ix[j]];
    return bbn16_load(v);
}

/* Lane j takes lane j ^ h of v (h = 1, 2, 4 or 8). */
BBN_FN bbn16 bbn16_partner(bbn16 v, int h)
{
    bbn16 r;
    for (int i = 0; i < 4; i++) {
        if (h >= 4)
            r.r[i] = v.r[i ^ (h / 4)];
        else if (h == 2)
            r.r[i] = vextq_u32(v.r[i], v.r[i], 2);
        else
            r.r[i] = vrev64q_u32(v.r[i]);
    }
    return r;
}

/* Lanes whose index has bit h set from b, the others from a (h = 1, 2, 4 or 8). */
BBN_FN bbn16 bbn16_blend_upper(bbn16 a, bbn16 b, int h)
{
    static const uint32_t odd[4] = {0, ~0u, 0, ~0u}, high[4] = {0, 0, ~0u, ~0u};
    bbn16 r;
    for (int i = 0; i < 4; i++) {
        if (h >= 4)
            r.r[i] = (i & (h / 4)) ? b.r[i] : a.r[i];
        else
            r.r[i] = vbslq_u32(vld1q_u32(h == 2 ? high : odd), b.r[i], a.r[i]);
    }
    return r;
}

/* Lane j takes lane rev4(j) of v (its 4-bit index reversed): lane 4 i + l of
 * the result is lane 4 rev2(l) + rev2(i) of v, a 4 x 4 transpose with rows
 * and columns taken in rev2 order (0, 2, 1, 3). */
BBN_FN bbn16 bbn16_bitrev(bbn16 v)
{
    /* rows in rev2 order, then the transpose: t[i] lane l = v.r[rev2 l] lane i */
    uint32x4_t a = v.r[0], b = v.r[2], c = v.r[1], d = v.r[3];
    uint32x4_t ab_lo = vzip1q_u32(a, b), ab_hi = vzip2q_u32(a, b);
    uint32x4_t cd_lo = vzip1q_u32(c, d), cd_hi = vzip2q_u32(c, d);
    uint32x4_t t0 = vreinterpretq_u32_u64(vzip1q_u64(vreinterpretq_u64_u32(ab_lo), vreinterpretq_u64_u32(cd_lo)));
    uint32x4_t t1 = vreinterpretq_u32_u64(vzip2q_u64(vreinterpretq_u64_u32(ab_lo), vreinterpretq_u64_u32(cd_lo)));
    uint32x4_t t2 = vreinterpretq_u32_u64(vzip1q_u64(vreinterpretq_u64_u32(ab_hi), vreinterpretq_u64_u32(cd_hi)));
    uint32x4_t t3 = vreinterpretq_u32_u64(vzip2q_u64(vreinterpretq_u64_u32(ab_hi), vreinterpretq_u64_u32(cd_hi)));
    bbn16 r = {{t0, t2, t1, t3}}; /* result register i is t[rev2 i] */
    return r;
}

/* Lane j takes lane 4 (j / 4) + c of v (c < 4): component c of each of the
 * four extension elements the 16 lanes hold, spread over its lanes. */
BBN_FN bbn16 bbn16_bcast4(bbn16 v, int c)
{
    for (int i = 0; i < 4; i++) {
        switch (c) { /* the lane must be an immediate */
        case 0: v.r[i] = vdupq_laneq_u32(v.r[i], 0); break;
        case 1: v.r[i] = vdupq_laneq_u32(v.r[i], 1); break;
        case 2: v.r[i] = vdupq_laneq_u32(v.r[i], 2); break;
        default: v.r[i] = vdupq_laneq_u32(v.r[i], 3); break;
        }
    }
    return v;
}

/* The even (odd) 4-lane groups of a, then those of b. */
BBN_FN bbn16 bbn16_even4(bbn16 a, bbn16 b)
{
    bbn16 r = {{a.r[0], a.r[2], b.r[0], b.r[2]}};
    return r;
}

BBN_FN bbn16 bbn16_odd4(bbn16 a, bbn16 b)
{
    bbn16 r = {{a.r[1], a.r[3], b.r[1], b.r[3]}};
    return r;
}

#endif
