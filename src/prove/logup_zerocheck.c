/* LogUp GKR followed by the batch constraint sumcheck (docs/protocol.md, 'Transcript order of a proof',
 * T4..T13). */
#include "prove/logup_zerocheck.h"

#include "prove/spans.h"

#include <stdlib.h>
#include <string.h>

/* Leaf slot of every (trace, interaction): consecutive, in order (LogUp GKR input layer). */
static uint64_t *slots_of(const gs_batch_trace *traces, uint32_t M, uint32_t l_skip)
{
    size_t n = gs_batch_total_interactions(traces, M);
    uint64_t *s = calloc(n + 1, sizeof(uint64_t));
    if (!s)
        return NULL;
    uint64_t cur = 0;
    size_t k = 0;
    for (uint32_t t = 0; t < M; t++) {
        uint32_t nt = gs_batch_ntilde(&traces[t], l_skip);
        for (uint32_t i = 0; i < traces[t].dag->n_interactions; i++, cur += (uint64_t)1 << (l_skip + nt))
            s[k++] = cur;
    }
    return s;
}

glstark_status gs_lz_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t M, uint32_t l_skip,
                           uint32_t D, int check_rows, gs_lz_proof *out, bb4_t *r, gs_open_sums *keep, gs_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!eng->gkr)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED, "logup/zerocheck prover: engine '%s' has no gkr family",
                            eng->core->name);
    if (M == 0 || l_skip == 0 || l_skip > 8)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "logup/zerocheck prover: %u traces with l_skip %u; need >= 1 trace and l_skip 1..8", M, l_skip);
    for (uint32_t t = 1; t < M; t++)
        if (traces[t].log_height > traces[t - 1].log_height)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "logup/zerocheck prover: traces must be sorted by height, descending (trace %u is taller "
                                "than trace %u)",
                                t, t - 1);
    gs_batch_trace *shp = gs_zc_trace_shapes(traces, M);
    if (!shp)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "logup/zerocheck prover: allocation failed");
    gs_lz_shape sh;
    gs_lz_shape_of(shp, M, l_skip, &sh);
    if (sh.gkr_layers > 40) {
        free(shp);
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "logup/zerocheck prover: %llu interaction rows are too many",
                            (unsigned long long)sh.total_interactions);
    }
    uint64_t *slots = sh.gkr_layers ? slots_of(shp, M, l_skip) : NULL;
    free(shp);
    bb4_t *xi = calloc(sh.xi_len + 1, sizeof(bb4_t));
    if (!xi || (sh.gkr_layers && !slots)) {
        free(xi);
        free(slots);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "logup/zerocheck prover: allocation failed");
    }
    glstark_status st;
    /* T4 */
    bb4_t alpha = gs_fs_sample_ext(fs), beta = gs_fs_sample_ext(fs);
    uint32_t len = 0;
    int sp = gs_span_eng_begin(eng, "logup_gkr");
    if (sh.gkr_layers) {
        /* T5 */
        size_t n = (size_t)1 << sh.gkr_layers;
        gs_buf *p = NULL, *q = NULL;
        if (gs_buf_create(eng, n * sizeof(bb4_t), &p) || gs_buf_create(eng, n * sizeof(bb4_t), &q) ||
            eng->gkr->input_layer(eng, traces, M, slots, l_skip, alpha, beta, n, p, q)) {
            st = gs_error_set(err, eng->err.status ? eng->err.status : GLSTARK_ERR_INTERNAL,
                              "logup/zerocheck prover: GKR input layer: %s", eng->err.msg);
            free(slots);
            gs_buf_destroy(p);
            gs_buf_destroy(q);
            goto fail;
        }
        free(slots);
        st = gs_gkr_prove(eng, fs, p, q, sh.gkr_layers, &out->gkr, xi, err);
        gs_buf_destroy(p);
        gs_buf_destroy(q);
        if (st)
            goto fail;
        len = sh.gkr_layers;
    } else {
        out->gkr.q0_claim = bb4_one();
    }
    /* T6 */
    while (len < sh.xi_len)
        xi[len++] = gs_fs_sample_ext(fs);
    gs_span_eng_end(eng, sp);
    /* T7..T13 */
    st = gs_batch_prove(eng, fs, traces, M, l_skip, D, sh.n_logup, xi, beta, check_rows, &out->batch, r, keep, err);
    if (st)
        goto fail;
    free(xi);
    return GLSTARK_OK;
fail:
    free(xi);
    gs_lz_proof_free(out);
    return st;
}
