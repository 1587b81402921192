/* Hostile proof bytes against the decoder (the verifier's first gate), over
 * every shared OpenVM proof:
 *  - every truncation is MALFORMED with a message naming the byte offset
 *    (all of them for the small proofs; for fib-app18 and keccak every
 *    truncation in the first and last 4 KiB and a prime stride between, all
 *    of them under -Dslow_tests=true);
 *  - one to four trailing bytes are MALFORMED ("trailing");
 *  - every aligned 32-bit word set to a huge length / non-canonical value
 *    (0xFFFFFFFF, 0x80000000, p, p+1, len, len+1) decodes to OK or
 *    MALFORMED, never anything else and never a huge allocation;
 *  - single-byte mutations of fib-small_n1 (exhaustive, all 255 other values
 *    at every byte, under -Dslow_tests=true): OK only when the mutated bytes
 *    re-encode exactly (for a real proof's shape the codec is a bijection on
 *    what it accepts), else MALFORMED;
 *  - sampled random multi-byte mutations of the large proofs.
 * Whether a decoded mutation is *rejected* is the verifier's part (the
 * verifier tests and fuzz_proof run it once it lands); here we check that
 * nothing a stranger sends gets past the decoder in a state it cannot
 * describe. */
#include "hostile_util.h"

#include <stdint.h>

#include "field/babybear.h"
#include "air/keygen.h"
#include "common/proof.h"
#include "verify/verifier.h"

static const char *const SMALL[] = {"fib-small_n1", "fib-small_n2", "fib-small_n3",
                                    "fib-small_n4", "fib-small_n10", "interactions-small"};
static const char *const LARGE[] = {"fib-app18_n10", "keccak-app21_p16"};

static uint8_t *load_proof(const char *spec, size_t *len)
{
    char rel[256];
    snprintf(rel, sizeof rel, "openvm/%s.proof.bin", spec);
    return hu_read(rel, len);
}

/* Decodes b[0..n); returns the status. When OK, checks that the proof
 * re-encodes to exactly these bytes. When not, checks status and message. */
static glstark_status decode_checked(const uint8_t *b, size_t n, const char *what, size_t at)
{
    gs_proof p;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_proof_decode(b, n, &p, &err);
    if (st == GLSTARK_OK) {
        uint8_t *out = NULL;
        size_t out_len = 0;
        glstark_status est = gs_proof_encode(&p, &out, &out_len, &err);
        cr_assert_eq(est, GLSTARK_OK, "%s @%zu: decoded but cannot re-encode: %s", what, at, err.msg);
        cr_assert(out_len == n && memcmp(out, b, n) == 0, "%s @%zu: decoded but re-encodes differently", what, at);
        free(out);
        gs_proof_free(&p);
    } else {
        cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "%s @%zu: status %s (%s)", what, at, glstark_status_name(st),
                     err.msg);
        cr_assert(strstr(err.msg, "at byte") != NULL, "%s @%zu: message without an offset: %s", what, at, err.msg);
    }
    return st;
}

static void truncations(const char *spec, int all)
{
    size_t len;
    uint8_t *b = load_proof(spec, &len);
    size_t tried = 0;
    for (size_t cut = 0; cut < len;) {
        uint8_t *c = hu_copy(b, cut);
        cr_assert_eq(decode_checked(c, cut, spec, cut), GLSTARK_ERR_MALFORMED, "%s truncated to %zu bytes accepted",
                     spec, cut);
        free(c);
        tried++;
        if (all || cut < 4096 || cut + 4096 >= len)
            cut++;
        else
            cut += 257;
    }
    cr_log_info("%s: %zu of %zu truncations MALFORMED", spec, tried, len);
    free(b);
}

Test(hostile_proof, every_truncation_of_small_proofs)
{
    for (size_t i = 0; i < sizeof SMALL / sizeof SMALL[0]; i++)
        truncations(SMALL[i], 1);
}

Test(hostile_proof, truncations_of_large_proofs, .timeout = 600)
{
#if defined(GLSTARK_SLOW_TESTS)
    const int all = 1;
#else
    const int all = 0;
#endif
    for (size_t i = 0; i < sizeof LARGE / sizeof LARGE[0]; i++)
        truncations(LARGE[i], all);
}

