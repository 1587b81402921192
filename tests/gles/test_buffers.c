/* GLES engine buffers: round trips, copies, fills, range binding and
 * chunking past the (lowered) per-binding limit, the memory cap, host-sync
 * counting, and argument errors. */
#include "gles_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gles/upload_pack.h"
#include "engine/read_later.h"
#include "field/field_batch.h"

static void fill_random(uint32_t *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)splitmix64(&seed);
}

/* Opening an engine with var=value fails with a message naming var. */
static void assert_env_refused(const char *var, const char *value)
{
    setenv(var, value, 1);
    gs_engine *eng = NULL;
    gs_error err;
    cr_assert_eq(gs_gles_engine_create_opts(NULL, &eng, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, var) != NULL, "message names the variable: %s", err.msg);
    unsetenv(var);
}

Test(gles_buffers, round_trip_at_offsets)
{
    gs_engine *eng = tu_engine(NULL);
    const size_t n = 4099; /* not a power of two */
    uint32_t *src = tu_alloc(n * 4), *dst = tu_alloc(n * 4);
    uint64_t seed = 11;
    cr_log_info("seed %llu", (unsigned long long)seed);
    fill_random(src, n, seed);
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, n * 4, &b));
    TU_OK(eng, gs_buf_write(b, 0, src, n * 4));
    memset(dst, 0xA5, n * 4);
    TU_OK(eng, gs_buf_read(b, 0, dst, n * 4));
    cr_assert_arr_eq(src, dst, n * 4);
    /* Unaligned byte offsets and lengths. */
    const char msg[] = "glstark!";
    TU_OK(eng, gs_buf_write(b, 13, msg, 7));
    char back[7];
    TU_OK(eng, gs_buf_read(b, 13, back, 7));
    cr_assert_arr_eq(back, msg, 7);
    uint8_t edge[3];
    TU_OK(eng, gs_buf_read(b, n * 4 - 3, edge, 3));
    cr_assert_arr_eq(edge, (const uint8_t *)src + n * 4 - 3, 3);
    gs_buf_destroy(b);
    free(src);
    free(dst);
    gs_engine_destroy(eng);
}

/* A buffer a kernel just filled, overwritten whole by the host, then read
 * and written by kernels again, with no finish between: the trace upload's
 * pattern (a whole-buffer write of a mapped path was tried here and
 * measured slower on NVIDIA: docs/performance.md). */
Test(gles_buffers, whole_buffer_write_after_kernel)
{
    gs_engine *eng = tu_engine(NULL);
    const size_t n = (4u << 20) / 4 + 3; /* 4 MiB and a bit */
    uint32_t *src = tu_alloc(n * 4), *dst = tu_alloc(n * 4);
    uint64_t seed = 13;
    cr_log_info("seed %llu", (unsigned long long)seed);
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, n * 4, &b));
    for (int rep = 0; rep < 3; rep++) {
        fill_random(src, n, seed + (uint64_t)rep);
        TU_OK(eng, gs_buf_fill_u32(b, 0, n, 0xDEADBEEFu));
        TU_OK(eng, gs_buf_write(b, 0, src, n * 4));
        memset(dst, 0xA5, n * 4);
        TU_OK(eng, gs_buf_read(b, 0, dst, n * 4));
        cr_assert(memcmp(src, dst, n * 4) == 0, "rep %d: whole-buffer write lost", rep);
        /* and a kernel after the write sees the new bytes */
        TU_OK(eng, gs_gles_fill_pattern(eng, b, 7, 5, 100, 1));
        TU_OK(eng, gs_buf_read(b, 0, dst, 16 * 4));
        for (size_t i = 0; i < 16; i++)
            cr_assert_eq(dst[i], i >= 7 && i < 12 ? 100u + (uint32_t)(i - 7) : src[i], "rep %d word %zu", rep, i);
    }
    gs_buf_destroy(b);
    free(src);
    free(dst);
    gs_engine_destroy(eng);
}

Test(gles_buffers, copy_including_overlap)
{
    gs_engine *eng = tu_engine(NULL);
    const size_t n = 1000;
    uint32_t *src = tu_alloc(n * 4), *got = tu_alloc(n * 4), *want = tu_alloc(n * 4);
    fill_random(src, n, 12);
    gs_buf *a, *b;
    TU_OK(eng, gs_buf_create(eng, n * 4, &a));
    TU_OK(eng, gs_buf_create(eng, n * 4, &b));
    TU_OK(eng, gs_buf_write(a, 0, src, n * 4));
    TU_OK(eng, gs_buf_fill_u32(b, 0, n, 0xDEADBEEFu));
    TU_OK(eng, gs_buf_copy(b, 40, a, 8, 400));
    TU_OK(eng, gs_buf_read(b, 0, got, n * 4));
    for (size_t i = 0; i < n; i++)
        want[i] = 0xDEADBEEFu;
    memcpy((char *)want + 40, (char *)src + 8, 400);
    cr_assert_arr_eq(got, want, n * 4);
    /* Overlapping copy inside one buffer behaves like memmove. */
    TU_OK(eng, gs_buf_copy(a, 16, a, 0, 2000));
    TU_OK(eng, gs_buf_read(a, 0, got, n * 4));
    memcpy(want, src, n * 4);
    memmove((char *)want + 16, want, 2000);
    cr_assert_arr_eq(got, want, n * 4);
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    free(src);
    free(got);
    free(want);
    gs_engine_destroy(eng);
}

/* Both copy paths (GLSTARK_COPY=shader|gl|auto) against memmove on the
 * host: large word-aligned copies (the copy kernel's case, in pieces under a
 * 64 KiB binding limit), unaligned and small ones (always the driver's
 * copy), an overlapping one, between buffers and within one; the rest of
 * the destination stays poisoned. A bad GLSTARK_COPY value is refused. */
Test(gles_buffers, copy_paths_agree)
{
    const char *modes[] = {"shader", "gl", "auto"};
    const size_t n = 300000; /* words: 1.2 MB per buffer */
    uint32_t *src = tu_alloc(n * 4), *got = tu_alloc(n * 4), *want = tu_alloc(n * 4);
    uint64_t seed = 0xC09E01;
    cr_log_info("seed %llu", (unsigned long long)seed);
    fill_random(src, n, seed);
    static const struct {
        size_t doff, soff, bytes;
        int same; /* within the source buffer */
    } cases[] = {
        {0, 0, 4 * 300000, 0},        /* whole buffer */
        {4 * 1001, 4 * 77, 4 * 250001, 0}, /* odd word offsets, several 64 KiB pieces */
        {4 * 5, 4 * 9, 65536, 0},     /* exactly the kernel's minimum */
        {4 * 5, 4 * 9, 65532, 0},     /* just under it */
        {2, 4 * 3, 4 * 40000, 0},     /* unaligned destination: the driver's copy */
        {4 * 150000, 0, 4 * 100000, 1}, /* disjoint ranges of one buffer */
        {4 * 16, 0, 4 * 200000, 1},   /* overlapping: memmove */
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        setenv("GLSTARK_COPY", modes[m], 1);
        gs_engine *eng = tu_engine_binding(65536);
        const gs_gles_state *gs = eng->impl;
        if (strcmp(modes[m], "auto") != 0)
            cr_assert_eq(gs->shader_copy, !strcmp(modes[m], "shader"), "mode %s", modes[m]);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            gs_buf *a, *b;
            TU_OK(eng, gs_buf_create(eng, n * 4, &a));
            TU_OK(eng, gs_buf_create(eng, n * 4, &b));
            TU_OK(eng, gs_buf_write(a, 0, src, n * 4));
            TU_OK(eng, gs_buf_fill_u32(b, 0, n, 0xDEADBEEFu));
            gs_buf *dst = cases[c].same ? a : b;
            TU_OK(eng, gs_buf_copy(dst, cases[c].doff, a, cases[c].soff, cases[c].bytes));
            TU_OK(eng, gs_buf_read(dst, 0, got, n * 4));
            if (cases[c].same) {
                memcpy(want, src, n * 4);
            } else {
                for (size_t i = 0; i < n; i++)
                    want[i] = 0xDEADBEEFu;
            }
            memmove((char *)want + cases[c].doff, (const char *)src + cases[c].soff, cases[c].bytes);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(got[i], want[i], "mode %s case %zu: word %zu is %08x, want %08x", modes[m], c, i, got[i],
                             want[i]);
            gs_buf_destroy(a);
            gs_buf_destroy(b);
        }
        gs_engine_destroy(eng);
    }
    assert_env_refused("GLSTARK_COPY", "dma");
    free(src);
    free(got);
    free(want);
}

