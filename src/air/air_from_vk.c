/* A glstark_air made from one AIR of a verifying key: the key's shape and
 * its constraint DAG as it stands, so that an OpenVM circuit written in Rust
 * is proved with exactly the constraints, interactions and node order its
 * key commits to (no builder calls are replayed). */
#include <stdio.h>

#include "air/air_internal.h"
#include "air/keygen.h"

glstark_status gs_air_from_vk(const gs_air_vk *av, size_t index, glstark_air **out, gs_error *err)
{
    *out = NULL;
    const glstark_air_shape shape = {
        av->common_main_width, av->num_cached_mains, av->cached_main_widths,
        av->has_preprocessed_width ? av->preprocessed_width : 0, av->num_public_values,
    };
    char name[32];
    snprintf(name, sizeof name, "AIR %zu", index);
    glstark_air *air = NULL;
    glstark_status st = glstark_air_create_shaped(name, &shape, &air);
    if (st)
        return gs_error_set(err, st,
                            "AIR %zu of the key cannot be proved: its trace widths (common main %zu, %zu cached "
                            "mains, preprocessed %zu) leave no main column or are out of range",
                            index, av->common_main_width, av->num_cached_mains, shape.preprocessed_width);
    /* The key's DAG is used as it stands, so every variable must name a
     * column or public value the shape has: the prover's evaluators index
     * their row buffers with these numbers unchecked. */
    for (size_t i = 0; i < av->dag.num_nodes; i++) {
        const gs_dag_node *n = &av->dag.nodes[i];
        if (n->kind != GS_NODE_VAR)
            continue;
        const gs_symvar *v = &n->var;
        size_t limit = 0;
        const char *what = "variable";
        if (v->entry == GS_ENTRY_PREPROCESSED) {
            limit = shape.preprocessed_width;
            what = "preprocessed column";
        } else if (v->entry == GS_ENTRY_MAIN) {
            limit = gs_air_main_part_width(air, v->part_index);
            what = "main column";
            if (v->part_index > av->num_cached_mains)
                limit = 0;
        } else if (v->entry == GS_ENTRY_PUBLIC) {
            limit = av->num_public_values;
            what = "public value";
        } else {
            continue; /* Challenge: refused later with its own message */
        }
        if (v->index >= limit) {
            glstark_air_destroy(air);
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "AIR %zu of the key cannot be proved: constraint DAG node %zu reads %s %u (part %u), "
                                "which the AIR's shape does not have",
                                index, i, what, v->index, v->part_index);
        }
    }
    if ((st = gs_dag_clone(&av->dag, &air->dag, err))) {
        glstark_air_destroy(air);
        return st;
    }
    air->dag_built = 1;
    air->is_required = av->is_required;
    *out = air;
    return GLSTARK_OK;
}
