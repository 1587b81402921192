// One transcript step on the engine (src/engine/hash_ops.h, gs_sponge_step):
// the duplex sponge of src/common/transcript.c observes gs_n_obs extension
// elements, searches a proof-of-work witness when gs_pow_bits > 0, then
// samples one extension element, on the state kept in binding 0 (16 cells in
// Montgomery form, then the absorb and sample positions). One work group:
// every invocation builds the same state (a short serial chain of
// permutations, no slower on many invocations than on one), the search
// tries one candidate per invocation at a time (at most 2^8 candidates
// expected: a serial search cost ~0.4 ms per 5-bit step on an H200), and
// invocation 0 writes the step's results. It lets the rounds of a sumcheck
// follow each other without the host.
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

shared uint sh_found;

layout(std430, binding = 0) buffer State { uint st[]; };
layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) buffer Dst { uint dst[]; };
layout(std430, binding = 3) buffer Wit { uint wit[]; };

uniform uint gs_src_word; // first observed word in binding 1
uniform uint gs_n_obs;    // extension elements observed
uniform uint gs_pow_bits; // proof-of-work bits (0: none)
uniform uint gs_wit_word; // the witness's word in binding 3
uniform uint gs_dst_word; // the sampled element's first word in binding 2

// Cells are chosen by constant indices (keeps the state in registers).
void sp_observe(inout uint s[16], inout uint absorb, inout uint squeeze, uint v)
{
    for (int k = 0; k < 8; k++)
        if (uint(k) == absorb)
            s[k] = v;
    absorb++;
    if (absorb == 8u) {
        p2_permute(s);
        absorb = 0u;
        squeeze = 8u;
    }
}

uint sp_sample(inout uint s[16], inout uint absorb, inout uint squeeze)
{
    if (absorb != 0u || squeeze == 0u) {
        p2_permute(s);
        absorb = 0u;
        squeeze = 8u;
    }
    squeeze--;
    uint v = 0u;
    for (int k = 0; k < 8; k++)
        if (uint(k) == squeeze)
            v = s[k];
    return v;
}

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint s[16];
    for (int k = 0; k < 16; k++)
        s[k] = st[k];
    uint absorb = st[16], squeeze = st[17];
    for (uint i = 0u; i < 4u * gs_n_obs; i++)
        sp_observe(s, absorb, squeeze, src[gs_src_word + i]);
    uint found = 0xFFFFFFFFu;
    if (gs_pow_bits > 0u) {
        // the smallest witness, as the host's search finds it: candidates
        // base + lid, the smallest passing one of a pass kept; a miss (not
        // expected below 2^24 candidates) leaves 0xFFFFFFFF, which the
        // host's replay rejects. The loop's exit reads sh_found after a
        // barrier, the same for every invocation.
        uint mask = (1u << gs_pow_bits) - 1u;
        if (lid == 0u)
            sh_found = 0xFFFFFFFFu;
        memoryBarrierShared();
        barrier();
        for (uint base = 0u; base < (1u << 24); base += uint(GS_LOCAL_SIZE)) {
            uint w = base + lid;
            uint t[16] = s;
            uint a = absorb, b = squeeze;
            sp_observe(t, a, b, bb_from_canonical(w));
            if ((bb_to_canonical(sp_sample(t, a, b)) & mask) == 0u)
                atomicMin(sh_found, w);
            memoryBarrierShared();
            barrier();
            found = sh_found;
            barrier();
            if (found != 0xFFFFFFFFu)
                break;
        }
    }
    if (lid != 0u)
        return;
    if (gs_pow_bits > 0u) {
        wit[gs_wit_word] = found;
        sp_observe(s, absorb, squeeze, bb_from_canonical(found));
        sp_sample(s, absorb, squeeze);
    }
    for (uint j = 0u; j < 4u; j++)
        dst[gs_dst_word + j] = sp_sample(s, absorb, squeeze);
    for (int k = 0; k < 16; k++)
        st[k] = s[k];
    st[16] = absorb;
    st[17] = squeeze;
}
