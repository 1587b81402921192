/* Poseidon2-16, sponge hash and compression against OpenVM's vectors
 * (tests/data/poseidon2_kat.txt, converted from poseidon2_kat.json) and
 * Plonky3's repository KAT (tests/data/poseidon2_babybear16_constants.txt). */
#include <criterion/criterion.h>
#include <stdio.h>

#include "glstark/hash.h"
#include "hash/poseidon2.h"
#include "hash/poseidon2_constants.h"
#include "kat_reader.h"
#include "../util/splitmix.h"

static void to_mont(bb_t *dst, const uint32_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = bb_from_canonical(src[i]);
}

static void expect_canonical(const bb_t *got, const uint32_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(bb_to_canonical(got[i]), want[i], "%s: cell %zu is %u, expected %u", what, i,
                     bb_to_canonical(got[i]), want[i]);
}

/* Reads one SECTION of the constants file into v; returns the count. */
static size_t read_section(const char *name, uint32_t *v, size_t cap)
{
    FILE *f = kat_open("poseidon2_babybear16_constants.txt");
    size_t n = 0;
    int in = 0;
    char buf[8192];
    while (fgets(buf, sizeof buf, f)) {
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        if (strncmp(buf, "SECTION ", 8) == 0) {
            char nm[64];
            cr_assert(sscanf(buf + 8, "%63s", nm) == 1);
            in = strcmp(nm, name) == 0;
            continue;
        }
        if (!in)
            continue;
        char *p = buf, *end;
        for (;;) {
            unsigned long x = strtoul(p, &end, 10);
            if (end == p)
                break;
            cr_assert(n < cap);
            v[n++] = (uint32_t)x;
            p = end;
        }
    }
    fclose(f);
    return n;
}

Test(poseidon2, constants_header_matches_constants_file)
{
    uint32_t v[64];
    cr_assert_eq(read_section("EXTERNAL_INITIAL", v, 64), 64);
    for (int i = 0; i < 64; i++)
        cr_expect_eq(gs_p2_rc_initial[i / 16][i % 16], bb_from_canonical(v[i]), "initial rc %d", i);
    cr_assert_eq(read_section("INTERNAL", v, 64), 13);
    for (int i = 0; i < 13; i++)
        cr_expect_eq(gs_p2_rc_internal[i], bb_from_canonical(v[i]), "internal rc %d", i);
    cr_assert_eq(read_section("EXTERNAL_TERMINAL", v, 64), 64);
    for (int i = 0; i < 64; i++)
        cr_expect_eq(gs_p2_rc_terminal[i / 16][i % 16], bb_from_canonical(v[i]), "terminal rc %d", i);
}

/* poseidon2.c applies the internal diagonal as small multiples and
 * divisions by powers of two; check the constants file's diagonal is
 * exactly those values (the KATs then check the code). */
Test(poseidon2, internal_diagonal_values)
{
    uint32_t v[16];
    cr_assert_eq(read_section("INTERNAL_DIAG", v, 16), 16);
    bb_t two = bb_from_canonical(2);
    bb_t inv2 = bb_inv(two);
    bb_t want[16] = {
        bb_neg(two), bb_one(), two, inv2, bb_from_canonical(3), bb_from_canonical(4), bb_neg(inv2),
        bb_neg(bb_from_canonical(3)), bb_neg(bb_from_canonical(4)), bb_pow(inv2, 8), bb_pow(inv2, 2),
        bb_pow(inv2, 3), bb_pow(inv2, 27), bb_neg(bb_pow(inv2, 8)), bb_neg(bb_pow(inv2, 4)),
        bb_neg(bb_pow(inv2, 27)),
    };
    for (int i = 0; i < 16; i++)
        cr_expect_eq(bb_from_canonical(v[i]), want[i], "diag %d", i);
}

Test(poseidon2, plonky3_repository_kat)
{
    uint32_t in[16], out[16];
    cr_assert_eq(read_section("KAT_INPUT", in, 16), 16);
    cr_assert_eq(read_section("KAT_OUTPUT", out, 16), 16);
    bb_t st[16];
    to_mont(st, in, 16);
    gs_poseidon2_permute(st);
    expect_canonical(st, out, 16, "test_default_babybear_poseidon2_width_16");
}

