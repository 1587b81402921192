/* Verifying keys of the built-in AIRs against OpenVM's own bytes: the
 * postcard pre-hash input (*.prevk.bin, written by the Rust keygen) must be
 * equal byte for byte; DAG sizes and parameters against the vk files. */
#include <criterion/criterion.h>

#include "air/air_internal.h"
#include "air/keygen.h"
#include "glstark/airs.h"
#include "common/params.h"
#include "test_util.h"

static void expect_prevk(glstark_air **airs, size_t n, const gs_system_params *params,
                         const char *file)
{
    gs_error err;
    gs_error_clear(&err);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(params, airs, n, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    uint8_t *bytes = NULL;
    size_t len = 0;
    cr_assert_eq(gs_vk_prevk_bytes(&pk.vk, &bytes, &len, &err), GLSTARK_OK, "%s", err.msg);
    size_t elen = 0;
    uint8_t *expect = tu_read_file(file, &elen);
    cr_assert_not_null(expect, "missing %s", file);
    size_t i = 0;
    while (i < len && i < elen && bytes[i] == expect[i])
        i++;
    cr_assert(i == len && len == elen, "%s: lengths %zu vs %zu, first difference at byte %zu", file,
              len, elen, i);
    free(expect);
    free(bytes);
    gs_multi_pk_free(&pk);
}

Test(vk, params_small)
{
    gs_system_params p;
    gs_default_test_params_small(&p);
    cr_assert_eq(p.l_skip, 2);
    cr_assert_eq(p.n_stack, 8);
    cr_assert_eq(p.w_stack, 4096);
    cr_assert_eq(p.whir.k, 3);
    cr_assert_eq(p.whir.num_rounds, 3);
    cr_assert_eq(p.whir.num_queries[0], 10);
    cr_assert_eq(p.whir.num_queries[1], 4);
    cr_assert_eq(p.whir.num_queries[2], 2);
    cr_assert_eq(p.whir.proximity.kind, GS_PROXIMITY_SPLIT_UNIQUE_LIST);
    cr_assert_eq(p.logup.max_interaction_count, 1u << 30);
}

Test(vk, params_app)
{
    /* docs/protocol.md, 'Parameters': 14 -> [193]; 15-18 -> [193, 88]; 19-22 -> [193, 88, 81];
     * 23-24 -> four rounds */
    static const size_t rounds[25] = {[14] = 1, [15] = 2, [18] = 2, [19] = 3, [21] = 3, [22] = 3, [23] = 4, [24] = 4};
    static const size_t q[4] = {193, 88, 81, 81};
    gs_error err;
    for (size_t L = 14; L <= 24; L++) {
        if (!rounds[L])
            continue;
        gs_system_params p;
        cr_assert_eq(gs_app_params_with_100_bits_security(L, &p, &err), GLSTARK_OK);
        cr_assert_eq(p.whir.num_rounds, rounds[L], "L=%zu", L);
        for (size_t r = 0; r < rounds[L]; r++)
            cr_assert_eq(p.whir.num_queries[r], q[r], "L=%zu round %zu", L, r);
        cr_assert_eq(p.logup.pow_bits, 18);
        cr_assert_eq(p.n_stack, L - 4);
    }
    gs_system_params p;
    cr_assert_eq(gs_app_params_with_100_bits_security(25, &p, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "24") != NULL);
}

Test(vk, fib_small_prevk)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    gs_system_params p;
    gs_default_test_params_small(&p);
    expect_prevk(&air, 1, &p, "fib-small.prevk.bin");
    size_t nodes, cons, inter, deg;
    cr_assert_eq(glstark_air_dag_stats(air, &nodes, &cons, &inter, &deg), GLSTARK_OK);
    /* fib-small.vk.json: 21 nodes, constraint_idx [4, 8, 12, 16, 20], degree 2 */
    cr_assert_eq(nodes, 21);
    cr_assert_eq(cons, 5);
    cr_assert_eq(inter, 0);
    cr_assert_eq(deg, 2);
    glstark_air_destroy(air);
}

Test(vk, fib_app18_prevk)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    gs_system_params p;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(18, &p, &err), GLSTARK_OK);
    expect_prevk(&air, 1, &p, "fib-app18.prevk.bin");
    glstark_air_destroy(air);
}

