/* Filling the Proof struct from the sub-provers' outputs (gkr.h's
 * gs_gkr_proof, zerocheck.h's gs_batch_proof), so a prover can hand the
 * result to gs_proof_encode. The stacking and WHIR parts are already the
 * Proof's own types (gs_stacking_proof, gs_whir_proof). */
#include <stdlib.h>
#include <string.h>

#include "protocol/proof_build.h"

glstark_status gs_proof_set_gkr(gs_proof *p, bb_t logup_pow_witness, const gs_gkr_proof *g, gs_error *err)
{
    gs_proof_gkr *d = &p->gkr;
    free(d->claims_per_layer);
    free(d->sumcheck_polys);
    memset(d, 0, sizeof *d);
    d->logup_pow_witness = logup_pow_witness;
    if (!g) { /* no interactions: OpenVM writes q0_claim = 1 and no layers */
        d->q0_claim = bb4_one();
        return GLSTARK_OK;
    }
    uint32_t R = g->n_layers;
    size_t nsc = R ? (size_t)3 * (R - 1) * R / 2 : 0;
    d->claims_per_layer = calloc(R ? R : 1, sizeof *d->claims_per_layer);
    d->sumcheck_polys = calloc(nsc ? nsc : 1, sizeof(bb4_t));
    if (!d->claims_per_layer || !d->sumcheck_polys)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "proof: out of host memory for the GKR part");
    d->q0_claim = g->q0_claim;
    d->num_layers = R;
    for (uint32_t j = 0; j < R; j++)
        d->claims_per_layer[j] =
            (gs_proof_gkr_claims){g->claims[j].p0, g->claims[j].p1, g->claims[j].q0, g->claims[j].q1};
    if (nsc)
        memcpy(d->sumcheck_polys, g->sumcheck, nsc * sizeof(bb4_t));
    return GLSTARK_OK;
}

glstark_status gs_proof_set_batch(gs_proof *p, const gs_batch_proof *b, const uint32_t *num_parts,
                                  const uint32_t *part_lens, gs_error *err)
{
    gs_batch_constraint_proof *d = &p->batch;
    /* release what was there */
    free(d->numerator_term_per_air);
    free(d->denominator_term_per_air);
    free(d->univariate_round_coeffs.v);
    free(d->sumcheck_round_polys);
    if (d->column_openings)
        for (uint32_t t = 0; t < d->num_traces; t++) {
            if (d->column_openings[t].parts)
                for (uint32_t j = 0; j < d->column_openings[t].num_parts; j++)
                    free(d->column_openings[t].parts[j].v);
            free(d->column_openings[t].parts);
        }
    free(d->column_openings);
    memset(d, 0, sizeof *d);

    const uint32_t M = b->n_traces;
    size_t total = 0, k = 0;
    for (uint32_t t = 0; t < M; t++)
        for (uint32_t j = 0; j < num_parts[t]; j++)
            total += part_lens[k++];
    if (total != b->n_openings)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "proof: the part lengths add up to %zu openings, the batch proof has %zu", total,
                            b->n_openings);
    d->numerator_term_per_air = malloc((M ? M : 1) * sizeof(bb4_t));
    d->denominator_term_per_air = malloc((M ? M : 1) * sizeof(bb4_t));
    d->univariate_round_coeffs.v = malloc((b->n_uni ? b->n_uni : 1) * sizeof(bb4_t));
    size_t nr = (size_t)b->n_rounds * b->round_len;
    d->sumcheck_round_polys = malloc((nr ? nr : 1) * sizeof(bb4_t));
    d->column_openings = calloc(M ? M : 1, sizeof(gs_column_openings));
    if (!d->numerator_term_per_air || !d->denominator_term_per_air || !d->univariate_round_coeffs.v ||
        !d->sumcheck_round_polys || !d->column_openings)
        goto oom;
    d->num_traces = M;
    memcpy(d->numerator_term_per_air, b->sum_p, M * sizeof(bb4_t));
    memcpy(d->denominator_term_per_air, b->sum_q, M * sizeof(bb4_t));
    d->univariate_round_coeffs.len = b->n_uni;
    memcpy(d->univariate_round_coeffs.v, b->uni, b->n_uni * sizeof(bb4_t));
    d->n_max = b->n_rounds;
    d->round_poly_len = b->n_rounds ? b->round_len : 0;
    memcpy(d->sumcheck_round_polys, b->rounds, nr * sizeof(bb4_t));
    size_t o = 0;
    k = 0;
    for (uint32_t t = 0; t < M; t++) {
        gs_column_openings *co = &d->column_openings[t];
        co->parts = calloc(num_parts[t] ? num_parts[t] : 1, sizeof(gs_ef_vec));
        if (!co->parts)
            goto oom;
        co->num_parts = num_parts[t];
        for (uint32_t j = 0; j < num_parts[t]; j++, k++) {
            co->parts[j].v = malloc((part_lens[k] ? part_lens[k] : 1) * sizeof(bb4_t));
            if (!co->parts[j].v)
                goto oom;
            co->parts[j].len = part_lens[k];
            memcpy(co->parts[j].v, b->openings + o, part_lens[k] * sizeof(bb4_t));
            o += part_lens[k];
        }
    }
    return GLSTARK_OK;
oom:
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "proof: out of host memory for the batch part");
}
