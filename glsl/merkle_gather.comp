// Merkle openings: gathers the opened rows of a column-major matrix into a
// staging buffer in one dispatch per column window, instead of one buffer
// copy per (query, row, column) (67k copies for a keccakf-1024 WHIR query
// phase). Invocation id -> (row pair qt, column c_rel, coefficient j):
//   out[gs_olead + (qt * gs_width + gs_c0 + c_rel) * deg + j]
//     = mat[gs_lead + c_rel * gs_col_words + rows[qt] * deg + j]
// The sibling digests of the opening proofs are the same gather over the
// digest array as one column of 8-word elements, rows[] holding the
// siblings' digest indices: one dispatch instead of one buffer copy per
// digest (about 3400 for keccakf-1024's first WHIR query round).
// (src/engine/gles/hash_gles.c: gles_merkle_gather binds the windows).
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) readonly buffer Mat { uint mat[]; };
layout(std430, binding = 1) readonly buffer Rows { uint rows[]; };
layout(std430, binding = 2) writeonly buffer Out { uint outw[]; };

uniform uint gs_lead;      // word of column gs_c0, row 0 inside binding 0
uniform uint gs_col_words; // words per column (height * deg)
uniform uint gs_cw;        // columns in this window
uniform uint gs_c0;        // first column of the window
uniform uint gs_width;     // columns of the matrix
uniform uint gs_deg;       // words per element (1 or 4; 8 for digests)
uniform uint gs_olead;     // word of the first output inside binding 2

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uint j = id % gs_deg, rest = id / gs_deg;
    uint c = rest % gs_cw, qt = rest / gs_cw;
    outw[gs_olead + (qt * gs_width + gs_c0 + c) * gs_deg + j] = mat[gs_lead + c * gs_col_words + rows[qt] * gs_deg + j];
}