Test(gles_buffers, fill_partial_ranges)
{
    gs_engine *eng = tu_engine(NULL);
    const size_t n = 5000;
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, n * 4, &b));
    TU_OK(eng, gs_buf_fill_u32(b, 0, n, 7));
    TU_OK(eng, gs_buf_fill_u32(b, 4 * 3, 101, 9)); /* offset not a multiple of the binding alignment */
    uint32_t *got = tu_alloc(n * 4);
    TU_OK(eng, gs_buf_read(b, 0, got, n * 4));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(got[i], (i >= 3 && i < 104) ? 9u : 7u, "word %zu", i);
    cr_assert_eq(gs_buf_fill_u32(b, 2, 1, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(b);
    free(got);
    gs_engine_destroy(eng);
}

/* A buffer larger than the binding limit (lowered to 64 KiB so this runs
 * fast on llvmpipe): fills and field kernels must reach every element
 * through range bindings, including a tail that is not a whole chunk. */
Test(gles_buffers, larger_than_binding_limit_in_ranges)
{
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = 64 << 10;
    gs_engine *eng = tu_engine(&o);
    const gs_gl_caps *c = &gs_gles_device(eng)->caps;
    cr_assert_leq(c->max_binding_bytes, 64 << 10);
    const size_t n = (size_t)(4 * c->max_binding_bytes / 16) + 333; /* ext4 elements: > 4 bindings' worth */
    const size_t words = 4 * n;
    cr_log_info("binding limit %llu bytes, buffer %zu bytes", (unsigned long long)c->max_binding_bytes, words * 4);
    gs_buf *a, *b, *out;
    TU_OK(eng, gs_buf_create(eng, words * 4, &a));
    TU_OK(eng, gs_buf_create(eng, words * 4, &b));
    TU_OK(eng, gs_buf_create(eng, words * 4, &out));
    cr_assert_gt(a->size, c->max_binding_bytes);

    /* Fill across chunk boundaries, starting at an unaligned word. */
    uint32_t *got = tu_alloc(words * 4);
    TU_OK(eng, gs_buf_fill_u32(out, 0, words, 0xDEADBEEFu));
    TU_OK(eng, gs_buf_fill_u32(out, 4 * 5, words - 9, 0x12345678u));
    TU_OK(eng, gs_buf_read(out, 0, got, words * 4));
    for (size_t i = 0; i < words; i++)
        cr_assert_eq(got[i], (i >= 5 && i < words - 4) ? 0x12345678u : 0xDEADBEEFu, "fill word %zu", i);

    /* Extension multiply over the whole buffer, chunked. */
    uint64_t seed = 0xC4A11;
    cr_log_info("seed %llu", (unsigned long long)seed);
    uint32_t *ha = tu_alloc(words * 4), *hb = tu_alloc(words * 4), *want = tu_alloc(words * 4);
    for (size_t i = 0; i < words; i++) {
        ha[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
        hb[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    }
    TU_OK(eng, gs_buf_write(a, 0, ha, words * 4));
    TU_OK(eng, gs_buf_write(b, 0, hb, words * 4));
    TU_OK(eng, gs_buf_fill_u32(out, 0, words, 0xDEADBEEFu));
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP4_MUL, a, b, out, n, 0));
    TU_OK(eng, gs_buf_read(out, 0, got, words * 4));
    gs_field_batch_cpu(GS_FOP4_MUL, ha, hb, want, n, 0);
    for (size_t i = 0; i < words; i++)
        cr_assert_eq(got[i], want[i], "ext4 mul word %zu (element %zu)", i, i / 4);
    /* Base-field op on the same buffers: 4x the elements per byte. */
    TU_OK(eng, gs_buf_fill_u32(out, 0, words, 0xDEADBEEFu));
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP_MUL, a, b, out, words, 0));
    TU_OK(eng, gs_buf_read(out, 0, got, words * 4));
    gs_field_batch_cpu(GS_FOP_MUL, ha, hb, want, words, 0);
    cr_assert_arr_eq(got, want, words * 4);
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    gs_buf_destroy(out);
    free(got);
    free(ha);
    free(hb);
    free(want);
    gs_engine_destroy(eng);
}

/* Canonical uploads (the trace path): GLES converts on the GPU, the CPU
 * engine on the host; both must hold bb_from_canonical of every value,
 * leave the words around the range alone, and split ranges larger than a
 * (lowered) binding. */
Test(gles_buffers, canonical_write_matches_cpu_engine)
{
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = 64 << 10;
    gs_engine *g = tu_engine(&o), *c;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &c, &err), GLSTARK_OK);
    uint64_t seed = 0xCA0001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    const size_t words = 3 * (64 << 10) / 4 + 1001; /* three bindings and a ragged tail */
    uint32_t *src = tu_alloc(words * 4), *got = tu_alloc(words * 4), *cgot = tu_alloc(words * 4);
    for (size_t i = 0; i < words; i++) {
        uint64_t r = splitmix64(&seed);
        src[i] = (r & 7) == 0 ? 0 : (r & 7) == 1 ? 1 : (r & 7) == 2 ? BB_P - 1 : (uint32_t)((r >> 8) % BB_P);
    }
    /* (first word, count): whole, unaligned start, a single word, empty */
    const size_t cases[][2] = {{0, words}, {7, words - 7 - 3}, {words - 1, 1}, {5, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t first = cases[k][0], count = cases[k][1];
        gs_buf *gb, *cb;
        TU_OK(g, gs_buf_create(g, words * 4, &gb));
        cr_assert_eq(gs_buf_create(c, words * 4, &cb), GLSTARK_OK);
        TU_OK(g, gs_buf_fill_u32(gb, 0, words, 0xDEADBEEFu));
        cr_assert_eq(gs_buf_fill_u32(cb, 0, words, 0xDEADBEEFu), GLSTARK_OK);
        TU_OK(g, gs_buf_write_canonical(gb, first * 4, src + first, count));
        cr_assert_eq(gs_buf_write_canonical(cb, first * 4, src + first, count), GLSTARK_OK);
        TU_OK(g, gs_buf_read(gb, 0, got, words * 4));
        cr_assert_eq(gs_buf_read(cb, 0, cgot, words * 4), GLSTARK_OK);
        for (size_t i = 0; i < words; i++) {
            uint32_t want = i >= first && i < first + count ? bb_from_canonical(src[i]) : 0xDEADBEEFu;
            cr_assert_eq(got[i], want, "case %zu: GLES word %zu: %08x, want %08x", k, i, got[i], want);
            cr_assert_eq(cgot[i], want, "case %zu: CPU word %zu: %08x, want %08x", k, i, cgot[i], want);
        }
        gs_buf_destroy(gb);
        gs_buf_destroy(cb);
    }
    /* arguments: past the end, unaligned byte offset */
    gs_buf *gb;
    TU_OK(g, gs_buf_create(g, 64, &gb));
    cr_assert_eq(gs_buf_write_canonical(gb, 4, src, 16), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_buf_write_canonical(gb, 2, src, 1), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strlen(g->err.msg) > 0);
    gs_buf_destroy(gb);
    free(src);
    free(got);
    free(cgot);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* A canonical write checks every value as it copies it: a word >= p is
 * refused on both engines and both upload paths, naming the first bad index
 * (a word of every ring slot is checked, so positions cover the first and
 * a later batch of slots, a slot's last word, the small-write path and two
 * bad words at once), and good values around a refusal never make one. */
Test(gles_buffers, canonical_write_refuses_values_not_below_p)
{
    const char *modes[] = {"ring", "packed", "subdata", "staged"};
    const size_t nmodes = sizeof modes / sizeof modes[0];
    const size_t big = (GS_UPLOAD_BATCH + 2) * GS_UPLOAD_SLOT_BYTES / 4 + 333; /* over one batch of either slot size */
    const size_t small = 1000;                                                  /* the appended small path */
    uint32_t *src = tu_alloc(big * 4);
    uint64_t seed = 0xBAD0001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (size_t i = 0; i < big; i++)
        src[i] = (uint32_t)(splitmix64(&seed) % BB_P);
    src[big / 2] = BB_P - 1; /* the largest good value */
    /* one engine at a time: a GL context is current on one thread */
    for (size_t e = 0; e <= nmodes; e++) {
        gs_engine *eng;
        gs_error err;
        if (e < nmodes) {
            setenv("GLSTARK_UPLOAD", modes[e], 1);
            eng = tu_engine(NULL);
            unsetenv("GLSTARK_UPLOAD");
        } else {
            cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK);
        }
        /* positions by the engine's ring slots (the CPU engine has none) */
        const size_t slot_words =
            (e < nmodes ? ((const gs_gles_state *)eng->impl)->upload.slot_bytes : GS_UPLOAD_SLOT_BYTES_SMALL) / 4;
        /* (length, bad index, second bad index or 0, bad value) */
        const struct {
            size_t n, bad, bad2;
            uint32_t v;
        } cases[] = {
            {big, 0, 0, BB_P},
            {big, big - 1, 0, 0xFFFFFFFFu},
            {big, slot_words - 1, 0, BB_P + 1},
            {big, (GS_UPLOAD_BATCH + 1) * slot_words + 5, 0, BB_P},
            {big, 3 * slot_words + 17, 2 * slot_words + 9, 0x80000000u},
            {small, 999, 0, BB_P},
            {small, 3, 500, BB_P},
        };
        gs_buf *b;
        TU_OK(eng, gs_buf_create(eng, big * 4, &b));
        TU_OK(eng, gs_buf_write_canonical(b, 0, src, big)); /* all good: accepted */
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const size_t first = cases[k].bad2 && cases[k].bad2 < cases[k].bad ? cases[k].bad2 : cases[k].bad;
            uint32_t keep = src[cases[k].bad], keep2 = src[cases[k].bad2];
            src[cases[k].bad] = cases[k].v;
            if (cases[k].bad2)
                src[cases[k].bad2] = cases[k].v;
            glstark_status st = gs_buf_write_canonical(b, 0, src, cases[k].n);
            char want[64];
            snprintf(want, sizeof want, "at index %zu is not below p", first);
            cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "%s, case %zu: status %d", eng->core->name, k, (int)st);
            cr_assert(strstr(eng->err.msg, want), "%s, case %zu: '%s' lacks '%s'", eng->core->name, k, eng->err.msg,
                      want);
            src[cases[k].bad] = keep;
            src[cases[k].bad2] = keep2;
        }
        TU_OK(eng, gs_buf_write_canonical(b, 0, src, big)); /* good again: accepted */
        gs_buf_destroy(b);
        gs_engine_destroy(eng);
    }
    free(src);
}

