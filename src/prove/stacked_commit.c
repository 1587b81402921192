#include "prove/stacked_commit.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>

glstark_status gs_stacked_commit(gs_engine *eng, const gs_commit_trace *traces, size_t ntraces,
                                 const gs_stacked_params *params, gs_stacked_commit_data *out)
{
    if (!eng || !out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!params || (ntraces && !traces))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "stacked commit: no parameters or traces given");
    out->params = *params;
    unsigned L = params->l_skip + params->n_stack;
    if (L > GS_RS_MAX_LOG_N || params->log_blowup > GS_RS_MAX_LOG_N - L)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "stacked commit: codeword height 2^(%u+%u+%u) exceeds 2^%d; lower n_stack or log_blowup",
                            params->l_skip, params->n_stack, params->log_blowup, GS_RS_MAX_LOG_N);
    if (params->k_whir > L + params->log_blowup)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "stacked commit: 2^%u rows per query exceed the codeword height 2^%u; lower k_whir",
                            params->k_whir, L + params->log_blowup);
    gs_stack_trace_shape *shapes = calloc(ntraces ? ntraces : 1, sizeof *shapes);
    gs_trace_ref *refs = calloc(ntraces ? ntraces : 1, sizeof *refs);
    glstark_status st = GLSTARK_OK;
    if (!shapes || !refs) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked commit: out of memory for %zu traces",
                          ntraces);
        goto out;
    }
    for (size_t i = 0; i < ntraces; i++) {
        if ((st = gs_stack_log_height(traces[i].height, &shapes[i].log_height, &eng->err))) {
            gs_error_prefix(&eng->err, "stacked commit, trace %zu", i);
            goto out;
        }
        shapes[i].width = traces[i].width;
        refs[i].buf = traces[i].buf;
        refs[i].offset = traces[i].offset;
    }
    if ((st = gs_stack_layout_build(params->l_skip, params->n_stack, shapes, ntraces, &out->layout, &eng->err)))
        goto out;
    if (out->layout.width == 0) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                          "stacked commit: the traces have no columns; a commitment needs at least one column");
        goto out;
    }
    size_t N = (size_t)1 << (L + params->log_blowup);
    if (params->keep_stacked_matrix) {
        size_t H = (size_t)1 << L;
        if ((st = gs_buf_create(eng, H * out->layout.width * sizeof(bb_t), &out->matrix)))
            goto out;
        if ((st = gs_stack_matrix(eng, &out->layout, refs, 0, out->layout.width, out->matrix, 0)))
            goto out;
    }
    double t0 = gs_now_s();
    if ((st = gs_buf_create(eng, N * out->layout.width * sizeof(bb_t), &out->codeword)))
        goto out;
    if ((st = gs_rs_code_matrix(eng, &out->layout, refs, params->log_blowup, 0, out->layout.width, out->codeword,
                                0)))
        goto out;
    double t1 = gs_now_s();
    out->rs_code_matrix_s = t1 - t0;
    if ((st = gs_engine_merkle_commit(eng, out->codeword, 0, N, out->layout.width, 1, params->k_whir, &out->tree)))
        goto out;
    if (!params->root_by_caller && (st = gs_engine_merkle_root(eng, &out->tree, out->root)))
        goto out;
    out->merkle_tree_s = gs_now_s() - t1;
out:
    free(shapes);
    free(refs);
    if (st) {
        gs_error_prefix(&eng->err, "stacked commit");
        gs_stacked_commit_release(out);
    }
    return st;
}

glstark_status gs_stacked_commit_open(gs_engine *eng, const gs_stacked_commit_data *d, const uint32_t *indices,
                                      size_t n, bb_t *rows_out, bb_t *proofs_out)
{
    if (!eng || !d || !d->codeword)
        return eng ? gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "stacked open: no commitment given")
                   : GLSTARK_ERR_INVALID_ARGUMENT;
    return gs_engine_merkle_open(eng, d->codeword, 0, &d->tree, indices, n, rows_out, proofs_out);
}

void gs_stacked_commit_release(gs_stacked_commit_data *d)
{
    if (!d)
        return;
    gs_stack_layout_free(&d->layout);
    gs_buf_destroy(d->matrix);
    d->matrix = NULL;
    gs_buf_destroy(d->codeword);
    d->codeword = NULL;
    gs_merkle_dev_release(&d->tree);
}
