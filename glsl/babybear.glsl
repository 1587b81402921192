// BabyBear, p = 2^31 - 2^27 + 1, in Montgomery form with R = 2^32: the same
// representation as src/field/babybear.h, so GPU buffers and C arrays hold
// identical bytes. Every value is fully reduced to [0, p).

const uint BB_P = 0x78000001u;
const uint BB_ONE = 0x0FFFFFFEu;  // R mod p
const uint BB_R2 = 0x45DDDDE3u;   // R^2 mod p

// p^-1 mod 2^32 (0x88000001), set by the runtime when the program is linked.
// It is a uniform on purpose: with both constants visible, Mesa 22.3's LLVM 15
// JIT crashes while constant folding the reduction (docs/design.md, 'Pitfalls we met on GLES compute').
uniform uint gs_bb_mu;

uint bb_add(uint a, uint b)
{
    // s < 2^32 since a, b < 2^31. Below p, s - p wraps above s; from p on it
    // is the reduced value and smaller: an unsigned min picks the right one
    // without a compare and select.
    uint s = a + b;
    return min(s, s - BB_P);
}

uint bb_sub(uint a, uint b)
{
    // a >= b: d < p <= d + p. a < b: d wrapped above 2^31, d + p wraps back
    // to a - b + p < p. The smaller of the two is the result either way.
    uint d = a - b;
    return min(d, d + BB_P);
}

uint bb_neg(uint a) { return a == 0u ? 0u : BB_P - a; }

uint bb_double(uint a) { return bb_add(a, a); }

#ifndef GS_FIELD_MUL
#define GS_FIELD_MUL 0
#endif

// The high word of t*p for t = lo*mu mod 2^32: the Montgomery step. Two
// variants (the prelude picks one per device, src/gles/caps.c):
//   0 "wide": a low multiply and a wide one (umulExtended);
//   1 "shift": no multiply. mu = p^-1 mod 2^32 = 2^31 + 2^27 + 1, so
//     t = (lo << 31) + (lo << 27) + lo; t*p = t*2^31 - t*2^27 + t, whose
//     high word is (t >> 1) - (t >> 5) less the borrow and plus the carry
//     of the low words. For GPUs where multiplies are scarce or the high
//     half is emulated (V3D, Xe-LP, Adreno: docs/design.md,
//     'Pitfalls we met on GLES compute').
uint bb_mont_hi(uint lo)
{
#if GS_FIELD_MUL == 1
    uint t = (lo << 31) + (lo << 27) + lo;
    uint a = t << 31, b = t << 27;
    uint l1 = a - b;
    uint l2 = l1 + t;
    return (t >> 1) - (t >> 5) - (a < b ? 1u : 0u) + (l2 < l1 ? 1u : 0u);
#else
    uint t = lo * gs_bb_mu;
    uint uhi, ulo;
    umulExtended(t, BB_P, uhi, ulo);
    return uhi;
#endif
}

// a*b*2^-32 mod p. With x = a*b = hi:lo and t = lo*mu mod 2^32, x - t*p is a
// multiple of 2^32, so only the high words need subtracting.
uint bb_mul(uint a, uint b)
{
    uint hi, lo;
    umulExtended(a, b, hi, lo);
    uint r = hi - bb_mont_hi(lo); // both < p: the same case split as bb_sub
    return min(r, r + BB_P);
}

uint bb_square(uint a) { return bb_mul(a, a); }

uint bb_pow(uint base, uint e)
{
    uint r = BB_ONE;
    while (e != 0u) {
        if ((e & 1u) != 0u)
            r = bb_mul(r, base);
        base = bb_square(base);
        e >>= 1;
    }
    return r;
}

// Fermat inverse; bb_inv(0) = 0 as in C.
uint bb_inv(uint a) { return bb_pow(a, BB_P - 2u); }

uint bb_from_canonical(uint x) { return bb_mul(x % BB_P, BB_R2); }

// a*2^-32 mod p: the reduction with a zero high word. Written out rather
// than as bb_mul(a, 1u): that form makes llvmpipe's LLVM 15 abort with
// "Cannot emit physreg copy instruction" at the first dispatch.
uint bb_to_canonical(uint a)
{
    uint uhi = bb_mont_hi(a);
    return uhi == 0u ? 0u : BB_P - uhi;
}
