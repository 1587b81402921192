/* One Poseidon2-16 permutation at a time with the state in vector
 * registers, for the sequential sponges (the Fiat-Shamir transcript, the
 * public hash): each permutation there waits for the previous one, so the
 * 16-lane batch (poseidon2_x16.inc) cannot help and the latency of one
 * permutation is what counts. The 16 cells are one AVX-512 register, two
 * AVX2 registers or four NEON registers; each group of four cells (one
 * Plonky3 MDSMat4 block) is one 128-bit lane, so M4's rotations are
 * in-lane shuffles. The arithmetic is exact, so every version returns the
 * scalar permutation's words (gs_poseidon2_permute_scalar, poseidon2.c).
 * The operations each instruction set gives the template
 * (poseidon2_single.inc) are defined here; those it shares with the 16-lane
 * kernels come from field/babybear_*.h. */
#include "field/simd_isa.h"
#include "hash/poseidon2.h"
#include "hash/poseidon2_constants.h"

#if defined(GS_HAVE_X86_SIMD) || defined(GS_HAVE_NEON_SIMD)
/* The internal layer's diagonal V (poseidon2.c) in Montgomery form,
 * V_i 2^32 mod p; lane 0 (V_0 = -2) is unused: the template computes that
 * cell as R - c (see p1_partial_rounds). */
#define P1_M(c, e) ((uint32_t)(((uint64_t)(c) << (e)) % BB_P)) /* c 2^(e-32) */
#define P1_NEG(m) (BB_P - (m))
static const bb_t p1_diag[16] = {
    0,                   P1_M(1, 32),        P1_M(1, 33),         P1_M(1, 31),         /* -2, 1, 2, 1/2 */
    P1_M(3, 32),         P1_M(1, 34),        P1_NEG(P1_M(1, 31)), P1_NEG(P1_M(3, 32)), /* 3, 4, -1/2, -3 */
    P1_NEG(P1_M(1, 34)), P1_M(1, 24),        P1_M(1, 30),         P1_M(1, 29),         /* -4, 2^-8, 1/4, 1/8 */
    P1_M(1, 5),          P1_NEG(P1_M(1, 24)), P1_NEG(P1_M(1, 28)), P1_NEG(P1_M(1, 5)), /* 2^-27, -2^-8, -1/16, -2^-27 */
};
#undef P1_M
#undef P1_NEG
#endif

#ifdef GS_HAVE_X86_SIMD
#include "field/babybear_avx2.h"
#include "field/babybear_avx512.h"

/* Within a 128-bit lane: lane j takes lane j + 1 mod 4 (rot1), j ^ 2, j ^ 1. */
#define P1_ROT1 _MM_SHUFFLE(0, 3, 2, 1)
#define P1_SWAP2 _MM_SHUFFLE(1, 0, 3, 2)
#define P1_SWAP1 _MM_SHUFFLE(2, 3, 0, 1)

/* ---- AVX-512: the state in one register; P1_B is a register too ---- */
#define s16_load bb16_load
#define s16_store bb16_store
#define s16_set1 bb16_set1
#define s16_add bb16_add
#define s16_add_wrap bb16_add_wrap
#define s16_mul_signed bb16_mul_signed
#define s16_canonical bb16_canonical
#define s16_mul bb16_mul
#define s16_bcast(b) (b)
#define s16b_set1 bb16_set1
#define s16b_add bb16_add
#define s16b_sub bb16_sub
#define s16b_add_wrap bb16_add_wrap
#define s16b_sub_wrap s16_sub_wrap
#define s16b_canonical bb16_canonical

BB16_FN __m512i s16_sub_wrap(__m512i a, __m512i b) { return _mm512_sub_epi32(a, b); }
BB16_FN __m512i s16_rot1(__m512i x) { return _mm512_shuffle_epi32(x, (_MM_PERM_ENUM)P1_ROT1); }
BB16_FN __m512i s16_swap2(__m512i x) { return _mm512_shuffle_epi32(x, (_MM_PERM_ENUM)P1_SWAP2); }
BB16_FN __m512i s16_blend0(__m512i a, __m512i b) { return _mm512_mask_blend_epi32(1, a, b); }
BB16_FN __m512i s16_zero0(__m512i x) { return _mm512_maskz_mov_epi32(0xFFFE, x); }
BB16_FN __m512i s16_cell0(__m512i x) { return _mm512_broadcastd_epi32(_mm512_castsi512_si128(x)); }

/* Column sums: add the groups swapped in pairs (0-1, 2-3), then in halves. */
BB16_FN __m512i s16_colsum(__m512i y)
{
    __m512i t = bb16_add(y, _mm512_shuffle_i32x4(y, y, P1_SWAP1));
    return bb16_add(t, _mm512_shuffle_i32x4(t, t, P1_SWAP2));
}

BB16_FN __m512i s16b_grpsum(__m512i c)
{
    __m512i t = bb16_add(c, _mm512_shuffle_epi32(c, (_MM_PERM_ENUM)P1_SWAP2));
    return bb16_add(t, _mm512_shuffle_epi32(t, (_MM_PERM_ENUM)P1_SWAP1));
}

