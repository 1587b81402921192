/* The vector instruction sets the CPU engine's kernels are written for (x86-64:
 * AVX2 and AVX-512F, in increasing order; AArch64: Advanced SIMD), and which
 * of them this CPU runs. Kernels with a
 * vector path take the set to use; every set gives the same words as plain
 * C (exact field arithmetic), so the choice changes only speed. */
#ifndef GS_FIELD_SIMD_ISA_H
#define GS_FIELD_SIMD_ISA_H

typedef enum gs_simd_isa {
    GS_SIMD_NONE = 0,   /* plain C */
    GS_SIMD_AVX2 = 1,   /* 16 lanes as two 8-lane AVX2 registers */
    GS_SIMD_AVX512 = 2, /* 16 lanes in one AVX-512F register */
    GS_SIMD_NEON = 3,   /* 16 lanes as four AArch64 Advanced SIMD registers */
} gs_simd_isa;

/* The last set (loops over every set run from GS_SIMD_NONE to it). */
#define GS_SIMD_LAST GS_SIMD_NEON

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GLSTARK_NO_SIMD)
#define GS_HAVE_X86_SIMD 1
#endif
/* Advanced SIMD is part of every AArch64 CPU: built in, always available. */
#if defined(__aarch64__) && defined(__GNUC__) && !defined(GLSTARK_NO_SIMD)
#define GS_HAVE_NEON_SIMD 1
#endif

/* 1 if this build has isa's kernels and this CPU runs them (NONE: always). */
static inline int gs_simd_available(gs_simd_isa isa)
{
    switch (isa) {
    case GS_SIMD_NONE: return 1;
#ifdef GS_HAVE_X86_SIMD
    case GS_SIMD_AVX2: return __builtin_cpu_supports("avx2");
    case GS_SIMD_AVX512: return __builtin_cpu_supports("avx512f");
#endif
#ifdef GS_HAVE_NEON_SIMD
    case GS_SIMD_NEON: return 1;
#endif
    default: return 0;
    }
}

/* The widest set available here. */
static inline gs_simd_isa gs_simd_best(void)
{
    return gs_simd_available(GS_SIMD_AVX512) ? GS_SIMD_AVX512
           : gs_simd_available(GS_SIMD_AVX2) ? GS_SIMD_AVX2
           : gs_simd_available(GS_SIMD_NEON) ? GS_SIMD_NEON
                                              : GS_SIMD_NONE;
}

static inline const char *gs_simd_name(gs_simd_isa isa)
{
    return isa == GS_SIMD_AVX512 ? "avx512" : isa == GS_SIMD_AVX2 ? "avx2" : isa == GS_SIMD_NEON ? "neon" : "none";
}

#endif
