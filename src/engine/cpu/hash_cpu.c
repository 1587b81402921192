/* The CPU engine's hash family: the src/hash reference code on host buffers. */
#include "engine/cpu/cpu_engine.h"
#include "util/parallel_for.h"
#include "engine/hash_ops.h"
#include "hash/grind.h"
#include "common/transcript.h"

#include <string.h>


static glstark_status cpu_merkle_commit(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height, size_t width,
                                        unsigned elem_deg, unsigned log_k, gs_merkle_dev *tree)
{
    unsigned depth;
    glstark_status st = gs_merkle_check_shape(height, width, elem_deg, log_k, &depth, &eng->err);
    if (st)
        return st;
    gs_buf *dg = NULL;
    st = gs_buf_create(eng, gs_merkle_digest_words(height, log_k) * sizeof(bb_t), &dg);
    if (st)
        return st;
    st = gs_merkle_build((const bb_t *)mat->host + mat_off, height, width, elem_deg, log_k, gs_cpu_workers(eng),
                         (bb_t *)dg->host, &eng->err);
    if (st) {
        gs_buf_destroy(dg);
        return st;
    }
    *tree = (gs_merkle_dev){dg, height, width, elem_deg, log_k, depth};
    return GLSTARK_OK;
}

static glstark_status cpu_merkle_open(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                      const uint32_t *indices, size_t n, bb_t *rows_out, bb_t *proofs_out)
{
    size_t row_words = ((size_t)1 << tree->log_k) * tree->width * tree->elem_deg;
    for (size_t q = 0; q < n; q++) {
        glstark_status st = gs_merkle_open((const bb_t *)mat->host + mat_off, tree->height, tree->width,
                                           tree->elem_deg, tree->log_k, (const bb_t *)tree->digests->host,
                                           indices[q], rows_out ? rows_out + q * row_words : NULL,
                                           proofs_out ? proofs_out + q * tree->depth * GS_DIGEST_LEN : NULL,
                                           &eng->err);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

static glstark_status cpu_grind(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                                uint32_t *witness)
{
    unsigned threads = gs_cpu_threads(eng);
    return gs_grind_cpu(&threads, st, absorb_idx, bits, witness, &eng->err);
}

/* The reference: the host transcript itself on the buffer's state. */
static glstark_status cpu_sponge_step(gs_engine *eng, gs_buf *state, const gs_sponge_step *step)
{
    uint32_t *words = state->host;
    gs_transcript ts;
    gs_transcript_init(&ts);
    memcpy(ts.st, words, sizeof ts.st);
    ts.absorb_idx = words[GS_P2_WIDTH];
    ts.sample_idx = words[GS_P2_WIDTH + 1];
    const bb4_t *obs = step->n_obs ? (const bb4_t *)step->src->host + step->src_index : NULL;
    for (uint32_t i = 0; i < step->n_obs; i++)
        gs_transcript_observe_ext(&ts, obs[i]);
    if (step->pow_bits) {
        uint32_t w = 0;
        glstark_status st = gs_transcript_grind(&ts, step->pow_bits, NULL, NULL, &w, &eng->err);
        if (st)
            return st;
        ((uint32_t *)step->witness->host)[step->witness_index] = w;
    }
    ((bb4_t *)step->dst->host)[step->dst_index] = gs_transcript_sample_ext(&ts);
    memcpy(words, ts.st, sizeof ts.st);
    words[GS_P2_WIDTH] = ts.absorb_idx;
    words[GS_P2_WIDTH + 1] = ts.sample_idx;
    return GLSTARK_OK;
}

static glstark_status cpu_stream_begin(gs_engine *eng, gs_merkle_stream *ms)
{
    return gs_buf_create(eng, ms->class_rows * GS_DIGEST_LEN * sizeof(bb_t), &ms->states);
}

static glstark_status cpu_stream_columns(gs_engine *eng, gs_merkle_stream *ms, size_t ncols)
{
    bb_t *states = ms->states->host, *digests = ms->digests->host;
    const gs_workers workers = gs_cpu_workers(eng);
    gs_merkle_absorb_columns(states, ms->group->host, ms->class_rows, ms->width, ms->group_cols, ms->next_col, ncols,
                             workers);
    if (ms->next_col + ncols < ms->width)
        return GLSTARK_OK;
    glstark_status st = gs_merkle_build_bottom_from_leaves(states, ms->class_rows, ms->log_k, ms->log_classes, ms->cls,
                                                           workers, digests, &eng->err);
    if (!st && ms->cls + 1 == ((size_t)1 << ms->log_classes))
        gs_merkle_build_upper(ms->height, ms->log_k, workers, digests);
    return st;
}

const gs_hash_ops gs_cpu_hash_ops = {
    .merkle_commit = cpu_merkle_commit,
    .merkle_open = cpu_merkle_open,
    .grind = cpu_grind,
    .sponge_step = cpu_sponge_step,
    .stream_begin = cpu_stream_begin,
    .stream_columns = cpu_stream_columns,
};
