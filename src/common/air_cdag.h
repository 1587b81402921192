/* The verifying key's AIR DAG (air/dag.h, OpenVM's form) in the flat form
 * the constraint-layer kernels evaluate (common/constraint_dag.h). Shared by
 * the whole-proof prover and the verifier, which both hand the batch
 * constraint sumcheck one trace per present AIR (gs_zc_trace, gs_batch_trace). */
#ifndef GS_COMMON_AIR_CDAG_H
#define GS_COMMON_AIR_CDAG_H

#include "air/keygen.h"
#include "common/constraint_dag.h"
#include "util/error.h"

/* A gs_cdag with the arrays it points to. */
typedef struct gs_cdag_owned {
    gs_cdag dag;
    gs_cnode *nodes;
    uint32_t *constraint_idx;
    gs_cinteraction *interactions;
    uint32_t *messages; /* all interaction messages, back to back */
} gs_cdag_owned;

/* Converts av's DAG. GLSTARK_ERR_UNSUPPORTED for Challenge variables
 * (OpenVM refuses them too: ChallengeNotSupported);
 * GLSTARK_ERR_INVALID_ARGUMENT for a malformed DAG: a row offset above 1, a
 * node, column, part or public value out of range of the key, or a child
 * not before its parent (the kernels index without bounds checks). */
glstark_status gs_cdag_from_vk(const gs_air_vk *av, gs_cdag_owned *out, gs_error *err);
void gs_cdag_owned_free(gs_cdag_owned *o);

#endif
