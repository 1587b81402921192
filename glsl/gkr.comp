// LogUp GKR kernels (src/engine/gkr_ops.h, docs/protocol.md, 'LogUp GKR'), one
// program per GKR_MODE. Extension elements are uvec4 (bb4_t layout). Every
// index below is relative to the bound windows: the host binds aligned
// ranges and passes the element lead of the first element in gs_lead*.
//   1 LAYER_UP  pp[y] = p[2y] q[2y+1] + p[2y+1] q[2y], qp[y] = q[2y] q[2y+1]
//   2 ROUND     per-workgroup partial sums of s(1), s(2), s(3)
//   3 REDUCE    sums runs of partial triples (second pass of ROUND)
//   4 FOLD      dst[stride a + b] = lo + r (hi - lo)
//   5 EQ_STAGE  one eq-table doubling step, in place
//   6 FILL4     o[i] = gs_value (EF pattern fill)
// @variant GKR_MODE 1
// @variant GKR_MODE 2
// @variant GKR_MODE 3
// @variant GKR_MODE 4
// @variant GKR_MODE 5
// @variant GKR_MODE 6
#include "ext4.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

// after the work-group size (NVIDIA's gl_NumSubgroups needs it), and here
// rather than in the mode branches (the includer takes each file once)
#if GKR_MODE == 2 || GKR_MODE == 3
#include "group_sum.glsl"
#endif

uniform uint gs_lead0; // element leads of bindings 0..3 inside their windows
uniform uint gs_lead1;
uniform uint gs_lead2;
uniform uint gs_lead3;
uniform uvec4 gs_value; // lambda (ROUND), r (FOLD), xi_k (EQ_STAGE), value (FILL4)

#if GKR_MODE == 1
layout(std430, binding = 0) readonly buffer P { uvec4 p[]; };
layout(std430, binding = 1) readonly buffer Q { uvec4 q[]; };
layout(std430, binding = 2) writeonly buffer PP { uvec4 pp[]; };
layout(std430, binding = 3) writeonly buffer QP { uvec4 qp[]; };

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    // windows start at the dispatch's first pair (inputs) and parent (outputs)
    uint a = gs_lead0 + 2u * id, b = gs_lead1 + 2u * id;
    uvec4 p0 = p[a], p1 = p[a + 1u], q0 = q[b], q1 = q[b + 1u];
    pp[gs_lead2 + id] = bb4_add(bb4_mul(p0, q1), bb4_mul(p1, q0));
    qp[gs_lead3 + id] = bb4_mul(q0, q1);
}

#elif GKR_MODE == 2
layout(std430, binding = 0) readonly buffer E { uvec4 e[]; };
layout(std430, binding = 1) readonly buffer P { uvec4 p[]; };
layout(std430, binding = 2) readonly buffer Q { uvec4 q[]; };
layout(std430, binding = 3) writeonly buffer S { uvec4 part[]; };

uniform uint gs_group0; // partial index of this dispatch's first workgroup


