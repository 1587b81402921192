/* The dft family: batched DFTs over BabyBear, the stacked matrix and its
 * Reed–Solomon encoding (docs/protocol.md, 'Stacked PCS').
 *
 * Conventions (those of Plonky3 0.4.3 / OpenVM stark-backend v2.0.1):
 *  - Forward DFT of length n = 2^k, natural order in and out, no coset:
 *        out[i] = sum_j in[j] * w^(i*j),    w = bb_two_adic_generator(k).
 *    (Plonky3 Radix2DitParallel::dft == NaiveDft.) Inverse:
 *        out[i] = n^-1 * sum_j in[j] * w^(-i*j).
 *    Any bit reversal is internal to an implementation; callers never see
 *    bit-reversed data.
 *  - "RS message" of a column (eval_to_coeff_rs_message): for every block of
 *    2^l_skip consecutive entries, an inverse DFT of size 2^l_skip, then the
 *    subset-sum (zeta) transform over the l_skip index bits of the block:
 *        msg[t] = sum_{a subset of t} c[a].
 *  - RS code matrix (rs_code_matrix): for each column q of the stacked matrix
 *    Q (height 2^L, L = l_skip + n_stack), its RS message zero-padded to
 *    N = 2^(L + log_blowup) entries, then a forward DFT of length N. Column c
 *    of the codeword is stored at codeword element offset + c*N.
 *
 *  - RS codeword rows (rs_code_rows): one row class of that codeword, rows
 *    i = p + m * 2^b (p = row_class < 2^b, m < 2^L), column c's entry m at
 *    out_offset + (c - col_begin) * 2^L + m: every 2^b-th row of what
 *    rs_code_matrix writes, from row p. Since w_N^(2^b) = w_H,
 *        cw[p + 2^b m] = sum_(j < H) (msg[j] * w_N^(p j)) * w_H^(m j),
 *    a forward DFT of length H of the message twisted by w_N^(p j)
 *    (w_N = bb_two_adic_generator(L + b)). Both engines build Q, the message,
 *    the twist and the DFT in place in the output, so the 2^L words per column
 *    there are the only large memory it needs: a prover that commits 2^b row
 *    classes one after another never holds a 2^(L+b) codeword column. The
 *    codeword height may exceed rs_code_matrix's 2^25 (up to 2^27, the
 *    two-adicity); 2^L stays <= 2^25.
 *
 *  - Finer row classes (rs_code_rows_folded): class p of 2^lc classes with
 *    lc = b + f, f >= 1, rows i = p + m * 2^lc for m < 2^(L-f) = H'. With
 *    t[j] = msg[j] * w_N^(p j) and w_N^(2^lc) = w_H',
 *        cw[p + 2^lc m] = sum_(j' < H') (sum_(r < 2^f) t[j' + r H']) * w_H'^(m j'),
 *    a forward DFT of length H' of the twisted message folded onto its first
 *    H' entries. The message is linear and blockwise (blocks of 2^l_skip <=
 *    H'), so that sum is g^j' * msg'[j'] with g = w_N^p and msg' the message
 *    of the parts of Q added up with the weights g^(r H'): the output's H'
 *    words per column are all an engine needs. A prover with Q resident
 *    commits in 2^lc classes this way to halve (f = 1) its sponge states and
 *    column group.
 *
 * Chunking (for engines whose bindings see at most 128 MiB): every op works
 * column by column and takes a column range, so a GPU engine can bind one
 * column (or a group of columns) at a time. A codeword column of height 2^25
 * is exactly 128 MiB; rs_code_matrix limits L + log_blowup to 25 so one
 * column always fits one binding. The wrappers below check arguments
 * (ranges inside the buffers, powers of two, sizes) so engine
 * implementations may assume valid input.
 *
 * How the CPU engine does rs_code_matrix (src/engine/cpu/dft_cpu.c), and a
 * plan that fits the GLES 3.1 floor (128 invocations, 16 KiB shared, 128 MiB
 * per binding), per codeword column c of N = 2^(L+b) rows:
 *  1. Message: for each 2^l_skip block of stacked column c, fetch its values
 *     through the slice table (contiguous, or strided for short traces, zero
 *     elsewhere), inverse DFT of size 2^l_skip and zeta, in registers/shared
 *     memory. Write entry j of the message to codeword rows
 *     (rev_L(j) << b) .. (rev_L(j) << b) + 2^b - 1: that is the bit-reversed,
 *     zero-padded message after the first b DIT layers (those layers only
 *     copy, because the odd inputs are zero), so no separate bit-reversal or
 *     zero-fill pass is needed.
 *  2. DIT layers b .. L+b-1 in place on the column (natural-order output);
 *     on a GPU: passes of <= 8 levels (e.g. 2^22: 3 passes), each pass one
 *     dispatch over a column (16 MiB at 2^22; at most 128 MiB at 2^25).
 * The twiddle of half-size h at position t is w_(2h)^t.
 * Reading the traces within the binding limit: the slices of one stacked
 * column are consecutive columns of one trace, then of the next trace, and
 * so on (the layout fills columns in order), so step 1 can run as one
 * dispatch per (stacked column, trace) run, binding only that run of trace
 * columns (at most 2^L values, e.g. 8 MiB for L = 21), however large the
 * whole trace buffer is (keccakf: 345 MB). */
