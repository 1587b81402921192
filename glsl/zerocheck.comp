// The zerocheck family's data movers (src/engine/gles/zerocheck_gles.c):
//   LDE      round 0: each column's 2^l block of rows x*N .. x*N+N-1 (cyclic,
//            shifted one row for "next" columns) -> its values on the points
//            (D itself, then cosets g^i D), written into an LDE tile
//            pv[e * gs_pvstride + xl * gs_npts + point] for the tile columns
//            e the constraint program reads; selectors as columns
//   REDUCE   sums the per-lane accumulators of zerocheck_eval.comp by key
//   FOLD_PLE tables[e][x] = sum_k lw[k] col[x*N + k (+1)] for the folded columns e
//   FOLD     s[c][a] = t[c][2a] + r (t[c][2a+1] - t[c][2a]) into scratch
//   COPY     t[c][a] = s[c][a] (the second half of the out-of-place fold)
//   GATHER   copies rows [r0, r0 + R) of table columns into a compact tile
// Column windows: the host binds whole-column windows that fit a binding
// and passes the window's first element as a lead.
#include "ext4.glsl"
#include "grid.glsl"

#ifndef ZC_MODE
#define ZC_MODE 1
#endif
#ifndef ZC_LOGN
#define ZC_LOGN 4
#endif
#define ZC_N (1u << ZC_LOGN)

#define MODE_LDE 1
#define MODE_REDUCE 2
#define MODE_FOLD_PLE 3
#define MODE_FOLD 4
#define MODE_COPY 5
#define MODE_GATHER 6

layout(local_size_x = GS_LOCAL_SIZE) in;

uniform uint gs_id0;
uniform uint gs_nx;    // LDE: x per tile; FOLD_PLE: x per column; GATHER: rows copied
uniform uint gs_x0;    // LDE: first x of the tile
uniform uint gs_hmask; // trace height - 1
uniform uint gs_plead; // word of the window's first part column in the part binding
uniform uint gs_tcol0; // table column of the window's first column
uniform uint gs_sel;   // 1: the three selector columns instead of a part window
uniform uint gs_npts;
uniform uint gs_ncos;
uniform uint gs_dpts;
uniform uint gs_pvstride;
uniform uint gs_ent0; // LDE: word of the tile's column map in tab
uniform uint gs_e0;   // LDE: the window's first tile column; FOLD_PLE: its first folded column
uniform uint gs_tlead;  // EF index of the window's first column in the table binding
uniform uint gs_stride; // EF elements per table column
uniform uint gs_half;   // FOLD/COPY: rows written per column; GATHER: rows per tile column
uniform uint gs_r0;     // GATHER: first row
uniform uvec4 gs_r;     // FOLD: the challenge
uniform uint gs_nkeys;  // REDUCE
uniform uint gs_lanes;  // REDUCE: lanes whose accumulators the dispatches wrote
uniform uint gs_acc_off;
uniform uint gs_res_off;

#if ZC_MODE == MODE_LDE || ZC_MODE == MODE_FOLD_PLE
layout(std430, binding = 0) readonly buffer Part { uint part[]; };

uint column_value(uint c, uint j, uint rot, uint x, uint k)
{
    uint r = (x * ZC_N + k + rot) & gs_hmask;
    if (gs_sel != 0u) {
        bool on = c == 0u ? r == 0u : c == 1u ? r == gs_hmask : r != gs_hmask;
        return on ? BB_ONE : 0u;
    }
    return part[gs_plead + j * (gs_hmask + 1u) + r];
}
#endif

#if ZC_MODE == MODE_LDE
layout(std430, binding = 1) buffer Pv { uint pv[]; };
// tw[k] = w^k and tw[N/2 + k] = w^-k for k < N/2, then scale[i N + j] = g^((i+1) j) / N,
// then the tile's column map (at gs_ent0)
layout(std430, binding = 2) readonly buffer Tab { uint tab[]; };

// Natural-order radix-2 DFT of ZC_N points with the twiddles at tab[off], on
// the invocation-private array zc_buf. The array is a global rather than an
// inout parameter, which the compiler copies in and out on every call: on the
// H200 this cut keccakf-1024's round0 from 1153 ms to 328 ms. Indices are
// masked so every access is provably in bounds.
uint zc_buf[ZC_N];

