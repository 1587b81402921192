/* The CPU engine's vector kernels, one table per vector instruction set,
 * and the one place a set is chosen (kernels.c). The engine picks its table
 * once when it is created (the widest set this CPU runs, capped by
 * GLSTARK_CPU_SIMD) and its families call the entries; an entry is NULL
 * where the set has no vector form of that kernel, and the caller then runs
 * its plain C form. Every set gives the same words as plain C (exact field
 * arithmetic), so the choice changes only speed.
 *
 * Each kernel is written once: the 16-lane ones in a *_x16.inc template
 * over field/x16_select.h's vector, the DFT's butterfly runs in
 * dft_runs.inc over a vector of the set's native width; the template is
 * instantiated in its module's .c file (gs_<kernel>_avx512, _avx2, _neon)
 * and only kernels.c gathers the instances into tables. */
#ifndef GS_ENGINE_CPU_KERNELS_H
#define GS_ENGINE_CPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/cpu/r0_transform.h"
#include "engine/cpu/rs_block16.h"
#include "engine/cpu/zc_lanes.h"
#include "field/ext4.h"
#include "field/simd_isa.h"
#include "util/error.h"

/* ---- the kernels' types (the modules' headers say what each computes) ---- */

/* DFT butterfly runs (dft_cpu.c, dft_simd.c): radix-2 DIT butterflies
 * x[t], y[t] with twiddles w[t]; and two DIT layers on quads p0[t]..p3[t],
 * first (p0,p1), (p2,p3) with w1[t], then (p0,p2) with w2[t] and (p1,p3)
 * with w3[t]. Each processes whole vector steps from t0 while they fit
 * before stop and returns the first t it did not process (the caller
 * finishes with scalar code). */
typedef size_t gs_dft_run2_fn(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop);
typedef size_t gs_dft_run4_fn(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2,
                              const bb_t *w3, size_t t0, size_t stop);
/* Both layers of a radix-4 pass with half-size h in {1, 2, 4} over the whole
 * array of n (a power of two >= 16), twiddle table tw as in dft_cpu.c.
 * Returns 0 (and does nothing) for other h or n. */
typedef int gs_dft_pass4_small_fn(bb_t *a, size_t n, size_t h, const bb_t *tw);

/* rs_block16.h */
typedef void gs_rs_blocks_fn(const gs_rs_block16 *p, bb_t *x, size_t nblocks);
/* r0_transform.h: the 16-point column transform */
typedef void gs_r0_column_fn(const gs_r0_transform *t, const bb_t *values, bb_t *out);
/* zc_lanes.h: the extension and base-field interpreters */
typedef void gs_zc_run_fn(gs_zc_lanes *lp, const bb_t *cols, bb_t acc[3][GS_ZC_BLOCK]);
typedef void gs_zc_run_base_fn(gs_zc_lanes *lp, const bb_t *cols, size_t col_stride, bb_t acc[3][GS_ZC_BLOCK]);
/* weighted_sums_simd.h */
typedef size_t gs_ple_fold_fn(const bb_t *m, size_t n, size_t xend, const bb_t *lw_comp, bb4_t *dst);
typedef void gs_ple_block_sums16_fn(const bb_t *m, size_t nx, const bb4_t *e, bb4_t out0[16], bb4_t out1[16]);
typedef size_t gs_lincomb_rows_fn(const bb_t *const *cols, const bb4_t *mu, size_t ncols, size_t r0, size_t r1,
                                  bb4_t *out);
typedef void gs_matvec16_blocks_fn(const bb_t mat[256], bb4_t *a, size_t nblocks);
typedef size_t gs_w_accumulate_fn(bb4_t *w, const bb4_t *t0, const bb_t *lo, const bb_t *hi, const bb4_t *gammas,
                                  size_t nz, unsigned nlo, unsigned nhi, size_t b0, size_t b1);
