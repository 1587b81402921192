// The zerocheck family's constraint-DAG interpreter (src/engine/gles/
// zerocheck_gles.c compiles the DAG into the bytecode run here).
//
// One invocation = one item: round 0 (ZC_EXT 0) an (x, point) pair whose
// column values come from the coset-LDE tile (base field); the multilinear
// rounds (ZC_EXT 1) an (a, X) pair whose column values are the table rows
// 2a, 2a+1 interpolated at X (extension field). The item's key (point, or
// X - 1) is lane mod gs_nkeys, so every lane always adds into the same
// output key and the per-lane accumulators can be summed by key afterwards
// (glsl/zerocheck.comp, ZC_MODE_REDUCE): two passes, no atomics.
//
// Bytecode: 4 words per instruction (op, dst, a, b), op possibly carrying a
// fused second operation and its operand (below). Operands carry their
// kind in the top two bits: 0 slot (an intermediate in the work buffer,
// see slot_word), 1 table
// column, 2 constant (base field, in aux). OP_ACC adds weight b (an
// extension element in aux) times operand a into accumulator dst
// (0 constraints, 1 LogUp numerator, 2 LogUp denominator).
//
// Variants checked offline by glslangValidator (tests/gles/test_program.c):
// @variant ZC_EXT 0
// @variant ZC_EXT 1
// @variant ZC_EXT 0; ZC_SHARED 1; ZC_LPG 16; ZC_NSLOTS 100
// @variant ZC_EXT 1; ZC_SHARED 1; ZC_LPG 4; ZC_NSLOTS 100
// @variant ZC_EXT 0; ZC_LOCAL 8
#include "ext4.glsl"
#include "grid.glsl"

#ifndef ZC_EXT
#define ZC_EXT 0
#endif

#define OP_ADD 0u
#define OP_SUB 1u
#define OP_MUL 2u
#define OP_NEG 3u
#define OP_ACC 4u
// a fused second operation on the first one's result t (zc_code.h): word 0
// holds it in bits 3-5 and its operand c in bits 6-31
#define OP2_NONE 0u
#define OP2_ADD 1u
#define OP2_SUB 2u
#define OP2_RSUB 3u
#define OP2_MUL 4u
#define OP2_ACC 5u

uint fused_operand(uint w0)
{
    return (w0 & 0xC0000000u) | ((w0 >> 6) & 0xFFFFFFu);
}

// ZC_SHARED: the intermediates live in shared memory (ZC_NSLOTS per lane,
// ZC_LPG lanes per work group) instead of the work buffer. Slots are read
// soon after the same lane wrote them; from global memory that round trip
// goes through L2 on many GPUs, shared memory answers in a few cycles. The
// work buffer then holds only the accumulators. Wide DAGs leave only a few
// lanes per work group, so on the H200 this was slower; it is opt-in
// (GLSTARK_SLOTS=shared).
#ifdef ZC_SHARED
layout(local_size_x = ZC_LPG) in;
#define ZC_LPG_U uint(ZC_LPG)
#elif defined(ZC_LOCAL)
// fewer lanes per work group than GS_LOCAL_SIZE: the dispatch time budget
// (GLSTARK_DISPATCH_MS) keeps one work group's DAG evaluations short
layout(local_size_x = ZC_LOCAL) in;
#else
layout(local_size_x = GS_LOCAL_SIZE) in;
#endif

layout(std430, binding = 0) readonly buffer Src { uint src[]; };  // LDE tile (base) or table window (EF words)
layout(std430, binding = 1) readonly buffer Aux { uvec4 aux[]; }; // bytecode, constants (4 a slot), weights
layout(std430, binding = 2) buffer Work { uint work[]; };         // slots, then per-lane accumulators
layout(std430, binding = 3) readonly buffer Eq { uvec4 eqw[]; };  // eq weight per group (x or a)

