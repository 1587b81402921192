// The WHIR family's kernels (src/engine/gles/whir_gles.c drives them;
// definitions in src/engine/whir_ops.h) and the column-pair kernels the
// stacked reduction shares (src/engine/gles/reduction_gles.c).
//
// Every EF element is 4 consecutive words (bb4_t layout, Montgomery). Each
// dispatch sees windows of its buffers bound at aligned offsets; the host
// passes the word position of the first element it needs inside a window as
// a "lead" uniform, so no kernel knows where a window sits in its buffer.
// Field arithmetic is exact, so the partial sums here add up to the CPU
// engine's sums whatever the grouping.
//
// Every mode is validated offline (tests/gles/test_program.c):
// @variant WHIR_MODE 1
// @variant WHIR_MODE 2
// @variant WHIR_MODE 3
// @variant WHIR_MODE 4
// @variant WHIR_MODE 5
// @variant WHIR_MODE 6
// @variant WHIR_MODE 7
// @variant WHIR_MODE 8
// @variant WHIR_MODE 9
// @variant WHIR_MODE 10
// @variant WHIR_MODE 11
#include "ext4.glsl"
#include "grid.glsl"

#ifndef WHIR_MODE
#define WHIR_MODE 1
#endif
#ifndef WHIR_ITEMS
#define WHIR_ITEMS 8u
#endif
// eval: elements per invocation (long chunks amortise the power z^(chunk·ITEMS))
#ifndef WHIR_EVAL_ITEMS
#define WHIR_EVAL_ITEMS 64u
#endif

#define MODE_BATCH 1    // out += Σ_j coeff_j · column_j (base columns, EF coefficients)
#define MODE_BFLY_LOW 2 // gs_bits subset-sum stages from bit gs_s0, per group
#define MODE_BFLY_BIT 3 // one subset-sum stage: pairs (lo, hi) from two windows
#define MODE_EQTAB 4    // out[b] = lo[b & mask] · hi[b >> nlo]
#define MODE_PAIRSUM 5  // per-group partial sums of h(1) and h(2) (gs_form: evaluations or coefficients)
#define MODE_REDUCE 6   // sums gs_n partials of gs_k EF values each (one work group)
#define MODE_EVAL 7     // per-group partial sums of Σ g[b]·z^b
#define MODE_WACC 8     // w[b] += power tables of the round's points, weighted
#define MODE_FOLD 9     // dst[y] = a·v[2y] + b·v[2y+1] per column
#define MODE_PREP_BLOCK 10 // prepare_f on blocks of <= 16: inverse DFT and the block's subset sums, as a matrix
#define MODE_FOLD_EXPAND 11 // WHIR's last fold of a round into f_out and the next codeword's DFT input

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) buffer B0 { uint a[]; };
layout(std430, binding = 1) buffer B1 { uint b[]; };
layout(std430, binding = 2) buffer B2 { uint c[]; };

#define LDA(i) uvec4(a[(i)], a[(i) + 1u], a[(i) + 2u], a[(i) + 3u])
#define LDB(i) uvec4(b[(i)], b[(i) + 1u], b[(i) + 2u], b[(i) + 3u])
#define LDC(i) uvec4(c[(i)], c[(i) + 1u], c[(i) + 2u], c[(i) + 3u])
#define STA(i, v) { uvec4 v_ = (v); a[(i)] = v_.x; a[(i) + 1u] = v_.y; a[(i) + 2u] = v_.z; a[(i) + 3u] = v_.w; }
#define STB(i, v) { uvec4 v_ = (v); b[(i)] = v_.x; b[(i) + 1u] = v_.y; b[(i) + 2u] = v_.z; b[(i) + 3u] = v_.w; }
#define STC(i, v) { uvec4 v_ = (v); c[(i)] = v_.x; c[(i) + 1u] = v_.y; c[(i) + 2u] = v_.z; c[(i) + 3u] = v_.w; }

