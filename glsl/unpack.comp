// Widens a batch of upload slots that the host packed narrow (src/engine/
// gles/upload_pack.h), reading them from the upload ring itself (host
// memory the GPU maps), so the bus carries each slot at its own width.
// Value j of slot k (k = i >> gs_slot_log: a batch is up to 8 slots of 2^
// gs_slot_log words, consecutive pieces of one write, only the last one
// short) is bits [(j w) mod 32, + w) of the slot's packed word (j w) / 32,
// w = 2^gs_width_log[k] in {1, 8, 16, 32}; it lands at dst[gs_lead + i].
#include "grid.glsl"

layout(local_size_x = GS_LOCAL_SIZE) in;

layout(std430, binding = 0) readonly buffer Ring { uint ring[]; };
layout(std430, binding = 1) writeonly buffer Words { uint dst[]; };

uniform uint gs_slot_log;
uniform uint gs_width_log[8]; // 0, 3, 4 or 5
uniform uint gs_src_word[8];  // each slot's first word in the ring
uniform uint gs_lead;         // the batch's first word in dst's binding (binding offsets are aligned)

void main()
{
    uint i = gs_linear_id();
    if (i >= gs_count)
        return;
    uint k = i >> gs_slot_log;
    uint j = i & ((1u << gs_slot_log) - 1u);
    uint wl = gs_width_log[k];
    uint per_log = 5u - wl; // values per packed word, log2
    uint word = ring[gs_src_word[k] + (j >> per_log)];
    uint shift = (j & ((1u << per_log) - 1u)) << wl;
    uint mask = wl == 5u ? 0xFFFFFFFFu : (1u << (1u << wl)) - 1u;
    dst[gs_lead + i] = (word >> shift) & mask;
}
