/* CPU engine DFT: against naive O(n^2) definitions, known vectors, round
 * trips, thread-count independence, and bad input. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "dft_test_util.h"
#include "cpu_test_engine.h"

/* Runs the engine DFT on ncols random columns of 2^k (stride = len + pad)
 * and compares each column with the naive transform. */
static void check_vs_naive(unsigned threads, unsigned k, size_t ncols, size_t pad, gs_dft_dir dir, uint64_t seed,
                           int scalar)
{
    gs_engine *eng = mk_engine_s(threads, scalar);
    size_t n = (size_t)1 << k, stride = n + pad, total = stride * ncols + 3;
    uint64_t s = seed;
    bb_t *in = malloc(total * sizeof *in), *got = malloc(total * sizeof *got), *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < total; i++)
        in[i] = t_rand_bb(&s);
    gs_buf *b = t_buf(eng, in, total);
    gs_dft_cols c = {b, 3, stride, ncols, k, 1};
    cr_assert_eq(gs_dft(eng, &c, dir), GLSTARK_OK, "%s", eng->err.msg);
    gs_buf_read(b, 0, got, total * sizeof *got);
    for (size_t col = 0; col < ncols; col++) {
        t_naive_dft(in + 3 + col * stride, want, k, dir == GS_DFT_INVERSE);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(got[3 + col * stride + i], want[i],
                         "seed %llu threads %u k %u ncols %zu dir %d scalar %d: column %zu entry %zu differs",
                         (unsigned long long)seed, threads, k, ncols, (int)dir, scalar, col, i);
        for (size_t i = n; i < stride && col + 1 < ncols; i++) /* padding untouched */
            cr_assert_eq(got[3 + col * stride + i], in[3 + col * stride + i]);
    }
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(got[i], in[i], "element before the batch was written");
    gs_buf_destroy(b);
    free(in);
    free(got);
    free(want);
    gs_engine_destroy(eng);
}

Test(dft, naive_small_sizes_forward_and_inverse)
{
    uint64_t seed = 0x5EED0001;
    printf("dft naive comparison seed base %llu\n", (unsigned long long)seed);
    size_t widths[] = {1, 3, 5};
    for (unsigned k = 0; k <= 10; k++)
        for (size_t w = 0; w < 3; w++)
            for (int d = 0; d < 2; d++)
                for (int scalar = 0; scalar < 2; scalar++)
                    check_vs_naive(2, k, widths[w], (k & 1) ? 7 : 0, d ? GS_DFT_INVERSE : GS_DFT_FORWARD,
                                   seed + 100 * k + 10 * w + (uint64_t)d, scalar);
}

Test(dft, naive_threads_1_and_3)
{
    for (unsigned k = 1; k <= 9; k += 4) {
        check_vs_naive(1, k, 3, 0, GS_DFT_FORWARD, 77 + k, 0);
        check_vs_naive(3, k, 1, 0, GS_DFT_INVERSE, 99 + k, 1);
        check_vs_naive(3, k, 7, 1, GS_DFT_FORWARD, 55 + k, 0);
    }
}

/* Plonky3's NaiveDft test: columns 5+4x, 2+3x, 0 on
 * {1, -1} give [9, 1], [5, -1], [0, 0]; and the model's D4 vectors (model-derived:
 * docs/protocol.md, 'Test vectors'). */
Test(dft, known_vectors)
{
    gs_engine *eng = mk_engine(1);
    uint32_t r6_in[6] = {5, 4, 2, 3, 0, 0}, r6_out[6] = {9, 1, 5, BB_P - 1, 0, 0};
    bb_t v[8];
    bb_array_from_canonical(v, r6_in, 6);
    gs_buf *b = t_buf(eng, v, 6);
    gs_dft_cols c = {b, 0, 2, 3, 1, 1};
    cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_OK);
    uint32_t out[8];
    gs_buf_read(b, 0, v, 6 * sizeof(bb_t));
    bb_array_to_canonical(out, v, 6);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(out[i], r6_out[i], "R6 entry %d", i);
    gs_buf_destroy(b);

    uint32_t d4_in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t d4_fwd[8] = {36, 1976151680, 1139445628, 1710526337, 2013265917, 302739576, 873820285, 37114233};
    uint32_t d4_inv[8] = {1006632965, 1766246960, 864202256, 37842447, 1006632960, 1975423473, 1149063664, 247018960};
    for (int d = 0; d < 2; d++) {
        bb_array_from_canonical(v, d4_in, 8);
        b = t_buf(eng, v, 8);
        gs_dft_cols c8 = {b, 0, 8, 1, 3, 1};
        cr_assert_eq(gs_dft(eng, &c8, d ? GS_DFT_INVERSE : GS_DFT_FORWARD), GLSTARK_OK);
        gs_buf_read(b, 0, v, sizeof v);
        bb_array_to_canonical(out, v, 8);
        for (int i = 0; i < 8; i++)
            cr_assert_eq(out[i], d ? d4_inv[i] : d4_fwd[i], "D4 dir %d entry %d", d, i);
        gs_buf_destroy(b);
    }
    gs_engine_destroy(eng);
}

