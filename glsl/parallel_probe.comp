// A fixed chain of integer steps per invocation, to time how many work
// groups the device runs side by side (src/gles/parallel_probe.c). Each
// step depends on the one before, so a group's time is the chain's length
// whatever the lanes; the result is written so the chain is kept.
layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) writeonly buffer Out { uint o[]; };

uniform uint gs_iters;

void main()
{
    uint x = gl_GlobalInvocationID.x + 1u, y = 0x9E3779B9u;
    for (uint i = 0u; i < gs_iters; i++) {
        x = x * 1664525u + y;
        y ^= x >> 7;
    }
    o[gl_GlobalInvocationID.x] = x ^ y;
}
