// The degree-4 extension F[X]/(X^4 - 11) of BabyBear, one element per uvec4
// (c0 + c1 X + c2 X^2 + c3 X^3, Montgomery coefficients), laid out like
// bb4_t in src/field/ext4.h. Needs babybear.glsl.
#include "babybear.glsl"

const uint BB4_W = 0x37FFFFE9u;  // 11 in Montgomery form

uvec4 bb4_add(uvec4 a, uvec4 b)
{
    return uvec4(bb_add(a.x, b.x), bb_add(a.y, b.y), bb_add(a.z, b.z), bb_add(a.w, b.w));
}

uvec4 bb4_sub(uvec4 a, uvec4 b)
{
    return uvec4(bb_sub(a.x, b.x), bb_sub(a.y, b.y), bb_sub(a.z, b.z), bb_sub(a.w, b.w));
}

uvec4 bb4_neg(uvec4 a) { return uvec4(bb_neg(a.x), bb_neg(a.y), bb_neg(a.z), bb_neg(a.w)); }

uvec4 bb4_mul_base(uvec4 a, uint s) { return uvec4(bb_mul(a.x, s), bb_mul(a.y, s), bb_mul(a.z, s), bb_mul(a.w, s)); }

// Schoolbook product with X^4 = 11: 16 base products plus 3 by W.
uvec4 bb4_mul(uvec4 a, uvec4 b)
{
    uint t0 = bb_add(bb_add(bb_mul(a.y, b.w), bb_mul(a.z, b.z)), bb_mul(a.w, b.y));
    uint t1 = bb_add(bb_mul(a.z, b.w), bb_mul(a.w, b.z));
    uint t2 = bb_mul(a.w, b.w);
    uvec4 r;
    r.x = bb_add(bb_mul(a.x, b.x), bb_mul(BB4_W, t0));
    r.y = bb_add(bb_add(bb_mul(a.x, b.y), bb_mul(a.y, b.x)), bb_mul(BB4_W, t1));
    r.z = bb_add(bb_add(bb_add(bb_mul(a.x, b.z), bb_mul(a.y, b.y)), bb_mul(a.z, b.x)), bb_mul(BB4_W, t2));
    r.w = bb_add(bb_add(bb_mul(a.x, b.w), bb_mul(a.y, b.z)), bb_add(bb_mul(a.z, b.y), bb_mul(a.w, b.x)));
    return r;
}

uvec4 bb4_square(uvec4 a) { return bb4_mul(a, a); }

uvec4 bb4_pow(uvec4 base, uint e)
{
    uvec4 r = uvec4(BB_ONE, 0u, 0u, 0u);
    while (e != 0u) {
        if ((e & 1u) != 0u)
            r = bb4_mul(r, base);
        base = bb4_square(base);
        e >>= 1;
    }
    return r;
}

// Inverse through the tower F[Y]/(Y^2 - 11), Y = X^2: a = e + X o with
// e, o in F[Y]; (e + X o)(e - X o) = e^2 - Y o^2 lies in F[Y], whose inverse
// needs one base-field inversion. bb4_inv(0) = 0.
uvec4 bb4_inv(uvec4 a)
{
    uint n0 = bb_sub(bb_add(bb_square(a.x), bb_mul(BB4_W, bb_square(a.z))),
                     bb_mul(bb_double(BB4_W), bb_mul(a.y, a.w)));
    uint n1 = bb_sub(bb_sub(bb_double(bb_mul(a.x, a.z)), bb_square(a.y)), bb_mul(BB4_W, bb_square(a.w)));
    uint d = bb_sub(bb_square(n0), bb_mul(BB4_W, bb_square(n1)));
    uint dinv = bb_inv(d);
    uint i0 = bb_mul(n0, dinv);
    uint i1 = bb_neg(bb_mul(n1, dinv));
    uint e0 = bb_add(bb_mul(a.x, i0), bb_mul(BB4_W, bb_mul(a.z, i1)));
    uint e1 = bb_add(bb_mul(a.x, i1), bb_mul(a.z, i0));
    uint o0 = bb_add(bb_mul(a.y, i0), bb_mul(BB4_W, bb_mul(a.w, i1)));
    uint o1 = bb_add(bb_mul(a.y, i1), bb_mul(a.w, i0));
    return uvec4(e0, bb_neg(o0), e1, bb_neg(o1));
}
