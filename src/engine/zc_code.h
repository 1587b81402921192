/* The constraint DAG compiled for an interpreter: the program both engines
 * run in the zerocheck rounds (the GLES engine in glsl/zerocheck_eval.comp,
 * the CPU engine in src/engine/cpu/zc_lanes.c).
 *
 * Only nodes that reach a constraint or an interaction are kept; variables,
 * selectors, constants and public values become operands (no instruction);
 * computed nodes get slots recycled by liveness; every constraint / count /
 * message use becomes an accumulate instruction with a precomputed extension
 * weight (λ^i, eq3b·norm, eq3b·β^j), and the constant part of the LogUp
 * denominators, Σ eq3b β^len (bus+1), is weight 0: the denominators'
 * starting value.
 *
 * Instructions are 4 words (op, dst, a, b). Operands carry their kind in
 * the top two bits: slot, table column (the zerocheck table's column: 3
 * selectors, then [local, next] per trace column per part) or constant
 * (base field). GS_ZC_OP_ACC adds weight b times operand a into accumulator
 * dst (0 constraints, 1 LogUp numerator, 2 LogUp denominator).
 *
 * Fused instructions: where a result's only reader is the next instruction,
 * the two are one instruction (an interpreter's cost is per instruction:
 * fetch, decode, operand kinds; the arithmetic is the smaller part). Word 0
 * then also holds a second operation and its other operand c: the first
 * operation's result t (never stored) becomes t + c, t - c, c - t, t * c,
 * or is added into accumulator dst with weight c. */
#ifndef GS_ENGINE_ZC_CODE_H
#define GS_ENGINE_ZC_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/zerocheck_ops.h"
#include "util/error.h"

/* the numbers are shared with glsl/zerocheck_eval.comp */
enum { GS_ZC_OP_ADD = 0, GS_ZC_OP_SUB = 1, GS_ZC_OP_MUL = 2, GS_ZC_OP_NEG = 3, GS_ZC_OP_ACC = 4 };
#define GS_ZC_OPND_SLOT 0u
#define GS_ZC_OPND_COL (1u << 30)
#define GS_ZC_OPND_CONST (2u << 30)
#define GS_ZC_OPND_INDEX(op) ((op) & 0x3FFFFFFFu)
#define GS_ZC_OPND_KIND(op) ((op) & 0xC0000000u)

/* Word 0 of an instruction: bits 0-2 the operation, 3-5 the fused second
 * operation (GS_ZC_OP2_NONE: none), 6-29 the index of c and 30-31 its kind
 * (as an operand word's top bits); for GS_ZC_OP2_ACC, c is a weight index. */
enum {
    GS_ZC_OP2_NONE = 0,
    GS_ZC_OP2_ADD = 1,  /* t + c */
    GS_ZC_OP2_SUB = 2,  /* t - c */
    GS_ZC_OP2_RSUB = 3, /* c - t */
    GS_ZC_OP2_MUL = 4,  /* t * c */
    GS_ZC_OP2_ACC = 5   /* accumulator dst += weight c * t */
};
#define GS_ZC_C_INDEX_MAX 0xFFFFFFu
#define GS_ZC_INS_OP(w0) ((w0) & 7u)
#define GS_ZC_INS_OP2(w0) (((w0) >> 3) & 7u)
/* c as an operand word (kind in the top bits, index below) */
#define GS_ZC_INS_C(w0) (((w0) & 0xC0000000u) | (((w0) >> 6) & GS_ZC_C_INDEX_MAX))

static inline uint32_t gs_zc_ins_word0(uint32_t op, uint32_t op2, uint32_t c)
{
    return op | op2 << 3 | (GS_ZC_OPND_INDEX(c) & GS_ZC_C_INDEX_MAX) << 6 | GS_ZC_OPND_KIND(c);
}

/* Where instruction `in` reads operand words: their positions (0 means c
 * in word 0, 2 a, 3 b) into pos; returns their count. A weight is not an
 * operand. */
static inline int gs_zc_ins_operand_places(const uint32_t *in, int pos[3])
{
    uint32_t op = GS_ZC_INS_OP(in[0]), op2 = GS_ZC_INS_OP2(in[0]);
    int n = 0;
    pos[n++] = 2;
    if (op != GS_ZC_OP_ACC && op != GS_ZC_OP_NEG)
        pos[n++] = 3;
    if (op2 != GS_ZC_OP2_NONE && op2 != GS_ZC_OP2_ACC)
        pos[n++] = 0;
    return n;
}

