/* The reduction family: the bulk work of the stacked opening reduction
 * (docs/protocol.md, 'Stacked reduction'; src/prove/stacked_reduction.c drives it).
 *
 * The reduction proves Σ_{(Z,x) ∈ D × H_{n_stack}} Σ_c q_c(Z,x)·W_c(Z,x)
 * for the stacked columns q_c of every commitment. Its heavy steps are:
 *   round 0   per trace-column slice, two eq-weighted sums of the slice's
 *             size-N blocks (N = 2^l_skip) — the host turns them into the
 *             univariate round polynomial;
 *   PLE fold  every stacked column evaluated at Z = u_0 on each block, giving
 *             a multilinear EF table of 2^n_stack entries per column;
 *   rounds    a product sumcheck Σ_c Σ_x Q_c[x]·W_c[x] over EF tables:
 *             evaluations at 1 and 2 of each round polynomial, then folding.
 *
 * Conventions: matrices are column-major bb_t (Montgomery), extension
 * tables column-major bb4_t. Small inputs (slice lists, eq tables, Lagrange
 * weights) are host arrays; an engine uploads them itself. Variable order of
 * the multilinear tables: entry index bit 0 is the first round's variable. */
#ifndef GS_ENGINE_REDUCTION_OPS_H
#define GS_ENGINE_REDUCTION_OPS_H

#include "common/stack_layout.h"
#include "engine/challenge.h"
#include "engine/engine.h"


/* A set of EF columns inside a buffer: column c holds `len` bb4_t starting
 * at element (bb4_t units) offset + c*stride. */
typedef struct gs_red_cols {
    gs_buf *buf;
    size_t offset;
    size_t stride;
    uint32_t ncols;
} gs_red_cols;

/* One scaled copy of an EF run: dst[dst + x] = scale · src[src + x] for
 * x < 2^log_len (offsets in bb4_t elements). */
typedef struct gs_red_copy {
    uint64_t dst, src;
    uint32_t log_len;
    bb4_t scale;
} gs_red_copy;

typedef struct gs_reduction_ops {
    /* Round-0 block sums. Matrix: `height` rows, column-major. For slice s
     * with nt = max(h - l_skip, 0), base = col*height + row, N = 2^l_skip:
     *   out[s][0][z] = Σ_{x < 2^nt} eq[nt][x]       · M[base + x·N + z]
     *   out[s][1][z] = Σ_{x < 2^nt} eq[nt][prev(x)] · M[base + x·N + z]
     * with prev(x) = x − 1 mod 2^nt, for z < N. eq_tables holds the table for
     * every nt ≤ max_nt, the one for nt at offset 2^nt − 1 (2^nt entries).
     * out: host array of num_slices·2·N bb4_t. An engine may fill it only
     * at its next read (engine/read_later.h): it must stay valid, and the
     * caller calls gs_engine_read_flush before reading it (or
     * gs_engine_read_drop after a failure). */
    glstark_status (*block_sums)(gs_engine *eng, const gs_buf *matrix, uint32_t height, uint32_t l_skip,
                                 const gs_red_slice *slices, uint32_t num_slices, const bb4_t *eq_tables,
                                 uint32_t max_nt, bb4_t *out);

    /* PLE fold: out column c, entry x (x < height/N) =
     *   Σ_{z<N} M[(col0 + c)·height + x·N + z] · lag[z]     for c < width,
     * matrix columns col0 .. col0 + width − 1. lag: host array of N bb4_t.
     * out must have width columns of height/N. With l_skip + 1 and the
     * weights lag[z]·(1 − u), lag[z]·u it gives the PLE fold already folded
     * once by u (the stacked reduction's lean first round). */
    glstark_status (*fold_ple)(gs_engine *eng, const gs_buf *matrix, uint32_t col0, uint32_t width, uint32_t height,
                               uint32_t l_skip, const bb4_t *lag, const gs_red_cols *out);

    /* One product-sumcheck round over column pairs (q_c, w_c) of length len
     * (even): s[0] = Σ_c Σ_{y<len/2} q[2y+1]·w[2y+1],
     *         s[1] = Σ_c Σ_y (2q[2y+1] − q[2y])·(2w[2y+1] − w[2y]),
     * returned to the host or left in an engine buffer (engine/challenge.h). */
    glstark_status (*round_evals)(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len,
                                  gs_sums_dst out);

    /* Folds both tables in place: v[y] = v[2y] + u·(v[2y+1] − v[2y]), y < len/2;
     * u from the host or from an engine buffer. */
    glstark_status (*fold)(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len, gs_chal u);

    /* Scaled copies from an EF buffer into another (the weight tables: every
     * slice's table is a multiple of a few shared ones, so only those cross
     * from the host). dst runs must not overlap. copies: host array, in any
     * order (consecutive copies of one length and nearby dst go together). */
    glstark_status (*scaled_copies)(gs_engine *eng, gs_buf *dst, const gs_buf *src, const gs_red_copy *copies,
                                    size_t n);
} gs_reduction_ops;

/* Argument check shared by the engines: every copy inside both buffers. */
glstark_status gs_red_copies_check(gs_engine *eng, const gs_buf *dst, const gs_buf *src, const gs_red_copy *copies,
                                   size_t n);

/* The CPU implementation (src/engine/cpu/reduction_cpu.c). */
extern const gs_reduction_ops gs_cpu_reduction_ops;

#endif
