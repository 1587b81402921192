/* The WHIR verifier (SB/verifier/whir.rs `verify_whir`), with every
 * transcript operation in OpenVM's order; notes in docs/protocol.md, 'WHIR'. */
#include <stdlib.h>
#include <string.h>

#include "verify/whir_verify.h"
#include "hash/poseidon2.h"
#include "common/transcript.h"
#include "common/poly.h"
#include "common/whir_poly.h"

/* check_witness on the transcript (it advances even on a wrong witness). */
static int witness_ok(gs_transcript *ts, unsigned bits, bb_t w)
{
    gs_error e;
    return gs_transcript_check_witness(ts, bits, bb_to_canonical(w), &e) == GLSTARK_OK;
}

/* Leaf digest of one query: tree_compress over the 2^k row hashes. */
static void query_digest(const bb_t *rows, size_t nrows, size_t width, gs_whir_digest *out, gs_whir_digest *tmp)
{
    for (size_t t = 0; t < nrows; t++)
        gs_poseidon2_hash(rows + t * width, width, tmp[t].v);
    for (size_t n = nrows; n > 1; n /= 2)
        for (size_t i = 0; i < n / 2; i++)
            gs_poseidon2_compress(tmp[2 * i].v, tmp[2 * i + 1].v, tmp[i].v);
    *out = tmp[0];
}

static int merkle_ok(const gs_whir_digest *root, uint32_t idx, gs_whir_digest cur, const gs_whir_digest *sib,
                     size_t depth)
{
    for (size_t d = 0; d < depth; d++) {
        gs_whir_digest nx;
        if ((idx & 1) == 0)
            gs_poseidon2_compress(cur.v, sib[d].v, nx.v);
        else
            gs_poseidon2_compress(sib[d].v, cur.v, nx.v);
        cur = nx;
        idx >>= 1;
    }
    return memcmp(&cur, root, sizeof cur) == 0;
}

