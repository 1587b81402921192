// A DFT of 2^n points in two sweeps over memory (src/engine/gles/dft_gles.c,
// split_dft): the "four-step" factorisation n = a + b with index
// i = i1 + 2^a i2 and frequency k = k2 + 2^b k1,
//   X[k2 + 2^b k1] = sum_i1 w_(2^a)^(i1 k1) * [ w_(2^n)^(i1 k2) * sum_i2 x[i1 + 2^a i2] w_(2^b)^(i2 k2) ].
// SPLIT_MODE 1 (columns): a work group takes 2^gs_cols_log neighbouring i1
// of one sequence, all 2^b i2 of each, does the inner DFTs in shared memory
// (decimation in time), multiplies by w_(2^n)^(i1 k2) and writes the result
// to the scratch at k2 2^a + i1 (runs of 2^gs_cols_log words: neighbouring
// work groups fill the rest of each memory sector while it is in cache).
// SPLIT_MODE 2 (rows): a work group takes 2^gs_rows_log neighbouring k2 rows
// of the scratch (each 2^a contiguous words), does the outer DFTs in shared
// memory (decimation in frequency: natural order in, bit-reversed out) and
// writes X in natural order into the view.
// Every layer of the transform runs in shared memory, so the data crosses
// memory twice, against a bit reversal, a shared pass and a register pass
// per 4 layers in dft.comp.
//
// The view's addressing is dft.comp's (virtual columns); the scratch holds
// sequence gs_v0 + j at words j 2^n .. (j + 1) 2^n. Twiddles: tw[h + t] =
// w_(2h)^t as in dft.comp (inverse roots for inverse transforms).
// @variant SPLIT_MODE 1
// @variant SPLIT_MODE 2
#include "babybear.glsl"
#include "grid.glsl"

#ifndef SPLIT_MODE
#define SPLIT_MODE 1
#endif

// 2^13 data words (32 KiB, which the host checks against
// GL_MAX_COMPUTE_SHARED_MEMORY_SIZE before it takes this path), plus 32 words
// of row padding where the device has room for them (SPLIT_PAD 1).
#ifndef SPLIT_PAD
#define SPLIT_PAD 1
#endif
#define SPLIT_WORDS (8192 + 32 * SPLIT_PAD)

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) buffer Data { uint a[]; };
layout(std430, binding = 1) readonly buffer Tw { uint tw[]; };
layout(std430, binding = 2) buffer Scratch { uint scr[]; };

uniform uint gs_id0;
uniform uint gs_logn;     // n
uniform uint gs_loga;     // a (the outer length's log); b = n - a
uniform uint gs_cols_log; // mode 1: columns per work group (log)
uniform uint gs_rows_log; // mode 2: rows per work group (log)
uniform uint gs_v0;       // the batch's first sequence of the view
uniform uint gs_lead;
uniform uint gs_stride;
uniform uint gs_vpcs;
uniform uint gs_subw;
uniform uint gs_ews;
uniform uint gs_scale;    // mode 1: Montgomery factor on the load, 0 = none
uniform uint gs_bitrev_in; // mode 1: the view holds each sequence bit-reversed

shared uint sh[SPLIT_WORDS];

uint addr(uint v, uint i)
{
    return gs_lead + (v >> gs_vpcs) * gs_stride + (v & ((1u << gs_vpcs) - 1u)) * gs_subw + (i << gs_ews);
}

uint rev(uint x, uint bits) { return bitfieldReverse(x) >> (32u - bits); }

#if SPLIT_MODE == 1
// w_(2^n)^e for e < 2^n from two short runs of the table: w^e = -w^(e - 2^(n-1))
// above the half, and w^(lo + 2^s hi) = w_(2^n)^lo * w_(2^(n-s))^hi.
uint root_pow(uint e)
{
    uint hn = 1u << (gs_logn - 1u);
    bool neg = e >= hn;
    if (neg)
        e -= hn;
    uint s = (gs_logn - 1u) >> 1;
    uint lo = e & ((1u << s) - 1u), hi = e >> s;
    uint w = tw[hn + lo];
    if (hi != 0u)
        w = bb_mul(w, tw[(hn >> s) + hi]);
    return neg ? bb_neg(w) : w;
}
#endif

