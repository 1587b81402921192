/* The 16-lane BabyBear vectors of the CPU kernels (field/x16_select.h: AVX2
 * as two registers, AVX-512 as one), in every set this CPU runs, against
 * the scalar field of babybear.h: add, sub, mul, div_2exp for every k, the
 * lane permutes and blends of the coset transform, the 4-bit index
 * reversal, gather, the extension elements' 4-lane group ops (bcast4,
 * even4, odd4), and the signed-word product chain of Poseidon2's S-box
 * (mul_signed, canonical, add_wrap). Inputs mix
 * random words (fixed printed seed) with 0, 1, p-1 and 2^k-boundary values;
 * outputs are poisoned first. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "field/babybear.h"
#include "field/simd_isa.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_PARTNER, OP_BLEND, OP_GATHER, OP_BITREV, OP_BCAST4, OP_EVEN4, OP_ODD4, OP_COUNT };
/* The signed-word operations of Poseidon2's S-box, checked by their own test. */
enum { OP_MUL_SIGNED = OP_COUNT, OP_CANONICAL, OP_ADD_WRAP };

/* out = op(a, b) on 16 lanes; k: the shift (div), h (partner, blend); for
 * gather, b holds indices into a. */
#define DEFINE_APPLY                                                                                                \
    X16_KERNEL static void X16_NAME(apply)(int op, int k, const bb_t *a, const bb_t *b, bb_t *out)                  \
    {                                                                                                               \
        X16_T x = X16(load)(a), y = X16(load)(b), r;                                                                \
        switch (op) {                                                                                               \
        case OP_ADD: r = X16(add)(x, y); break;                                                                     \
        case OP_SUB: r = X16(sub)(x, y); break;                                                                     \
        case OP_MUL: r = X16(mul)(x, y); break;                                                                     \
        case OP_DIV: r = X16(div_2exp)(x, k); break;                                                                \
        case OP_PARTNER: r = X16(partner)(x, k); break;                                                             \
        case OP_BLEND: r = X16(blend_upper)(x, y, k); break;                                                        \
        case OP_BITREV: r = X16(bitrev)(x); break;                                                                  \
        case OP_BCAST4: r = X16(bcast4)(x, k); break;                                                               \
        case OP_EVEN4: r = X16(even4)(x, y); break;                                                                 \
        case OP_ODD4: r = X16(odd4)(x, y); break;                                                                   \
        case OP_MUL_SIGNED: r = X16(mul_signed)(x, y); break;                                                       \
        case OP_CANONICAL: r = X16(canonical)(x); break;                                                            \
        case OP_ADD_WRAP: r = X16(add_wrap)(x, y); break;                                                           \
        default: r = X16(gather)(a, y); break;                                                                      \
        }                                                                                                           \
        X16(store)(out, r);                                                                                         \
    }

#ifdef GS_HAVE_X86_SIMD
#define GS_X16_USE_AVX512
#include "field/x16_select.h"
DEFINE_APPLY
#undef GS_X16_USE_AVX512
#define GS_X16_USE_AVX2
#include "field/x16_select.h"
DEFINE_APPLY
#undef GS_X16_USE_AVX2
#endif
#ifdef GS_HAVE_NEON_SIMD
#define GS_X16_USE_NEON
#include "field/x16_select.h"
DEFINE_APPLY
#undef GS_X16_USE_NEON
#endif

static void apply(gs_simd_isa isa, int op, int k, const bb_t *a, const bb_t *b, bb_t *out)
{
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        apply_avx512(op, k, a, b, out);
    else
        apply_avx2(op, k, a, b, out);
#elif defined(GS_HAVE_NEON_SIMD)
    (void)isa;
    apply_neon(op, k, a, b, out);
#else
    (void)isa, (void)op, (void)k, (void)a, (void)b, (void)out;
#endif
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* A Montgomery word: random, or one of 0, 1, p-1, 2^j, 2^j - 1 (canonical). */
static bb_t word(uint64_t *s)
{
    uint32_t r = (uint32_t)next(s), v;
    switch (r % 8) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = BB_P - 1; break;
    case 3: v = (1u << (r / 8 % 31)) % BB_P; break;
    case 4: v = ((1u << (r / 8 % 31)) - 1) % BB_P; break;
    default: v = (uint32_t)next(s) % BB_P; break;
    }
    /* half the time the raw word itself (Montgomery words are just words below p) */
    return (r & 0x100) ? v : bb_from_canonical(v);
}

/* The scalar definition of lane j. */
static bb_t want(int op, int k, const bb_t *a, const bb_t *b, int j)
{
    switch (op) {
    case OP_ADD: return bb_add(a[j], b[j]);
    case OP_SUB: return bb_sub(a[j], b[j]);
    case OP_MUL: return bb_mul(a[j], b[j]);
    case OP_DIV: return bb_mul(a[j], (bb_t)(((uint64_t)1 << (32 - k)) % BB_P)); /* x 2^(32-k) 2^-32 */
    case OP_PARTNER: return a[j ^ k];
    case OP_BLEND: return (j & k) ? b[j] : a[j];
    case OP_BITREV: return a[((j & 1) << 3) | ((j & 2) << 1) | ((j & 4) >> 1) | ((j & 8) >> 3)];
    case OP_BCAST4: return a[4 * (j / 4) + k]; /* component k of the 4-lane group */
    case OP_EVEN4:  /* groups 0 and 2 of a, then of b */
    case OP_ODD4: {
        int g = 2 * (j / 4 % 2) + (op == OP_ODD4), lane = 4 * g + j % 4;
        return j < 8 ? a[lane] : b[lane];
    }
    default: return a[b[j]];
    }
}

