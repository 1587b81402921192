/* Round 0's per-column coset transform (src/engine/cpu/r0_transform.h):
 * every implementation against the definition f(g^(i+1) w^k), where f is
 * the polynomial of degree < n through the column's values on <w>, found by
 * a naive inverse DFT and evaluated by Horner's rule. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "dft_test_util.h"
#include "engine/cpu/r0_transform.h"

static const char *impl_name(gs_simd_isa impl) { return impl == GS_SIMD_NONE ? "portable" : gs_simd_name(impl); }

/* The coset values by definition: out[i n + k] = f(g^(i+1) w^k). */
static void naive_cosets(const bb_t *values, uint32_t log_n, uint32_t n_cos, bb_t *out)
{
    size_t n = (size_t)1 << log_n;
    bb_t *coef = malloc(n * sizeof *coef);
    t_naive_dft(values, coef, log_n, 1);
    bb_t w = bb_two_adic_generator(log_n), g = bb_from_u32(31);
    for (uint32_t i = 0; i < n_cos; i++) {
        bb_t x = bb_pow(g, i + 1);
        for (size_t k = 0; k < n; k++) {
            bb_t acc = 0;
            for (size_t j = n; j-- > 0;)
                acc = bb_add(bb_mul(acc, x), coef[j]);
            out[(size_t)i * n + k] = acc;
            x = bb_mul(x, w);
        }
    }
    free(coef);
}

/* Transforms `cols` columns (random, then all 0, all 1, all p-1) with impl
 * into poisoned outputs and compares with the definition. */
static void check_impl(gs_simd_isa impl, uint32_t log_n, uint32_t n_cos, uint64_t seed)
{
    size_t n = (size_t)1 << log_n, m = (size_t)n_cos * n;
    gs_r0_transform t;
    cr_assert_eq(gs_r0_transform_init(&t, log_n, n_cos, (int)impl), 0, "%s plan for 2^%u points, %u cosets refused",
                 impl_name(impl), log_n, n_cos);
    cr_assert_eq(t.impl, impl);
    bb_t *vals = malloc(n * sizeof *vals), *got = malloc((m + 1) * sizeof *got), *want = malloc(m * sizeof *want);
    bb_t *scratch = malloc(n * sizeof *scratch);
    uint64_t s = seed;
    const uint32_t edge[3] = {0, 1, BB_P - 1};
    for (int col = 0; col < 8; col++) {
        for (size_t k = 0; k < n; k++)
            vals[k] = col < 5 ? t_rand_bb(&s) : bb_from_canonical(edge[col - 5]);
        for (size_t k = 0; k <= m; k++)
            got[k] = 0xFFFFFFFFu; /* not a field word: every output must be written */
        gs_r0_transform_column(&t, vals, got, scratch);
        naive_cosets(vals, log_n, n_cos, want);
        for (size_t k = 0; k < m; k++)
            cr_assert_eq(got[k], want[k], "%s, seed %llu, 2^%u points, %u cosets, column %d: output %zu is %u, want %u",
                         impl_name(impl), (unsigned long long)seed, log_n, n_cos, col, k, got[k], want[k]);
        cr_assert_eq(got[m], 0xFFFFFFFFu, "%s wrote past the end of its output", impl_name(impl));
    }
    free(vals), free(got), free(want), free(scratch);
    gs_r0_transform_free(&t);
}

Test(r0_transform, portable_matches_definition)
{
    uint64_t seed = 0x0A0B0C01;
    printf("r0_transform portable seed %llu\n", (unsigned long long)seed);
    for (uint32_t log_n = 0; log_n <= 6; log_n++)
        for (uint32_t n_cos = 1; n_cos <= 4; n_cos++)
            check_impl(GS_SIMD_NONE, log_n, n_cos, seed + 16 * log_n + n_cos);
}

/* Every vector form (AVX-512, AVX2, NEON: one template) the CPU and build have;
 * an unavailable one must be refused, not planned. */
