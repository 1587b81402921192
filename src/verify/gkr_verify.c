/* LogUp GKR verifier (docs/protocol.md, 'LogUp GKR'; OpenVM verify_gkr). */
#include "verify/gkr_verify.h"
#include "common/poly.h"

#include <stdlib.h>

static bb4_t lin01(bb4_t a0, bb4_t a1, bb4_t mu) { return bb4_add(a0, bb4_mul(mu, bb4_sub(a1, a0))); }

glstark_status gs_gkr_verify(gs_fs *fs, const gs_gkr_proof *pf, uint32_t R, bb4_t *xi, bb4_t *p_claim,
                             bb4_t *q_claim, gs_error *err)
{
    if (R == 0 || pf->n_layers != R)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "gkr verifier: proof has %u layers, expected %u", pf->n_layers, R);
    bb4_t *rho = calloc(R, sizeof(bb4_t));
    if (!rho)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "gkr verifier: allocation failed");
    glstark_status st = GLSTARK_OK;
    gs_fs_observe_ext(fs, pf->q0_claim);
    const gs_gkr_layer_claims *c = &pf->claims[0];
    bb4_t num = bb4_add(bb4_mul(c->p0, c->q1), bb4_mul(c->p1, c->q0));
    if (!bb4_is_zero(num)) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED, "gkr verifier: layer 0 numerator p0 q1 + p1 q0 is not zero");
        goto done;
    }
    if (!bb4_eq(bb4_mul(c->q0, c->q1), pf->q0_claim)) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED, "gkr verifier: layer 0 denominator q0 q1 differs from q0_claim");
        goto done;
    }
    gs_fs_observe_ext(fs, c->p0);
    gs_fs_observe_ext(fs, c->q0);
    gs_fs_observe_ext(fs, c->p1);
    gs_fs_observe_ext(fs, c->q1);
    bb4_t mu = gs_fs_sample_ext(fs);
    bb4_t P = lin01(c->p0, c->p1, mu), Q = lin01(c->q0, c->q1, mu);
    xi[0] = mu;
    for (uint32_t j = 1; j < R; j++) {
        bb4_t lambda = gs_fs_sample_ext(fs);
        bb4_t claim = bb4_add(P, bb4_mul(lambda, Q));
        bb4_t eq = bb4_one();
        for (uint32_t k = 0; k < j; k++) {
            const bb4_t *s = gs_gkr_round_sums(pf, j, k);
            bb4_t ev[4];
            ev[0] = bb4_sub(claim, s[0]);
            for (int i = 0; i < 3; i++) {
                ev[i + 1] = s[i];
                gs_fs_observe_ext(fs, s[i]);
            }
            rho[k] = gs_fs_sample_ext(fs);
            claim = gs_interp_cubic_0123(ev, rho[k]);
            eq = bb4_mul(eq, gs_eq1(xi[k], rho[k]));
        }
        c = &pf->claims[j];
        gs_fs_observe_ext(fs, c->p0);
        gs_fs_observe_ext(fs, c->q0);
        gs_fs_observe_ext(fs, c->p1);
        gs_fs_observe_ext(fs, c->q1);
        bb4_t expect = bb4_add(bb4_add(bb4_mul(c->p0, c->q1), bb4_mul(c->p1, c->q0)),
                               bb4_mul(lambda, bb4_mul(c->q0, c->q1)));
        if (!bb4_eq(bb4_mul(expect, eq), claim)) {
            st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                              "gkr verifier: layer %u sumcheck final claim does not match the layer claims", j);
            goto done;
        }
        mu = gs_fs_sample_ext(fs);
        P = lin01(c->p0, c->p1, mu);
        Q = lin01(c->q0, c->q1, mu);
        xi[0] = mu;
        for (uint32_t k = 0; k < j; k++)
            xi[k + 1] = rho[k];
    }
    *p_claim = P;
    *q_claim = Q;
done:
    free(rho);
    return st;
}
