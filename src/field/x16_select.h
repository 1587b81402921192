/* Chooses the 16-lane BabyBear vector of one instruction set (AVX-512, AVX2,
 * or AArch64's Advanced SIMD) for the kernel
 * template included after it. The CPU engine's 16-lane kernels (constraint
 * interpreter, round 0's coset transform, weighted column sums) are written
 * once in a .inc template over these names and included once per set, so
 * the AVX-512 and AVX2 forms cannot drift apart (field/x16_instantiate.h
 * does the including). No include guard: define GS_X16_USE_AVX512,
 * GS_X16_USE_AVX2 or GS_X16_USE_NEON (one of them), include this, include the template,
 * undefine the choice, repeat. Defines:
 *   X16_T           the vector: 16 BabyBear lanes in Montgomery form
 *   X16(op)         its operations (babybear_avx512.h / babybear_avx2.h /
 *                   babybear_neon.h):
 *                   load, store, set1, zero, add, sub, mul, div_2exp, gather,
 *                   partner, blend_upper, bitrev, bcast4, even4, odd4
 *                   (extension elements as 4-lane groups); and for product chains on
 *                   signed words (Poseidon2's S-box): mul_signed, canonical,
 *                   add_wrap
 *   X16_FN          attributes of a template's inline helpers
 *   X16_KERNEL      attributes of its entry points
 *   X16_NAME(name)  name with the set's suffix (name_avx512, name_avx2) */
#undef X16_T
#undef X16
#undef X16_FN
#undef X16_KERNEL
#undef X16_NAME
#undef X16_CAT_
#undef X16_CAT

#define X16_CAT_(a, b) a##b
#define X16_CAT(a, b) X16_CAT_(a, b)

#if defined(GS_X16_USE_AVX512)
#include "field/babybear_avx512.h"
#define X16_T __m512i
#define X16(op) X16_CAT(bb16_, op)
#define X16_FN BB16_FN
#define X16_KERNEL __attribute__((target("avx512f")))
#define X16_NAME(name) X16_CAT(name, _avx512)
#elif defined(GS_X16_USE_AVX2)
#include "field/babybear_avx2.h"
#define X16_T bb8x2
#define X16(op) X16_CAT(bb8x2_, op)
#define X16_FN BB8_FN
#define X16_KERNEL __attribute__((target("avx2")))
#define X16_NAME(name) X16_CAT(name, _avx2)
#elif defined(GS_X16_USE_NEON)
#include "field/babybear_neon.h"
#define X16_T bbn16
#define X16(op) X16_CAT(bbn16_, op)
#define X16_FN BBN_FN
#define X16_KERNEL
#define X16_NAME(name) X16_CAT(name, _neon)
#else
#error "define GS_X16_USE_AVX512, GS_X16_USE_AVX2 or GS_X16_USE_NEON before including field/x16_select.h"
#endif
