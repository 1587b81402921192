/* The preprocessed trace's commitment (see prep_commit.h). */
#include "prove/prep_commit.h"

#include <stdlib.h>
#include <string.h>

glstark_status gs_prep_upload(gs_engine *eng, const bb_t *rows, size_t height, size_t width, gs_buf **out,
                              gs_error *err)
{
    *out = NULL;
    const size_t n = height * width;
    bb_t *cm = malloc((n ? n : 1) * sizeof *cm);
    if (!cm)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "preprocessed trace: out of host memory (%zu values)", n);
    for (size_t r = 0; r < height; r++)
        for (size_t c = 0; c < width; c++)
            cm[c * height + r] = rows[r * width + c];
    glstark_status st = gs_buf_create(eng, (n ? n : 1) * sizeof *cm, out);
    if (!st)
        st = gs_buf_write(*out, 0, cm, n * sizeof *cm);
    free(cm);
    if (st) {
        gs_buf_destroy(*out);
        *out = NULL;
        return gs_error_set(err, st, "preprocessed trace: upload to the %s engine failed: %s", eng->core->name,
                            eng->err.msg);
    }
    return GLSTARK_OK;
}

glstark_status gs_prep_commit_cpu(void *ctx, const gs_system_params *params, const bb_t *rows, size_t height,
                                  size_t width, gs_prep_vdata *out, gs_error *err)
{
    (void)ctx;
    uint32_t logh = 0;
    glstark_status st = gs_stack_log_height(height, &logh, err);
    if (st)
        return st;
    if (logh > params->l_skip + params->n_stack)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "preprocessed trace: 2^%u rows, more than the stacked height 2^%zu of these params "
                            "(raise l_skip + n_stack)",
                            logh, params->l_skip + params->n_stack);
    gs_engine *cpu = NULL;
    if ((st = gs_cpu_engine_create(1, &cpu, err)))
        return st;
    gs_buf *trace = NULL;
    gs_stacked_commit_data cd;
    memset(&cd, 0, sizeof cd);
    if (!(st = gs_prep_upload(cpu, rows, height, width, &trace, err))) {
        gs_stacked_params sp = gs_stacked_params_from_system(params);
        sp.keep_stacked_matrix = 0;
        const gs_commit_trace ct = {trace, 0, (uint32_t)width, height};
        if ((st = gs_stacked_commit(cpu, &ct, 1, &sp, &cd))) {
            st = gs_error_set(err, st, "preprocessed trace: %s", cpu->err.msg);
        } else {
            memcpy(out->commit, cd.root, sizeof out->commit);
            out->hypercube_dim = (int64_t)logh - (int64_t)params->l_skip;
            out->stacking_width = cd.layout.width;
            gs_stacked_commit_release(&cd);
        }
    }
    gs_buf_destroy(trace);
    gs_engine_destroy(cpu);
    return st;
}