uniform uint gs_lead0;   // word lead of the first element in binding 0
uniform uint gs_lead1;   // ... binding 1
uniform uint gs_lead2;   // ... binding 2
uniform uint gs_n;       // units per column in this dispatch (rows, pairs, elements)
uniform uint gs_stride0; // column stride of binding 0 (words)
uniform uint gs_stride1; // column stride of binding 1 (words)
uniform uint gs_ncols;   // columns (batch: columns summed per row)
uniform uint gs_cbase;   // batch: first coefficient; eval: first chunk index
uniform uint gs_accum;   // batch: add to out (1) or start from zero (0)
uniform uint gs_bits;    // bfly_low: stages; prep_block: log block; eqtab/wacc: nlo
uniform uint gs_s0;      // bfly_low: first stage
uniform uint gs_mask;    // bfly_bit: index bits below the stage bit
uniform uint gs_id0;     // global index of this dispatch's first unit
uniform uint gs_pbase;   // first partial slot of this dispatch
uniform uint gs_k;       // reduce: EF values per partial; wacc: points
uniform uint gs_tab;     // wacc: word offsets of the tables in binding 1 (see whir_gles.c)
uniform uint gs_hlen;    // wacc: entries of each high table
uniform uint gs_form;    // pairsum: 0 = evaluations, 1 = coefficients and moments (colwin.h)
uniform uvec4 gs_x;      // an EF scalar: fold a (fold_expand: α), eval z
uniform uvec4 gs_y;      // fold b, eval z^WHIR_EVAL_ITEMS

#if WHIR_MODE == MODE_FOLD || WHIR_MODE == MODE_FOLD_EXPAND
// A challenge the engine's sponge sampled (src/engine/challenge.h): at word
// gs_chal of binding 3, the fold's coefficients are gs_x + gs_xc·α and
// gs_y + gs_yc·α (gs_xc, gs_yc base-field); gs_chal = 0xFFFFFFFF: gs_x and
// gs_y are the coefficients themselves.
layout(std430, binding = 3) readonly buffer B3 { uint chal[]; };
uniform uint gs_chal;
uniform uint gs_xc;
uniform uint gs_yc;

void fold_coefs(out uvec4 x, out uvec4 y)
{
    x = gs_x;
    y = gs_y;
    if (gs_chal != 0xFFFFFFFFu) {
        uvec4 al = uvec4(chal[gs_chal], chal[gs_chal + 1u], chal[gs_chal + 2u], chal[gs_chal + 3u]);
        x = bb4_add(x, bb4_mul_base(al, gs_xc));
        y = bb4_add(y, bb4_mul_base(al, gs_yc));
    }
}
#endif

#if WHIR_MODE == MODE_PAIRSUM || WHIR_MODE == MODE_REDUCE || WHIR_MODE == MODE_EVAL
#include "group_sum.glsl"
#endif

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint id = gs_linear_id();
#if WHIR_MODE == MODE_PAIRSUM
    // Invocation id: column id / chunks, pairs [ch·ITEMS, ch·ITEMS + ITEMS)
    // of that column (gs_n pairs per column). Extra invocations add zero but
    // still reach the barriers.
    uvec4 s1 = uvec4(0u), s2 = uvec4(0u);
    if (id < gs_count) {
        uint chunks = (gs_n + WHIR_ITEMS - 1u) / WHIR_ITEMS;
        uint col = id / chunks, ch = id - col * chunks;
        uint y0 = ch * WHIR_ITEMS;
        uint y1 = min(y0 + WHIR_ITEMS, gs_n);
        uint qa = gs_lead0 + col * gs_stride0, wa = gs_lead1 + col * gs_stride1;
        for (uint y = y0; y < y1; y++) {
            uvec4 q0 = LDA(qa + 8u * y), q1 = LDA(qa + 8u * y + 4u);
            uvec4 w0 = LDB(wa + 8u * y), w1 = LDB(wa + 8u * y + 4u);
            uvec4 a1, b1, a2, b2;
            if (gs_form != 0u) {
                // coefficients (c0, c1) and moments (m0, m1): (c0 + c1)·m1, (c0 + 2c1)(3m1 − m0)
                a1 = bb4_add(q0, q1);
                b1 = w1;
                a2 = bb4_add(a1, q1);
                b2 = bb4_sub(bb4_add(bb4_add(w1, w1), w1), w0);
            } else {
                // evaluations: q1·w1, (2q1 − q0)(2w1 − w0)
                a1 = q1;
                b1 = w1;
                a2 = bb4_sub(bb4_add(q1, q1), q0);
                b2 = bb4_sub(bb4_add(w1, w1), w0);
            }
            s1 = bb4_add(s1, bb4_mul(a1, b1));
            s2 = bb4_add(s2, bb4_mul(a2, b2));
        }
    }
    s1 = gs_group_sum(s1);
    s2 = gs_group_sum(s2);
    uint grp = id / GS_LOCAL_SIZE;
    if (lid == 0u && grp * GS_LOCAL_SIZE < gs_count) {
        uint o = gs_lead2 + (gs_pbase + grp) * 8u;
        STC(o, s1);
        STC(o + 4u, s2);
    }
