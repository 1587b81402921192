/* 16-lane vector canonical-to-Montgomery conversion (canonical_simd.h). */
#include "engine/cpu/canonical_simd.h"

#define GS_X16_TEMPLATE "engine/cpu/canonical_x16.inc"
#include "field/x16_instantiate.h"

size_t gs_from_canonical_simd(gs_simd_isa isa, bb_t *dst, const uint32_t *src, size_t n)
{
    if (isa == GS_SIMD_NONE || !gs_simd_available(isa))
        return 0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        return from_canonical_avx512(dst, src, n);
    return from_canonical_avx2(dst, src, n);
#elif defined(GS_HAVE_NEON_SIMD)
    return from_canonical_neon(dst, src, n);
#else
    (void)dst, (void)src, (void)n;
    return 0;
#endif
}
