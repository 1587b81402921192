/* Engine family "zerocheck": the kernels of the batch constraint sumcheck
 * with univariate skip (docs/protocol.md, 'Batch constraint sumcheck with univariate skip').
 *
 * Per trace the protocol needs three weighted sums of DAG outputs:
 *   zc = sum_i lambda^i C_i             (constraints, λ-batched)
 *   p  = norm * sum_σ eq3b_σ count_σ    (LogUp numerators)
 *   q  = sum_σ eq3b_σ h_σ               (LogUp denominators, no alpha)
 * evaluated (round 0) at points z of the skip domain's extension, or
 * (rounds j >= 1) on the multilinear tables at X = 1..n_x. Outputs are
 * triples (zc, p, q) per point, already summed over the hypercube with the
 * caller's eq weights. */
#ifndef GS_ENGINE_ZEROCHECK_OPS_H
#define GS_ENGINE_ZEROCHECK_OPS_H

#include "engine/zc_trace.h"

/* What the DAG outputs are combined with. */
typedef struct gs_zc_weights {
    const bb4_t *lambda_pows; /* n_constraints powers λ^i */
    bb4_t beta;
    const bb4_t *eq3b;        /* per interaction */
    bb_t norm;                /* numerator scale (1, or 2^(h-l) for lifted traces) */
} gs_zc_weights;

/* Table columns, the numbering of every column a DAG can read:
 * is_first, is_last, is_transition, then for every part in opening order and
 * every column c: c at the local row, c at the next row. */
static inline size_t gs_zc_table_cols(const gs_zc_trace *t)
{
    size_t n = 3;
    for (uint32_t p = 0; p < t->n_parts; p++)
        n += 2 * (size_t)t->part_widths[p];
    return n;
}

/* The folded tables (fold_ple's output, the multilinear rounds' input) hold
 * only the table columns the trace's DAG has a variable for, and the three
 * selectors: *cols gets them ascending (*n of them; free with free()).
 * Column i of the folded tables is table column (*cols)[i]. The columns the
 * DAG never reads are opened from the trace instead (src/prove/zerocheck.c),
 * so the tables of keccakf's AIR hold 2,860 columns, not 5,269. */
glstark_status gs_zc_folded_layout(const gs_zc_trace *t, uint32_t **cols, uint32_t *n, gs_error *err);

typedef struct gs_zerocheck_ops {
    /* Round 0: for every evaluation point z_p, writes
     * out[3p + {0,1,2}] = sum_x e[x] * (zc, p, q)(column PLEs at (z_p, x)),
     * x < 2^ñ (e is an EF buffer of 2^ñ entries). The points are, in order:
     * D itself (z_k = ω^k, only with d_points set), then the cosets
     * g^i·D for i = 1..n_cos (z = g^i ω^k, k ascending), g = 31. As for
     * mle_round, out may be filled only at the engine's next read. */
    glstark_status (*round0)(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, uint32_t n_cos, int d_points,
                             const gs_buf *e, const gs_zc_weights *w, bb4_t *out);
    /* Folds Z at r_0: the folded tables (gs_zc_folded_layout's columns x
     * 2^ñ EF, column-major) get sum_k col[xN + k] lw[k] with lw[k] =
     * L_{ω^k}(r_0) (rows cyclic in the trace's height; +1 for next-row
     * columns). */
    glstark_status (*fold_ple)(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, const bb4_t *lw,
                               gs_buf *tables);
    /* Multilinear round on the folded tables with m live rows (stride 2^ñ): for X = 1..n_x,
     * out[3(X-1) + {0,1,2}] = sum_{a < m/2} eq[a] (zc, p, q)(v[2a] + X (v[2a+1] - v[2a])).
     * With m = 1 it evaluates row 0 once (eq ignored, n_x must be 1, X unused).
     * An engine may fill out only at its next read, so that the traces of
     * a batch share one host sync: out must stay valid, and the caller
     * calls gs_engine_read_flush before reading it (or gs_engine_read_drop
     * after a failure). The engine may keep what it made for trace t (by its address) until
     * mle_rounds_done: t and its DAG must stay as they are until then. */
    glstark_status (*mle_round)(gs_engine *eng, const gs_zc_trace *t, const gs_buf *tables, size_t stride, size_t m,
                                const gs_buf *eq, size_t n_x, const gs_zc_weights *w, bb4_t *out);
    /* Binds the first table variable: v[a] = v[2a] + r (v[2a+1] - v[2a]), a < m/2, every column. */
    glstark_status (*fold)(gs_engine *eng, gs_buf *tables, size_t n_cols, size_t stride, size_t m, bb4_t r);
    /* The multilinear rounds are over (or failed): frees what mle_round
     * kept between calls. NULL where an engine keeps nothing. */
    void (*mle_rounds_done)(gs_engine *eng);
    /* The batch the next round 0 and rounds will run on: the engine may
     * compile their constraint programs on a thread of its own meanwhile
     * (the commit). compile_wait returns once that is over; the caller
     * reaches it before the traces' DAGs, widths or public values change
     * or go. Both NULL where an engine does not. */
    void (*compile_ahead)(gs_engine *eng, const gs_zc_trace *traces, uint32_t n);
    void (*compile_wait)(gs_engine *eng);
} gs_zerocheck_ops;

extern const gs_zerocheck_ops gs_cpu_zerocheck_ops;

#endif
