/* The batch proof's shape and arrays, and the LogUp weights both sides
 * compute (see zerocheck.h). */
#include "common/zerocheck.h"

#include <stdlib.h>
#include <string.h>

uint32_t gs_batch_n_max(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < n_traces; t++)
        if (gs_batch_ntilde(&traces[t], l_skip) > n)
            n = gs_batch_ntilde(&traces[t], l_skip);
    return n;
}

size_t gs_batch_part_openings(const gs_batch_trace *t, uint32_t part)
{
    return (size_t)t->part_widths[part] * (t->dag->need_rot ? 2 : 1);
}

void gs_batch_shape_of(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip, uint32_t max_degree,
                       gs_batch_shape *out)
{
    uint32_t N = 1u << l_skip;
    out->n_max = gs_batch_n_max(traces, n_traces, l_skip);
    out->n_uni = (max_degree + 1) * (N - 1) + 1;
    out->round_len = max_degree + 1;
    out->n_openings = 0;
    for (uint32_t t = 0; t < n_traces; t++)
        for (uint32_t p = 0; p < traces[t].n_parts; p++)
            out->n_openings += gs_batch_part_openings(&traces[t], p);
}

glstark_status gs_batch_proof_alloc(gs_batch_proof *pf, uint32_t n_traces, const gs_batch_shape *s, gs_error *err)
{
    memset(pf, 0, sizeof(*pf));
    pf->n_traces = n_traces;
    pf->n_uni = s->n_uni;
    pf->n_rounds = s->n_max;
    pf->round_len = s->round_len;
    pf->n_openings = s->n_openings;
    pf->sum_p = calloc(n_traces + 1, sizeof(bb4_t));
    pf->sum_q = calloc(n_traces + 1, sizeof(bb4_t));
    pf->uni = calloc(s->n_uni + 1, sizeof(bb4_t));
    pf->rounds = calloc((size_t)s->n_max * s->round_len + 1, sizeof(bb4_t));
    pf->openings = calloc(s->n_openings + 1, sizeof(bb4_t));
    if (!pf->sum_p || !pf->sum_q || !pf->uni || !pf->rounds || !pf->openings) {
        gs_batch_proof_free(pf);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "batch proof: allocation failed");
    }
    return GLSTARK_OK;
}

void gs_batch_proof_free(gs_batch_proof *pf)
{
    free(pf->sum_p);
    free(pf->sum_q);
    free(pf->uni);
    free(pf->rounds);
    free(pf->openings);
    memset(pf, 0, sizeof(*pf));
}

size_t gs_batch_total_interactions(const gs_batch_trace *traces, uint32_t n_traces)
{
    size_t n = 0;
    for (uint32_t t = 0; t < n_traces; t++)
        n += traces[t].dag->n_interactions;
    return n;
}

void gs_batch_eq3b(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip, uint32_t n_logup, const bb4_t *xi,
                   bb4_t *out)
{
    /* greedy slot walk over one column of height 2^(l + n_logup) (LogUp GKR input layer) */
    uint64_t cur = 0;
    size_t k = 0;
    for (uint32_t t = 0; t < n_traces; t++) {
        uint32_t nt = gs_batch_ntilde(&traces[t], l_skip);
        for (uint32_t s = 0; s < traces[t].dag->n_interactions; s++) {
            uint64_t idx = cur >> (l_skip + nt);
            bb4_t e = bb4_one();
            for (uint32_t b = 0; nt + b < n_logup; b++) {
                bb4_t x = xi[l_skip + nt + b];
                e = bb4_mul(e, (idx >> b) & 1 ? x : bb4_sub(bb4_one(), x));
            }
            out[k++] = e;
            cur += (uint64_t)1 << (l_skip + nt);
        }
    }
}
