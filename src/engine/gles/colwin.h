/* Column windows for the GLES engine: how many whole columns one SSBO
 * binding holds with its alignment lead (gs_colwin_fit, gs_colwin_fit_any:
 * the column groups below and the dft, zerocheck, gkr and merkle windows);
 * for the whir and reduction families, cutting work on sets of equal-length
 * columns into pieces whose buffer ranges each fit one binding and whose
 * size stays within a per-dispatch budget, and the two column-pair kernels
 * both families share (product-sumcheck sums and folds, glsl/whir.comp).
 *
 * A column set: column j, element e sits at element index
 * off + j*stride + (e >> shift) of buf (elements of esz bytes). shift lets a
 * set that is indexed by half as many elements (a fold's destination) follow
 * the same pieces as its source; stride 0 makes every column the same range
 * (an accumulator all columns add into). */
#ifndef GS_ENGINE_GLES_COLWIN_H
#define GS_ENGINE_GLES_COLWIN_H

#include "engine/challenge.h"
#include "engine/gles/gles_engine.h"

typedef struct gs_cw_set {
    const gs_buf *buf;
    uint64_t off, stride; /* elements */
    uint32_t esz;         /* bytes per element */
    uint32_t shift;
} gs_cw_set;

/* Columns [c0, c0 + nc) x elements [e0, e0 + ne). */
typedef struct gs_cw_piece {
    uint64_t c0, nc, e0, ne;
} gs_cw_piece;

typedef struct gs_cw_iter {
    const gs_gl_caps *caps;
    const gs_cw_set *sets;
    unsigned nsets;
    uint64_t ncols, e_begin, e_end, unit, budget;
    uint64_t c, e; /* next position */
    uint64_t kg;   /* columns of the current group (0: none started) */
} gs_cw_iter;

/* Elements [e_begin, e_end) of ncols columns in pieces: groups of as many
 * whole columns as one window holds, their rows cut so that a piece has at
 * most about budget elements (at least one unit per column); a column too
 * long for any window alone, in row chunks. Counts and starts are multiples
 * of unit (except a last short unit). */
void gs_cw_start(gs_cw_iter *it, const gs_gl_caps *caps, const gs_cw_set *sets, unsigned nsets, uint64_t ncols,
                 uint64_t e_begin, uint64_t e_end, uint64_t unit, uint64_t budget);
/* Next piece; 0 when done. Fails (returns -1) when not even one unit of one
 * column fits a binding. */
int gs_cw_next(gs_cw_iter *it, gs_cw_piece *p);

/* How many whole columns fit one SSBO binding that starts at the aligned
 * offset at or below the first of them (the alignment lead counts against
 * the binding): columns of col elements of esz bytes, stride elements
 * apart, the first at element `first` of its buffer. At most ncols, and at
 * most cap bytes bound (0: only max_binding_bytes limits); 0 when not even
 * one column fits. With stride 0 every column is the same range: ncols or 0.
 * The column groups of gs_cw_next and the windows of the dft and zerocheck
 * families. */
uint64_t gs_colwin_fit(const gs_gl_caps *caps, uint64_t first, uint64_t stride, uint64_t col, uint32_t esz,
                       uint64_t ncols, uint64_t cap);

/* How many whole columns of col_bytes each, back to back, fit one binding
 * wherever they start: a full binding_offset_align is set aside for the
 * lead. 0 when not even one does. For a window width fixed once for a whole
 * loop (the merkle row gather, the gkr input gather, the rs_code_matrix
 * column groups). */
uint64_t gs_colwin_fit_any(const gs_gl_caps *caps, uint64_t col_bytes);

/* Binds set s's range for piece p to binding; *lead = word position of the
 * piece's first element inside the binding. */
glstark_status gs_cw_bind(gs_engine *eng, GLuint binding, const gs_cw_set *s, const gs_cw_piece *p, uint32_t *lead);

/* Sets a uint / uvec4 uniform if the program uses it. */
void gs_cw_set_u(const gs_gl_program *p, const char *name, uint32_t v);
void gs_cw_set_ef(const gs_gl_program *p, const char *name, bb4_t v);

/* The two sums of a product-sumcheck round over pairs (v0, v1) = (v[2y], v[2y+1]):
 *  GS_PAIR_EVALS: q and w hold evaluations; out[0] = Σ q1·w1, out[1] = Σ (2q1 − q0)·(2w1 − w0)
 *    (the stacked reduction's rounds);
 *  GS_PAIR_COEFFS: q holds multilinear coefficients and w moments (WHIR, src/engine/whir_ops.h);
 *    out[0] = Σ (q0 + q1)·w1, out[1] = Σ (q0 + 2q1)·(3w1 − w0).
 * Both are h(1) and h(2) of the round polynomial. */
