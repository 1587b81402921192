// w[first + i] = w[first + i] * R mod p for i < count: canonical field values
// (as the caller's trace holds them) to the Montgomery form every buffer
// uses, in place, right after the upload. Values are < p (the host checks).
#include "grid.glsl"
#include "babybear.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) buffer Words { uint w[]; };

uniform uint gs_first;

void main()
{
    uint i = gs_linear_id();
    if (i >= gs_count)
        return;
    w[gs_first + i] = bb_from_canonical(w[gs_first + i]);
}
