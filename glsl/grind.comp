// Proof-of-work search (docs/protocol.md, 'Transcript and proof of work'): candidate w = gs_w0 + id
// passes when writing it into cell gs_absorb of the sponge state and
// permuting leaves canonical(cell 7) with gs_bits low zero bits. The smallest
// passing candidate of the batch lands in res[0] (atomicMin; the host sets it
// to 0xFFFFFFFF before the batch). Dispatches of a batch run in increasing w,
// so a witness found by an earlier dispatch (res[0] < gs_w0) beats every
// candidate of this one: skip the work. A witness found by this dispatch
// must not stop it, or a smaller candidate could be skipped.
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) coherent buffer Res { uint res[]; };

uniform uint gs_state[16];
uniform uint gs_absorb;
uniform uint gs_bits;
uniform uint gs_w0;

void main()
{
    uint id = gs_linear_id();
    if (id >= gs_count)
        return;
    if (res[0] < gs_w0)
        return;
    uint w = gs_w0 + id;
    if (w >= BB_P)
        return;
    // p2_pow_ok, with the witness cell chosen by constant indices (keeps
    // the state in registers).
    uint s[16];
    uint wm = bb_from_canonical(w);
    for (int k = 0; k < 16; k++)
        s[k] = uint(k) == gs_absorb ? wm : gs_state[k];
    p2_permute(s);
    uint mask = gs_bits >= 32u ? 0xFFFFFFFFu : (1u << gs_bits) - 1u;
    if ((bb_to_canonical(s[7]) & mask) == 0u)
        atomicMin(res[0], w);
}