Test(hostile_proof, trailing_bytes)
{
    const char *specs[] = {"fib-small_n1", "interactions-small", "fib-app18_n10"};
    for (size_t s = 0; s < 3; s++) {
        size_t len;
        uint8_t *b = load_proof(specs[s], &len);
        for (size_t extra = 1; extra <= 4; extra++) {
            uint8_t *c = malloc(len + extra);
            memcpy(c, b, len);
            memset(c + len, 0, extra);
            gs_proof p;
            gs_error err;
            cr_assert_eq(gs_proof_decode(c, len + extra, &p, &err), GLSTARK_ERR_MALFORMED);
            cr_assert(strstr(err.msg, "trailing") != NULL, "%s", err.msg);
            free(c);
        }
        free(b);
    }
}

/* Every aligned word of every small proof and of fib-app18 replaced by
 * values that are huge as lengths and out of range as field elements. */
Test(hostile_proof, huge_and_out_of_range_words, .timeout = 600)
{
    const char *specs[] = {"fib-small_n1", "fib-small_n4", "fib-small_n10", "interactions-small", "fib-app18_n10"};
    size_t ok = 0, bad = 0;
    for (size_t s = 0; s < 5; s++) {
        size_t len;
        uint8_t *b = load_proof(specs[s], &len);
        const uint32_t vals[] = {0xFFFFFFFFu, 0x80000000u, BB_P, BB_P + 1, (uint32_t)len, (uint32_t)len + 1};
        /* fib-app18 is 186 KB: every 256th word there, every word elsewhere */
        size_t step = len > 100000 ? 1024 : 4;
        for (size_t at = 0; at + 4 <= len; at += step) {
            for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
                uint8_t *c = hu_copy(b, len);
                hu_put_u32(c + at, vals[v]);
                if (decode_checked(c, len, specs[s], at) == GLSTARK_OK)
                    ok++;
                else
                    bad++;
                free(c);
            }
        }
        free(b);
    }
    cr_log_info("huge/out-of-range words: %zu decoded (u32 fields such as log_height), %zu MALFORMED", ok, bad);
    cr_assert_gt(bad, 0);
}

/* All 255 other values at every byte of fib-small_n1 (6253 bytes, 1.6 M
 * decodes) under -Dslow_tests=true; by default all 255 values in the first
 * 512 bytes (header, trace data, public values, GKR lengths: where most
 * length fields are) and the 8 single-bit flips elsewhere, to keep the ASan
 * run of the suite short. */
Test(hostile_proof, single_byte_mutations, .timeout = 600)
{
#if defined(GLSTARK_SLOW_TESTS)
    const size_t full_prefix = SIZE_MAX;
#else
    const size_t full_prefix = 512;
#endif
    size_t len;
    uint8_t *b = load_proof("fib-small_n1", &len);
    uint8_t *c = hu_copy(b, len);
    size_t ok = 0, bad = 0;
    for (size_t at = 0; at < len; at++) {
        for (unsigned i = 0; i < (at < full_prefix ? 256u : 8u); i++) {
            unsigned v = at < full_prefix ? i : (b[at] ^ (1u << i));
            if (v == b[at])
                continue;
            c[at] = (uint8_t)v;
            if (decode_checked(c, len, "fib-small_n1", at) == GLSTARK_OK)
                ok++;
            else
                bad++;
        }
        c[at] = b[at];
    }
    cr_log_info("fib-small_n1: %zu single-byte mutations%s: %zu decoded (and re-encode exactly), %zu MALFORMED",
                ok + bad, full_prefix == SIZE_MAX ? " (exhaustive)" : "", ok, bad);
    if (full_prefix == SIZE_MAX)
        cr_assert_eq(ok + bad, len * 255);
    cr_assert_gt(bad, 0);
    free(c);
    free(b);
}

/* Random 1-8 byte mutations of the large proofs (seeded). */
Test(hostile_proof, sampled_mutations_of_large_proofs, .timeout = 600)
{
    uint64_t seed = 0x4057113;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (size_t s = 0; s < sizeof LARGE / sizeof LARGE[0]; s++) {
        size_t len;
        uint8_t *b = load_proof(LARGE[s], &len);
        uint8_t *c = hu_copy(b, len);
        size_t ok = 0, bad = 0;
        for (int it = 0; it < 300; it++) {
            memcpy(c, b, len);
            int k = 1 + (int)(splitmix64(&seed) % 8);
            for (int j = 0; j < k; j++)
                c[splitmix64(&seed) % len] = (uint8_t)splitmix64(&seed);
            if (decode_checked(c, len, LARGE[s], (size_t)it) == GLSTARK_OK)
                ok++;
            else
                bad++;
        }
        cr_log_info("%s: 300 random mutations: %zu decoded, %zu MALFORMED", LARGE[s], ok, bad);
        free(c);
        free(b);
    }
}

