/* Byte codec of the WHIR sub-proof, mirroring stark-backend v2.0.1
 * `impl Encode/Decode for WhirProof` (proof.rs) field by field:
 *   F mu_pow_witness
 *   u32 n_sc; n_sc x [EF s1, EF s2]
 *   u32 n_cw; n_cw x Digest                 (nu = n_cw + 1; n_sc % nu == 0; k = n_sc / nu)
 *   (nu-1) x EF ood;  n_sc x F folding witnesses;  nu x F query witnesses
 *   u32 num_commits (> 0); u32 q0
 *   if q0 > 0: u32 depth0; num_commits x u32 width;
 *              per commit, query, row (2^k): width x F;  per commit, query: depth0 x Digest
 *   per round 1..nu-1: u32 q; q x 2^k x EF
 *   u32 depth1; per round r = 1..nu-1, per query: (depth1 - (r-1)) x Digest
 *   u32 len; len x EF final_poly
 * Lengths that are not on the wire are derived exactly as OpenVM derives
 * them, so decode-then-encode reproduces OpenVM's bytes. */
#include <stdlib.h>
#include <string.h>

#include "protocol/whir_proof.h"

/* With no opened rows there is nothing on the wire bounding num_commits;
 * keep the allocation sane (real proofs have a handful of commits). */
#define WHIR_MAX_COMMITS_WITHOUT_QUERIES (1u << 16)
/* 2^k rows per query: k beyond this cannot come with any opened data. */
#define WHIR_MAX_K 30u

void gs_whir_subproof_free(gs_whir_subproof *p)
{
    if (!p)
        return;
    free(p->sumcheck_polys);
    free(p->codeword_commits);
    free(p->ood_values);
    free(p->folding_pow_witnesses);
    free(p->query_phase_pow_witnesses);
    if (p->initial_rows)
        for (uint32_t c = 0; c < p->num_commits; c++)
            free(p->initial_rows[c]);
    if (p->initial_merkle_proofs)
        for (uint32_t c = 0; c < p->num_commits; c++)
            free(p->initial_merkle_proofs[c]);
    free(p->initial_rows);
    free(p->initial_merkle_proofs);
    free(p->widths);
    if (p->rounds)
        for (uint32_t r = 0; r < p->num_codeword_commits; r++) {
            free(p->rounds[r].values);
            free(p->rounds[r].merkle_proofs);
        }
    free(p->rounds);
    free(p->final_poly);
    memset(p, 0, sizeof *p);
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        glstark_status st_ = (x);                                                                  \
        if (st_ != GLSTARK_OK) {                                                                   \
            gs_whir_subproof_free(out);                                                               \
            return st_;                                                                            \
        }                                                                                          \
    } while (0)

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        gs_rd_fail(rd, __VA_ARGS__);                                                               \
        gs_whir_subproof_free(out);                                                                   \
        return GLSTARK_ERR_MALFORMED;                                                              \
    } while (0)

#define ALLOC(dst, n, what)                                                                        \
    do {                                                                                           \
        (dst) = gs_rd_calloc(rd, (n), sizeof *(dst), (what));                                      \
        if (!(dst)) {                                                                              \
            gs_whir_subproof_free(out);                                                               \
            return GLSTARK_ERR_OUT_OF_MEMORY;                                                      \
        }                                                                                          \
    } while (0)