/* bb16_mul_signed on a value held in every lane: the even lanes' 64-bit
 * products alone (half the multiplies), the result word copied from each
 * product's high half into both lanes of its pair. */
BB16_FN __m512i s16b_mul_signed(__m512i a, __m512i b)
{
    const __m512i p = _mm512_set1_epi32((int)BB_P), mu = _mm512_set1_epi32((int)BB_MU);
    __m512i ab = _mm512_mul_epi32(a, b);
    __m512i d = _mm512_sub_epi64(ab, _mm512_mul_epi32(_mm512_mul_epu32(ab, mu), p));
    return _mm512_shuffle_epi32(d, (_MM_PERM_ENUM)_MM_SHUFFLE(3, 3, 1, 1));
}

#define P1_T __m512i
#define P1_B __m512i
#define P1(op) s16_##op
#define P1B(op) s16b_##op
#define P1_FN BB16_FN
#define P1_KERNEL __attribute__((target("avx512f")))
#define P1_NAME(name) name##_avx512
#include "hash/poseidon2_single.inc"

/* ---- AVX2: cells 0..7 (groups 0, 1) in h[0], 8..15 in h[1]; P1_B is one
 * register, its two 128-bit lanes alike ---- */
#define s8_load bb8x2_load
#define s8_store bb8x2_store
#define s8_set1 bb8x2_set1
#define s8_add bb8x2_add
#define s8_add_wrap bb8x2_add_wrap
#define s8_mul_signed bb8x2_mul_signed
#define s8_canonical bb8x2_canonical
#define s8_mul bb8x2_mul
#define s8b_set1(x) _mm256_set1_epi32((int)(x))
#define s8b_add bb8_add
#define s8b_sub bb8_sub
#define s8b_add_wrap _mm256_add_epi32
#define s8b_sub_wrap _mm256_sub_epi32
#define s8b_canonical bb8_canonical

BB8_FN bb8x2 s8_sub_wrap(bb8x2 a, bb8x2 b)
{
    a.h[0] = _mm256_sub_epi32(a.h[0], b.h[0]);
    a.h[1] = _mm256_sub_epi32(a.h[1], b.h[1]);
    return a;
}

BB8_FN bb8x2 s8_rot1(bb8x2 x)
{
    x.h[0] = _mm256_shuffle_epi32(x.h[0], P1_ROT1);
    x.h[1] = _mm256_shuffle_epi32(x.h[1], P1_ROT1);
    return x;
}

BB8_FN bb8x2 s8_swap2(bb8x2 x)
{
    x.h[0] = _mm256_shuffle_epi32(x.h[0], P1_SWAP2);
    x.h[1] = _mm256_shuffle_epi32(x.h[1], P1_SWAP2);
    return x;
}

BB8_FN bb8x2 s8_blend0(bb8x2 a, bb8x2 b)
{
    a.h[0] = _mm256_blend_epi32(a.h[0], b.h[0], 1);
    return a;
}

BB8_FN bb8x2 s8_zero0(bb8x2 x)
{
    x.h[0] = _mm256_blend_epi32(x.h[0], _mm256_setzero_si256(), 1);
    return x;
}

BB8_FN bb8x2 s8_bcast(__m256i b)
{
    bb8x2 r = {{b, b}};
    return r;
}

BB8_FN __m256i s8_cell0(bb8x2 x) { return _mm256_broadcastd_epi32(_mm256_castsi256_si128(x.h[0])); }

/* Groups 0 + 2 and 1 + 3 in one addition, then the two 128-bit lanes. */
BB8_FN __m256i s8_colsum(bb8x2 y)
{
    __m256i t = bb8_add(y.h[0], y.h[1]);
    return bb8_add(t, _mm256_permute2x128_si256(t, t, 1));
}

BB8_FN __m256i s8b_grpsum(__m256i c)
{
    __m256i t = bb8_add(c, _mm256_shuffle_epi32(c, P1_SWAP2));
    return bb8_add(t, _mm256_shuffle_epi32(t, P1_SWAP1));
}

/* As s16b_mul_signed: even lanes' products only, result into both lanes. */
BB8_FN __m256i s8b_mul_signed(__m256i a, __m256i b)
{
    const __m256i p = _mm256_set1_epi32((int)BB_P), mu = _mm256_set1_epi32((int)BB_MU);
    __m256i ab = _mm256_mul_epi32(a, b);
    __m256i d = _mm256_sub_epi64(ab, _mm256_mul_epi32(_mm256_mul_epu32(ab, mu), p));
    return _mm256_shuffle_epi32(d, _MM_SHUFFLE(3, 3, 1, 1));
}

#define P1_T bb8x2
#define P1_B __m256i
#define P1(op) s8_##op
#define P1B(op) s8b_##op
#define P1_FN BB8_FN
#define P1_KERNEL __attribute__((target("avx2")))
#define P1_NAME(name) name##_avx2
#include "hash/poseidon2_single.inc"
#endif /* GS_HAVE_X86_SIMD */

