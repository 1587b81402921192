/* AIRs as data: a builder for the constraint system of one AIR.
 *
 * An AIR has a main trace (a common main of `main_width` columns, and
 * optionally cached main partitions), optional preprocessed columns, and
 * public values. Its constraints are polynomials in the current-row and
 * next-row cells, the public values, constants and the row selectors
 * is_first_row / is_last_row / is_transition; each must vanish on every row.
 * Interactions (LogUp) send `count` copies of a message (a list of
 * expressions) on a bus; across all AIRs of a proof each bus must balance.
 *
 * Expressions are built bottom-up with the functions below and are stored
 * exactly as OpenVM stark-backend v2.0.1 stores them, so the verifying key
 * (and the order in which constraints are batched in a proof) equals
 * OpenVM's for the same sequence of builder calls: every call makes a new
 * expression node whose operands keep their order, as Rust's operators do
 * in a Plonky3 `Air::eval`. Write constraints in the same shape as the Rust
 * AIR you want to match (e.g. `when(c).assert_zero(e)` is
 * glstark_air_assert_zero(air, glstark_air_mul(air, c, e))).
 *
 * Errors: functions returning glstark_expr return GLSTARK_EXPR_INVALID on
 * bad input (a column out of range, an invalid operand) and record the first
 * error in the AIR; every later call on that AIR then fails too (sticky), and
 * glstark_air_status / glstark_air_error_message report it. Functions
 * returning a status report it directly as well. Nothing aborts.
 *
 * Field elements cross this API as canonical integers in [0, p),
 * p = 2013265921 (BabyBear).
 *
 * Threads: an AIR is not locked. Build it on one thread; the DAG is derived
 * on first use (dag_stats, keygen, the checker), after which concurrent
 * read-only use is fine. */
#ifndef GLSTARK_AIR_H
#define GLSTARK_AIR_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct glstark_air glstark_air;

/* Handle to an expression of one AIR. Only meaningful with the AIR that made
 * it; id 0 is the invalid handle. */
typedef struct glstark_expr {
    uint32_t id;
} glstark_expr;

#define GLSTARK_EXPR_INVALID ((glstark_expr){0})

/* Trace shape of an AIR. */
typedef struct glstark_air_shape {
    size_t common_main_width;         /* columns of the common main trace */
    size_t num_cached_mains;          /* cached main partitions (committed separately) */
    const size_t *cached_main_widths; /* num_cached_mains widths, each >= 1 */
    size_t preprocessed_width;        /* 0 = no preprocessed trace */
    size_t num_public_values;
} glstark_air_shape;

/* An AIR with only a common main trace. `name` is copied (may be NULL). */
GLSTARK_API glstark_status glstark_air_create(const char *name, size_t main_width,
                                              size_t num_public_values, glstark_air **out);
GLSTARK_API glstark_status glstark_air_create_shaped(const char *name,
                                                     const glstark_air_shape *shape,
                                                     glstark_air **out);
GLSTARK_API void glstark_air_destroy(glstark_air *air);

/* The preprocessed trace (row-major, canonical, height a power of two,
 * width = shape.preprocessed_width). Copied. */
GLSTARK_API glstark_status glstark_air_set_preprocessed_trace(glstark_air *air, size_t height,
                                                              const uint32_t *rows);

/* Whether every proof must contain this AIR (OpenVM's add_required_air;
 * default 0, add_air: a proof may leave it out with a trace of height 0).
 * Part of the verifying key. A required AIR's presence is not observed in
 * the transcript, so the proofs differ from those of the same AIR added as
 * optional. */
GLSTARK_API glstark_status glstark_air_set_required(glstark_air *air, int required);

/* Variables. `next` = 0 for the current row, 1 for the next row (wrapping
 * to row 0 after the last row). */
GLSTARK_API glstark_expr glstark_air_main(glstark_air *air, size_t column, int next);
GLSTARK_API glstark_expr glstark_air_cached_main(glstark_air *air, size_t partition,
                                                 size_t column, int next);
GLSTARK_API glstark_expr glstark_air_preprocessed(glstark_air *air, size_t column, int next);
GLSTARK_API glstark_expr glstark_air_public_value(glstark_air *air, size_t index);

