/* gs_cpu_eq_table (the eq table split over threads) against bb4_eq_table,
 * the one-thread definition that test_field checks against schoolbook
 * products. Sizes on both sides of the split's threshold (2^14), thread
 * counts that divide the 63 scaled blocks unevenly or exceed them (and the
 * engine's 8 parked threads, which then start their own), and
 * coordinates 0, 1, -1 and random ones (printed seed). The output is
 * poisoned first, so an entry left unwritten fails. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/cpu/eq_table_cpu.h"
#include "field/babybear.h"
#include "field/ext4.h"

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static bb4_t coordinate(size_t k, uint64_t *s)
{
    bb4_t z = bb4_zero();
    switch (k % 7) {
    case 0: return z;
    case 1: return bb4_one();
    case 2: z.c[0] = bb_from_canonical(BB_P - 1); return z;
    default:
        for (int i = 0; i < 4; i++)
            z.c[i] = bb_from_canonical((uint32_t)next(s) % BB_P);
        return z;
    }
}

Test(eq_table_cpu, threads_match_one_thread)
{
    uint64_t seed = 0x5EEDE9u;
    cr_log_info("seed %llu", (unsigned long long)seed);
    static const size_t sizes[] = {0, 5, 13, 14, 15, 19};
    static const unsigned threads[] = {1, 2, 3, 7, 63, 100};
    bb4_t xi[24];
    gs_engine *eng = NULL;
    gs_error err = {0};
    cr_assert_eq(gs_cpu_engine_create(8, &eng, &err), GLSTARK_OK, "%s", err.msg);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s], len = (size_t)1 << n;
        for (size_t k = 0; k < n; k++)
            xi[k] = coordinate(k + s, &seed);
        bb4_t *want = malloc(len * sizeof *want), *got = malloc(len * sizeof *got);
        cr_assert(want && got);
        bb4_eq_table(xi, n, want);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            memset(got, 0xA5, len * sizeof *got);
            gs_cpu_eq_table(eng, threads[t], xi, n, got);
            for (size_t x = 0; x < len; x++)
                cr_assert_arr_eq(got[x].c, want[x].c, sizeof want[x].c, "n = %zu, %u threads, entry %zu", n,
                                 threads[t], x);
        }
        free(want);
        free(got);
    }
    gs_engine_destroy(eng);
}