/* Every readback path returns the same bytes: reads at odd offsets and
 * lengths, reads that grow the staging buffer, reads above the staging
 * limit (which map the source), and reads right after a kernel wrote the
 * buffer (the barrier and the fence/map must order them). */
Test(gles_buffers, readback_paths_agree)
{
    const glstark_readback modes[] = {GLSTARK_READBACK_PERSISTENT, GLSTARK_READBACK_STAGING, GLSTARK_READBACK_MAP,
                                      GLSTARK_READBACK_AUTO};
    const size_t words = GS_READBACK_STAGING_MAX / 4 + 4097; /* just above the staging limit */
    uint32_t *src = tu_alloc(words * 4), *got = tu_alloc(words * 4);
    uint64_t seed = 0x4EAD0001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    fill_random(src, words, seed);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        gs_device_config o;
        o = tu_config();
        o.readback = modes[m];
        gs_engine *eng = tu_engine(&o);
        const gs_gl_device *dev = gs_gles_device(eng);
        cr_assert_neq(dev->caps.readback, GLSTARK_READBACK_AUTO, "the mode is resolved at open");
        if (modes[m] != GLSTARK_READBACK_AUTO && (modes[m] != GLSTARK_READBACK_PERSISTENT || dev->caps.persistent_map))
            cr_assert_eq(dev->caps.readback, modes[m]);
        gs_buf *b;
        TU_OK(eng, gs_buf_create(eng, words * 4, &b));
        TU_OK(eng, gs_buf_write(b, 0, src, words * 4));
        /* (byte offset, length): tiny, odd, growing, above the limit */
        const size_t reads[][2] = {{0, 4}, {13, 7}, {4096 + 3, 65536 + 5}, {100, 1u << 20}, {8, words * 4 - 8}};
        for (size_t r = 0; r < sizeof reads / sizeof reads[0]; r++) {
            memset(got, 0xA5, reads[r][1]);
            TU_OK(eng, gs_buf_read(b, reads[r][0], got, reads[r][1]));
            cr_assert(memcmp(got, (const char *)src + reads[r][0], reads[r][1]) == 0,
                      "mode %d: read of %zu bytes at %zu differs", (int)modes[m], reads[r][1], reads[r][0]);
        }
        /* a kernel write, then a read with no finish in between */
        for (int rep = 0; rep < 3; rep++) {
            TU_OK(eng, gs_gles_fill_pattern(eng, b, 1000, 5000, 0x1000u * (uint32_t)rep, 1));
            TU_OK(eng, gs_buf_read(b, 4000, got, 5000 * 4));
            for (size_t i = 0; i < 5000; i++)
                cr_assert_eq(got[i], 0x1000u * (uint32_t)rep + (uint32_t)i, "mode %d rep %d: word %zu", (int)modes[m],
                             rep, i);
        }
        cr_log_info("readback mode %d (resolved %d): ok", (int)modes[m], (int)dev->caps.readback);
        gs_buf_destroy(b);
        gs_engine_destroy(eng);
    }
    free(src);
    free(got);
}

/* Every write path (upload.h): a write larger than the whole ring at an odd
 * offset, a second one refilling slots (or staging pieces) the GPU may still
 * be copying from, a kernel write in between, and a bad GLSTARK_UPLOAD value
 * refused. subdata is direct only on software renderers. */
Test(gles_buffers, upload_paths_agree)
{
    const char *modes[] = {"ring", "packed", "subdata", "staged", "auto"};
    const size_t bytes = (GS_UPLOAD_SLOTS + 1) * GS_UPLOAD_SLOT_BYTES + 12345; /* over the ring of either slot size */
    const size_t words = bytes / 4 + 8;
    uint32_t *src = tu_alloc(bytes), *src2 = tu_alloc(bytes), *got = tu_alloc(words * 4);
    uint64_t seed = 0x0B10AD01;
    cr_log_info("seed %llu", (unsigned long long)seed);
    fill_random(src, bytes / 4, seed);
    fill_random(src2, bytes / 4, seed + 1);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        setenv("GLSTARK_UPLOAD", modes[m], 1);
        gs_engine *eng = tu_engine(NULL);
        const gs_gles_state *gs = eng->impl;
        if (!strcmp(modes[m], "subdata"))
            cr_assert_eq(gs->upload.mode, gs_gles_device(eng)->is_software ? GS_UPLOAD_SUBDATA : GS_UPLOAD_STAGED);
        else if (!strcmp(modes[m], "staged"))
            cr_assert_eq(gs->upload.mode, GS_UPLOAD_STAGED);
        else if (!strcmp(modes[m], "ring") && gs_gles_device(eng)->BufferStorage)
            cr_assert_eq(gs->upload.mode, GS_UPLOAD_RING);
        /* what glstark_device_limits reports */
        cr_assert_eq(gs_gles_device(eng)->caps.upload_ring, gs->upload.mode == GS_UPLOAD_RING, "mode %s", modes[m]);
        cr_assert_eq(gs_gles_device(eng)->caps.upload_staged, gs->upload.mode == GS_UPLOAD_STAGED, "mode %s", modes[m]);
        cr_assert_eq(gs_gles_device(eng)->caps.upload_packed, gs->upload.packed, "mode %s", modes[m]);
        if (!strcmp(modes[m], "ring") || gs->upload.mode != GS_UPLOAD_RING)
            cr_assert_eq(gs->upload.packed, 0, "mode %s packs", modes[m]);
        else if (!strcmp(modes[m], "packed"))
            cr_assert_eq(gs->upload.packed, 1, "mode packed does not pack");
        else /* auto: packed where the GPU's memory is its own */
            cr_assert_eq(gs->upload.packed, gs_gles_device(eng)->caps.desktop_class && !gs_gles_device(eng)->is_software);
        gs_buf *b;
        TU_OK(eng, gs_buf_create(eng, words * 4, &b));
        TU_OK(eng, gs_buf_fill_u32(b, 0, words, 0xDEADBEEFu));
        uint64_t syncs0 = eng->host_syncs, uwaits0 = eng->upload_waits, waits0 = gs->upload.waits;
        TU_OK(eng, gs_buf_write(b, 3, src, bytes - 3));
        TU_OK(eng, gs_gles_fill_pattern(eng, b, 7, 1000, 77, 1)); /* shader write over part of it */
        TU_OK(eng, gs_buf_write(b, 4 * 2000 + 1, src2, bytes - 4 * 2000 - 1));
        /* every wait for a ring slot is an upload wait of the engine's count, not a host sync */
        cr_assert_eq(eng->host_syncs, syncs0, "mode %s: %llu host syncs", modes[m],
                     (unsigned long long)(eng->host_syncs - syncs0));
        cr_assert_eq(eng->upload_waits - uwaits0, gs->upload.waits - waits0, "mode %s: %llu upload waits for %llu ring waits",
                     modes[m], (unsigned long long)(eng->upload_waits - uwaits0),
                     (unsigned long long)(gs->upload.waits - waits0));
        TU_OK(eng, gs_buf_read(b, 0, got, words * 4));
        const uint8_t *g8 = (const uint8_t *)got;
        const uint8_t before[3] = {0xEF, 0xBE, 0xAD}; /* 0xDEADBEEF, little-endian */
        cr_assert(memcmp(g8, before, 3) == 0, "mode %s: the bytes before the write changed", modes[m]);
        for (size_t w = 7; w < 1007; w++)
            cr_assert_eq(got[w], 77u + (uint32_t)(w - 7), "mode %s: kernel word %zu", modes[m], w);
        cr_assert(memcmp(g8 + 4 * 1007, (const uint8_t *)src + 4 * 1007 - 3, 4 * 2000 + 1 - 4 * 1007) == 0,
                  "mode %s: first write between the kernel range and the second write", modes[m]);
        cr_assert(memcmp(g8 + 4 * 2000 + 1, src2, bytes - 4 * 2000 - 1) == 0, "mode %s: second write differs",
                  modes[m]);
        /* writes between a small slot and GS_UPLOAD_RING_MIN (whole slots
         * where the slots are small), and a small one after them */
        const size_t mid = 3 * GS_UPLOAD_SLOT_BYTES_SMALL / 2 + 5;
        TU_OK(eng, gs_buf_write(b, 4 * 5000 + 2, src + 11, mid));
        TU_OK(eng, gs_buf_write(b, 4 * 5000 + 2 + mid, src2 + 17, 4099));
        TU_OK(eng, gs_buf_read(b, 0, got, words * 4));
        cr_assert(memcmp(g8 + 4 * 5000 + 2, src + 11, mid) == 0, "mode %s: a write of %zu bytes differs", modes[m], mid);
        cr_assert(memcmp(g8 + 4 * 5000 + 2 + mid, src2 + 17, 4099) == 0, "mode %s: the small write after it differs",
                  modes[m]);
        const size_t after = 4 * 5000 + 2 + mid + 4099;
        cr_assert(memcmp(g8 + after, (const uint8_t *)src2 + after - (4 * 2000 + 1), 256) == 0,
                  "mode %s: the bytes after the small write changed", modes[m]);
        cr_log_info("upload mode %s: resolved %s, %llu slot waits", modes[m], gs_gles_upload_name(gs->upload.mode),
                    (unsigned long long)gs->upload.waits);
        gs_buf_destroy(b);
        gs_engine_destroy(eng);
    }
    assert_env_refused("GLSTARK_UPLOAD", "pinned");
    free(src);
    free(src2);
    free(got);
}