Test(vk, interactions_small_prevk)
{
    glstark_air *airs[2];
    cr_assert_eq(glstark_interactions_fixture_airs(airs), GLSTARK_OK);
    gs_system_params p;
    gs_default_test_params_small(&p);
    expect_prevk(airs, 2, &p, "interactions-small.prevk.bin");
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

Test(vk, keccak_app21_prevk)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    gs_system_params p;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(21, &p, &err), GLSTARK_OK);
    expect_prevk(&air, 1, &p, "keccak-app21.prevk.bin");
    glstark_air_destroy(air);
}

Test(vk, keccak_dag_shape)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    gs_error err;
    gs_error_clear(&err);
    const gs_dag *d = gs_air_dag(air, &err);
    cr_assert_not_null(d, "%s", err.msg);
    /* docs/protocol.md, 'The Keccak-f AIR' */
    cr_assert_eq(d->num_nodes, 39273);
    cr_assert_eq(d->num_constraints, 3182);
    cr_assert_eq(gs_air_max_degree(air), 3);
    size_t kinds[9] = {0};
    for (size_t i = 0; i < d->num_nodes; i++)
        kinds[d->nodes[i].kind]++;
    cr_assert_eq(kinds[GS_NODE_VAR], 2857);
    cr_assert_eq(kinds[GS_NODE_CONST], 4);
    cr_assert_eq(kinds[GS_NODE_IS_FIRST_ROW], 1);
    cr_assert_eq(kinds[GS_NODE_IS_TRANSITION], 1);
    cr_assert_eq(kinds[GS_NODE_IS_LAST_ROW], 0);
    cr_assert_eq(kinds[GS_NODE_ADD], 15343);
    cr_assert_eq(kinds[GS_NODE_SUB], 10846);
    cr_assert_eq(kinds[GS_NODE_MUL], 10221);
    cr_assert_eq(kinds[GS_NODE_NEG], 0);
    cr_assert_eq(d->nodes[0].kind, GS_NODE_IS_FIRST_ROW);
    cr_assert_eq(d->nodes[51].kind, GS_NODE_IS_TRANSITION);
    cr_assert_eq(d->nodes[2].kind, GS_NODE_CONST);
    cr_assert_eq(bb_to_canonical(d->nodes[2].constant), 1);
    cr_assert_eq(bb_to_canonical(d->nodes[4961].constant), 0);
    cr_assert_eq(bb_to_canonical(d->nodes[22595].constant), 2);
    cr_assert_eq(bb_to_canonical(d->nodes[22598].constant), 4);
    cr_assert_eq(d->constraint_idx[0], 4);
    cr_assert_eq(d->constraint_idx[1], 6);
    cr_assert_eq(d->constraint_idx[3181], 39272);
    glstark_air_destroy(air);
}

