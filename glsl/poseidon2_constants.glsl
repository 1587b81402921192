// Poseidon2-16 BabyBear round constants, in Montgomery form. Row r of a
// full-round table is entries 16r .. 16r+15.
//
// They are uniforms, not const arrays: the runtime sets them from the C
// tables (src/hash/poseidon2_constants.h) when it links a program that uses
// them (src/gles/program.c, link_constants), so both engines read one
// source. On NVIDIA 580 the round loops index const arrays from memory the
// kernel builds for them, and the permutation ran at 1.96 G/s against 2.59
// G/s with uniforms (H200; docs/performance.md, 2026-12-01).

uniform uint P2_RC_INITIAL[64];
uniform uint P2_RC_INTERNAL[13];
uniform uint P2_RC_TERMINAL[64];