typedef enum gs_pair_form { GS_PAIR_EVALS = 0, GS_PAIR_COEFFS = 1 } gs_pair_form;

/* The sums over ncols columns of q and w (EF sets, shift 0): per-group
 * partials, then one reducing work group that writes the pair where out
 * says: read back to the host (32 bytes, one host sync) or left in an
 * engine buffer (no sync). */
glstark_status gs_gles_pair_sums(gs_engine *eng, const gs_cw_set *q, const gs_cw_set *w, uint64_t ncols, uint64_t len,
                                 gs_pair_form form, gs_sums_dst out, const char *op);

/* A fold coefficient as a function of the challenge c: k0 + k1·c (k1 in the
 * base field), e.g. 1 − α is {1, −1}. */
typedef struct gs_cw_coef {
    bb4_t k0;
    bb_t k1;
} gs_cw_coef;

/* dst[y] = a·src[2y] + b·src[2y+1] for y < len/2 in each of ncols columns of
 * the EF sets (dst's shift is taken as 1; src and dst must not overlap), a
 * and b the coefficients at the challenge c (from the host or an engine
 * buffer). */
glstark_status gs_gles_fold_into(gs_engine *eng, const gs_cw_set *src, const gs_cw_set *dst, uint64_t ncols,
                                 uint64_t len, gs_chal c, gs_cw_coef a, gs_cw_coef b, const char *op);
/* Binds the challenge for glsl/whir.comp's folds (binding 3, uniforms
 * gs_x, gs_y, gs_xc, gs_yc, gs_chal): a and b at c. */
glstark_status gs_gles_fold_coefs(gs_engine *eng, const gs_gl_program *prog, gs_chal c, gs_cw_coef a, gs_cw_coef b);

/* v[y] = v[2y] + α·(v[2y+1] − v[2y]) for y < len/2 in each of ncols columns
 * of the EF set v, through a scratch buffer (in-place folding races across
 * work groups) and buffer copies back. Off desktop-class devices the scratch
 * holds at most GS_CW_FOLD_SCRATCH_BYTES (or one column) and the columns go
 * through it a group at a time: a whole table's half beside the table was
 * the board profile's peak (the stacked reduction's first fold at
 * keccakf-1024, 42 MiB). */
#define GS_CW_FOLD_SCRATCH_BYTES (4u << 20)
glstark_status gs_gles_fold_cols(gs_engine *eng, const gs_cw_set *v, uint64_t ncols, uint64_t len, gs_chal alpha,
                                 const char *op);

/* Program of glsl/whir.comp in the given mode (WHIR_MODE). */
glstark_status gs_gles_whir_prog(gs_engine *eng, int mode, gs_gl_program **out);

#define GS_WHIR_ITEMS 8u       /* pairs per invocation in the pair sums */
#define GS_WHIR_EVAL_ITEMS 64u /* elements per invocation in eval_univariate */
enum {
    GS_WM_BATCH = 1,
    GS_WM_BFLY_LOW = 2,
    GS_WM_BFLY_BIT = 3,
    GS_WM_EQTAB = 4,
    GS_WM_PAIRSUM = 5,
    GS_WM_REDUCE = 6,
    GS_WM_EVAL = 7,
    GS_WM_WACC = 8,
    GS_WM_FOLD = 9,
    GS_WM_PREP_BLOCK = 10,
    GS_WM_FOLD_EXPAND = 11,
};

/* Elements per dispatch for light element-wise kernels: well under 500 ms
 * even on a slow GPU (a Raspberry Pi 5 resets longer jobs; docs/design.md, 'Pitfalls we met on GLES compute'). */
#define GS_CW_BUDGET (1u << 20)
/* The same on desktop-class GPUs: 16 times more. Kernels whose invocation
 * walks many columns (WHIR's batch of the stacked columns, the stacked
 * reduction's block sums) otherwise ran a few tens of thousands of
 * invocations per dispatch, a few percent of an H200's resident threads,
 * and hundreds of dispatches per proof (docs/performance.md, "Dispatches
 * sized for the device"). A dispatch time budget, where one is set, still
 * cuts each dispatch (gles/dispatch_plan.h). */
#define GS_CW_BUDGET_DESKTOP (1u << 24)

/* Elements per dispatch for the light kernels on this device. */
static inline uint64_t gs_cw_budget(const gs_gl_caps *caps)
{
    return caps->desktop_class ? GS_CW_BUDGET_DESKTOP : GS_CW_BUDGET;
}

#endif