void ntt_buf(uint off)
{
#if ZC_LOGN == 1 || ZC_LOGN == 2
    // The same butterflies as the general loop below, written out with
    // constant indices: NVIDIA's compiler rejects the loop form for these
    // sizes ("lvalue in array access too complex", H200, driver 580).
#if ZC_LOGN == 1
    uint u0 = zc_buf[0], x0 = bb_mul(zc_buf[1], tab[off]);
    zc_buf[0] = bb_add(u0, x0);
    zc_buf[1] = bb_sub(u0, x0);
#else
    uint a0 = zc_buf[0], a1 = zc_buf[2], a2 = zc_buf[1], a3 = zc_buf[3]; // bit-reversed order
    uint x = bb_mul(a1, tab[off]);
    uint b0 = bb_add(a0, x), b1 = bb_sub(a0, x);
    x = bb_mul(a3, tab[off]);
    uint b2 = bb_add(a2, x), b3 = bb_sub(a2, x);
    uint y0 = bb_mul(b2, tab[off]), y1 = bb_mul(b3, tab[off + 1u]);
    zc_buf[0] = bb_add(b0, y0);
    zc_buf[2] = bb_sub(b0, y0);
    zc_buf[1] = bb_add(b1, y1);
    zc_buf[3] = bb_sub(b1, y1);
#endif
#elif ZC_LOGN > 0
    uint tmp[ZC_N];
    for (uint i = 0u; i < ZC_N; i++)
        tmp[i] = zc_buf[(bitfieldReverse(i) >> (32u - uint(ZC_LOGN))) & (ZC_N - 1u)];
    for (uint i = 0u; i < ZC_N; i++)
        zc_buf[i] = tmp[i];
    for (uint s = 1u; s <= uint(ZC_LOGN); s++) {
        uint len = 1u << s, hl = len >> 1, step = ZC_N >> s;
        for (uint i = 0u; i < ZC_N; i += len)
            for (uint k = 0u; k < hl; k++) {
                uint lo = (i + k) & (ZC_N - 1u), hi = (i + k + hl) & (ZC_N - 1u);
                uint u = zc_buf[lo];
                uint x = bb_mul(zc_buf[hi], tab[off + k * step]);
                zc_buf[lo] = bb_add(u, x);
                zc_buf[hi] = bb_sub(u, x);
            }
    }
#endif
}
#endif

#if ZC_MODE == MODE_FOLD_PLE
layout(std430, binding = 1) buffer Tables { uvec4 tables[]; };
layout(std430, binding = 2) readonly buffer Lw { uvec4 lw[]; };
// folded column e is table column fmap[e] (the part windows' columns)
layout(std430, binding = 3) readonly buffer Fmap { uint fmap[]; };
#endif

#if ZC_MODE == MODE_REDUCE
layout(std430, binding = 0) buffer Work { uint work[]; };
#include "group_sum.glsl"
#endif

#if ZC_MODE == MODE_FOLD || ZC_MODE == MODE_COPY || ZC_MODE == MODE_GATHER
layout(std430, binding = 0) buffer T { uvec4 t[]; };
layout(std430, binding = 1) buffer S { uvec4 s[]; };
#endif