/* The narrow packing's host half (upload_pack.h) against its definition:
 * every width at lengths around a packed word, random values below 2^width
 * (and the width's largest value), each unpacked value equal to its source,
 * the unused bits of the last word zero; the width chosen at each boundary. */
Test(gles_buffers, narrow_packing_round_trips)
{
    static const unsigned widths[] = {1, 8, 16, 32};
    static const size_t lens[] = {0, 1, 2, 15, 31, 32, 33, 63, 64, 65, 1000, 4099};
    uint64_t seed = 0x9AC4ED;
    cr_log_info("seed %llu", (unsigned long long)seed);
    uint32_t src[4099], packed[4099 + 1];
    for (size_t w = 0; w < 4; w++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            const size_t n = lens[l];
            const uint32_t top = widths[w] == 32 ? BB_P - 1 : (uint32_t)((1ull << widths[w]) - 1);
            for (size_t i = 0; i < n; i++)
                src[i] = i % 7 == 3 ? top : (uint32_t)(splitmix64(&seed) % ((uint64_t)top + 1));
            const size_t pw = gs_packed_words(n, widths[w]);
            packed[pw] = 0xDEADBEEFu; /* the word past the end stays */
            gs_pack_words(packed, src, n, widths[w]);
            cr_assert_eq(packed[pw], 0xDEADBEEFu, "width %u, %zu values: wrote past %zu words", widths[w], n, pw);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(gs_unpack_word(packed, i, widths[w]), src[i], "width %u, %zu values: value %zu", widths[w],
                             n, i);
            const size_t used = n * widths[w] % 32;
            if (used && widths[w] < 32)
                cr_assert_eq(packed[pw - 1] >> used, 0u, "width %u, %zu values: the last word's unused bits", widths[w], n);
            cr_assert_eq(gs_words_or(src, n) <= (widths[w] == 32 ? 0xFFFFFFFFu : top), 1);
        }
    const struct {
        uint32_t max;
        unsigned width;
    } bounds[] = {{0, 1}, {1, 1}, {2, 8}, {255, 8}, {256, 16}, {65535, 16}, {65536, 32}, {BB_P - 1, 32}};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        cr_assert_eq(gs_pack_width(bounds[i].max), bounds[i].width, "largest value %u", bounds[i].max);
}

/* Canonical writes packed narrow (GLSTARK_UPLOAD=packed), with the device's
 * bindings and with bindings of two slots (each batch widened in groups):
 * one write of
 * slot-sized stretches whose largest values take each width (bits, the
 * width boundaries, zeros, full words) and an odd tail, at an unaligned
 * word offset into a poisoned buffer, written twice so the second refills
 * slots the first used; read back in Montgomery form and compared with the
 * host's conversion of the source. The packed-bytes count says which
 * stretches crossed narrow. Then a value >= p inside a narrow stretch is
 * refused with its index, and a small write (not packed) converted too. */
static void packed_writes_agree(gs_engine *eng)
{
    const gs_gles_state *gs = eng->impl;
    cr_assert_eq(gs->upload.mode, GS_UPLOAD_RING);
    cr_assert_eq(gs->upload.packed, 1);
    const size_t sw = gs->upload.slot_bytes / 4;
    /* stretch k's values lie in [0, tops[k]]; its largest is tops[k] */
    static const uint32_t tops[] = {1, 0, 255, 256, 65535, 65536, 2, BB_P - 1, 1, 7, 40000, 1,
                                    1, 1, 1, 1, 1, 1, 1, 1, 255, 1, 65535, 1};
    const size_t nstretch = sizeof tops / sizeof tops[0]; /* over the ring: slots are reused */
    const size_t n = nstretch * sw + 777, lead = 3;
    uint32_t *src = tu_alloc(n * 4), *got = tu_alloc((n + 2 * lead) * 4);
    uint64_t seed = 0x9AC4EE;
    cr_log_info("seed %llu, %zu-word slots", (unsigned long long)seed, sw);
    size_t want_packed = 0;
    for (size_t k = 0; k <= nstretch; k++) {
        const size_t a = k * sw, m = k < nstretch ? sw : n - a;
        const uint32_t top = k < nstretch ? tops[k] : 1; /* the tail: bits */
        for (size_t i = 0; i < m; i++)
            src[a + i] = top ? (uint32_t)(splitmix64(&seed) % ((uint64_t)top + 1)) : 0;
        src[a + m / 2] = top;
        want_packed += gs_packed_words(m, gs_pack_width(top)) * 4;
    }
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, (n + 2 * lead) * 4, &b));
    for (int pass = 0; pass < 2; pass++) {
        TU_OK(eng, gs_buf_fill_u32(b, 0, n + 2 * lead, 0xDEADBEEFu));
        const uint64_t bytes0 = gs->upload.packed_bytes;
        TU_OK(eng, gs_buf_write_canonical(b, lead * 4, src, n));
        cr_assert_eq(gs->upload.packed_bytes - bytes0, want_packed, "pass %d: %llu bytes sent packed, want %zu",
                     pass, (unsigned long long)(gs->upload.packed_bytes - bytes0), want_packed);
        TU_OK(eng, gs_buf_read(b, 0, got, (n + 2 * lead) * 4));
        for (size_t i = 0; i < lead; i++) {
            cr_assert_eq(got[i], 0xDEADBEEFu, "pass %d: word %zu before the write", pass, i);
            cr_assert_eq(got[lead + n + i], 0xDEADBEEFu, "pass %d: word %zu after the write", pass, i);
        }
        for (size_t i = 0; i < n; i++)
            if (got[lead + i] != bb_from_canonical(src[i]))
                cr_assert_fail("pass %d: value %zu (stretch %zu, source %u): got %u, want %u", pass, i, i / sw, src[i],
                               got[lead + i], bb_from_canonical(src[i]));
    }
    /* a bad value in a stretch of bits, and in the tail */
    const size_t bads[] = {12 * sw + 5, n - 1};
    for (size_t k = 0; k < 2; k++) {
        const uint32_t keep = src[bads[k]];
        src[bads[k]] = BB_P;
        glstark_status st = gs_buf_write_canonical(b, lead * 4, src, n);
        cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "bad value at %zu: status %d", bads[k], (int)st);
        char want[64];
        snprintf(want, sizeof want, "at index %zu is not below p", bads[k]);
        cr_assert(strstr(eng->err.msg, want), "message names the index %zu: %s", bads[k], eng->err.msg);
        src[bads[k]] = keep;
        gs_error_clear(&eng->err);
    }
    TU_OK(eng, gs_buf_write_canonical(b, lead * 4, src, n)); /* good again */
    TU_OK(eng, gs_buf_read(b, lead * 4, got, n * 4));
    for (size_t i = 0; i < n; i += 997)
        cr_assert_eq(got[i], bb_from_canonical(src[i]), "after the refusals: value %zu", i);
    /* a write below the ring's pieces takes the small path, converted after it */
    const uint64_t words0 = gs->upload.packed_words;
    TU_OK(eng, gs_buf_write_canonical(b, 5 * 4, src + 7 * sw - 500, 1000));
    cr_assert_eq(gs->upload.packed_words, words0, "a small write is not packed");
    TU_OK(eng, gs_buf_read(b, 5 * 4, got, 1000 * 4));
    for (size_t i = 0; i < 1000; i++)
        cr_assert_eq(got[i], bb_from_canonical(src[7 * sw - 500 + i]), "small write: value %zu", i);
    gs_buf_destroy(b);
    free(src);
    free(got);
}

Test(gles_buffers, packed_canonical_writes_agree)
{
    gs_device_config cfg = tu_config();
    cfg.upload = GS_UPLOAD_CHOICE_PACKED;
    gs_engine *eng = tu_engine(&cfg);
    if (!gs_gles_device(eng)->BufferStorage) {
        cr_log_warn("no GL_EXT_buffer_storage: no ring, nothing packed");
        gs_engine_destroy(eng);
        return;
    }
    /* the second pass of each run starts mid-ring, so a batch wraps */
    packed_writes_agree(eng);
    const size_t align = gs_gles_device(eng)->caps.binding_offset_align;
    gs_engine_destroy(eng);
    /* bindings of two slots: each batch is widened two slots at a time (so
     * small a limit makes any device not desktop-class: its slots are small) */
    const size_t slot = GS_UPLOAD_SLOT_BYTES_SMALL;
    cfg.max_binding_bytes = 2 * slot + align;
    eng = tu_engine(&cfg);
    cr_assert_eq(((const gs_gles_state *)eng->impl)->upload.slot_bytes, slot);
    packed_writes_agree(eng);
    gs_engine_destroy(eng);
    /* bindings below a slot and its alignment: no packing, the ring copies */
    cfg.max_binding_bytes = slot;
    eng = tu_engine(&cfg);
    cr_assert_eq(((const gs_gles_state *)eng->impl)->upload.packed, 0, "packed with %zu-byte bindings", slot);
    cr_assert_eq(gs_gles_device(eng)->caps.upload_packed, 0);
    gs_engine_destroy(eng);
}