Test(poseidon2, openvm_kat_file)
{
    FILE *f = kat_open("poseidon2_kat.txt");
    kat_line l;
    int perms = 0, hashes = 0, compresses = 0, others = 0;
    while (kat_next(f, &l)) {
        if (strcmp(l.key, "perm") == 0) {
            cr_assert_eq(l.n, 32);
            bb_t st[16];
            to_mont(st, l.v, 16);
            gs_poseidon2_permute(st);
            expect_canonical(st, l.v + 16, 16, "permutation");
            /* The batched permutation must agree lane by lane. */
            bb_t b[16][GS_P2_LANES];
            for (int i = 0; i < 16; i++)
                for (int k = 0; k < GS_P2_LANES; k++)
                    b[i][k] = bb_from_canonical(k == 3 ? l.v[i] : (l.v[i] + (uint32_t)k) % BB_P);
            bb_t b2[16][GS_P2_LANES];
            memcpy(b2, b, sizeof b);
            gs_poseidon2_permute_batch(b);
            gs_poseidon2_permute_batch_portable(b2);
            bb_t col[16], col2[16];
            for (int i = 0; i < 16; i++) {
                col[i] = b[i][3];
                col2[i] = b2[i][3];
            }
            expect_canonical(col, l.v + 16, 16, "batched permutation lane 3");
            expect_canonical(col2, l.v + 16, 16, "portable batched permutation lane 3");
            perms++;
        } else if (strcmp(l.key, "hash") == 0) {
            size_t n = l.v[0];
            cr_assert_eq(l.n, 1 + n + 8);
            bb_t in[KAT_MAX_VALS], out[8];
            to_mont(in, l.v + 1, n);
            gs_poseidon2_hash(in, n, out);
            char what[64];
            snprintf(what, sizeof what, "sponge hash of %zu elements", n);
            expect_canonical(out, l.v + 1 + n, 8, what);
            hashes++;
        } else if (strcmp(l.key, "compress") == 0) {
            cr_assert_eq(l.n, 24);
            bb_t a[8], b[8], out[8];
            to_mont(a, l.v, 8);
            to_mont(b, l.v + 8, 8);
            gs_poseidon2_compress(a, b, out);
            expect_canonical(out, l.v + 16, 8, "compress");
            compresses++;
        } else if (strcmp(l.key, "perm_iota_halves") == 0) {
            cr_assert_eq(l.n, 16);
            bb_t st[16];
            for (uint32_t i = 0; i < 16; i++)
                st[i] = bb_from_canonical(i);
            gs_poseidon2_permute(st);
            expect_canonical(st, l.v, 16, "compress_with_capacity(0..7, 8..15)");
            others++;
        } else if (strcmp(l.key, "tree4_iota") == 0) {
            cr_assert_eq(l.n, 8);
            bb_t leaf[4][8], n01[8], n23[8], root[8];
            for (uint32_t i = 0; i < 32; i++)
                leaf[i / 8][i % 8] = bb_from_canonical(i);
            gs_poseidon2_compress(leaf[0], leaf[1], n01);
            gs_poseidon2_compress(leaf[2], leaf[3], n23);
            gs_poseidon2_compress(n01, n23, root);
            expect_canonical(root, l.v, 8, "tree_compress of 4 digests");
            others++;
        } else {
            cr_assert_fail("unknown KAT line '%s'", l.key);
        }
    }
    fclose(f);
    cr_expect_eq(perms, 4);
    cr_expect_eq(hashes, 8);
    cr_expect_eq(compresses, 2);
    cr_expect_eq(others, 2);
}