#elif WHIR_MODE == MODE_EVAL
    // Chunk id of WHIR_EVAL_ITEMS elements (gs_n elements in all): Horner inside
    // the chunk, times (z^ITEMS)^(gs_cbase + id).
    uvec4 s = uvec4(0u);
    if (id < gs_count) {
        uint e0 = id * WHIR_EVAL_ITEMS;
        uint e1 = min(e0 + WHIR_EVAL_ITEMS, gs_n);
        for (uint e = e1; e > e0; e--)
            s = bb4_add(bb4_mul(s, gs_x), LDA(gs_lead0 + 4u * (e - 1u)));
        s = bb4_mul(s, bb4_pow(gs_y, gs_cbase + id));
    }
    s = gs_group_sum(s);
    uint grp = id / GS_LOCAL_SIZE;
    if (lid == 0u && grp * GS_LOCAL_SIZE < gs_count)
        STC(gs_lead2 + (gs_pbase + grp) * 4u, s);
#elif WHIR_MODE == MODE_REDUCE
    // One work group: partial p holds gs_k (1 or 2) EF values at c[4(p·k + j)].
    uvec4 s1 = uvec4(0u), s2 = uvec4(0u);
    for (uint p = lid; p < gs_n; p += GS_LOCAL_SIZE) {
        s1 = bb4_add(s1, LDC(gs_lead2 + 4u * p * gs_k));
        if (gs_k > 1u)
            s2 = bb4_add(s2, LDC(gs_lead2 + 4u * p * gs_k + 4u));
    }
    s1 = gs_group_sum(s1);
    s2 = gs_group_sum(s2);
    if (lid == 0u) {
        STB(gs_lead1, s1);
        if (gs_k > 1u)
            STB(gs_lead1 + 4u, s2);
    }
#else
    if (id >= gs_count)
        return;
#if WHIR_MODE == MODE_BATCH
    // Row id of gs_ncols base columns (stride gs_stride0 words) in binding 0;
    // out row id in binding 1; coefficients in binding 2.
    uvec4 acc = gs_accum != 0u ? LDB(gs_lead1 + 4u * id) : uvec4(0u);
    for (uint j = 0u; j < gs_ncols; j++)
        acc = bb4_add(acc, bb4_mul_base(LDC(4u * (gs_cbase + j)), a[gs_lead0 + j * gs_stride0 + id]));
    STB(gs_lead1 + 4u * id, acc);
#elif WHIR_MODE == MODE_BFLY_LOW
    // Stages gs_s0 .. gs_s0 + gs_bits - 1 (gs_bits <= 3) on the 2^gs_bits
    // elements 2^gs_s0 apart of one group: a radix-2^gs_bits pass, radix 8
    // in named registers, smaller groups in memory (register arrays with
    // data-dependent indices make llvmpipe's compiler take seconds).
    uint cnt = 1u << gs_bits;
    uint lowm = (1u << gs_s0) - 1u;
    uint base = gs_lead0 + 4u * (((id & ~lowm) << gs_bits) | (id & lowm));
    uint step = 4u << gs_s0;
    if (gs_bits == 3u) {
        // radix 8 in named registers (one read and one write per element)
        uvec4 x0 = LDA(base), x1 = LDA(base + step), x2 = LDA(base + 2u * step), x3 = LDA(base + 3u * step);
        uvec4 x4 = LDA(base + 4u * step), x5 = LDA(base + 5u * step), x6 = LDA(base + 6u * step);
        uvec4 x7 = LDA(base + 7u * step);
        x1 = bb4_add(x1, x0); x3 = bb4_add(x3, x2); x5 = bb4_add(x5, x4); x7 = bb4_add(x7, x6);
        x2 = bb4_add(x2, x0); x3 = bb4_add(x3, x1); x6 = bb4_add(x6, x4); x7 = bb4_add(x7, x5);
        x4 = bb4_add(x4, x0); x5 = bb4_add(x5, x1); x6 = bb4_add(x6, x2); x7 = bb4_add(x7, x3);
        STA(base, x0);
        STA(base + step, x1);
        STA(base + 2u * step, x2);
        STA(base + 3u * step, x3);
        STA(base + 4u * step, x4);
        STA(base + 5u * step, x5);
        STA(base + 6u * step, x6);
        STA(base + 7u * step, x7);
        return;
    }
    for (uint s = 0u; s < gs_bits; s++) {
        uint h = 1u << s;
        for (uint j = 0u; j < cnt; j++) {
            if ((j & h) == 0u)
                continue;
            uint ia = base + step * j, ib = base + step * (j ^ h);
            uvec4 u = LDA(ib), v = LDA(ia);
            STA(ia, bb4_add(v, u));
        }
    }
