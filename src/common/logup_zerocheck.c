/* The LogUp + zerocheck proof's shape (see logup_zerocheck.h). */
#include "common/logup_zerocheck.h"

#include <string.h>

void gs_lz_proof_free(gs_lz_proof *pf)
{
    gs_gkr_proof_free(&pf->gkr);
    gs_batch_proof_free(&pf->batch);
}

void gs_lz_shape_of(const gs_batch_trace *traces, uint32_t M, uint32_t l_skip, gs_lz_shape *out)
{
    memset(out, 0, sizeof(*out));
    for (uint32_t t = 0; t < M; t++) {
        uint32_t nt = gs_batch_ntilde(&traces[t], l_skip);
        out->total_interactions += (uint64_t)traces[t].dag->n_interactions << (l_skip + nt);
    }
    out->n_logup = gs_gkr_n_logup(out->total_interactions, l_skip);
    out->gkr_layers = out->total_interactions ? l_skip + out->n_logup : 0;
    out->n_max = gs_batch_n_max(traces, M, l_skip);
    out->xi_len = l_skip + (out->n_max > out->n_logup ? out->n_max : out->n_logup);
}
