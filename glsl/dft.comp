// Batched radix-2 DFT passes over BabyBear (src/engine/gles/dft_gles.c
// drives them; definitions in src/engine/dft_ops.h). Natural order in and
// out: a bit-reversal pass (optionally scaling by n^-1; 32 x 32 tile swaps
// from 2^10 points up), then decimation-in-time layers, the low ones in
// shared memory, the rest 2^DFT_RADIX_M-point register passes; sequences
// that fit a shared-memory block in one pass (MODE_SHARED_SHORT: reversal
// and scale on its load, subset sums after its layers). Also three
// RS-encoding passes: the subset-sum (zeta) transform, the bit-reversed
// zero-padded expansion and the row-class twist, and one pass that does
// the front of a row class's encoding at once (MODE_ENCODE_TILED).
//
// "Virtual columns": the bound window holds gs_nv sequences of 2^gs_logn
// elements; sequence v, element i sits at word
//   gs_lead + (v >> gs_vpcs) * gs_stride + (v & (2^gs_vpcs - 1)) * gs_subw + (i << gs_ews)
// which covers plain columns (vpcs 0), the 4 coefficient sequences of an
// extension column (vpcs 2, subw 1, ews 2) and the 2^l-blocks of a column
// (vpcs = log blocks, subw = 2^l).
//
// Twiddles: tw[h + t] = w_(2h)^t for every half-size h < 2^gs_logn (inverse
// roots for inverse transforms), the CPU engine's table: contiguous in t,
// one load per butterfly in the shared pass (a small table, cached), one per
// layer and invocation in the register passes.
// Every mode is validated offline (tests/gles/test_program.c):
// @variant DFT_MODE 1
// @variant DFT_MODE 2
// @variant DFT_MODE 3
// @variant DFT_MODE 4
// @variant DFT_MODE 5
// @variant DFT_MODE 6
// @variant DFT_MODE 7
// @variant DFT_MODE 8
// @variant DFT_MODE 9
// @variant DFT_MODE 10
// @variant DFT_MODE 11
// @variant DFT_MODE 13
#include "babybear.glsl"
#include "grid.glsl"

// Defaults so the file validates on its own (the host always defines these).
#ifndef DFT_MODE
#define DFT_MODE 1
#endif
#ifndef DFT_BLOCK_LOG
#define DFT_BLOCK_LOG 11
#define DFT_BLOCK 2048u
#endif
#ifndef DFT_RADIX_M
#define DFT_RADIX_M 4
#endif

#define MODE_BITREV 1
#define MODE_SHARED 2
#define MODE_RADIX 3
#define MODE_ZETA_LOW 4
#define MODE_ZETA_BIT 5
#define MODE_GATHER 6
#define MODE_GATHER_TILED 7
#define MODE_TWIDDLES 8
#define MODE_BITREV_TILED 9
#define MODE_SHARED_SHORT 10 // MODE_SHARED for whole short sequences: reversal, scale and subset sums too
#define MODE_TWIST 11        // x[i] *= g^i from two small power tables (one row class of an RS codeword)
#define MODE_ADD_PART 12     // x[i] += c * part[i]: a later part of a Q column, weighted, onto its first (finer row classes)
#define MODE_ENCODE_TILED 13 // Q columns -> RS message, twist, bit reversal, out of place (one row class's front)

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) buffer Data { uint a[]; };
layout(std430, binding = 1) readonly buffer Tw { uint tw[]; };
layout(std430, binding = 2) readonly buffer Src { uint src[]; };
#if DFT_MODE == MODE_ADD_PART
layout(std430, binding = 3) readonly buffer Part { uint part[]; };
#elif DFT_MODE == MODE_ENCODE_TILED
layout(std430, binding = 3) readonly buffer Twist { uint twist[]; }; // MODE_TWIST's two power tables
#endif