Test(vk, keccak_vk_unused_variables)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    gs_system_params p;
    gs_error err;
    cr_assert_eq(gs_app_params_with_100_bits_security(21, &p, &err), GLSTARK_OK);
    gs_multi_pk pk;
    cr_assert_eq(gs_keygen(&p, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
    const gs_air_vk *v = &pk.vk.per_air[0];
    cr_assert(v->need_rot);
    cr_assert_eq(v->num_unused_variables, 2409);
    for (size_t i = 0; i < v->num_unused_variables; i++)
        cr_assert_eq(v->unused_variables[i].offset, 1);
    cr_assert_eq(pk.vk.num_trace_height_constraints, 1);
    cr_assert_eq(pk.vk.trace_height_constraints[0].threshold, BB_P);
    cr_assert_eq(pk.vk.trace_height_constraints[0].coefficients[0], 0);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(air);
}

/* Decoding OpenVM's bytes and encoding them again gives the same bytes;
 * every truncation and a few corruptions give MALFORMED, never a crash. */
Test(vk, decode_roundtrip_and_malformed)
{
    static const char *files[] = {"fib-small.prevk.bin", "interactions-small.prevk.bin",
                                  "fib-app18.prevk.bin", "keccak-app21.prevk.bin"};
    for (size_t f = 0; f < 4; f++) {
        size_t len = 0;
        uint8_t *b = tu_read_file(files[f], &len);
        cr_assert_not_null(b);
        gs_multi_vk vk;
        gs_error err;
        gs_error_clear(&err);
        cr_assert_eq(gs_vk_from_prevk_bytes(b, len, &vk, &err), GLSTARK_OK, "%s: %s", files[f], err.msg);
        uint8_t *again;
        size_t len2;
        cr_assert_eq(gs_vk_prevk_bytes(&vk, &again, &len2, &err), GLSTARK_OK);
        cr_assert_eq(len2, len);
        cr_assert_eq(memcmp(again, b, len), 0, "%s", files[f]);
        free(again);
        gs_multi_vk_free(&vk);
        /* truncations (all for the small files, a sample for keccak) */
        size_t step = len > 1000 ? 997 : 1;
        for (size_t cut = 12; cut < len; cut += step) {
            cr_assert_eq(gs_vk_from_postcard(b + 12, cut - 12, &vk, &err), GLSTARK_ERR_MALFORMED,
                         "%s cut at %zu", files[f], cut);
        }
        cr_assert(strstr(err.msg, "at byte") != NULL, "%s", err.msg);
        /* wrong header length */
        b[4] ^= 1;
        cr_assert_eq(gs_vk_from_prevk_bytes(b, len, &vk, &err), GLSTARK_ERR_MALFORMED);
        b[4] ^= 1;
        /* a trailing byte */
        uint8_t *longer = malloc(len + 1);
        memcpy(longer, b, len);
        longer[len] = 0;
        cr_assert_eq(gs_vk_from_postcard(longer + 12, len - 11, &vk, &err), GLSTARK_ERR_MALFORMED);
        cr_assert(strstr(err.msg, "trailing") != NULL, "%s", err.msg);
        free(longer);
        free(b);
    }
    /* fuzz: random single-byte corruptions of fib-small never crash; they
     * either decode (a different but well-formed key) or give MALFORMED */
    size_t len = 0;
    uint8_t *b = tu_read_file("fib-small.prevk.bin", &len);
    cr_assert_not_null(b);
    uint64_t seed = 1234;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int it = 0; it < 2000; it++) {
        size_t pos = 12 + splitmix64(&seed) % (len - 12);
        uint8_t old = b[pos];
        b[pos] = (uint8_t)splitmix64(&seed);
        gs_multi_vk vk;
        gs_error err;
        glstark_status st = gs_vk_from_postcard(b + 12, len - 12, &vk, &err);
        cr_assert(st == GLSTARK_OK || st == GLSTARK_ERR_MALFORMED);
        if (st == GLSTARK_OK)
            gs_multi_vk_free(&vk);
        b[pos] = old;
    }
    free(b);
}

/* A stand-in for the stacked-PCS commit of a preprocessed trace: a fixed
 * digest, hypercube_dim from the height, width as given. */
static glstark_status fake_commit(void *ctx, const gs_system_params *params, const bb_t *rows,
                                  size_t height, size_t width, gs_prep_vdata *out, gs_error *err)
{
    (void)ctx;
    (void)rows;
    (void)err;
    for (int i = 0; i < GS_VK_DIGEST_LEN; i++)
        out->commit[i] = bb_from_canonical((uint32_t)(100 + i));
    int lg = 0;
    while (((size_t)1 << lg) < height)
        lg++;
    out->hypercube_dim = (int64_t)lg - (int64_t)params->l_skip;
    out->stacking_width = width;
    return GLSTARK_OK;
}

/* Every optional part of the vk (preprocessed data with a negative
 * hypercube_dim, cached mains, public values, interactions on two buses,
 * is_required) survives encode -> decode -> encode; unused variables and
 * trace-height constraints follow OpenVM's rules. */
