// Elementwise field kernels for tests, the self-check and the benchmark.
// The operation is chosen at compile time (GS_OP, numbered as gs_field_op in
// src/field/field_batch.h): one small program per operation, because a
// uniform switch would make every invocation pay for every case on
// llvmpipe, which executes both sides of uniform branches.
// Bindings are ranges chosen by the host (gs_gles_field_op in src/engine/gles/gles_engine.c):
// element i of this dispatch is element i of each bound range.
//
// Variants checked offline by glslangValidator (tests/gles/test_program.c):
// @variant GS_OP 0
// @variant GS_OP 1
// @variant GS_OP 2
// @variant GS_OP 3
// @variant GS_OP 4
// @variant GS_OP 5
// @variant GS_OP 6
// @variant GS_OP 7
// @variant GS_OP 8
// @variant GS_OP 9
// @variant GS_OP 10
// @variant GS_OP 16
// @variant GS_OP 17
// @variant GS_OP 18
// @variant GS_OP 19
// @variant GS_OP 20
// @variant GS_OP 21
// @variant GS_OP 22
// @variant GS_OP 23
// @variant GS_OP 24
#include "babybear.glsl"
#include "ext4.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) readonly buffer InA { uint a[]; };
layout(std430, binding = 1) readonly buffer InB { uint b[]; };
layout(std430, binding = 2) writeonly buffer Out { uint o[]; };

uniform uint gs_param;  // exponent or chain length

uvec4 ld4a(uint i) { return uvec4(a[4u * i], a[4u * i + 1u], a[4u * i + 2u], a[4u * i + 3u]); }
uvec4 ld4b(uint i) { return uvec4(b[4u * i], b[4u * i + 1u], b[4u * i + 2u], b[4u * i + 3u]); }

void st4(uint i, uvec4 v)
{
    o[4u * i] = v.x;
    o[4u * i + 1u] = v.y;
    o[4u * i + 2u] = v.z;
    o[4u * i + 3u] = v.w;
}

void main()
{
    uint i = gs_linear_id();
    if (i >= gs_count)
        return;
#if GS_OP == 0
    o[i] = bb_add(a[i], b[i]);
#elif GS_OP == 1
    o[i] = bb_sub(a[i], b[i]);
#elif GS_OP == 2
    o[i] = bb_mul(a[i], b[i]);
#elif GS_OP == 3
    o[i] = bb_neg(a[i]);
#elif GS_OP == 4
    o[i] = bb_square(a[i]);
#elif GS_OP == 5
    o[i] = bb_inv(a[i]);
#elif GS_OP == 6
    o[i] = bb_pow(a[i], gs_param);
#elif GS_OP == 7
    uint x = a[i], y = b[i];
    for (uint k = 0u; k < gs_param; k++)
        x = bb_mul(x, y);
    o[i] = x;
#elif GS_OP == 8
    o[i] = bb_to_canonical(a[i]);
#elif GS_OP == 9
    o[i] = bb_from_canonical(a[i]);
#elif GS_OP == 10
    // The DFT's butterfly without its loads and stores (bench_field's floor
    // for the transform's arithmetic): four independent chains, so the rate
    // is the issue rate and not one chain's latency.
    uint x0 = a[i], x1 = a[i], x2 = a[i], x3 = a[i];
    uint y0 = b[i], y1 = b[i], y2 = b[i], y3 = b[i];
    uint w0 = b[i], w1 = bb_add(b[i], a[i]), w2 = bb_sub(b[i], a[i]), w3 = a[i];
    for (uint k = 0u; k < gs_param; k++) {
        uint t0 = bb_mul(y0, w0), t1 = bb_mul(y1, w1), t2 = bb_mul(y2, w2), t3 = bb_mul(y3, w3);
        y0 = bb_sub(x0, t0);
        x0 = bb_add(x0, t0);
        y1 = bb_sub(x1, t1);
        x1 = bb_add(x1, t1);
        y2 = bb_sub(x2, t2);
        x2 = bb_add(x2, t2);
        y3 = bb_sub(x3, t3);
        x3 = bb_add(x3, t3);
    }
    o[i] = bb_add(bb_add(x0, x1), bb_add(x2, x3));
#elif GS_OP == 16
    st4(i, bb4_add(ld4a(i), ld4b(i)));
#elif GS_OP == 17
    st4(i, bb4_sub(ld4a(i), ld4b(i)));
#elif GS_OP == 18
    st4(i, bb4_mul(ld4a(i), ld4b(i)));
#elif GS_OP == 19
    st4(i, bb4_neg(ld4a(i)));
#elif GS_OP == 20
    st4(i, bb4_square(ld4a(i)));
#elif GS_OP == 21
    st4(i, bb4_inv(ld4a(i)));
#elif GS_OP == 22
    st4(i, bb4_pow(ld4a(i), gs_param));
#elif GS_OP == 23
    uvec4 x = ld4a(i), y = ld4b(i);
    for (uint k = 0u; k < gs_param; k++)
        x = bb4_mul(x, y);
    st4(i, x);
#elif GS_OP == 24
    st4(i, bb4_mul_base(ld4a(i), b[i]));
#else
#error "GS_OP names no field operation"
#endif
}
