/* The CPU engine's vector folds of extension vectors (ext_fold_simd.h) in
 * every vector set this CPU runs, against the scalar extension field of
 * ext4.h: x[2y] + r (x[2y+1] - x[2y]) out of place and in place, and
 * a x[2y] + b x[2y+1] with a general a and with a = 1 (the path that skips
 * its product). Elements mix random words (fixed printed seed) with 0, 1
 * and p-1 components; the challenges include 0, 1, -1, an element with
 * only its X^3 component (every product then goes through X^4 = 11) and
 * one with every component p-1; lengths are not multiples of 4; outputs are
 * poisoned first and the words past the done prefix must stay poisoned. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpu/ext_fold_simd.h"
#include "engine/cpu/kernels.h"
#include "field/babybear.h"
#include "field/ext4.h"

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static bb_t base_word(uint64_t *s)
{
    uint32_t r = (uint32_t)next(s);
    switch (r % 6) {
    case 0: return bb_zero();
    case 1: return bb_one();
    case 2: return bb_from_canonical(BB_P - 1);
    default: return bb_from_canonical((uint32_t)next(s) % BB_P);
    }
}

static bb4_t element(uint64_t *s)
{
    bb4_t e;
    for (int i = 0; i < 4; i++)
        e.c[i] = base_word(s);
    return e;
}

/* The fixed challenges: 0, 1, -1, X^3, (p-1)(1 + X + X^2 + X^3), random ones. */
static bb4_t challenge(int i, uint64_t *s)
{
    bb4_t z = bb4_zero();
    bb_t m1 = bb_from_canonical(BB_P - 1);
    switch (i) {
    case 0: return z;
    case 1: return bb4_one();
    case 2: z.c[0] = m1; return z;
    case 3: z.c[3] = bb_one(); return z;
    case 4: z.c[0] = z.c[1] = z.c[2] = z.c[3] = m1; return z;
    default: return element(s);
    }
}

enum { N_CHALLENGES = 8, MAXN = 1003 };
static const size_t lens[] = {0, 1, 3, 4, 5, 8, 17, 1003};

static void poison(bb4_t *v, size_t n) { memset(v, 0xFF, n * sizeof *v); }

static int poisoned(const bb4_t *v)
{
    return v->c[0] == 0xFFFFFFFFu && v->c[1] == 0xFFFFFFFFu && v->c[2] == 0xFFFFFFFFu && v->c[3] == 0xFFFFFFFFu;
}

Test(ext_fold, lerp_matches_scalar_in_every_set)
{
    uint64_t seed = 0xE47F01D;
    printf("ext_fold lerp seed %llu\n", (unsigned long long)seed);
    bb4_t *x = malloc(2 * MAXN * sizeof *x), *out = malloc(MAXN * sizeof *out), *want = malloc(MAXN * sizeof *want);
    cr_assert(x && out && want);
    int ran = 0;
    for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++) {
        int have = isa != GS_SIMD_NONE && gs_simd_available(isa);
        ran += have;
        for (int ci = 0; ci < N_CHALLENGES; ci++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    size_t n = lens[li];
                    bb4_t r = challenge(ci, &seed);
                    for (size_t i = 0; i < 2 * n; i++)
                        x[i] = element(&seed);
                    for (size_t y = 0; y < n; y++)
                        want[y] = bb4_add(x[2 * y], bb4_mul(r, bb4_sub(x[2 * y + 1], x[2 * y])));
                    bb4_t *dst = in_place ? x : out;
                    if (!in_place)
                        poison(out, MAXN);
                    gs_ext_matrix rm;
                    gs_ext_matrix_of(r, &rm);
                    size_t done = gs_ext_fold_lerp_simd(gs_cpu_kernels_of(isa), dst, x, n, &rm);
                    cr_assert_eq(done, have ? n / 4 * 4 : 0, "%s, n %zu: %zu done", gs_simd_name(isa), n, done);
                    for (size_t y = 0; y < done; y++)
                        cr_assert(bb4_eq(dst[y], want[y]), "%s, challenge %d, n %zu, in place %d, element %zu differs",
                                  gs_simd_name(isa), ci, n, in_place, y);
                    if (!in_place)
                        for (size_t y = done; y < MAXN; y++)
                            cr_assert(poisoned(&out[y]), "%s, n %zu: element %zu past the prefix written",
                                      gs_simd_name(isa), n, y);
                }
    }
    if (!ran)
        printf("ext_fold: no vector set here (the callers' scalar loops do the folds)\n");
    free(x), free(out), free(want);
}

Test(ext_fold, lin_matches_scalar_in_every_set)
{
    uint64_t seed = 0xE47F02D;
    printf("ext_fold lin seed %llu\n", (unsigned long long)seed);
    bb4_t *x = malloc(2 * MAXN * sizeof *x), *out = malloc(MAXN * sizeof *out);
    cr_assert(x && out);
    for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++) {
        int have = isa != GS_SIMD_NONE && gs_simd_available(isa);
        for (int ai = 0; ai < N_CHALLENGES; ai++)
            for (int bi = 0; bi < N_CHALLENGES; bi++) {
                bb4_t a = challenge(ai, &seed), b = challenge(bi, &seed); /* ai = 1: a = 1, the skipped product */
                size_t n = lens[(size_t)(ai + bi) % (sizeof lens / sizeof lens[0])];
                for (size_t i = 0; i < 2 * n; i++)
                    x[i] = element(&seed);
                poison(out, MAXN);
                gs_ext_matrix am, bm;
                gs_ext_matrix_of(a, &am);
                gs_ext_matrix_of(b, &bm);
                /* a = 1 (challenge 1) also through the path that skips its product */
                size_t done = gs_ext_fold_lin_simd(gs_cpu_kernels_of(isa), out, x, n, ai == 1 ? NULL : &am, &bm);
                cr_assert_eq(done, have ? n / 4 * 4 : 0, "%s, n %zu: %zu done", gs_simd_name(isa), n, done);
                for (size_t y = 0; y < done; y++) {
                    bb4_t w = bb4_add(bb4_mul(a, x[2 * y]), bb4_mul(b, x[2 * y + 1]));
                    cr_assert(bb4_eq(out[y], w), "%s, a %d, b %d, n %zu, element %zu differs", gs_simd_name(isa), ai,
                              bi, n, y);
                }
                for (size_t y = done; y < MAXN; y++)
                    cr_assert(poisoned(&out[y]), "%s, n %zu: element %zu past the prefix written", gs_simd_name(isa),
                              n, y);
            }
    }
    free(x), free(out);
}
