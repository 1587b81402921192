/* The WHIR engine family: the data-parallel parts of the WHIR opening prover
 * (SB/prover/whir.rs), as kernels an engine runs on resident buffers.
 *
 * The protocol (src/prove/whir.c) keeps the transcript on the host and
 * calls these between transcript steps. Every buffer holds Montgomery bb_t;
 * an "EF vector" is bb4_t elements back to back. Lengths are in elements.
 * Each op gives bit-identical results on every engine (field arithmetic is
 * exact, so any summation order gives the same value).
 *
 * Forms: f is kept as the coefficients of a multilinear polynomial and the
 * weight w as its "moments" (the form OpenVM's CUDA prover keeps too). A
 * round's folded f is then already the coefficient vector the next codeword
 * encodes, so no Möbius transform runs per round, and the round's last fold
 * can write the codeword's input in the same pass (fold_encode). The
 * transcript values (h(1), h(2), codewords, OOD values, final polynomial) are
 * the same as with f and w on the hypercube.
 *
 * Host syncs: sumcheck_round and eval_univariate return a value to the host
 * and count one sync each; the others only enqueue work. */
#ifndef GS_ENGINE_WHIR_OPS_H
#define GS_ENGINE_WHIR_OPS_H

#include "engine/challenge.h"
#include "engine/engine.h"

typedef struct gs_whir_ops {
    /* out[r] = Σ_c Σ_{j < widths[c]} coeffs[base_c + j] · mats[c][offs[c] + j·height + r] for
     * r < height, where base_c = widths[0] + … + widths[c-1]: the μ-batching of all stacked
     * columns (mats are column-major base-field matrices of the same height, starting at element
     * offs[c] of their buffers). out: EF vector. */
    glstark_status (*batch_columns)(gs_engine *eng, const gs_buf *const *mats, const size_t *offs,
                                    const size_t *widths, size_t nmats, size_t height, const bb4_t *coeffs,
                                    gs_buf *out);

    /* In place on an EF vector of length 2^log_n (log_n ≥ l_skip): for every block of 2^l_skip
     * entries, the inverse DFT over g_{l_skip} followed by the subset-sum (zeta) transform over the
     * block's l_skip index bits (eval_to_coeff_rs_message). Gives WHIR's f as the coefficients
     * of a multilinear polynomial (coefficient b multiplies Π_{i ∈ b} x_i). */
    glstark_status (*prepare_f)(gs_engine *eng, gs_buf *f, unsigned log_n, unsigned l_skip);

    /* out[b] = Π_i (bit i of b ? u_i : 1 − u_i), b < 2^n: eq(u, ·), which is WHIR's weight
     * polynomial w = mobius_eq(u, ·) in "moment" form (m[b] = Σ_{x ⊇ b} w(x)), the form that
     * pairs with f's coefficients: Σ_x f(x)·w(x) = Σ_b coeff[b]·m[b]. */
    glstark_status (*eq_table)(gs_engine *eng, const bb4_t *u, unsigned n, gs_buf *out);

    /* One WHIR sumcheck round, f as coefficients and w as moments (EF vectors of length len,
     * even), pairs c0 = f[2y], c1 = f[2y+1], m0 = w[2y], m1 = w[2y+1]:
     * out[0] = Σ_y (c0 + c1)·m1 = h(1), out[1] = Σ_y (c0 + 2c1)·(3m1 − m0) = h(2), where
     * h(t) = Σ_x f(t, x)·w(t, x) over the hypercube of the other variables. The pair goes to
     * the host or stays in an engine buffer (engine/challenge.h). */
    glstark_status (*sumcheck_round)(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_sums_dst out);

    /* Fixes the lowest variable to α: f_out[y] = c0 + α·c1 (coefficients) and
     * w_out[y] = (1 − α)·m0 + (2α − 1)·m1 (moments), y < len/2. Out of place: f_out and w_out
     * hold len/2 elements and are four distinct buffers with f and w. α comes from the host or
     * from an engine buffer (engine/challenge.h). */
    glstark_status (*fold)(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_chal alpha, gs_buf *f_out,
                           gs_buf *w_out);

    /* fold, then the next WHIR round's Reed–Solomon encoding of f_out: its len/2 coefficients
     * zero-padded to 2^log_n (len/2 ≤ 2^log_n) and evaluated on the subgroup of g_{log_n} in
     * natural order, into the EF vector codeword (one EF column, the layout the Merkle tree
     * hashes with elem_deg 4: leaf = H(c0..c3)). An engine may do both in one pass. */
    glstark_status (*fold_encode)(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, gs_chal alpha,
                                  gs_buf *f_out, gs_buf *w_out, unsigned log_n, gs_buf *codeword);

    /* *out = Σ_b g[b]·z^b over the first len entries of the EF vector g. */
    glstark_status (*eval_univariate)(gs_engine *eng, const gs_buf *g, size_t len, bb4_t z, bb4_t *out);

    /* w[b] += gamma0·z0^b + Σ_q gammas[q]·zs[q]^b for b < 2^n: the moments of the weight
     * terms gamma·eq_pt(z, ·), eq_pt(z, x) = Π_i (x_i ? z^(2^i) : 1 − z^(2^i)). z0 is an EF
     * point, zs base-field points (the query points of the round). */
    glstark_status (*w_accumulate)(gs_engine *eng, gs_buf *w, unsigned n, bb4_t z0, bb4_t gamma0, const bb_t *zs,
                                   const bb4_t *gammas, size_t nz);
} gs_whir_ops;

/* The CPU implementation (src/engine/cpu/whir_cpu.c). */
extern const gs_whir_ops gs_cpu_whir_ops;

#endif