void main()
{
    uint id = gs_linear_id();
#if ZC_MODE == MODE_REDUCE
    bool live = id < gs_count; // the group sum needs every invocation
#else
    if (id >= gs_count)
        return;
#endif
    id += gs_id0;
#if ZC_MODE == MODE_LDE
    // The tile holds only the columns the constraint program reads: tile
    // column e is table column tab[gs_ent0 + e]; this window's ids cover
    // tile columns gs_e0 .. and gs_nx x-values each.
    uint xl = id % gs_nx, e = gs_e0 + id / gs_nx;
    uint c = tab[gs_ent0 + e], rest = c - gs_tcol0;
    uint j = gs_sel != 0u ? 0u : rest >> 1, rot = gs_sel != 0u ? 0u : rest & 1u;
    uint x = gs_x0 + xl;
    uint v[ZC_N];
    for (uint k = 0u; k < ZC_N; k++)
        zc_buf[k] = column_value(c, j, rot, x, k);
    uint base = e * gs_pvstride + xl * gs_npts;
    if (gs_dpts != 0u)
        for (uint k = 0u; k < ZC_N; k++)
            pv[base + k] = zc_buf[k];
    uint d0 = gs_dpts != 0u ? ZC_N : 0u;
    ntt_buf(ZC_N / 2u); // N times the coefficients
    for (uint k = 0u; k < ZC_N; k++)
        v[k] = zc_buf[k];
    for (uint i = 0u; i < gs_ncos; i++) {
        for (uint k = 0u; k < ZC_N; k++)
            zc_buf[k] = bb_mul(v[k], tab[ZC_N + i * ZC_N + k]);
        ntt_buf(0u);
        for (uint k = 0u; k < ZC_N; k++)
            pv[base + d0 + i * ZC_N + k] = zc_buf[k];
    }
#elif ZC_MODE == MODE_FOLD_PLE
    // selector windows: table columns gs_tcol0.. in order; part windows:
    // folded columns gs_e0.., the table columns of a window of part columns
    uint x = id % gs_nx, e = id / gs_nx;
    uint c = gs_sel != 0u ? gs_tcol0 + e : fmap[gs_e0 + e];
    uint j = gs_sel != 0u ? 0u : (c - gs_tcol0) >> 1, rot = gs_sel != 0u ? 0u : (c - gs_tcol0) & 1u;
    uvec4 acc = uvec4(0u);
    for (uint k = 0u; k < ZC_N; k++) {
        uint val = column_value(c, j, rot, x, k);
        if (gs_sel != 0u) {
            if (val != 0u)
                acc = bb4_add(acc, lw[k]);
        } else {
            acc = bb4_add(acc, bb4_mul_base(lw[k], val));
        }
    }
    tables[gs_tlead + e * gs_nx + x] = acc;
#elif ZC_MODE == MODE_REDUCE
    // One work group per output r = key * 3 + component: its invocations
    // add strided shares of the key's lanes (lane % gs_nkeys == key), then
    // the group sum. (One invocation per output walking every lane took
    // ~2 ms a call: a chain of lanes / keys additions.) Each accumulator word
    // is read by one invocation, which zeroes it: a plan kept for the next
    // round starts from zero without a fill.
    uint r = id / uint(GS_LOCAL_SIZE), t = id % uint(GS_LOCAL_SIZE);
    uint key = r / 3u, comp = r % 3u;
    uvec4 acc = uvec4(0u);
    if (live)
        for (uint l = key + gs_nkeys * t; l < gs_lanes; l += gs_nkeys * uint(GS_LOCAL_SIZE)) {
            uint o = gs_acc_off + 12u * l + 4u * comp;
            acc = bb4_add(acc, uvec4(work[o], work[o + 1u], work[o + 2u], work[o + 3u]));
            work[o] = 0u;
            work[o + 1u] = 0u;
            work[o + 2u] = 0u;
            work[o + 3u] = 0u;
        }
    acc = gs_group_sum(acc);
    if (live && t == 0u) {
        uint o = gs_res_off + 4u * r;
        work[o] = acc.x;
        work[o + 1u] = acc.y;
        work[o + 2u] = acc.z;
        work[o + 3u] = acc.w;
    }
#elif ZC_MODE == MODE_FOLD
    uint a = id % gs_half, c = id / gs_half;
    uint e = gs_tlead + c * gs_stride + 2u * a;
    uvec4 v0 = t[e], v1 = t[e + 1u];
    s[c * gs_half + a] = bb4_add(v0, bb4_mul(gs_r, bb4_sub(v1, v0)));
#elif ZC_MODE == MODE_COPY
    uint a = id % gs_half, c = id / gs_half;
    t[gs_tlead + c * gs_stride + a] = s[c * gs_half + a];
#elif ZC_MODE == MODE_GATHER
    uint r = id % gs_nx, c = id / gs_nx;
    s[(gs_tcol0 + c) * gs_half + r] = t[gs_tlead + c * gs_stride + gs_r0 + r];
#endif
}
