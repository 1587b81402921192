/* gs_buf_transpose (a row-major block into columns: how a proving context's
 * rows reach the engines) on the CPU engine, on the GLES kernel, and on the
 * generic per-column path, each against its definition (a host loop): odd
 * shapes, one row, one column, a destination stride above the rows, odd word
 * offsets, a binding limit that splits the destination into column groups
 * and one that sends the block to the per-column path; every destination
 * word outside the block keeps its poison. Then the argument checks. */
#include "gles_test_util.h"

#include <string.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/engine.h"

#define POISON 0xDEADBEEFu

typedef struct shape {
    size_t rows, cols, extra_stride, src_word, dst_word;
} shape;

static const shape shapes[] = {
    {1, 1, 0, 0, 0},     {7, 3, 0, 1, 2},    {33, 65, 5, 3, 7}, {1, 5000, 0, 0, 1},
    {5000, 1, 3, 2, 0},  {64, 100, 0, 0, 0}, {512, 263, 1, 5, 9},
};

/* Transposes each shape on eng and compares every destination word. */
static void check_engine(gs_engine *eng, const char *what, uint64_t seed)
{
    cr_log_info("%s: seed %llu", what, (unsigned long long)seed);
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        const size_t stride = s->rows + s->extra_stride;
        const size_t src_words = s->src_word + s->rows * s->cols + 3;
        const size_t dst_words = s->dst_word + (s->cols - 1) * stride + s->rows + 4;
        uint32_t *src = tu_alloc(src_words * 4), *got = tu_alloc(dst_words * 4);
        uint64_t st = seed + si;
        for (size_t i = 0; i < src_words; i++)
            src[i] = (uint32_t)splitmix64(&st);
        gs_buf *a, *b;
        TU_OK(eng, gs_buf_create(eng, src_words * 4, &a));
        TU_OK(eng, gs_buf_create(eng, dst_words * 4, &b));
        TU_OK(eng, gs_buf_write(a, 0, src, src_words * 4));
        TU_OK(eng, gs_buf_fill_u32(b, 0, dst_words, POISON));
        TU_OK(eng, gs_buf_transpose(b, s->dst_word, stride, a, s->src_word, s->rows, s->cols));
        TU_OK(eng, gs_buf_read(b, 0, got, dst_words * 4));
        for (size_t w = 0; w < dst_words; w++) {
            uint32_t want = POISON;
            if (w >= s->dst_word) {
                const size_t c = (w - s->dst_word) / stride, r = (w - s->dst_word) % stride;
                if (c < s->cols && r < s->rows)
                    want = src[s->src_word + r * s->cols + c];
            }
            cr_assert_eq(got[w], want, "%s, shape %zu (%zu x %zu, stride %zu): word %zu is %08x, want %08x", what, si,
                         s->rows, s->cols, stride, w, got[w], want);
        }
        gs_buf_destroy(a);
        gs_buf_destroy(b);
        free(src);
        free(got);
    }
}

Test(transpose, cpu_engine_matches_definition)
{
    gs_engine *eng = tu_cpu_engine();
    check_engine(eng, "cpu engine", 0x7A0001);
    gs_engine_destroy(eng);
}

Test(transpose, gles_matches_definition)
{
    gs_engine *eng = tu_engine(NULL);
    check_engine(eng, "gles", 0x7A0002);
    gs_engine_destroy(eng);
}

/* 64 KiB bindings: the larger shapes' destinations go in column groups; a
 * block above 64 KiB cannot be bound whole and takes the per-column path. */
Test(transpose, gles_small_bindings)
{
    gs_engine *eng = tu_engine_binding(64 << 10);
    check_engine(eng, "gles, 64 KiB bindings", 0x7A0003);
    gs_engine_destroy(eng);
}

Test(transpose, arguments_refused)
{
    gs_engine *engines[2] = {tu_cpu_engine(), tu_engine(NULL)};
    for (int e = 0; e < 2; e++) {
        gs_engine *eng = engines[e];
        gs_buf *a, *b;
        TU_OK(eng, gs_buf_create(eng, 4096, &a));
        TU_OK(eng, gs_buf_create(eng, 4096, &b));
        /* columns that would overlap */
        cr_assert_eq(gs_buf_transpose(b, 0, 3, a, 0, 4, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "stride") != NULL, "%s", eng->err.msg);
        /* one buffer for both */
        cr_assert_eq(gs_buf_transpose(a, 0, 4, a, 64, 4, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "one buffer") != NULL, "%s", eng->err.msg);
        /* the destination's last column past the end */
        cr_assert_eq(gs_buf_transpose(b, 1000, 8, a, 0, 8, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "transpose (destination)") != NULL, "%s", eng->err.msg);
        /* the source block past the end */
        cr_assert_eq(gs_buf_transpose(b, 0, 32, a, 1000, 8, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "transpose (source)") != NULL, "%s", eng->err.msg);
        /* sizes that overflow */
        cr_assert_eq(gs_buf_transpose(b, 0, SIZE_MAX / 2, a, 0, 2, 3), GLSTARK_ERR_INVALID_ARGUMENT);
        /* nothing to do */
        cr_assert_eq(gs_buf_transpose(b, 0, 4, a, 0, 0, 4), GLSTARK_OK);
        gs_buf_destroy(a);
        gs_buf_destroy(b);
        gs_engine_destroy(eng);
    }
}