glstark_status gs_whir_subproof_decode(gs_reader *rd, gs_whir_subproof *out)
{
    memset(out, 0, sizeof *out);
    size_t at;

    TRY(gs_rd_f(rd, &out->mu_pow_witness, "whir_proof.mu_pow_witness"));

    at = rd->pos;
    TRY(gs_rd_u32(rd, &out->num_sumcheck_rounds, "whir_proof.whir_sumcheck_polys length"));
    TRY(gs_rd_check_fits(rd, at, out->num_sumcheck_rounds, 32, "whir_proof.whir_sumcheck_polys length"));
    ALLOC(out->sumcheck_polys, (size_t)out->num_sumcheck_rounds * 2, "whir_sumcheck_polys");
    TRY(gs_rd_ef_n(rd, out->sumcheck_polys, (size_t)out->num_sumcheck_rounds * 2,
                   "whir_proof.whir_sumcheck_polys (flattened [round][2])"));

    at = rd->pos;
    TRY(gs_rd_u32(rd, &out->num_codeword_commits, "whir_proof.codeword_commits length"));
    TRY(gs_rd_check_fits(rd, at, out->num_codeword_commits, 32, "whir_proof.codeword_commits length"));
    ALLOC(out->codeword_commits, out->num_codeword_commits, "codeword_commits");
    TRY(gs_rd_digest_n(rd, out->codeword_commits[0].v, out->num_codeword_commits, "whir_proof.codeword_commits"));

    uint64_t nu = (uint64_t)out->num_codeword_commits + 1;
    if (out->num_sumcheck_rounds % nu != 0)
        FAIL(at, "whir_proof.codeword_commits length",
                          "num_whir_sumcheck_rounds %u is not a multiple of num_whir_rounds %llu "
                          "(= codeword commits + 1)",
                          out->num_sumcheck_rounds, (unsigned long long)nu);
    out->k = (uint32_t)(out->num_sumcheck_rounds / nu);

    ALLOC(out->ood_values, out->num_codeword_commits, "ood_values");
    TRY(gs_rd_ef_n(rd, out->ood_values, out->num_codeword_commits, "whir_proof.ood_values"));
    ALLOC(out->folding_pow_witnesses, out->num_sumcheck_rounds, "folding_pow_witnesses");
    TRY(gs_rd_f_n(rd, out->folding_pow_witnesses, out->num_sumcheck_rounds, "whir_proof.folding_pow_witnesses"));
    ALLOC(out->query_phase_pow_witnesses, nu, "query_phase_pow_witnesses");
    TRY(gs_rd_f_n(rd, out->query_phase_pow_witnesses, nu, "whir_proof.query_phase_pow_witnesses"));

    at = rd->pos;
    TRY(gs_rd_u32(rd, &out->num_commits, "whir_proof.num_commits"));
    if (out->num_commits == 0)
        FAIL(at, "whir_proof.num_commits", "must be nonzero");
    size_t at_q = rd->pos;
    TRY(gs_rd_u32(rd, &out->initial_num_queries, "whir_proof.initial_num_queries"));
    uint32_t nq0 = out->initial_num_queries;
    if (nq0 == 0 && out->num_commits > WHIR_MAX_COMMITS_WITHOUT_QUERIES)
        FAIL(at, "whir_proof.num_commits",
                          "%u commits with no queries exceeds the sanity bound %u", out->num_commits,
                          WHIR_MAX_COMMITS_WITHOUT_QUERIES);
    if (nq0 > 0 && out->k > WHIR_MAX_K)
        FAIL(at_q, "whir_proof.initial_num_queries",
                          "queries with 2^%u rows each cannot fit in any input", out->k);
    uint64_t rows_per_query = nq0 > 0 ? (1ull << out->k) : 0;

    if (nq0 > 0) {
        TRY(gs_rd_u32(rd, &out->initial_merkle_depth, "whir_proof.initial_round_merkle_proofs depth"));
        TRY(gs_rd_check_fits(rd, at, out->num_commits, 4, "whir_proof.num_commits (widths follow)"));
    }
    ALLOC(out->widths, out->num_commits, "widths");
    ALLOC(out->initial_rows, out->num_commits, "initial_round_opened_rows");
    ALLOC(out->initial_merkle_proofs, out->num_commits, "initial_round_merkle_proofs");
    if (nq0 > 0) {
        for (uint32_t c = 0; c < out->num_commits; c++)
            TRY(gs_rd_u32(rd, &out->widths[c], "whir_proof.initial_round_opened_rows width of commit %u", c));
        for (uint32_t c = 0; c < out->num_commits; c++) {
            uint64_t n = (uint64_t)nq0 * rows_per_query;
            /* n * width field elements of 4 bytes each must be present */
            if (out->widths[c] != 0)
                TRY(gs_rd_check_fits(rd, rd->pos, n, (uint64_t)out->widths[c] * 4,
                                     "whir_proof.initial_round_opened_rows[%u] (queries x 2^k rows x width %u)",
                                     c, out->widths[c]));
            size_t cnt = (size_t)(n * out->widths[c]);
            ALLOC(out->initial_rows[c], cnt, "initial_round_opened_rows");
            TRY(gs_rd_f_n(rd, out->initial_rows[c], cnt,
                          "whir_proof.initial_round_opened_rows[%u] (flattened [query][row][col], width %u)", c,
                          out->widths[c]));
        }
        for (uint32_t c = 0; c < out->num_commits; c++) {
            if (out->initial_merkle_depth != 0)
                TRY(gs_rd_check_fits(rd, rd->pos, nq0, (uint64_t)out->initial_merkle_depth * 32,
                                     "whir_proof.initial_round_merkle_proofs[%u] (depth %u)", c,
                                     out->initial_merkle_depth));
            size_t cnt = (size_t)nq0 * out->initial_merkle_depth;
            ALLOC(out->initial_merkle_proofs[c], cnt, "initial_round_merkle_proofs");
            TRY(gs_rd_digest_n(rd, out->initial_merkle_proofs[c][0].v, cnt,
                               "whir_proof.initial_round_merkle_proofs[%u] (flattened [query][level])", c));
        }
    }

    uint32_t nr = out->num_codeword_commits;
    ALLOC(out->rounds, nr, "codeword rounds");
    for (uint32_t r = 0; r < nr; r++) {
        gs_whir_round_queries *rq = &out->rounds[r];
        at = rd->pos;
        TRY(gs_rd_u32(rd, &rq->num_queries, "whir_proof.codeword_opened_values[%u] length", r));
        if (rq->num_queries > 0 && out->k > WHIR_MAX_K)
            FAIL(at, "whir_proof.codeword_opened_values length",
                              "queries with 2^%u values each cannot fit in any input", out->k);
        uint64_t per = rq->num_queries ? (1ull << out->k) : 0;
        TRY(gs_rd_check_fits(rd, at, rq->num_queries, per * 16, "whir_proof.codeword_opened_values[%u] length", r));
        size_t cnt = (size_t)(rq->num_queries * per);
        ALLOC(rq->values, cnt, "codeword_opened_values");
        TRY(gs_rd_ef_n(rd, rq->values, cnt, "whir_proof.codeword_opened_values[%u] (flattened [query][2^k])", r));
    }

    uint32_t depth1 = 0;
    at = rd->pos;
    TRY(gs_rd_u32(rd, &depth1, "whir_proof.codeword_merkle_proofs depth"));
    /* OpenVM decrements the depth by one per round (wrapping below zero,
     * which only matters if such a round has queries). */
    int64_t depth = depth1;
    for (uint32_t r = 0; r < nr; r++, depth--) {
        gs_whir_round_queries *rq = &out->rounds[r];
        if (rq->num_queries > 0 && depth < 0)
            FAIL(at, "whir_proof.codeword_merkle_proofs depth",
                              "depth %u leaves round %u with a negative Merkle depth", depth1, r + 1);
        rq->merkle_depth = depth > 0 ? (uint32_t)depth : 0;
        if (rq->merkle_depth != 0)
            TRY(gs_rd_check_fits(rd, rd->pos, rq->num_queries, (uint64_t)rq->merkle_depth * 32,
                                 "whir_proof.codeword_merkle_proofs[%u] (depth %u)", r, rq->merkle_depth));
        size_t cnt = (size_t)rq->num_queries * rq->merkle_depth;
        ALLOC(rq->merkle_proofs, cnt, "codeword_merkle_proofs");
        TRY(gs_rd_digest_n(rd, rq->merkle_proofs[0].v, cnt,
                           "whir_proof.codeword_merkle_proofs[%u] (flattened [query][level])", r));
    }
    /* The first round's depth as written on the wire, even without queries
     * (keeps re-encoding exact for the proofs OpenVM writes). */
    if (nr > 0)
        out->rounds[0].merkle_depth = depth1;

    at = rd->pos;
    TRY(gs_rd_u32(rd, &out->final_poly_len, "whir_proof.final_poly length"));
    TRY(gs_rd_check_fits(rd, at, out->final_poly_len, 16, "whir_proof.final_poly length"));
    ALLOC(out->final_poly, out->final_poly_len, "final_poly");
    TRY(gs_rd_ef_n(rd, out->final_poly, out->final_poly_len, "whir_proof.final_poly"));
    return GLSTARK_OK;
}

