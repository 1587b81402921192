// Binds one small buffer at every storage binding a kernel here uses (0-3:
// the ES 3.1 floor allows a compute shader four) and writes a zero through
// each. Dispatched before a new buffer is made after others were deleted:
// Mesa holds the buffers of a dispatch's bindings until a later dispatch
// binds those slots again, so without it a deleted buffer's memory stayed
// beside the new one's (src/engine/gles/buffer_release.c).
layout(local_size_x = 1) in;

layout(std430, binding = 0) writeonly buffer B0 { uint b0[]; };
layout(std430, binding = 1) writeonly buffer B1 { uint b1[]; };
layout(std430, binding = 2) writeonly buffer B2 { uint b2[]; };
layout(std430, binding = 3) writeonly buffer B3 { uint b3[]; };

void main()
{
    b0[0] = 0u;
    b1[0] = 0u;
    b2[0] = 0u;
    b3[0] = 0u;
}
