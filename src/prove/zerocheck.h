/* Batch constraint sumcheck prover (docs/protocol.md, 'Batch constraint
 * sumcheck with univariate skip') over the engine's zerocheck family. */
#ifndef GS_PROVE_ZEROCHECK_H
#define GS_PROVE_ZEROCHECK_H

#include "common/fs.h"
#include "common/zerocheck.h"
#include "engine/zerocheck_ops.h"

/* The shape of an engine trace (its buffers left out). */
static inline gs_batch_trace gs_zc_trace_shape(const gs_zc_trace *t)
{
    gs_batch_trace s = {t->dag, t->log_height, t->n_parts, t->part_widths, t->publics, t->n_publics};
    return s;
}

/* The shapes of n traces, in a malloc'd array (NULL when out of memory). */
gs_batch_trace *gs_zc_trace_shapes(const gs_zc_trace *traces, uint32_t n);

/* Prover, T7..T13: samples lambda, writes the per-trace LogUp sums, mu, the
 * round-0 polynomial, the multilinear rounds and the column openings.
 * traces are in sorted order (height descending); xi has l_skip + n_global
 * entries; r_out receives (r_0, .., r_{n_max}). check_rows also evaluates
 * the constraints on the trace rows (the skip domain D) and refuses
 * (GLSTARK_ERR_UNSATISFIED) when their random combination is not zero. */
glstark_status gs_batch_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t n_traces, uint32_t l_skip,
                              uint32_t max_degree, uint32_t n_logup, const bb4_t *xi, bb4_t beta, int check_rows,
                              gs_batch_proof *out, bb4_t *r_out, gs_error *err);

#endif
