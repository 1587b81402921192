/* 1-D dispatch of any length: grids fold into 2-D above the group-count
 * limit, every id below the count runs exactly once, none above it. */
#include "gles_test_util.h"

#include "gles/dispatch_plan.h"

#include <string.h>

Test(gles_dispatch, grid_arithmetic)
{
    gs_gl_caps c;
    memset(&c, 0, sizeof c);
    c.local_size = 128;
    c.max_group_count[0] = c.max_group_count[1] = 65535;
    uint32_t x, y;
    gs_gl_grid_for(&c, 1, &x, &y);
    cr_assert(x == 1 && y == 1);
    gs_gl_grid_for(&c, 65535ull * 128, &x, &y);
    cr_assert(x == 65535 && y == 1);
    gs_gl_grid_for(&c, 65535ull * 128 + 1, &x, &y);
    cr_assert(y == 2 && (uint64_t)x * y * 128 >= 65535ull * 128 + 1 && x <= 65535, "x %u y %u", x, y);
    gs_gl_grid_for(&c, 0xFFFFFFFFull, &x, &y);
    cr_assert((uint64_t)x * y * 128 >= 0xFFFFFFFFull && x <= 65535 && y <= 65535, "x %u y %u", x, y);
}

/* Writes id patterns with the fill kernel (o[i] = base + i) and checks
 * every word, with the words after the count left poisoned. */
static void check_iota(gs_engine *eng, size_t count)
{
    const size_t guard = 300;
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, (count + guard) * 4, &b));
    TU_OK(eng, gs_buf_fill_u32(b, 0, count + guard, 0xDEADBEEFu));
    TU_OK(eng, gs_gles_fill_pattern(eng, b, 0, count, 1000, 1));
    uint32_t *got = tu_alloc((count + guard) * 4);
    TU_OK(eng, gs_buf_read(b, 0, got, (count + guard) * 4));
    for (size_t i = 0; i < count; i++)
        if (got[i] != (uint32_t)(1000 + i))
            cr_assert_fail("count %zu: word %zu is 0x%08x, want 0x%08x", count, i, got[i], (uint32_t)(1000 + i));
    for (size_t i = count; i < count + guard; i++)
        cr_assert_eq(got[i], 0xDEADBEEFu, "count %zu: word %zu beyond the count was written", count, i);
    free(got);
    gs_buf_destroy(b);
}

Test(gles_dispatch, folds_just_above_the_group_limit, .timeout = 120)
{
    gs_engine *eng = tu_engine(NULL);
    const gs_gl_caps *c = &gs_gles_device(eng)->caps;
    uint64_t one_row = (uint64_t)c->max_group_count[0] * c->local_size;
    if (one_row > (64u << 20))
        cr_skip_test("group-count limit %u x local %u is too large to test quickly on this device",
                     c->max_group_count[0], c->local_size);
    cr_log_info("local size %u, max groups %u: one row holds %llu ids", c->local_size, c->max_group_count[0],
                (unsigned long long)one_row);
    uint32_t gx, gy;
    gs_gl_grid_for(c, one_row + 1, &gx, &gy);
    cr_assert_eq(gy, 2, "one row plus one id must fold into 2 rows");
    /* The binding must hold the whole range here; skip when it cannot. */
    if ((one_row + c->local_size + 1 + 300) * 4 > c->max_binding_bytes) {
        /* Still exercised: fill splits by binding first, so test the
         * folding at a count one binding can hold with a lowered limit. */
        gs_engine_destroy(eng);
        cr_skip_test("one binding cannot hold %llu words", (unsigned long long)one_row);
    }
    check_iota(eng, one_row);
    check_iota(eng, one_row + 1);
    check_iota(eng, one_row + c->local_size + 1);
    gs_engine_destroy(eng);
}

/* The same folding with a group-count limit lowered to 7: many rows,
 * uneven tails, and counts beyond a whole 7 x 7 grid, all small enough to
 * be instant. */
Test(gles_dispatch, folds_with_lowered_group_limit)
{
    gs_device_config o;
    o = tu_config();
    o.max_group_count = 7;
    gs_engine *eng = tu_engine(&o);
    const gs_gl_caps *c = &gs_gles_device(eng)->caps;
    uint64_t row = 7ull * c->local_size;
    const uint64_t counts[] = {1, c->local_size - 1, c->local_size, row - 1, row, row + 1, 3 * row + 5, 49 * row};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        uint32_t gx, gy;
        gs_gl_grid_for(c, counts[k], &gx, &gy);
        cr_assert_leq(gx, 7);
        check_iota(eng, (size_t)counts[k]);
    }
    /* Beyond 7 x 7 groups one grid cannot hold it: several dispatches. */
    check_iota(eng, (size_t)(49 * row + 1));
    check_iota(eng, (size_t)(100 * row + 17));
    gs_engine_destroy(eng);
}

/* Under a time budget a call is cut into chunks of whole work groups; a
 * chunk of more groups than one grid row folds into a grid that can hold
 * more groups than the chunk (11 groups as 6 x 2 here). Those extra ids
 * belong to the next chunk and must not run in this one: an in-place kernel
 * would then apply twice. The program's rate is injected (calibrated), so
 * the cut is the same on every device. */
Test(gles_dispatch, budget_chunks_run_each_id_once)
{
    gs_device_config o = tu_config();
    o.max_group_count = 7;
    gs_engine *eng = tu_engine(&o);
    gs_gl_device *dev = gs_gles_device(eng);
    const uint32_t ls = dev->caps.local_size;
    gs_gl_program *p;
    TU_OK(eng, gs_gl_program_get(dev, "to_montgomery.comp", NULL, &p, &eng->err));
    dev->dispatch_budget_ns = 50000000ull;
    gs_dispatch_rate *r = gs_gl_program_rate(p);
    r->calibrated = 1;
    r->dispatches = 1;
    /* 11 groups per 50 ms chunk (and a little more, against rounding) */
    r->rate = (11.5 * ls) / 50e6;
    cr_assert_eq(gs_dispatch_next(r, dev->dispatch_budget_ns, 1, ls, 49ull * ls), 11ull * ls);
    const size_t counts[] = {11u * ls, 11u * ls + 1, 3u * 11u * ls + 5, 100u * ls + 17};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        const size_t n = counts[k], guard = 64;
        uint32_t *in = tu_alloc((n + guard) * 4), *got = tu_alloc((n + guard) * 4);
        for (size_t i = 0; i < n; i++)
            in[i] = (uint32_t)((i * 2654435761u) % BB_P);
        gs_buf *b;
        TU_OK(eng, gs_buf_create(eng, (n + guard) * 4, &b));
        TU_OK(eng, gs_buf_fill_u32(b, n * 4, guard, 0xDEADBEEFu));
        TU_OK(eng, gs_buf_write_canonical(b, 0, in, n));
        TU_OK(eng, gs_buf_read(b, 0, got, (n + guard) * 4));
        for (size_t i = 0; i < n; i++)
            if (got[i] != bb_from_canonical(in[i]))
                cr_assert_fail("count %zu: word %zu is 0x%08x, want 0x%08x (converted %s)", n, i, got[i],
                               bb_from_canonical(in[i]),
                               got[i] == bb_from_canonical(bb_from_canonical(in[i])) ? "twice" : "wrongly");
        for (size_t i = n; i < n + guard; i++)
            cr_assert_eq(got[i], 0xDEADBEEFu, "count %zu: word %zu beyond the count was written", n, i);
        gs_buf_destroy(b);
        free(in);
        free(got);
    }
    gs_engine_destroy(eng);
}
