/* LogUp GKR followed by the batch constraint sumcheck, verifier
 * (docs/protocol.md, 'Transcript order of a proof', T4..T13). */
#include "verify/logup_zerocheck_verify.h"

#include "verify/gkr_verify.h"
#include "verify/zerocheck_verify.h"

#include <stdlib.h>

glstark_status gs_lz_verify(gs_fs *fs, const gs_batch_trace *traces, uint32_t M, uint32_t l_skip, uint32_t D,
                            const gs_lz_proof *pf, bb4_t *r, gs_error *err)
{
    if (M == 0 || l_skip == 0 || l_skip > 8)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "logup/zerocheck verifier: %u traces with l_skip %u", M,
                            l_skip);
    gs_lz_shape sh;
    gs_lz_shape_of(traces, M, l_skip, &sh);
    if (pf->gkr.n_layers != sh.gkr_layers)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "logup/zerocheck verifier: GKR proof has %u layers, expected %u",
                            pf->gkr.n_layers, sh.gkr_layers);
    bb4_t *xi = calloc(sh.xi_len + 1, sizeof(bb4_t));
    if (!xi)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "logup/zerocheck verifier: allocation failed");
    glstark_status st;
    bb4_t alpha = gs_fs_sample_ext(fs), beta = gs_fs_sample_ext(fs);
    bb4_t pc = bb4_zero(), qc = alpha;
    uint32_t len = 0;
    if (sh.gkr_layers) {
        st = gs_gkr_verify(fs, &pf->gkr, sh.gkr_layers, xi, &pc, &qc, err);
        if (st)
            goto out;
        len = sh.gkr_layers;
    } else if (!bb4_eq(pf->gkr.q0_claim, bb4_one())) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                          "logup/zerocheck verifier: no interactions, so the GKR q0 claim must be 1");
        goto out;
    }
    while (len < sh.xi_len)
        xi[len++] = gs_fs_sample_ext(fs);
    st = gs_batch_verify(fs, traces, M, l_skip, D, sh.n_logup, xi, alpha, beta, pc, qc, &pf->batch, r, err);
out:
    free(xi);
    return st;
}
