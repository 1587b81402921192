/* The CPU engine's trace conversion (canonical words to Montgomery form):
 * gs_from_canonical_simd in every vector set this CPU runs, and the engine's
 * buf_write_canonical on 1 and 2 threads, against bb_from_canonical word by
 * word. Inputs mix random words (fixed printed seed) with 0, 1, p-1 and
 * 2^k boundaries; lengths are not multiples of 16, pointers are offset by
 * one word, in place is checked, and outputs are poisoned first (0xFFFFFFFF
 * is not a field word). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpu/canonical_simd.h"
#include "engine/cpu/kernels.h"
#include "engine/cpu/cpu_engine.h"
#include "engine/engine.h"
#include "field/babybear.h"

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static uint32_t canonical_word(uint64_t *s)
{
    uint32_t r = (uint32_t)next(s);
    switch (r % 6) {
    case 0: return 0;
    case 1: return 1;
    case 2: return BB_P - 1;
    case 3: return (1u << (r / 8 % 31)) % BB_P;
    default: return (uint32_t)next(s) % BB_P;
    }
}

Test(from_canonical, vector_prefix_matches_scalar_in_every_set)
{
    uint64_t seed = 0xC0A7;
    printf("from_canonical seed %llu\n", (unsigned long long)seed);
    const size_t lens[] = {0, 1, 15, 16, 17, 31, 1000, 4099};
    enum { MAXN = 4099 + 2 }; /* one word of offset, one past the end */
    uint32_t *src = malloc(MAXN * sizeof *src);
    bb_t *dst = malloc(MAXN * sizeof *dst);
    cr_assert(src && dst);
    int ran = 0;
    for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++) {
        int have = isa != GS_SIMD_NONE && gs_simd_available(isa);
        ran += have;
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                size_t n = lens[li];
                uint32_t *in = src + 1; /* one word off a 16-byte boundary */
                for (size_t i = 0; i < n; i++)
                    in[i] = canonical_word(&seed);
                uint32_t want[MAXN];
                for (size_t i = 0; i < n; i++)
                    want[i] = bb_from_canonical(in[i]);
                bb_t *out = in_place ? in : dst + 1;
                if (!in_place)
                    memset(dst, 0xFF, MAXN * sizeof *dst);
                size_t done = gs_from_canonical_simd(gs_cpu_kernels_of(isa), out, in, n);
                cr_assert_eq(done, have ? n / 16 * 16 : 0, "%s, n %zu: converted %zu", gs_simd_name(isa), n, done);
                for (size_t i = 0; i < done; i++)
                    cr_assert_eq(out[i], want[i], "%s, n %zu, in place %d, word %zu: %u, want %u", gs_simd_name(isa),
                                 n, in_place, i, out[i], want[i]);
                if (!in_place)
                    for (size_t i = done; i < n + 1; i++) /* the rest is the caller's and untouched */
                        cr_assert_eq(out[i], 0xFFFFFFFFu, "%s, n %zu: word %zu past the prefix written",
                                     gs_simd_name(isa), n, i);
            }
        }
    }
    if (!ran)
        printf("from_canonical: no vector set here (the engine's scalar loop is checked below)\n");
    free(src);
    free(dst);
}

Test(from_canonical, engine_write_matches_scalar)
{
    uint64_t seed = 0xC0A8;
    printf("from_canonical engine seed %llu\n", (unsigned long long)seed);
    const size_t n = ((size_t)1 << 16) + 7; /* threaded, with a scalar tail per part */
    uint32_t *src = malloc(n * sizeof *src);
    bb_t *got = malloc(n * sizeof *got);
    cr_assert(src && got);
    for (size_t i = 0; i < n; i++)
        src[i] = canonical_word(&seed);
    for (unsigned threads = 1; threads <= 2; threads++) {
        gs_engine *eng = NULL;
        gs_error err = {0};
        cr_assert_eq(gs_cpu_engine_create(threads, &eng, &err), GLSTARK_OK, "%s", err.msg);
        gs_buf *buf = NULL;
        cr_assert_eq(gs_buf_create(eng, (n + 3) * sizeof(bb_t), &buf), GLSTARK_OK);
        cr_assert_eq(gs_buf_fill_u32(buf, 0, n + 3, 0xFFFFFFFFu), GLSTARK_OK);
        cr_assert_eq(gs_buf_write_canonical(buf, 4, src, n), GLSTARK_OK); /* one word in */
        cr_assert_eq(gs_buf_read(buf, 0, got, n * sizeof(bb_t)), GLSTARK_OK);
        cr_assert_eq(got[0], 0xFFFFFFFFu, "word before the write touched");
        for (size_t i = 0; i < n - 1; i++)
            cr_assert_eq(got[i + 1], bb_from_canonical(src[i]), "%u threads, word %zu: %u, want %u", threads, i,
                         got[i + 1], bb_from_canonical(src[i]));
        cr_assert_eq(gs_buf_read(buf, n * sizeof(bb_t), got, 3 * sizeof(bb_t)), GLSTARK_OK);
        cr_assert_eq(got[0], bb_from_canonical(src[n - 1]));
        cr_assert_eq(got[1], 0xFFFFFFFFu, "word after the write touched");
        gs_buf_destroy(buf);
        gs_engine_destroy(eng);
    }
    free(src);
    free(got);
}