/* inverse(forward(x)) == x, for every height 2^0..2^max_k, several widths,
 * on 1 and 2 threads (2 threads with one column takes the split-column path
 * from 2^14 up). */
static void round_trip(unsigned max_k, uint64_t seed)
{
    printf("dft round trip up to 2^%u, seed %llu\n", max_k, (unsigned long long)seed);
    size_t widths[] = {1, 3, 2};
    for (unsigned threads = 1; threads <= 2; threads++) {
        gs_engine *eng = mk_engine(threads);
        for (unsigned k = 0; k <= max_k; k++) {
            size_t w = widths[k % 3], n = (size_t)1 << k, total = w * n;
            uint64_t s = seed + k;
            bb_t *x = malloc(total * sizeof *x), *y = malloc(total * sizeof *y);
            for (size_t i = 0; i < total; i++)
                x[i] = t_rand_bb(&s);
            gs_buf *b = t_buf(eng, x, total);
            gs_dft_cols c = {b, 0, n, w, k, 1};
            cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_OK);
            if (k >= 2) { /* the forward transform must change something */
                gs_buf_read(b, 0, y, total * sizeof *y);
                cr_assert(memcmp(x, y, total * sizeof *y) != 0, "forward DFT left 2^%u input unchanged", k);
            }
            cr_assert_eq(gs_dft(eng, &c, GS_DFT_INVERSE), GLSTARK_OK);
            gs_buf_read(b, 0, y, total * sizeof *y);
            for (size_t i = 0; i < total; i++)
                cr_assert_eq(y[i], x[i], "seed %llu threads %u k %u width %zu: entry %zu", (unsigned long long)seed,
                             threads, k, w, i);
            gs_buf_destroy(b);
            free(x);
            free(y);
        }
        gs_engine_destroy(eng);
    }
}

Test(dft, inverse_forward_identity_to_2_16) { round_trip(16, 0xABCDEF); }

/* Large single-column and many-column results agree across thread counts
 * (the split-column path against the one-column-per-thread path). */
Test(dft, thread_count_independent)
{
    uint64_t seed = 4242;
    printf("dft thread independence seed %llu\n", (unsigned long long)seed);
    unsigned k = 15;
    size_t n = (size_t)1 << k;
    uint64_t s = seed;
    bb_t *x = malloc(3 * n * sizeof *x), *r1 = malloc(3 * n * sizeof *x), *r2 = malloc(3 * n * sizeof *x);
    for (size_t i = 0; i < 3 * n; i++)
        x[i] = t_rand_bb(&s);
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        gs_engine *eng = mk_engine_s(threads, threads == 1); /* also scalar vs vector */
        gs_buf *b = t_buf(eng, x, 3 * n);
        for (size_t col = 0; col < 3; col++) { /* one column per call: split path on 3 threads */
            gs_dft_cols c = {b, col * n, n, 1, k, 1};
            cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_OK);
        }
        gs_buf_read(b, 0, threads == 1 ? r1 : r2, 3 * n * sizeof *x);
        gs_buf_destroy(b);
        gs_engine_destroy(eng);
    }
    cr_assert(memcmp(r1, r2, 3 * n * sizeof *x) == 0, "1 thread (scalar) and 3 threads (vector) disagree");
    /* spot-check entries against the definition */
    bb_t w = bb_two_adic_generator(k);
    size_t idx[] = {0, 1, 12345, n - 1};
    for (int t = 0; t < 4; t++) {
        bb_t acc = 0, wi = bb_pow(w, idx[t]), p = bb_one();
        for (size_t j = 0; j < n; j++) {
            acc = bb_add(acc, bb_mul(x[n + j], p));
            p = bb_mul(p, wi);
        }
        cr_assert_eq(r1[n + idx[t]], acc, "column 1 entry %zu", idx[t]);
    }
    free(x);
    free(r1);
    free(r2);
}

/* Fewer columns than threads, lying back to back (stride = length), at a
 * length where each phase is split across threads: one pass per phase
 * covers every column (dft_parallel_cols). Base columns of 2^15 and an
 * extension column of 2^14 (its 4 coefficient columns are such a run) on 8
 * threads, both directions, against 1 thread; base entries spot-checked
 * against the definition. */
