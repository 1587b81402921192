/* The degree-4 extension EF = F[X]/(X^4 - 11) of BabyBear.
 * c[0] + c[1] X + c[2] X^2 + c[3] X^3, coefficients in bb_t (Montgomery).
 * The coefficient order is the serialization and transcript order. */
#ifndef GS_FIELD_EXT4_H
#define GS_FIELD_EXT4_H

#include "field/babybear.h"

#define BB4_W 11u

typedef struct bb4_t {
    bb_t c[4];
} bb4_t;

static inline bb4_t bb4_zero(void) { bb4_t r = {{0, 0, 0, 0}}; return r; }
static inline bb4_t bb4_one(void) { bb4_t r = {{bb_one(), 0, 0, 0}}; return r; }
static inline bb4_t bb4_from_base(bb_t a) { bb4_t r = {{a, 0, 0, 0}}; return r; }

static inline bb4_t bb4_add(bb4_t a, bb4_t b)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = bb_add(a.c[i], b.c[i]);
    return r;
}

static inline bb4_t bb4_sub(bb4_t a, bb4_t b)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = bb_sub(a.c[i], b.c[i]);
    return r;
}

static inline bb4_t bb4_neg(bb4_t a)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = bb_neg(a.c[i]);
    return r;
}

/* Multiplication by a base-field scalar. */
static inline bb4_t bb4_mul_base(bb4_t a, bb_t s)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = bb_mul(a.c[i], s);
    return r;
}

static inline bb4_t bb4_add_base(bb4_t a, bb_t s)
{
    a.c[0] = bb_add(a.c[0], s);
    return a;
}

/* Schoolbook product with X^4 = 11. */
static inline bb4_t bb4_mul(bb4_t a, bb4_t b)
{
    const bb_t w = 0x37FFFFE9u; /* Montgomery form of 11 */
    bb_t a0 = a.c[0], a1 = a.c[1], a2 = a.c[2], a3 = a.c[3];
    bb_t b0 = b.c[0], b1 = b.c[1], b2 = b.c[2], b3 = b.c[3];
    bb4_t r;
    bb_t t0 = bb_add(bb_add(bb_mul(a1, b3), bb_mul(a2, b2)), bb_mul(a3, b1));
    r.c[0] = bb_add(bb_mul(a0, b0), bb_mul(w, t0));
    bb_t t1 = bb_add(bb_mul(a2, b3), bb_mul(a3, b2));
    r.c[1] = bb_add(bb_add(bb_mul(a0, b1), bb_mul(a1, b0)), bb_mul(w, t1));
    r.c[2] = bb_add(bb_add(bb_add(bb_mul(a0, b2), bb_mul(a1, b1)), bb_mul(a2, b0)), bb_mul(w, bb_mul(a3, b3)));
    r.c[3] = bb_add(bb_add(bb_mul(a0, b3), bb_mul(a1, b2)), bb_add(bb_mul(a2, b1), bb_mul(a3, b0)));
    return r;
}

static inline bb4_t bb4_square(bb4_t a) { return bb4_mul(a, a); }

/* A sum of extension products kept unreduced: each product's seven groups
 * of at most four word products (< 4p² < 2^64) are reduced mod p once and
 * added up in 64 bits (fewer than 2^32 products per accumulator); reading
 * the value takes out, with one Montgomery step per group, the extra R the
 * raw products carry. The same value as adding bb4_mul products, about
 * twice as fast (16 word reductions per product are 7). */
typedef struct bb4_acc {
    uint64_t s0, s0w, s1, s1w, s2, s2w, s3; /* c0, c0·X^4 part, c1, .., c3 */
} bb4_acc;

