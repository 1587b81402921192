/* The commitment of an AIR's preprocessed trace (OpenVM keygen's
 * PrepKeygenData: the stacked-PCS commit of that one trace, with the
 * system's l_skip, n_stack, log_blowup and WHIR k). Keygen makes it on the
 * CPU engine for the verifying key; the prover makes it again on its own
 * engine, because the openings need the matrix, codeword and tree, and
 * checks the root against the key. */
#ifndef GS_PROVE_PREP_COMMIT_H
#define GS_PROVE_PREP_COMMIT_H

#include "air/keygen.h"
#include "engine/engine.h"
#include "prove/stacked_commit.h"

/* Uploads a row-major Montgomery trace (height x width) to eng as a
 * column-major buffer (column c at c * height). */
glstark_status gs_prep_upload(gs_engine *eng, const bb_t *rows, size_t height, size_t width, gs_buf **out,
                              gs_error *err);

/* A gs_prep_commit_fn for gs_keygen: ctx is unused; the commit runs on a
 * CPU engine of its own (one thread). */
glstark_status gs_prep_commit_cpu(void *ctx, const gs_system_params *params, const bb_t *rows, size_t height,
                                  size_t width, gs_prep_vdata *out, gs_error *err);

#endif