Test(dft, contiguous_columns_on_many_threads)
{
    uint64_t seed = 5151;
    printf("dft contiguous columns seed %llu\n", (unsigned long long)seed);
    const unsigned kb = 15, ke = 14;
    const size_t nb = (size_t)1 << kb, ne = (size_t)1 << ke, words = 3 * nb > 4 * ne ? 3 * nb : 4 * ne;
    uint64_t s = seed;
    bb_t *x = malloc(words * sizeof *x), *r[2][2][2]; /* [ext][dir][threads 1, 8] */
    for (size_t i = 0; i < words; i++)
        x[i] = t_rand_bb(&s);
    for (int ext = 0; ext < 2; ext++)
        for (int d = 0; d < 2; d++)
            for (int t = 0; t < 2; t++) {
                gs_engine *eng = mk_engine(t ? 8 : 1);
                size_t len = ext ? 4 * ne : 3 * nb;
                gs_buf *b = t_buf(eng, x, len);
                gs_dft_cols c = ext ? (gs_dft_cols){b, 0, 4 * ne, 1, ke, 4} : (gs_dft_cols){b, 0, nb, 3, kb, 1};
                cr_assert_eq(gs_dft(eng, &c, d ? GS_DFT_INVERSE : GS_DFT_FORWARD), GLSTARK_OK, "%s", eng->err.msg);
                r[ext][d][t] = malloc(len * sizeof(bb_t));
                gs_buf_read(b, 0, r[ext][d][t], len * sizeof(bb_t));
                gs_buf_destroy(b);
                gs_engine_destroy(eng);
            }
    for (int ext = 0; ext < 2; ext++)
        for (int d = 0; d < 2; d++)
            cr_assert(memcmp(r[ext][d][0], r[ext][d][1], (ext ? 4 * ne : 3 * nb) * sizeof(bb_t)) == 0,
                      "%s, %s: 1 and 8 threads disagree", ext ? "extension" : "base", d ? "inverse" : "forward");
    /* the forward base transform's entries against the definition, in each column */
    bb_t w = bb_two_adic_generator(kb);
    size_t idx[] = {0, 1, 777, nb - 1};
    for (size_t col = 0; col < 3; col++)
        for (int t = 0; t < 4; t++) {
            bb_t acc = 0, wi = bb_pow(w, idx[t]), p = bb_one();
            for (size_t j = 0; j < nb; j++) {
                acc = bb_add(acc, bb_mul(x[col * nb + j], p));
                p = bb_mul(p, wi);
            }
            cr_assert_eq(r[0][0][1][col * nb + idx[t]], acc, "column %zu entry %zu", col, idx[t]);
        }
    /* the extension transform's coefficient 2 at one row, against the definition */
    bb_t we = bb_two_adic_generator(ke), acc = 0, p = bb_one(), wi = bb_pow(we, 5);
    for (size_t j = 0; j < ne; j++) {
        acc = bb_add(acc, bb_mul(x[4 * j + 2], p));
        p = bb_mul(p, wi);
    }
    cr_assert_eq(r[1][0][1][4 * 5 + 2], acc, "extension row 5, coefficient 2");
    for (int ext = 0; ext < 2; ext++)
        for (int d = 0; d < 2; d++)
            for (int t = 0; t < 2; t++)
                free(r[ext][d][t]);
    free(x);
}

/* Extension columns (elem_words 4) transform each coefficient separately. */
Test(dft, extension_columns)
{
    uint64_t seed = 31337;
    printf("dft extension seed %llu\n", (unsigned long long)seed);
    gs_engine *eng = mk_engine(2);
    for (unsigned k = 0; k <= 8; k += 4) {
        size_t n = (size_t)1 << k, ncols = 2;
        uint64_t s = seed + k;
        bb_t *x = malloc(4 * n * ncols * sizeof *x), *y = malloc(4 * n * ncols * sizeof *x);
        bb_t *lane = malloc(n * sizeof *lane), *want = malloc(n * sizeof *want);
        for (size_t i = 0; i < 4 * n * ncols; i++)
            x[i] = t_rand_bb(&s);
        for (int d = 0; d < 2; d++) {
            gs_buf *b = t_buf(eng, x, 4 * n * ncols);
            gs_dft_cols c = {b, 0, 4 * n, ncols, k, 4};
            cr_assert_eq(gs_dft(eng, &c, d ? GS_DFT_INVERSE : GS_DFT_FORWARD), GLSTARK_OK, "%s", eng->err.msg);
            gs_buf_read(b, 0, y, 4 * n * ncols * sizeof *y);
            for (size_t col = 0; col < ncols; col++)
                for (unsigned q = 0; q < 4; q++) {
                    for (size_t i = 0; i < n; i++)
                        lane[i] = x[col * 4 * n + 4 * i + q];
                    t_naive_dft(lane, want, k, d);
                    for (size_t i = 0; i < n; i++)
                        cr_assert_eq(y[col * 4 * n + 4 * i + q], want[i], "k %u col %zu coeff %u row %zu", k, col,
                                     q, i);
                }
            gs_buf_destroy(b);
        }
        free(x);
        free(y);
        free(lane);
        free(want);
    }
    gs_engine_destroy(eng);
}

