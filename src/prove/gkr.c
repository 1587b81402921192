/* LogUp GKR prover (docs/protocol.md, 'LogUp GKR'). */
#include "prove/gkr.h"

#include "engine/read_later.h"
#include "prove/sponge_rounds.h"

#include <stdlib.h>
#include <string.h>

static glstark_status eng_fail(gs_engine *eng, gs_error *err, const char *what)
{
    gs_error_set(err, eng->err.status ? eng->err.status : GLSTARK_ERR_INTERNAL, "gkr prover: %s: %s", what, eng->err.msg);
    return err ? err->status : GLSTARK_ERR_INTERNAL;
}

static void observe_claims(gs_fs *fs, const gs_gkr_layer_claims *c)
{
    /* observed p0, q0, p1, q1 although encoded p0, p1, q0, q1 */
    gs_fs_observe_ext(fs, c->p0);
    gs_fs_observe_ext(fs, c->q0);
    gs_fs_observe_ext(fs, c->p1);
    gs_fs_observe_ext(fs, c->q1);
}

glstark_status gs_gkr_prove(gs_engine *eng, gs_fs *fs, gs_buf *p, gs_buf *q, uint32_t R,
                            gs_gkr_proof *out, bb4_t *xi, gs_error *err)
{
    if (!eng->gkr)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED, "gkr prover: engine '%s' has no gkr family", eng->core->name);
    if (R == 0 || R > 40)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "gkr prover: %u layers requested; need 1..40", R);
    glstark_status st = gs_gkr_proof_alloc(out, R, err);
    if (st)
        return st;
    const gs_gkr_ops *ops = eng->gkr;
    /* layers[j] for j = 0..R-1 (layer R is the caller's p, q) */
    gs_buf **lp = calloc(R + 1, sizeof(gs_buf *)), **lq = calloc(R + 1, sizeof(gs_buf *));
    gs_buf *eq = NULL;
    bb4_t *rho = calloc(R, sizeof(bb4_t));
    /* with the transcript itself behind fs, a layer's rounds sample on the
     * engine's sponge (prove/sponge_rounds.h) and come back with its claims */
    gs_sponge_rounds dr = {0};
    const int on_engine = fs->ts && gs_sponge_rounds_usable(eng, 0);
    if (!lp || !lq || !rho) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "gkr prover: allocation failed");
        goto done;
    }
    lp[R] = p;
    lq[R] = q;
    for (uint32_t j = R; j-- > 0;) {
        size_t n = (size_t)1 << j;
        if (gs_buf_create(eng, n * sizeof(bb4_t), &lp[j]) || gs_buf_create(eng, n * sizeof(bb4_t), &lq[j])) {
            st = eng_fail(eng, err, "allocating a tree layer");
            goto done;
        }
        if (ops->layer_up(eng, lp[j + 1], lq[j + 1], n, lp[j], lq[j])) {
            st = eng_fail(eng, err, "building a tree layer");
            goto done;
        }
    }
    bb4_t root[2], l1[4];
    /* the root and layer 1 in one host sync: the first three reads come
     * along with the fourth (engine/read_later.h) */
    if (gs_buf_read_later(lp[0], 0, &root[0], sizeof(bb4_t), 1, 0) ||
        gs_buf_read_later(lq[0], 0, &root[1], sizeof(bb4_t), 1, 0) ||
        gs_buf_read_later(lp[1], 0, &l1[0], 2 * sizeof(bb4_t), 1, 0) ||
        gs_buf_read(lq[1], 0, &l1[2], 2 * sizeof(bb4_t))) {
        gs_engine_read_drop(eng);
        st = eng_fail(eng, err, "reading the root");
        goto done;
    }
    if (!bb4_is_zero(root[0])) {
        st = gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                          "gkr prover: the LogUp fractions do not sum to zero (root numerator nonzero); the interactions are unbalanced");
        goto done;
    }
    out->q0_claim = root[1];
    gs_fs_observe_ext(fs, root[1]);
    out->claims[0].p0 = l1[0];
    out->claims[0].p1 = l1[1];
    out->claims[0].q0 = l1[2];
    out->claims[0].q1 = l1[3];
    observe_claims(fs, &out->claims[0]);
    xi[0] = gs_fs_sample_ext(fs);
    if (R > 1 && gs_buf_create(eng, ((size_t)1 << (R - 1)) * sizeof(bb4_t), &eq)) {
        st = eng_fail(eng, err, "allocating the eq table");
        goto done;
    }
    for (uint32_t j = 1; j < R; j++) {
        bb4_t lambda = gs_fs_sample_ext(fs);
        /* xi currently holds xi^(j) = (mu_j, rho_0..rho_{j-2}) */
        if (ops->eq_table(eng, xi, j, eq)) {
            st = eng_fail(eng, err, "building the eq table");
            goto done;
        }
        if (on_engine && (st = gs_sponge_rounds_begin(&dr, eng, fs->ts, j, 3, 0, err)))
            goto done;
        for (uint32_t k = 0; k < j; k++) {
            size_t m = (size_t)1 << (j - k); /* live y values */
            bb4_t *dst = gs_gkr_round_sums(out, j, k);
            gs_chal r;
            if (ops->round(eng, eq, lp[j + 1], lq[j + 1], m / 2, lambda,
                           on_engine ? gs_sponge_rounds_sums(&dr) : gs_sums_host(dst))) {
                st = eng_fail(eng, err, "a sumcheck round");
                goto done;
            }
            if (on_engine) {
                if ((st = gs_sponge_rounds_step(&dr, &r, err)))
                    goto done;
            } else {
                for (int i = 0; i < 3; i++)
                    gs_fs_observe_ext(fs, dst[i]);
                rho[k] = gs_fs_sample_ext(fs);
                r = gs_chal_value(rho[k]);
            }
            if (ops->fold(eng, eq, m / 2, 1, r, eq) || ops->fold(eng, lp[j + 1], m / 2, 2, r, lp[j + 1]) ||
                ops->fold(eng, lq[j + 1], m / 2, 2, r, lq[j + 1])) {
                st = eng_fail(eng, err, "folding");
                goto done;
            }
        }
        if (on_engine && (st = gs_sponge_rounds_read_later(&dr, err)))
            goto done;
        bb4_t c[4];
        /* both claims (and the rounds on the engine's sponge) in one host sync */
        if (gs_buf_read_later(lp[j + 1], 0, &c[0], 2 * sizeof(bb4_t), 1, 0) ||
            gs_buf_read(lq[j + 1], 0, &c[2], 2 * sizeof(bb4_t))) {
            gs_engine_read_drop(eng);
            st = eng_fail(eng, err, "reading layer claims");
            goto done;
        }
        for (uint32_t k = 0; on_engine && k < j; k++)
            if ((st = gs_sponge_rounds_replay(&dr, fs->ts, k, gs_gkr_round_sums(out, j, k), NULL, &rho[k], err)))
                goto done;
        gs_sponge_rounds_free(&dr);
        out->claims[j].p0 = c[0];
        out->claims[j].p1 = c[1];
        out->claims[j].q0 = c[2];
        out->claims[j].q1 = c[3];
        observe_claims(fs, &out->claims[j]);
        xi[0] = gs_fs_sample_ext(fs);
        for (uint32_t k = 0; k < j; k++)
            xi[k + 1] = rho[k];
    }
    st = GLSTARK_OK;
done:
    if (st)
        gs_engine_read_drop(eng);
    gs_sponge_rounds_free(&dr);
    if (lp)
        for (uint32_t j = 0; j < R; j++)
            gs_buf_destroy(lp[j]);
    if (lq)
        for (uint32_t j = 0; j < R; j++)
            gs_buf_destroy(lq[j]);
    gs_buf_destroy(eq);
    free(lp);
    free(lq);
    free(rho);
    if (st)
        gs_gkr_proof_free(out);
    return st;
}
