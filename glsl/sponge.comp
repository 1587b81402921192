// One transcript step on the engine (src/engine/hash_ops.h, gs_sponge_step):
// the duplex sponge of src/common/transcript.c observes gs_n_obs extension
// elements, searches a proof-of-work witness when gs_pow_bits > 0, then
// samples one extension element, on the state kept in binding 0 (16 cells in
// Montgomery form, then the absorb and sample positions).
//
// Invocation 0 runs the step's transcript ops, a short serial chain of
// permutations, which lets the rounds of a sumcheck follow each other
// without the host. A proof-of-work search tries SPONGE_GROUP candidates at
// a time, one per invocation, from the state invocation 0 left in shared
// memory (a serial search cost ~0.4 ms per 5-bit step on an H200, and a
// whole work group repeating the serial part 1.4 ms per step on llvmpipe).
//
// The program has one p2_permute call site: each site is a whole unrolled
// permutation, and NVIDIA's driver took ~3 ms per site to load a program at
// every process start (a first version with two programs of three and six
// sites added ~11 ms and ~4 ms of first dispatches to a first proof). So one
// loop runs every permutation: a serial op of invocation 0, or a search
// pass of all. Its control flow depends on uniforms and on sh_found read
// after a barrier only, the same in every invocation, so the barriers are
// in uniform control flow.
#include "babybear.glsl"
#include "poseidon2_constants.glsl"
#include "poseidon2.glsl"

#define SPONGE_GROUP 32

layout(local_size_x = SPONGE_GROUP) in;

shared uint sh_state[17]; // the 16 cells and the absorb position after the observes
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

const uint NONE = 0xFFFFFFFFu;

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint s[16];
    uint absorb = 0u, squeeze = 0u;
    if (lid == 0u) {
        for (int k = 0; k < 16; k++)
            s[k] = st[k];
        absorb = st[16];
        squeeze = st[17];
    }
    // Serial ops k: the observed words (k < n_words); with a search, the
    // witness (observed) and the sample that checks it; then the
    // challenge's four samples. Phase 0: ops before the search; 1: search
    // passes; 2: the ops after it.
    bool pow = gs_pow_bits > 0u;
    uint n_words = 4u * gs_n_obs;
    uint n_observed = n_words + (pow ? 1u : 0u);
    uint first_out = n_observed + (pow ? 1u : 0u);
    uint total = first_out + 4u;
    uint mask = pow ? (1u << gs_pow_bits) - 1u : 0u;
    uint k = 0u, phase = 0u, base = 0u, found = NONE;
    for (;;) {
        if (phase == 0u && k == n_words) {
            if (pow) {
                if (lid == 0u) {
                    for (int c = 0; c < 16; c++)
                        sh_state[c] = s[c];
                    sh_state[16] = absorb;
                    sh_found = NONE;
                }
                memoryBarrierShared();
                barrier();
                phase = 1u;
            } else {
                phase = 2u;
            }
        }
        if (phase == 2u && k == total)
            break;
        bool search = phase == 1u, observe = false, perm = false;
        uint t[16];
        if (search) {
            // candidate w: observing it then sampling is one permutation
            // whatever the absorb position, and the sample is cell 7
            for (int c = 0; c < 16; c++)
                t[c] = sh_state[c];
            sp_put(t, sh_state[16], bb_from_canonical(base + lid));
            perm = true;
        } else if (lid == 0u) {
            observe = k < n_observed;
            if (observe) {
                sp_put(s, absorb, k < n_words ? src[gs_src_word + k] : bb_from_canonical(found));
                absorb++;
                perm = absorb == 8u;
            } else {
                perm = absorb != 0u || squeeze == 0u;
            }
            t = s;
        }
        if (perm)
            p2_permute(t);
        if (search) {
            if ((bb_to_canonical(t[7]) & mask) == 0u)
                atomicMin(sh_found, base + lid);
            memoryBarrierShared();
            barrier();
            found = sh_found;
            barrier();
            // a miss (not expected below 2^24 candidates) leaves NONE as the
            // witness, which the host's replay rejects
            base += uint(SPONGE_GROUP);
            if (found != NONE || base >= (1u << 24))
                phase = 2u;
            continue;
        }
        if (lid == 0u) {
            s = t;
            if (perm) {
                absorb = 0u;
                squeeze = 8u;
            }
            if (!observe) {
                squeeze--;
                if (k >= first_out)
                    dst[gs_dst_word + k - first_out] = sp_get(s, squeeze);
            }
        }
        k++;
    }
    if (lid != 0u)
        return;
    if (pow)
        wit[gs_wit_word] = found;
    for (int c = 0; c < 16; c++)
        st[c] = s[c];
    st[16] = absorb;
    st[17] = squeeze;
}
