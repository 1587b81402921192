/* The stacked opening reduction's prover (docs/protocol.md, 'Stacked
 * reduction'; see common/stacked_reduction.h) over the engine's reduction
 * family. */
#ifndef GS_PROVE_STACKED_REDUCTION_H
#define GS_PROVE_STACKED_REDUCTION_H

#include "common/fs.h"
#include "common/stacked_reduction.h"
#include "engine/engine.h"
#include "engine/reduction_ops.h"

/* ---- prover ---- */

typedef struct gs_sred_prover {
    gs_engine *eng;
    gs_sred_params prm;
    const gs_sred_commit *commits;
    const gs_buf *const *matrices; /* per commit: 2^(l_skip+n_stack) rows x width, column-major */
    uint32_t num_commits;
    uint32_t total_width;   /* Σ widths */
    uint32_t total_slices;
    bb4_t r0;
    bb4_t lambda;
    bb4_t *lambda_pows;     /* [2 * total_slices] */
    uint32_t max_nt;        /* largest ñ over slices */
    bb4_t *eq_tables;       /* eq(r_{1..nt}, x) for nt = 0..max_nt, table nt at 2^nt − 1 */
    gs_buf *q;              /* EF [total_width][stride], folded in place */
    gs_buf *w;              /* EF [total_width][stride] */
    size_t stride;          /* entries from one column of q or w to the next */
    size_t len;             /* current table length */
    /* The lean first round, on engines without plentiful memory
     * (engine.h): the tables at full length would be two EF entries per
     * stacked row, half as large as the stacked matrices together, beside
     * them. So fold_ple builds neither; round 1's sums come from column
     * groups built and dropped one after another; and the first fold
     * builds q and w already folded, at half length, from the matrices
     * and the weights' scaled copies. */
    int lean;
    int lean_pending;       /* fold_ple done in lean form, the first fold not yet */
    bb4_t *lag;             /* lean: the Lagrange weights at u_0 (2^l_skip) */
    bb4_t *wsrc;            /* lean: the weights' shared tables and single entries */
    gs_red_copy *wcopies;   /* lean: each slice's scaled copy of them */
    size_t nwsrc, nwcopies;
    uint32_t round;         /* rounds done (0 after fold_ple) */
    /* per commit: its slices' round-0 block sums where the caller has them
     * (num_slices x 2N, as block_sums writes them), else NULL */
    const bb4_t *const *known_sums;
} gs_sred_prover;

/* commits: each commitment's shape; matrices[c]: commit c's stacked matrix
 * on eng (2^(l_skip+n_stack) rows x width, column-major), kept by the caller
 * while the prover runs. r: the batch sumcheck point (r_0, r_1..),
 * r_len ≥ 1 + max ñ over slices. lambda: λ'. */
glstark_status gs_sred_prover_init(gs_sred_prover *p, gs_engine *eng, gs_sred_params prm,
                                   const gs_sred_commit *commits, const gs_buf *const *matrices, uint32_t num_commits,
                                   const bb4_t *r, uint32_t r_len, bb4_t lambda, gs_error *err);
/* s'_0: 2(N−1)+1 coefficients, ascending. */
glstark_status gs_sred_prover_round0(gs_sred_prover *p, bb4_t *coeffs, gs_error *err);
/* Evaluates every stacked column at Z = u_0 and builds the weight tables
 * (lean: prepares them; the first round and fold build them). */
glstark_status gs_sred_prover_fold_ple(gs_sred_prover *p, bb4_t u0, gs_error *err);
/* s'_j(1), s'_j(2) for the next round j. */
/* A round's two sums, to the host or left on the engine (engine/challenge.h). */
glstark_status gs_sred_prover_round(gs_sred_prover *p, gs_sums_dst out, gs_error *err);
/* The fold at u, from the host or sampled by the engine's sponge. */
glstark_status gs_sred_prover_fold(gs_sred_prover *p, gs_chal u, gs_error *err);
/* After n_stack folds: q̂_c(u) for every stacked column, commit by commit
 * (total_width values). */
glstark_status gs_sred_prover_openings(gs_sred_prover *p, bb4_t *out, gs_error *err);
void gs_sred_prover_free(gs_sred_prover *p);

/* The whole reduction over a channel: fills proof (arrays allocated; free
 * with gs_proof_free's stacking part or gs_stacking_proof_free) and
 * u[0..n_stack]. known_sums (NULL, or per commit NULL or its slices' block
 * sums): round 0's block sums the caller already holds, which the
 * reduction then does not read from the matrix again. */
glstark_status gs_sred_prove(gs_engine *eng, gs_fs *fs, gs_sred_params prm, const gs_sred_commit *commits,
                             const gs_buf *const *matrices, uint32_t num_commits, const bb4_t *r, uint32_t r_len,
                             const bb4_t *const *known_sums, gs_stacking_proof *proof, bb4_t *u, gs_error *err);

#endif