/* gs_buf_copy_strided (and its packed case gs_buf_gather) against its
 * definition (a host loop), at odd word offsets, source strides below, equal
 * to and above the item, packed and spread destinations, with the default and
 * a 64 KiB binding limit (runs of items per binding; an item wider than a
 * binding goes through per-item copies); every destination word outside the
 * items keeps its poison. */
Test(gles_buffers, strided_copy_matches_definition)
{
    const uint64_t limits[] = {0, 64 << 10};
    const size_t shapes[][4] = {/* item, source stride, destination stride (0: packed), count */
                                {4, 4096, 0, 2633}, {1, 3, 0, 10001}, {4, 4, 0, 777},       {3, 2, 0, 500},
                                {20000, 20011, 0, 3}, {7, 0, 0, 9},   {64, 64, 4096, 42}, {5, 9, 6, 3001}};
    uint64_t seed = 0x6A7E0001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (size_t li = 0; li < 2; li++) {
        gs_device_config o;
        o = tu_config();
        o.max_binding_bytes = limits[li];
        gs_engine *eng = tu_engine(&o);
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            size_t item = shapes[si][0], stride = shapes[si][1], count = shapes[si][3];
            size_t dstride = shapes[si][2] ? shapes[si][2] : item;
            size_t src_word = 5 + si, dst_word = 3;
            size_t src_words = src_word + (count - 1) * stride + item + 2;
            size_t dst_words = dst_word + (count - 1) * dstride + item + 4;
            uint32_t *src = tu_alloc(src_words * 4), *got = tu_alloc(dst_words * 4);
            fill_random(src, src_words, seed + si);
            gs_buf *a, *b;
            TU_OK(eng, gs_buf_create(eng, src_words * 4, &a));
            TU_OK(eng, gs_buf_create(eng, dst_words * 4, &b));
            TU_OK(eng, gs_buf_write(a, 0, src, src_words * 4));
            TU_OK(eng, gs_buf_fill_u32(b, 0, dst_words, 0xDEADBEEFu));
            if (shapes[si][2])
                TU_OK(eng, gs_buf_copy_strided(b, dst_word, dstride, a, src_word, stride, item, count));
            else
                TU_OK(eng, gs_buf_gather(b, dst_word, a, src_word, item, stride, count));
            TU_OK(eng, gs_buf_read(b, 0, got, dst_words * 4));
            for (size_t w = 0; w < dst_words; w++) {
                uint32_t want = 0xDEADBEEFu;
                if (w >= dst_word && (w - dst_word) / dstride < count && (w - dst_word) % dstride < item) {
                    size_t k = (w - dst_word) / dstride, j = (w - dst_word) % dstride;
                    want = src[src_word + k * stride + j];
                }
                cr_assert_eq(got[w], want, "limit %llu shape %zu (item %zu stride %zu count %zu): word %zu",
                             (unsigned long long)limits[li], si, item, stride, count, w);
            }
            gs_buf_destroy(a);
            gs_buf_destroy(b);
            free(src);
            free(got);
        }
        /* a source span past the end is refused before any work */
        gs_buf *a, *b;
        TU_OK(eng, gs_buf_create(eng, 4096, &a));
        TU_OK(eng, gs_buf_create(eng, 4096, &b));
        cr_assert_eq(gs_buf_gather(b, 0, a, 0, 4, 400, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "strided copy (source)") != NULL, "%s", eng->err.msg);
        /* overlapping destination items, and source and destination overlapping in one buffer */
        cr_assert_eq(gs_buf_copy_strided(b, 0, 2, a, 0, 8, 4, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert_eq(gs_buf_copy_strided(a, 8, 8, a, 0, 8, 4, 4), GLSTARK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(eng->err.msg, "overlap") != NULL, "%s", eng->err.msg);
        gs_buf_destroy(a);
        gs_buf_destroy(b);
        gs_engine_destroy(eng);
    }
}

/* Alternating allocations of 1/10 to 1 times `big` under a cap of 1.1 big:
 * each succeeds or fails with DEVICE_MEMORY, and the engine's held bytes
 * (live + pooled) never pass the cap (each step checked). */
static void cap_steps_hold(gs_engine *eng, size_t big, size_t cap)
{
    const size_t steps[] = {big, big * 15 / 100, big * 9 / 10, big / 2, big, big * 3 / 10};
    gs_buf *live[2] = {NULL, NULL};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        gs_buf_destroy(live[k % 2]);
        live[k % 2] = NULL;
        glstark_status st = gs_buf_create(eng, steps[k], &live[k % 2]);
        cr_assert(st == GLSTARK_OK || st == GLSTARK_ERR_DEVICE_MEMORY, "step %zu: %s", k, eng->err.msg);
        cr_assert_leq(eng->bytes_live + eng->bytes_pooled, cap, "step %zu: held %zu + %zu bytes, cap %zu", k,
                      eng->bytes_live, eng->bytes_pooled, cap);
    }
    gs_buf_destroy(live[0]);
    gs_buf_destroy(live[1]);
}

/* The buffer pool: a freed buffer serves the next request it fits with at
 * most a quarter of slack (not a much smaller one), comes back poisoned under
 * GLSTARK_POOL_POISON, and a request the pool cannot serve first releases
 * pooled buffers so held bytes stay within the high-water mark.
 * GLSTARK_POOL=0 deletes on free. */
Test(gles_buffers, pool_reuses_within_slack_and_bounds_the_footprint)
{
    setenv("GLSTARK_POOL_POISON", "1", 1);
    setenv("GLSTARK_POOL", "bounded", 1); /* (desktop-class GPUs default to reuse) */
    gs_engine *eng = tu_engine(NULL);
    const gs_gles_state *gs = eng->impl;
    cr_assert(gs->pool.on && gs->pool.poison);
    const size_t big = (size_t)1 << 20;
    gs_buf *a, *b, *c;
    TU_OK(eng, gs_buf_create(eng, big, &a));
    uint32_t name = a->gl_name;
    uint32_t *host = tu_alloc(big);
    for (size_t i = 0; i < big / 4; i++)
        host[i] = (uint32_t)i;
    TU_OK(eng, gs_buf_write(a, 0, host, big));
    gs_buf_destroy(a);
    cr_assert_eq(eng->bytes_live, 0);
    cr_assert_eq(eng->bytes_pooled, big);
    /* a request an eighth smaller still fits (slack <= a quarter of it); the old contents are poisoned */
    TU_OK(eng, gs_buf_create(eng, big - big / 8, &b));
    cr_assert_eq(b->gl_name, name, "the pooled buffer is reused");
    cr_assert_eq(b->capacity, big);
    cr_assert_eq(eng->bytes_pooled, 0);
    cr_assert_eq(eng->bytes_live, big, "live bytes count the capacity");
    TU_OK(eng, gs_buf_read(b, 0, host, big - big / 8));
    for (size_t i = 0; i < (big - big / 8) / 4; i++)
        cr_assert_eq(host[i], 0xDEADBEEFu, "word %zu of a reused buffer is not poisoned", i);
    gs_buf_destroy(b);
    /* a much smaller request does not take it, and since the held bytes
     * (1 MiB pooled + the request) would pass the high-water mark (1 MiB),
     * the pooled buffer is released first */
    TU_OK(eng, gs_buf_create(eng, big / 2, &c)); /* (GL may give the released name to the new buffer) */
    cr_assert_eq(c->capacity, big / 2);
    cr_assert_eq(eng->bytes_pooled, 0);
    cr_assert_eq(eng->bytes_peak, big, "held bytes stayed within the mark");
    gs_buf_destroy(c);
    cr_assert_eq(gs->pool.hits, 1);
    cr_assert_eq(gs->pool.misses, 2);
    /* a request above everything: a genuine new mark, the pool emptied */
    gs_buf *d;
    TU_OK(eng, gs_buf_create(eng, big + big / 2, &d));
    cr_assert_eq(eng->bytes_pooled, 0);
    cr_assert_eq(eng->bytes_peak, big + big / 2);
    gs_buf_destroy(d);
    /* a full pool keeps the larger buffers: fill it with small ones, then
     * free a large one; the smallest pooled buffer makes room for it */
    static gs_buf *smalls[GS_GLES_POOL_MAX];
    for (unsigned i = 0; i < GS_GLES_POOL_MAX; i++)
        TU_OK(eng, gs_buf_create(eng, 4096 + 4 * (size_t)i, &smalls[i]));
    TU_OK(eng, gs_buf_create(eng, 2 * big, &d));
    uint32_t big_name = d->gl_name;
    for (unsigned i = 0; i < GS_GLES_POOL_MAX; i++)
        gs_buf_destroy(smalls[i]);
    cr_assert_eq(gs->pool.n, GS_GLES_POOL_MAX);
    size_t pooled_before = eng->bytes_pooled;
    gs_buf_destroy(d);
    cr_assert_eq(gs->pool.n, GS_GLES_POOL_MAX);
    cr_assert_eq(eng->bytes_pooled, pooled_before - 4096 + 2 * big, "the 4096-byte buffer left for the large one");
    uint64_t hits = gs->pool.hits;
    TU_OK(eng, gs_buf_create(eng, 2 * big, &d));
    cr_assert_eq(d->gl_name, big_name, "the large buffer is reused");
    cr_assert_eq(gs->pool.hits, hits + 1);
    gs_buf_destroy(d);
    /* a buffer smaller than everything pooled is deleted instead */
    TU_OK(eng, gs_buf_create(eng, 64, &d));
    pooled_before = eng->bytes_pooled;
    gs_buf_destroy(d);
    cr_assert_eq(eng->bytes_pooled, pooled_before);
    gs_engine_destroy(eng);
    /* under a memory cap the pool never makes the engine hold more than the
     * cap: held bytes stay within the high-water mark, which live bytes
     * alone reached (each step checked) */
    gs_device_config o;
    o = tu_config();
    const size_t cap = big + big / 10;
    o.device_memory_cap = cap;
    eng = tu_engine(&o);
    cap_steps_hold(eng, big, cap);
    gs_engine_destroy(eng);
    /* switched off: freed buffers are deleted */
    setenv("GLSTARK_POOL", "0", 1);
    eng = tu_engine(NULL);
    TU_OK(eng, gs_buf_create(eng, big, &a));
    gs_buf_destroy(a);
    cr_assert_eq(eng->bytes_pooled, 0);
    TU_OK(eng, gs_buf_create(eng, big, &a));
    cr_assert_eq(((const gs_gles_state *)eng->impl)->pool.hits, 0);
    gs_buf_destroy(a);
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_POOL");
    free(host);
}