/* Inputs the fuzzer found (tests/data/fuzz/, also fuzz_proof's seeds). */
/* Encodes p, decodes that and encodes again: the second encoding must equal
 * the first (a fixed point). Returns the first encoding (caller frees). */
static uint8_t *reencode_fixed_point(const gs_proof *p, size_t *len)
{
    gs_error err;
    uint8_t *e1, *e2;
    size_t l1, l2;
    gs_proof q;
    cr_assert_eq(gs_proof_encode(p, &e1, &l1, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_proof_decode(e1, l1, &q, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_proof_encode(&q, &e2, &l2, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(l2 == l1 && memcmp(e1, e2, l1) == 0, "re-encoding is not a fixed point");
    free(e2);
    gs_proof_free(&q);
    *len = l1;
    return e1;
}

Test(hostile_proof, fuzz_regressions)
{
    /* WHIR num_commits 0xFFFFFFFF with no initial queries: was a 16 GiB
     * allocation (commits take no bytes there, so the length check passed) */
    size_t len;
    uint8_t *b = hu_read("fuzz/proof-whir-num-commits-huge.bin", &len);
    gs_proof p;
    gs_error err;
    gs_error_clear(&err);
    cr_assert_eq(gs_proof_decode(b, len, &p, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "num_commits") != NULL, "%s", err.msg);
    free(b);
    /* one WHIR round: the codeword Merkle depth field is read but unused
     * (as in OpenVM), and re-encoded as 0, so the encoding is not canonical
     * there; the re-encoding is a fixed point */
    b = hu_read("fuzz/proof-unused-codeword-depth.bin", &len);
    cr_assert_eq(gs_proof_decode(b, len, &p, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(p.whir.num_rounds, 1);
    size_t l1;
    uint8_t *e1 = reencode_fixed_point(&p, &l1);
    cr_assert(l1 == len && memcmp(e1, b, len) != 0, "expected a different (canonical) re-encoding");
    free(e1);
    gs_proof_free(&p);
    free(b);
    /* three WHIR rounds whose codeword Merkle depth runs below zero in a
     * round that opens no queries: the decoder accepts it (nothing is read
     * at that depth), so the encoder must accept it too (it refused, found
     * by fuzz_proof in CI) */
    b = hu_read("fuzz/proof-depth-below-zero-no-queries.bin", &len);
    cr_assert_eq(gs_proof_decode(b, len, &p, &err), GLSTARK_OK, "%s", err.msg);
    e1 = reencode_fixed_point(&p, &l1);
    free(e1);
    gs_proof_free(&p);
    free(b);
    /* batch sumcheck with n_max rounds whose polynomials have length 0:
     * legal bytes, so they decode; the encoder refused them (found by
     * fuzz_proof in CI). They must re-encode to a fixed point (this input
     * also carries the unused WHIR codeword depth, so not to itself), and
     * the verifier's shape check must reject them. */
    b = hu_read("fuzz/proof-empty-round-polys.bin", &len);
    cr_assert_eq(gs_proof_decode(b, len, &p, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert(p.batch.n_max > 0 && p.batch.round_poly_len == 0);
    e1 = reencode_fixed_point(&p, &l1);
    size_t first_diff = 0;
    while (first_diff < l1 && first_diff < len && e1[first_diff] == b[first_diff])
        first_diff++;
    cr_log_info("empty round polynomials: re-encoding %zu bytes (input %zu), first difference at byte %zu", l1, len,
                first_diff);
    free(e1);
    size_t vk_len;
    uint8_t *vk_bytes = hu_read("fib-small.prevk.bin", &vk_len);
    gs_multi_vk vk;
    cr_assert_eq(gs_vk_from_prevk_bytes(vk_bytes, vk_len, &vk, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_vk_compute_pre_hash(&vk, &err), GLSTARK_OK, "%s", err.msg);
    gs_error_clear(&err);
    cr_assert_eq(gs_verify(&vk, &p, &err), GLSTARK_ERR_REJECTED);
    cr_assert(err.msg[0] != 0);
    cr_log_info("empty round polynomials: %s", err.msg);
    gs_multi_vk_free(&vk);
    free(vk_bytes);
    gs_proof_free(&p);
    free(b);
}