/* Operand word at place p of `in` (gs_zc_ins_operand_places), and setting it. */
static inline uint32_t gs_zc_ins_operand(const uint32_t *in, int p)
{
    return p == 0 ? GS_ZC_INS_C(in[0]) : in[p];
}

static inline void gs_zc_ins_set_operand(uint32_t *in, int p, uint32_t opnd)
{
    if (p == 0)
        in[0] = gs_zc_ins_word0(GS_ZC_INS_OP(in[0]), GS_ZC_INS_OP2(in[0]), opnd);
    else
        in[p] = opnd;
}

/* Groups a DAG's uses may be split into (gs_zc_compile). */
#define GS_ZC_MAX_GROUPS 256u

typedef struct gs_zc_code {
    uint32_t *aux; /* instructions (4 words each), group table (start, end, 0, 0 per group),
                      constants (padded to 4), weights (4 words each) */
    size_t aux_words;
    uint32_t n_instr, grp_off, const_off, w_off, n_slots; /* offsets in 4-word units */
    uint32_t n_groups, max_group_instr;
    uint32_t *col_map; /* the n_cols table columns the program reads, ascending */
    uint32_t n_cols;
    int numbering;     /* how column operands are numbered (GS_ZC_COLS_*) */
    uint32_t n_folded; /* GS_ZC_COLS_FOLDED: the folded tables' column count */
} gs_zc_code;

/* How a program's column operands are numbered. */
enum {
    GS_ZC_COLS_TABLE = 0,  /* table columns (gs_zc_table_cols numbering) */
    GS_ZC_COLS_READ = 1,   /* places in the program's col_map */
    GS_ZC_COLS_FOLDED = 2  /* places in gs_zc_folded_layout: the folded tables' columns */
};

void gs_zc_code_free(gs_zc_code *c);

/* Compiles trace t's DAG with the weights w into bytecode, its uses split
 * into up to k groups (each group a program of its own: the nodes its uses
 * need, recomputed where groups share them), so that one evaluation's latency
 * on a GPU is that of the longest group. numbering (GS_ZC_COLS_*) numbers the
 * column operands: as table columns; as places in col_map, for a caller
 * that materializes column values (round 0's coset values) and makes only
 * the columns the program reads (keccakf: 2,859 of 5,269); or as the folded
 * tables' columns (the multilinear rounds). */
glstark_status gs_zc_compile(const gs_zc_trace *t, const gs_zc_weights *w, uint32_t k, int numbering, gs_zc_code *out,
                             gs_error *err);

/* gs_zc_compile through a cache of recent results (*cache created on first
 * use; a rounds' worth of calls compile once). *out is the caller's copy. */
typedef struct gs_zc_cache gs_zc_cache;
glstark_status gs_zc_compile_cached(gs_zc_cache **cache, const gs_zc_trace *t, const gs_zc_weights *w, uint32_t k,
                                    int numbering, gs_zc_code *out, gs_error *err);
void gs_zc_cache_free(gs_zc_cache *c);
/* Lookups that found a program and compiles (those ahead included), and the
 * entries held (all 0 for a cache not made yet). */
void gs_zc_cache_counts(gs_zc_cache *c, uint64_t *hits, uint64_t *misses, size_t *entries);

/* A program the proof will ask for: its group count and column numbering. */
typedef struct gs_zc_variant {
    uint32_t k;
    int numbering;
} gs_zc_variant;
#define GS_ZC_AHEAD_MAX 4

/* Starts compiling every (trace, variant) the cache lacks on a thread of
 * its own (at most GS_ZC_AHEAD_MAX variants, in the order given), so that
 * the proof finds them there. The cache's next use waits for it, and so
 * does gs_zc_cache_wait, which the caller must reach before the traces'
 * DAGs, widths or public values change or go (their buffers are not read).
 * Optional: without memory or a thread nothing starts. */
void gs_zc_cache_compile_ahead(gs_zc_cache **cache, const gs_zc_trace *traces, uint32_t n, const gs_zc_variant *v,
                               uint32_t nv);
void gs_zc_cache_wait(gs_zc_cache *c);

/* Whether code, compiled for trace t's DAG, holds the weight table w makes
 * (a program kept from an earlier call can then run this call's sums).
 * 0 also when the host has no memory to tell. */
int gs_zc_code_weights_match(const gs_zc_trace *t, const gs_zc_weights *w, const gs_zc_code *code);

#endif