glstark_status gs_whir_subproof_encode(const gs_whir_subproof *p, gs_writer *w)
{
    uint64_t nu = (uint64_t)p->num_codeword_commits + 1;
    if (p->num_sumcheck_rounds % nu != 0 || p->num_commits == 0)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    uint32_t k = (uint32_t)(p->num_sumcheck_rounds / nu);
    if (k > WHIR_MAX_K && (p->initial_num_queries > 0))
        return GLSTARK_ERR_INVALID_ARGUMENT;

    gs_wr_f(w, p->mu_pow_witness);
    gs_wr_u32(w, p->num_sumcheck_rounds);
    gs_wr_ef_n(w, p->sumcheck_polys, (size_t)p->num_sumcheck_rounds * 2);
    gs_wr_u32(w, p->num_codeword_commits);
    for (uint32_t i = 0; i < p->num_codeword_commits; i++)
        gs_wr_digest(w, p->codeword_commits[i].v);
    gs_wr_ef_n(w, p->ood_values, p->num_codeword_commits);
    gs_wr_f_n(w, p->folding_pow_witnesses, p->num_sumcheck_rounds);
    gs_wr_f_n(w, p->query_phase_pow_witnesses, nu);

    gs_wr_u32(w, p->num_commits);
    gs_wr_u32(w, p->initial_num_queries);
    if (p->initial_num_queries > 0) {
        size_t rows = (size_t)p->initial_num_queries << k;
        gs_wr_u32(w, p->initial_merkle_depth);
        for (uint32_t c = 0; c < p->num_commits; c++)
            gs_wr_u32(w, p->widths[c]);
        for (uint32_t c = 0; c < p->num_commits; c++)
            gs_wr_f_n(w, p->initial_rows[c], rows * p->widths[c]);
        for (uint32_t c = 0; c < p->num_commits; c++)
            for (size_t i = 0; i < (size_t)p->initial_num_queries * p->initial_merkle_depth; i++)
                gs_wr_digest(w, p->initial_merkle_proofs[c][i].v);
    }
    for (uint32_t r = 0; r < p->num_codeword_commits; r++) {
        const gs_whir_round_queries *rq = &p->rounds[r];
        gs_wr_u32(w, rq->num_queries);
        gs_wr_ef_n(w, rq->values, (size_t)rq->num_queries << k);
    }
    /* OpenVM writes the first round's path length only when there is a
     * non-initial round and the initial round has queries, else 0. */
    uint32_t depth1 = (p->num_codeword_commits > 0 && p->initial_num_queries > 0) ? p->rounds[0].merkle_depth : 0;
    gs_wr_u32(w, depth1);
    for (uint32_t r = 0; r < p->num_codeword_commits; r++) {
        const gs_whir_round_queries *rq = &p->rounds[r];
        for (size_t i = 0; i < (size_t)rq->num_queries * rq->merkle_depth; i++)
            gs_wr_digest(w, rq->merkle_proofs[i].v);
    }
    gs_wr_u32(w, p->final_poly_len);
    gs_wr_ef_n(w, p->final_poly, p->final_poly_len);
    return w->failed ? GLSTARK_ERR_OUT_OF_MEMORY : GLSTARK_OK;
}
