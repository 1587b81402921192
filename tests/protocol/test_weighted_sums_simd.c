/* The CPU engine's vector weighted sums (src/engine/cpu/weighted_sums_simd.h),
 * in every instruction set this CPU runs (AVX-512, AVX2 and NEON share one
 * template), against their definitions written out here: random values with
 * 0, 1 and p-1 mixed in, fixed printed seeds, poisoned outputs, lengths that
 * are not multiples of 16 (the functions must stop at the last whole group).
 * GS_SIMD_NONE and sets the CPU lacks must do nothing. WHIR's w update
 * (w_accumulate) is checked the same way: words outside the done range keep
 * their old values. */
#include <criterion/criterion.h>

#include "dft/dft_test_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpu/weighted_sums_simd.h"
#include "engine/cpu/kernels.h"

/* the edge-value generator of the dft tests */
#define rnd_bb t_rand_bb

static bb4_t rnd_bb4(uint64_t *s)
{
    bb4_t r = {{rnd_bb(s), rnd_bb(s), rnd_bb(s), rnd_bb(s)}};
    return r;
}

static const bb4_t POISON = {{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}};

/* 1 if isa's kernels run here (else the functions must do nothing). */
static int runs(gs_simd_isa isa)
{
    int r = isa != GS_SIMD_NONE && gs_simd_available(isa);
    if (!r)
        printf("weighted_sums_simd: %s does no work here; checking that it does nothing\n", gs_simd_name(isa));
    return r;
}

#define FOR_EACH_ISA(isa) for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++)

static void check_fold(gs_simd_isa isa)
{
    if (!runs(isa)) {
        bb_t m[64] = {0}, lw[16] = {0};
        bb4_t dst[4] = {POISON, POISON, POISON, POISON};
        cr_assert_eq(gs_ple_fold_simd(gs_cpu_kernels_of(isa), m, 4, 16, lw, dst), 0);
        cr_assert(bb4_eq(dst[0], POISON), "an unavailable path wrote its output");
        return;
    }
    uint64_t seed = 0x91E50001;
    printf("weighted_sums_simd fold %s seed %llu\n", gs_simd_name(isa), (unsigned long long)seed);
    uint64_t s = seed;
    const size_t ns[] = {1, 2, 4, 8, 16, 32, 64};
    const size_t xends[] = {0, 15, 16, 37, 64};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof xends / sizeof *xends; b++) {
            size_t n = ns[a], xend = xends[b];
            bb_t *m = malloc((xend * n + 1) * sizeof *m), *lwc = malloc(4 * n * sizeof *lwc);
            bb4_t *lw = malloc(n * sizeof *lw), *dst = malloc((xend + 1) * sizeof *dst);
            for (size_t i = 0; i < xend * n + 1; i++)
                m[i] = rnd_bb(&s);
            for (size_t k = 0; k < n; k++) {
                lw[k] = rnd_bb4(&s);
                for (int j = 0; j < 4; j++)
                    lwc[(size_t)j * n + k] = lw[k].c[j];
            }
            for (size_t x = 0; x <= xend; x++)
                dst[x] = POISON;
            size_t done = gs_ple_fold_simd(gs_cpu_kernels_of(isa), m, n, xend, lwc, dst);
            cr_assert_eq(done, xend / 16 * 16, "%s, n %zu, xend %zu: stopped at %zu", gs_simd_name(isa), n, xend, done);
            for (size_t x = 0; x < done; x++) {
                bb4_t want = bb4_zero();
                for (size_t k = 0; k < n; k++)
                    want = bb4_add(want, bb4_mul_base(lw[k], m[x * n + k]));
                cr_assert(bb4_eq(dst[x], want), "%s, seed %llu, n %zu, xend %zu: block %zu differs", gs_simd_name(isa),
                          (unsigned long long)seed, n, xend, x);
            }
            for (size_t x = done; x <= xend; x++)
                cr_assert(bb4_eq(dst[x], POISON), "n %zu, xend %zu: block %zu past the stop was written", n, xend, x);
            free(m), free(lwc), free(lw), free(dst);
        }
}

Test(weighted_sums_simd, fold_matches_definition)
{
    FOR_EACH_ISA(isa)
    check_fold(isa);
}

