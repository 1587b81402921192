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
    if ((st = gs_dag_clone(&av->dag, &air->dag, err))) {
        glstark_air_destroy(air);
        return st;
    }
    air->dag_built = 1;
    air->is_required = av->is_required;
    *out = air;
    return GLSTARK_OK;
}
