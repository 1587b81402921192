/* Ownership helpers of the Proof struct. */
#include "common/proof.h"

#include <stdlib.h>
#include <string.h>

void gs_stacking_proof_free(gs_stacking_proof *s)
{
    if (!s)
        return;
    free(s->univariate_round_coeffs.v);
    free(s->sumcheck_round_polys);
    if (s->stacking_openings)
        for (uint32_t c = 0; c < s->num_commits; c++)
            free(s->stacking_openings[c].v);
    free(s->stacking_openings);
    memset(s, 0, sizeof *s);
}

void gs_proof_free(gs_proof *p)
{
    if (!p)
        return;
    if (p->trace_vdata)
        for (uint32_t i = 0; i < p->num_airs; i++)
            free(p->trace_vdata[i].cached_commitments);
    free(p->trace_vdata);
    if (p->public_values)
        for (uint32_t i = 0; i < p->num_public_value_lists; i++)
            free(p->public_values[i].v);
    free(p->public_values);

    free(p->gkr.claims_per_layer);
    free(p->gkr.sumcheck_polys);

    gs_batch_constraint_proof *b = &p->batch;
    free(b->numerator_term_per_air);
    free(b->denominator_term_per_air);
    free(b->univariate_round_coeffs.v);
    free(b->sumcheck_round_polys);
    if (b->column_openings) {
        for (uint32_t t = 0; t < b->num_traces; t++) {
            gs_column_openings *co = &b->column_openings[t];
            if (co->parts)
                for (uint32_t j = 0; j < co->num_parts; j++)
                    free(co->parts[j].v);
            free(co->parts);
        }
    }
    free(b->column_openings);

    gs_stacking_proof_free(&p->stacking);
    gs_whir_proof_free(&p->whir);
    memset(p, 0, sizeof *p);
}