/* GLSTARK_POOL=reuse: a request that would grow the footprint takes the
 * smallest larger kept buffer; with room under the high-water mark it
 * allocates instead (the large buffer stays for a large request).
 * Allocations anew are counted. Under a memory cap it acts as bounded. */
Test(gles_buffers, pool_reuse_takes_larger_buffers_under_pressure)
{
    setenv("GLSTARK_POOL", "reuse", 1);
    gs_engine *eng = tu_engine(NULL);
    const gs_gles_state *gs = eng->impl;
    cr_assert(gs->pool.on && gs->pool.reuse_larger);
    cr_assert_eq(gs_gles_device(eng)->caps.buffer_pool, GLSTARK_BUFFER_POOL_REUSE);
    const size_t big = (size_t)1 << 20;
    gs_buf *a, *b, *c, *d;
    TU_OK(eng, gs_buf_create(eng, big, &a));
    cr_assert_eq(eng->bytes_allocated, big);
    uint32_t name = a->gl_name;
    gs_buf_destroy(a);
    /* a quarter of the size, and 1 MiB pooled + the request would pass the
     * mark: the kept buffer serves it, nothing new is allocated */
    TU_OK(eng, gs_buf_create(eng, big / 4, &b));
    cr_assert_eq(b->gl_name, name);
    cr_assert_eq(b->capacity, big);
    cr_assert_eq(eng->bytes_allocated, big, "no new allocation");
    cr_assert_eq(eng->bytes_peak, big);
    /* nothing kept: a genuine new allocation and mark */
    TU_OK(eng, gs_buf_create(eng, big / 2, &c));
    cr_assert_eq(c->capacity, big / 2);
    cr_assert_eq(eng->bytes_allocated, big + big / 2);
    cr_assert_eq(eng->bytes_peak, big + big / 2);
    gs_buf_destroy(b);
    gs_buf_destroy(c);
    /* under pressure the smallest larger buffer serves: 1/8 MiB takes the
     * half-MiB buffer, not the 1 MiB one */
    TU_OK(eng, gs_buf_create(eng, big / 8, &d));
    cr_assert_eq(d->capacity, big / 2);
    cr_assert_eq(eng->bytes_allocated, big + big / 2);
    gs_buf_destroy(d);
    /* room under the mark (the pool emptied, the mark still 1.5 MiB): with
     * only the 1 MiB buffer kept, an eighth allocates anew and leaves it */
    gs_gles_pool_release(eng);
    TU_OK(eng, gs_buf_create(eng, big, &a));
    gs_buf_destroy(a);
    const uint64_t before = eng->bytes_allocated;
    TU_OK(eng, gs_buf_create(eng, big / 8, &d));
    cr_assert_eq(d->capacity, big / 8);
    cr_assert_eq(eng->bytes_allocated, before + big / 8);
    cr_assert_eq(eng->bytes_pooled, big, "the 1 MiB buffer stays kept");
    cr_assert_eq(eng->bytes_peak, big + big / 2);
    gs_buf_destroy(d);
    gs_engine_destroy(eng);
    /* a kept buffer over 256 MiB serves no request 64 times smaller (a lazy
     * driver may accept a buffer it cannot back); it stays kept, unused,
     * the engine holding less than half again its largest live footprint.
     * (Never written: the poison pass is off, so no memory is touched.) */
    unsetenv("GLSTARK_POOL_POISON");
    eng = tu_engine(NULL);
    const size_t huge = ((size_t)256 << 20) + 4096;
    TU_OK(eng, gs_buf_create(eng, huge, &a));
    gs_buf_destroy(a);
    TU_OK(eng, gs_buf_create(eng, huge / 64 - 4096, &b));
    cr_assert_eq(b->capacity, huge / 64 - 4096, "a %zu-byte request took the %zu-byte buffer", b->size, huge);
    cr_assert_eq(eng->bytes_pooled, huge, "the huge buffer stays kept");
    gs_buf_destroy(b);
    /* but one at most 64 times the request does */
    TU_OK(eng, gs_buf_create(eng, huge, &a));
    gs_buf_destroy(a);
    TU_OK(eng, gs_buf_create(eng, huge / 64 + 1, &b));
    cr_assert_eq(b->capacity, huge);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
    setenv("GLSTARK_POOL_POISON", "1", 1);
    /* under a memory cap no larger buffer is taken (its slack would count
     * against the cap), and the cap loop of the bounded test holds */
    gs_device_config o;
    o = tu_config();
    const size_t cap = big + big / 10;
    o.device_memory_cap = cap;
    eng = tu_engine(&o);
    TU_OK(eng, gs_buf_create(eng, big, &a));
    gs_buf_destroy(a);
    TU_OK(eng, gs_buf_create(eng, big / 4, &b));
    cr_assert_eq(b->capacity, big / 4, "a capped engine took a larger buffer");
    gs_buf_destroy(b);
    cap_steps_hold(eng, big, cap);
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_POOL");
}

/* GLSTARK_POOL=reuse keeps freed buffers until the engine would hold half
 * again its largest live footprint, so a request no kept buffer fits does
 * not release the kept ones that the next requests of a repeated proof
 * need (the pattern that made keccakf-16384 allocate most of its buffers
 * anew in every proof); BOUNDED releases them at the high-water mark. Two
 * rounds of the same requests: under REUSE the second allocates nothing. */
static uint64_t two_rounds_allocated_in_second(const char *pool)
{
    setenv("GLSTARK_POOL", pool, 1);
    gs_engine *eng = tu_engine(NULL);
    const size_t mib = (size_t)1 << 20;
    uint64_t second = 0;
    for (int round = 0; round < 2; round++) {
        const uint64_t before = eng->bytes_allocated;
        gs_buf *a, *b, *c;
        TU_OK(eng, gs_buf_create(eng, 2 * mib, &a));
        TU_OK(eng, gs_buf_create(eng, 1 * mib, &b));
        gs_buf_destroy(a); /* kept: 2 MiB */
        /* 3 MiB: no kept buffer fits it; 1 live + 2 kept + 3 passes the
         * mark of 3 (BOUNDED releases the 2 MiB buffer), not 1.5 x 4 */
        TU_OK(eng, gs_buf_create(eng, 3 * mib, &c));
        gs_buf_destroy(b);
        gs_buf_destroy(c);
        second = eng->bytes_allocated - before;
        cr_log_info("pool %s, round %d: %llu bytes allocated anew, %zu kept", pool, round,
                    (unsigned long long)second, eng->bytes_pooled);
    }
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_POOL");
    return second;
}

Test(gles_buffers, pool_reuse_keeps_buffers_a_repeated_proof_needs)
{
    setenv("GLSTARK_POOL_POISON", "1", 1);
    cr_assert_eq(two_rounds_allocated_in_second("reuse"), 0, "REUSE allocated anew in the repeated round");
    cr_assert_gt(two_rounds_allocated_in_second("bounded"), 0,
                 "BOUNDED keeps its footprint and allocates again in the repeated round");
    unsetenv("GLSTARK_POOL_POISON");
}