Test(vk, full_shape_roundtrip)
{
    size_t cached[1] = {2};
    glstark_air_shape s = {2, 1, cached, 1, 1};
    glstark_air *a0, *a1;
    cr_assert_eq(glstark_air_create_shaped("shaped", &s, &a0), GLSTARK_OK);
    uint32_t prep[2] = {1, 2};
    cr_assert_eq(glstark_air_set_preprocessed_trace(a0, 2, prep), GLSTARK_OK);
    glstark_expr p0 = glstark_air_preprocessed(a0, 0, 0);
    glstark_expr c0 = glstark_air_cached_main(a0, 0, 0, 0);
    glstark_expr m1n = glstark_air_main(a0, 1, 1);
    glstark_expr pub = glstark_air_public_value(a0, 0);
    cr_assert_eq(glstark_air_assert_zero(a0, glstark_air_mul(a0, glstark_air_is_last_row(a0),
                                                              glstark_air_sub(a0, c0, pub))), GLSTARK_OK);
    cr_assert_eq(glstark_air_assert_zero(a0, glstark_air_neg(a0, glstark_air_sub(a0, p0, m1n))), GLSTARK_OK);
    glstark_expr f[2] = {c0, glstark_air_const(a0, 7)};
    cr_assert_eq(glstark_air_push_interaction(a0, 0, f, 2, p0, 1), GLSTARK_OK);
    cr_assert_eq(glstark_air_push_interaction(a0, 1, f, 1, p0, 1), GLSTARK_OK);
    cr_assert_eq(glstark_air_create("recv", 1, 0, &a1), GLSTARK_OK);
    glstark_expr x = glstark_air_main(a1, 0, 0);
    cr_assert_eq(glstark_air_push_interaction(a1, 0, &x, 1, glstark_air_neg(a1, x), 1), GLSTARK_OK);

    gs_system_params p;
    gs_default_test_params_small(&p);
    glstark_air *airs[2] = {a0, a1};
    int req[2] = {1, 0};
    gs_keygen_options opts = {req, fake_commit, NULL};
    gs_multi_pk pk;
    gs_error err;
    gs_error_clear(&err);
    /* without a commit function a preprocessed AIR is unsupported */
    cr_assert_eq(gs_keygen(&p, airs, 2, NULL, &pk, &err), GLSTARK_ERR_UNSUPPORTED);
    cr_assert_eq(gs_keygen(&p, airs, 2, &opts, &pk, &err), GLSTARK_OK, "%s", err.msg);
    const gs_air_vk *v = &pk.vk.per_air[0];
    cr_assert(v->has_preprocessed_data);
    cr_assert_eq(v->preprocessed_data.hypercube_dim, -1);
    cr_assert(v->need_rot);
    cr_assert(v->is_required);
    cr_assert_eq(v->max_constraint_degree, 2);
    /* unused: prep col 0 next; cached part 0: col 0 next, col 1 both; common part 1:
     * col 0 both, col 1 local */
    static const gs_symvar expect_unused[] = {
        {GS_ENTRY_PREPROCESSED, 0, 1, 0}, {GS_ENTRY_MAIN, 0, 1, 0}, {GS_ENTRY_MAIN, 0, 0, 1},
        {GS_ENTRY_MAIN, 0, 1, 1}, {GS_ENTRY_MAIN, 1, 0, 0}, {GS_ENTRY_MAIN, 1, 1, 0},
        {GS_ENTRY_MAIN, 1, 0, 1}};
    cr_assert_eq(v->num_unused_variables, 7);
    for (int i = 0; i < 7; i++)
        cr_assert(!memcmp(&v->unused_variables[i], &expect_unused[i], sizeof(gs_symvar)), "unused %d", i);
    /* bus 0: [1, 1] < p; bus 1: [1, 0] < p (implied); count [2, 1] < 2^30 implies bus 0's */
    cr_assert_eq(pk.vk.num_trace_height_constraints, 1);
    cr_assert_eq(pk.vk.trace_height_constraints[0].coefficients[0], 2);
    cr_assert_eq(pk.vk.trace_height_constraints[0].coefficients[1], 1);
    cr_assert_eq(pk.vk.trace_height_constraints[0].threshold, 1u << 30);
    /* the receiver's Neg count stays a Neg node (no simplification applies) */
    const gs_dag *d1 = &pk.vk.per_air[1].dag;
    cr_assert_eq(d1->nodes[d1->interactions[0].count].kind, GS_NODE_NEG);

    uint8_t *b1, *b2;
    size_t l1, l2;
    cr_assert_eq(gs_vk_prevk_bytes(&pk.vk, &b1, &l1, &err), GLSTARK_OK);
    gs_multi_vk back;
    cr_assert_eq(gs_vk_from_prevk_bytes(b1, l1, &back, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_vk_prevk_bytes(&back, &b2, &l2, &err), GLSTARK_OK);
    cr_assert_eq(l1, l2);
    cr_assert_eq(memcmp(b1, b2, l1), 0);
    cr_assert_eq(back.per_air[0].preprocessed_data.hypercube_dim, -1);
    free(b1);
    free(b2);
    gs_multi_vk_free(&back);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(a0);
    glstark_air_destroy(a1);
}
