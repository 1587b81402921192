/* A trace as the constraint-layer kernels see it: its constraint DAG, its
 * height, its parts in opening order ([common main, preprocessed?, cached..],
 * each a column-major engine buffer of 2^log_height rows) and its public
 * values. Shared by the gkr and zerocheck families. */
#ifndef GS_ENGINE_ZC_TRACE_H
#define GS_ENGINE_ZC_TRACE_H

#include "common/constraint_dag.h"
#include "engine/engine.h"

typedef struct gs_zc_trace {
    const gs_cdag *dag;
    uint32_t log_height;
    uint32_t n_parts;
    const gs_buf *const *parts;
    const uint32_t *part_widths;
    const bb_t *publics;
    uint32_t n_publics;
    /* Element offset of each part's column 0 in its buffer (NULL: all 0);
     * e.g. a trace that lives inside the stacked matrix. */
    const size_t *part_offsets;
} gs_zc_trace;

static inline size_t gs_zc_part_offset(const gs_zc_trace *t, uint32_t p)
{
    return t->part_offsets ? t->part_offsets[p] : 0;
}

#endif
