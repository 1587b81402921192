// Poseidon2-16 over BabyBear, the permutation of src/hash/poseidon2.c
// (docs/protocol.md, 'Poseidon2 and the sponge'), for compute kernels. Uses babybear.glsl
// (bb_add, bb_sub, bb_mul, bb_double, bb_from_canonical, bb_to_canonical;
// Montgomery form, same words as the C) and the round constants (uniforms the
// runtime sets from the C tables).
// Tested against the C permutation by tests/hash/test_poseidon2_gpu.c.
//
// A state is uint s[16] in Montgomery form. The permutation is
//   ME; 4 x {add RC, x^7 on all cells, ME}; 13 x {add RC to s[0], x^7 on s[0], MI};
//   4 x {add RC, x^7 on all cells, ME}
// with ME = MDSMat4 on each group of 4 cells plus the column sums of the groups, and
// MI(s)_i = sum(s) + V_i s_i, V = [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/2^8, 1/4, 1/8,
// 1/2^27, -1/2^8, -1/16, -1/2^27]. Rounds are loops reading the constant tables (keeps
// register pressure and code size down on small GPUs; drivers may unroll).

#include "babybear.glsl"
#include "poseidon2_constants.glsl"

uint p2_sbox(uint x)
{
    uint x2 = bb_mul(x, x);
    uint x3 = bb_mul(x2, x);
    uint x4 = bb_mul(x2, x2);
    return bb_mul(x3, x4);
}

// ME: M4 on each 4-cell group (output i = s + x_i + 2 x_(i+1 mod 4), s the group
// sum; computed from shared partial sums, 11 additions instead of 15), then
// every cell adds the sum of its column across the 4 groups.
void p2_external(inout uint s[16])
{
    for (int b = 0; b < 16; b += 4) {
        uint x0 = s[b], x1 = s[b + 1], x2 = s[b + 2], x3 = s[b + 3];
        uint t01 = bb_add(x0, x1), t23 = bb_add(x2, x3);
        uint t0123 = bb_add(t01, t23);
        uint t01123 = bb_add(t0123, x1), t01233 = bb_add(t0123, x3);
        s[b] = bb_add(t01123, t01);
        s[b + 1] = bb_add(t01123, bb_double(x2));
        s[b + 2] = bb_add(t01233, t23);
        s[b + 3] = bb_add(t01233, bb_double(x0));
    }
    for (int c = 0; c < 4; c++) {
        uint t = bb_add(bb_add(s[c], s[4 + c]), bb_add(s[8 + c], s[12 + c]));
        s[c] = bb_add(s[c], t);
        s[4 + c] = bb_add(s[4 + c], t);
        s[8 + c] = bb_add(s[8 + c], t);
        s[12 + c] = bb_add(s[12 + c], t);
    }
}

// Multipliers x -> x * 2^-k in Montgomery form are the words 2^(32-k) mod p.
const uint P2_INV2 = 0x07FFFFFFu;    // 2^31 mod p: x/2
const uint P2_INV4 = 0x40000000u;    // x/4
const uint P2_INV8 = 0x20000000u;    // x/8
const uint P2_INV16 = 0x10000000u;   // x/16
const uint P2_INV256 = 0x01000000u;  // x/2^8
const uint P2_INV2_27 = 0x00000020u; // x/2^27

void p2_internal(inout uint s[16])
{
    uint t = s[0];
    for (int i = 1; i < 16; i++)
        t = bb_add(t, s[i]);
    s[0] = bb_sub(t, bb_double(s[0]));
    s[1] = bb_add(t, s[1]);
    s[2] = bb_add(t, bb_double(s[2]));
    s[3] = bb_add(t, bb_mul(s[3], P2_INV2));
    s[4] = bb_add(t, bb_add(bb_double(s[4]), s[4]));
    s[5] = bb_add(t, bb_double(bb_double(s[5])));
    s[6] = bb_sub(t, bb_mul(s[6], P2_INV2));
    s[7] = bb_sub(t, bb_add(bb_double(s[7]), s[7]));
    s[8] = bb_sub(t, bb_double(bb_double(s[8])));
    s[9] = bb_add(t, bb_mul(s[9], P2_INV256));
    s[10] = bb_add(t, bb_mul(s[10], P2_INV4));
    s[11] = bb_add(t, bb_mul(s[11], P2_INV8));
    s[12] = bb_add(t, bb_mul(s[12], P2_INV2_27));
    s[13] = bb_sub(t, bb_mul(s[13], P2_INV256));
    s[14] = bb_sub(t, bb_mul(s[14], P2_INV16));
    s[15] = bb_sub(t, bb_mul(s[15], P2_INV2_27));
}

void p2_permute(inout uint s[16])
{
    p2_external(s);
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++)
            s[i] = p2_sbox(bb_add(s[i], P2_RC_INITIAL[16 * r + i]));
        p2_external(s);
    }
    for (int r = 0; r < 13; r++) {
        s[0] = p2_sbox(bb_add(s[0], P2_RC_INTERNAL[r]));
        p2_internal(s);
    }
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++)
            s[i] = p2_sbox(bb_add(s[i], P2_RC_TERMINAL[16 * r + i]));
        p2_external(s);
    }
}

// Sponge (PaddingFreeSponge 16/8/8): start from s = 16 zeros, then for each block of
// n <= 8 inputs overwrite s[0..n) and permute; the digest is s[0..8). A short last
// block leaves s[n..8) as they were. Zero inputs: no permutation, digest 0.
void p2_absorb_block(inout uint s[16], uint blk[8], uint n)
{
    for (uint i = 0u; i < n; i++)
        s[i] = blk[i];
    p2_permute(s);
}

// 2-to-1 compression: first 8 cells of permute(l || r), no feed-forward.
void p2_compress(uint l[8], uint r[8], out uint o[8])
{
    uint s[16];
    for (int i = 0; i < 8; i++) {
        s[i] = l[i];
        s[8 + i] = r[i];
    }
    p2_permute(s);
    for (int i = 0; i < 8; i++)
        o[i] = s[i];
}

// Proof of work: does canonical witness w pass for the transcript sponge state st
// with absorb_idx (0..7) pending observes? (Write w into cell absorb_idx, permute,
// test the low `bits` bits of canonical(cell 7).) Matches gs_pow_witness_ok in C.
bool p2_pow_ok(uint st[16], uint absorb_idx, uint bits, uint w)
{
    uint s[16] = st;
    s[absorb_idx] = bb_from_canonical(w);
    p2_permute(s);
    uint mask = bits >= 32u ? 0xFFFFFFFFu : (1u << bits) - 1u;
    return (bb_to_canonical(s[7]) & mask) == 0u;
}