/* Constants (canonical, reduced mod p) and selectors. */
GLSTARK_API glstark_expr glstark_air_const(glstark_air *air, uint32_t value);
GLSTARK_API glstark_expr glstark_air_is_first_row(glstark_air *air);
GLSTARK_API glstark_expr glstark_air_is_last_row(glstark_air *air);
GLSTARK_API glstark_expr glstark_air_is_transition(glstark_air *air);

/* Arithmetic: each call is one node, operands in the given order. */
GLSTARK_API glstark_expr glstark_air_add(glstark_air *air, glstark_expr a, glstark_expr b);
GLSTARK_API glstark_expr glstark_air_sub(glstark_air *air, glstark_expr a, glstark_expr b);
GLSTARK_API glstark_expr glstark_air_mul(glstark_air *air, glstark_expr a, glstark_expr b);
GLSTARK_API glstark_expr glstark_air_neg(glstark_air *air, glstark_expr a);

/* Constraints: e == 0 on every row. */
GLSTARK_API glstark_status glstark_air_assert_zero(glstark_air *air, glstark_expr e);
/* a - b (Plonky3 assert_eq) */
GLSTARK_API glstark_status glstark_air_assert_eq(glstark_air *air, glstark_expr a, glstark_expr b);
/* e - 1 (assert_one) */
GLSTARK_API glstark_status glstark_air_assert_one(glstark_air *air, glstark_expr e);
/* e * (e - 1) (assert_bool) */
GLSTARK_API glstark_status glstark_air_assert_bool(glstark_air *air, glstark_expr e);

/* A LogUp interaction: `count` copies of the message `fields[0..num_fields)`
 * on bus `bus_index`. count_weight enters OpenVM's trace-height constraints
 * (1 for permutation/lookup sends and receives, 0 for lookup tables).
 * num_fields must be >= 1. */
GLSTARK_API glstark_status glstark_air_push_interaction(glstark_air *air, uint16_t bus_index,
                                                        const glstark_expr *fields,
                                                        size_t num_fields, glstark_expr count,
                                                        uint32_t count_weight);

/* The first error recorded on the AIR (GLSTARK_OK if none) and its message. */
GLSTARK_API glstark_status glstark_air_status(const glstark_air *air);
GLSTARK_API const char *glstark_air_error_message(const glstark_air *air);

/* Sizes of the stored constraint DAG (built on first call). */
GLSTARK_API glstark_status glstark_air_dag_stats(glstark_air *air, size_t *num_nodes,
                                                 size_t *num_constraints,
                                                 size_t *num_interactions, size_t *max_degree);

/* A trace of one AIR for the constraint checker: canonical values,
 * column-major (column c is values[c*height .. c*height+height)). */
typedef struct glstark_trace_part {
    const uint32_t *values;
    size_t width;
} glstark_trace_part;

typedef struct glstark_air_trace {
    size_t height;                      /* a power of two; 0 = the AIR is absent */
    glstark_trace_part common_main;
    const glstark_trace_part *cached_mains; /* num_cached_mains of them, may be NULL if none */
    const uint32_t *public_values;      /* num_public_values of them */
    size_t num_public_values;
} glstark_air_trace;

/* Where a check failed. */
typedef struct glstark_check_failure {
    size_t air;        /* AIR index in the set */
    size_t constraint; /* constraint number (its batching order); SIZE_MAX for LogUp */
    size_t row;
    uint16_t bus;      /* LogUp: the bus that does not balance */
} glstark_check_failure;

/* Evaluates every constraint of every AIR on every row, then the LogUp
 * balance of every bus over all AIRs. Returns GLSTARK_OK, or
 * GLSTARK_ERR_UNSATISFIED with the first failing AIR/constraint/row in
 * *failure (may be NULL) and a message in msg (may be NULL), or
 * GLSTARK_ERR_INVALID_ARGUMENT for traces of the wrong shape. */
GLSTARK_API glstark_status glstark_check_constraints(glstark_air *const *airs, size_t num_airs,
                                                     const glstark_air_trace *traces,
                                                     glstark_check_failure *failure, char *msg,
                                                     size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
