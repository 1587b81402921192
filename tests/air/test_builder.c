/* The builder API: the DAG simplification and interning rules on small
 * hand-made expressions (expected nodes worked out from the rules of
 * docs/protocol.md, 'Constraint DAG'), and statuses with messages on misuse. */
#include <criterion/criterion.h>

#include "air/air_internal.h"
#include "air/keygen.h"
#include "glstark/airs.h"
#include "common/params.h"

static const gs_dag *dag_of(glstark_air *air)
{
    gs_error err;
    gs_error_clear(&err);
    const gs_dag *d = gs_air_dag(air, &err);
    cr_assert_not_null(d, "%s", err.msg);
    return d;
}

Test(builder, simplification_rules)
{
    glstark_air *air;
    cr_assert_eq(glstark_air_create("t", 3, 1, &air), GLSTARK_OK);
    glstark_expr x = glstark_air_main(air, 0, 0), y = glstark_air_main(air, 1, 0);
    glstark_expr zero = glstark_air_const(air, 0), one = glstark_air_const(air, 1);
    /* c0: x + 0 -> x (nodes: 0 x, 1 const 0) */
    glstark_air_assert_zero(air, glstark_air_add(air, x, zero));
    /* c1: 1 * y -> y (nodes: 2 const 1, 3 y) */
    glstark_air_assert_zero(air, glstark_air_mul(air, one, y));
    /* c2: x + (-y) -> Sub(x, y) with the Neg node kept (4 Neg(3), 5 Sub(0,3)) */
    glstark_air_assert_zero(air, glstark_air_add(air, x, glstark_air_neg(air, y)));
    /* c3: x - (-y) -> Add(0, 3) (6) */
    glstark_air_assert_zero(air, glstark_air_sub(air, x, glstark_air_neg(air, y)));
    /* c4: 2 * 3 - 6 folds to the constant 0 (7 const 2, 8 const 3, 9 const 6) */
    glstark_air_assert_zero(air, glstark_air_sub(air, glstark_air_mul(air, glstark_air_const(air, 2),
                                                                     glstark_air_const(air, 3)),
                                                 glstark_air_const(air, 6)));
    /* c5: a structural duplicate of c2 */
    glstark_air_assert_zero(air, glstark_air_add(air, x, glstark_air_neg(air, y)));
    /* c6: -(5) -> const p-5 (10 const 5, 11 const p-5) */
    glstark_air_assert_zero(air, glstark_air_neg(air, glstark_air_const(air, 5)));
    /* c7: x * 0 -> the 0 node */
    glstark_air_assert_zero(air, glstark_air_mul(air, x, zero));
    const gs_dag *d = dag_of(air);
    cr_assert_eq(d->num_nodes, 12);
    cr_assert_eq(d->nodes[0].kind, GS_NODE_VAR);
    cr_assert_eq(d->nodes[1].kind, GS_NODE_CONST);
    cr_assert_eq(d->nodes[4].kind, GS_NODE_NEG);
    cr_assert_eq(d->nodes[4].left, 3);
    cr_assert_eq(d->nodes[5].kind, GS_NODE_SUB);
    cr_assert_eq(d->nodes[5].left, 0);
    cr_assert_eq(d->nodes[5].right, 3);
    cr_assert_eq(d->nodes[6].kind, GS_NODE_ADD);
    cr_assert_eq(d->nodes[6].right, 3);
    cr_assert_eq(bb_to_canonical(d->nodes[9].constant), 6);
    cr_assert_eq(bb_to_canonical(d->nodes[11].constant), BB_P - 5);
    /* roots: 0, 3, 5, 6, 1 (6-6 = const 0 = node 1), 5, 11, 1 -> sorted unique */
    static const uint32_t expect[] = {0, 1, 3, 5, 6, 11};
    cr_assert_eq(d->num_constraints, 6);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(d->constraint_idx[i], expect[i]);
    glstark_air_destroy(air);
}