static void check_block_sums(gs_simd_isa isa)
{
    bb4_t out0[16], out1[16];
    if (!runs(isa)) {
        cr_assert_eq(gs_ple_block_sums16_simd(gs_cpu_kernels_of(isa), NULL, 0, NULL, out0, out1), 0);
        return;
    }
    uint64_t seed = 0x91E50002;
    printf("weighted_sums_simd block sums %s seed %llu\n", gs_simd_name(isa), (unsigned long long)seed);
    uint64_t s = seed;
    const size_t nxs[] = {1, 2, 5, 64, 300};
    for (size_t a = 0; a < sizeof nxs / sizeof *nxs; a++) {
        size_t nx = nxs[a];
        bb_t *m = malloc(16 * nx * sizeof *m);
        bb4_t *e = malloc(nx * sizeof *e);
        for (size_t i = 0; i < 16 * nx; i++)
            m[i] = rnd_bb(&s);
        for (size_t x = 0; x < nx; x++)
            e[x] = rnd_bb4(&s);
        for (int z = 0; z < 16; z++)
            out0[z] = out1[z] = POISON;
        cr_assert_eq(gs_ple_block_sums16_simd(gs_cpu_kernels_of(isa), m, nx, e, out0, out1), 1);
        for (size_t z = 0; z < 16; z++) {
            bb4_t w0 = bb4_zero(), w1 = bb4_zero();
            for (size_t x = 0; x < nx; x++) {
                w0 = bb4_add(w0, bb4_mul_base(e[x], m[16 * x + z]));
                w1 = bb4_add(w1, bb4_mul_base(e[(x + nx - 1) % nx], m[16 * x + z]));
            }
            cr_assert(bb4_eq(out0[z], w0), "%s, seed %llu, nx %zu: sum 0 of row %zu differs", gs_simd_name(isa),
                      (unsigned long long)seed, nx, z);
            cr_assert(bb4_eq(out1[z], w1), "%s, seed %llu, nx %zu: sum 1 of row %zu differs", gs_simd_name(isa),
                      (unsigned long long)seed, nx, z);
        }
        free(m), free(e);
    }
}

Test(weighted_sums_simd, block_sums_match_definition)
{
    FOR_EACH_ISA(isa)
    check_block_sums(isa);
}

static void check_lincomb(gs_simd_isa isa)
{
    int on = runs(isa);
    uint64_t seed = 0x91E50003;
    printf("weighted_sums_simd lincomb %s seed %llu\n", gs_simd_name(isa), (unsigned long long)seed);
    uint64_t s = seed;
    enum { ROWS = 100, NC = 7 };
    bb_t *cols[NC];
    bb4_t mu[NC], out[ROWS];
    for (int j = 0; j < NC; j++) {
        cols[j] = malloc(ROWS * sizeof(bb_t));
        for (int r = 0; r < ROWS; r++)
            cols[j][r] = rnd_bb(&s);
        mu[j] = rnd_bb4(&s);
    }
    const size_t spans[][2] = {{0, 0}, {0, 15}, {0, 16}, {3, 40}, {5, 100}, {84, 100}};
    for (size_t t = 0; t < sizeof spans / sizeof *spans; t++) {
        size_t r0 = spans[t][0], r1 = spans[t][1];
        for (int r = 0; r < ROWS; r++)
            out[r] = POISON;
        size_t done = gs_lincomb_rows_simd(gs_cpu_kernels_of(isa), (const bb_t *const *)cols, mu, NC, r0, r1, out);
        if (!on) {
            cr_assert_eq(done, r0, "an unavailable path did rows");
            continue;
        }
        cr_assert_eq(done, r0 + (r1 - r0) / 16 * 16, "rows [%zu, %zu): stopped at %zu", r0, r1, done);
        for (size_t r = 0; r < ROWS; r++) {
            if (r < r0 || r >= done) {
                cr_assert(bb4_eq(out[r], POISON), "rows [%zu, %zu): row %zu outside the done range was written", r0, r1, r);
                continue;
            }
            bb4_t want = bb4_zero();
            for (int j = 0; j < NC; j++)
                want = bb4_add(want, bb4_mul_base(mu[j], cols[j][r]));
            cr_assert(bb4_eq(out[r], want), "%s, seed %llu, rows [%zu, %zu): row %zu differs", gs_simd_name(isa),
                      (unsigned long long)seed, r0, r1, r);
        }
    }
    for (int j = 0; j < NC; j++)
        free(cols[j]);
}

Test(weighted_sums_simd, lincomb_matches_definition)
{
    FOR_EACH_ISA(isa)
    check_lincomb(isa);
}

