/* AIRs with preprocessed traces and cached mains, made with the public
 * builder API, and satisfied traces for them: shared by the CPU tests
 * (test_prove_sides.c) and the CPU-against-GLES test (test_sides_gles.c).
 *
 * Three AIRs, in this order:
 *  - "table": preprocessed (r, r^2 + 3) for r = 0..h_T-1, with the
 *    transition next(r) = r + 1 on the preprocessed column; one cached main
 *    (the multiplicity m_r); common main x = m_r * r. It receives (r, r^2+3)
 *    m_r times on bus 3.
 *  - "user": common main (v, w) with w = v^2 + 3, sent once per row on
 *    bus 3 (v < h_T, drawn from the seed); cached main 0: u = v + 5;
 *    cached main 1: (a, b) with b = a v and next(a) = a + u (a rotation on
 *    a cached part); public value 0 = v on the first row.
 *  - "consts": preprocessed q (seeded values, with 0, 1 and p-1 among
 *    them); common main y = 2q + 1. No rotation.
 * A height of 0 for "user" or "consts" leaves that AIR out of the proof. */
#ifndef GLSTARK_TESTS_SIDES_FIXTURE_H
#define GLSTARK_TESTS_SIDES_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glstark/air.h"
#include "glstark/prove.h"
#include "../util/splitmix.h"

#define SF_P 2013265921u
#define SF_BUS 3

typedef struct sides_case {
    size_t h_t, h_u, h_c; /* heights; h_u or h_c 0 = absent */
    int app_params;       /* 1: app params with L = 12, else OpenVM's small test params */
    uint64_t seed;
    glstark_air *airs[3];
    glstark_params *params;
    glstark_proving_key *pk;
    glstark_verifying_key *vk;
    /* traces, column-major */
    uint32_t *t_main, *t_mult, *u_main, *u_c0, *u_c1, *c_main, *c_prep;
    uint32_t u_pub;
    glstark_trace_part t_cached[1], u_cached[2];
    char desc[160];
} sides_case;

static uint32_t sf_add(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a + b) % SF_P); }
static uint32_t sf_mul(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b % SF_P); }

static glstark_air *sf_table_air(size_t h_t)
{
    const size_t cached_w[1] = {1};
    glstark_air_shape sh = {1, 1, cached_w, 2, 0};
    glstark_air *air = NULL;
    cr_assert_eq(glstark_air_create_shaped("table", &sh, &air), GLSTARK_OK);
    uint32_t *rows = malloc(2 * h_t * sizeof *rows);
    cr_assert_not_null(rows);
    for (size_t r = 0; r < h_t; r++) {
        rows[2 * r] = (uint32_t)r;
        rows[2 * r + 1] = sf_add(sf_mul((uint32_t)r, (uint32_t)r), 3);
    }
    cr_assert_eq(glstark_air_set_preprocessed_trace(air, h_t, rows), GLSTARK_OK);
    free(rows);
    glstark_expr r = glstark_air_preprocessed(air, 0, 0), r_next = glstark_air_preprocessed(air, 0, 1);
    glstark_expr sq = glstark_air_preprocessed(air, 1, 0), m = glstark_air_cached_main(air, 0, 0, 0);
    glstark_expr x = glstark_air_main(air, 0, 0);
    cr_assert_eq(glstark_air_assert_eq(air, x, glstark_air_mul(air, m, r)), GLSTARK_OK);
    glstark_expr step = glstark_air_sub(air, glstark_air_sub(air, r_next, r), glstark_air_const(air, 1));
    cr_assert_eq(glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_transition(air), step)), GLSTARK_OK);
    const glstark_expr msg[2] = {r, sq};
    cr_assert_eq(glstark_air_push_interaction(air, SF_BUS, msg, 2, glstark_air_neg(air, m), 0), GLSTARK_OK);
    cr_assert_eq(glstark_air_status(air), GLSTARK_OK, "%s", glstark_air_error_message(air));
    return air;
}

