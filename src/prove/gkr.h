/* LogUp fractional-sum GKR prover (docs/protocol.md, 'LogUp GKR') over the
 * engine's gkr family. */
#ifndef GS_PROVE_GKR_H
#define GS_PROVE_GKR_H

#include "common/fs.h"
#include "common/gkr.h"
#include "engine/gkr_ops.h"

/* Proves that the fractions (p, q) on 2^R leaves (EF engine buffers, which
 * are clobbered) sum to zero. Writes the proof and the final point xi
 * (length R). Fails with GLSTARK_ERR_UNSATISFIED if the sum is not 0. */
glstark_status gs_gkr_prove(gs_engine *eng, gs_fs *fs, gs_buf *p, gs_buf *q, uint32_t n_layers,
                            gs_gkr_proof *out, bb4_t *xi, gs_error *err);

#endif
