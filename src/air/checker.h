/* CPU constraint checker: every constraint of every AIR on every row, then
 * the LogUp balance of every bus. A debugging aid and a test oracle. */
#ifndef GS_AIR_CHECKER_H
#define GS_AIR_CHECKER_H

#include <stddef.h>

#include "air/air_internal.h"

/* One AIR's trace in the library's own form (Montgomery, column-major). */
typedef struct gs_air_trace_view {
    size_t height;                  /* power of two; 0 = AIR absent */
    const bb_t *const *main_parts;  /* per main partition (cached mains, then common) */
    const bb_t *public_values;      /* num_public_values of the AIR */
} gs_air_trace_view;

/* GLSTARK_OK, GLSTARK_ERR_UNSATISFIED (failure filled, message in err), or
 * an argument/memory error. failure may be NULL. */
glstark_status gs_check_constraints(glstark_air *const *airs, size_t num_airs,
                                    const gs_air_trace_view *traces,
                                    glstark_check_failure *failure, gs_error *err);

#endif