Test(builder, degree_multiple_is_from_unsimplified_tree)
{
    glstark_air *air;
    cr_assert_eq(glstark_air_create("t", 2, 0, &air), GLSTARK_OK);
    glstark_expr x = glstark_air_main(air, 0, 0);
    /* (x * x) * 1 simplifies to the node x*x, but 1 is a constant (dm 0):
     * the stored Mul keeps dm 2; x*x + (x*0) -> Add with dm 2 replaced by x*x */
    glstark_expr xx = glstark_air_mul(air, x, x);
    glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_first_row(air),
                                                 glstark_air_add(air, xx, glstark_air_mul(air, x, glstark_air_const(air, 0)))));
    const gs_dag *d = dag_of(air);
    /* nodes: 0 first, 1 x, 2 Mul(1,1,dm2), 3 const 0, 4 Mul(0, 2, dm 3) */
    cr_assert_eq(d->num_nodes, 5);
    cr_assert_eq(d->nodes[2].dm, 2);
    cr_assert_eq(d->nodes[4].kind, GS_NODE_MUL);
    cr_assert_eq(d->nodes[4].dm, 3);
    cr_assert_eq(gs_air_max_degree(air), 3);
    glstark_air_destroy(air);
}

Test(builder, column_out_of_range_is_sticky)
{
    glstark_air *air;
    cr_assert_eq(glstark_air_create("bad", 2, 1, &air), GLSTARK_OK);
    glstark_expr e = glstark_air_main(air, 2, 0);
    cr_assert_eq(e.id, 0);
    cr_assert_eq(glstark_air_status(air), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(glstark_air_error_message(air), "column 2") != NULL, "%s", glstark_air_error_message(air));
    cr_assert(strstr(glstark_air_error_message(air), "'bad'") != NULL);
    /* later calls fail with the same status and keep the first message */
    cr_assert_eq(glstark_air_assert_zero(air, glstark_air_main(air, 0, 0)), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(glstark_air_error_message(air), "column 2") != NULL);
    size_t n;
    cr_assert_eq(glstark_air_dag_stats(air, &n, NULL, NULL, NULL), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_destroy(air);

    cr_assert_eq(glstark_air_create("bad", 2, 1, &air), GLSTARK_OK);
    cr_assert_eq(glstark_air_public_value(air, 1).id, 0);
    cr_assert(strstr(glstark_air_error_message(air), "public value 1") != NULL);
    glstark_air_destroy(air);

    cr_assert_eq(glstark_air_create("bad", 2, 1, &air), GLSTARK_OK);
    cr_assert_eq(glstark_air_main(air, 0, 2).id, 0);
    cr_assert_eq(glstark_air_status(air), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_destroy(air);

    cr_assert_eq(glstark_air_create("bad", 2, 0, &air), GLSTARK_OK);
    cr_assert_eq(glstark_air_preprocessed(air, 0, 0).id, 0);
    cr_assert(strstr(glstark_air_error_message(air), "preprocessed") != NULL);
    glstark_air_destroy(air);
}

Test(builder, invalid_handles)
{
    glstark_air *a, *b;
    cr_assert_eq(glstark_air_create("a", 1, 0, &a), GLSTARK_OK);
    cr_assert_eq(glstark_air_create("b", 1, 0, &b), GLSTARK_OK);
    glstark_expr x = glstark_air_main(a, 0, 0);
    glstark_expr y = glstark_air_main(a, 0, 1);
    (void)x;
    /* a handle of `a` that `b` never made */
    cr_assert_eq(glstark_air_assert_zero(b, y), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(glstark_air_error_message(b), "invalid expression handle") != NULL);
    cr_assert_eq(glstark_air_add(a, x, GLSTARK_EXPR_INVALID).id, 0);
    cr_assert_eq(glstark_air_status(a), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_destroy(a);
    glstark_air_destroy(b);
    cr_assert_eq(glstark_air_assert_zero(NULL, x), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_air_main(NULL, 0, 0).id, 0);
}

Test(builder, create_rejects_empty_width)
{
    glstark_air *air = (glstark_air *)1;
    cr_assert_eq(glstark_air_create("w0", 0, 0, &air), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_null(air);
    size_t w[1] = {0};
    glstark_air_shape s = {1, 1, w, 0, 0};
    cr_assert_eq(glstark_air_create_shaped("w", &s, &air), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_air_create("x", 1, 0, NULL), GLSTARK_ERR_INVALID_ARGUMENT);
}

Test(builder, interaction_without_fields)
{
    glstark_air *air;
    cr_assert_eq(glstark_air_create("i", 2, 0, &air), GLSTARK_OK);
    glstark_expr c = glstark_air_main(air, 0, 0);
    cr_assert_eq(glstark_air_push_interaction(air, 3, NULL, 0, c, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(glstark_air_error_message(air), "no message fields") != NULL, "%s",
              glstark_air_error_message(air));
    glstark_air_destroy(air);
}

static glstark_status keygen1(glstark_air *air, gs_error *err)
{
    gs_system_params p;
    gs_default_test_params_small(&p);
    gs_multi_pk pk;
    glstark_status st = gs_keygen(&p, &air, 1, NULL, &pk, err);
    if (st == GLSTARK_OK)
        gs_multi_pk_free(&pk);
    return st;
}

Test(builder, keygen_rejects_bad_airs)
{
    gs_error err;
    glstark_air *air;
    /* empty AIR */
    cr_assert_eq(glstark_air_create("empty", 2, 0, &air), GLSTARK_OK);
    cr_assert_eq(keygen1(air, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "empty") && strstr(err.msg, "'empty'"), "%s", err.msg);
    glstark_air_destroy(air);
    /* degree 4 > 3 */
    cr_assert_eq(glstark_air_create("deg4", 1, 0, &air), GLSTARK_OK);
    glstark_expr x = glstark_air_main(air, 0, 0);
    glstark_expr x2 = glstark_air_mul(air, x, x);
    cr_assert_eq(glstark_air_assert_zero(air, glstark_air_mul(air, x2, x2)), GLSTARK_OK);
    cr_assert_eq(keygen1(air, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "degree 4") && strstr(err.msg, "maximum 3"), "%s", err.msg);
    glstark_air_destroy(air);
    /* an interaction count of degree 4 counts too */
    cr_assert_eq(glstark_air_create("deg4i", 1, 0, &air), GLSTARK_OK);
    x = glstark_air_main(air, 0, 0);
    x2 = glstark_air_mul(air, x, x);
    cr_assert_eq(glstark_air_push_interaction(air, 0, &x, 1, glstark_air_mul(air, x2, x2), 1), GLSTARK_OK);
    cr_assert_eq(keygen1(air, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_destroy(air);
    /* a message of 128 fields: with the bus that is 129 > 2^7 */
    cr_assert_eq(glstark_air_create("long", 1, 0, &air), GLSTARK_OK);
    glstark_expr f[128];
    for (int i = 0; i < 128; i++)
        f[i] = glstark_air_main(air, 0, 0);
    cr_assert_eq(glstark_air_push_interaction(air, 0, f, 128, glstark_air_const(air, 1), 1), GLSTARK_OK);
    cr_assert_eq(keygen1(air, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "128 message fields"), "%s", err.msg);
    glstark_air_destroy(air);
    /* preprocessed columns without a trace */
    glstark_air_shape s = {1, 0, NULL, 1, 0};
    cr_assert_eq(glstark_air_create_shaped("prep", &s, &air), GLSTARK_OK);
    cr_assert_eq(glstark_air_assert_eq(air, glstark_air_main(air, 0, 0), glstark_air_preprocessed(air, 0, 0)), GLSTARK_OK);
    cr_assert_eq(keygen1(air, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "preprocessed"), "%s", err.msg);
    uint32_t rows[3] = {1, 2, 3};
    cr_assert_eq(glstark_air_set_preprocessed_trace(air, 3, rows), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_air_destroy(air);
    cr_assert_eq(glstark_air_set_required(NULL, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    /* a value that is not below p */
    cr_assert_eq(glstark_air_create_shaped("prep", &s, &air), GLSTARK_OK);
    uint32_t big[2] = {5, 2013265921u};
    cr_assert_eq(glstark_air_set_preprocessed_trace(air, 2, big), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(glstark_air_error_message(air), "not below p"), "%s", glstark_air_error_message(air));
    glstark_air_destroy(air);
}

Test(builder, checker_rejects_bad_traces)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    uint32_t trace[2 * 8] = {0}, pv[3] = {0, 1, 21};
    cr_assert_eq(glstark_fibonacci_trace(0, 1, 8, trace, pv), GLSTARK_OK);
    glstark_air_trace t;
    memset(&t, 0, sizeof t);
    t.height = 8;
    t.common_main.values = trace;
    t.common_main.width = 3; /* wrong width */
    t.public_values = pv;
    t.num_public_values = 3;
    char msg[512];
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "2 common main columns") && strstr(msg, "has 3"), "%s", msg);
    t.common_main.width = 2;
    t.height = 6; /* not a power of two */
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "not a power of two"), "%s", msg);
    t.height = 8;
    t.num_public_values = 2;
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "public values"), "%s", msg);
    t.num_public_values = 3;
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, NULL, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_air_destroy(air);
}

/* The extension-field evaluator against the Fibonacci constraints written
 * out by hand, at pseudo-random points (seed printed). */
Test(builder, eval_ext_fibonacci)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    const gs_dag *d = dag_of(air);
    uint64_t seed = 77;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int it = 0; it < 20; it++) {
        bb4_t r[9];
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 4; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                r[i].c[j] = bb_from_canonical((uint32_t)((seed >> 33) % BB_P));
            }
        bb_t pv[3] = {r[6].c[0], r[7].c[0], r[8].c[0]};
        bb4_t local[2] = {r[0], r[1]}, next[2] = {r[2], r[3]};
        const bb4_t *lp[1] = {local}, *np[1] = {next};
        gs_dag_ext_env env;
        memset(&env, 0, sizeof env);
        env.main_local = lp;
        env.main_next = np;
        env.public_values = pv;
        env.is_first_row = r[4];
        env.is_transition = r[5];
        env.is_last_row = r[6];
        bb4_t vals[32];
        cr_assert_leq(d->num_nodes, 32);
        gs_dag_eval_ext(d, &env, vals);
        bb4_t expect[5] = {
            bb4_mul(r[4], bb4_sub(local[0], bb4_from_base(pv[0]))),
            bb4_mul(r[4], bb4_sub(local[1], bb4_from_base(pv[1]))),
            bb4_mul(r[5], bb4_sub(local[1], next[0])),
            bb4_mul(r[5], bb4_sub(bb4_add(local[0], local[1]), next[1])),
            bb4_mul(r[6], bb4_sub(local[1], bb4_from_base(pv[2]))),
        };
        for (int c = 0; c < 5; c++)
            cr_assert(bb4_eq(vals[d->constraint_idx[c]], expect[c]), "iteration %d constraint %d", it, c);
    }
    glstark_air_destroy(air);
}

