/* Engine family "gkr": the kernels of the LogUp fractional-sum GKR
 * (docs/protocol.md, 'LogUp GKR'). All arrays are EF (bb4_t) buffers.
 *
 * The protocol (src/prove/gkr.c) keeps every layer of the fraction tree
 * resident and reads back only the three round values per sumcheck round and
 * the four layer claims. With the round values left on the engine and the
 * challenges sampled there (engine/challenge.h), a layer's rounds come back
 * with its claims: R host syncs in all instead of O(R^2). */
#ifndef GS_ENGINE_GKR_OPS_H
#define GS_ENGINE_GKR_OPS_H

#include "engine/challenge.h"
#include "engine/zc_trace.h"

typedef struct gs_gkr_ops {
    /* Input layer: writes n_leaves fractions into p, q (EF). Trace t's
     * interaction k occupies leaves [slot[t][k], slot[t][k] + 2^(l_skip+ñ_t)),
     * slot given flattened in trace order; leaf S + i gets
     * p = count(row i mod H) * norm_t, q = alpha + h(row i mod H); all
     * other leaves get p = 0, q = alpha. */
    glstark_status (*input_layer)(gs_engine *eng, const gs_zc_trace *traces, size_t n_traces,
                                  const uint64_t *slots, uint32_t l_skip, bb4_t alpha, bb4_t beta,
                                  size_t n_leaves, gs_buf *p, gs_buf *q);
    /* One tree layer up: for y < n_parent,
     * p_par[y] = p[2y] q[2y+1] + p[2y+1] q[2y],  q_par[y] = q[2y] q[2y+1]. */
    glstark_status (*layer_up)(gs_engine *eng, const gs_buf *p, const gs_buf *q, size_t n_parent,
                               gs_buf *p_par, gs_buf *q_par);
    /* Sumcheck round values s(1), s(2), s(3) of
     * sum_y eq[y] (pL qR + pR qL + lambda qL qR), where pL[y] = p[2y],
     * pR[y] = p[2y+1] (same for q) and y < 2*n_half runs over pairs
     * (2a, 2a+1) whose first variable is the one being bound; to the host or
     * left in an engine buffer (engine/challenge.h). */
    glstark_status (*round)(gs_engine *eng, const gs_buf *eq, const gs_buf *p, const gs_buf *q,
                            size_t n_half, bb4_t lambda, gs_sums_dst out);
    /* Binds the first variable to r (from the host or an engine buffer): for a < n_out, b < stride:
     * dst[stride a + b] = src[2 stride a + b] + r (src[2 stride a + stride + b] - src[2 stride a + b]).
     * dst may equal src on the CPU engine only; callers ping-pong. */
    glstark_status (*fold)(gs_engine *eng, const gs_buf *src, size_t n_out, size_t stride, gs_chal r,
                           gs_buf *dst);
    /* Writes eq_H(xi, bits(y)) for y < 2^n into dst. */
    glstark_status (*eq_table)(gs_engine *eng, const bb4_t *xi, size_t n, gs_buf *dst);
} gs_gkr_ops;

extern const gs_gkr_ops gs_cpu_gkr_ops;

#endif
