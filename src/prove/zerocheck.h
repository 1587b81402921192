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

/* The block sums the column openings are read from: every trace column's
 * eq-weighted sums at the batch point, as the reduction family's block_sums
 * writes them with l = min(l_skip, h) for a trace of 2^h rows and the eq
 * table of r_1..r_(h - l). The stacked reduction's round 0 needs the same sums of
 * the same columns, so the prover keeps them for it instead of reading the
 * stacked matrices again. Trace t's part p: part[t * GS_OPEN_SUMS_PARTS + p]
 * (width x 2^(l + 1) values, column by column; NULL for an empty part). */
#define GS_OPEN_SUMS_PARTS 64u
typedef struct gs_open_sums {
    uint32_t M;
    bb4_t **part;
} gs_open_sums;

void gs_open_sums_free(gs_open_sums *s);

/* Prover, T7..T13: samples lambda, writes the per-trace LogUp sums, mu, the
 * round-0 polynomial, the multilinear rounds and the column openings.
 * traces are in sorted order (height descending); xi has l_skip + n_global
 * entries; r_out receives (r_0, .., r_{n_max}). check_rows also evaluates
 * the constraints on the trace rows (the skip domain D) and refuses
 * (GLSTARK_ERR_UNSATISFIED) when their random combination is not zero.
 * keep (may be NULL) receives the openings' block sums; free it with
 * gs_open_sums_free (on failure it holds nothing). */
glstark_status gs_batch_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t n_traces, uint32_t l_skip,
                              uint32_t max_degree, uint32_t n_logup, const bb4_t *xi, bb4_t beta, int check_rows,
                              gs_batch_proof *out, bb4_t *r_out, gs_open_sums *keep, gs_error *err);

#endif
