/* SystemParams as OpenVM stark-backend v2.0.1 defines them (config.rs), and
 * the parameter sets the examples use: app_params_with_100_bits_security(L)
 * (stark-sdk config/mod.rs) and default_test_params_small() (test_utils).
 * Field order below is the serde order of the verifying key. */
#ifndef GS_COMMON_PARAMS_H
#define GS_COMMON_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define GS_WHIR_MAX_ROUNDS 32

typedef enum gs_whir_proximity_kind {
    GS_PROXIMITY_UNIQUE_DECODING = 0,
    GS_PROXIMITY_SPLIT_UNIQUE_LIST = 1,
    GS_PROXIMITY_LIST_DECODING = 2
} gs_whir_proximity_kind;

typedef struct gs_whir_proximity {
    gs_whir_proximity_kind kind;
    size_t m;                /* SplitUniqueList and ListDecoding */
    size_t list_start_round; /* SplitUniqueList only */
} gs_whir_proximity;

typedef struct gs_whir_config {
    size_t k;
    size_t num_rounds;
    size_t num_queries[GS_WHIR_MAX_ROUNDS];
    size_t mu_pow_bits;
    size_t query_phase_pow_bits;
    size_t folding_pow_bits;
    gs_whir_proximity proximity;
} gs_whir_config;

typedef struct gs_logup_params {
    uint32_t max_interaction_count;
    uint32_t log_max_message_length;
    size_t pow_bits;
} gs_logup_params;

typedef struct gs_system_params {
    size_t l_skip;
    size_t n_stack;
    size_t w_stack;
    size_t log_blowup;
    gs_whir_config whir;
    gs_logup_params logup;
    size_t max_constraint_degree;
} gs_system_params;

/* WhirConfig::new: query counts per round from the security target (f64
 * math as the reference does). Fails if the round count exceeds
 * GS_WHIR_MAX_ROUNDS or k is 0. */
glstark_status gs_whir_config_new(size_t log_blowup, size_t log_stacked_height, size_t k,
                                  size_t log_final_poly_len, size_t query_phase_pow_bits,
                                  gs_whir_proximity proximity, size_t folding_pow_bits,
                                  size_t mu_pow_bits, size_t security_bits, gs_whir_config *out,
                                  gs_error *err);

/* The production app parameters (100-bit target) for stacked height 2^L,
 * L <= 24 (OpenVM asserts the same bound). */
glstark_status gs_app_params_with_100_bits_security(size_t log_stacked_height,
                                                    gs_system_params *out, gs_error *err);

/* OpenVM's default_test_params_small(): l_skip 2, n_stack 8, k_whir 3. */
void gs_default_test_params_small(gs_system_params *out);

/* test_system_params_small(l_skip, n_stack, k_whir) of OpenVM's test utils. */
glstark_status gs_test_system_params_small(size_t l_skip, size_t n_stack, size_t k_whir,
                                           gs_system_params *out, gs_error *err);

static inline size_t gs_params_log_stacked_height(const gs_system_params *p)
{
    return p->l_skip + p->n_stack;
}

static inline size_t gs_params_log_final_poly_len(const gs_system_params *p)
{
    return gs_params_log_stacked_height(p) - p->whir.num_rounds * p->whir.k;
}

#endif
