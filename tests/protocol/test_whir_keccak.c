/* Slow suite: the WHIR proof of keccak-app21_p16 (16 Keccak-f permutations
 * from StdRng seed 42, app params L = 21) equals OpenVM's byte for byte.
 * The trace comes from glstark's Keccak AIR trace generator; the rest is
 * test_whir_prove.c's prove_exact. */
#define GS_WHIR_PROVE_NO_TESTS
#include "test_whir_prove.c"

#include <inttypes.h>
#include <stdio.h>

#include "airs/keccak.h"
#include "glstark/airs.h"

Test(whir_keccak, keccak_app21_p16, .timeout = 1200)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/keccak_inputs_seed42_n16.txt", GLSTARK_TEST_DATA);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "open %s", path);
    uint64_t (*in)[25] = malloc(16 * sizeof *in);
    for (int p = 0; p < 16; p++)
        for (int i = 0; i < 25; i++)
            cr_assert_eq(fscanf(f, "%" SCNu64, &in[p][i]), 1);
    fclose(f);
    size_t h = glstark_keccak_trace_height(16);
    uint32_t lh = 0;
    while (((size_t)1 << lh) < h)
        lh++;
    bb_t *trace = malloc(GS_KC_WIDTH * h * sizeof(bb_t));
    cr_assert_eq(gs_keccak_trace_mont((const uint64_t(*)[25])in, 16, trace), GLSTARK_OK);
    prove_exact("keccak-app21_p16", trace, GS_KC_WIDTH, lh);
    free(trace);
    free(in);
}
