/* The WHIR engine family: the data-parallel parts of the WHIR opening prover
 * (SB/prover/whir.rs), as kernels an engine runs on resident buffers.
 *
 * The protocol (src/protocol/whir.c) keeps the transcript on the host and
 * calls these between transcript steps. Every buffer holds Montgomery bb_t;
 * an "EF vector" is bb4_t elements back to back. Lengths are in elements.
 * Each op gives bit-identical results on every engine (field arithmetic is
 * exact, so any summation order gives the same value).
 *
 * Host syncs: sumcheck_round and eval_univariate return a value to the host
 * and count one sync each; the others only enqueue work. */
#ifndef GS_ENGINE_WHIR_OPS_H
#define GS_ENGINE_WHIR_OPS_H

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
     * block's l_skip index bits (eval_to_coeff_rs_message), then the subset-sum transform over all
     * log_n index bits (Mle::coeffs_to_evals). Gives WHIR's f on the hypercube. */
    glstark_status (*prepare_f)(gs_engine *eng, gs_buf *f, unsigned log_n, unsigned l_skip);

    /* out[b] = Π_i (bit i of b ? u_i : 1 − 2u_i), b < 2^n (evals_mobius_eq_hypercube). */
    glstark_status (*mobius_eq_table)(gs_engine *eng, const bb4_t *u, unsigned n, gs_buf *out);

    /* One WHIR sumcheck round on f, w (EF vectors of length len, even):
     * out[0] = Σ_y f[2y+1]·w[2y+1], out[1] = Σ_y (2f[2y+1] − f[2y])·(2w[2y+1] − w[2y]). */
    glstark_status (*sumcheck_round)(gs_engine *eng, const gs_buf *f, const gs_buf *w, size_t len, bb4_t out[2]);

    /* Folds the lowest variable of f and w in place: v[y] = v[2y] + α·(v[2y+1] − v[2y]), y < len/2. */
    glstark_status (*fold)(gs_engine *eng, gs_buf *f, gs_buf *w, size_t len, bb4_t alpha);

    /* Möbius transform (hypercube evaluations → multilinear coefficients), from the first len
     * entries of src into dst (may be the same buffer), len a power of two. */
    glstark_status (*mobius)(gs_engine *eng, const gs_buf *src, gs_buf *dst, size_t len);

    /* *out = Σ_b g[b]·z^b over the first len entries of the EF vector g. */
    glstark_status (*eval_univariate)(gs_engine *eng, const gs_buf *g, size_t len, bb4_t z, bb4_t *out);

    /* RS-encodes the EF coefficient vector g[0..len) (len ≤ 2^log_n): zero-pads it to 2^log_n and
     * evaluates it on the subgroup of g_{log_n} in natural order, into the EF vector codeword
     * (one EF column, the layout the Merkle tree hashes with elem_deg 4: leaf = H(c0..c3)). */
    glstark_status (*encode_ext)(gs_engine *eng, const gs_buf *g, size_t len, unsigned log_n, gs_buf *codeword);

    /* w[b] += gamma0·eq_pt(z0, b) + Σ_q gammas[q]·eq_pt(zs[q], b) for b < 2^n, where
     * eq_pt(z, b) = Π_i (bit i of b ? z^(2^i) : 1 − z^(2^i)). z0 is an EF point, zs base-field
     * points (the query points of the round). */
    glstark_status (*w_accumulate)(gs_engine *eng, gs_buf *w, unsigned n, bb4_t z0, bb4_t gamma0, const bb_t *zs,
                                   const bb4_t *gammas, size_t nz);
} gs_whir_ops;

/* The CPU implementation (src/engine/cpu/whir_cpu.c). */
extern const gs_whir_ops gs_cpu_whir_ops;

#endif
