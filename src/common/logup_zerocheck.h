/* LogUp + zerocheck stage of the SWIRL proof (OpenVM
 * prove_zerocheck_and_logup / verify_zerocheck_and_logup): transcript steps
 * T4..T13 of docs/protocol.md, 'Transcript order of a proof', i.e. everything after the LogUp
 * proof-of-work (T3, done by the caller) up to and including the column
 * openings. The stacked opening reduction continues from r. The proof and the
 * shape both sides derive; the prover is prove/logup_zerocheck.h, the
 * verifier verify/logup_zerocheck_verify.h. */
#ifndef GS_COMMON_LOGUP_ZEROCHECK_H
#define GS_COMMON_LOGUP_ZEROCHECK_H

#include "common/gkr.h"
#include "common/zerocheck.h"

typedef struct gs_lz_proof {
    gs_gkr_proof gkr;     /* n_layers = 0 and q0_claim = 1 without interactions */
    gs_batch_proof batch;
} gs_lz_proof;

void gs_lz_proof_free(gs_lz_proof *pf);

/* Shape facts both sides derive from the traces (sorted order). */
typedef struct gs_lz_shape {
    uint64_t total_interactions; /* sum over traces of #interactions * 2^(l + ñ) */
    uint32_t n_logup;
    uint32_t gkr_layers;         /* 0 or l + n_logup */
    uint32_t n_max;
    uint32_t xi_len;             /* l + max(n_max, n_logup) */
} gs_lz_shape;

void gs_lz_shape_of(const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip, gs_lz_shape *out);

#endif