glstark_status gs_whir_verify(gs_transcript *ts, const gs_whir_params *prm, const gs_whir_proof *pf,
                              const gs_whir_digest *commits, const uint32_t *widths, uint32_t num_commits,
                              const bb4_t *openings, size_t num_openings, const bb4_t *u, size_t u_len,
                              gs_error *err)
{
    glstark_status st = gs_whir_params_check(prm, err);
    if (st)
        return st;
    const uint32_t L = prm->l_skip + prm->n_stack, k = prm->k, nu = prm->num_rounds;
    if (u_len != L)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir verify: the point has %zu coordinates, the stacked matrix has L = %u variables",
                            u_len, L);
    if (num_commits == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir verify: no commitments to open");
    size_t total_width = 0;
    for (uint32_t c = 0; c < num_commits; c++)
        total_width += widths[c];
    if (num_openings != total_width)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir verify: %zu claimed values for %zu stacked columns; pass one claim per column",
                            num_openings, total_width);
    if ((st = gs_whir_proof_check_shape(pf, prm, widths, num_commits, err)))
        return st;

    const size_t rows = (size_t)1 << k;
    bb4_t *mu_pows = malloc((total_width ? total_width : 1) * sizeof(bb4_t));
    bb4_t *alphas = malloc((size_t)nu * k * sizeof(bb4_t));
    bb4_t *vals = malloc(rows * sizeof(bb4_t));
    gs_whir_digest *tmp = malloc(rows * sizeof(gs_whir_digest));
    bb_t *zs[GS_WHIR_PROOF_MAX_ROUNDS] = {0};
    bb4_t *scratch = malloc(((size_t)pf->final_poly_len + 1) * sizeof(bb4_t));
    bb_t *flat = malloc(rows * 4 * sizeof(bb_t));
    bb4_t gammas[GS_WHIR_PROOF_MAX_ROUNDS], z0s[GS_WHIR_PROOF_MAX_ROUNDS];
    int fail = !mu_pows || !alphas || !vals || !tmp || !scratch || !flat;
    for (uint32_t i = 0; i < nu && !fail; i++) {
        zs[i] = malloc(((size_t)prm->num_queries[i] + 1) * sizeof(bb_t));
        fail = !zs[i];
    }
    if (fail) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir verify: out of host memory");
        goto out;
    }

    if (!witness_ok(ts, prm->mu_pow_bits, pf->mu_pow_witness)) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED, "whir verify: mu proof-of-work witness check failed");
        goto out;
    }
    bb4_t mu = gs_transcript_sample_ext(ts);
    bb4_t claim = bb4_zero(), mp = bb4_one();
    for (size_t j = 0; j < total_width; j++) {
        mu_pows[j] = mp;
        claim = bb4_add(claim, bb4_mul(mp, openings[j]));
        mp = bb4_mul(mp, mu);
    }

    uint32_t log_rs = L + prm->log_blowup;
    for (uint32_t i = 0; i < nu; i++) {
        bb4_t *a = alphas + (size_t)i * k;
        for (uint32_t j = 0; j < k; j++) {
            size_t s = (size_t)i * k + j;
            bb4_t e1 = pf->sumcheck_polys[2 * s], e2 = pf->sumcheck_polys[2 * s + 1];
            gs_transcript_observe_ext(ts, e1);
            gs_transcript_observe_ext(ts, e2);
            if (!witness_ok(ts, prm->folding_pow_bits, pf->folding_pow_witnesses[s])) {
                st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                                  "whir verify: folding proof-of-work witness check failed (round %u, sumcheck %u)", i,
                                  j);
                goto out;
            }
            a[j] = gs_transcript_sample_ext(ts);
            claim = gs_interp_012(bb4_sub(claim, e1), e1, e2, a[j]);
        }
        int last = i + 1 == nu;
        bb4_t y0 = bb4_zero();
        if (last) {
            for (uint32_t c = 0; c < pf->final_poly_len; c++)
                gs_transcript_observe_ext(ts, pf->final_poly[c]);
        } else {
            gs_transcript_observe_commit(ts, pf->codeword_commits[i].v);
            z0s[i] = gs_transcript_sample_ext(ts);
            y0 = pf->ood_values[i];
            gs_transcript_observe_ext(ts, y0);
        }
        if (!witness_ok(ts, prm->query_phase_pow_bits, pf->query_pow_witnesses[i])) {
            st = gs_error_set(err, GLSTARK_ERR_REJECTED, "whir verify: query-phase proof-of-work witness check failed (round %u)", i);
            goto out;
        }
        uint32_t nq = prm->num_queries[i];
        bb_t omega = bb_two_adic_generator(log_rs);
        bb4_t claim_add = bb4_zero();
        /* indices are all sampled before any is used; sampling order is the transcript order */
        uint32_t *idx = (uint32_t *)malloc(((size_t)nq + 1) * sizeof(uint32_t));
        if (!idx) {
            st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir verify: out of host memory");
            goto out;
        }
        for (uint32_t q = 0; q < nq; q++)
            idx[q] = gs_transcript_sample_bits(ts, log_rs - k);
        bb4_t *ys = malloc(((size_t)nq + 1) * sizeof(bb4_t));
        if (!ys) {
            free(idx);
            st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir verify: out of host memory");
            goto out;
        }
        for (uint32_t q = 0; q < nq; q++) {
            bb_t x = bb_pow(omega, idx[q]);
            zs[i][q] = bb_pow(x, (uint64_t)1 << k);
            if (i == 0) {
                for (size_t t = 0; t < rows; t++)
                    vals[t] = bb4_zero();
                size_t j0 = 0;
                for (uint32_t c = 0; c < num_commits; c++) {
                    const bb_t *r = pf->initial_rows[c] + (size_t)q * rows * widths[c];
                    gs_whir_digest leaf;
                    query_digest(r, rows, widths[c], &leaf, tmp);
                    if (!merkle_ok(&commits[c], idx[q], leaf,
                                   pf->initial_proofs[c] + (size_t)q * pf->initial_merkle_depth,
                                   pf->initial_merkle_depth)) {
                        st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                                          "whir verify: Merkle opening of commit %u at query %u (index %u) does not "
                                          "match the commitment",
                                          c, q, idx[q]);
                        free(idx);
                        free(ys);
                        goto out;
                    }
                    for (uint32_t col = 0; col < widths[c]; col++)
                        for (size_t t = 0; t < rows; t++)
                            vals[t] = bb4_add(vals[t], bb4_mul_base(mu_pows[j0 + col], r[t * widths[c] + col]));
                    j0 += widths[c];
                }
            } else {
                const bb4_t *v = pf->codeword_values[i - 1] + (size_t)q * rows;
                for (size_t t = 0; t < rows; t++) {
                    vals[t] = v[t];
                    memcpy(flat + 4 * t, v[t].c, 4 * sizeof(bb_t));
                }
                gs_whir_digest leaf;
                query_digest(flat, rows, 4, &leaf, tmp);
                size_t depth = pf->first_codeword_merkle_depth - (i - 1);
                if (!merkle_ok(&pf->codeword_commits[i - 1], idx[q], leaf, pf->codeword_proofs[i - 1] + (size_t)q * depth,
                               depth)) {
                    st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                                      "whir verify: Merkle opening of round %u codeword at query %u (index %u) does not "
                                      "match its commitment",
                                      i, q, idx[q]);
                    free(idx);
                    free(ys);
                    goto out;
                }
            }
            ys[q] = gs_whir_binary_k_fold(vals, a, k, x);
        }
        free(idx);
        bb4_t gamma = gs_transcript_sample_ext(ts);
        gammas[i] = gamma;
        if (!last)
            claim_add = bb4_mul(y0, gamma);
        bb4_t gp = bb4_mul(gamma, gamma);
        for (uint32_t q = 0; q < nq; q++) {
            claim_add = bb4_add(claim_add, bb4_mul(ys[q], gp));
            gp = bb4_mul(gp, gamma);
        }
        free(ys);
        claim = bb4_add(claim, claim_add);
        log_rs -= 1;
    }

    /* final check */
    {
        const uint32_t t = k * nu;
        const bb4_t *c = pf->final_poly;
        bb4_t acc = bb4_mul(gs_whir_eval_mobius_eq(u, alphas, t),
                            gs_whir_eval_mle(c, u + t, L - t, scratch));
        bb4_t pw[64];
        for (uint32_t i = 0; i < nu; i++) {
            uint32_t j = k * (i + 1);
            const bb4_t *A = alphas + j;
            uint32_t s = t - j; /* |A| */
            bb4_t gamma = gammas[i];
            if (i + 1 != nu) {
                bb4_t z = z0s[i];
                for (uint32_t e = 0; e < s; e++) {
                    pw[e] = z;
                    z = bb4_square(z);
                }
                acc = bb4_add(acc, bb4_mul(bb4_mul(gamma, gs_eq_mle(A, pw, s)), gs_horner(c, pf->final_poly_len, z)));
            }
            bb4_t gp = bb4_mul(gamma, gamma);
            for (uint32_t q = 0; q < prm->num_queries[i]; q++) {
                bb_t z = zs[i][q];
                for (uint32_t e = 0; e < s; e++) {
                    pw[e] = bb4_from_base(z);
                    z = bb_square(z);
                }
                acc = bb4_add(acc, bb4_mul(bb4_mul(gp, gs_eq_mle(A, pw, s)),
                                           gs_horner(c, pf->final_poly_len, bb4_from_base(z))));
                gp = bb4_mul(gp, gamma);
            }
        }
        if (!bb4_eq(acc, claim))
            st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                              "whir verify: final polynomial does not satisfy the accumulated WHIR constraint");
    }
out:
    free(mu_pows);
    free(alphas);
    free(vals);
    free(tmp);
    free(scratch);
    free(flat);
    for (uint32_t i = 0; i < nu && i < GS_WHIR_PROOF_MAX_ROUNDS; i++)
        free(zs[i]);
    return st;
}
