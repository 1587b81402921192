/* The CPU engine's rs_code_rows: every row class of random stacked layouts
 * against the rows of its rs_code_matrix, column subranges at offsets with
 * poison around them, the one-column-per-thread and split-column paths, and
 * bad input. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "rs_rows_util.h"
#include "cpu_test_engine.h"

Test(rs_code_rows, every_class_matches_rs_code_matrix)
{
    uint64_t seed = 0x5057001, s = seed;
    printf("rs_code_rows cpu seed %llu\n", (unsigned long long)seed);
    gs_engine *ref = mk_engine_s(2, 0);
    gs_engine *engs[3] = {mk_engine_s(1, 0), mk_engine_s(2, 1), mk_engine_s(3, 0)};
    int subranges = 0;
    for (int iter = 0; iter < 24; iter++) {
        t_rows_case k;
        t_rows_case_random(&k, &s, 4, 12, 4);
        for (unsigned b = 1; b <= 2; b++) {
            bb_t *want = t_rows_want(ref, &k, b);
            char tag[64];
            snprintf(tag, sizeof tag, "seed %llu iter %d", (unsigned long long)seed, iter);
            subranges += t_rows_check_classes(engs[iter % 3], &k, want, b, &s, tag);
            free(want);
        }
        t_rows_case_free(&k);
    }
    cr_assert_gt(subranges, 4, "too few layouts had a column range starting past column 0");
    for (int e = 0; e < 3; e++)
        gs_engine_destroy(engs[e]);
    gs_engine_destroy(ref);
}

/* Row classes finer than the blowup (rs_code_rows_folded) over Q itself:
 * every class of 2^(b+1) and 2^(b+2) against the rows of rs_code_matrix,
 * on one, two and three threads. */
