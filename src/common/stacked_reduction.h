/* The stacked opening reduction (docs/protocol.md, 'Stacked reduction'; OpenVM v2.0.1
 * prover/stacked_reduction.rs and verifier/stacked_reduction.rs).
 *
 * It reduces the batch-constraint column claims T̂_c(r), T̂_c^rot(r) (one
 * pair per trace column, "slice" k of a stacked matrix) to one claim per
 * stacked column q̂_c(u) at a fresh point u = (u_0, u_1..u_{n_stack}):
 *   λ' = sample_ext
 *   s'_0: 2(N−1)+1 coefficients (observed), u_0 = sample_ext
 *   rounds j = 1..n_stack: s'_j(1), s'_j(2) (observed), u_j = sample_ext
 *   q̂_c(u) for every stacked column of every commit (observed)
 *
 * Claim k (slices enumerated commit by commit, in placement order) is
 * weighted λ'^(2k) and its rotation claim λ'^(2k+1) (rotation only where the
 * AIR has need_rot; the exponent is reserved either way).
 *
 * The prover is exposed step by step (so tests can drive it with recorded
 * challenges) and as one call over a Fiat–Shamir channel. The bulk work
 * runs on the engine's reduction family (src/engine/reduction_ops.h). */
#ifndef GS_COMMON_STACKED_REDUCTION_H
#define GS_COMMON_STACKED_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/reduction_ops.h"
#include "field/ext4.h"
#include "common/fs.h"
#include "common/proof.h"
#include "util/error.h"


/* One commitment's stacked matrix as the reduction sees it. */
typedef struct gs_sred_commit {
    uint32_t width;               /* stacked width (columns of the matrix) */
    uint32_t num_slices;
    const gs_red_slice *slices;   /* in placement order (OpenVM sorted_cols) */
    const uint8_t *need_rot;      /* per slice: does its AIR have need_rot */
    const gs_buf *matrix;         /* prover only: 2^(l_skip+n_stack) rows x width, column-major */
} gs_sred_commit;

/* The commit view of a stacked layout built by src/common/stacking.c
 * (gs_stack_layout_build): slices in placement order (= OpenVM's
 * sorted_cols), need_rot taken per layout trace. *slices_out and *rot_out
 * are malloc'd and owned by the caller (out points into them). */
struct gs_stack_layout;
glstark_status gs_sred_commit_from_layout(const struct gs_stack_layout *lay, const uint8_t *need_rot_per_trace,
                                          const gs_buf *matrix, gs_sred_commit *out, gs_red_slice **slices_out,
                                          uint8_t **rot_out, gs_error *err);

typedef struct gs_sred_params {
    uint32_t l_skip;
    uint32_t n_stack;
} gs_sred_params;

/* ---- prover ---- */

typedef struct gs_sred_prover {
    gs_engine *eng;
    gs_sred_params prm;
    const gs_sred_commit *commits;
    uint32_t num_commits;
    uint32_t total_width;   /* Σ widths */
    uint32_t total_slices;
    bb4_t r0;
    bb4_t lambda;
    bb4_t *lambda_pows;     /* [2 * total_slices] */
    uint32_t max_nt;        /* largest ñ over slices */
    bb4_t *eq_tables;       /* eq(r_{1..nt}, x) for nt = 0..max_nt, table nt at 2^nt − 1 */
    gs_buf *q;              /* EF [total_width][2^n_stack], folded in place */
    gs_buf *w;              /* EF [total_width][2^n_stack] */
    size_t len;             /* current table length */
    uint32_t round;         /* rounds done (0 after fold_ple) */
} gs_sred_prover;

/* r: the batch sumcheck point (r_0, r_1..), r_len ≥ 1 + max ñ over slices.
 * lambda: λ'. */
glstark_status gs_sred_prover_init(gs_sred_prover *p, gs_engine *eng, gs_sred_params prm,
                                   const gs_sred_commit *commits, uint32_t num_commits, const bb4_t *r,
                                   uint32_t r_len, bb4_t lambda, gs_error *err);
/* s'_0: 2(N−1)+1 coefficients, ascending. */
glstark_status gs_sred_prover_round0(gs_sred_prover *p, bb4_t *coeffs, gs_error *err);
/* Evaluates every stacked column at Z = u_0 and builds the weight tables. */
glstark_status gs_sred_prover_fold_ple(gs_sred_prover *p, bb4_t u0, gs_error *err);
/* s'_j(1), s'_j(2) for the next round j. */
glstark_status gs_sred_prover_round(gs_sred_prover *p, bb4_t out[2], gs_error *err);
glstark_status gs_sred_prover_fold(gs_sred_prover *p, bb4_t u, gs_error *err);
/* After n_stack folds: q̂_c(u) for every stacked column, commit by commit
 * (total_width values). */
glstark_status gs_sred_prover_openings(gs_sred_prover *p, bb4_t *out, gs_error *err);
void gs_sred_prover_free(gs_sred_prover *p);

/* The whole reduction over a channel: fills proof (arrays allocated; free
 * with gs_proof_free's stacking part or gs_stacking_proof_free) and
 * u[0..n_stack]. */
glstark_status gs_sred_prove(gs_engine *eng, gs_fs *fs, gs_sred_params prm, const gs_sred_commit *commits,
                             uint32_t num_commits, const bb4_t *r, uint32_t r_len, gs_stacking_proof *proof,
                             bb4_t *u, gs_error *err);

void gs_stacking_proof_free(gs_stacking_proof *s);

/* ---- verifier ---- */

/* claims: per slice in claim order, [t_k, t_k^rot] (t_rot = 0 without
 * need_rot). Checks the proof's shape against the commits, the round-0 sum
 * (S0Mismatch) and the final sum (FinalSumMismatch); GLSTARK_ERR_REJECTED
 * with a message naming the failed check. Writes u[0..n_stack]. */
glstark_status gs_sred_verify(gs_fs *fs, const gs_stacking_proof *proof, gs_sred_params prm,
                              const gs_sred_commit *commits, uint32_t num_commits, const bb4_t *claims,
                              const bb4_t *r, uint32_t r_len, bb4_t *u, gs_error *err);

#endif