uniform uint gs_i0;        // item of lane 0
uniform uint gs_tile_base; // round 0: item at the LDE tile's start
uniform uint gs_nkeys;
uniform uint gs_grp_off;   // uvec4 offset of the group table in aux (start, end pc per group)
uniform uint gs_icnt;      // items in this dispatch; lane = group * gs_icnt + item - gs_i0
uniform uint gs_lanes;     // lanes the work buffer holds slots for
uniform uint gs_nslots;    // intermediate slots per lane
uniform uint gs_acc_off;   // word offset of the accumulators in the work buffer
uniform uint gs_const_off; // uvec4 offset of the constants in aux
uniform uint gs_w_off;     // uvec4 offset of the weights in aux
uniform uint gs_pvstride;  // round 0: words per column in the LDE tile
uniform uint gs_eq_on;     // 0: weight one (a single evaluation)
uniform uint gs_eq_lead;   // eq index (in the binding) of group gs_grp_base
uniform uint gs_grp_base;
uniform uint gs_tlead;     // rounds: EF index of column 0, row gs_row_base in the table window
uniform uint gs_tstride;   // rounds: EF elements per column in the window
uniform uint gs_row_base;  // rounds: first table row in the window
uniform uint gs_interp;    // rounds: 1 interpolate rows 2a, 2a+1 at X; 0 read row a

// Set in main before any use; the initializers only keep Mesa's compiler
// from warning that the functions below read them uninitialized.
uint lane = 0u;
uint item = 0u;

uvec4 weight(uint w)
{
    return aux[gs_w_off + w];
}

#ifndef ZC_SHARED
// Where this lane's slots live in the work buffer: each work group owns one
// contiguous block, slot-major inside it, so neighbouring lanes touch
// neighbouring words and a group's slots span n_slots x its width. Slots
// strided over every lane of the dispatch instead put each of a narrow
// group's slots on a page of its own (644 slots x 1248 lanes in keccak's
// round 0), which llvmpipe's threads paid for in TLB misses. The last
// group may be partial: its width is the lanes left, so the blocks fill
// n_slots x gs_lanes words exactly. Set in main.
uint slot_base = 0u;
uint slot_stride = 0u;

void slot_place()
{
    uint L = gl_WorkGroupSize.x, first = (lane / L) * L;
    slot_stride = min(L, gs_lanes - first);
    slot_base = first * gs_nslots + (lane - first);
}

uint slot_word(uint i) { return slot_base + i * slot_stride; }
#endif

#if ZC_EXT == 0
#ifdef ZC_SHARED
shared uint sh_slots[ZC_NSLOTS * ZC_LPG];
uint slot_ld(uint i) { return sh_slots[i * ZC_LPG_U + gl_LocalInvocationID.x]; }
void store(uint slot, uint v) { sh_slots[slot * ZC_LPG_U + gl_LocalInvocationID.x] = v; }
#else
uint slot_ld(uint i) { return work[slot_word(i)]; }
void store(uint slot, uint v) { work[slot_word(slot)] = v; }
#endif

uint fetch(uint op)
{
    uint kind = op >> 30, i = op & 0x3FFFFFFFu;
    if (kind == 0u)
        return slot_ld(i);
    if (kind == 1u)
        return src[i * gs_pvstride + (item - gs_tile_base)];
    return aux[gs_const_off + (i >> 2)][i & 3u];
}
#else
uint row0 = 0u; // set in main, as lane and item above
uint xm = 0u;

uvec4 ld_t(uint e)
{
    uint o = 4u * e;
    return uvec4(src[o], src[o + 1u], src[o + 2u], src[o + 3u]);
}

#ifdef ZC_SHARED
shared uvec4 sh_slots[ZC_NSLOTS * ZC_LPG];
uvec4 slot_ld(uint i) { return sh_slots[i * ZC_LPG_U + gl_LocalInvocationID.x]; }
void store(uint slot, uvec4 v) { sh_slots[slot * ZC_LPG_U + gl_LocalInvocationID.x] = v; }
#else
uvec4 slot_ld(uint i)
{
    uint o = 4u * slot_word(i);
    return uvec4(work[o], work[o + 1u], work[o + 2u], work[o + 3u]);
}

void store(uint slot, uvec4 v)
{
    uint o = 4u * slot_word(slot);
    work[o] = v.x;
    work[o + 1u] = v.y;
    work[o + 2u] = v.z;
    work[o + 3u] = v.w;
}
#endif

uvec4 fetch(uint op)
{
    uint kind = op >> 30, i = op & 0x3FFFFFFFu;
    if (kind == 0u)
        return slot_ld(i);
    if (kind == 1u) {
        uint e = gs_tlead + i * gs_tstride + row0;
        uvec4 v0 = ld_t(e);
        if (gs_interp == 0u)
            return v0;
        uvec4 v1 = ld_t(e + 1u);
        return bb4_add(v0, bb4_mul_base(bb4_sub(v1, v0), xm));
    }
    return uvec4(aux[gs_const_off + (i >> 2)][i & 3u], 0u, 0u, 0u);
}
#endif

