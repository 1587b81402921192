/* OpenVM's InteractionsFixture11 (stark-backend test_utils): two
 * DummyInteractionAir with columns (count, field) on bus 0, count_weight 0.
 * The sender pushes message [field] with count `count`; the receiver with
 * count `NEG_ONE * count` (a Mul node with the constant on the left, as the
 * Rust writes it). */
#include "glstark/airs.h"

static glstark_status dummy_air(const char *name, int is_send, glstark_air **out)
{
    glstark_air *air = NULL;
    glstark_status st = glstark_air_create(name, 2, 0, &air);
    if (st)
        return st;
    glstark_expr count = glstark_air_main(air, 0, 0);
    glstark_expr field = glstark_air_main(air, 1, 0);
    if (!is_send)
        count = glstark_air_mul(air, glstark_air_const(air, 2013265920u /* -1 */), count);
    st = glstark_air_push_interaction(air, 0, &field, 1, count, 0);
    if (st) {
        glstark_air_destroy(air);
        return st;
    }
    *out = air;
    return GLSTARK_OK;
}

glstark_status glstark_interactions_fixture_airs(glstark_air *out[2])
{
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    out[0] = out[1] = NULL;
    glstark_status st = dummy_air("DummyInteractionAir(send)", 1, &out[0]);
    if (st)
        return st;
    st = dummy_air("DummyInteractionAir(receive)", 0, &out[1]);
    if (st) {
        glstark_air_destroy(out[0]);
        out[0] = NULL;
    }
    return st;
}

void glstark_interactions_fixture_traces(uint32_t sender[2 * 4], uint32_t receiver[2 * 8])
{
    /* OpenVM's row-major traces, stored column-major here:
     * sender rows (count, field): (0,1) (3,5) (7,4) (546,889)
     * receiver rows: (1,5) (3,4) (4,4) (2,5) (0,123) (545,889) (1,889) (0,456) */
    static const uint32_t s[8] = {0, 3, 7, 546, 1, 5, 4, 889};
    static const uint32_t r[16] = {1, 3, 4, 2, 0, 545, 1, 0, 5, 4, 4, 5, 123, 889, 889, 456};
    if (sender)
        for (int i = 0; i < 8; i++)
            sender[i] = s[i];
    if (receiver)
        for (int i = 0; i < 16; i++)
            receiver[i] = r[i];
}
