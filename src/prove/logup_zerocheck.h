/* LogUp + zerocheck stage of the SWIRL prover (OpenVM
 * prove_zerocheck_and_logup / verify_zerocheck_and_logup): transcript steps
 * T4..T13 of docs/protocol.md, 'Transcript order of a proof', i.e. everything after the LogUp
 * proof-of-work (T3, done by the caller) up to and including the column
 * openings. The stacked opening reduction continues from r. The proof and
 * its shape are common/logup_zerocheck.h; the verifier is
 * verify/logup_zerocheck_verify.h. */
#ifndef GS_PROVE_LOGUP_ZEROCHECK_H
#define GS_PROVE_LOGUP_ZEROCHECK_H

#include "common/logup_zerocheck.h"
#include "prove/gkr.h"
#include "prove/zerocheck.h"

/* Prover. r_out gets n_max + 1 entries. check_rows, keep: see gs_batch_prove. */
glstark_status gs_lz_prove(gs_engine *eng, gs_fs *fs, const gs_zc_trace *traces, uint32_t n_traces, uint32_t l_skip,
                           uint32_t max_degree, int check_rows, gs_lz_proof *out, bb4_t *r_out, gs_open_sums *keep,
                           gs_error *err);

#endif
