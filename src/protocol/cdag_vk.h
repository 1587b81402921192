/* The constraint-layer kernels' DAG form (engine/constraint_dag.h) made from
 * a verifying key's AIR entry (air/keygen.h). Used by the gkr tests and
 * benchmark; the whole-proof prover has its own converter (air_cdag.h,
 * branch 'prover'), which can replace this one when both are in main. */
#ifndef GS_PROTOCOL_CDAG_VK_H
#define GS_PROTOCOL_CDAG_VK_H

#include "air/keygen.h"
#include "engine/constraint_dag.h"
#include "util/error.h"

typedef struct gs_cdag_vk {
    gs_cdag dag; /* points into the arrays below */
    gs_cnode *nodes;
    uint32_t *constraint_idx;
    gs_cinteraction *interactions;
    uint32_t *messages;
} gs_cdag_vk;

/* Fails with GLSTARK_ERR_UNSUPPORTED for Challenge variables (as OpenVM's
 * prover does) and GLSTARK_ERR_INVALID_ARGUMENT for malformed DAGs. */
glstark_status gs_cdag_from_air_vk(const gs_air_vk *vk, gs_cdag_vk *out, gs_error *err);
void gs_cdag_vk_free(gs_cdag_vk *o);

#endif