uniform uint gs_id0;
uniform uint gs_logn;
uniform uint gs_lead;
uniform uint gs_stride;
uniform uint gs_vpcs;
uniform uint gs_subw;
uniform uint gs_ews;
uniform uint gs_nv;         // sequences in the view (shared mode)
uniform uint gs_scale;     // Montgomery factor for the bit reversal (short mode: the load), 0 = none
uniform uint gs_zeta;      // short mode: subset sums over this many low index bits after the layers
uniform uint gs_layer;     // first layer (log2 of its half-size)
uniform uint gs_layers;    // layers in this pass (shared mode)
uniform uint gs_bits;      // zeta: number of low bits / the bit; twist: s (see MODE_TWIST)
uniform uint gs_src_lead;  // gather
uniform uint gs_src_logh;  // gather: log2 of the message length
uniform uint gs_blowup;    // gather: log_blowup
uniform uint gs_gen;       // twiddles: generator of order 2^gs_logn (Montgomery)
uniform uint gs_coef;      // add part: the weight c (Montgomery)
uniform uint gs_src_stride; // add part: words from one sequence's part to the next; encode: from one Q column to the next
uniform uint gs_lskip;      // encode: log2 of the RS message's blocks (<= 5)

uint addr(uint v, uint i)
{
    return gs_lead + (v >> gs_vpcs) * gs_stride + (v & ((1u << gs_vpcs) - 1u)) * gs_subw + (i << gs_ews);
}

// w_(2h)^t for a layer of half-size h = 2^l, 0 <= t < h.
uint twiddle(uint h, uint t) { return tw[h + t]; }

#if DFT_MODE == MODE_SHARED || DFT_MODE == MODE_SHARED_SHORT
shared uint sh[DFT_BLOCK];
#elif DFT_MODE == MODE_GATHER_TILED || DFT_MODE == MODE_BITREV_TILED || DFT_MODE == MODE_ENCODE_TILED
shared uint tile[32 * 33]; // 32 x 32, rows padded so columns hit distinct banks
#if DFT_MODE == MODE_BITREV_TILED
shared uint tile2[32 * 33];
#elif DFT_MODE == MODE_ENCODE_TILED
shared uint twist_hm[32]; // g^(h 2^hs + m 2^5) for the tile's 32 rows h
#endif
#endif

