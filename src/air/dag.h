/* The symbolic constraint DAG of one AIR, as OpenVM stark-backend v2.0.1
 * stores it in the verifying key (air_builders/symbolic/dag.rs).
 *
 * Node kinds and their numbering are the serde variant indices of
 * SymbolicExpressionNode; variable entries those of Entry. Nodes are in
 * topological order (children first). The order is not free: it fixes the
 * vk bytes and the constraint order used for lambda-batching, so the DAG is
 * built by the exact bottom-up interning and simplification of the
 * reference (docs/protocol.md, 'Constraint DAG'). */
#ifndef GS_AIR_DAG_H
#define GS_AIR_DAG_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"

typedef enum gs_node_kind {
    GS_NODE_VAR = 0,
    GS_NODE_IS_FIRST_ROW = 1,
    GS_NODE_IS_LAST_ROW = 2,
    GS_NODE_IS_TRANSITION = 3,
    GS_NODE_CONST = 4,
    GS_NODE_ADD = 5,
    GS_NODE_SUB = 6,
    GS_NODE_NEG = 7,
    GS_NODE_MUL = 8
} gs_node_kind;

typedef enum gs_entry_kind {
    GS_ENTRY_PREPROCESSED = 0,
    GS_ENTRY_MAIN = 1,
    GS_ENTRY_PUBLIC = 2,
    GS_ENTRY_CHALLENGE = 3
} gs_entry_kind;

/* SymbolicVariable: entry (+ part_index for Main, offset for Preprocessed and
 * Main; both 0 otherwise) and column/public index. */
typedef struct gs_symvar {
    uint32_t entry;
    uint32_t part_index;
    uint32_t offset;
    uint32_t index;
} gs_symvar;

/* One node. Unused fields are zero so nodes compare and hash by value.
 * Add/Sub/Mul: left, right. Neg: left = child. dm = degree_multiple as
 * stored (that of the original expression, before simplification). */
typedef struct gs_dag_node {
    uint32_t kind;
    uint32_t left;
    uint32_t right;
    uint32_t dm;
    gs_symvar var;   /* GS_NODE_VAR */
    bb_t constant;   /* GS_NODE_CONST, Montgomery form */
} gs_dag_node;

typedef struct gs_dag_interaction {
    uint32_t *message; /* node indices */
    size_t message_len;
    uint32_t count;    /* node index */
    uint16_t bus_index;
    uint32_t count_weight;
} gs_dag_interaction;

typedef struct gs_dag {
    gs_dag_node *nodes;
    size_t num_nodes;
    uint32_t *constraint_idx; /* sorted, deduplicated node indices */
    size_t num_constraints;
    gs_dag_interaction *interactions;
    size_t num_interactions;
} gs_dag;

void gs_dag_free(gs_dag *dag);

/* max offset over Variable nodes (0 or 1) */
uint32_t gs_dag_max_rotation(const gs_dag *dag);

/* Evaluates all nodes in order over the base field on one row of a trace:
 * variables read column pointers (per main partition, and preprocessed) at
 * `row` (offset 0) or `next_row` (offset 1); vals gets one value per node. */
typedef struct gs_dag_row_env {
    const bb_t *const *const *main_cols; /* per main partition: its column pointers */
    size_t num_main_parts;
    const bb_t *const *prep_cols;    /* preprocessed column pointers or NULL */
    const bb_t *public_values;
    size_t row, next_row;
    bb_t is_first_row, is_last_row, is_transition;
} gs_dag_row_env;

void gs_dag_eval_row(const gs_dag *dag, const gs_dag_row_env *env, bb_t *vals);

/* The same over the extension field, for values at an arbitrary point (the
 * verifier's final check, the prover's folded rounds): per main partition
 * the column values at offset 0 (`main_local[part][col]`) and offset 1
 * (`main_next`, may be NULL when the DAG has no next-row variables),
 * likewise for preprocessed columns, base-field public values, and the
 * selector values. vals receives one value per node. */
typedef struct gs_dag_ext_env {
    const bb4_t *const *main_local;
    const bb4_t *const *main_next;
    const bb4_t *prep_local;
    const bb4_t *prep_next;
    const bb_t *public_values;
    bb4_t is_first_row, is_last_row, is_transition;
} gs_dag_ext_env;

void gs_dag_eval_ext(const gs_dag *dag, const gs_dag_ext_env *env, bb4_t *vals);

#endif
