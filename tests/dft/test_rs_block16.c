/* The vector RS message blocks (src/engine/cpu/rs_block16.h), in every
 * instruction set this CPU runs, against eval_to_coeff_rs_message written
 * out (t_naive_rs_message: a naive inverse DFT per block, then the sums over
 * subsets): random words with 0, 1 and p-1 mixed in (fixed printed seed),
 * whole blocks of edge values, block counts 0, 1, 2, 7, 64; the word after
 * the last block must stay as it was. Sets the CPU lacks, and
 * GS_SIMD_NONE, must do nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "dft_test_util.h"
#include "engine/cpu/rs_block16.h"
#include "engine/cpu/kernels.h"

Test(rs_block16, vector_blocks_match_definition)
{
    uint64_t seed = 0x5B16A001;
    printf("rs_block16 seed %llu\n", (unsigned long long)seed);
    gs_rs_block16 plan;
    gs_rs_block16_init(&plan);
    const size_t counts[] = {0, 1, 2, 7, 64};
    const uint32_t edge[3] = {0, 1, BB_P - 1};
    for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++) {
        int runs = isa != GS_SIMD_NONE && gs_simd_available(isa);
        uint64_t s = seed;
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
            size_t nb = counts[ci], n = 16 * nb;
            bb_t *in = malloc((n + 1) * sizeof *in), *x = malloc((n + 1) * sizeof *x), *want = malloc((n + 1) * sizeof *want);
            for (size_t i = 0; i < n; i++)
                in[i] = t_rand_bb(&s);
            for (size_t b = 0; b < nb && b < 3; b++) /* whole blocks of 0, 1, p-1 */
                for (size_t i = 0; i < 16; i++)
                    in[16 * b + i] = bb_from_canonical(edge[b]);
            memcpy(x, in, n * sizeof *x);
            x[n] = 0xFFFFFFFFu;
            int done = gs_rs_block16_run(&plan, gs_cpu_kernels_of(isa), x, nb);
            if (!runs) {
                cr_assert_eq(done, 0, "%s is not available here but reported work", gs_simd_name(isa));
                cr_assert_eq(memcmp(x, in, n * sizeof *x), 0, "%s changed its input without running", gs_simd_name(isa));
                free(in), free(x), free(want);
                continue;
            }
            cr_assert_eq(done, 1);
            t_naive_rs_message(in, want, n, 4);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(x[i], want[i], "%s, seed %llu, %zu blocks: word %zu is %u, want %u", gs_simd_name(isa),
                             (unsigned long long)seed, nb, i, x[i], want[i]);
            cr_assert_eq(x[n], 0xFFFFFFFFu, "%s wrote past the last block", gs_simd_name(isa));
            free(in), free(x), free(want);
        }
        if (!runs)
            printf("rs_block16: %s does no work here\n", gs_simd_name(isa));
    }
}
