/* Parameter sets of OpenVM stark-backend v2.0.1 / stark-sdk (see params.h). */
#include "common/params.h"

#include <math.h>

#include "field/babybear.h"

/* ProximityRegime of one WHIR round under a strategy (WhirProximityStrategy::in_round). */
static int round_is_list_decoding(const gs_whir_proximity *p, size_t round, size_t *m)
{
    switch (p->kind) {
    case GS_PROXIMITY_UNIQUE_DECODING:
        return 0;
    case GS_PROXIMITY_SPLIT_UNIQUE_LIST:
        if (round < p->list_start_round)
            return 0;
        *m = p->m;
        return 1;
    case GS_PROXIMITY_LIST_DECODING:
    default:
        *m = p->m;
        return 1;
    }
}

/* ProximityRegime::max_agreement, clamped as the reference clamps it. */
static double max_agreement(int list, size_t m, size_t log_inv_rate)
{
    double rho = pow(2.0, -(double)log_inv_rate);
    double a;
    if (!list) {
        a = (1.0 + rho) / 2.0;
    } else {
        double mm = (double)(m > 1 ? m : 1);
        a = sqrt(rho) * (1.0 + 1.0 / (2.0 * mm));
    }
    if (a < 2.2250738585072014e-308)
        a = 2.2250738585072014e-308;
    if (a > 1.0)
        a = 1.0;
    return a;
}

glstark_status gs_whir_config_new(size_t log_blowup, size_t log_stacked_height, size_t k,
                                  size_t log_final_poly_len, size_t query_phase_pow_bits,
                                  gs_whir_proximity proximity, size_t folding_pow_bits,
                                  size_t mu_pow_bits, size_t security_bits, gs_whir_config *out,
                                  gs_error *err)
{
    if (!out)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "gs_whir_config_new: out is NULL");
    if (k == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "WHIR folding factor k is 0; use k >= 1");
    size_t protocol_security = security_bits > query_phase_pow_bits ? security_bits - query_phase_pow_bits : 0;
    size_t span = log_stacked_height > log_final_poly_len ? log_stacked_height - log_final_poly_len : 0;
    size_t num_rounds = (span + k - 1) / k;
    if (num_rounds > GS_WHIR_MAX_ROUNDS)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "WHIR would need %zu rounds (stacked height 2^%zu, k %zu); at most %d are supported",
                            num_rounds, log_stacked_height, k, GS_WHIR_MAX_ROUNDS);
    out->k = k;
    out->num_rounds = num_rounds;
    size_t log_inv_rate = log_blowup;
    for (size_t r = 0; r < num_rounds; r++) {
        size_t m = 1;
        int list = round_is_list_decoding(&proximity, r, &m);
        /* queries are sized for the rate before this round's folding */
        double per_query = -log2(max_agreement(list, m, log_inv_rate));
        double q = ceil((double)protocol_security / per_query);
        out->num_queries[r] = q > 0 ? (size_t)q : 0;
        log_inv_rate += k - 1;
    }
    for (size_t r = num_rounds; r < GS_WHIR_MAX_ROUNDS; r++)
        out->num_queries[r] = 0;
    out->mu_pow_bits = mu_pow_bits;
    out->query_phase_pow_bits = query_phase_pow_bits;
    out->folding_pow_bits = folding_pow_bits;
    out->proximity = proximity;
    return GLSTARK_OK;
}

/* log_up_security_params_baby_bear_100_bits with the PCS list size of the
 * initial WHIR round; unique decoding (all app params) has list size 1. */
static gs_logup_params logup_params_100_bits_unique(void)
{
    gs_logup_params lp;
    lp.max_interaction_count = BB_P;
    lp.log_max_message_length = 7;
    double challenge_field_bits = 4.0 * log2((double)BB_P);
    double sec = challenge_field_bits - log2(2.0 * (double)lp.max_interaction_count) -
                 (double)lp.log_max_message_length - 0.0;
    double need = ceil(100.0 - sec);
    size_t pow_bits = need > 0 ? (size_t)need : 0;
    lp.pow_bits = pow_bits > 18 ? pow_bits : 18; /* MIN_BABY_BEAR_LOGUP_POW_BITS */
    return lp;
}

glstark_status gs_app_params_with_100_bits_security(size_t log_stacked_height,
                                                    gs_system_params *out, gs_error *err)
{
    if (!out)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "app params: out is NULL");
    if (log_stacked_height > 24)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "app params: log stacked height %zu is above OpenVM's maximum 24",
                            log_stacked_height);
    const size_t l_skip = 4, k_whir = 4;
    out->l_skip = l_skip;
    out->n_stack = log_stacked_height > l_skip ? log_stacked_height - l_skip : 0;
    out->w_stack = 2048;
    out->log_blowup = 1;
    gs_whir_proximity prox = {GS_PROXIMITY_UNIQUE_DECODING, 0, 0};
    glstark_status st = gs_whir_config_new(out->log_blowup, l_skip + out->n_stack, k_whir,
                                           10 /* WHIR_MAX_LOG_FINAL_POLY_LEN */,
                                           20 /* query phase pow bits */, prox,
                                           5 /* folding pow */, 15 /* mu pow */,
                                           100 /* security target */, &out->whir, err);
    if (st)
        return st;
    out->logup = logup_params_100_bits_unique();
    out->max_constraint_degree = 3;
    return GLSTARK_OK;
}

glstark_status gs_test_system_params_small(size_t l_skip, size_t n_stack, size_t k_whir,
                                           gs_system_params *out, gs_error *err)
{
    if (!out)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "test params: out is NULL");
    if (k_whir == 0 || l_skip + n_stack == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "test params: need k_whir >= 1 and l_skip + n_stack >= 1");
    size_t log_final_poly_len = (n_stack + l_skip) % k_whir;
    out->l_skip = l_skip;
    out->n_stack = n_stack;
    out->w_stack = 1u << 12;
    out->log_blowup = 1;
    gs_whir_proximity prox = {GS_PROXIMITY_SPLIT_UNIQUE_LIST, 3, 1};
    glstark_status st = gs_whir_config_new(1, l_skip + n_stack, k_whir, log_final_poly_len,
                                           1 /* query pow */, prox, 2 /* folding pow */,
                                           3 /* mu pow */, 5 /* security bits */, &out->whir, err);
    if (st)
        return st;
    out->logup.max_interaction_count = 1u << 30;
    out->logup.log_max_message_length = 7;
    out->logup.pow_bits = 2;
    out->max_constraint_degree = 3;
    return GLSTARK_OK;
}

void gs_default_test_params_small(gs_system_params *out)
{
    /* cannot fail for these constants */
    (void)gs_test_system_params_small(2, 8, 3, out, NULL);
}
