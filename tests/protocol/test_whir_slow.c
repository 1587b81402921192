/* The production WHIR shape, app_params_with_100_bits_security(21)
 * (the keccakf parameters: k 4, queries 193/88/81, 2^21-row stacked
 * matrices, PoW 15/5/20), as a random two-commit round trip. Slow suite. */
#include "whir_roundtrip.h"

Test(whir_slow, app21_shape, .timeout = 1200)
{
    gs_whir_params p = {.l_skip = 4, .n_stack = 17, .log_blowup = 1, .k = 4, .num_rounds = 3,
                        .num_queries = {193, 88, 81}, .mu_pow_bits = 15, .folding_pow_bits = 5,
                        .query_phase_pow_bits = 20};
    roundtrip(&p, 21);
}