#ifdef GS_HAVE_NEON_SIMD
#include "field/babybear_neon.h"

/* ---- NEON: group g in register r[g]; P1_B is one register ---- */
#define sn_load bbn16_load
#define sn_store bbn16_store
#define sn_set1 bbn16_set1
#define sn_add bbn16_add
#define sn_add_wrap bbn16_add_wrap
#define sn_mul_signed bbn16_mul_signed
#define sn_canonical bbn16_canonical
#define sn_mul bbn16_mul
#define snb_set1 vdupq_n_u32
#define snb_add bbn_add1
#define snb_sub bbn_sub1
#define snb_add_wrap vaddq_u32
#define snb_sub_wrap vsubq_u32
#define snb_canonical bbn_canonical1

BBN_FN bbn16 sn_sub_wrap(bbn16 a, bbn16 b)
{
    for (int i = 0; i < 4; i++)
        a.r[i] = vsubq_u32(a.r[i], b.r[i]);
    return a;
}

BBN_FN bbn16 sn_rot1(bbn16 x)
{
    for (int i = 0; i < 4; i++)
        x.r[i] = vextq_u32(x.r[i], x.r[i], 1);
    return x;
}

BBN_FN bbn16 sn_swap2(bbn16 x)
{
    for (int i = 0; i < 4; i++)
        x.r[i] = vextq_u32(x.r[i], x.r[i], 2);
    return x;
}

BBN_FN bbn16 sn_blend0(bbn16 a, bbn16 b)
{
    a.r[0] = vcopyq_laneq_u32(a.r[0], 0, b.r[0], 0);
    return a;
}

BBN_FN bbn16 sn_zero0(bbn16 x)
{
    x.r[0] = vsetq_lane_u32(0, x.r[0], 0);
    return x;
}

BBN_FN bbn16 sn_bcast(uint32x4_t b)
{
    bbn16 r = {{b, b, b, b}};
    return r;
}

BBN_FN uint32x4_t sn_cell0(bbn16 x) { return vdupq_laneq_u32(x.r[0], 0); }
BBN_FN uint32x4_t sn_colsum(bbn16 y) { return bbn_add1(bbn_add1(y.r[0], y.r[1]), bbn_add1(y.r[2], y.r[3])); }

BBN_FN uint32x4_t snb_grpsum(uint32x4_t c)
{
    uint32x4_t t = bbn_add1(c, vextq_u32(c, c, 2));
    return bbn_add1(t, vrev64q_u32(t));
}

BBN_FN uint32x4_t snb_mul_signed(uint32x4_t a, uint32x4_t b)
{
    return vreinterpretq_u32_s32(bbn_mul_signed1(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b)));
}

#define P1_T bbn16
#define P1_B uint32x4_t
#define P1(op) sn_##op
#define P1B(op) snb_##op
#define P1_FN BBN_FN
#define P1_KERNEL
#define P1_NAME(name) name##_neon
#include "hash/poseidon2_single.inc"
#endif /* GS_HAVE_NEON_SIMD */

typedef void (*p1_fn)(bb_t st[GS_P2_WIDTH]);

/* Implementation impl, or NULL where this build or this CPU lacks it. */
static p1_fn single_fn(gs_p2_impl impl)
{
    switch (impl) {
    case GS_P2_IMPL_PORTABLE: return gs_poseidon2_permute_scalar;
#ifdef GS_HAVE_X86_SIMD
    case GS_P2_IMPL_AVX2: return gs_simd_available(GS_SIMD_AVX2) ? permute_single_avx2 : NULL;
    case GS_P2_IMPL_AVX512: return gs_simd_available(GS_SIMD_AVX512) ? permute_single_avx512 : NULL;
#endif
#ifdef GS_HAVE_NEON_SIMD
    case GS_P2_IMPL_NEON: return permute_single_neon;
#endif
    default: return NULL;
    }
}

/* The one place the choice is made: the widest vector set the CPU engine's
 * kernels would use (field/simd_isa.h). No cached copy: gs_simd_best reads
 * the CPU feature words libgcc fills in once at start-up, a load and a test
 * per call, against ~0.3 us for the permutation. */
gs_p2_impl gs_poseidon2_single_impl(void)
{
    switch (gs_simd_best()) {
    case GS_SIMD_AVX512: return GS_P2_IMPL_AVX512;
    case GS_SIMD_AVX2: return GS_P2_IMPL_AVX2;
    case GS_SIMD_NEON: return GS_P2_IMPL_NEON;
    default: return GS_P2_IMPL_PORTABLE;
    }
}

int gs_poseidon2_permute_with(gs_p2_impl impl, bb_t st[GS_P2_WIDTH])
{
    p1_fn f = single_fn(impl);
    if (!f)
        return 0;
    f(st);
    return 1;
}

void gs_poseidon2_permute(bb_t st[GS_P2_WIDTH]) { single_fn(gs_poseidon2_single_impl())(st); }
