/* Sub-proof <-> Proof struct conversions (see proof_bridge.h). */
#include "prove/proof_bridge.h"

#include <stdlib.h>
#include <string.h>


static glstark_status oom(gs_error *err)
{
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "proof assembly: out of host memory");
}

static bb4_t *dup_ef(const bb4_t *v, size_t n)
{
    bb4_t *d = malloc((n ? n : 1) * sizeof(bb4_t));
    if (d && n)
        memcpy(d, v, n * sizeof(bb4_t));
    return d;
}

glstark_status gs_bridge_lz_to_proof(const gs_lz_proof *lz, const gs_zc_trace *traces, uint32_t n_traces,
                                     gs_proof *p, gs_error *err)
{
    const gs_gkr_proof *g = &lz->gkr;
    uint32_t R = g->n_layers;
    size_t nsc = R > 1 ? 3 * (size_t)R * (R - 1) / 2 : 0;
    p->gkr.q0_claim = g->q0_claim;
    p->gkr.num_layers = R;
    p->gkr.claims_per_layer = calloc(R ? R : 1, sizeof(gs_proof_gkr_claims));
    p->gkr.sumcheck_polys = dup_ef(g->sumcheck, nsc);
    if (!p->gkr.claims_per_layer || !p->gkr.sumcheck_polys)
        return oom(err);
    for (uint32_t j = 0; j < R; j++)
        p->gkr.claims_per_layer[j] =
            (gs_proof_gkr_claims){g->claims[j].p0, g->claims[j].p1, g->claims[j].q0, g->claims[j].q1};

    const gs_batch_proof *b = &lz->batch;
    gs_batch_constraint_proof *o = &p->batch;
    o->num_traces = n_traces;
    o->numerator_term_per_air = dup_ef(b->sum_p, n_traces);
    o->denominator_term_per_air = dup_ef(b->sum_q, n_traces);
    o->univariate_round_coeffs.len = b->n_uni;
    o->univariate_round_coeffs.v = dup_ef(b->uni, b->n_uni);
    o->n_max = b->n_rounds;
    o->round_poly_len = b->n_rounds ? b->round_len : 0;
    o->sumcheck_round_polys = dup_ef(b->rounds, (size_t)b->n_rounds * b->round_len);
    o->column_openings = calloc(n_traces ? n_traces : 1, sizeof(gs_column_openings));
    if (!o->numerator_term_per_air || !o->denominator_term_per_air || !o->univariate_round_coeffs.v ||
        !o->sumcheck_round_polys || !o->column_openings)
        return oom(err);
    size_t k = 0;
    for (uint32_t t = 0; t < n_traces; t++) {
        gs_column_openings *co = &o->column_openings[t];
        co->parts = calloc(traces[t].n_parts ? traces[t].n_parts : 1, sizeof(gs_ef_vec));
        if (!co->parts)
            return oom(err);
        co->num_parts = traces[t].n_parts;
        for (uint32_t j = 0; j < traces[t].n_parts; j++) {
            gs_batch_trace shape = gs_zc_trace_shape(&traces[t]);
            size_t len = gs_batch_part_openings(&shape, j);
            if (k + len > b->n_openings)
                return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                                    "proof assembly: the batch proof has %zu column openings, the traces need more",
                                    b->n_openings);
            co->parts[j].len = (uint32_t)len;
            co->parts[j].v = dup_ef(b->openings + k, len);
            if (!co->parts[j].v)
                return oom(err);
            k += len;
        }
    }
    return GLSTARK_OK;
}
