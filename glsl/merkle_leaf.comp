// Poseidon2 row hashes (leaves) of a column-major matrix, resumable across
// dispatches so that a row may be absorbed over several column windows
// (src/engine/gles/hash_gles.c picks the windows to respect the per-binding
// limit and a per-dispatch work budget).
//
// A dispatch absorbs flattened row elements [gs_e0, gs_e1) (element e of a
// row is column e >> gs_deg_shift, coefficient e & (deg-1)) for the tile rows
// with ids [gs_i0, gs_i0 + gs_count). Tile row id i maps to matrix row
//   r = gs_y0 + (i % gs_ytile) + (i / gs_ytile) * gs_stride_s,
// i.e. the rows of the query cosets y0 .. y0+ytile-1 in t-major order. The
// overwrite sponge writes st[e & 7] = v and permutes after every 8th element
// and after the last one (docs/protocol.md, 'Poseidon2 and the sponge'), so resuming only needs
// the 16-word state, kept in St between dispatches.
//
// GS_STREAM 1 is the streamed commitment (src/engine/hash_ops.h): dispatches
// start and end on rate blocks, so St keeps only the 8 capacity words; a
// short last block reads its missing rate words from the group buffer's
// columns after the row's end, where the dispatch that permutes the block
// before it wrote them (src/hash/merkle.h).
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

// Window of the matrix: word lead + (c - gs_c0) * gs_col_words + (r - gs_rlo) * deg + j.
#ifndef GS_STREAM
#define GS_STREAM 0
#endif
#if GS_STREAM
layout(std430, binding = 0) buffer Mat { uint mat[]; };
#else
layout(std430, binding = 0) readonly buffer Mat { uint mat[]; };
#endif
layout(std430, binding = 1) buffer St { uint st[]; };      // 16 (streamed: 8) words per tile row
layout(std430, binding = 2) writeonly buffer Leaf { uint leaf[]; }; // 8 words per tile row

uniform uint gs_i0;
uniform uint gs_ytile;
uniform uint gs_y0;
uniform uint gs_stride_s;
uniform uint gs_e0;
uniform uint gs_e1;
uniform uint gs_len;       // row length in elements (width * deg)
uniform uint gs_deg_shift; // 0 or 2
uniform uint gs_c0;
uniform uint gs_rlo;
uniform uint gs_col_words; // words per column (height * deg)
uniform uint gs_lead;
#if GS_STREAM
uniform uint gs_short_at; // where a short last block starts (gs_len & ~7), or 0xFFFFFFFF when none
uniform uint gs_tail_col; // window column of that block's word 0 in the last group
#endif

#if GS_STREAM
void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uint i = gs_i0 + id;
    uint r = gs_y0 + (i % gs_ytile) + (i / gs_ytile) * gs_stride_s;
    uint s[16];
    for (int k = 0; k < 16; k++)
        s[k] = 0u;
    if (gs_e0 != 0u) {
        for (int k = 0; k < 8; k++)
            s[8 + k] = st[8u * i + uint(k)];
    }
    uint rowpart = r - gs_rlo;
    for (uint blk = gs_e0; blk < gs_e1; blk += 8u) {
        // a row's only block, when short, keeps the zero start past its words
        uint m = (blk == gs_short_at && blk == 0u) ? gs_len : 8u;
        for (uint k = 0u; k < 8u; k++) {
            if (k < m)
                s[k] = mat[gs_lead + (blk + k - gs_c0) * gs_col_words + rowpart];
        }
        p2_permute(s);
        if (blk + 8u == gs_short_at) {
            for (uint k = 0u; k < 8u; k++) {
                if (k >= (gs_len & 7u))
                    mat[gs_lead + (gs_tail_col + k - gs_c0) * gs_col_words + rowpart] = s[k];
            }
        }
    }
    if (gs_e1 >= gs_len) {
        for (int k = 0; k < 8; k++)
            leaf[8u * i + uint(k)] = s[k];
    } else {
        for (int k = 0; k < 8; k++)
            st[8u * i + uint(k)] = s[8 + k];
    }
}
#else
void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uint i = gs_i0 + id;
    uint r = gs_y0 + (i % gs_ytile) + (i / gs_ytile) * gs_stride_s;
    uint s[16];
    if (gs_e0 == 0u) {
        for (int k = 0; k < 16; k++)
            s[k] = 0u;
    } else {
        for (int k = 0; k < 16; k++)
            s[k] = st[16u * i + uint(k)];
    }
    uint dmask = (1u << gs_deg_shift) - 1u;
    uint rowpart = (r - gs_rlo) << gs_deg_shift;
    // Rate blocks of 8 elements; cells are written with constant indices so
    // the state can live in registers (a variable index would push the whole
    // state to scratch memory on many compilers).
    for (uint blk = gs_e0 & ~7u; blk < gs_e1; blk += 8u) {
        for (uint k = 0u; k < 8u; k++) {
            uint e = blk + k;
            if (e >= gs_e0 && e < gs_e1) {
                uint c = e >> gs_deg_shift;
                s[k] = mat[gs_lead + (c - gs_c0) * gs_col_words + rowpart + (e & dmask)];
            }
        }
        uint last = blk + 8u < gs_len ? blk + 7u : gs_len - 1u;
        if (last < gs_e1)
            p2_permute(s);
    }
    if (gs_e1 == gs_len) {
        for (int k = 0; k < 8; k++)
            leaf[8u * i + uint(k)] = s[k];
    } else {
        for (int k = 0; k < 16; k++)
            st[16u * i + uint(k)] = s[k];
    }
}
#endif