Test(field_x16, every_op_matches_scalar_field)
{
    uint64_t seed = 0x16F1E1D5;
    printf("field_x16 seed %llu\n", (unsigned long long)seed);
    int ran = 0;
    for (gs_simd_isa isa = GS_SIMD_AVX2; isa <= GS_SIMD_LAST; isa++) {
        if (!gs_simd_available(isa)) {
            printf("field_x16: no %s on this CPU or in this build\n", gs_simd_name(isa));
            continue;
        }
        ran++;
        uint64_t s = seed;
        for (int op = 0; op < OP_COUNT; op++) {
            int kmin = op == OP_DIV ? 1 : 0, kmax = op == OP_DIV ? 27 : 3;
            for (int ki = kmin; ki <= kmax; ki++) {
                int k = op == OP_PARTNER || op == OP_BLEND ? 1 << ki : ki; /* h = 1, 2, 4, 8 */
                for (int trial = 0; trial < 200; trial++) {
                    bb_t a[16], b[16], out[16];
                    for (int j = 0; j < 16; j++) {
                        a[j] = word(&s);
                        b[j] = op == OP_GATHER ? (bb_t)(next(&s) % 16) : word(&s);
                    }
                    memset(out, 0xFF, sizeof out); /* not field words: every lane must be written */
                    apply(isa, op, k, a, b, out);
                    for (int j = 0; j < 16; j++)
                        cr_assert_eq(out[j], want(op, k, a, b, j),
                                     "%s, op %d, k %d, trial %d, lane %d: %u, want %u (inputs %u, %u)",
                                     gs_simd_name(isa), op, k, trial, j, out[j], want(op, k, a, b, j), a[j], b[j]);
                }
            }
        }
    }
    if (!ran)
        printf("field_x16: no vector set here; the plain C kernels are tested elsewhere\n");
}

/* A signed word in (-p, p) for the canonical value v: v or v - p. */
static int32_t signed_word(uint64_t *s, bb_t v)
{
    return (next(s) & 1) && v != 0 ? (int32_t)v - (int32_t)BB_P : (int32_t)v;
}

static bb_t canonical_of(int32_t w)
{
    return w < 0 ? (bb_t)(w + (int32_t)BB_P) : (bb_t)w;
}

Test(field_x16, signed_product_chain_matches_scalar_field)
{
    uint64_t seed = 0x5161ED;
    printf("field_x16 signed seed %llu\n", (unsigned long long)seed);
    for (gs_simd_isa isa = GS_SIMD_AVX2; isa <= GS_SIMD_LAST; isa++) {
        if (!gs_simd_available(isa))
            continue;
        uint64_t s = seed;
        for (int trial = 0; trial < 2000; trial++) {
            bb_t a[16], b[16], out[16];
            int32_t sa[16], sb[16];
            for (int j = 0; j < 16; j++) {
                a[j] = word(&s);
                b[j] = word(&s);
                sa[j] = signed_word(&s, a[j]);
                sb[j] = signed_word(&s, b[j]);
            }
            if (trial == 0) /* the extremes: (p-1)^2, -(p-1)(p-1), (-(p-1))^2 */
                for (int j = 0; j < 16; j++) {
                    sa[j] = (j & 1) ? -(int32_t)(BB_P - 1) : (int32_t)(BB_P - 1);
                    sb[j] = (j & 2) ? -(int32_t)(BB_P - 1) : (int32_t)(BB_P - 1);
                    a[j] = canonical_of(sa[j]);
                    b[j] = canonical_of(sb[j]);
                }
            memset(out, 0xFF, sizeof out);
            apply(isa, OP_MUL_SIGNED, 0, (const bb_t *)sa, (const bb_t *)sb, out);
            for (int j = 0; j < 16; j++) {
                int32_t w = (int32_t)out[j];
                cr_assert(w > -(int32_t)BB_P && w < (int32_t)BB_P, "%s mul_signed, trial %d, lane %d: %d outside (-p, p)",
                          gs_simd_name(isa), trial, j, w);
                cr_assert_eq(canonical_of(w), bb_mul(a[j], b[j]),
                             "%s mul_signed, trial %d, lane %d: %d is not %u (inputs %d, %d)", gs_simd_name(isa), trial,
                             j, w, bb_mul(a[j], b[j]), sa[j], sb[j]);
            }
            memset(out, 0xFF, sizeof out);
            apply(isa, OP_CANONICAL, 0, (const bb_t *)sa, b, out);
            for (int j = 0; j < 16; j++)
                cr_assert_eq(out[j], a[j], "%s canonical, trial %d, lane %d: %u, want %u (input %d)",
                             gs_simd_name(isa), trial, j, out[j], a[j], sa[j]);
            memset(out, 0xFF, sizeof out);
            apply(isa, OP_ADD_WRAP, 0, a, b, out);
            for (int j = 0; j < 16; j++)
                cr_assert_eq(out[j], (bb_t)(a[j] + b[j]), "%s add_wrap, trial %d, lane %d", gs_simd_name(isa), trial, j);
        }
    }
}