void main()
{
#if DFT_MODE == MODE_SHARED || DFT_MODE == MODE_SHARED_SHORT
    // One work group per block of DFT_BLOCK elements: a part of one sequence,
    // or several whole sequences when they are shorter than a block (so
    // short sequences do not leave most of a work group idle). Layers
    // [gs_layer, gs_layer + gs_layers) never cross a sequence.
    uint id = gs_id0 + gs_linear_id();
    if (id >= gs_id0 + gs_count)
        return;
    uint lsz = GS_LOCAL_SIZE;
    uint lid = gl_LocalInvocationID.x;
    const uint bs_log = uint(DFT_BLOCK_LOG);
    const uint bs = 1u << bs_log;
    uint g = id / lsz;
    uint nmask = (1u << gs_logn) - 1u;
    uint v0, i0, spb_log;
    if (gs_logn >= bs_log) {
        uint nblk_log = gs_logn - bs_log;
        v0 = g >> nblk_log;
        i0 = (g & ((1u << nblk_log) - 1u)) << bs_log;
        spb_log = 0u;
    } else {
        spb_log = bs_log - gs_logn;
        v0 = g << spb_log;
        i0 = 0u;
    }
    // A block inside one sequence: its words from one address and a step.
    uint at = addr(v0, i0), ew = gs_ews;
#if DFT_MODE == MODE_SHARED
    for (uint q = lid; q < bs; q += lsz) {
        uint v = spb_log != 0u ? v0 + (q >> gs_logn) : v0;
        uint i = spb_log != 0u ? (q & nmask) : i0 + q;
        sh[q] = v < gs_nv ? a[spb_log != 0u ? addr(v, i) : at + (q << ew)] : 0u;
    }
#else
    // Whole sequences of 2^gs_logn <= DFT_BLOCK words (gs_logn >= 1): the
    // load does the transform's first steps too, scaling by 1/n and putting
    // element i at slot rev(i) of its sequence, so no bit-reversal pass
    // sweeps the data. The global reads stay in order (coalesced); the
    // permutation is on the shared-memory side.
    for (uint q = lid; q < bs; q += lsz) {
        uint v = v0 + (q >> gs_logn);
        uint i = q & nmask;
        uint x = v < gs_nv ? a[addr(v, i)] : 0u;
        if (gs_scale != 0u)
            x = bb_mul(x, gs_scale);
        sh[(q & ~nmask) | (bitfieldReverse(i) >> (32u - gs_logn))] = x;
    }
#endif
    barrier();
    uint lend = gs_layer + gs_layers;
    uint l = gs_layer;
    // Two layers per barrier (radix 4, as the CPU's dit_pass4), then a last
    // single layer if the count is odd.
    for (; l + 1u < lend; l += 2u) {
        uint h = 1u << l;
        for (uint p = lid; p < bs / 4u; p += lsz) {
            uint t = p & (h - 1u);
            uint i0 = ((p >> l) << (l + 2u)) + t;
            uint w1 = twiddle(h, t);
            uint x0 = sh[i0], x1 = bb_mul(sh[i0 + h], w1);
            uint x2 = sh[i0 + 2u * h], x3 = bb_mul(sh[i0 + 3u * h], w1);
            uint y0 = bb_add(x0, x1), y1 = bb_sub(x0, x1);
            uint y2 = bb_add(x2, x3), y3 = bb_sub(x2, x3);
            uint z2 = bb_mul(y2, twiddle(2u * h, t)), z3 = bb_mul(y3, twiddle(2u * h, h + t));
            sh[i0] = bb_add(y0, z2);
            sh[i0 + 2u * h] = bb_sub(y0, z2);
            sh[i0 + h] = bb_add(y1, z3);
            sh[i0 + 3u * h] = bb_sub(y1, z3);
        }
        barrier();
    }
    if (l < lend) {
        uint h = 1u << l;
        for (uint p = lid; p < bs / 2u; p += lsz) {
            uint t = p & (h - 1u);
            uint x = ((p >> l) << (l + 1u)) + t;
            uint y = x + h;
            uint u = sh[x];
            uint w = bb_mul(sh[y], twiddle(h, t));
            sh[x] = bb_add(u, w);
            sh[y] = bb_sub(u, w);
        }
        barrier();
    }
#if DFT_MODE == MODE_SHARED_SHORT
    // Subset sums over the low gs_zeta bits, as MODE_ZETA_LOW / MODE_ZETA_BIT
    // (the RS message's second step, on its blocks while they are here).
    for (uint b = 0u; b < gs_zeta; b++) {
        uint hb = 1u << b;
        for (uint p = lid; p < bs / 2u; p += lsz) {
            uint j = ((p >> b) << (b + 1u)) | (p & (hb - 1u));
            sh[j | hb] = bb_add(sh[j | hb], sh[j]);
        }
        barrier();
    }
#endif
    for (uint q = lid; q < bs; q += lsz) {
        uint v = spb_log != 0u ? v0 + (q >> gs_logn) : v0;
        uint i = spb_log != 0u ? (q & nmask) : i0 + q;
        if (v < gs_nv)
            a[spb_log != 0u ? addr(v, i) : at + (q << ew)] = sh[q];
    }
#elif DFT_MODE == MODE_BITREV_TILED
    // In-place bit reversal of sequences of 2^gs_logn >= 2^10 elements as
    // 32 x 32 tile swaps. Index i = (h, m, c): h its top 5 bits, c its low 5
    // bits, m the bits between; rev(i) = (rev5(c), rev(m), rev5(h)), so tile
    // m (rows h of 32 consecutive words c) lands transposed on tile rev(m).
    // The work group of m <= rev(m) loads both tiles and writes each into the
    // other's place (times gs_scale if nonzero); that of m > rev(m) exits.
    uint id = gs_id0 + gs_linear_id();
    if (id >= gs_id0 + gs_count)
        return; // whole groups only
    uint lsz = GS_LOCAL_SIZE;
    uint lid = gl_LocalInvocationID.x;
    uint g = id / lsz;
    uint mb = gs_logn - 10u;
    uint v = g >> mb, m = g & ((1u << mb) - 1u);
    uint mr = mb == 0u ? 0u : bitfieldReverse(m) >> (32u - mb);
    if (mr < m)
        return;
    uint hs = gs_logn - 5u;
    for (uint q = lid; q < 1024u; q += lsz) {
        uint h = q >> 5u, c = q & 31u;
        tile[h * 33u + c] = a[addr(v, (h << hs) | (m << 5u) | c)];
        tile2[h * 33u + c] = a[addr(v, (h << hs) | (mr << 5u) | c)];
    }
    barrier();
    for (uint q = lid; q < 1024u; q += lsz) {
        uint x = q >> 5u, y = q & 31u;
        uint from = (bitfieldReverse(y) >> 27u) * 33u + (bitfieldReverse(x) >> 27u);
        uint p = tile[from], o = tile2[from];
        if (gs_scale != 0u) {
            p = bb_mul(p, gs_scale);
            o = bb_mul(o, gs_scale);
        }
        a[addr(v, (x << hs) | (mr << 5u) | y)] = p;
        a[addr(v, (x << hs) | (m << 5u) | y)] = o;
    }
#elif DFT_MODE == MODE_ENCODE_TILED
    // The front of one row class's encoding (dft_ops.h, rs_code_rows) in
    // one sweep: read Q's columns, take the RS message of each 2^gs_lskip
    // block, twist by g^i (gs_bits != 0xFFFFFFFF) and write the result
    // bit-reversed into the output, ready for the DIT layers. This replaces
    // a copy, the message pass, the twist pass and the bit reversal, each a
    // sweep over the columns. Index i = (h, m, c) as in MODE_BITREV_TILED:
    // the work group of (sequence v, m) reads rows h of 32 consecutive words
    // c, which hold whole blocks since gs_lskip <= 5, and writes tile m
    // transposed onto tile rev(m) of the output.
    uint id = gs_id0 + gs_linear_id();
    if (id >= gs_id0 + gs_count)
        return; // whole groups only
    uint lsz = GS_LOCAL_SIZE;
    uint lid = gl_LocalInvocationID.x;
    uint g = id / lsz;
    uint mb = gs_logn - 10u;
    uint v = g >> mb, m = g & ((1u << mb) - 1u);
    uint mr = mb == 0u ? 0u : bitfieldReverse(m) >> (32u - mb);
    uint hs = gs_logn - 5u;
    uint l = gs_lskip;
    uint bm = (1u << l) - 1u;
    uint sbase = gs_src_lead + v * gs_src_stride + (m << 5u);
    uint s = gs_bits;
    // The twist g^i of i = (h, m, c) is g^(h 2^hs) g^(m 2^5) g^c, three
    // exponents in disjoint bits. The first two come from the table's coarse
    // half (hs >= s = ceil(L/2) since L >= 10) and are kept per row h in
    // shared memory; g^c is a word of the fine half that a warp shares. (A
    // load of g^(i >> s) per word instead touched 32 cache lines per warp.)
    if (s != 0xFFFFFFFFu) {
        uint ms = m << 5u;
        uint gm = bb_mul(twist[ms & ((1u << s) - 1u)], twist[(1u << s) + (ms >> s)]);
        for (uint h = lid; h < 32u; h += lsz)
            twist_hm[h] = bb_mul(twist[(1u << s) + (h << (hs - s))], gm);
    }
    // The load puts word c of a block at slot rev_l(c) and scales by 2^-l:
    // the inverse DFT's first steps.
    for (uint q = lid; q < 1024u; q += lsz) {
        uint h = q >> 5u, c = q & 31u;
        uint x = src[sbase + (h << hs) + c];
        if (gs_scale != 0u)
            x = bb_mul(x, gs_scale);
        uint cr = l == 0u ? c : (c & ~bm) | (bitfieldReverse(c & bm) >> (32u - l));
        tile[h * 33u + cr] = x;
    }
    barrier();
    // Inverse DIT layers inside the blocks (tw holds the inverse roots of
    // order up to 2^l), then the subset sums over the block's bits: 16
    // butterflies or sums per row of 32, 512 per tile.
    for (uint lg = 0u; lg < l; lg++) {
        uint hh = 1u << lg;
        for (uint p = lid; p < 512u; p += lsz) {
            uint row = (p >> 4u) * 33u, k = p & 15u;
            uint t = k & (hh - 1u);
            uint x = row + ((k >> lg) << (lg + 1u)) + t;
            uint u = tile[x];
            uint w = bb_mul(tile[x + hh], twiddle(hh, t));
            tile[x] = bb_add(u, w);
            tile[x + hh] = bb_sub(u, w);
        }
        barrier();
    }
    for (uint b = 0u; b < l; b++) {
        uint hb = 1u << b;
        for (uint p = lid; p < 512u; p += lsz) {
            uint row = (p >> 4u) * 33u, k = p & 15u;
            uint j = row + (((k >> b) << (b + 1u)) | (k & (hb - 1u)));
            tile[j + hb] = bb_add(tile[j + hb], tile[j]);
        }
        barrier();
    }
    for (uint q = lid; q < 1024u; q += lsz) {
        uint x = q >> 5u, y = q & 31u;
        uint h = bitfieldReverse(y) >> 27u, c = bitfieldReverse(x) >> 27u;
        uint o = tile[h * 33u + c];
        if (s != 0xFFFFFFFFu)
            o = bb_mul(o, bb_mul(twist_hm[h], twist[c]));
        a[addr(v, (x << hs) | (mr << 5u) | y)] = o;
    }
#elif DFT_MODE == MODE_GATHER_TILED
    // MODE_GATHER as a tiled transpose, coalesced on both sides. Message
    // index j = (h, m, c) with h its top 5 bits, c its low 5 bits and m the
    // gs_src_logh - 10 bits between; rev(j) = (rev5(c), rev(m), rev5(h)).
    // One work group per (sequence, m): it reads the 32 rows h of 32
    // consecutive words c and writes 32 rows x = rev5(c) of 32 consecutive
    // y = rev5(h), each word repeated 2^gs_blowup times.
    uint id = gs_id0 + gs_linear_id();
    if (id >= gs_id0 + gs_count)
        return; // whole groups only: the count is a multiple of the group size
    uint lsz = GS_LOCAL_SIZE;
    uint lid = gl_LocalInvocationID.x;
    uint g = id / lsz;
    uint L = gs_src_logh;
    uint mb = L - 10u;
    uint v = g >> mb, m = g & ((1u << mb) - 1u);
    uint mr = mb == 0u ? 0u : bitfieldReverse(m) >> (32u - mb);
    uint sbase = gs_src_lead + (v << L) + (m << 5u);
    for (uint q = lid; q < 1024u; q += lsz) {
        uint h = q >> 5u, c = q & 31u;
        tile[h * 33u + c] = src[sbase + (h << (L - 5u)) + c];
    }
    barrier();
    uint rep = 1u << gs_blowup;
    for (uint q = lid; q < (1024u << gs_blowup); q += lsz) {
        uint s = q & (rep - 1u), xy = q >> gs_blowup;
        uint x = xy >> 5u, y = xy & 31u;
        uint c = bitfieldReverse(x) >> 27u, h = bitfieldReverse(y) >> 27u;
        uint jr = (x << (L - 5u)) | (mr << 5u) | y;
        a[addr(v, (jr << gs_blowup) | s)] = tile[h * 33u + c];
    }
#else
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    id += gs_id0;
#if DFT_MODE == MODE_BITREV
    uint v = id >> gs_logn, i = id & ((1u << gs_logn) - 1u);
    uint j = gs_logn == 0u ? 0u : bitfieldReverse(i) >> (32u - gs_logn);
    if (i < j) {
        uint ai = addr(v, i), aj = addr(v, j);
        uint x = a[ai], y = a[aj];
        if (gs_scale != 0u) {
            x = bb_mul(x, gs_scale);
            y = bb_mul(y, gs_scale);
        }
        a[ai] = y;
        a[aj] = x;
    } else if (i == j && gs_scale != 0u) {
        uint ai = addr(v, i);
        a[ai] = bb_mul(a[ai], gs_scale);
    }
#elif DFT_MODE == MODE_RADIX
    // 2^DFT_RADIX_M points spaced h = 2^gs_layer apart: DIT layers with
    // half-sizes h .. h * 2^(M-1) in registers. M is a compile-time constant
    // so the loops unroll and the points stay in registers.
    const uint m = uint(DFT_RADIX_M);
    const uint cnt = 1u << m;
    uint grp_log = gs_logn - m;
    uint v = id >> grp_log, g = id & ((1u << grp_log) - 1u);
    uint l0 = gs_layer, h = 1u << l0;
    uint t = g & (h - 1u), blk = g >> l0;
    uint base = (blk << (l0 + m)) + t;
    uint x[cnt];
    // The points' words: one address, then a fixed step (the shifts
    // distribute over the sum modulo 2^32).
    uint at = addr(v, base), step = 1u << (l0 + gs_ews);
    for (uint j = 0u; j < cnt; j++)
        x[j] = a[at + j * step];
    // Layer s (half-size H = h 2^s) pairs points j and j + 2^s, j's low s
    // bits jj, with twiddle w_(2H)^(jj h + t) = w_(2H)^t * w_(2^(s+1))^jj:
    // one load per layer for this invocation's w_(2H)^t, times entry
    // 2^s + jj of the same table (the same word for every invocation, so a
    // broadcast from cache), instead of 2^s loads per layer from the table's
    // large rows (on an H100 the radix-8 passes ran 18% faster, a 2^22 x 42
    // transform 3%: docs/performance.md, 'DFT and buffer copies', 2026-11-26).
    for (uint s = 0u; s < m; s++) {
        uint hb = 1u << s;
        uint wt = twiddle(h << s, t);
        for (uint jj = 0u; jj < hb; jj++) {
            uint w = jj == 0u ? wt : bb_mul(wt, twiddle(hb, jj));
            for (uint k = jj; k < cnt; k += 2u * hb) {
                uint u = x[k];
                uint y = bb_mul(x[k + hb], w);
                x[k] = bb_add(u, y);
                x[k + hb] = bb_sub(u, y);
            }
        }
    }
    for (uint j = 0u; j < cnt; j++)
        a[at + j * step] = x[j];
#elif DFT_MODE == MODE_ZETA_LOW
    // Subset sums over the low gs_bits (<= 5) index bits, one aligned chunk
    // of 2^gs_bits elements per invocation.
    uint c = gs_bits;
    uint cl_log = gs_logn - c;
    uint v = id >> cl_log, i0 = (id & ((1u << cl_log) - 1u)) << c;
    uint x[32];
    uint cnt = 1u << c;
    for (uint j = 0u; j < cnt; j++)
        x[j] = a[addr(v, i0 + j)];
    for (uint b = 0u; b < c; b++)
        for (uint j = 0u; j < cnt; j++)
            if ((j & (1u << b)) != 0u)
                x[j] = bb_add(x[j], x[j ^ (1u << b)]);
    for (uint j = 0u; j < cnt; j++)
        a[addr(v, i0 + j)] = x[j];
#elif DFT_MODE == MODE_ZETA_BIT
    // One bit b = gs_bits of the subset-sum transform: x[i | 2^b] += x[i].
    uint b = gs_bits;
    uint pl = gs_logn - 1u;
    uint v = id >> pl, p = id & ((1u << pl) - 1u);
    uint lo = p & ((1u << b) - 1u);
    uint i = ((p >> b) << (b + 1u)) | lo;
    uint ai = addr(v, i), aj = addr(v, i | (1u << b));
    a[aj] = bb_add(a[aj], a[ai]);
#elif DFT_MODE == MODE_TWIDDLES
    // tw[k], k = h + t with h the highest power of two <= k: w_(2h)^t, where
    // w_(2h) = gen^(2^gs_logn / 2h); tw[0] = 1. gs_logn >= 1.
    if (id == 0u) {
        a[gs_lead] = BB_ONE;
    } else {
        uint lh = uint(findMSB(id));
        a[gs_lead + id] = bb_pow(gs_gen, (id - (1u << lh)) << (gs_logn - 1u - lh));
    }
#elif DFT_MODE == MODE_TWIST
    // x[i] *= g^i with i = (hi << s) | lo: src[lo] = g^lo (lo < 2^s) and
    // src[2^s + hi] = g^(hi 2^s), two tables of about 2^(gs_logn/2) words
    // instead of one power per element.
    uint v = id >> gs_logn, i = id & ((1u << gs_logn) - 1u);
    uint s = gs_bits;
    uint ai = addr(v, i);
    uint g = bb_mul(src[i & ((1u << s) - 1u)], src[(1u << s) + (i >> s)]);
    a[ai] = bb_mul(a[ai], g);
#elif DFT_MODE == MODE_ADD_PART
    // x[i] += c * part[i]: part r of a column of Q, weighted by c = g^(r H'),
    // added onto the column's first part before the RS message (which is
    // linear and blockwise) and the twist; sequence v's part at
    // gs_src_lead + v gs_src_stride.
    uint v = id >> gs_logn, i = id & ((1u << gs_logn) - 1u);
    uint ai = addr(v, i);
    a[ai] = bb_add(a[ai], bb_mul(part[gs_src_lead + v * gs_src_stride + i], gs_coef));
#elif DFT_MODE == MODE_GATHER
    // Codeword column after its first log_blowup (copy-only) DIT layers:
    // a[i] = msg[rev_L(i >> blowup)], message v at src[gs_src_lead + v * 2^L].
    uint v = id >> gs_logn, i = id & ((1u << gs_logn) - 1u);
    uint j = i >> gs_blowup;
    uint r = gs_src_logh == 0u ? 0u : bitfieldReverse(j) >> (32u - gs_src_logh);
    a[addr(v, i)] = src[gs_src_lead + (v << gs_src_logh) + r];
#endif
#endif
}