/* Model-derived vectors (docs/protocol.md, 'Test vectors') that are not in the OpenVM file. */
Test(poseidon2, hash_partial_block_keeps_rate)
{
    /* H([1..5]) is the first 8 cells of perm([1,2,3,4,5,0,0,0, 0 x 8]): a
     * short only block leaves the zero initial cells in place. */
    bb_t in[5], out[8], st[16] = {0};
    for (uint32_t i = 0; i < 5; i++)
        in[i] = st[i] = bb_from_canonical(i + 1);
    gs_poseidon2_hash(in, 5, out);
    gs_poseidon2_permute(st);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(out[i], st[i]);
    static const uint32_t want[8] = {1745697958, 1883316607, 1528744214, 380958910,
                                     1655787167, 942789063,  1311515673, 484056006};
    expect_canonical(out, want, 8, "H([1..5])");
}

/* Every lane of both batched versions equals the scalar permutation, on
 * random states including the extreme values 0 and p - 1. */
Test(poseidon2, batched_equals_scalar_random)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    printf("batched_equals_scalar_random: seed 0x%llx\n", (unsigned long long)seed);
    for (int trial = 0; trial < 200; trial++) {
        bb_t a[16][GS_P2_LANES], b[16][GS_P2_LANES], ref[GS_P2_LANES][16];
        for (int l = 0; l < GS_P2_LANES; l++)
            for (int i = 0; i < 16; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t v = (uint32_t)((seed >> 33) % BB_P);
                if (trial % 3 == 1 && (v & 1))
                    v = BB_P - 1;
                else if (trial % 3 == 2 && (v & 1))
                    v = 0;
                a[i][l] = b[i][l] = ref[l][i] = bb_from_canonical(v);
            }
        gs_poseidon2_permute_batch(a);
        gs_poseidon2_permute_batch_portable(b);
        for (int l = 0; l < GS_P2_LANES; l++) {
            gs_poseidon2_permute(ref[l]);
            for (int i = 0; i < 16; i++) {
                cr_assert_eq(a[i][l], ref[l][i], "trial %d lane %d cell %d (dispatching batch)", trial, l, i);
                cr_assert_eq(b[i][l], ref[l][i], "trial %d lane %d cell %d (portable batch)", trial, l, i);
            }
        }
        /* every SIMD implementation this CPU has */
        for (int impl = GS_P2_IMPL_AVX2; impl <= GS_P2_IMPL_NEON; impl++) {
            bb_t c[16][GS_P2_LANES];
            for (int l = 0; l < GS_P2_LANES; l++)
                for (int i = 0; i < 16; i++)
                    c[i][l] = b[i][l]; /* b = permute(input): permute again and compare */
            bb_t want[16][GS_P2_LANES];
            memcpy(want, c, sizeof c);
            gs_poseidon2_permute_batch_portable(want);
            if (!gs_poseidon2_permute_batch_with((gs_p2_impl)impl, c)) {
                if (trial == 0)
                    printf("batched implementation %d is not available on this CPU\n", impl);
                continue;
            }
            cr_assert_eq(memcmp(c, want, sizeof c), 0, "trial %d: implementation %d differs", trial, impl);
        }
    }
}

/* The batched permutation picks its implementation at run time. AArch64
 * builds (boards, and CI's aarch64 run under qemu) have the NEON one, which
 * must be chosen, and the x86 ones must refuse; x86-64 builds have no NEON
 * one, and the chosen one must be runnable. batched_equals_scalar_random
 * checks results. */
Test(poseidon2, batch_impl_fits_architecture)
{
    static const char *names[] = {"portable", "avx2", "avx512f", "neon"};
    gs_p2_impl impl = gs_poseidon2_batch_impl();
    cr_assert(impl >= GS_P2_IMPL_PORTABLE && impl <= GS_P2_IMPL_NEON, "unknown implementation %d", (int)impl);
    printf("batched Poseidon2 implementation on this CPU: %s\n", names[impl]);
    bb_t st[GS_P2_WIDTH][GS_P2_LANES] = {{0}};
    cr_assert_eq(gs_poseidon2_permute_batch_with(impl, st), 1, "the chosen implementation %s cannot run",
                 names[impl]);
#if defined(__aarch64__)
    cr_assert_eq(impl, GS_P2_IMPL_NEON, "%s chosen on an AArch64 build", names[impl]);
#elif !defined(__x86_64__)
    cr_assert_eq(impl, GS_P2_IMPL_PORTABLE, "%s chosen on a build with no vector path", names[impl]);
#endif
#if !defined(__x86_64__)
    cr_assert_eq(gs_poseidon2_permute_batch_with(GS_P2_IMPL_AVX2, st), 0, "AVX2 path claims to run off x86-64");
    cr_assert_eq(gs_poseidon2_permute_batch_with(GS_P2_IMPL_AVX512, st), 0, "AVX-512 path claims to run off x86-64");
#else
    cr_assert_eq(gs_poseidon2_permute_batch_with(GS_P2_IMPL_NEON, st), 0, "NEON path claims to run on x86-64");
#endif
}

