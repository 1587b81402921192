// Elementwise field kernels for tests, the self-check and the benchmark.
// Operation numbers match gs_field_op in src/field/field_batch.h.
// Bindings are ranges chosen by the host (src/engine/gles/field_kernels.c):
// element i of this dispatch is element i of each bound range.
#include "babybear.glsl"
#include "ext4.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) readonly buffer InA { uint a[]; };
layout(std430, binding = 1) readonly buffer InB { uint b[]; };
layout(std430, binding = 2) writeonly buffer Out { uint o[]; };

uniform uint gs_op;
uniform uint gs_param;      // exponent or chain length

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
    switch (gs_op) {
    case 0u: o[i] = bb_add(a[i], b[i]); break;
    case 1u: o[i] = bb_sub(a[i], b[i]); break;
    case 2u: o[i] = bb_mul(a[i], b[i]); break;
    case 3u: o[i] = bb_neg(a[i]); break;
    case 4u: o[i] = bb_square(a[i]); break;
    case 5u: o[i] = bb_inv(a[i]); break;
    case 6u: o[i] = bb_pow(a[i], gs_param); break;
    case 7u: {
        uint x = a[i], y = b[i];
        for (uint k = 0u; k < gs_param; k++)
            x = bb_mul(x, y);
        o[i] = x;
        break;
    }
    case 8u: o[i] = bb_to_canonical(a[i]); break;
    case 9u: o[i] = bb_from_canonical(a[i]); break;
    case 16u: st4(i, bb4_add(ld4a(i), ld4b(i))); break;
    case 17u: st4(i, bb4_sub(ld4a(i), ld4b(i))); break;
    case 18u: st4(i, bb4_mul(ld4a(i), ld4b(i))); break;
    case 19u: st4(i, bb4_neg(ld4a(i))); break;
    case 20u: st4(i, bb4_square(ld4a(i))); break;
    case 21u: st4(i, bb4_inv(ld4a(i))); break;
    case 22u: st4(i, bb4_pow(ld4a(i), gs_param)); break;
    case 23u: {
        uvec4 x = ld4a(i), y = ld4b(i);
        for (uint k = 0u; k < gs_param; k++)
            x = bb4_mul(x, y);
        st4(i, x);
        break;
    }
    case 24u: st4(i, bb4_mul_base(ld4a(i), b[i])); break;
    default: break;
    }
}