Test(gles_buffers, bind_range_checks_alignment_and_size)
{
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = 4096;
    gs_engine *eng = tu_engine(&o);
    gs_gl_device *dev = gs_gles_device(eng);
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, 1 << 16, &b));
    uint32_t align = dev->caps.binding_offset_align;
    TU_OK(eng, gs_gles_bind(eng, 0, b, align, 4096));
    cr_assert_neq(gs_gles_bind(eng, 0, b, 4, 64), GLSTARK_OK, "offset 4 is below any alignment but 4");
    cr_assert(align == 4 || strstr(eng->err.msg, "alignment") != NULL, "%s", eng->err.msg);
    cr_assert_neq(gs_gles_bind(eng, 0, b, 0, 8192), GLSTARK_OK);
    cr_assert(strstr(eng->err.msg, "per-binding limit") != NULL, "%s", eng->err.msg);
    cr_assert_eq(gs_gl_chunk_elems(dev, 16) * 16 % align, 0);
    cr_assert_leq(gs_gl_chunk_elems(dev, 16) * 16, 4096);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}

Test(gles_buffers, memory_cap_and_bad_arguments)
{
    gs_device_config o;
    o = tu_config();
    o.device_memory_cap = 1 << 20;
    gs_engine *eng = tu_engine(&o);
    gs_buf *a = NULL, *b = NULL;
    TU_OK(eng, gs_buf_create(eng, 768 << 10, &a));
    cr_assert_eq(gs_buf_create(eng, 512 << 10, &b), GLSTARK_ERR_DEVICE_MEMORY);
    cr_assert_null(b);
    cr_assert(strstr(eng->err.msg, "cap") != NULL, "%s", eng->err.msg);
    cr_assert_eq(eng->bytes_live, 768u << 10);
    gs_buf_destroy(a);
    cr_assert_eq(eng->bytes_live, 0);
    TU_OK(eng, gs_buf_create(eng, 512 << 10, &b));
    uint32_t x[4] = {0};
    cr_assert_eq(gs_buf_read(b, (512 << 10) - 8, x, 16), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_buf_write(b, (512 << 10) + 1, x, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_buf_create(eng, 0, &a), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_gles_field_op(eng, 99, b, b, b, 4, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_gles_field_op(eng, GS_FOP4_MUL, b, b, b, (512 << 10) / 16 + 1, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(gs_gles_field_op(eng, GS_FOP_MUL, b, NULL, b, 4, 0), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}

Test(gles_buffers, host_syncs_are_counted_only_at_sync_points)
{
    gs_engine *eng = tu_engine(NULL);
    gs_buf *a, *b;
    TU_OK(eng, gs_buf_create(eng, 4096, &a));
    TU_OK(eng, gs_buf_create(eng, 4096, &b));
    uint64_t s0 = eng->host_syncs;
    uint32_t v[1024];
    for (int i = 0; i < 1024; i++)
        v[i] = bb_from_canonical((uint32_t)i);
    TU_OK(eng, gs_buf_write(a, 0, v, sizeof v));
    TU_OK(eng, gs_buf_fill_u32(b, 0, 1024, 0));
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP_SQUARE, a, NULL, b, 1024, 0));
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP_SQUARE, b, NULL, a, 1024, 0)); /* depends on the previous dispatch */
    cr_assert_eq(eng->host_syncs, s0, "writes, fills and dispatches must not sync");
    TU_OK(eng, gs_engine_finish(eng));
    cr_assert_eq(eng->host_syncs, s0 + 1);
    uint32_t got[1024];
    TU_OK(eng, gs_buf_read(a, 0, got, sizeof got));
    cr_assert_eq(eng->host_syncs, s0 + 2);
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(got[i], bb_pow(v[i], 4), "a^4 at %d: barrier between dependent dispatches missing?", i);
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}

/* A write larger than the upload ring reuses its slots, waiting where the
 * GPU has not copied them out yet. Such a wait is flow control: it counts
 * in eng->upload_waits (exactly the ring's own count), never in host_syncs.
 * A queued dispatch over the destination before the writes makes waits
 * likely, but the test holds whether or not one happens. */
Test(gles_buffers, ring_waits_count_as_upload_waits_not_host_syncs)
{
    setenv("GLSTARK_UPLOAD", "ring", 1);
    gs_engine *eng = tu_engine(NULL);
    unsetenv("GLSTARK_UPLOAD");
    gs_gles_state *gs = eng->impl;
    cr_assert_eq(gs->upload.mode, GS_UPLOAD_RING, "GLSTARK_UPLOAD=ring opens the ring");
    /* 64 MiB of pinned memory only where the GPU has memory of its own to spare */
    cr_assert_eq(gs->upload.slot_bytes,
                 gs_gles_device(eng)->caps.desktop_class ? GS_UPLOAD_SLOT_BYTES : GS_UPLOAD_SLOT_BYTES_SMALL);
    const size_t words = GS_UPLOAD_SLOTS * gs->upload.slot_bytes / 4 + (3u << 20) / 4; /* the ring and 3 MiB more */
    uint32_t *v = malloc(words * 4);
    cr_assert_not_null(v);
    for (size_t i = 0; i < words; i++)
        v[i] = bb_from_canonical((uint32_t)(i % BB_P));
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, words * 4, &b));
    const uint64_t s0 = eng->host_syncs, w0 = eng->upload_waits, r0 = gs->upload.waits;
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP_SQUARE, b, NULL, b, words, 0));
    for (int k = 0; k < 2; k++)
        TU_OK(eng, gs_buf_write(b, 0, v, words * 4));
    cr_assert_eq(eng->host_syncs, s0, "writes must not count host syncs (%llu more)",
                 (unsigned long long)(eng->host_syncs - s0));
    cr_assert_eq(eng->upload_waits - w0, gs->upload.waits - r0, "every ring wait is an upload wait");
    printf("ring waits over two writes of %zu MiB: %llu\n", words * 4 >> 20,
           (unsigned long long)(eng->upload_waits - w0));
    uint32_t got[4];
    TU_OK(eng, gs_buf_read(b, (words - 4) * 4, got, sizeof got));
    for (int i = 0; i < 4; i++)
        cr_assert_eq(got[i], v[words - 4 + i], "the last words arrived");
    gs_buf_destroy(b);
    free(v);
    gs_engine_destroy(eng);
}

/* Reads queued for later (engine/read_later.h) come along with the next
 * read: one host sync for all, each destination (strided ones too) gets
 * its bytes, and a flush with nothing queued costs nothing. */
Test(gles_buffers, reads_later_come_along_with_the_next_read)
{
    gs_engine *eng = tu_engine(NULL);
    gs_buf *a, *b;
    TU_OK(eng, gs_buf_create(eng, 4096, &a));
    TU_OK(eng, gs_buf_create(eng, 4096, &b));
    uint32_t va[1024], vb[1024];
    for (int i = 0; i < 1024; i++) {
        va[i] = (uint32_t)i * 3u + 1u;
        vb[i] = 0xA0000000u + (uint32_t)i;
    }
    TU_OK(eng, gs_buf_write(a, 0, va, sizeof va));
    TU_OK(eng, gs_buf_write(b, 0, vb, sizeof vb));
    uint64_t s0 = eng->host_syncs;
    TU_OK(eng, gs_engine_read_flush(eng));
    cr_assert_eq(eng->host_syncs, s0, "a flush with nothing queued must not sync");
    uint32_t plain[10], rows[4 * 6], got_b[7];
    memset(rows, 0, sizeof rows);
    TU_OK(eng, gs_buf_read_later(a, 40, plain, sizeof plain, 1, 0));
    /* 4 items of 2 words into rows of 6 words, at column 3 */
    TU_OK(eng, gs_buf_read_later(b, 8, rows + 3, 8, 4, 24));
    cr_assert_eq(eng->host_syncs, s0, "queueing must not sync");
    TU_OK(eng, gs_buf_read(b, 100, got_b, sizeof got_b));
    cr_assert_eq(eng->host_syncs, s0 + 1, "the queued reads and the read: one sync");
    for (int i = 0; i < 10; i++)
        cr_assert_eq(plain[i], va[10 + i], "queued plain read, word %d", i);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++) {
            uint32_t want = c == 3 || c == 4 ? vb[2 + 2 * r + (c - 3)] : 0u;
            cr_assert_eq(rows[6 * r + c], want, "strided read: row %d word %d", r, c);
        }
    for (int i = 0; i < 7; i++)
        cr_assert_eq(got_b[i], vb[25 + i], "the read itself, word %d", i);
    /* a scatter: 3 blocks of 2 items of 3 words, block d to its own place
     * (out of order), items 5 words apart there, the rest untouched */
    uint32_t sc[3 * 10];
    for (int i = 0; i < 30; i++)
        sc[i] = 0xDEADBEEFu;
    void *to[3] = {sc + 20, sc + 0, sc + 10};
    TU_OK(eng, gs_buf_read_later_scatter(a, 12, to, 3, 12, 2, 20));
    TU_OK(eng, gs_engine_read_flush(eng));
    cr_assert_eq(eng->host_syncs, s0 + 2, "the scatter: one more sync, at its flush");
    for (int d = 0; d < 3; d++)
        for (int it = 0; it < 2; it++)
            for (int w = 0; w < 5; w++) {
                const uint32_t *at = (const uint32_t *)to[d] + 5 * it + w;
                uint32_t want = w < 3 ? va[3 + 6 * d + 3 * it + w] : 0xDEADBEEFu;
                cr_assert_eq(*at, want, "scatter block %d item %d word %d", d, it, w);
            }
    s0++;
    /* a queue flushed on its own, and one dropped, then nothing pending */
    uint32_t one = 0, never = 7;
    TU_OK(eng, gs_buf_read_later(a, 0, &one, 4, 1, 0));
    TU_OK(eng, gs_engine_read_flush(eng));
    cr_assert_eq(eng->host_syncs, s0 + 2);
    cr_assert_eq(one, va[0]);
    TU_OK(eng, gs_buf_read_later(a, 4, &never, 4, 1, 0));
    gs_engine_read_drop(eng);
    TU_OK(eng, gs_engine_read_flush(eng));
    cr_assert_eq(eng->host_syncs, s0 + 2, "a dropped queue reads nothing");
    cr_assert_eq(never, 7u, "a dropped read wrote its destination");
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}

