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

/* What the rounds share: the inputs, the sampled challenges and the
 * running claim, and scratch sized once from the parameters. */
typedef struct whir_state {
    gs_transcript *ts;
    const gs_whir_params *prm;
    const gs_whir_proof *pf;
    const gs_whir_digest *commits;
    const uint32_t *widths;
    uint32_t num_commits;
    size_t rows, total_width;
    bb4_t claim;
    bb4_t *mu_pows;                        /* total_width powers of mu */
    bb4_t *alphas;                         /* nu * k folding challenges */
    bb_t *zs[GS_WHIR_PROOF_MAX_ROUNDS];    /* per round, each query's z */
    bb4_t gammas[GS_WHIR_PROOF_MAX_ROUNDS];
    bb4_t z0s[GS_WHIR_PROOF_MAX_ROUNDS];   /* OOD points (all rounds but the last) */
    bb4_t *vals, *scratch;
    gs_whir_digest *tmp;
    bb_t *flat;
} whir_state;

static void state_free(whir_state *S)
{
    free(S->mu_pows);
    free(S->alphas);
    free(S->vals);
    free(S->tmp);
    free(S->scratch);
    free(S->flat);
    for (uint32_t i = 0; i < GS_WHIR_PROOF_MAX_ROUNDS; i++)
        free(S->zs[i]);
}

static glstark_status state_alloc(whir_state *S, gs_error *err)
{
    const gs_whir_params *prm = S->prm;
    const size_t rows = S->rows;
    S->mu_pows = malloc((S->total_width ? S->total_width : 1) * sizeof(bb4_t));
    S->alphas = malloc((size_t)prm->num_rounds * prm->k * sizeof(bb4_t));
    S->vals = malloc(rows * sizeof(bb4_t));
    S->tmp = malloc(rows * sizeof(gs_whir_digest));
    S->scratch = malloc(((size_t)S->pf->final_poly_len + 1) * sizeof(bb4_t));
    S->flat = malloc(rows * 4 * sizeof(bb_t));
    int fail = !S->mu_pows || !S->alphas || !S->vals || !S->tmp || !S->scratch || !S->flat;
    for (uint32_t i = 0; i < prm->num_rounds && !fail; i++) {
        S->zs[i] = malloc(((size_t)prm->num_queries[i] + 1) * sizeof(bb_t));
        fail = !S->zs[i];
    }
    return fail ? gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir verify: out of host memory") : GLSTARK_OK;
}

/* Round i's k sumcheck steps: observe the two evaluations, check the
 * folding witness, sample the folding challenge, update the claim. */
static glstark_status sumcheck_round(whir_state *S, uint32_t i, gs_error *err)
{
    const uint32_t k = S->prm->k;
    bb4_t *a = S->alphas + (size_t)i * k;
    for (uint32_t j = 0; j < k; j++) {
        size_t s = (size_t)i * k + j;
        bb4_t e1 = S->pf->sumcheck_polys[2 * s], e2 = S->pf->sumcheck_polys[2 * s + 1];
        gs_transcript_observe_ext(S->ts, e1);
        gs_transcript_observe_ext(S->ts, e2);
        if (!witness_ok(S->ts, S->prm->folding_pow_bits, S->pf->folding_pow_witnesses[s]))
            return gs_error_set(err, GLSTARK_ERR_REJECTED,
                                "whir verify: folding proof-of-work witness check failed (round %u, sumcheck %u)", i,
                                j);
        a[j] = gs_transcript_sample_ext(S->ts);
        S->claim = gs_interp_012(bb4_sub(S->claim, e1), e1, e2, a[j]);
    }
    return GLSTARK_OK;
}

/* Round 0, query q: each commit's opened rows against its root, then the
 * mu-combination of all columns into vals. */
static glstark_status open_initial_query(whir_state *S, uint32_t q, uint32_t idx, gs_error *err)
{
    const gs_whir_proof *pf = S->pf;
    const size_t rows = S->rows;
    for (size_t t = 0; t < rows; t++)
        S->vals[t] = bb4_zero();
    size_t j0 = 0;
    for (uint32_t c = 0; c < S->num_commits; c++) {
        const uint32_t width = S->widths[c];
        const bb_t *r = pf->initial_rows[c] + (size_t)q * rows * width;
        gs_whir_digest leaf;
        query_digest(r, rows, width, &leaf, S->tmp);
        if (!merkle_ok(&S->commits[c], idx, leaf, pf->initial_proofs[c] + (size_t)q * pf->initial_merkle_depth,
                       pf->initial_merkle_depth))
            return gs_error_set(err, GLSTARK_ERR_REJECTED,
                                "whir verify: Merkle opening of commit %u at query %u (index %u) does not "
                                "match the commitment",
                                c, q, idx);
        for (uint32_t col = 0; col < width; col++)
            for (size_t t = 0; t < rows; t++)
                S->vals[t] = bb4_add(S->vals[t], bb4_mul_base(S->mu_pows[j0 + col], r[t * width + col]));
        j0 += width;
    }
    return GLSTARK_OK;
}