static glstark_air *sf_user_air(void)
{
    const size_t cached_w[2] = {1, 2};
    glstark_air_shape sh = {2, 2, cached_w, 0, 1};
    glstark_air *air = NULL;
    cr_assert_eq(glstark_air_create_shaped("user", &sh, &air), GLSTARK_OK);
    glstark_expr v = glstark_air_main(air, 0, 0), w = glstark_air_main(air, 1, 0);
    glstark_expr u = glstark_air_cached_main(air, 0, 0, 0);
    glstark_expr a = glstark_air_cached_main(air, 1, 0, 0), a_next = glstark_air_cached_main(air, 1, 0, 1);
    glstark_expr b = glstark_air_cached_main(air, 1, 1, 0);
    glstark_expr v2_3 = glstark_air_add(air, glstark_air_mul(air, v, v), glstark_air_const(air, 3));
    cr_assert_eq(glstark_air_assert_eq(air, w, v2_3), GLSTARK_OK);
    cr_assert_eq(glstark_air_assert_eq(air, u, glstark_air_add(air, v, glstark_air_const(air, 5))), GLSTARK_OK);
    cr_assert_eq(glstark_air_assert_eq(air, b, glstark_air_mul(air, a, v)), GLSTARK_OK);
    glstark_expr step = glstark_air_sub(air, a_next, glstark_air_add(air, a, u));
    cr_assert_eq(glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_transition(air), step)), GLSTARK_OK);
    glstark_expr first = glstark_air_mul(air, glstark_air_is_first_row(air),
                                         glstark_air_sub(air, v, glstark_air_public_value(air, 0)));
    cr_assert_eq(glstark_air_assert_zero(air, first), GLSTARK_OK);
    const glstark_expr msg[2] = {v, w};
    cr_assert_eq(glstark_air_push_interaction(air, SF_BUS, msg, 2, glstark_air_const(air, 1), 1), GLSTARK_OK);
    cr_assert_eq(glstark_air_status(air), GLSTARK_OK, "%s", glstark_air_error_message(air));
    return air;
}

static glstark_air *sf_consts_air(size_t h_c, const uint32_t *q)
{
    glstark_air_shape sh = {1, 0, NULL, 1, 0};
    glstark_air *air = NULL;
    cr_assert_eq(glstark_air_create_shaped("consts", &sh, &air), GLSTARK_OK);
    cr_assert_eq(glstark_air_set_preprocessed_trace(air, h_c, q), GLSTARK_OK);
    glstark_expr y = glstark_air_main(air, 0, 0), qe = glstark_air_preprocessed(air, 0, 0);
    glstark_expr twice = glstark_air_mul(air, glstark_air_const(air, 2), qe);
    glstark_expr want = glstark_air_add(air, twice, glstark_air_const(air, 1));
    cr_assert_eq(glstark_air_assert_eq(air, y, want), GLSTARK_OK);
    cr_assert_eq(glstark_air_status(air), GLSTARK_OK, "%s", glstark_air_error_message(air));
    return air;
}

/* h_c_key: the consts AIR's preprocessed height (its key needs one even
 * when a case leaves the AIR out). */