/* eval_to_coeff_rs_message: the model's D5 vector and the definition. */
Test(dft, rs_message)
{
    gs_engine *eng = mk_engine(2);
    uint32_t in8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t d5[8] = {1006632963, 1870835219, 2, 1, 1006632967, 1870835223, 6, 5};
    bb_t v[8];
    uint32_t out[8];
    bb_array_from_canonical(v, in8, 8);
    gs_buf *b = t_buf(eng, v, 8);
    gs_dft_cols c = {b, 0, 8, 1, 3, 1};
    cr_assert_eq(gs_rs_message(eng, &c, 2), GLSTARK_OK);
    gs_buf_read(b, 0, v, sizeof v);
    bb_array_to_canonical(out, v, 8);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(out[i], d5[i], "D5 entry %d", i);
    gs_buf_destroy(b);

    uint64_t seed = 2024;
    printf("rs_message seed %llu\n", (unsigned long long)seed);
    for (unsigned l = 0; l <= 5; l++) {
        unsigned k = l + 3;
        size_t n = (size_t)1 << k, ncols = 3;
        uint64_t s = seed + l;
        bb_t *x = malloc(n * ncols * sizeof *x), *y = malloc(n * ncols * sizeof *x), *want = malloc(n * sizeof *x);
        for (size_t i = 0; i < n * ncols; i++)
            x[i] = t_rand_bb(&s);
        b = t_buf(eng, x, n * ncols);
        gs_dft_cols cc = {b, 0, n, ncols, k, 1};
        cr_assert_eq(gs_rs_message(eng, &cc, l), GLSTARK_OK);
        gs_buf_read(b, 0, y, n * ncols * sizeof *y);
        for (size_t col = 0; col < ncols; col++) {
            t_naive_rs_message(x + col * n, want, n, l);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(y[col * n + i], want[i], "seed %llu l %u col %zu entry %zu", (unsigned long long)seed,
                             l, col, i);
        }
        gs_buf_destroy(b);
        free(x);
        free(y);
        free(want);
    }
    gs_engine_destroy(eng);
}

Test(dft, bad_input_gives_status)
{
    gs_engine *eng = mk_engine(1), *other = mk_engine(1);
    gs_buf *b = t_buf(eng, NULL, 64), *ob = t_buf(other, NULL, 64);
    gs_dft_cols c = {b, 0, 16, 4, 4, 1};
    cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_OK);
    gs_dft_cols too_long = {b, 0, 128, 1, 7, 1};
    cr_assert_eq(gs_dft(eng, &too_long, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(eng->err.msg) > 0);
    gs_dft_cols too_many = {b, 0, 16, 5, 4, 1};
    cr_assert_eq(gs_dft(eng, &too_many, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols offset_out = {b, 60, 16, 1, 3, 1};
    cr_assert_eq(gs_dft(eng, &offset_out, GS_DFT_INVERSE), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols overlap = {b, 0, 8, 2, 4, 1};
    cr_assert_eq(gs_dft(eng, &overlap, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols words = {b, 0, 16, 1, 2, 2};
    cr_assert_eq(gs_dft(eng, &words, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols huge = {b, 0, 16, 1, 28, 1};
    cr_assert_eq(gs_dft(eng, &huge, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols foreign = {ob, 0, 16, 1, 4, 1};
    cr_assert_eq(gs_dft(eng, &foreign, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_dft(eng, NULL, GS_DFT_FORWARD), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_dft(eng, &c, (gs_dft_dir)7), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols short_cols = {b, 0, 4, 4, 2, 1};
    cr_assert_eq(gs_rs_message(eng, &short_cols, 3), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_dft_cols ext = {b, 0, 16, 1, 2, 4};
    cr_assert_eq(gs_rs_message(eng, &ext, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    /* an engine without the family */
    const struct gs_dft_ops *saved = eng->dft;
    eng->dft = NULL;
    cr_assert_eq(gs_dft(eng, &c, GS_DFT_FORWARD), GLSTARK_ERR_UNSUPPORTED);
    eng->dft = saved;
    gs_buf_destroy(b);
    gs_buf_destroy(ob);
    gs_engine_destroy(eng);
    gs_engine_destroy(other);
}
