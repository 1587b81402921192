/* Vector butterfly runs for the CPU DFT (src/engine/cpu/dft_cpu.c). The
 * library is built for baseline x86-64; the AVX2 versions (and AVX-512 ones
 * for the runs) are compiled with target attributes and used only when the
 * CPU reports the extension at run time. Each run function processes 16
 * butterflies per step with AVX-512, then 8 with AVX2, while a whole step
 * fits before stop, and returns the first t it did not process (the caller
 * finishes the rest with scalar code), so results are identical on every
 * path. AArch64 builds have the runs in Advanced SIMD, 16 per step (not
 * the small passes). */
#ifndef GS_ENGINE_CPU_DFT_SIMD_H
#define GS_ENGINE_CPU_DFT_SIMD_H

#include <stddef.h>

#include "field/babybear.h"

/* 1 if the vector runs below may be called on this CPU. */
int gs_dft_simd_available(void);

/* Radix-2 DIT butterflies x[t], y[t] with twiddles w[t]. */
size_t gs_dft_run2_simd(bb_t *x, bb_t *y, const bb_t *w, size_t t0, size_t stop);

/* Two DIT layers on quads p0[t]..p3[t]: first (p0,p1), (p2,p3) with w1[t],
 * then (p0,p2) with w2[t] and (p1,p3) with w3[t]. */
size_t gs_dft_run4_simd(bb_t *p0, bb_t *p1, bb_t *p2, bb_t *p3, const bb_t *w1, const bb_t *w2, const bb_t *w3,
                        size_t t0, size_t stop);

/* Both layers of a radix-4 pass with half-size h in {1, 2, 4} over the whole
 * array of n (a power of two >= 16), twiddle table tw as in dft_cpu.c.
 * Returns 0 (and does nothing) for other h or n. */
int gs_dft_pass4_small_simd(bb_t *a, size_t n, size_t h, const bb_t *tw);

#endif
