// One layer of 2-to-1 Poseidon2 compressions (docs/protocol.md, 'Poseidon2 and the sponge'):
//   out[i] = C(in[2x * gs_ystride + y], in[(2x + 1) * gs_ystride + y]),
//   x = (gs_i0 + i) / gs_ystride, y = (gs_i0 + i) % gs_ystride,
// which is the coset tree of the bottom K levels (ystride = number of cosets
// in the tile) and the adjacent-pair upper layers (ystride = 1). Output i
// goes to digest i * gs_out_step (a row class's coset digests lie 2^lc
// apart in the bottom layer; 1 elsewhere). Digest indices are relative to
// the bound windows plus the word leads.
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) readonly buffer In { uint din[]; };
layout(std430, binding = 1) writeonly buffer Out { uint dout[]; };

uniform uint gs_i0;
uniform uint gs_ystride;
uniform uint gs_in_lead;  // words
uniform uint gs_in_first; // digest index of in[] entry 0 relative to the window
uniform uint gs_out_lead; // words
uniform uint gs_out_step;

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    uint i = gs_i0 + id;
    uint x = i / gs_ystride, y = i % gs_ystride;
    uint a = gs_in_lead + 8u * (2u * x * gs_ystride + y - gs_in_first);
    uint b = a + 8u * gs_ystride;
    uint s[16];
    for (int k = 0; k < 8; k++) {
        s[k] = din[a + uint(k)];
        s[8 + k] = din[b + uint(k)];
    }
    p2_permute(s);
    for (int k = 0; k < 8; k++)
        dout[gs_out_lead + 8u * id * gs_out_step + uint(k)] = s[k];
}