Test(rs_code_rows, folded_classes_match_rs_code_matrix)
{
    uint64_t seed = 0x5057005, s = seed;
    printf("rs_code_rows_folded cpu seed %llu\n", (unsigned long long)seed);
    gs_engine *ref = mk_engine_s(2, 0);
    gs_engine *engs[3] = {mk_engine_s(1, 0), mk_engine_s(2, 1), mk_engine_s(3, 0)};
    int checks = 0;
    for (int iter = 0; iter < 16; iter++) {
        t_rows_case k;
        t_rows_case_random(&k, &s, 4, 11, 4);
        for (unsigned b = 1; b <= 2; b++) {
            bb_t *want = t_rows_want(ref, &k, b);
            char tag[64];
            snprintf(tag, sizeof tag, "seed %llu iter %d", (unsigned long long)seed, iter);
            checks += t_rows_check_folded_classes(engs[iter % 3], ref, &k, want, b, &s, tag);
            free(want);
        }
        t_rows_case_free(&k);
    }
    cr_assert_gt(checks, 100, "too few folded classes checked (%d)", checks);
    /* bad input: a class count not above the blowup, blocks larger than a
     * part, a class out of range, an output too small */
    gs_engine *eng = engs[0];
    gs_buf *qb = t_buf(eng, NULL, 2 * 16), *ob = t_buf(eng, NULL, 2 * 16);
    gs_dft_cols qc = {qb, 0, 16, 2, 4, 1};
    cr_assert_eq(gs_rs_code_rows_folded(eng, &qc, 2, 1, 2, 3, ob, 0), GLSTARK_OK, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_rows_folded(eng, &qc, 2, 1, 1, 0, ob, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(eng->err.msg, "log_blowup < log_classes") != NULL, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_rows_folded(eng, &qc, 4, 1, 2, 0, ob, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows_folded(eng, &qc, 2, 1, 2, 4, ob, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows_folded(eng, &qc, 2, 1, 2, 0, ob, 17), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(eng->err.msg, "do not fit") != NULL, "%s", eng->err.msg);
    gs_buf_destroy(qb);
    gs_buf_destroy(ob);
    for (int e = 0; e < 3; e++)
        gs_engine_destroy(engs[e]);
    gs_engine_destroy(ref);
}

/* Short columns (L 3 to 5, below the vector widths), l_skip up to 3, and
 * log_blowup 0 (only class 0, no twist) too. */
Test(rs_code_rows, short_columns)
{
    uint64_t seed = 0x5057002, s = seed;
    printf("rs_code_rows cpu short columns seed %llu\n", (unsigned long long)seed);
    gs_engine *ref = mk_engine_s(2, 0), *eng = mk_engine_s(2, 0);
    for (int iter = 0; iter < 16; iter++) {
        t_rows_case k;
        t_rows_case_random(&k, &s, 3, 5, 3);
        for (unsigned b = 0; b <= 2; b++) {
            bb_t *want = t_rows_want(ref, &k, b);
            t_rows_check_classes(eng, &k, want, b, &s, "short");
            free(want);
        }
        t_rows_case_free(&k);
    }
    gs_engine_destroy(ref);
    gs_engine_destroy(eng);
}

/* One 2^15 column on 3 threads: the twist and the DFT split across threads. */
Test(rs_code_rows, tall_column_split_across_threads)
{
    uint64_t seed = 0x5057003, s = seed;
    printf("rs_code_rows cpu tall column seed %llu\n", (unsigned long long)seed);
    t_rows_case k = {.nt = 2, .L = 15};
    k.sh[0] = (gs_stack_trace_shape){1, 14};
    k.sh[1] = (gs_stack_trace_shape){3, 2};
    for (size_t t = 0; t < 2; t++) {
        size_t cnt = (size_t)k.sh[t].width << k.sh[t].log_height;
        k.vals[t] = malloc(cnt * sizeof(bb_t));
        for (size_t i = 0; i < cnt; i++)
            k.vals[t][i] = t_rand_bb(&s);
    }
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(3, 12, k.sh, 2, &k.lay, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(k.lay.width, 1);
    gs_engine *ref = mk_engine_s(1, 1), *eng = mk_engine_s(3, 0);
    gs_trace_ref refs[8];
    t_rows_upload(eng, &k, refs);
    for (unsigned b = 1; b <= 2; b++) {
        bb_t *want = t_rows_want(ref, &k, b);
        for (uint32_t p = 0; p < (1u << b); p++)
            t_rows_check(eng, &k, refs, want, b, p, 0, 1, 2, "tall");
        free(want);
    }
    t_rows_release(&k, refs);
    t_rows_case_free(&k);
    gs_engine_destroy(ref);
    gs_engine_destroy(eng);
}

Test(rs_code_rows, bad_input_gives_status)
{
    gs_engine *eng = mk_engine_s(1, 0);
    gs_stack_trace_shape sh = {3, 4};
    gs_stack_layout lay;
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(2, 2, &sh, 1, &lay, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(lay.width, 3);
    gs_trace_ref ref = {t_buf(eng, NULL, 3 * 16), 0};
    gs_buf *out = t_buf(eng, NULL, 3 * 16 + 1);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 1, 0, 3, out, 1), GLSTARK_OK, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 2, 0, 3, out, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(eng->err.msg, "row class") != NULL, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 0, 1, 0, 3, out, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 2, 7, 0, 1, out, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 0, 1, 4, out, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 0, 2, 2, out, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 0, 0, 3, out, 2), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(eng->err.msg, "do not fit") != NULL, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 0, 0, 3, NULL, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 24, 0, 0, 1, out, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_rs_code_rows(NULL, &lay, &ref, 1, 0, 0, 1, out, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    /* word 0, before the good call's region, kept its poison through the
     * failed calls */
    bb_t first;
    gs_buf_read(out, 0, &first, sizeof first);
    cr_assert_eq(first, T_ROWS_POISON);
    /* an engine without the op, and one without the family */
    const gs_dft_ops *saved = eng->dft;
    gs_dft_ops no_rows = *saved;
    no_rows.rs_code_rows = NULL;
    eng->dft = &no_rows;
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 0, 0, 1, out, 0), GLSTARK_ERR_UNSUPPORTED);
    eng->dft = NULL;
    cr_assert_eq(gs_rs_code_rows(eng, &lay, &ref, 1, 0, 0, 1, out, 0), GLSTARK_ERR_UNSUPPORTED);
    eng->dft = saved;
    gs_buf_destroy(out);
    gs_buf_destroy(ref.buf);
    gs_stack_layout_free(&lay);
    gs_engine_destroy(eng);
}
