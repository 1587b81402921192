/* Large-size DFT tests (registered only with -Dslow_tests=true): heights
 * 2^17..2^25, round trips and spot checks against the definition. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "dft_test_util.h"

/* sum_j x[j] * w^(i*j) for one i: O(n) check of a single output. */
static bb_t eval_at(const bb_t *x, size_t n, bb_t wi)
{
    bb_t acc = 0, p = bb_one();
    for (size_t j = 0; j < n; j++) {
        acc = bb_add(acc, bb_mul(x[j], p));
        p = bb_mul(p, wi);
    }
    return acc;
}

Test(dft_slow, large_round_trips_and_spot_checks, .timeout = 1200)
{
    uint64_t seed = 0x51077;
    printf("dft slow seed %llu\n", (unsigned long long)seed);
    gs_engine *eng = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(0, &eng, &err), GLSTARK_OK);
    for (unsigned k = 17; k <= 25; k++) {
        size_t n = (size_t)1 << k, w = k <= 20 ? 3 : 1;
        uint64_t s = seed + k;
        bb_t *x = malloc(n * w * sizeof *x), *y = malloc(n * w * sizeof *y);
        for (size_t i = 0; i < n * w; i++)
            x[i] = t_rand_bb(&s);
        gs_buf *b = t_buf(eng, x, n * w);
        gs_dft_cols c = {b, 0, n, w, k, 1};
        cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_OK);
        gs_buf_read(b, 0, y, n * w * sizeof *y);
        bb_t g = bb_two_adic_generator(k);
        size_t idx[] = {0, 1, n / 2 + 3, n - 1, (size_t)(splitmix64(&s) % n)};
        for (int t = 0; t < 5; t++)
            cr_assert_eq(y[(w - 1) * n + idx[t]], eval_at(x + (w - 1) * n, n, bb_pow(g, idx[t])),
                         "seed %llu k %u: output %zu", (unsigned long long)seed, k, idx[t]);
        cr_assert_eq(gs_dft(eng, &c, GS_DFT_INVERSE), GLSTARK_OK);
        gs_buf_read(b, 0, y, n * w * sizeof *y);
        cr_assert(memcmp(x, y, n * w * sizeof *y) == 0, "seed %llu k %u: round trip differs",
                  (unsigned long long)seed, k);
        gs_buf_destroy(b);
        free(x);
        free(y);
    }
    gs_engine_destroy(eng);
}
