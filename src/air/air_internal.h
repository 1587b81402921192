/* The builder-side state of a glstark_air: an arena of expression trees
 * (SymbolicExpression: one node per builder call, like Rust's Arc tree) and
 * the pushed constraints and interactions; the DAG is derived from them. */
#ifndef GS_AIR_AIR_INTERNAL_H
#define GS_AIR_AIR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "air/dag.h"
#include "glstark/air.h"
#include "util/error.h"

/* A tree node. Kind numbering as gs_node_kind; a, b are expression ids
 * (1-based; see glstark_expr). dm is computed at construction. */
typedef struct gs_expr_node {
    uint32_t kind;
    uint32_t a, b;
    uint32_t dm;
    gs_symvar var;
    bb_t constant;
} gs_expr_node;

typedef struct gs_air_interaction {
    uint32_t *fields; /* expression ids */
    size_t num_fields;
    uint32_t count;
    uint16_t bus_index;
    uint32_t count_weight;
} gs_air_interaction;

struct glstark_air {
    char name[64];
    size_t common_main_width;
    size_t num_cached_mains;
    size_t *cached_main_widths;
    size_t preprocessed_width;
    size_t num_public_values;

    bb_t *preprocessed_trace; /* row-major, Montgomery; NULL if not set */
    size_t preprocessed_height;
    int is_required; /* glstark_air_set_required */

    gs_expr_node *exprs; /* exprs[id - 1] */
    size_t num_exprs, cap_exprs;
    uint32_t *constraints; /* expression ids, push order */
    size_t num_constraints, cap_constraints;
    gs_air_interaction *interactions;
    size_t num_interactions, cap_interactions;

    gs_error err; /* first error (sticky) */
    gs_dag dag;   /* valid when dag_built */
    int dag_built;
};

/* Builds (once) and returns the AIR's DAG; NULL with err set on failure. */
const gs_dag *gs_air_dag(glstark_air *air, gs_error *err);

/* max degree_multiple over constraints and interaction counts/fields */
size_t gs_air_max_degree(const glstark_air *air);

/* Number of main partitions (cached mains, then the common main if its width > 0). */
size_t gs_air_num_main_parts(const glstark_air *air);
size_t gs_air_main_part_width(const glstark_air *air, size_t part);

/* An AIR with the shape and the DAG of a verifying key's AIR entry (no
 * expression trees: its DAG is the key's). air_from_vk.c. */
struct gs_air_vk;
glstark_status gs_air_from_vk(const struct gs_air_vk *av, size_t index, glstark_air **out, gs_error *err);

/* Builds the DAG from expression trees (dag_build.c). */
glstark_status gs_dag_build(const glstark_air *air, gs_dag *out, gs_error *err);

#endif