#elif WHIR_MODE == MODE_PREP_BLOCK
    // prepare_f's per-block work for 2^gs_bits <= 16 elements: the inverse
    // DFT, then the block's subset sums (eval_to_coeff_rs_message), as one
    // N x N base-field matrix the host composed (binding 1, row-major). The block is read from
    // binding 0 and written to binding 2 (same offsets).
    uint cnt = 1u << gs_bits;
    uint base = gs_lead0 + 4u * (id << gs_bits);
    uint obase = gs_lead2 + 4u * (id << gs_bits);
    for (uint k = 0u; k < cnt; k++) {
        uvec4 acc = uvec4(0u);
        for (uint j = 0u; j < cnt; j++)
            acc = bb4_add(acc, bb4_mul_base(LDA(base + 4u * j), b[k * cnt + j]));
        STC(obase + 4u * k, acc);
    }
#elif WHIR_MODE == MODE_BFLY_BIT
    // Pair id: lo = id with a zero inserted above gs_mask's bits; the low
    // element in binding 0, the high one in binding 1 (leads differ).
    uint lo = ((id & ~gs_mask) << 1) | (id & gs_mask);
    uvec4 u = LDA(gs_lead0 + 4u * lo);
    uvec4 v = LDB(gs_lead1 + 4u * lo);
    STB(gs_lead1 + 4u * lo, bb4_add(v, u));
#elif WHIR_MODE == MODE_EQTAB
    // Element gs_id0 + id; tables in binding 1: lo (2^gs_bits EF), then hi.
    uint g = gs_id0 + id;
    uint m = (1u << gs_bits) - 1u;
    uvec4 v = bb4_mul(LDB(4u * (g & m)), LDB(4u * ((1u << gs_bits) + (g >> gs_bits))));
    STA(gs_lead0 + 4u * id, v);
#elif WHIR_MODE == MODE_WACC
    // Binding 1: [EF lo table of z0 (2^nlo)] [EF hi table of z0, times gamma0
    // (gs_hlen)] [EF gammas (gs_k)] then at gs_tab: per point its base lo
    // table (2^nlo) and hi table (gs_hlen).
    uint g = gs_id0 + id;
    uint nlo = gs_bits, llen = 1u << nlo;
    uint il = g & (llen - 1u), ih = g >> nlo;
    uvec4 acc = bb4_add(LDA(gs_lead0 + 4u * id), bb4_mul(LDB(4u * il), LDB(4u * (llen + ih))));
    uint gam = 4u * (llen + gs_hlen);
    uint per = llen + gs_hlen;
    for (uint q = 0u; q < gs_k; q++) {
        uint e = bb_mul(b[gs_tab + q * per + il], b[gs_tab + q * per + llen + ih]);
        acc = bb4_add(acc, bb4_mul_base(LDB(gam + 4u * q), e));
    }
    STA(gs_lead0 + 4u * id, acc);
#elif WHIR_MODE == MODE_FOLD
    // Pair id of column id / gs_n: binding 0 holds the source columns
    // (stride gs_stride0), binding 1 the destination (stride gs_stride1).
    uint col = id / gs_n, y = id - col * gs_n;
    uint sa = gs_lead0 + col * gs_stride0 + 8u * y;
    uvec4 v0 = LDA(sa), v1 = LDA(sa + 4u);
    uvec4 fx, fy;
    fold_coefs(fx, fy);
    STB(gs_lead1 + col * gs_stride1 + 4u * y, bb4_add(bb4_mul(fx, v0), bb4_mul(fy, v1)));
#elif WHIR_MODE == MODE_FOLD_EXPAND
    // Codeword position p = gs_id0 + id of 2^(gs_s0 + gs_bits). The folded
    // coefficient y = rev_{gs_s0}(p >> gs_bits), f_out[y] = c0 + α·c1 from
    // binding 0, lands on every position of block p >> gs_bits (binding 2):
    // the zero-padded message in bit-reversed order after the first gs_bits
    // DIT layers, which only copy (their odd inputs are zero). The block's
    // first position also writes f_out[y] (binding 1). Consecutive
    // invocations write consecutive codeword words.
    uint p = gs_id0 + id;
    uint j = p >> gs_bits;
    uint y = gs_s0 == 0u ? 0u : bitfieldReverse(j) >> (32u - gs_s0);
    uvec4 al, unused;
    fold_coefs(al, unused);
    uvec4 v = bb4_add(LDA(gs_lead0 + 8u * y), bb4_mul(al, LDA(gs_lead0 + 8u * y + 4u)));
    STC(gs_lead2 + 4u * p, v);
    if ((p & ((1u << gs_bits) - 1u)) == 0u)
        STB(gs_lead1 + 4u * y, v);
#endif
#endif
}
