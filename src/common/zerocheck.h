/* Batch constraint sumcheck with univariate skip (zerocheck + LogUp input
 * layer), docs/protocol.md, 'Batch constraint sumcheck with univariate skip';
 * transcript steps T7..T13 (docs/protocol.md, 'Transcript order of a proof').
 * The proof, its shape and the helpers both sides use; the prover is
 * prove/zerocheck.h, the verifier verify/zerocheck_verify.h. */
#ifndef GS_COMMON_ZEROCHECK_H
#define GS_COMMON_ZEROCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "common/constraint_dag.h"
#include "field/babybear.h"
#include "field/ext4.h"
#include "util/error.h"

/* A trace as the batch sumcheck's shape and its verifier see it: the
 * constraint DAG, the height, the widths of its parts in opening order
 * ([common main, preprocessed?, cached..]) and its public values. No trace
 * data: the prover's gs_zc_trace (engine/zc_trace.h) adds the engine
 * buffers, and prove/zerocheck.h converts (gs_zc_trace_shape). */
typedef struct gs_batch_trace {
    const gs_cdag *dag;
    uint32_t log_height;
    uint32_t n_parts;
    const uint32_t *part_widths;
    const bb_t *publics;
    uint32_t n_publics;
} gs_batch_trace;

typedef struct gs_batch_proof {
    uint32_t n_traces;
    bb4_t *sum_p;        /* numerator_term_per_air, n_traces */
    bb4_t *sum_q;        /* denominator_term_per_air, n_traces */
    uint32_t n_uni;      /* (D+1)(N-1)+1 */
    bb4_t *uni;          /* univariate_round_coeffs */
    uint32_t n_rounds;   /* n_max */
    uint32_t round_len;  /* D+1: s_j(1..D+1) */
    bb4_t *rounds;       /* n_rounds * round_len */
    size_t n_openings;
    bb4_t *openings;     /* column_openings flattened [trace][part][entry] */
} gs_batch_proof;

/* Shape of a batch proof for these traces (sorted order). */
typedef struct gs_batch_shape {
    uint32_t n_max;
    uint32_t n_uni;
    uint32_t round_len;
    size_t n_openings;
} gs_batch_shape;

void gs_batch_shape_of(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip, uint32_t max_degree,
                       gs_batch_shape *out);
/* Number of opening entries of part p of trace t: width (x2 with need_rot). */
size_t gs_batch_part_openings(const gs_batch_trace *t, uint32_t part);
glstark_status gs_batch_proof_alloc(gs_batch_proof *pf, uint32_t n_traces, const gs_batch_shape *shape, gs_error *err);
void gs_batch_proof_free(gs_batch_proof *pf);

/* n_global = max(n_max, n_logup); the caller pads xi to l_skip + n_global
 * with fresh samples (T6) before calling the prover or verifier. */
uint32_t gs_batch_n_max(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip);

/* Helpers shared by prover and verifier. */
/* ñ = max(log_height - l_skip, 0): the trace's hypercube variables. */
static inline uint32_t gs_batch_ntilde(const gs_batch_trace *t, uint32_t l_skip)
{
    return t->log_height > l_skip ? t->log_height - l_skip : 0;
}
/* eq3b per interaction of every trace, flattened in trace order (LogUp terms of the batch sumcheck). */
void gs_batch_eq3b(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip, uint32_t n_logup, const bb4_t *xi,
                   bb4_t *out);
size_t gs_batch_total_interactions(const gs_batch_trace *traces, uint32_t n_traces);

#endif
