// The stacked opening reduction's matrix kernels (src/engine/gles/
// reduction_gles.c drives them; definitions in src/engine/reduction_ops.h).
// The product-sumcheck rounds and folds use glsl/whir.comp's column-pair
// kernels. Field arithmetic is exact, so partial sums in any grouping equal
// the CPU engine's lazily reduced sums.
#include "ext4.glsl"
#include "grid.glsl"

#ifndef RED_MODE
#define RED_MODE 1
#endif

#define MODE_BLOCK_PART 1 // round 0: per (item, z) the two eq-weighted sums over the item's x range
#define MODE_BLOCK_SUM 2  // round 0: per (slice, h, z) the sum of its items' partials
#define MODE_FOLD_PLE 3   // out[c][x] = Σ_z M[c·height + x·N + z] · lag[z]
#define MODE_SCALED_COPY 4 // weight tables: dst[d + x] = scale · src[s + x] for copies of one length

// Variants checked offline by glslangValidator (tests/gles/test_program.c):
// @variant RED_MODE 1
// @variant RED_MODE 2
// @variant RED_MODE 3
// @variant RED_MODE 4

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) buffer B0 { uint a[]; };
layout(std430, binding = 1) buffer B1 { uint b[]; };
layout(std430, binding = 2) buffer B2 { uint c[]; };
layout(std430, binding = 3) buffer B3 { uint d[]; };

#define LDB(i) uvec4(b[(i)], b[(i) + 1u], b[(i) + 2u], b[(i) + 3u])
#define LDC(i) uvec4(c[(i)], c[(i) + 1u], c[(i) + 2u], c[(i) + 3u])
#define LDD(i) uvec4(d[(i)], d[(i) + 1u], d[(i) + 2u], d[(i) + 3u])
#define STA(i, v) { uvec4 v_ = (v); a[(i)] = v_.x; a[(i) + 1u] = v_.y; a[(i) + 2u] = v_.z; a[(i) + 3u] = v_.w; }
#define STB(i, v) { uvec4 v_ = (v); b[(i)] = v_.x; b[(i) + 1u] = v_.y; b[(i) + 2u] = v_.z; b[(i) + 3u] = v_.w; }
#define STD(i, v) { uvec4 v_ = (v); d[(i)] = v_.x; d[(i) + 1u] = v_.y; d[(i) + 2u] = v_.z; d[(i) + 3u] = v_.w; }

uniform uint gs_lskip;  // log2 N
uniform uint gs_win;    // block_part: matrix word index where binding 0 starts
uniform uint gs_item0;  // block_part: first item of this dispatch (in binding 2)
uniform uint gs_stab;   // block_sum: word offset of the slice table in binding 2
uniform uint gs_s0;     // block_sum: first slice of this dispatch
uniform uint gs_olead;  // block_sum: word lead of the output in binding 0
uniform uint gs_pbase;  // block_part/block_sum: the item whose partials sit first in binding 3
uniform uint gs_lead0;  // fold_ple: matrix lead
uniform uint gs_lead1;  // fold_ple: output lead
uniform uint gs_height; // fold_ple: matrix column stride (words)
uniform uint gs_ostride; // fold_ple: output column stride (words)
uniform uint gs_nx;     // fold_ple: blocks per column in this dispatch
uniform uint gs_loglen; // scaled_copy: log2 of every copy's length in this dispatch
uniform uint gs_c0;     // scaled_copy: word where this dispatch's first copy starts in binding 2
uniform uint gs_wbase;  // scaled_copy: dst element where binding 0 starts

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uint N = 1u << gs_lskip;
#if RED_MODE == MODE_BLOCK_PART
    // Item (binding 2, 4 words): matrix word of (x = 0, z = 0), x0, x1, nt.
    // Matrix window in binding 0, eq tables (table nt at 2^nt − 1) in
    // binding 1, partials out in binding 3: [item][h][z].
    uint it = gs_item0 + (id >> gs_lskip), z = id & (N - 1u);
    uint base = c[4u * it], x0 = c[4u * it + 1u], x1 = c[4u * it + 2u], nt = c[4u * it + 3u];
    uint nx = 1u << nt, eo = nx - 1u;
    uvec4 s0 = uvec4(0u), s1 = uvec4(0u);
    for (uint x = x0; x < x1; x++) {
        uint m = a[base - gs_win + x * N + z];
        uint xp = x == 0u ? nx - 1u : x - 1u;
        s0 = bb4_add(s0, bb4_mul_base(LDB(4u * (eo + x)), m));
        s1 = bb4_add(s1, bb4_mul_base(LDB(4u * (eo + xp)), m));
    }
    uint o = 4u * (((it - gs_pbase) * 2u) * N + z);
    STD(o, s0);
    STD(o + 4u * N, s1);
#elif RED_MODE == MODE_BLOCK_SUM
    // (slice, h, z) for slices from gs_s0; slice table entry: first item, items.
    uint s = gs_s0 + id / (2u * N), r = id - (id / (2u * N)) * (2u * N);
    uint h = r >> gs_lskip, z = r & (N - 1u);
    uint first = c[gs_stab + 2u * s], cnt = c[gs_stab + 2u * s + 1u];
    uvec4 acc = uvec4(0u);
    for (uint i = first; i < first + cnt; i++)
        acc = bb4_add(acc, LDD(4u * (((i - gs_pbase) * 2u + h) * N + z)));
    STA(gs_olead + 4u * id, acc);
#elif RED_MODE == MODE_FOLD_PLE
    // Block x of column col (gs_nx blocks per column in this dispatch).
    uint col = id / gs_nx, x = id - col * gs_nx;
    uint m0 = gs_lead0 + col * gs_height + x * N;
    uvec4 acc = uvec4(0u);
    for (uint z = 0u; z < N; z++)
        acc = bb4_add(acc, bb4_mul_base(LDC(4u * z), a[m0 + z]));
    STB(gs_lead1 + col * gs_ostride + 4u * x, acc);
#elif RED_MODE == MODE_SCALED_COPY
    // Copy (binding 2, 6 words): dst element, src element, scale. dst window
    // in binding 0, src (whole) in binding 1.
    uint k = gs_c0 + 6u * (id >> gs_loglen), x = id & ((1u << gs_loglen) - 1u);
    uint dst = c[k] - gs_wbase + x, src = c[k + 1u] + x;
    uvec4 scale = uvec4(c[k + 2u], c[k + 3u], c[k + 4u], c[k + 5u]);
    STA(4u * dst, bb4_mul(scale, LDB(4u * src)));
#endif
}
