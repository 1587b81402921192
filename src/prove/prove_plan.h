/* The prove plan: every shape and layout fact of one proof, derived once
 * from the proving key, the traces and the options before the engines do
 * any work, and only read after that by the phases of the prover
 * (prove/prover.c): which traces are present and in which order, the parts
 * each trace opens, the stacked layouts of the common main and of every
 * side commit (preprocessed trace, cached mains) with the stacked
 * reduction's view of them, whether the traces can be uploaded straight
 * into the stacked matrix, the buffer sizes, whether the commit streams,
 * and WHIR's parameters. It holds no engine buffers: those stay with the
 * prover's state. */
#ifndef GS_PROVE_PROVE_PLAN_H
#define GS_PROVE_PROVE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "air/keygen.h"
#include "common/stack_layout.h"
#include "common/stacked_reduction.h"
#include "common/whir.h"
#include "prove/prover.h"
#include "util/error.h"

/* A commitment besides the common main's: one AIR's preprocessed trace or
 * one of its cached mains, a single trace stacked on its own (OpenVM
 * commits each of these separately). The proof lists them after the common
 * main, per sorted trace: [preprocessed?, cached_0, cached_1, ..]. */
typedef struct gs_plan_side {
    uint32_t t;   /* the sorted trace it belongs to */
    uint32_t air;
    int is_prep;  /* 1: preprocessed, 0: cached main number `cached` */
    uint32_t cached;
    uint32_t width;
    gs_stack_layout lay; /* its stacked layout (the one trace alone) */
    /* 1: the trace lies whole from element 0 of its stacked matrix (it has
     * at least 2^l_skip rows), so after the commit the constraint phases
     * read it there and its own buffer is freed */
    int in_q;
    gs_sred_commit red;  /* the stacked reduction's view of lay (arrays owned) */
} gs_plan_side;

typedef struct gs_prove_plan {
    /* parameters */
    const gs_system_params *sp;
    uint32_t l_skip, n_stack, L; /* L = l_skip + n_stack */
    size_t stacked_rows;         /* H = 2^L: rows of every stacked matrix */
    size_t codeword_rows;        /* N = 2^(L + log_blowup): rows of every codeword */
    gs_whir_params whir;
    int has_interactions;        /* some present trace has a LogUp interaction */

    /* present traces in sorted order: log height descending, then AIR id */
    uint32_t M;
    uint32_t *trace_air; /* sorted position -> AIR id */
    uint32_t *logh;      /* per sorted trace */

    /* every trace's parts in opening order, trace t's from part_base[t]:
     * [common main, then its sides] */
    uint32_t num_parts;
    uint32_t *part_base;  /* per sorted trace */
    uint32_t *part_width; /* per part */

    /* the side commits, per sorted trace in part order: trace t's are
     * sides[side_first[t] .. side_first[t + 1]) */
    gs_plan_side *sides;
    uint32_t n_sides;
    uint32_t *side_first; /* [M + 1] */

    /* the common main's commit: the present common mains stacked */
    gs_stack_layout lay;
    gs_sred_commit red; /* the stacked reduction's view of lay (arrays owned) */
    /* 1: every trace is a contiguous column-major block of the stacked
     * matrix Q, at element q_off[t], so the traces are uploaded straight
     * into Q (no separate trace buffers, no stacking copy); Q's elements
     * from q_zero_from on are the ones no trace covers */
    int traces_in_q;
    size_t *q_off; /* [M] */
    size_t q_zero_from;
    /* Q described as one trace of lay.width columns and H rows stacked onto
     * itself (one whole-column slice per stacked column): the layout the
     * commit and WHIR encode Q itself with */
    gs_stack_layout q_self;

    /* Without a kept codeword (reencode_codeword) the commit may encode Q a
     * group of stream_group_cols columns at a time into the Merkle tree's
     * row sponges; stream_commit says it saves memory to (the commit then
     * streams where its engine can: hash->stream_begin). */
    size_t stream_group_cols;
    unsigned stream_log_classes; /* the codeword's rows in 2^lc classes (lc = log_blowup, or 0) */
    int stream_commit;
} gs_prove_plan;

/* Checks the traces against the key (one per AIR, vk order, height 0 =
 * absent; shapes, public value counts, preprocessed traces and cached
 * mains, a source for every common main) and derives the plan. Errors:
 * INVALID_ARGUMENT (the message names the AIR; also a stacked width above
 * w_stack), UNSUPPORTED (WHIR parameters), OUT_OF_MEMORY. On failure
 * nothing is left to free; on success free with gs_prove_plan_free. */
glstark_status gs_prove_plan_build(gs_prove_plan *plan, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                   size_t num_traces, const gs_prove_options *opt, gs_error *err);

void gs_prove_plan_free(gs_prove_plan *plan);

#endif