/* The assertion helpers by what they accept: assert_one(c0), assert_bool(c1),
 * assert_eq(c2, c0 + c1) on 8 rows. The checker passes a trace that keeps
 * them and names the constraint and row of each single broken cell (values
 * written canonically: 0, 1, 2 and p - 1 among them). */
Test(builder, assert_helpers_accept_what_they_say)
{
    glstark_air *air;
    cr_assert_eq(glstark_air_create("asserts", 3, 0, &air), GLSTARK_OK);
    glstark_expr c0 = glstark_air_main(air, 0, 0), c1 = glstark_air_main(air, 1, 0), c2 = glstark_air_main(air, 2, 0);
    cr_assert_eq(glstark_air_assert_one(air, c0), GLSTARK_OK);
    cr_assert_eq(glstark_air_assert_bool(air, c1), GLSTARK_OK);
    cr_assert_eq(glstark_air_assert_eq(air, c2, glstark_air_add(air, c0, c1)), GLSTARK_OK);
    enum { H = 8 };
    uint32_t cols[3 * H]; /* column-major */
    for (size_t r = 0; r < H; r++) {
        cols[r] = 1;
        cols[H + r] = (uint32_t)(r & 1);
        cols[2 * H + r] = 1 + (uint32_t)(r & 1);
    }
    glstark_air_trace t;
    memset(&t, 0, sizeof t);
    t.height = H;
    t.common_main.values = cols;
    t.common_main.width = 3;
    char msg[512];
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, NULL, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    const uint32_t p_minus_1 = 2013265920u;
    /* {column, row, value, the constraint it breaks} */
    const uint32_t cases[][4] = {{0, 5, 0, 0}, {0, 0, 2, 0}, {0, 7, p_minus_1, 0}, {1, 2, 2, 1},
                                 {1, 3, p_minus_1, 1}, {2, 4, 2, 2}, {2, 6, 0, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t at = cases[i][0] * H + cases[i][1];
        uint32_t keep = cols[at];
        cols[at] = cases[i][2];
        glstark_check_failure f;
        memset(&f, 0xAB, sizeof f); /* poison */
        cr_assert_eq(glstark_check_constraints(&air, 1, &t, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED,
                     "case %zu passed", i);
        cr_assert(f.air == 0 && f.constraint == cases[i][3] && f.row == cases[i][1],
                  "case %zu: air %zu constraint %zu row %zu (%s)", i, f.air, f.constraint, f.row, msg);
        cols[at] = keep;
    }
    glstark_air_destroy(air);
}

/* The LogUp balance over thousands of distinct messages (the checker's
 * table grows past its first 1024 slots several times): column 0 sends
 * each value once on bus 5, column 1 receives the same values in another
 * order. Balanced: accepted. One received value changed: the bus is named. */
Test(builder, logup_balance_over_many_messages)
{
    glstark_air *air;
    cr_assert_eq(glstark_air_create("permutation", 2, 0, &air), GLSTARK_OK);
    glstark_expr send = glstark_air_main(air, 0, 0), recv = glstark_air_main(air, 1, 0);
    cr_assert_eq(glstark_air_push_interaction(air, 5, &send, 1, glstark_air_const(air, 1), 1), GLSTARK_OK);
    cr_assert_eq(glstark_air_push_interaction(air, 5, &recv, 1, glstark_air_neg(air, glstark_air_const(air, 1)), 1),
                 GLSTARK_OK);
    enum { H = 4096 };
    uint32_t *cols = malloc(2 * H * sizeof *cols); /* column-major */
    cr_assert_not_null(cols);
    for (uint32_t r = 0; r < H; r++) {
        cols[r] = 1000003u * r % 2013265921u;
        cols[H + r] = 1000003u * ((r * 1237u) % H) % 2013265921u; /* 1237 is odd: a permutation of the rows */
    }
    glstark_air_trace t;
    memset(&t, 0, sizeof t);
    t.height = H;
    t.common_main.values = cols;
    t.common_main.width = 2;
    char msg[512];
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, NULL, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cols[H + 77] = 5u; /* not among the sent values (1000003 r mod p for r < H is never 5) */
    glstark_check_failure f;
    memset(&f, 0xAB, sizeof f); /* poison */
    cr_assert_eq(glstark_check_constraints(&air, 1, &t, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert(f.constraint == SIZE_MAX && f.bus == 5, "constraint %zu bus %u (%s)", f.constraint, (unsigned)f.bus, msg);
    free(cols);
    glstark_air_destroy(air);
}
