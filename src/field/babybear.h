/* BabyBear, p = 2^31 - 2^27 + 1, in Montgomery form with R = 2^32.
 *
 * Inside the library a bb_t holds x*R mod p, always fully reduced in [0, p).
 * At every boundary (proof bytes, transcript, hashing input as integers,
 * files, tests) values are canonical: convert with bb_from_canonical /
 * bb_to_canonical. Field operations never need to know the representation.
 *
 * Inline so the hot loops of the CPU engine can be optimised across calls. */
#ifndef GS_FIELD_BABYBEAR_H
#define GS_FIELD_BABYBEAR_H

#include <stddef.h>
#include <stdint.h>

#define BB_P 0x78000001u          /* 2013265921 */
#define BB_MU 0x88000001u         /* p^-1 mod 2^32 */
#define BB_R2 0x45DDDDE3u         /* R^2 mod p, to enter Montgomery form */
#define BB_TWO_ADICITY 27
#define BB_GENERATOR 31u          /* canonical multiplicative generator */

typedef uint32_t bb_t; /* Montgomery form; see above */

/* x*2^-32 mod p for x < 2^32 * p. */
static inline uint32_t bb_monty_reduce(uint64_t x)
{
    uint32_t t = (uint32_t)x * BB_MU;
    uint64_t u = (uint64_t)t * BB_P;
    uint64_t d = x - u;
    uint32_t hi = (uint32_t)(d >> 32);
    return x < u ? hi + BB_P : hi;
}

static inline bb_t bb_mul(bb_t a, bb_t b) { return bb_monty_reduce((uint64_t)a * b); }

static inline bb_t bb_add(bb_t a, bb_t b)
{
    uint32_t s = a + b; /* < 2^32 since a, b < 2^31 */
    return s >= BB_P ? s - BB_P : s;
}

static inline bb_t bb_sub(bb_t a, bb_t b)
{
    uint32_t d = a - b;
    return a < b ? d + BB_P : d;
}

static inline bb_t bb_neg(bb_t a) { return a ? BB_P - a : 0; }

static inline bb_t bb_square(bb_t a) { return bb_mul(a, a); }

static inline bb_t bb_double(bb_t a) { return bb_add(a, a); }

/* Canonical integer (any u32; reduced mod p first) to field element. */
static inline bb_t bb_from_u32(uint32_t x) { return bb_mul(x % BB_P, BB_R2); }
static inline bb_t bb_from_canonical(uint32_t x) { return bb_from_u32(x); }
static inline bb_t bb_from_u64(uint64_t x) { return bb_from_u32((uint32_t)(x % BB_P)); }

/* Field element to its canonical integer in [0, p). */
static inline uint32_t bb_to_canonical(bb_t a) { return bb_monty_reduce(a); }

static inline bb_t bb_zero(void) { return 0; }
static inline bb_t bb_one(void) { return 0x0FFFFFFEu; } /* R mod p */

static inline int bb_eq(bb_t a, bb_t b) { return a == b; }
static inline int bb_is_zero(bb_t a) { return a == 0; }

static inline bb_t bb_pow(bb_t base, uint64_t e)
{
    bb_t r = bb_one();
    while (e) {
        if (e & 1)
            r = bb_mul(r, base);
        base = bb_square(base);
        e >>= 1;
    }
    return r;
}

/* Inverse by Fermat (x^(p-2)); bb_inv(0) returns 0. */
static inline bb_t bb_inv(bb_t a) { return bb_pow(a, BB_P - 2); }

/* x/2 */
static inline bb_t bb_halve(bb_t a) { return bb_mul(a, 0x07FFFFFFu /* Montgomery form of (p+1)/2 */); }

/* Primitive 2^k-th root of unity g_k (k <= 27), as Plonky3's two_adic_generator. */
bb_t bb_two_adic_generator(unsigned k);

/* In-place batch inversion (Montgomery's trick). Zeros stay zero.
 * scratch must hold n elements. */
void bb_batch_inv(bb_t *v, size_t n, bb_t *scratch);
/* Powers of z over `bits` index bits starting at bit `first`:
 * t[b] = z^(b << first) for b < 2^bits (one product per entry). */
void bb_pow_table(bb_t z, unsigned first, unsigned bits, bb_t *t);

/* Converts arrays between canonical and Montgomery form, in place allowed. */
void bb_array_from_canonical(bb_t *dst, const uint32_t *src, size_t n);
void bb_array_to_canonical(uint32_t *dst, const bb_t *src, size_t n);

#endif