void main()
{
    uint id = gs_linear_id();
    uvec4 acc1 = uvec4(0u), acc2 = uvec4(0u), acc3 = uvec4(0u);
    // every invocation reaches the barriers; out-of-range ones add zero
    if (id < gs_count) {
        uint ie = gs_lead0 + 2u * id, ip = gs_lead1 + 4u * id, iq = gs_lead2 + 4u * id;
        uvec4 ev = e[ie], de = bb4_sub(e[ie + 1u], ev);
        uvec4 pl = p[ip], dpl = bb4_sub(p[ip + 2u], pl);
        uvec4 pr = p[ip + 1u], dpr = bb4_sub(p[ip + 3u], pr);
        uvec4 ql = q[iq], dql = bb4_sub(q[iq + 2u], ql);
        uvec4 qr = q[iq + 1u], dqr = bb4_sub(q[iq + 3u], qr);
        uvec4 lambda = gs_value;
        for (int x = 1; x <= 3; x++) {
            ev = bb4_add(ev, de);
            pl = bb4_add(pl, dpl);
            pr = bb4_add(pr, dpr);
            ql = bb4_add(ql, dql);
            qr = bb4_add(qr, dqr);
            uvec4 v = bb4_add(bb4_add(bb4_mul(pl, qr), bb4_mul(pr, ql)), bb4_mul(lambda, bb4_mul(ql, qr)));
            uvec4 t = bb4_mul(ev, v);
            if (x == 1)
                acc1 = t;
            else if (x == 2)
                acc2 = t;
            else
                acc3 = t;
        }
    }
    // gs_gl_dispatch_1d keeps workgroups whole (row pitch and base are
    // multiples of the local size), so id / local size is the group index
    uint g = id / uint(GS_LOCAL_SIZE);
    uvec4 s1 = gs_group_sum(acc1), s2 = gs_group_sum(acc2), s3 = gs_group_sum(acc3);
    if (gl_LocalInvocationID.x == 0u && id < gs_count) {
        uint o = gs_lead3 + 3u * (gs_group0 + g);
        part[o] = s1;
        part[o + 1u] = s2;
        part[o + 2u] = s3;
    }
}

#elif GKR_MODE == 3
layout(std430, binding = 0) readonly buffer In { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { uvec4 dst[]; };

uniform uint gs_n;   // triples in the input
uniform uint gs_run; // triples summed per workgroup (a multiple of GS_LOCAL_SIZE)


void main()
{
    uint id = gs_linear_id();
    uint g = id / uint(GS_LOCAL_SIZE), l = gl_LocalInvocationID.x;
    uvec4 a1 = uvec4(0u), a2 = uvec4(0u), a3 = uvec4(0u);
    uint lo = g * gs_run, hi = min(lo + gs_run, gs_n);
    for (uint i = lo + l; i < hi; i += uint(GS_LOCAL_SIZE)) {
        a1 = bb4_add(a1, src[gs_lead0 + 3u * i]);
        a2 = bb4_add(a2, src[gs_lead0 + 3u * i + 1u]);
        a3 = bb4_add(a3, src[gs_lead0 + 3u * i + 2u]);
    }
    uvec4 s1 = gs_group_sum(a1), s2 = gs_group_sum(a2), s3 = gs_group_sum(a3);
    if (l == 0u && lo < gs_n) {
        dst[gs_lead1 + 3u * g] = s1;
        dst[gs_lead1 + 3u * g + 1u] = s2;
        dst[gs_lead1 + 3u * g + 2u] = s3;
    }
}

#elif GKR_MODE == 4
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
// r sampled by the engine's sponge (src/engine/challenge.h) when gs_chal is
// 1: element gs_lead2 of binding 2; else r is gs_value
layout(std430, binding = 2) readonly buffer Chal { uvec4 chal[]; };

uniform uint gs_stride;
uniform uint gs_chal;

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    // the dispatch starts at a multiple of the stride, and its src window at
    // element 2 * stride * (first a of the dispatch)
    uint a = id / gs_stride, b = id % gs_stride;
    uint s = gs_lead0 + 2u * gs_stride * a + b;
    uvec4 lo = src[s], hi = src[s + gs_stride];
    uvec4 r = gs_chal == 0u ? gs_value : chal[gs_lead2];
    dst[gs_lead1 + id] = bb4_add(lo, bb4_mul(r, bb4_sub(hi, lo)));
}

#elif GKR_MODE == 5
layout(std430, binding = 0) buffer Lo { uvec4 tlo[]; };
layout(std430, binding = 1) writeonly buffer Hi { uvec4 thi[]; };

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uvec4 t = tlo[gs_lead0 + id];
    uvec4 h = bb4_mul(t, gs_value);
    thi[gs_lead1 + id] = h;
    tlo[gs_lead0 + id] = bb4_sub(t, h);
}

#elif GKR_MODE == 6
layout(std430, binding = 0) writeonly buffer O { uvec4 o[]; };

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    o[gs_lead0 + id] = gs_value;
}
#else
#error "GKR_MODE must be 1..6"
#endif