static void check_matvec16(gs_simd_isa isa)
{
    uint64_t seed = 0x91E50004;
    printf("weighted_sums_simd matvec16 %s seed %llu\n", gs_simd_name(isa), (unsigned long long)seed);
    uint64_t s = seed;
    enum { NB = 5 };
    bb_t mat[256];
    bb4_t a[16 * NB], orig[16 * NB];
    for (int i = 0; i < 256; i++)
        mat[i] = rnd_bb(&s);
    for (int i = 0; i < 16 * NB; i++)
        orig[i] = a[i] = rnd_bb4(&s);
    if (!runs(isa)) {
        cr_assert_eq(gs_matvec16_blocks_simd(gs_cpu_kernels_of(isa), mat, a, NB), 0);
        cr_assert_eq(memcmp(a, orig, sizeof a), 0, "an unavailable path changed its input");
        return;
    }
    /* the last block must stay as it was */
    cr_assert_eq(gs_matvec16_blocks_simd(gs_cpu_kernels_of(isa), mat, a, NB - 1), 1);
    for (int b = 0; b < NB; b++)
        for (int r = 0; r < 16; r++) {
            bb4_t want = orig[16 * b + r];
            if (b < NB - 1) {
                want = bb4_zero();
                for (int k = 0; k < 16; k++)
                    want = bb4_add(want, bb4_mul_base(orig[16 * b + k], mat[16 * r + k]));
            }
            cr_assert(bb4_eq(a[16 * b + r], want), "%s, seed %llu: block %d row %d differs", gs_simd_name(isa),
                      (unsigned long long)seed, b, r);
        }
}

Test(weighted_sums_simd, matvec16_matches_definition)
{
    FOR_EACH_ISA(isa)
    check_matvec16(isa);
}

/* WHIR's w update against its definition: w[b] + t0[b] + sum_q gammas[q]
 * lo[q][b mod 2^nlo] hi[q][b >> nlo], for ranges that start on and off a
 * multiple of 16, with nlo below 4 (not available) and above. */
static void check_w_accumulate(gs_simd_isa isa)
{
    int on = runs(isa);
    uint64_t seed = 0x91E50005;
    printf("weighted_sums_simd w_accumulate %s seed %llu\n", gs_simd_name(isa), (unsigned long long)seed);
    uint64_t s = seed;
    const unsigned nlos[] = {3, 4, 5};
    const size_t ranges[][2] = {{0, 0}, {0, 15}, {0, 16}, {16, 50}, {5, 100}, {0, 256}};
    enum { NZ = 5 };
    for (size_t a = 0; a < sizeof nlos / sizeof *nlos; a++) {
        unsigned nlo = nlos[a], nhi = 8 - nlo; /* 2^8 = 256 values of b */
        size_t llen = (size_t)1 << nlo, hlen = (size_t)1 << nhi;
        bb_t lo[NZ * 32], hi[NZ * 32];
        bb4_t gammas[NZ], w[256], w0[256], t0[256];
        for (size_t i = 0; i < NZ * llen; i++)
            lo[i] = rnd_bb(&s);
        for (size_t i = 0; i < NZ * hlen; i++)
            hi[i] = rnd_bb(&s);
        for (int q = 0; q < NZ; q++)
            gammas[q] = rnd_bb4(&s);
        for (int b = 0; b < 256; b++) {
            w0[b] = rnd_bb4(&s);
            t0[b] = rnd_bb4(&s);
        }
        for (size_t t = 0; t < sizeof ranges / sizeof *ranges; t++) {
            size_t b0 = ranges[t][0], b1 = ranges[t][1];
            memcpy(w, w0, sizeof w);
            size_t done = gs_w_accumulate_simd(gs_cpu_kernels_of(isa), w, t0, lo, hi, gammas, NZ, nlo, nhi, b0, b1);
            size_t want_done = on && nlo >= 4 && b0 % 16 == 0 ? b0 + (b1 - b0) / 16 * 16 : b0;
            cr_assert_eq(done, want_done, "%s, nlo %u, [%zu, %zu): stopped at %zu", gs_simd_name(isa), nlo, b0, b1,
                         done);
            for (size_t b = 0; b < 256; b++) {
                bb4_t want = w0[b];
                if (b >= b0 && b < done) {
                    want = bb4_add(want, t0[b]);
                    for (int q = 0; q < NZ; q++)
                        want = bb4_add(want, bb4_mul_base(gammas[q], bb_mul(lo[q * llen + (b & (llen - 1))],
                                                                             hi[q * hlen + (b >> nlo)])));
                }
                cr_assert(bb4_eq(w[b], want), "%s, seed %llu, nlo %u, [%zu, %zu): b %zu differs", gs_simd_name(isa),
                          (unsigned long long)seed, nlo, b0, b1, b);
            }
        }
    }
}

Test(weighted_sums_simd, w_accumulate_matches_definition)
{
    FOR_EACH_ISA(isa)
    check_w_accumulate(isa);
}