/* Round i >= 1, query q: the opened codeword values against the previous
 * round's commitment, into vals. */
static glstark_status open_codeword_query(whir_state *S, uint32_t i, uint32_t q, uint32_t idx, gs_error *err)
{
    const gs_whir_proof *pf = S->pf;
    const size_t rows = S->rows;
    const bb4_t *v = pf->codeword_values[i - 1] + (size_t)q * rows;
    for (size_t t = 0; t < rows; t++) {
        S->vals[t] = v[t];
        memcpy(S->flat + 4 * t, v[t].c, 4 * sizeof(bb_t));
    }
    gs_whir_digest leaf;
    query_digest(S->flat, rows, 4, &leaf, S->tmp);
    size_t depth = pf->first_codeword_merkle_depth - (i - 1);
    if (!merkle_ok(&pf->codeword_commits[i - 1], idx, leaf, pf->codeword_proofs[i - 1] + (size_t)q * depth, depth))
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "whir verify: Merkle opening of round %u codeword at query %u (index %u) does not "
                            "match its commitment",
                            i, q, idx);
    return GLSTARK_OK;
}

/* Round i's queries on the domain of size 2^log_rs: sample the indices,
 * open and fold each, sample gamma and add the round's terms (the OOD
 * answer y0 too, but in the last round) to the claim. */
static glstark_status query_round(whir_state *S, uint32_t i, uint32_t log_rs, bb4_t y0, gs_error *err)
{
    const uint32_t k = S->prm->k, nq = S->prm->num_queries[i];
    const int last = i + 1 == S->prm->num_rounds;
    const bb_t omega = bb_two_adic_generator(log_rs);
    /* indices are all sampled before any is used; sampling order is the transcript order */
    uint32_t *idx = malloc(((size_t)nq + 1) * sizeof(uint32_t));
    bb4_t *ys = malloc(((size_t)nq + 1) * sizeof(bb4_t));
    glstark_status st = GLSTARK_OK;
    if (!idx || !ys) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir verify: out of host memory");
        goto done;
    }
    for (uint32_t q = 0; q < nq; q++)
        idx[q] = gs_transcript_sample_bits(S->ts, log_rs - k);
    for (uint32_t q = 0; q < nq; q++) {
        bb_t x = bb_pow(omega, idx[q]);
        S->zs[i][q] = bb_pow(x, (uint64_t)1 << k);
        st = i == 0 ? open_initial_query(S, q, idx[q], err) : open_codeword_query(S, i, q, idx[q], err);
        if (st)
            goto done;
        ys[q] = gs_whir_binary_k_fold(S->vals, S->alphas + (size_t)i * k, k, x);
    }
    bb4_t gamma = gs_transcript_sample_ext(S->ts);
    S->gammas[i] = gamma;
    bb4_t claim_add = last ? bb4_zero() : bb4_mul(y0, gamma);
    bb4_t gp = bb4_mul(gamma, gamma);
    for (uint32_t q = 0; q < nq; q++) {
        claim_add = bb4_add(claim_add, bb4_mul(ys[q], gp));
        gp = bb4_mul(gp, gamma);
    }
    S->claim = bb4_add(S->claim, claim_add);
done:
    free(idx);
    free(ys);
    return st;
}

/* The final polynomial against the accumulated constraint: 1 if it holds. */
static int final_check(const whir_state *S, const bb4_t *u, uint32_t L)
{
    const uint32_t k = S->prm->k, nu = S->prm->num_rounds;
    const uint32_t t = k * nu;
    const bb4_t *c = S->pf->final_poly;
    const uint32_t clen = S->pf->final_poly_len;
    bb4_t acc = bb4_mul(gs_whir_eval_mobius_eq(u, S->alphas, t), gs_whir_eval_mle(c, u + t, L - t, S->scratch));
    bb4_t pw[64];
    for (uint32_t i = 0; i < nu; i++) {
        uint32_t j = k * (i + 1);
        const bb4_t *A = S->alphas + j;
        uint32_t s = t - j; /* |A| */
        bb4_t gamma = S->gammas[i];
        if (i + 1 != nu) {
            bb4_t z = S->z0s[i];
            for (uint32_t e = 0; e < s; e++) {
                pw[e] = z;
                z = bb4_square(z);
            }
            acc = bb4_add(acc, bb4_mul(bb4_mul(gamma, gs_eq_mle(A, pw, s)), gs_horner(c, clen, z)));
        }
        bb4_t gp = bb4_mul(gamma, gamma);
        for (uint32_t q = 0; q < S->prm->num_queries[i]; q++) {
            bb_t z = S->zs[i][q];
            for (uint32_t e = 0; e < s; e++) {
                pw[e] = bb4_from_base(z);
                z = bb_square(z);
            }
            acc = bb4_add(acc, bb4_mul(bb4_mul(gp, gs_eq_mle(A, pw, s)), gs_horner(c, clen, bb4_from_base(z))));
            gp = bb4_mul(gp, gamma);
        }
    }
    return bb4_eq(acc, S->claim);
}

