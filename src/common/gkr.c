/* The GKR proof's arrays and shape (see gkr.h). */
#include "common/gkr.h"

#include <stdlib.h>
#include <string.h>

glstark_status gs_gkr_proof_alloc(gs_gkr_proof *pf, uint32_t n_layers, gs_error *err)
{
    memset(pf, 0, sizeof(*pf));
    pf->n_layers = n_layers;
    size_t ns = 3 * (size_t)n_layers * (n_layers ? n_layers - 1 : 0) / 2;
    pf->claims = calloc(n_layers ? n_layers : 1, sizeof(*pf->claims));
    pf->sumcheck = calloc(ns ? ns : 1, sizeof(bb4_t));
    if (!pf->claims || !pf->sumcheck) {
        gs_gkr_proof_free(pf);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "gkr proof: allocation for %u layers failed", n_layers);
    }
    return GLSTARK_OK;
}

void gs_gkr_proof_free(gs_gkr_proof *pf)
{
    free(pf->claims);
    free(pf->sumcheck);
    pf->claims = NULL;
    pf->sumcheck = NULL;
}

uint32_t gs_gkr_n_logup(uint64_t total, uint32_t l_skip)
{
    if (total == 0)
        return 0;
    uint32_t bits = 0;
    while (bits < 64 && (total >> bits) != 0)
        bits++;
    return bits > l_skip ? bits - l_skip : 0;
}