Test(gles_buffers, spans_measure_time)
{
    gs_engine *eng = tu_engine(NULL);
    gs_gl_device *dev = gs_gles_device(eng);
    gs_buf *a;
    const size_t n = 1 << 16;
    TU_OK(eng, gs_buf_create(eng, n * 4, &a));
    TU_OK(eng, gs_buf_fill_u32(a, 0, n, bb_one()));
    gs_gl_span s;
    uint64_t ns = 0;
    TU_OK(eng, gs_gl_span_begin(dev, &s, "mul_chain", &eng->err));
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP_MUL_CHAIN, a, a, a, n, 64));
    TU_OK(eng, gs_gl_span_end(dev, &s, &ns, &eng->err));
    cr_log_info("span %s: %llu ns (%s)", s.name, (unsigned long long)ns, s.gpu ? "GPU timer" : "glFinish + clock");
    cr_assert_gt(ns, 0);
    cr_assert_eq(s.gpu, dev->caps.timer_queries_valid);
    gs_buf_destroy(a);
    gs_engine_destroy(eng);
}

/* Inputs of different element sizes (ext4 times base) chunked with a
 * binding limit that is not a power of two: every chunk's offsets must stay
 * aligned for both the 16-byte and the 4-byte arrays. */
Test(gles_buffers, mixed_element_sizes_with_odd_binding_limit)
{
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = 100000;
    gs_engine *eng = tu_engine(&o);
    const size_t n = 30011;
    uint64_t seed = 0x0DDB1;
    cr_log_info("seed %llu, binding limit %llu", (unsigned long long)seed,
                (unsigned long long)gs_gles_device(eng)->caps.max_binding_bytes);
    uint32_t *ha = tu_alloc(n * 16), *hb = tu_alloc(n * 4), *want = tu_alloc(n * 16), *got = tu_alloc(n * 16);
    for (size_t i = 0; i < 4 * n; i++)
        ha[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    for (size_t i = 0; i < n; i++)
        hb[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    gs_buf *a, *b, *out;
    TU_OK(eng, gs_buf_create(eng, n * 16, &a));
    TU_OK(eng, gs_buf_create(eng, n * 4, &b));
    TU_OK(eng, gs_buf_create(eng, n * 16, &out));
    TU_OK(eng, gs_buf_write(a, 0, ha, n * 16));
    TU_OK(eng, gs_buf_write(b, 0, hb, n * 4));
    TU_OK(eng, gs_buf_fill_u32(out, 0, 4 * n, 0xDEADBEEFu));
    TU_OK(eng, gs_gles_field_op(eng, GS_FOP4_MUL_BASE, a, b, out, n, 0));
    TU_OK(eng, gs_buf_read(out, 0, got, n * 16));
    gs_field_batch_cpu(GS_FOP4_MUL_BASE, ha, hb, want, n, 0);
    for (size_t i = 0; i < 4 * n; i++)
        cr_assert_eq(got[i], want[i], "ext4 * base word %zu (element %zu)", i, i / 4);
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    gs_buf_destroy(out);
    free(ha);
    free(hb);
    free(want);
    free(got);
    gs_engine_destroy(eng);
}

#if defined(__SANITIZE_ADDRESS__)
#define TU_SANITIZED_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_SANITIZED_HEAP 1
#endif
#endif

/* A line of /proc/self/status in KiB (VmRSS, VmHWM), or -1. */
static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

/* Restarts VmHWM from the current RSS (Linux's clear_refs "5"); 0 if not possible. */
static int reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return 0;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Where the GPU's memory is the host's, a buffer deleted after a dispatch
 * bound it is let go before the next buffer is made (buffer_release.c): one
 * dispatch of glsl/unbind.comp, after which the caller's program and
 * bindings are as they were. On a software renderer (the buffers are the
 * process's memory) the process never holds both buffers. Desktop-class
 * GPUs skip it. */
Test(gles_buffers, deleted_buffers_are_let_go_before_a_new_one_is_made)
{
    setenv("GLSTARK_POOL", "0", 1); /* freed buffers deleted at once */
    gs_engine *eng = tu_engine(NULL);
    gs_gles_state *gs = eng->impl;
    gs_gl_device *dev = gs->dev;
    cr_assert_eq(gs->let_go_deleted, !dev->caps.desktop_class);
    const size_t big = (size_t)48 << 20; /* above glibc's largest mmap threshold */
    gs_buf *a, *b, *keep;
    TU_OK(eng, gs_buf_create(eng, 4096, &keep));
    TU_OK(eng, gs_buf_create(eng, big, &a));
    TU_OK(eng, gs_buf_fill_u32(a, 0, big / 4, 7)); /* a dispatch binds it */
    uint32_t word;
    TU_OK(eng, gs_buf_read(a, big - 4, &word, 4));
    cr_assert_eq(word, 7);
    /* the caller's state: a program in use, a range of `keep` at slot 2 */
    gs_gl_program *fill;
    cr_assert_eq(gs_gl_program_get(dev, "fill.comp", NULL, &fill, &eng->err), GLSTARK_OK, "%s", eng->err.msg);
    glUseProgram(gs_gl_program_name(fill));
    const GLintptr range_start = 0;
    const GLsizeiptr range_bytes = 1024;
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 2, keep->gl_name, range_start, range_bytes);
    const uint64_t before = gs->unbind_dispatches;
    const int measure = dev->is_software && !eng->plentiful_memory && reset_peak_rss();
    const long rss0 = status_kib("VmRSS");
    gs_buf_destroy(a);
    TU_OK(eng, gs_buf_create(eng, big, &b));
    TU_OK(eng, gs_buf_fill_u32(b, 0, big / 4, 9));
    const long hwm = status_kib("VmHWM");
    cr_assert_eq(gs->unbind_dispatches, before + (gs->let_go_deleted ? 1 : 0));
    GLint prog, name;
    GLint64 start, size;
    glGetIntegerv(GL_CURRENT_PROGRAM, &prog);
    cr_assert_eq((GLuint)prog, gs_gl_program_name(fill), "the caller's program is in use again");
    TU_OK(eng, gs_buf_read(b, big - 4, &word, 4));
    cr_assert_eq(word, 9);
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 2, &name);
    glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 2, &start);
    glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 2, &size);
    cr_assert_eq((GLuint)name, keep->gl_name, "slot 2 holds the caller's buffer again");
    cr_assert_eq(start, range_start);
    cr_assert_eq(size, range_bytes);
#ifndef TU_SANITIZED_HEAP /* (ASan keeps freed memory in quarantine) */
    if (measure) {
        cr_log_info("RSS %ld KiB, peak while the second buffer was made and filled %ld KiB", rss0, hwm);
        cr_assert_lt(hwm - rss0, (long)(big / 1024 / 3), "the deleted %zu-byte buffer was still held: peak %ld KiB over %ld",
                     big, hwm - rss0, rss0);
    }
#else
    (void)measure;
    (void)rss0;
    (void)hwm;
#endif
    gs_buf_destroy(b);
    gs_buf_destroy(keep);
    gs_engine_destroy(eng);
}

/* The automatic pool: REUSE on desktop-class GPUs; none where the GPU's
 * memory is the host's, so a freed buffer is deleted at once (and let go
 * before the next one is made). */
Test(gles_buffers, no_pool_by_default_where_memory_is_the_hosts)
{
    unsetenv("GLSTARK_POOL");
    gs_engine *eng = tu_engine(NULL);
    const gs_gles_state *gs = eng->impl;
    const int desktop = gs->dev->caps.desktop_class;
    cr_assert_eq(gs->dev->caps.buffer_pool, desktop ? GLSTARK_BUFFER_POOL_REUSE : GLSTARK_BUFFER_POOL_OFF);
    cr_assert_eq(gs->pool.on, desktop);
    gs_buf *a, *b;
    TU_OK(eng, gs_buf_create(eng, (size_t)2 << 20, &a));
    const uint64_t lets_go = gs->unbind_dispatches;
    gs_buf_destroy(a);
    cr_assert_eq(eng->bytes_pooled, desktop ? (size_t)2 << 20 : 0);
    TU_OK(eng, gs_buf_create(eng, (size_t)1 << 20, &b));
    cr_assert_eq(gs->unbind_dispatches, lets_go + (desktop ? 0 : 1));
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}
