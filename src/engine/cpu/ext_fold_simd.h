/* 16-lane vector forms of the CPU engine's folds of extension-field vectors
 * by fixed challenges: the zerocheck's and the stacked reduction's
 * x[2y] + r (x[2y+1] - x[2y]) and WHIR's a f[2y] + b f[2y+1]. Each product
 * by the fixed element is its 4 x 4 base-field matrix on 4-lane groups, 16
 * base products per element against the scalar bb4_mul's 19 plus reductions,
 * and 16 lanes at a time. Built into x86-64 GCC/clang builds in AVX-512F and
 * AVX2 forms (one source, ext_fold_x16.inc). Every function does a prefix
 * of the work and returns where it stopped; the caller's plain C does the
 * rest, and the words are the same on every path (field arithmetic is exact). */
#ifndef GS_ENGINE_CPU_EXT_FOLD_SIMD_H
#define GS_ENGINE_CPU_EXT_FOLD_SIMD_H

#include <stddef.h>

#include "field/ext4.h"

struct gs_cpu_kernels; /* kernels.h */

/* The base-field matrix by which a fixed extension element multiplies, as
 * the kernels read it: column c in cols[c], repeated for the four elements
 * a vector holds. Made once per fold (gs_ext_matrix_of), not per column. */
typedef struct gs_ext_matrix {
    bb_t cols[4][16];
} gs_ext_matrix;

void gs_ext_matrix_of(bb4_t r, gs_ext_matrix *m);

/* out[y] = x[2y] + r (x[2y+1] - x[2y]) for y in a prefix of [0, n), r given
 * by its matrix; out may be x (the in-place fold). */
size_t gs_ext_fold_lerp_simd(const struct gs_cpu_kernels *k, bb4_t *out, const bb4_t *x, size_t n,
                             const gs_ext_matrix *r);

/* out[y] = a x[2y] + b x[2y+1] for y in a prefix of [0, n), a and b given by
 * their matrices (a NULL: a = 1, its product skipped); out must not overlap x. */
size_t gs_ext_fold_lin_simd(const struct gs_cpu_kernels *k, bb4_t *out, const bb4_t *x, size_t n,
                            const gs_ext_matrix *a, const gs_ext_matrix *b);

#endif
