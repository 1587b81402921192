/* 16-lane vector canonical-to-Montgomery conversion (canonical_simd.h). */
#include "engine/cpu/canonical_simd.h"

#include "engine/cpu/kernels.h"

#define GS_X16_TEMPLATE "engine/cpu/canonical_x16.inc"
#include "field/x16_instantiate.h"

size_t gs_from_canonical_simd(const gs_cpu_kernels *k, bb_t *dst, const uint32_t *src, size_t n)
{
    return k && k->from_canonical ? k->from_canonical(dst, src, n) : 0;
}
