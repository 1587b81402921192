// Strided copy (src/engine/gles/gles_engine.c, gs_buf_copy_strided): item
// k of gs_item words is read from word gs_src_lead + k * gs_src_stride and
// written at gs_dst_lead + k * gs_dst_stride. One word per invocation.
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) writeonly buffer Dst { uint d[]; };
layout(std430, binding = 1) readonly buffer Src { uint s[]; };

uniform uint gs_item;
uniform uint gs_src_stride;
uniform uint gs_dst_stride;
uniform uint gs_src_lead;
uniform uint gs_dst_lead;

void main()
{
    uint i = gs_linear_id();
    if (i >= gs_count)
        return;
    uint k = i / gs_item, j = i - k * gs_item;
    d[gs_dst_lead + k * gs_dst_stride + j] = s[gs_src_lead + k * gs_src_stride + j];
}
