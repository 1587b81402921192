/* LogUp GKR then the batch constraint sumcheck, verified on the host
 * (OpenVM verify_zerocheck_and_logup; transcript steps T4..T13, see
 * common/logup_zerocheck.h). The whole-proof verifier (verifier.c) runs the
 * same two sub-verifiers inside its own walk; this entry serves tests that
 * drive the stage alone. */
#ifndef GS_VERIFY_LOGUP_ZEROCHECK_VERIFY_H
#define GS_VERIFY_LOGUP_ZEROCHECK_VERIFY_H

#include "common/fs.h"
#include "common/logup_zerocheck.h"

/* Verifier; GLSTARK_ERR_REJECTED when the proof does not verify. */
glstark_status gs_lz_verify(gs_fs *fs, const gs_batch_trace *traces, uint32_t n_traces, uint32_t l_skip, uint32_t max_degree,
                            const gs_lz_proof *pf, bb4_t *r_out, gs_error *err);

#endif
