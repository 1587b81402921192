/* The CPU engine's interpreter of a compiled constraint program
 * (src/engine/zc_code.h) in the extension field, on GS_ZC_LANES evaluation
 * points at once. Values are stored by component: an operand is a block of
 * 4 x GS_ZC_LANES words, component k of lane j at [k * GS_ZC_LANES + j], so
 * every instruction is one loop over lanes, or one 16-lane vector operation
 * per component (AVX-512, AVX2 in two halves or Advanced SIMD in four:
 * zc_lanes_x16.inc). Interpreting the program once per 16 points instead of walking
 * the DAG once per point removes the per-node dispatch from the inner loop
 * and lets the arithmetic use vector units; slots recycled by liveness keep
 * the working set small. Both implementations give identical words.
 * Round 0 runs the base-field form (gs_zc_lanes_run_base), the multilinear
 * rounds the extension form. */
#ifndef GS_ENGINE_CPU_ZC_LANES_H
#define GS_ENGINE_CPU_ZC_LANES_H

#include <stdint.h>

#include "engine/zc_code.h"
#include "field/ext4.h"

struct gs_cpu_kernels; /* kernels.h */

#define GS_ZC_LANES 16
#define GS_ZC_BLOCK (4 * GS_ZC_LANES) /* words per operand block */

/* Lane j of an operand block, and storing into it. */
static inline bb4_t gs_zc_lane_get(const bb_t *blk, int j)
{
    bb4_t r = {{blk[j], blk[GS_ZC_LANES + j], blk[2 * GS_ZC_LANES + j], blk[3 * GS_ZC_LANES + j]}};
    return r;
}

static inline void gs_zc_lane_put(bb_t *blk, int j, bb4_t v)
{
    for (int k = 0; k < 4; k++)
        blk[k * GS_ZC_LANES + j] = v.c[k];
}

typedef struct gs_zc_lanes {
    const gs_zc_code *code;
    const struct gs_cpu_kernels *k; /* the arithmetic: its zc_run/zc_run_base, or plain C where NULL */
    bb_t *work;    /* n_slots blocks */
    bb_t *consts;  /* one block per constant operand (constant c as an extension element in every lane) */
    uint32_t n_consts;
} gs_zc_lanes;

/* Scratch for running `code` (group 0 of it: compile with k = 1) with the
 * arithmetic of the kernel table k (refused with -1 where k is NULL: a set
 * this CPU lacks, gs_cpu_kernels_of). Returns 0, or -1 (nothing to free). */
int gs_zc_lanes_init(gs_zc_lanes *lp, const gs_zc_code *code, const struct gs_cpu_kernels *k);
void gs_zc_lanes_free(gs_zc_lanes *lp);

/* Runs the program with table column c's lane values in the block at
 * cols + c * GS_ZC_BLOCK; acc receives the three accumulators (constraints,
 * LogUp numerator, LogUp denominator) of each lane, as blocks. */
void gs_zc_lanes_run(gs_zc_lanes *lp, const bb_t *cols, bb_t acc[3][GS_ZC_BLOCK]);

/* The same program on base-field values (round 0's points): table column c's
 * GS_ZC_LANES lane values are the words at cols + c * col_stride; slots and
 * constants hold one word per lane; acc as above (extension blocks). */
void gs_zc_lanes_run_base(gs_zc_lanes *lp, const bb_t *cols, size_t col_stride, bb_t acc[3][GS_ZC_BLOCK]);

#endif
