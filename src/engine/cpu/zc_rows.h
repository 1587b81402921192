/* CPU helpers that read trace rows for DAG evaluation. */
#ifndef GS_ENGINE_CPU_ZC_ROWS_H
#define GS_ENGINE_CPU_ZC_ROWS_H

#include "engine/zc_trace.h"

/* Per-trace scratch for row evaluation. */
typedef struct gs_cpu_rowbuf {
    bb_t *vals;        /* all parts' [local, next] pairs */
    const bb_t **cols; /* per part pointer into vals */
    bb_t *nodes;       /* DAG node values */
} gs_cpu_rowbuf;

int gs_cpu_rowbuf_init(gs_cpu_rowbuf *rb, const gs_zc_trace *t);
void gs_cpu_rowbuf_free(gs_cpu_rowbuf *rb);

/* Evaluates the DAG on row i (taken mod the trace height, i.e. lifted), with
 * the next row cyclic and the selectors (docs/protocol.md, 'Batch
 * constraint sumcheck with univariate skip'). Node values land in
 * rb->nodes. */
void gs_cpu_eval_row(const gs_zc_trace *t, gs_cpu_rowbuf *rb, size_t i);

/* h = sum_j beta^j m_j + beta^L (bus + 1) for interaction k on rb->nodes. */
bb4_t gs_cpu_interaction_denominator(const gs_cdag *d, uint32_t k, const bb_t *nodes, bb4_t beta);

#endif
