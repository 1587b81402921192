// One transcript step on the engine (src/engine/hash_ops.h, gs_sponge_step):
// the duplex sponge of src/common/transcript.c observes gs_n_obs extension
// elements, searches a proof-of-work witness when gs_pow_bits > 0, then
// samples one extension element, on the state kept in binding 0 (16 cells in
// Montgomery form, then the absorb and sample positions).
//
// Invocation 0 runs the step: a short serial chain of permutations, which
// lets the rounds of a sumcheck follow each other without the host. The
// search (SPONGE_SEARCH 1) tries SPONGE_GROUP candidates at a time, one per
// invocation, from the state invocation 0 left in shared memory: a serial
// search cost ~0.4 ms per 5-bit step on an H200, and a whole work group
// repeating the serial part cost 1.4 ms per step on llvmpipe.
// @variant SPONGE_SEARCH 0
// @variant SPONGE_SEARCH 1
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"

#ifndef SPONGE_SEARCH
#define SPONGE_SEARCH 0
#endif
#define SPONGE_GROUP 32

#if SPONGE_SEARCH
layout(local_size_x = SPONGE_GROUP) in;
shared uint sh_state[17];
shared uint sh_found;
#else
layout(local_size_x = 1) in;
#endif

layout(std430, binding = 0) buffer State { uint st[]; };
layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) buffer Dst { uint dst[]; };
layout(std430, binding = 3) buffer Wit { uint wit[]; };

uniform uint gs_src_word; // first observed word in binding 1
uniform uint gs_n_obs;    // extension elements observed
uniform uint gs_pow_bits; // proof-of-work bits (0: none)
uniform uint gs_wit_word; // the witness's word in binding 3
uniform uint gs_dst_word; // the sampled element's first word in binding 2

// Each p2_permute call site is a whole permutation in the compiled program,
// and NVIDIA's driver took ~3 ms per site to load the program at every
// process start (8.6 and 25 ms with 3 and 6 sites): one site without a
// search, three with one. Cells are
// chosen by constant indices (keeps the state in registers).
void sp_put(inout uint s[16], uint at, uint v)
{
    for (int k = 0; k < 8; k++)
        if (uint(k) == at)
            s[k] = v;
}

uint sp_get(uint s[16], uint at)
{
    uint v = 0u;
    for (int k = 0; k < 8; k++)
        if (uint(k) == at)
            v = s[k];
    return v;
}

// Transcript ops k0 <= k < k1 of the step on (s, absorb, squeeze): ops below
// nobs observe word k of `obs` (the last one, with a search, the witness),
// the others sample; samples from `first_out` on are the challenge's words.
void sp_run(inout uint s[16], inout uint absorb, inout uint squeeze, uint k0, uint k1, uint nobs, uint first_out,
            uint witness)
{
    for (uint k = k0; k < k1; k++) {
        bool obs = k < nobs;
        if (obs) {
            uint v = SPONGE_SEARCH != 0 && k + 1u == nobs ? witness : src[gs_src_word + k];
            sp_put(s, absorb, v);
            absorb++;
        }
        if (obs ? absorb == 8u : (absorb != 0u || squeeze == 0u)) {
            p2_permute(s);
            absorb = 0u;
            squeeze = 8u;
        }
        if (!obs) {
            squeeze--;
            if (k >= first_out)
                dst[gs_dst_word + k - first_out] = sp_get(s, squeeze);
        }
    }
}

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint s[16];
    uint absorb = 0u, squeeze = 0u;
    // ops: the observed words, with a search the witness and the sample
    // that checks it, then the challenge's four samples
    uint nobs = 4u * gs_n_obs + uint(SPONGE_SEARCH);
    uint first_out = nobs + uint(SPONGE_SEARCH);
    if (lid == 0u) {
        for (int k = 0; k < 16; k++)
            s[k] = st[k];
        absorb = st[16];
        squeeze = st[17];
    }
    uint found = 0xFFFFFFFFu;
#if SPONGE_SEARCH
    if (lid == 0u)
        sp_run(s, absorb, squeeze, 0u, 4u * gs_n_obs, nobs, first_out, 0u);
    // the smallest witness, as the host's search finds it: candidates
    // base + lid, the smallest passing one of a pass kept; a miss (not
    // expected below 2^24 candidates) leaves 0xFFFFFFFF, which the host's
    // replay rejects. The loop's exit reads sh_found after a barrier, the
    // same for every invocation. Observing w then sampling is one
    // permutation whatever the absorb position: the sample is cell 7.
    if (lid == 0u) {
        for (int k = 0; k < 16; k++)
            sh_state[k] = s[k];
        sh_state[16] = absorb;
        sh_found = 0xFFFFFFFFu;
    }
    memoryBarrierShared();
    barrier();
    uint mask = (1u << gs_pow_bits) - 1u;
    for (uint base = 0u; base < (1u << 24); base += uint(SPONGE_GROUP)) {
        uint t[16];
        for (int k = 0; k < 16; k++)
            t[k] = sh_state[k];
        sp_put(t, sh_state[16], bb_from_canonical(base + lid));
        p2_permute(t);
        if ((bb_to_canonical(t[7]) & mask) == 0u)
            atomicMin(sh_found, base + lid);
        memoryBarrierShared();
        barrier();
        found = sh_found;
        barrier();
        if (found != 0xFFFFFFFFu)
            break;
    }
    if (lid != 0u)
        return;
    wit[gs_wit_word] = found;
    sp_run(s, absorb, squeeze, 4u * gs_n_obs, first_out + 4u, nobs, first_out, bb_from_canonical(found));
#else
    sp_run(s, absorb, squeeze, 0u, first_out + 4u, nobs, first_out, 0u);
#endif
    for (int k = 0; k < 16; k++)
        st[k] = s[k];
    st[16] = absorb;
    st[17] = squeeze;
}
