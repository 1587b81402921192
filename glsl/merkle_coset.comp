// Leaf hashing fused with the coset trees (src/engine/gles/hash_gles.c uses
// it when the whole matrix fits one binding window, so a row is absorbed in
// one go): work group g takes Yg = GS_LOCAL_SIZE / K cosets
// y = gs_y0 + g * Yg + (0 .. Yg-1) and all K = 2^gs_log_k rows y + t * S of
// each (invocation lid: t = lid / Yg, coset lid % Yg, so neighbouring
// invocations read neighbouring rows). Each invocation hashes its row with
// the overwrite sponge (glsl/merkle_leaf.comp, in one window); the leaves
// stay in shared memory and are compressed pairwise per coset, (t, t+1)
// first, as the separate passes do; only the coset digests are written:
// digest of coset y at dout[gs_out_lead + 8 * (y - gs_y0)].
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

// Matrix: entry (row r, column c, coefficient j) at word
// gs_lead + c * gs_col_words + r * deg + j.
layout(std430, binding = 0) readonly buffer Mat { uint mat[]; };
layout(std430, binding = 1) writeonly buffer Out { uint dout[]; };

uniform uint gs_y0;
uniform uint gs_stride_s;
uniform uint gs_log_k;
uniform uint gs_len;       // row length in elements (width * deg)
uniform uint gs_deg_shift; // 0 or 2
uniform uint gs_col_words; // words per column (height * deg)
uniform uint gs_lead;
uniform uint gs_out_lead;

shared uint leaves[GS_LOCAL_SIZE * 8u];

// One call site of the permutation for both the row sponge and the tree
// above the leaves: compilers inline and unroll it, and with a second copy
// this was the slowest program to compile (NVIDIA 580, cold cache: 440-617
// ms; 309 ms with one; docs/performance.md, 'Shader compiles and the first
// run', 2026-11-26).
void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return; // whole groups only: the count is a multiple of the group size
    uint lid = gl_LocalInvocationID.x;
    uint g = id / GS_LOCAL_SIZE;
    uint yg_log = uint(findMSB(GS_LOCAL_SIZE)) - gs_log_k;
    uint ymask = (1u << yg_log) - 1u;
    uint r = gs_y0 + (g << yg_log) + (lid & ymask) + (lid >> yg_log) * gs_stride_s;
    uint dmask = (1u << gs_deg_shift) - 1u;
    uint rowpart = r << gs_deg_shift;
    uint nblk = (gs_len + 7u) >> 3;
    uint s[16];
    for (int k = 0; k < 16; k++)
        s[k] = 0u;
    // Steps 0 .. nblk-1: the overwrite sponge over row r (as
    // glsl/merkle_leaf.comp, in one window), each block's words overwrite
    // s[0..8). Then one step per tree level: with m leaves per coset left,
    // invocation q < (m/2) * Yg compresses leaves 2x and 2x+1 (x = q / Yg)
    // of coset q % Yg into slot q, (t, t+1) first as the separate passes do.
    // The step count and every branch on it are the same for the whole
    // work group, so the barriers are reached by all invocations.
    uint m = 1u << gs_log_k;
    if (nblk == 0u) // an empty row: its leaf is the zero digest, as the sponge's
        for (uint k = 0u; k < 8u; k++)
            leaves[8u * lid + k] = 0u;
    barrier();
    for (uint step = 0u; step < nblk + gs_log_k; step++) {
        bool busy = true;
        if (step < nblk) {
            uint blk = step << 3;
            for (uint k = 0u; k < 8u; k++) {
                uint e = blk + k;
                if (e < gs_len)
                    s[k] = mat[gs_lead + (e >> gs_deg_shift) * gs_col_words + rowpart + (e & dmask)];
            }
        } else {
            busy = lid < ((m >> 1u) << yg_log);
            if (busy) {
                uint a = 8u * ((((lid >> yg_log) * 2u) << yg_log) + (lid & ymask));
                uint b = a + (8u << yg_log);
                for (uint k = 0u; k < 8u; k++) {
                    s[k] = leaves[a + k];
                    s[8u + k] = leaves[b + k];
                }
            }
            m >>= 1u;
        }
        if (busy)
            p2_permute(s);
        if (step + 1u < nblk)
            continue; // more of the row to absorb: nothing shared yet
        // The row's leaf, or this level's digests, into the invocation's slot
        // once every invocation has read the slots it compresses.
        barrier();
        if (busy)
            for (uint k = 0u; k < 8u; k++)
                leaves[8u * lid + k] = s[k];
        barrier();
    }
    if (lid <= ymask)
        for (uint k = 0u; k < 8u; k++)
            dout[gs_out_lead + 8u * ((g << yg_log) + lid) + k] = leaves[8u * lid + k];
}