/* ext_fold_simd.h (the matrices' columns: gs_ext_matrix.cols; acols may be NULL) */
typedef size_t gs_ext_fold_lerp_fn(bb4_t *out, const bb4_t *x, size_t n, const bb_t (*cols)[16]);
typedef size_t gs_ext_fold_lin_fn(bb4_t *out, const bb4_t *x, size_t n, const bb_t (*acols)[16],
                                  const bb_t (*bcols)[16]);
/* canonical_simd.h */
typedef size_t gs_from_canonical_fn(bb_t *dst, const uint32_t *src, size_t n);

typedef struct gs_cpu_kernels {
    gs_simd_isa isa; /* the set (GS_SIMD_NONE: every entry NULL) */
    gs_dft_run2_fn *dft_run2;
    gs_dft_run4_fn *dft_run4;
    gs_dft_pass4_small_fn *dft_pass4_small;
    gs_rs_blocks_fn *rs_blocks;
    gs_r0_column_fn *r0_column;
    gs_zc_run_fn *zc_run;
    gs_zc_run_base_fn *zc_run_base;
    gs_ple_fold_fn *ple_fold;
    gs_ple_block_sums16_fn *ple_block_sums16;
    gs_lincomb_rows_fn *lincomb_rows;
    gs_matvec16_blocks_fn *matvec16_blocks;
    gs_w_accumulate_fn *w_accumulate;
    gs_ext_fold_lerp_fn *ext_fold_lerp;
    gs_ext_fold_lin_fn *ext_fold_lin;
    gs_from_canonical_fn *from_canonical;
} gs_cpu_kernels;

/* The table of isa, or NULL where this build or CPU lacks isa (or isa is
 * not a set). GS_SIMD_NONE's table (every entry NULL) is always there. */
const gs_cpu_kernels *gs_cpu_kernels_of(gs_simd_isa isa);

/* The set the engine's kernels use: the widest this CPU runs, capped by
 * env (GLSTARK_CPU_SIMD's value: NULL, "", auto, avx512, avx2, neon, none); a
 * set the CPU lacks or an unknown name is an error with the reason. */
glstark_status gs_cpu_simd_choice(const char *env, gs_simd_isa *out, gs_error *err);

/* ---- each set's instances, defined by the modules' templates ---- */

#define GS_CPU_KERNEL_SETS(type, name) type name##_avx512, name##_avx2, name##_neon
GS_CPU_KERNEL_SETS(gs_dft_run2_fn, gs_dft_run2);
GS_CPU_KERNEL_SETS(gs_dft_run4_fn, gs_dft_run4);
gs_dft_pass4_small_fn gs_dft_pass4_small_avx2; /* x86 only (dft_simd.c says why) */
GS_CPU_KERNEL_SETS(gs_rs_blocks_fn, gs_rs_blocks);
GS_CPU_KERNEL_SETS(gs_r0_column_fn, gs_r0_column);
GS_CPU_KERNEL_SETS(gs_zc_run_fn, gs_zc_run);
GS_CPU_KERNEL_SETS(gs_zc_run_base_fn, gs_zc_run_base);
GS_CPU_KERNEL_SETS(gs_ple_fold_fn, gs_ple_fold);
GS_CPU_KERNEL_SETS(gs_ple_block_sums16_fn, gs_ple_block_sums16);
GS_CPU_KERNEL_SETS(gs_lincomb_rows_fn, gs_lincomb_rows);
GS_CPU_KERNEL_SETS(gs_matvec16_blocks_fn, gs_matvec16_blocks);
GS_CPU_KERNEL_SETS(gs_w_accumulate_fn, gs_w_accumulate);
GS_CPU_KERNEL_SETS(gs_ext_fold_lerp_fn, gs_ext_fold_lerp);
GS_CPU_KERNEL_SETS(gs_ext_fold_lin_fn, gs_ext_fold_lin);
GS_CPU_KERNEL_SETS(gs_from_canonical_fn, gs_from_canonical);
#undef GS_CPU_KERNEL_SETS

#endif
