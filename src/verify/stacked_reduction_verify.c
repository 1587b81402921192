/* Stacked opening reduction, verifier (OpenVM verifier/stacked_reduction.rs;
 * see common/stacked_reduction.h). */
#include "verify/stacked_reduction_verify.h"

#include "common/poly.h"

#include <stdlib.h>

glstark_status gs_sred_verify(gs_fs *fs, const gs_stacking_proof *proof, gs_sred_params prm,
                              const gs_sred_commit *commits, uint32_t num_commits, const bb4_t *claims,
                              const bb4_t *r, uint32_t r_len, bb4_t *u, gs_error *err)
{
    const uint32_t l = prm.l_skip;
    const size_t N = (size_t)1 << l;
    uint32_t total_width, total_slices, max_nt;
    if (r_len < 1)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "stacked reduction verifier: empty r");
    glstark_status st = gs_sred_check_commits(prm, commits, num_commits, r_len, &total_width, &total_slices, &max_nt, err);
    if (st)
        return st;
    /* proof shape (OpenVM checks these in verify_proof_shape) */
    if (proof->univariate_round_coeffs.len != 2 * (N - 1) + 1)
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "stacked reduction: round-0 polynomial has %u coefficients, expected %zu",
                            proof->univariate_round_coeffs.len, 2 * (N - 1) + 1);
    if (proof->num_rounds != prm.n_stack)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "stacked reduction: %u sumcheck rounds, expected n_stack = %u",
                            proof->num_rounds, prm.n_stack);
    if (proof->num_commits != num_commits)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "stacked reduction: openings for %u commits, expected %u",
                            proof->num_commits, num_commits);
    for (uint32_t c = 0; c < num_commits; c++)
        if (proof->stacking_openings[c].len != commits[c].width)
            return gs_error_set(err, GLSTARK_ERR_REJECTED,
                                "stacked reduction: commit %u has %u openings, expected stacked width %u", c,
                                proof->stacking_openings[c].len, commits[c].width);

    bb4_t lambda = gs_fs_sample_ext(fs);
    bb4_t lambda2 = bb4_square(lambda);

    /* s_0 = Σ_k (t_k + λ t_k^rot)·λ^{2k} vs N·Σ_j c_{jN} */
    bb4_t s0 = bb4_zero(), pw = bb4_one();
    for (uint32_t k = 0; k < total_slices; k++) {
        bb4_t t = bb4_add(claims[2 * (size_t)k], bb4_mul(lambda, claims[2 * (size_t)k + 1]));
        s0 = bb4_add(s0, bb4_mul(t, pw));
        pw = bb4_mul(pw, lambda2);
    }
    bb4_t sum_d = bb4_zero();
    for (size_t j = 0; j < proof->univariate_round_coeffs.len; j += N)
        sum_d = bb4_add(sum_d, proof->univariate_round_coeffs.v[j]);
    sum_d = bb4_mul_base(sum_d, bb_from_canonical((uint32_t)N));
    if (!bb4_eq(s0, sum_d))
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "stacked reduction: S0Mismatch (the round-0 polynomial's sum over D does not equal the "
                            "batched column claims)");
    for (uint32_t i = 0; i < proof->univariate_round_coeffs.len; i++)
        gs_fs_observe_ext(fs, proof->univariate_round_coeffs.v[i]);
    u[0] = gs_fs_sample_ext(fs);
    bb4_t claim = gs_horner(proof->univariate_round_coeffs.v, proof->univariate_round_coeffs.len, u[0]);
    for (uint32_t j = 1; j <= prm.n_stack; j++) {
        bb4_t s1 = proof->sumcheck_round_polys[2 * (size_t)(j - 1)];
        bb4_t s2 = proof->sumcheck_round_polys[2 * (size_t)(j - 1) + 1];
        gs_fs_observe_ext(fs, s1);
        gs_fs_observe_ext(fs, s2);
        u[j] = gs_fs_sample_ext(fs);
        claim = gs_interp_012(bb4_sub(claim, s1), s1, s2, u[j]);
    }

    /* final: Σ_c coeff_c·q̂_c(u) */
    bb4_t final_sum = bb4_zero();
    bb4_t *coeff = calloc(total_width ? total_width : 1, sizeof(bb4_t));
    bb4_t *bits = malloc(((size_t)prm.n_stack + 2) * sizeof(bb4_t));
    if (!coeff || !bits) {
        free(coeff);
        free(bits);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction verifier: out of host memory");
    }
    uint32_t k_global = 0, col_off = 0;
    pw = bb4_one();
    for (uint32_t c = 0; c < num_commits; c++) {
        const gs_sred_commit *cm = &commits[c];
        for (uint32_t k = 0; k < cm->num_slices; k++, k_global++) {
            const gs_red_slice *s = &cm->slices[k];
            int32_t n = (int32_t)s->log_height - (int32_t)l;
            uint32_t nt = n > 0 ? (uint32_t)n : 0;
            for (uint32_t j = l + nt; j < l + prm.n_stack; j++)
                bits[j - l - nt] = ((s->row >> j) & 1) ? bb4_one() : bb4_zero();
            bb4_t e = gs_eq_mle(u + nt + 1, bits, prm.n_stack - nt);
            bb4_t ind = gs_in_uni(l, n, u[0]);
            uint32_t L;
            bb4_t rho[1];
            const bb4_t *rs;
            if (n < 0) {
                L = s->log_height;
                rho[0] = gs_pow_2k(r[0], (uint32_t)(-n));
                rs = rho;
            } else {
                L = l;
                rs = r;
            }
            bb4_t batched = bb4_mul(pw, gs_eq_prism(L, u, rs, nt));
            if (cm->need_rot[k])
                batched = bb4_add(batched, bb4_mul(bb4_mul(pw, lambda), gs_rot_kernel_prism(L, u, rs, nt)));
            coeff[col_off + s->col] = bb4_add(coeff[col_off + s->col], bb4_mul(bb4_mul(e, batched), ind));
            pw = bb4_mul(pw, lambda2);
        }
        for (uint32_t i = 0; i < cm->width; i++) {
            bb4_t q = proof->stacking_openings[c].v[i];
            gs_fs_observe_ext(fs, q);
            final_sum = bb4_add(final_sum, bb4_mul(coeff[col_off + i], q));
        }
        col_off += cm->width;
    }
    free(coeff);
    free(bits);
    if (!bb4_eq(claim, final_sum))
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "stacked reduction: FinalSumMismatch (s'_n(u_n) differs from the claimed stacked "
                            "openings q(u) weighted by their kernels)");
    return GLSTARK_OK;
}