static void sides_case_make(sides_case *c, size_t h_t, size_t h_u, size_t h_c, size_t h_c_key, int app_params,
                            uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->h_t = h_t;
    c->h_u = h_u;
    c->h_c = h_c;
    c->app_params = app_params;
    c->seed = seed;
    snprintf(c->desc, sizeof c->desc, "seed %llu, %s params, rows: table %zu, user %zu, consts %zu (key %zu)",
             (unsigned long long)seed, app_params ? "app L=12" : "small test", h_t, h_u, h_c, h_c_key);
    uint64_t s = seed;
    /* consts: its preprocessed values and the main column */
    c->c_prep = malloc(h_c_key * sizeof(uint32_t));
    c->c_main = malloc(h_c_key * sizeof(uint32_t));
    cr_assert(c->c_prep && c->c_main);
    for (size_t r = 0; r < h_c_key; r++) {
        uint32_t q = (uint32_t)(splitmix64(&s) % SF_P);
        if (r % 4 == 1)
            q = (uint32_t)(r / 4 % 3 == 0 ? 0 : r / 4 % 3 == 1 ? 1 : SF_P - 1);
        c->c_prep[r] = q;
        c->c_main[r] = sf_add(sf_mul(2, q), 1);
    }
    /* user: v below h_t, the rest follows */
    size_t hu = h_u ? h_u : 1;
    c->u_main = malloc(2 * hu * sizeof(uint32_t));
    c->u_c0 = malloc(hu * sizeof(uint32_t));
    c->u_c1 = malloc(2 * hu * sizeof(uint32_t));
    c->t_mult = calloc(h_t, sizeof(uint32_t));
    c->t_main = malloc(h_t * sizeof(uint32_t));
    cr_assert(c->u_main && c->u_c0 && c->u_c1 && c->t_mult && c->t_main);
    uint32_t a = (uint32_t)(splitmix64(&s) % SF_P);
    for (size_t r = 0; r < h_u; r++) {
        uint32_t v = (uint32_t)(splitmix64(&s) % h_t);
        c->u_main[r] = v;
        c->u_main[hu + r] = sf_add(sf_mul(v, v), 3);
        c->u_c0[r] = sf_add(v, 5);
        c->u_c1[r] = a;
        c->u_c1[hu + r] = sf_mul(a, v);
        a = sf_add(a, c->u_c0[r]);
        c->t_mult[v]++;
    }
    c->u_pub = h_u ? c->u_main[0] : 0;
    for (size_t r = 0; r < h_t; r++)
        c->t_main[r] = sf_mul(c->t_mult[r], (uint32_t)r);
    c->t_cached[0] = (glstark_trace_part){c->t_mult, 1};
    c->u_cached[0] = (glstark_trace_part){c->u_c0, 1};
    c->u_cached[1] = (glstark_trace_part){c->u_c1, 2};

    c->airs[0] = sf_table_air(h_t);
    c->airs[1] = sf_user_air();
    c->airs[2] = sf_consts_air(h_c_key, c->c_prep);
    char msg[1024];
    if (app_params)
        cr_assert_eq(glstark_params_app_100_bits(12, &c->params, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    else
        cr_assert_eq(glstark_params_test_small(&c->params), GLSTARK_OK);
    cr_assert_eq(glstark_keygen(c->airs, 3, c->params, &c->pk, &c->vk, msg, sizeof msg), GLSTARK_OK, "%s: %s",
                 c->desc, msg);
}

static void sides_case_traces(const sides_case *c, glstark_air_trace t[3])
{
    t[0] = (glstark_air_trace){c->h_t, {c->t_main, 1}, c->t_cached, NULL, 0};
    t[1] = (glstark_air_trace){c->h_u, {c->u_main, 2}, c->h_u ? c->u_cached : NULL, c->h_u ? &c->u_pub : NULL,
                               c->h_u ? 1 : 0};
    t[2] = (glstark_air_trace){c->h_c, {c->c_main, 1}, NULL, NULL, 0};
}

static void sides_case_free(sides_case *c)
{
    glstark_proving_key_destroy(c->pk);
    glstark_verifying_key_destroy(c->vk);
    glstark_params_destroy(c->params);
    for (int i = 0; i < 3; i++)
        glstark_air_destroy(c->airs[i]);
    free(c->t_main);
    free(c->t_mult);
    free(c->u_main);
    free(c->u_c0);
    free(c->u_c1);
    free(c->c_main);
    free(c->c_prep);
    memset(c, 0, sizeof *c);
}

/* The cases every test runs: heights below, at and above 2^l_skip (4 rows
 * with the small params), single rows, absent AIRs. */
typedef struct sides_spec {
    size_t h_t, h_u, h_c, h_c_key;
    int app;
    uint64_t seed;
} sides_spec;

static const sides_spec sides_specs[] = {
    {8, 16, 2, 2, 0, 0x51DE0001u},   /* consts below 2^l_skip (negative hypercube_dim) */
    {4, 1, 0, 8, 0, 0x51DE0002u},    /* a single user row; consts absent */
    {1, 32, 1, 1, 0, 0x51DE0003u},   /* a one-row table (no transition) */
    {16, 0, 4, 4, 0, 0x51DE0004u},   /* no user: the table's multiplicities are all 0 */
    {64, 256, 8, 8, 1, 0x51DE0005u}, /* app parameters */
};
#define SIDES_NSPECS (sizeof sides_specs / sizeof sides_specs[0])

static void sides_case_from_spec(sides_case *c, const sides_spec *sp)
{
    sides_case_make(c, sp->h_t, sp->h_u, sp->h_c, sp->h_c_key, sp->app, sp->seed);
}

#endif
