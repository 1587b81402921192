// A row-major block into columns (src/engine/gles/gles_engine.c,
// gs_buf_transpose): word (r, c) of a gs_rows x gs_cols block, read at
// gs_src_lead + r * gs_cols + c, is written at gs_dst_lead + (c - gs_col0) *
// gs_dst_stride + r. Invocations run in destination order (r fastest), so
// the writes of a work group are contiguous; the reads stride by gs_cols
// through a block small enough to stay in the GPU's cache (the prover's
// blocks are a few MB). One word per invocation.
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) writeonly buffer Dst { uint d[]; };
layout(std430, binding = 1) readonly buffer Src { uint s[]; };

uniform uint gs_rows;
uniform uint gs_cols;
uniform uint gs_col0;      // the first column of this dispatch
uniform uint gs_dst_stride;
uniform uint gs_src_lead;
uniform uint gs_dst_lead;

void main()
{
    uint i = gs_linear_id();
    if (i >= gs_count)
        return;
    uint k = i / gs_rows, r = i - k * gs_rows;
    d[gs_dst_lead + k * gs_dst_stride + r] = s[gs_src_lead + r * gs_cols + gs_col0 + k];
}
