/* The vk pre-hash of the built-in AIRs equals OpenVM's (the canonical
 * vk_pre_hash of the proof summaries, and the Montgomery pre_hash that
 * serde writes into *.vk.json). */
#include <criterion/criterion.h>

#include "air/keygen.h"
#include "glstark/airs.h"
#include "common/params.h"
#include "test_util.h"

static void expect_pre_hash(glstark_air **airs, size_t n, const gs_system_params *p,
                            const char *summary_json, const char *vk_json)
{
    gs_error err;
    gs_error_clear(&err);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(p, airs, n, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(pk.vk.has_pre_hash);
    size_t len;
    char *js = (char *)tu_read_file(summary_json, &len);
    cr_assert_not_null(js, "missing %s", summary_json);
    uint64_t canon[8];
    cr_assert_eq(tu_json_uints(js, "vk_pre_hash", canon, 8), 8);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(bb_to_canonical(pk.vk.pre_hash[i]), canon[i], "%s word %d", summary_json, i);
    free(js);
    if (vk_json) {
        js = (char *)tu_read_file(vk_json, &len);
        cr_assert_not_null(js, "missing %s", vk_json);
        uint64_t mont[8];
        cr_assert_eq(tu_json_uints(js, "pre_hash", mont, 8), 8);
        for (int i = 0; i < 8; i++)
            cr_assert_eq(pk.vk.pre_hash[i], mont[i], "%s word %d (Montgomery)", vk_json, i);
        free(js);
    }
    gs_multi_pk_free(&pk);
}

Test(prehash, fib_small)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    gs_system_params p;
    gs_default_test_params_small(&p);
    expect_pre_hash(&air, 1, &p, "fib-small_n4.json", "fib-small.vk.json");
    glstark_air_destroy(air);
}

Test(prehash, fib_app18)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    gs_system_params p;
    cr_assert_eq(gs_app_params_with_100_bits_security(18, &p, NULL), GLSTARK_OK);
    expect_pre_hash(&air, 1, &p, "fib-app18_n10.json", "fib-app18.vk.json");
    glstark_air_destroy(air);
}

Test(prehash, interactions_small)
{
    glstark_air *airs[2];
    cr_assert_eq(glstark_interactions_fixture_airs(airs), GLSTARK_OK);
    gs_system_params p;
    gs_default_test_params_small(&p);
    expect_pre_hash(airs, 2, &p, "interactions-small.json", "interactions-small.vk.json");
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

Test(prehash, keccak_app21)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    gs_system_params p;
    cr_assert_eq(gs_app_params_with_100_bits_security(21, &p, NULL), GLSTARK_OK);
    expect_pre_hash(&air, 1, &p, "keccak-app21_p16.json", NULL);
    glstark_air_destroy(air);
}

Test(prehash, decoded_vk_same_pre_hash)
{
    size_t len;
    uint8_t *b = tu_read_file("interactions-small.prevk.bin", &len);
    cr_assert_not_null(b);
    gs_multi_vk vk;
    gs_error err;
    cr_assert_eq(gs_vk_from_prevk_bytes(b, len, &vk, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_vk_compute_pre_hash(&vk, &err), GLSTARK_OK);
    static const uint32_t expect[8] = {338643893, 1934805690, 1305506116, 1694651551,
                                       782855467, 1598392974, 216950333, 68373398};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(bb_to_canonical(vk.pre_hash[i]), expect[i]);
    gs_multi_vk_free(&vk);
    free(b);
}
