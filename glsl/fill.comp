// o[first + i] = value + i * step for i < count: buffer fills (step 0) and
// id patterns for dispatch tests (step 1). The host binds a range of the
// buffer and splits fills larger than one binding.
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) writeonly buffer Out { uint o[]; };

uniform uint gs_first;
uniform uint gs_value;
uniform uint gs_step;

void main()
{
    uint i = gs_linear_id();
    if (i >= gs_count)
        return;
    o[gs_first + i] = gs_value + i * gs_step;
}