#ifndef GS_ENGINE_DFT_OPS_H
#define GS_ENGINE_DFT_OPS_H

#include "engine/engine.h"
#include "common/stack_layout.h"

#define GS_DFT_MAX_LOG_N 27   /* BabyBear two-adicity */
#define GS_RS_MAX_LOG_N 25    /* codeword column <= 128 MiB (one SSBO binding) */

/* Where one trace's data lives in an engine buffer: column-major, column c
 * of the trace starts at element offset + c * 2^log_height. */
struct gs_buf;
typedef struct gs_trace_ref {
    struct gs_buf *buf;
    size_t offset; /* in bb_t elements */
} gs_trace_ref;

typedef enum gs_dft_dir { GS_DFT_FORWARD = 0, GS_DFT_INVERSE = 1 } gs_dft_dir;

/* A batch of equal-length columns in one buffer. Column c occupies elements
 * [offset + c*col_stride, offset + c*col_stride + 2^log_n * elem_words).
 * elem_words = 4 means extension elements (bb4_t), transformed coefficient-
 * wise (the twiddles lie in the base field). Columns must not overlap. */
typedef struct gs_dft_cols {
    gs_buf *buf;
    size_t offset;      /* in bb_t elements */
    size_t col_stride;  /* in bb_t elements */
    size_t ncols;
    unsigned log_n;
    unsigned elem_words; /* 1 or 4 */
} gs_dft_cols;

typedef struct gs_dft_ops {
    /* In-place forward or inverse DFT of every column. */
    glstark_status (*dft)(gs_engine *eng, const gs_dft_cols *cols, gs_dft_dir dir);
    /* In-place RS message (per-block inverse DFT + zeta) of every column;
     * base field only, l_skip <= log_n. */
    glstark_status (*rs_message)(gs_engine *eng, const gs_dft_cols *cols, unsigned l_skip);
    /* Writes columns [col_begin, col_end) of the stacked matrix Q (2^L rows
     * each, column c at q_offset + (c - col_begin) * 2^L), zeros included. */
    glstark_status (*stack_matrix)(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                   uint32_t col_begin, uint32_t col_end, gs_buf *q, size_t q_offset);
    /* Writes columns [col_begin, col_end) of the RS codeword of Q straight from
     * the traces (column c at cw_offset + (c - col_begin) * 2^(L+log_blowup)). */
    glstark_status (*rs_code_matrix)(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                     unsigned log_blowup, uint32_t col_begin, uint32_t col_end,
                                     gs_buf *codeword, size_t cw_offset);
    /* Writes row class row_class of columns [col_begin, col_end) of that
     * codeword (column c's 2^L rows at out_offset + (c - col_begin) * 2^L),
     * working in the output only (see 'RS codeword rows' above). */
    glstark_status (*rs_code_rows)(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                   unsigned log_blowup, uint32_t row_class, uint32_t col_begin, uint32_t col_end,
                                   gs_buf *out, size_t out_offset);
    /* Writes row class row_class (< 2^log_classes, log_classes >
     * log_blowup) of the codeword of every column of q (the stacked matrix
     * itself: q->ncols columns of 2^L = 2^q->log_n base-field rows), column
     * c's 2^(L + log_blowup - log_classes) rows at out_offset + c * that
     * (see 'Finer row classes' above). NULL in an engine without it. */
    glstark_status (*rs_code_rows_folded)(gs_engine *eng, const gs_dft_cols *q, unsigned l_skip, unsigned log_blowup,
                                          unsigned log_classes, uint32_t row_class, gs_buf *out, size_t out_offset);
} gs_dft_ops;

/* Checked entry points (src/engine/dft.c). They validate the arguments,
 * return GLSTARK_ERR_UNSUPPORTED when the engine has no dft family, and
 * forward to eng->dft. Errors are also recorded in eng->err. */
glstark_status gs_dft(gs_engine *eng, const gs_dft_cols *cols, gs_dft_dir dir);
glstark_status gs_rs_message(gs_engine *eng, const gs_dft_cols *cols, unsigned l_skip);
glstark_status gs_stack_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                               uint32_t col_begin, uint32_t col_end, gs_buf *q, size_t q_offset);
glstark_status gs_rs_code_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                 unsigned log_blowup, uint32_t col_begin, uint32_t col_end,
                                 gs_buf *codeword, size_t cw_offset);
glstark_status gs_rs_code_rows(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                               unsigned log_blowup, uint32_t row_class, uint32_t col_begin, uint32_t col_end,
                               gs_buf *out, size_t out_offset);
glstark_status gs_rs_code_rows_folded(gs_engine *eng, const gs_dft_cols *q, unsigned l_skip, unsigned log_blowup,
                                      unsigned log_classes, uint32_t row_class, gs_buf *out, size_t out_offset);

/* For the engines' implementations: the first slice of stacked column col
 * (slices are sorted by stacked_col), nslices if none is. */
size_t gs_stack_first_slice(const gs_stack_layout *lay, uint32_t col);

/* The CPU implementation (src/engine/cpu/dft_cpu.c). */
extern const gs_dft_ops gs_cpu_dft_ops;

#endif