static inline void bb4_acc_add(bb4_acc *acc, bb4_t a, bb4_t b)
{
    const uint64_t a0 = a.c[0], a1 = a.c[1], a2 = a.c[2], a3 = a.c[3];
    const uint64_t b0 = b.c[0], b1 = b.c[1], b2 = b.c[2], b3 = b.c[3];
    acc->s0 += a0 * b0 % BB_P;
    acc->s0w += (a1 * b3 + a2 * b2 + a3 * b1) % BB_P;
    acc->s1 += (a0 * b1 + a1 * b0) % BB_P;
    acc->s1w += (a2 * b3 + a3 * b2) % BB_P;
    acc->s2 += (a0 * b2 + a1 * b1 + a2 * b0) % BB_P;
    acc->s2w += a3 * b3 % BB_P;
    acc->s3 += (a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0) % BB_P;
}

/* Adds another accumulator's products (both below 2^31 products). */
static inline void bb4_acc_merge(bb4_acc *acc, const bb4_acc *o)
{
    acc->s0 += o->s0, acc->s0w += o->s0w, acc->s1 += o->s1, acc->s1w += o->s1w;
    acc->s2 += o->s2, acc->s2w += o->s2w, acc->s3 += o->s3;
}

static inline bb4_t bb4_acc_value(const bb4_acc *acc)
{
    const bb_t w = 0x37FFFFE9u; /* Montgomery form of 11 */
    bb4_t r;
    r.c[0] = bb_add(bb_monty_reduce(acc->s0 % BB_P), bb_mul(w, bb_monty_reduce(acc->s0w % BB_P)));
    r.c[1] = bb_add(bb_monty_reduce(acc->s1 % BB_P), bb_mul(w, bb_monty_reduce(acc->s1w % BB_P)));
    r.c[2] = bb_add(bb_monty_reduce(acc->s2 % BB_P), bb_mul(w, bb_monty_reduce(acc->s2w % BB_P)));
    r.c[3] = bb_monty_reduce(acc->s3 % BB_P);
    return r;
}

/* Σ a[i]·b[i] over i < n (n < 2^32), through a bb4_acc. For short dot
 * products on the host (the column openings: keccakf-1024 has ~84k
 * products). */
static inline bb4_t bb4_dot(const bb4_t *a, const bb4_t *b, size_t n)
{
    bb4_acc acc = {0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        bb4_acc_add(&acc, a[i], b[i]);
    return bb4_acc_value(&acc);
}

static inline int bb4_eq(bb4_t a, bb4_t b)
{
    return a.c[0] == b.c[0] && a.c[1] == b.c[1] && a.c[2] == b.c[2] && a.c[3] == b.c[3];
}

static inline int bb4_is_zero(bb4_t a) { return (a.c[0] | a.c[1] | a.c[2] | a.c[3]) == 0; }

static inline bb4_t bb4_pow(bb4_t base, uint64_t e)
{
    bb4_t r = bb4_one();
    while (e) {
        if (e & 1)
            r = bb4_mul(r, base);
        base = bb4_square(base);
        e >>= 1;
    }
    return r;
}

/* Inverse through the tower F[Y]/(Y^2 - 11), Y = X^2. bb4_inv(0) = 0. */
bb4_t bb4_inv(bb4_t a);

/* In-place batch inversion; zeros stay zero. scratch holds n elements. */
void bb4_batch_inv(bb4_t *v, size_t n, bb4_t *scratch);
/* The eq table over n coordinates: t[x] = eq(xi, bits(x)) =
 * Π_k (bit k of x ? xi[k] : 1 - xi[k]) for x < 2^n (one product per entry). */
void bb4_eq_table(const bb4_t *xi, size_t n, bb4_t *t);

/* Canonical <-> internal, 4 u32 per element. */
static inline bb4_t bb4_from_canonical(const uint32_t c[4])
{
    bb4_t r = {{bb_from_canonical(c[0]), bb_from_canonical(c[1]), bb_from_canonical(c[2]), bb_from_canonical(c[3])}};
    return r;
}

static inline void bb4_to_canonical(uint32_t out[4], bb4_t a)
{
    for (int i = 0; i < 4; i++)
        out[i] = bb_to_canonical(a.c[i]);
}

#endif