/* The public host API (include/glstark/hash.h) on the OpenVM vectors, and
 * its argument checks. */
Test(poseidon2, public_api)
{
    FILE *f = kat_open("poseidon2_kat.txt");
    kat_line l;
    int n = 0;
    while (kat_next(f, &l)) {
        if (strcmp(l.key, "perm") == 0) {
            uint32_t s[16];
            memcpy(s, l.v, sizeof s);
            cr_assert_eq(glstark_poseidon2_permute(s), GLSTARK_OK);
            cr_expect_eq(memcmp(s, l.v + 16, sizeof s), 0, "public permute");
            n++;
        } else if (strcmp(l.key, "hash") == 0) {
            uint32_t d[8];
            cr_assert_eq(glstark_poseidon2_hash(l.v[0] ? l.v + 1 : NULL, l.v[0], d), GLSTARK_OK);
            cr_expect_eq(memcmp(d, l.v + 1 + l.v[0], sizeof d), 0, "public hash of %u elements", l.v[0]);
            n++;
        } else if (strcmp(l.key, "compress") == 0) {
            uint32_t o[8], a[8];
            memcpy(a, l.v, sizeof a);
            cr_assert_eq(glstark_poseidon2_compress(a, l.v + 8, a), GLSTARK_OK); /* out aliases left */
            memcpy(o, a, sizeof o);
            cr_expect_eq(memcmp(o, l.v + 16, sizeof o), 0, "public compress");
            n++;
        }
    }
    fclose(f);
    cr_expect_eq(n, 14);
    uint32_t s[16] = {0}, d[8];
    s[5] = GLSTARK_BABYBEAR_P;
    cr_expect_eq(glstark_poseidon2_permute(s), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(s[0], 0u, "a rejected state is left untouched");
    cr_expect_eq(glstark_poseidon2_permute(NULL), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(glstark_poseidon2_hash(s, 16, d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(glstark_poseidon2_hash(NULL, 3, d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(glstark_poseidon2_compress(s + 8, s + 8, d), GLSTARK_OK);
    cr_expect_eq(glstark_poseidon2_compress(s, s + 8, d), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(glstark_poseidon2_compress(s + 8, s, d), GLSTARK_ERR_INVALID_ARGUMENT);
}

/* ---- the single-state versions (poseidon2_single.c) against the scalar
 * reference gs_poseidon2_permute_scalar ---- */

static const char *const single_names[] = {"portable", "avx2", "avx512f", "neon"};

/* Runs every single-state version this build and CPU have, and the
 * dispatching gs_poseidon2_permute, on a copy of st, and requires the
 * scalar reference's words. what names the input in a failure. */
static void expect_single_all(const bb_t st[16], const char *what)
{
    bb_t want[16], got[16];
    memcpy(want, st, sizeof want);
    gs_poseidon2_permute_scalar(want);
    memcpy(got, st, sizeof got);
    gs_poseidon2_permute(got);
    cr_assert_eq(memcmp(got, want, sizeof got), 0, "%s: gs_poseidon2_permute differs from the scalar reference", what);
    for (int impl = GS_P2_IMPL_PORTABLE; impl <= GS_P2_IMPL_NEON; impl++) {
        memcpy(got, st, sizeof got);
        if (!gs_poseidon2_permute_with((gs_p2_impl)impl, got))
            continue;
        for (int i = 0; i < 16; i++)
            cr_assert_eq(got[i], want[i], "%s: %s cell %d is 0x%08x, scalar 0x%08x", what, single_names[impl], i, got[i],
                         want[i]);
    }
}

/* Which versions run here, in the log; the chosen one must run, and the
 * other architecture's must refuse (as batch_impl_fits_architecture). */
Test(poseidon2, single_impl_fits_architecture)
{
    gs_p2_impl impl = gs_poseidon2_single_impl();
    cr_assert(impl >= GS_P2_IMPL_PORTABLE && impl <= GS_P2_IMPL_NEON, "unknown implementation %d", (int)impl);
    bb_t st[16] = {0};
    printf("single-state Poseidon2 on this CPU: %s (runs here:", single_names[impl]);
    for (int i = GS_P2_IMPL_PORTABLE; i <= GS_P2_IMPL_NEON; i++)
        if (gs_poseidon2_permute_with((gs_p2_impl)i, st))
            printf(" %s", single_names[i]);
    printf(")\n");
    cr_assert_eq(gs_poseidon2_permute_with(impl, st), 1, "the chosen implementation %s cannot run", single_names[impl]);
    cr_assert_eq(gs_poseidon2_permute_with(GS_P2_IMPL_PORTABLE, st), 1, "the scalar reference always runs");
#if defined(__aarch64__) && !defined(GLSTARK_NO_SIMD)
    cr_assert_eq(impl, GS_P2_IMPL_NEON, "%s chosen on an AArch64 build", single_names[impl]);
#elif !defined(__x86_64__) || defined(GLSTARK_NO_SIMD)
    cr_assert_eq(impl, GS_P2_IMPL_PORTABLE, "%s chosen on a build with no vector path", single_names[impl]);
#endif
#if !defined(__x86_64__)
    cr_assert_eq(gs_poseidon2_permute_with(GS_P2_IMPL_AVX2, st), 0, "AVX2 path claims to run off x86-64");
    cr_assert_eq(gs_poseidon2_permute_with(GS_P2_IMPL_AVX512, st), 0, "AVX-512 path claims to run off x86-64");
#else
    cr_assert_eq(gs_poseidon2_permute_with(GS_P2_IMPL_NEON, st), 0, "NEON path claims to run on x86-64");
#endif
    cr_assert_eq(gs_poseidon2_permute_with((gs_p2_impl)99, st), 0, "an unknown implementation claims to run");
}

/* Plonky3's repository vector through every version. */
Test(poseidon2, single_plonky3_kat)
{
    uint32_t in[16], out[16];
    cr_assert_eq(read_section("KAT_INPUT", in, 16), 16);
    cr_assert_eq(read_section("KAT_OUTPUT", out, 16), 16);
    for (int impl = GS_P2_IMPL_PORTABLE; impl <= GS_P2_IMPL_NEON; impl++) {
        bb_t st[16];
        to_mont(st, in, 16);
        if (gs_poseidon2_permute_with((gs_p2_impl)impl, st))
            expect_canonical(st, out, 16, single_names[impl]);
    }
}

/* Random states: uniform words, and states with many cells at 0 or p - 1. */
Test(poseidon2, single_equals_scalar_random)
{
    const uint64_t seed = 0x5eed0000d15ea5e5ull;
    uint64_t s = seed;
    printf("single_equals_scalar_random: seed 0x%llx\n", (unsigned long long)seed);
    for (int trial = 0; trial < 20000; trial++) {
        bb_t st[16];
        for (int i = 0; i < 16; i++) {
            uint64_t r = splitmix64(&s);
            uint32_t v = (uint32_t)(r % BB_P);
            if (trial % 4 == 1 && (r >> 63))
                v = BB_P - 1;
            else if (trial % 4 == 2 && (r >> 63))
                v = 0;
            st[i] = v; /* a Montgomery word: any value in [0, p) */
        }
        char what[64];
        snprintf(what, sizeof what, "random trial %d", trial);
        expect_single_all(st, what);
    }
}

/* Edge words: as Montgomery words (what the permutation sees) and as
 * canonical integers entered with bb_from_canonical, including integers
 * near 2^31 (above p, so reduced first). Every state that is one edge value
 * in all cells, one edge value in one cell of zeros, and random mixtures
 * of edge values. */
Test(poseidon2, single_equals_scalar_edges)
{
    const uint32_t p = BB_P;
    const uint32_t words[] = {0, 1, 2, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2, (p - 1) / 2 - 1,
                              1u << 27, (1u << 27) - 1, (1u << 27) + 1, p - (1u << 27), (1u << 30) - 1, 1u << 30,
                              0x0FFFFFFEu /* 1 */, p - 0x0FFFFFFEu /* -1 */};
    const uint32_t ints[] = {0x7FFFFFFFu, 0x7FFFFFFEu, 0x80000000u, 0x80000001u, 0xFFFFFFFFu, p, p + 1, p + 2};
    enum { NW = sizeof words / sizeof words[0], NI = sizeof ints / sizeof ints[0], NE = NW + NI };
    bb_t edge[NE];
    for (int i = 0; i < NW; i++)
        edge[i] = words[i];
    for (int i = 0; i < NI; i++)
        edge[NW + i] = bb_from_canonical(ints[i]);
    char what[96];
    for (int e = 0; e < NE; e++) {
        bb_t st[16];
        for (int i = 0; i < 16; i++)
            st[i] = edge[e];
        snprintf(what, sizeof what, "every cell edge value %d (0x%08x)", e, edge[e]);
        expect_single_all(st, what);
        for (int c = 0; c < 16; c++) {
            memset(st, 0, sizeof st);
            st[c] = edge[e];
            snprintf(what, sizeof what, "cell %d edge value %d (0x%08x), others 0", c, e, edge[e]);
            expect_single_all(st, what);
        }
    }
    const uint64_t seed = 0xed9e5u;
    uint64_t s = seed;
    printf("single_equals_scalar_edges: mixtures from seed 0x%llx\n", (unsigned long long)seed);
    for (int trial = 0; trial < 5000; trial++) {
        bb_t st[16];
        for (int i = 0; i < 16; i++)
            st[i] = edge[splitmix64(&s) % NE];
        snprintf(what, sizeof what, "edge mixture %d", trial);
        expect_single_all(st, what);
    }
}

/* 10000 permutations in a row, each on the last one's output (the
 * transcript's use), compared with the scalar chain every 1000 steps. */
Test(poseidon2, single_long_chain)
{
    const uint64_t seed = 0xc4a1au;
    uint64_t s = seed;
    printf("single_long_chain: seed 0x%llx\n", (unsigned long long)seed);
    bb_t start[16], want[16];
    for (int i = 0; i < 16; i++)
        start[i] = (uint32_t)(splitmix64(&s) % BB_P);
    bb_t chk[10][16];
    memcpy(want, start, sizeof want);
    for (int k = 0; k < 10000; k++) {
        gs_poseidon2_permute_scalar(want);
        if (k % 1000 == 999)
            memcpy(chk[k / 1000], want, sizeof want);
    }
    for (int impl = GS_P2_IMPL_PORTABLE; impl <= GS_P2_IMPL_NEON + 1; impl++) {
        /* impl NEON + 1: the dispatching gs_poseidon2_permute */
        int dispatch = impl > GS_P2_IMPL_NEON;
        const char *name = dispatch ? "gs_poseidon2_permute" : single_names[impl];
        bb_t st[16];
        memcpy(st, start, sizeof st);
        if (!dispatch && !gs_poseidon2_permute_with((gs_p2_impl)impl, st))
            continue;
        memcpy(st, start, sizeof st);
        for (int k = 0; k < 10000; k++) {
            if (dispatch)
                gs_poseidon2_permute(st);
            else
                gs_poseidon2_permute_with((gs_p2_impl)impl, st);
            if (k % 1000 == 999)
                cr_assert_eq(memcmp(st, chk[k / 1000], sizeof st), 0, "%s: chain differs after %d permutations", name,
                             k + 1);
        }
        printf("single_long_chain: %s equal after 10000 permutations\n", name);
    }
}
