/* The minimal constraint-DAG form the constraint-layer kernels evaluate.
 *
 * Mirrors OpenVM's SymbolicExpressionDag (docs/protocol.md, 'Constraint DAG'):
 * nodes in topological order, constraints as node indices in ascending
 * order (= λ-batching order), interactions as node indices. The AIR layer
 * (src/air/) converts its DAG into this form; keeping it this small lets
 * the GPU engine upload it as a flat node array.
 *
 * Columns are addressed by the trace's opening-order parts
 * [common main, preprocessed (if any), cached_0, cached_1, ...]
 * (the order of the openings); gs_cdag_part_of() maps OpenVM's entries onto them. */
#ifndef GS_COMMON_CONSTRAINT_DAG_H
#define GS_COMMON_CONSTRAINT_DAG_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"

typedef enum gs_cnode_kind {
    GS_CN_VAR_PREP = 0, /* preprocessed column `index`, row offset `offset` */
    GS_CN_VAR_MAIN,     /* main partition `part`, column `index`, row offset `offset` */
    GS_CN_PUBLIC,       /* public value `index` */
    GS_CN_IS_FIRST,
    GS_CN_IS_LAST,
    GS_CN_IS_TRANSITION,
    GS_CN_CONST,        /* `value` (Montgomery) */
    GS_CN_ADD,          /* nodes[a] + nodes[b] */
    GS_CN_SUB,          /* nodes[a] - nodes[b] */
    GS_CN_NEG,          /* -nodes[a] */
    GS_CN_MUL           /* nodes[a] * nodes[b] */
} gs_cnode_kind;

typedef struct gs_cnode {
    uint8_t kind;   /* gs_cnode_kind */
    uint8_t offset; /* 0 local row, 1 next row (variables) */
    uint16_t part;  /* OpenVM part_index (main variables) */
    uint32_t a;     /* column / public index, or left child */
    uint32_t b;     /* right child */
    bb_t value;     /* constant */
} gs_cnode;

typedef struct gs_cinteraction {
    const uint32_t *message; /* node indices */
    uint32_t message_len;
    uint32_t count;          /* node index */
    uint16_t bus_index;
} gs_cinteraction;

typedef struct gs_cdag {
    const gs_cnode *nodes;
    uint32_t n_nodes;
    const uint32_t *constraint_idx; /* ascending */
    uint32_t n_constraints;
    const gs_cinteraction *interactions;
    uint32_t n_interactions;
    uint32_t max_degree;  /* vk.max_constraint_degree of this AIR (d_t) */
    int need_rot;
    int has_preprocessed;
    uint32_t n_cached;    /* cached main partitions; common main is part_index n_cached */
} gs_cdag;

/* Opening-order part of a variable node, or -1 for non-column nodes. */
static inline int gs_cdag_part_of(const gs_cdag *d, const gs_cnode *n)
{
    if (n->kind == GS_CN_VAR_PREP)
        return 1;
    if (n->kind != GS_CN_VAR_MAIN)
        return -1;
    if (n->part == d->n_cached)
        return 0;
    return 1 + (d->has_preprocessed ? 1 : 0) + (int)n->part;
}

/* Values a DAG is evaluated on, in the base field or the extension.
 * cols[part][(2*c + rot) * stride] is column c of that part (rot = 1: next
 * row; stride 0 means 1); sel = {is_first, is_last, is_transition}. */
typedef struct gs_cdag_env_base {
    const bb_t *const *cols;
    bb_t sel[3];
    const bb_t *publics;
    size_t stride;
} gs_cdag_env_base;

typedef struct gs_cdag_env_ext {
    const bb4_t *const *cols;
    bb4_t sel[3];
    const bb_t *publics;
} gs_cdag_env_ext;

/* Evaluates every node into out[0..n_nodes). */
void gs_cdag_eval_base(const gs_cdag *d, const gs_cdag_env_base *env, bb_t *out);
void gs_cdag_eval_ext(const gs_cdag *d, const gs_cdag_env_ext *env, bb4_t *out);

/* Checks indices, topological order and part references; 0 if sound. */
int gs_cdag_check(const gs_cdag *d, const uint32_t *part_widths, uint32_t n_parts, uint32_t n_publics);

#endif