Test(r0_transform, vector_paths_match_definition)
{
    uint64_t seed = 0x0A0B0C02;
    int ran = 0;
    for (gs_simd_isa isa = GS_SIMD_AVX2; isa <= GS_SIMD_LAST; isa++) {
        if (!gs_r0_transform_available(isa, 4)) {
            printf("r0_transform: no %s on this CPU or in this build\n", gs_simd_name(isa));
            cr_assert_eq(gs_r0_transform_init(&(gs_r0_transform){0}, 4, 2, (int)isa), -1,
                         "an unavailable implementation (%s) was planned", gs_simd_name(isa));
            continue;
        }
        printf("r0_transform %s seed %llu\n", gs_simd_name(isa), (unsigned long long)seed);
        for (uint32_t n_cos = 1; n_cos <= 5; n_cos++)
            check_impl(isa, 4, n_cos, seed + n_cos);
        ran++;
    }
    /* the automatic choice takes the widest for 16 points, the portable code for others */
    gs_r0_transform t;
    cr_assert_eq(gs_r0_transform_init(&t, 4, 3, -1), 0);
    cr_assert_eq(t.impl, ran ? gs_simd_best() : GS_SIMD_NONE);
    gs_r0_transform_free(&t);
    cr_assert_eq(gs_r0_transform_init(&t, 5, 3, -1), 0);
    cr_assert_eq(t.impl, GS_SIMD_NONE);
    gs_r0_transform_free(&t);
}

/* The shifted column from the local one's outputs against the definition:
 * the coset values of (v_1, ..., v_{n-1}, u). */
static void check_next(int impl, uint32_t log_n, uint32_t n_cos, uint64_t seed)
{
    size_t n = (size_t)1 << log_n, m = (size_t)n_cos * n;
    gs_r0_transform t;
    cr_assert_eq(gs_r0_transform_init(&t, log_n, n_cos, impl), 0);
    bb_t *vals = malloc((n + 1) * sizeof *vals), *local = malloc(m * sizeof *local), *got = malloc((m + 1) * sizeof *got);
    bb_t *want = malloc(m * sizeof *want), *scratch = malloc(n * sizeof *scratch);
    uint64_t s = seed;
    for (int col = 0; col < 6; col++) {
        for (size_t k = 0; k <= n; k++) /* v_0 .. v_{n-1}, then u; column 5: u = v_0 (no correction) */
            vals[k] = col == 4 ? bb_from_canonical(BB_P - 1) : t_rand_bb(&s);
        if (col == 5)
            vals[n] = vals[0];
        gs_r0_transform_column(&t, vals, local, scratch);
        for (size_t k = 0; k <= m; k++)
            got[k] = 0xFFFFFFFFu;
        gs_r0_transform_next(&t, local, bb_sub(vals[n], vals[0]), got);
        naive_cosets(vals + 1, log_n, n_cos, want);
        for (size_t k = 0; k < m; k++)
            cr_assert_eq(got[k], want[k], "impl %d, seed %llu, 2^%u points, %u cosets, column %d: shifted output %zu differs",
                         (int)t.impl, (unsigned long long)seed, log_n, n_cos, col, k);
        cr_assert_eq(got[m], 0xFFFFFFFFu, "wrote past the end of its output");
    }
    free(vals), free(local), free(got), free(want), free(scratch);
    gs_r0_transform_free(&t);
}

Test(r0_transform, next_row_column_by_rotation)
{
    uint64_t seed = 0x0A0B0C03;
    printf("r0_transform next-row seed %llu\n", (unsigned long long)seed);
    for (uint32_t log_n = 0; log_n <= 5; log_n++)
        for (uint32_t n_cos = 1; n_cos <= 3; n_cos++)
            check_next(GS_SIMD_NONE, log_n, n_cos, seed + 16 * log_n + n_cos);
    for (gs_simd_isa isa = GS_SIMD_AVX2; isa <= GS_SIMD_LAST; isa++)
        if (gs_r0_transform_available(isa, 4))
            for (uint32_t n_cos = 1; n_cos <= 3; n_cos++)
                check_next(isa, 4, n_cos, seed + 1000 * isa + n_cos);
}

Test(r0_transform, refuses_what_it_cannot_plan)
{
    gs_r0_transform t;
    cr_assert_eq(gs_r0_transform_init(&t, 28, 1, -1), -1, "2^28-point plan accepted");
    for (gs_simd_isa isa = GS_SIMD_AVX2; isa <= GS_SIMD_LAST; isa++) {
        cr_assert_eq(gs_r0_transform_init(&t, 3, 1, (int)isa), -1, "%s path accepted for 8 points", gs_simd_name(isa));
        cr_assert_eq(gs_r0_transform_init(&t, 5, 1, (int)isa), -1, "%s path accepted for 32 points", gs_simd_name(isa));
    }
    cr_assert_eq(gs_r0_transform_init(&t, 4, 1, 7), -1, "unknown implementation accepted");
    cr_assert_eq(gs_r0_transform_available((gs_simd_isa)7, 4), 0);
}
