/* The one dispatch point of the CPU engine's vector kernels (kernels.h):
 * which sets this build and CPU have, and each set's table. */
#include "engine/cpu/kernels.h"

#include <string.h>

static const gs_cpu_kernels plain = {.isa = GS_SIMD_NONE};

/* The 16-lane kernels every set has, by the instances' suffix. */
#define X16_KERNELS(sfx)                                                                                          \
    .rs_blocks = gs_rs_blocks_##sfx, .r0_column = gs_r0_column_##sfx, .zc_run = gs_zc_run_##sfx,                 \
    .zc_run_base = gs_zc_run_base_##sfx, .ple_fold = gs_ple_fold_##sfx,                                          \
    .ple_block_sums16 = gs_ple_block_sums16_##sfx, .lincomb_rows = gs_lincomb_rows_##sfx,                        \
    .matvec16_blocks = gs_matvec16_blocks_##sfx, .w_accumulate = gs_w_accumulate_##sfx,                          \
    .ext_fold_lerp = gs_ext_fold_lerp_##sfx, .ext_fold_lin = gs_ext_fold_lin_##sfx,                              \
    .from_canonical = gs_from_canonical_##sfx

#ifdef GS_HAVE_X86_SIMD
/* The DFT's first radix-4 passes are AVX2 shuffles in both x86 sets. */
static const gs_cpu_kernels avx512 = {.isa = GS_SIMD_AVX512,
                                      .dft_run2 = gs_dft_run2_avx512,
                                      .dft_run4 = gs_dft_run4_avx512,
                                      .dft_pass4_small = gs_dft_pass4_small_avx2,
                                      X16_KERNELS(avx512)};
static const gs_cpu_kernels avx2 = {.isa = GS_SIMD_AVX2,
                                    .dft_run2 = gs_dft_run2_avx2,
                                    .dft_run4 = gs_dft_run4_avx2,
                                    .dft_pass4_small = gs_dft_pass4_small_avx2,
                                    X16_KERNELS(avx2)};
#endif
#ifdef GS_HAVE_NEON_SIMD
/* No vector form of the DFT's first radix-4 passes (scalar there). */
static const gs_cpu_kernels neon = {.isa = GS_SIMD_NEON,
                                    .dft_run2 = gs_dft_run2_neon,
                                    .dft_run4 = gs_dft_run4_neon,
                                    X16_KERNELS(neon)};
#endif

const gs_cpu_kernels *gs_cpu_kernels_of(gs_simd_isa isa)
{
    if (!gs_simd_available(isa))
        return NULL;
    switch (isa) {
    case GS_SIMD_NONE: return &plain;
#ifdef GS_HAVE_X86_SIMD
    case GS_SIMD_AVX512: return &avx512;
    case GS_SIMD_AVX2: return &avx2;
#endif
#ifdef GS_HAVE_NEON_SIMD
    case GS_SIMD_NEON: return &neon;
#endif
    default: return NULL;
    }
}

/* The vector set the kernels use: the widest this CPU runs, or a narrower
 * one named by GLSTARK_CPU_SIMD (auto | avx512 | avx2 | neon | none), which
 * benchmarks and tests use to run another path on the same machine. Asking
 * for a set the CPU lacks is an error rather than a silent fallback. */
glstark_status gs_cpu_simd_choice(const char *env, gs_simd_isa *out, gs_error *err)
{
    *out = gs_simd_best();
    if (!env || !*env || !strcmp(env, "auto"))
        return GLSTARK_OK;
    static const gs_simd_isa sets[] = {GS_SIMD_NONE, GS_SIMD_AVX2, GS_SIMD_AVX512, GS_SIMD_NEON};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (strcmp(env, gs_simd_name(sets[i])))
            continue;
        if (!gs_simd_available(sets[i]))
            return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                                "cpu engine: GLSTARK_CPU_SIMD=%s, but this CPU or build lacks %s (it has %s); "
                                "unset it or name a narrower set",
                                env, env, gs_simd_name(gs_simd_best()));
        *out = sets[i];
        return GLSTARK_OK;
    }
    return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                        "cpu engine: GLSTARK_CPU_SIMD=%s is not one of auto, avx512, avx2, neon, none", env);
}
