/* The checker accepts Keccak traces of OpenVM's example inputs (StdRng seed
 * 42): 16 permutations by default, 1024 with -Dslow_tests=true. Row blocks
 * (glstark_keccak_trace_rows) equal the whole trace's rows. */
#include <criterion/criterion.h>

#include "air/air_internal.h"
#include "airs/keccak.h"
#include "glstark/airs.h"
#include "util/stdrng.h"

static void check_perms(size_t n)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    uint64_t (*in)[25] = malloc(n * sizeof *in);
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 42);
    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < 25; i++)
            in[k][i] = gs_stdrng_next_u64(&rng);
    /* the first input is the one OpenVM's example used */
    cr_assert_eq(in[0][0], 9713269763989775522ull);
    cr_assert_eq(in[0][24], 6475006809388010320ull);
    size_t h = glstark_keccak_trace_height(n);
    uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t);
    cr_assert_not_null(t);
    cr_assert_eq(glstark_keccak_trace(in, n, t), GLSTARK_OK);
    glstark_air_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.height = h;
    tr.common_main.values = t;
    tr.common_main.width = GLSTARK_KECCAK_WIDTH;
    char msg[512];
    cr_assert_eq(glstark_check_constraints(&air, 1, &tr, NULL, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    /* last permutation's output against the plain permutation */
    uint64_t st[25];
    memcpy(st, in[n - 1], sizeof st);
    gs_keccak_f1600(st);
    size_t row = 24 * (n - 1) + 23;
    uint64_t lane1 = 0;
    for (int l = 0; l < 4; l++)
        lane1 |= (uint64_t)t[(size_t)(GS_KC_A_PP + 4 + l) * h + row] << (16 * l);
    cr_assert_eq(lane1, st[1]);
    free(t);
    free(in);
    glstark_air_destroy(air);
}

/* Every block, from row boundaries inside a permutation, across several and
 * into the zero-input padding, equals those rows of the whole trace
 * (poisoned blocks: every value written); ranges past the height and NULL
 * blocks are refused. */
Test(keccak_sizes, row_blocks_equal_whole_trace)
{
    const size_t n = 5; /* 120 rows of inputs, height 128: 8 padding rows */
    uint64_t in[5][25];
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 7);
    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < 25; i++)
            in[k][i] = gs_stdrng_next_u64(&rng);
    size_t h = glstark_keccak_trace_height(n);
    cr_assert_eq(h, 128);
    uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t), *b = malloc((h * GLSTARK_KECCAK_WIDTH + 1) * sizeof *b);
    cr_assert_eq(glstark_keccak_trace((const uint64_t(*)[25])in, n, t), GLSTARK_OK);
    const size_t ranges[][2] = {{0, 1}, {0, 24}, {5, 7}, {23, 2}, {20, 60}, {100, 28}, {119, 9}, {127, 1}, {0, 128}, {64, 0}};
    for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
        size_t r0 = ranges[k][0], m = ranges[k][1];
        memset(b, 0xFF, (h * GLSTARK_KECCAK_WIDTH + 1) * sizeof *b);
        cr_assert_eq(glstark_keccak_trace_rows((const uint64_t(*)[25])in, n, r0, m, b), GLSTARK_OK);
        for (size_t c = 0; c < GLSTARK_KECCAK_WIDTH; c++)
            for (size_t r = 0; r < m; r++)
                cr_assert_eq(b[c * m + r], t[c * h + r0 + r], "rows [%zu, %zu): column %zu row %zu differs", r0, r0 + m,
                             c, r0 + r);
        cr_assert_eq(b[GLSTARK_KECCAK_WIDTH * m], 0xFFFFFFFFu, "rows [%zu, %zu): wrote past the block", r0, r0 + m);
    }
    cr_assert_eq(glstark_keccak_trace_rows((const uint64_t(*)[25])in, n, 120, 9, b), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_keccak_trace_rows((const uint64_t(*)[25])in, n, 129, 0, b), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_keccak_trace_rows((const uint64_t(*)[25])in, n, 0, 4, NULL), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_keccak_trace_rows(NULL, n, 0, 4, b), GLSTARK_ERR_INVALID_ARGUMENT);
    free(t);
    free(b);
}

/* The whole trace is made by several workers (permutations split over the
 * cores, at least 8 each): for 200 permutations (height 8192, 342 with the
 * padding) it equals the rows made one permutation at a time by
 * glstark_keccak_trace_rows, every word written over a poisoned buffer, and
 * the Montgomery-form trace the prover's tests use is the same values. */
Test(keccak_sizes, threaded_trace_equals_rows_and_montgomery_form)
{
    const size_t n = 200;
    uint64_t (*in)[25] = malloc(n * sizeof *in);
    cr_assert_not_null(in);
    glstark_keccak_inputs_from_seed(11, n, in);
    size_t h = glstark_keccak_trace_height(n), words = h * GLSTARK_KECCAK_WIDTH;
    cr_assert_eq(h, 8192);
    uint32_t *t = malloc(words * sizeof *t), *b = malloc(words * sizeof *b), *m = malloc(words * sizeof *m);
    cr_assert(t && b && m);
    memset(t, 0xFF, words * sizeof *t);
    memset(b, 0xFF, words * sizeof *b);
    memset(m, 0xFF, words * sizeof *m);
    cr_assert_eq(glstark_keccak_trace((const uint64_t(*)[25])in, n, t), GLSTARK_OK);
    cr_assert_eq(glstark_keccak_trace_rows((const uint64_t(*)[25])in, n, 0, h, b), GLSTARK_OK);
    cr_assert_eq(gs_keccak_trace_mont((const uint64_t(*)[25])in, n, m), GLSTARK_OK);
    for (size_t i = 0; i < words; i++) {
        cr_assert_eq(t[i], b[i], "column %zu row %zu: %u, one permutation at a time %u", i / h, i % h, t[i], b[i]);
        cr_assert_eq(m[i], bb_from_canonical(t[i]), "column %zu row %zu: Montgomery form differs", i / h, i % h);
    }
    free(in), free(t), free(b), free(m);
}

#ifndef GLSTARK_SLOW_TESTS
Test(keccak_sizes, perms16) { check_perms(16); }
#else
Test(keccak_sizes, perms1024, .timeout = 600) { check_perms(1024); }
#endif