void main()
{
    lane = gs_linear_id();
    if (lane >= gs_count)
        return;
    // lanes [g * gs_icnt, (g + 1) * gs_icnt) run group g's program on the
    // dispatch's items; gs_icnt is a multiple of gs_nkeys, so lane % gs_nkeys
    // is the item's key
    uint sub = lane / gs_icnt;
    item = gs_i0 + (lane - sub * gs_icnt);
    uint key = lane % gs_nkeys;
#ifndef ZC_SHARED
    slot_place();
#endif
    uvec4 range = aux[gs_grp_off + sub];
    uint grp = item / gs_nkeys;
#if ZC_EXT == 1
    row0 = gs_interp != 0u ? 2u * (grp - gs_row_base) : grp - gs_row_base;
    xm = bb_from_canonical(key + 1u);
#endif
    uvec4 acc[3];
    acc[0] = uvec4(0u);
    acc[1] = uvec4(0u);
    // the constant part of the LogUp denominators, added once per item
    acc[2] = sub == 0u ? weight(0u) : uvec4(0u);
    // The next instruction is fetched while this one runs: a lane's
    // instructions are a chain of dependent loads (the instruction, then its
    // operands), and the fetch no longer waits for the previous store
    // (round 0 on the H200: 16.3 -> 15.3 ms a keccakf-1024 proof).
    uvec4 nxt = range.x < range.y ? aux[range.x] : uvec4(0u);
    for (uint pc = range.x; pc < range.y; pc++) {
        uvec4 ins = nxt;
        nxt = aux[min(pc + 1u, range.y - 1u)];
        uint op = ins.x & 7u, op2 = (ins.x >> 3) & 7u, dst = ins.y, a = ins.z, b = ins.w;
#if ZC_EXT == 0
        if (op == OP_ACC) {
            acc[dst] = bb4_add(acc[dst], bb4_mul_base(weight(b), fetch(a)));
            continue;
        }
        uint x = fetch(a), r;
        if (op == OP_NEG) {
            r = bb_neg(x);
        } else {
            uint y = fetch(b);
            r = op == OP_ADD ? bb_add(x, y) : op == OP_SUB ? bb_sub(x, y) : bb_mul(x, y);
        }
        if (op2 == OP2_ACC) {
            acc[dst] = bb4_add(acc[dst], bb4_mul_base(weight(fused_operand(ins.x)), r));
            continue;
        }
        if (op2 != OP2_NONE) {
            uint y = fetch(fused_operand(ins.x));
            r = op2 == OP2_ADD ? bb_add(r, y) : op2 == OP2_SUB ? bb_sub(r, y) : op2 == OP2_RSUB ? bb_sub(y, r) : bb_mul(r, y);
        }
#else
        if (op == OP_ACC) {
            acc[dst] = bb4_add(acc[dst], bb4_mul(weight(b), fetch(a)));
            continue;
        }
        uvec4 x = fetch(a), r;
        if (op == OP_NEG) {
            r = bb4_neg(x);
        } else {
            uvec4 y = fetch(b);
            r = op == OP_ADD ? bb4_add(x, y) : op == OP_SUB ? bb4_sub(x, y) : bb4_mul(x, y);
        }
        if (op2 == OP2_ACC) {
            acc[dst] = bb4_add(acc[dst], bb4_mul(weight(fused_operand(ins.x)), r));
            continue;
        }
        if (op2 != OP2_NONE) {
            uvec4 y = fetch(fused_operand(ins.x));
            r = op2 == OP2_ADD ? bb4_add(r, y) : op2 == OP2_SUB ? bb4_sub(r, y) : op2 == OP2_RSUB ? bb4_sub(y, r) : bb4_mul(r, y);
        }
#endif
        store(dst, r);
    }
    uvec4 e = gs_eq_on != 0u ? eqw[gs_eq_lead + grp - gs_grp_base] : uvec4(BB_ONE, 0u, 0u, 0u);
    uint base = gs_acc_off + 12u * lane;
    for (uint k = 0u; k < 3u; k++) {
        uint o = base + 4u * k;
        uvec4 s = bb4_add(uvec4(work[o], work[o + 1u], work[o + 2u], work[o + 3u]), bb4_mul(e, acc[k]));
        work[o] = s.x;
        work[o + 1u] = s.y;
        work[o + 2u] = s.z;
        work[o + 3u] = s.w;
    }
}
