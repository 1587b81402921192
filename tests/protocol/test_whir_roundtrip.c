/* WHIR round trips on random multi-commit stacked matrices, small shapes
 * (one to three rounds, k 2-3, blowup 1-2). See whir_roundtrip.h. */
#include "whir_roundtrip.h"

Test(whir_roundtrip, two_rounds_k2)
{
    gs_whir_params p = {.l_skip = 2, .n_stack = 4, .log_blowup = 1, .k = 2, .num_rounds = 2, .num_queries = {3, 2},
                        .mu_pow_bits = 2, .folding_pow_bits = 1, .query_phase_pow_bits = 2};
    roundtrip(&p, 11);
}

Test(whir_roundtrip, one_round)
{
    gs_whir_params p = {.l_skip = 2, .n_stack = 4, .log_blowup = 1, .k = 2, .num_rounds = 1, .num_queries = {5},
                        .mu_pow_bits = 0, .folding_pow_bits = 0, .query_phase_pow_bits = 0};
    roundtrip(&p, 12);
}

Test(whir_roundtrip, three_rounds_k3_blowup2)
{
    gs_whir_params p = {.l_skip = 3, .n_stack = 6, .log_blowup = 2, .k = 3, .num_rounds = 3, .num_queries = {6, 3, 2},
                        .mu_pow_bits = 3, .folding_pow_bits = 2, .query_phase_pow_bits = 1};
    roundtrip(&p, 13);
}
