/* The constraint-layer kernels' DAG form (engine/constraint_dag.h) made from
 * a verifying key's AIR entry (air/keygen.h). */
#ifndef GS_PROTOCOL_CDAG_VK_H
#define GS_PROTOCOL_CDAG_VK_H

#include "air/keygen.h"
#include "engine/constraint_dag.h"
#include "util/error.h"

typedef struct gs_cdag_owned {
    gs_cdag dag; /* points into the arrays below */
    gs_cnode *nodes;
    uint32_t *constraint_idx;
    gs_cinteraction *interactions;
    uint32_t *messages;
} gs_cdag_owned;

/* Fails with GLSTARK_ERR_UNSUPPORTED for Challenge variables (as OpenVM's
 * prover does) and GLSTARK_ERR_INVALID_ARGUMENT for malformed DAGs. */
glstark_status gs_cdag_from_vk(const gs_air_vk *vk, gs_cdag_owned *out, gs_error *err);
void gs_cdag_owned_free(gs_cdag_owned *o);

#endif