/* The arguments against each other and the proof's shape against the
 * parameters; *total_width is the number of stacked columns. */
static glstark_status check_inputs(const gs_whir_params *prm, const gs_whir_proof *pf, const uint32_t *widths,
                                   uint32_t num_commits, size_t num_openings, size_t u_len, size_t *total_width,
                                   gs_error *err)
{
    glstark_status st = gs_whir_params_check(prm, err);
    if (st)
        return st;
    const uint32_t L = prm->l_skip + prm->n_stack;
    if (u_len != L)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir verify: the point has %zu coordinates, the stacked matrix has L = %u variables",
                            u_len, L);
    if (num_commits == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir verify: no commitments to open");
    *total_width = 0;
    for (uint32_t c = 0; c < num_commits; c++)
        *total_width += widths[c];
    if (num_openings != *total_width)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir verify: %zu claimed values for %zu stacked columns; pass one claim per column",
                            num_openings, *total_width);
    return gs_whir_proof_check_shape(pf, prm, widths, num_commits, err);
}

glstark_status gs_whir_verify(gs_transcript *ts, const gs_whir_params *prm, const gs_whir_proof *pf,
                              const gs_whir_digest *commits, const uint32_t *widths, uint32_t num_commits,
                              const bb4_t *openings, size_t num_openings, const bb4_t *u, size_t u_len,
                              gs_error *err)
{
    size_t total_width = 0;
    glstark_status st = check_inputs(prm, pf, widths, num_commits, num_openings, u_len, &total_width, err);
    if (st)
        return st;
    whir_state S;
    memset(&S, 0, sizeof S);
    S.ts = ts;
    S.prm = prm;
    S.pf = pf;
    S.commits = commits;
    S.widths = widths;
    S.num_commits = num_commits;
    S.rows = (size_t)1 << prm->k;
    S.total_width = total_width;
    if ((st = state_alloc(&S, err)))
        goto out;

    if (!witness_ok(ts, prm->mu_pow_bits, pf->mu_pow_witness)) {
        st = gs_error_set(err, GLSTARK_ERR_REJECTED, "whir verify: mu proof-of-work witness check failed");
        goto out;
    }
    bb4_t mu = gs_transcript_sample_ext(ts);
    bb4_t mp = bb4_one();
    S.claim = bb4_zero();
    for (size_t j = 0; j < total_width; j++) {
        S.mu_pows[j] = mp;
        S.claim = bb4_add(S.claim, bb4_mul(mp, openings[j]));
        mp = bb4_mul(mp, mu);
    }

    const uint32_t L = prm->l_skip + prm->n_stack, nu = prm->num_rounds;
    uint32_t log_rs = L + prm->log_blowup;
    for (uint32_t i = 0; i < nu; i++, log_rs--) {
        if ((st = sumcheck_round(&S, i, err)))
            goto out;
        bb4_t y0 = bb4_zero();
        if (i + 1 == nu) {
            for (uint32_t c = 0; c < pf->final_poly_len; c++)
                gs_transcript_observe_ext(ts, pf->final_poly[c]);
        } else {
            gs_transcript_observe_commit(ts, pf->codeword_commits[i].v);
            S.z0s[i] = gs_transcript_sample_ext(ts);
            y0 = pf->ood_values[i];
            gs_transcript_observe_ext(ts, y0);
        }
        if (!witness_ok(ts, prm->query_phase_pow_bits, pf->query_pow_witnesses[i])) {
            st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                              "whir verify: query-phase proof-of-work witness check failed (round %u)", i);
            goto out;
        }
        if ((st = query_round(&S, i, log_rs, y0, err)))
            goto out;
    }
    if (!final_check(&S, u, L))
        st = gs_error_set(err, GLSTARK_ERR_REJECTED,
                          "whir verify: final polynomial does not satisfy the accumulated WHIR constraint");
out:
    state_free(&S);
    return st;
}
