/* The SWIRL verifier (OpenVM stark-backend v2.0.1 verifier/mod.rs::verify):
 * proof-shape checks (verifier/proof_shape.rs), trace-height constraints,
 * then the transcript in mirror order of the prover (docs/protocol.md,
 * 'Transcript order of a proof': T0..T17, then WHIR):
 *
 *   preamble (vk pre-hash, common main commit, per-AIR presence, heights or
 *   preprocessed commits, cached commits, public values)
 *   LogUp PoW, alpha, beta                               checked here
 *   GKR (T5)                                             stage_gkr
 *   xi padding (T6)                                      here
 *   batch constraint sumcheck (T7..T13)                  stage_batch
 *   stacked opening reduction (T14..T17)                 gs_sred_verify (checked)
 *   WHIR                                                 stage_whir
 *
 * The sub-verifiers are gkr.h (gs_gkr_verify), zerocheck.h (gs_batch_verify),
 * stacked_reduction.h (gs_sred_verify) and whir.h (gs_whir_verify); this file
 * adapts the decoded Proof and the vk to their inputs. gs_verify accepts only
 * when every stage checked (GS_VSTAGE_ALL). gs_verify_replay runs the same walk
 * and also returns every challenge (the batch lambda/mu and WHIR's challenges
 * come from a replay on a copy of the transcript), for debugging against
 * OpenVM's debug/<spec>.challenges.txt. */
#ifndef GS_VERIFY_VERIFIER_H
#define GS_VERIFY_VERIFIER_H

#include <stddef.h>
#include <stdint.h>

#include "air/keygen.h"
#include "common/fs.h"
#include "common/proof.h"
#include "common/stacked_reduction.h"
#include "common/transcript.h"
#include "util/error.h"

/* What verify_proof_shape establishes: sorted traces, GKR and batch sizes,
 * and the stacked layout of every commitment. */
typedef struct gs_verify_layout {
    uint32_t num_traces;       /* present AIRs */
    uint32_t *trace_air;       /* [num_traces]: sorted position -> air id */
    uint64_t total_interactions;
    uint32_t n_logup;
    uint32_t num_gkr_rounds;   /* R = 0 or l_skip + n_logup */
    uint32_t n_max;
    uint32_t num_commits;      /* common main, then per sorted trace: preprocessed?, cached... */
    gs_sred_commit *commits;   /* slices and need_rot arrays owned */
    uint32_t total_slices;
} gs_verify_layout;

void gs_verify_layout_free(gs_verify_layout *l);

/* OpenVM's verify_proof_shape plus its EmptyTraces check: every length in the
 * proof against the vk and trace_vdata. GLSTARK_ERR_REJECTED with OpenVM's
 * error name and the numbers on failure. */
glstark_status gs_verify_proof_shape(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_layout *out,
                                     gs_error *err);

/* Every challenge of one verification, in protocol order (Montgomery). */
typedef struct gs_verify_challenges {
    bb_t logup_pow_sample;     /* the PoW check's sample (canonical & mask == 0) */
    bb4_t alpha, beta;
    uint32_t xi_len;
    bb4_t *xi;                 /* GKR point then padding samples */
    bb4_t batch_lambda, batch_mu;
    uint32_t r_len;
    bb4_t *r;                  /* r_0 .. r_{n_max} */
    uint32_t u_len;
    bb4_t *u;                  /* u_0 .. u_{n_stack} */
    bb4_t whir_mu;
    uint32_t num_whir_alphas;
    bb4_t *whir_alphas;        /* folding challenges, all rounds */
    uint32_t num_whir_rounds;
    bb4_t *whir_z0;            /* OOD points (rounds but the last) */
    bb4_t *whir_gamma;         /* per round */
    uint32_t num_query_indices;
    uint32_t *query_indices;   /* all rounds, in order */
} gs_verify_challenges;

void gs_verify_challenges_free(gs_verify_challenges *c);

/* Which stages really checked their algebra (bit set) in the last run. */
enum {
    GS_VSTAGE_SHAPE = 1,
    GS_VSTAGE_PREAMBLE = 2,   /* incl. trace heights, preprocessed heights, LogUp PoW */
    GS_VSTAGE_GKR = 4,
    GS_VSTAGE_BATCH = 8,
    GS_VSTAGE_STACKING = 16,
    GS_VSTAGE_WHIR = 32,
    GS_VSTAGE_ALL = 63
};

/* Verifies proof against vk (which must carry its pre-hash).
 * GLSTARK_OK only when every stage checked; GLSTARK_ERR_REJECTED (message:
 * stage and OpenVM error name) when a check fails; GLSTARK_ERR_UNSUPPORTED
 * if some stage could not run (e.g. parameters beyond what glstark handles). */
glstark_status gs_verify(const gs_multi_vk *vk, const gs_proof *proof, gs_error *err);

/* Decodes OpenVM proof bytes and verifies them: GLSTARK_ERR_MALFORMED for
 * bytes that are not a proof encoding (field and offset in the message),
 * otherwise as gs_verify. (The examples' --verify maps OK / REJECTED /
 * everything else to exit codes 0 / 1 / 2.) */
glstark_status gs_verify_bytes(const gs_multi_vk *vk, const uint8_t *bytes, size_t len, gs_error *err);

/* The same walk; fills *ch (if not NULL) and *checked_stages. Returns the
 * first failure, or GLSTARK_OK when every executed check passed. */
glstark_status gs_verify_replay(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_challenges *ch,
                                unsigned *checked_stages, gs_error *err);

#endif
