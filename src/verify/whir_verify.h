/* The WHIR verifier (OpenVM stark-backend v2.0.1 SB/verifier/whir.rs; see
 * common/whir.h), on the host. */
#ifndef GS_VERIFY_WHIR_VERIFY_H
#define GS_VERIFY_WHIR_VERIFY_H

#include "common/transcript.h"
#include "common/whir.h"

/* The WHIR verifier (OpenVM's verify_whir, preceded by the WHIR part of its
 * proof-shape checks). ts is the transcript in the state the stacked
 * reduction left it; commits/widths are the num_commits commitments in
 * opening order with their stacked widths; openings are the claimed values
 * of all stacked columns, flattened commit by commit (num_openings = Σ
 * widths); u is u_cube (u_len = l_skip + n_stack). Returns GLSTARK_OK if the
 * proof verifies, GLSTARK_ERR_REJECTED with the failing check if it does
 * not, GLSTARK_ERR_INVALID_ARGUMENT for inputs of the wrong size. */
glstark_status gs_whir_verify(struct gs_transcript *ts, const gs_whir_params *params, const gs_whir_proof *proof,
                              const gs_whir_digest *commits, const uint32_t *widths, uint32_t num_commits,
                              const bb4_t *openings, size_t num_openings, const bb4_t *u, size_t u_len,
                              gs_error *err);

#endif