void main()
{
    uint id = gs_id0 + gs_linear_id();
    if (id >= gs_id0 + gs_count)
        return; // whole groups only (the host dispatches whole groups)
    const uint lsz = GS_LOCAL_SIZE;
    uint lid = gl_LocalInvocationID.x;
    uint g = id / lsz;
    uint n = gs_logn, la = gs_loga, lb = n - la;
#if SPLIT_MODE == 1
    uint cl = gs_cols_log, ncols = 1u << cl;
    uint groups_log = la - cl;
    uint v = gs_v0 + (g >> groups_log);
    uint i1_0 = (g & ((1u << groups_log) - 1u)) << cl;
    // Column c at sh[c P ...]; P = 2^b + 32 / C keeps a warp's column-major
    // accesses (C columns x 32 / C rows) on distinct banks.
    uint P = (1u << lb) + uint(SPLIT_PAD) * (32u >> cl);
    uint total = 1u << (lb + cl);
    if (gs_bitrev_in == 0u) {
        // Natural order: row i2 of the C columns is C contiguous words;
        // element i2 goes to slot rev(i2) for the DIT layers.
        for (uint q = lid; q < total; q += lsz) {
            uint c = q & (ncols - 1u), i2 = q >> cl;
            uint x = a[addr(v, i1_0 + c + (i2 << la))];
            if (gs_scale != 0u)
                x = bb_mul(x, gs_scale);
            sh[c * P + rev(i2, lb)] = x;
        }
    } else {
        // Bit-reversed: column i1 is the contiguous block rev_a(i1), already
        // in the order the DIT layers want.
        for (uint q = lid; q < total; q += lsz) {
            uint c = q >> lb, r = q & ((1u << lb) - 1u);
            uint x = a[addr(v, (rev(i1_0 + c, la) << lb) + r)];
            if (gs_scale != 0u)
                x = bb_mul(x, gs_scale);
            sh[c * P + r] = x;
        }
    }
    barrier();
    // DIT layers, two per barrier (radix 4, as dft.comp's shared pass).
    uint l = 0u;
    for (; l + 1u < lb; l += 2u) {
        uint h = 1u << l;
        for (uint p = lid; p < total / 4u; p += lsz) {
            uint c = p >> (lb - 2u), j = p & ((1u << (lb - 2u)) - 1u);
            uint t = j & (h - 1u);
            uint i0 = c * P + ((j >> l) << (l + 2u)) + t;
            uint w1 = tw[h + t];
            uint x0 = sh[i0], x1 = bb_mul(sh[i0 + h], w1);
            uint x2 = sh[i0 + 2u * h], x3 = bb_mul(sh[i0 + 3u * h], w1);
            uint y0 = bb_add(x0, x1), y1 = bb_sub(x0, x1);
            uint y2 = bb_add(x2, x3), y3 = bb_sub(x2, x3);
            uint z2 = bb_mul(y2, tw[2u * h + t]), z3 = bb_mul(y3, tw[3u * h + t]);
            sh[i0] = bb_add(y0, z2);
            sh[i0 + 2u * h] = bb_sub(y0, z2);
            sh[i0 + h] = bb_add(y1, z3);
            sh[i0 + 3u * h] = bb_sub(y1, z3);
        }
        barrier();
    }
    if (l < lb) {
        uint h = 1u << l;
        for (uint p = lid; p < total / 2u; p += lsz) {
            uint c = p >> (lb - 1u), j = p & ((1u << (lb - 1u)) - 1u);
            uint t = j & (h - 1u);
            uint x = c * P + ((j >> l) << (l + 1u)) + t;
            uint u = sh[x], w = bb_mul(sh[x + h], tw[h + t]);
            sh[x] = bb_add(u, w);
            sh[x + h] = bb_sub(u, w);
        }
        barrier();
    }
    // Y[i1][k2] w^(i1 k2) to scratch row k2: runs of C words.
    uint base = (v - gs_v0) << n;
    for (uint q = lid; q < total; q += lsz) {
        uint c = q & (ncols - 1u), k2 = q >> cl;
        uint i1 = i1_0 + c;
        uint y = sh[c * P + k2];
        uint e = i1 * k2;
        if (e != 0u)
            y = bb_mul(y, root_pow(e));
        scr[base + (k2 << la) + i1] = y;
    }
#else
    uint rl = gs_rows_log, nrows = 1u << rl;
    uint groups_log = lb - rl;
    uint v = gs_v0 + (g >> groups_log);
    uint k2_0 = (g & ((1u << groups_log) - 1u)) << rl;
    uint P = (1u << la) + uint(SPLIT_PAD) * (32u >> rl);
    uint total = 1u << (la + rl);
    uint base = (v - gs_v0) << n;
    for (uint q = lid; q < total; q += lsz) {
        uint r = q >> la, i1 = q & ((1u << la) - 1u);
        sh[r * P + i1] = scr[base + ((k2_0 + r) << la) + i1];
    }
    barrier();
    // DIF layers from the top, two per barrier: half-sizes 2h then h over
    // the four words i0 + {0, h, 2h, 3h}.
    int l = int(la) - 1;
    for (; l >= 1; l -= 2) {
        uint h = 1u << uint(l - 1);
        uint lo = uint(l - 1);
        for (uint p = lid; p < total / 4u; p += lsz) {
            uint r = p >> (la - 2u), j = p & ((1u << (la - 2u)) - 1u);
            uint t = j & (h - 1u);
            uint i0 = r * P + ((j >> lo) << (lo + 2u)) + t;
            uint x0 = sh[i0], x1 = sh[i0 + h], x2 = sh[i0 + 2u * h], x3 = sh[i0 + 3u * h];
            uint y0 = bb_add(x0, x2), y2 = bb_mul(bb_sub(x0, x2), tw[2u * h + t]);
            uint y1 = bb_add(x1, x3), y3 = bb_mul(bb_sub(x1, x3), tw[3u * h + t]);
            uint w = tw[h + t];
            sh[i0] = bb_add(y0, y1);
            sh[i0 + h] = bb_mul(bb_sub(y0, y1), w);
            sh[i0 + 2u * h] = bb_add(y2, y3);
            sh[i0 + 3u * h] = bb_mul(bb_sub(y2, y3), w);
        }
        barrier();
    }
    if (l == 0) {
        for (uint p = lid; p < total / 2u; p += lsz) {
            uint x = (p >> (la - 1u)) * P + ((p & ((1u << (la - 1u)) - 1u)) << 1u);
            uint u = sh[x], w = sh[x + 1u];
            sh[x] = bb_add(u, w);
            sh[x + 1u] = bb_sub(u, w);
        }
        barrier();
    }
    // Slot s of row r holds X[k2_0 + r + 2^b rev_a(s)]: runs of R words out.
    for (uint q = lid; q < total; q += lsz) {
        uint r = q & (nrows - 1u), k1 = q >> rl;
        a[addr(v, k2_0 + r + (k1 << lb))] = sh[r * P + rev(k1, la)];
    }
#endif
}
