/* The CPU engine's conversion of a canonical trace into Montgomery form in
 * 16-lane vectors (x86-64 GCC/clang builds: AVX-512F and AVX2 from one
 * source, canonical_x16.inc). A trace is ~86 M words for keccakf-1024, and
 * the scalar conversion was most of the trace write's time. */
#ifndef GS_ENGINE_CPU_CANONICAL_SIMD_H
#define GS_ENGINE_CPU_CANONICAL_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"

struct gs_cpu_kernels; /* kernels.h */

/* dst[i] = bb_from_canonical(src[i]) for a prefix of [0, n) (a multiple of
 * 16; none where k is NULL or has no vector form); returns its
 * length, so the caller converts the rest. Every src[i] must be below p (the
 * caller checked); dst may equal src. */
size_t gs_from_canonical_simd(const struct gs_cpu_kernels *k, bb_t *dst, const uint32_t *src, size_t n);

#endif
