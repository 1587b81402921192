/* LogUp + zerocheck stage of the SWIRL prover and verifier (OpenVM
 * prove_zerocheck_and_logup / verify_zerocheck_and_logup): transcript steps
 * T4..T13 of docs/protocol.md, 'Transcript order of a proof', i.e. everything after the LogUp
 * proof-of-work (T3, done by the caller) up to and including the column
 * openings. The stacked opening reduction continues from r. */
#ifndef GS_PROVE_LOGUP_ZEROCHECK_H
#define GS_PROVE_LOGUP_ZEROCHECK_H

#include "prove/gkr.h"
#include "prove/zerocheck.h"

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

void gs_lz_shape_of(const gs_zc_trace *traces, uint32_t n_traces, uint32_t l_skip, gs_lz_shape *out);

/* Prover. r_out gets n_max + 1 entries. check_rows: see gs_batch_prove. */
glstark_status gs_lz_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t n_traces, uint32_t l_skip,
                           uint32_t max_degree, int check_rows, gs_lz_proof *out, bb4_t *r_out, gs_error *err);

/* Verifier; GLSTARK_ERR_REJECTED when the proof does not verify. */
glstark_status gs_lz_verify(gs_fs *fs, const gs_zc_trace *traces, uint32_t n_traces, uint32_t l_skip, uint32_t max_degree,
                            const gs_lz_proof *pf, bb4_t *r_out, gs_error *err);

#endif
