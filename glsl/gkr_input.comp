// The LogUp GKR input layer (gkr_ops.h input_layer, docs/protocol.md,
// 'LogUp GKR'): the interaction DAG of one trace evaluated over a chunk of leaf rows
// with node values kept in a global slot-major buffer inter[slot * rows + r]
// (base field, Montgomery), in three passes so no pass needs more than the
// ES 3.1 floor's 4 storage bindings:
//   1 GATHER  inter[slot][r] = column value of a variable node at leaf row
//             row0 + r (trace row taken mod the height, rotation mod height)
//   2 EVAL    every other used node in topological (slot) order
//   3 EMIT    interaction k's leaves: p = count * norm, q = alpha + h with
//             h = sum_j beta^j m_j + beta^len (bus + 1)
// The host compiles the used part of the DAG into `code` (uint words):
//   node i: uvec4(op, a, b, v) at words 4i (EVAL: op 1 CONST v, 2 IS_FIRST,
//           3 IS_LAST, 4 IS_TRANSITION, 5 ADD, 6 SUB, 7 NEG, 8 MUL; 0 = a
//           gathered variable, skipped)
//   gather entries: uvec4(slot, column, rotation, 0), sorted by column
//   interaction: uvec4(count slot, bus + 1 (Montgomery), message length,
//           word of its message slot list)
// @variant GKR_IN_MODE 1
// @variant GKR_IN_MODE 2
// @variant GKR_IN_MODE 3
#include "ext4.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) readonly buffer Code { uint code[]; };

uniform uint gs_rows;     // rows in this chunk
uniform uint gs_row0;     // leaf row of chunk row 0
uniform uint gs_log_h;    // log2 trace height
uniform uint gs_first;    // word of the first entry (gather list, node 0, or interaction)

uvec4 code4(uint w) { return uvec4(code[w], code[w + 1u], code[w + 2u], code[w + 3u]); }

#if GKR_IN_MODE == 1
layout(std430, binding = 1) readonly buffer Part { uint col[]; };
layout(std430, binding = 2) buffer Inter { uint inter[]; };

uniform uint gs_lead1; // word lead of the part window
uniform uint gs_c0;    // first column of the part window

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uint e = id / gs_rows, r = id % gs_rows;
    uvec4 g = code4(gs_first + 4u * e);
    uint mask = (1u << gs_log_h) - 1u;
    uint row = (gs_row0 + r + g.z) & mask;
    inter[g.x * gs_rows + r] = col[gs_lead1 + ((g.y - gs_c0) << gs_log_h) + row];
}

#elif GKR_IN_MODE == 2
layout(std430, binding = 1) buffer Inter { uint inter[]; };

uniform uint gs_nodes;

void main()
{
    uint r = gs_linear_id();
    if (r >= gs_count)
        return;
    uint mask = (1u << gs_log_h) - 1u;
    uint row = (gs_row0 + r) & mask;
    for (uint i = 0u; i < gs_nodes; i++) {
        uvec4 n = code4(gs_first + 4u * i);
        uint v;
        if (n.x == 0u)
            continue;
        else if (n.x == 1u)
            v = n.w;
        else if (n.x == 2u)
            v = row == 0u ? BB_ONE : 0u;
        else if (n.x == 3u)
            v = row == mask ? BB_ONE : 0u;
        else if (n.x == 4u)
            v = row == mask ? 0u : BB_ONE;
        else {
            uint a = inter[n.y * gs_rows + r];
            if (n.x == 7u)
                v = bb_neg(a);
            else {
                uint b = inter[n.z * gs_rows + r];
                v = n.x == 5u ? bb_add(a, b) : n.x == 6u ? bb_sub(a, b) : bb_mul(a, b);
            }
        }
        inter[i * gs_rows + r] = v;
    }
}

#elif GKR_IN_MODE == 3
layout(std430, binding = 1) readonly buffer Inter { uint inter[]; };
layout(std430, binding = 2) writeonly buffer P { uvec4 p[]; };
layout(std430, binding = 3) writeonly buffer Q { uvec4 q[]; };

uniform uint gs_lead2;
uniform uint gs_lead3;
uniform uint gs_norm;   // 2^(h - l_skip) for lifted traces, else one
uniform uvec4 gs_alpha;
uniform uvec4 gs_beta;

void main()
{
    uint r = gs_linear_id();
    if (r >= gs_count)
        return;
    uvec4 it = code4(gs_first);
    uvec4 acc = uvec4(0u), pw = uvec4(BB_ONE, 0u, 0u, 0u);
    for (uint j = 0u; j < it.z; j++) {
        acc = bb4_add(acc, bb4_mul_base(pw, inter[code[it.w + j] * gs_rows + r]));
        pw = bb4_mul(pw, gs_beta);
    }
    acc = bb4_add(acc, bb4_mul_base(pw, it.y));
    p[gs_lead2 + r] = uvec4(bb_mul(inter[it.x * gs_rows + r], gs_norm), 0u, 0u, 0u);
    q[gs_lead3 + r] = bb4_add(gs_alpha, acc);
}
#else
#error "GKR_IN_MODE must be 1..3"
#endif
