/* Soundness against hostile proofs: the verifier (gs_verify over decoded
 * bytes) refuses every changed proof.
 *
 *  - single-byte mutations at EVERY byte of fib-small_n1: by default 4
 *    values per byte (^0x01, ^0x80, 0x00, 0xff); under -Dslow_tests=true
 *    all 255 other values of every byte (exhaustive, 1.6 M verifications),
 *    and the 4 values per byte of fib-small_n4 too. Each is MALFORMED (decoder) or
 *    REJECTED (verifier). The one inherent exception: a changed PoW witness
 *    that still satisfies its PoW can give another valid proof when nothing
 *    later depends on the challenge it changes; such an accepted change must
 *    touch nothing but PoW witnesses (checked by restoring the witnesses and
 *    re-encoding to the original bytes), and must be rare;
 *  - sampled random 1-4 byte mutations of fib-app18 (and of keccak under
 *    slow_tests);
 *  - proofs checked against another AIR's key: REJECTED;
 *  - every public value of every small proof changed (+1, -1 mod p, 0 when
 *    nonzero), one public value added or removed: REJECTED. */
#include "hostile_util.h"

#include "air/keygen.h"
#include "common/proof.h"
#include "verify/verifier.h"
#include "../util/pow_witness.h"

static void load_vk(const char *air, gs_multi_vk *vk)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s.prevk.bin", air);
    size_t len;
    uint8_t *b = hu_read(rel, &len);
    gs_error err;
    cr_assert_eq(gs_vk_from_prevk_bytes(b, len, vk, &err), GLSTARK_OK, "%s: %s", air, err.msg);
    cr_assert_eq(gs_vk_compute_pre_hash(vk, &err), GLSTARK_OK, "%s: %s", air, err.msg);
    free(b);
}

static uint8_t *load_proof_bytes(const char *spec, size_t *len)
{
    char rel[256];
    snprintf(rel, sizeof rel, "openvm/%s.proof.bin", spec);
    return hu_read(rel, len);
}

typedef struct tally {
    size_t malformed, rejected, witness_only;
} tally;

/* Decodes and verifies b (a changed copy of orig, whose decoding is op). */
static void judge(const gs_multi_vk *vk, const gs_proof *op, const uint8_t *orig, const uint8_t *b, size_t len,
                  const char *what, size_t at, unsigned val, tally *t)
{
    gs_proof p;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_proof_decode(b, len, &p, &err);
    if (st) {
        cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "%s byte %zu := 0x%02x: decode %s", what, at, val,
                     glstark_status_name(st));
        t->malformed++;
        return;
    }
    st = gs_verify(vk, &p, &err);
    if (st == GLSTARK_OK) {
        cr_assert(pw_differs_only_in_pow_witnesses(op, &p, orig, len),
                  "%s byte %zu := 0x%02x: a changed proof was ACCEPTED and the change is not a PoW witness", what, at,
                  val);
        t->witness_only++;
    } else {
        cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s byte %zu := 0x%02x: verify %s (%s)", what, at, val,
                     glstark_status_name(st), err.msg);
        cr_assert(err.msg[0] != 0);
        t->rejected++;
    }
    gs_proof_free(&p);
}

static void single_byte_mutations(const char *spec, const char *air, int exhaustive)
{
    gs_multi_vk vk;
    load_vk(air, &vk);
    size_t len;
    uint8_t *orig = load_proof_bytes(spec, &len);
    gs_proof op;
    gs_error err;
    cr_assert_eq(gs_proof_decode(orig, len, &op, &err), GLSTARK_OK);
    cr_assert_eq(gs_verify(&vk, &op, &err), GLSTARK_OK, "the unchanged proof must verify: %s", err.msg);
    uint8_t *b = hu_copy(orig, len);
    tally t = {0, 0, 0};
    size_t tried = 0;
    for (size_t at = 0; at < len; at++) {
        unsigned vals[4] = {orig[at] ^ 0x01u, orig[at] ^ 0x80u, 0x00, 0xff};
        for (unsigned i = 0; i < (exhaustive ? 256u : 4u); i++) {
            unsigned v = exhaustive ? i : vals[i];
            if (v == orig[at] || (!exhaustive && i >= 2 && (v == vals[0] || v == vals[1])))
                continue;
            b[at] = (uint8_t)v;
            judge(&vk, &op, orig, b, len, spec, at, v, &t);
            tried++;
        }
        b[at] = orig[at];
    }
    cr_log_info("%s: %zu single-byte mutations%s: %zu MALFORMED, %zu REJECTED, %zu accepted (PoW witness only)", spec,
                tried, exhaustive ? " (exhaustive)" : "", t.malformed, t.rejected, t.witness_only);
    cr_assert_eq(tried, t.malformed + t.rejected + t.witness_only);
    cr_assert(t.witness_only * 100 < tried, "%s: too many accepted witness changes", spec);
    free(b);
    free(orig);
    gs_proof_free(&op);
    gs_multi_vk_free(&vk);
}

Test(soundness, single_byte_mutations_fib_small_n1, .timeout = 3600)
{
#if defined(GLSTARK_SLOW_TESTS)
    single_byte_mutations("fib-small_n1", "fib-small", 1);
#else
    single_byte_mutations("fib-small_n1", "fib-small", 0);
#endif
}

#if defined(GLSTARK_SLOW_TESTS)
Test(soundness, single_byte_mutations_fib_small_n4, .timeout = 600)
{
    single_byte_mutations("fib-small_n4", "fib-small", 0);
}
#endif

static void sampled_mutations(const char *spec, const char *air, int n, uint64_t seed)
{
    gs_multi_vk vk;
    load_vk(air, &vk);
    size_t len;
    uint8_t *orig = load_proof_bytes(spec, &len);
    gs_proof op;
    gs_error err;
    cr_assert_eq(gs_proof_decode(orig, len, &op, &err), GLSTARK_OK);
    uint8_t *b = hu_copy(orig, len);
    tally t = {0, 0, 0};
    cr_log_info("%s: seed %llu", spec, (unsigned long long)seed);
    for (int it = 0; it < n; it++) {
        memcpy(b, orig, len);
        int k = 1 + (int)(splitmix64(&seed) % 4);
        size_t at = 0;
        for (int j = 0; j < k; j++) {
            at = splitmix64(&seed) % len;
            b[at] ^= (uint8_t)(1 + splitmix64(&seed) % 255);
        }
        judge(&vk, &op, orig, b, len, spec, at, b[at], &t);
    }
    cr_log_info("%s: %d sampled mutations: %zu MALFORMED, %zu REJECTED, %zu accepted (PoW witness only)", spec, n,
                t.malformed, t.rejected, t.witness_only);
    free(b);
    free(orig);
    gs_proof_free(&op);
    gs_multi_vk_free(&vk);
}

Test(soundness, sampled_mutations_fib_app18, .timeout = 600) { sampled_mutations("fib-app18_n10", "fib-app18", 60, 0xA918); }

#if defined(GLSTARK_SLOW_TESTS)
Test(soundness, sampled_mutations_keccak, .timeout = 3600)
{
    sampled_mutations("keccak-app21_p16", "keccak-app21", 20, 0x6ECC);
}
#endif

static glstark_status verify_spec(const gs_multi_vk *vk, const char *spec, gs_error *err)
{
    size_t len;
    uint8_t *b = load_proof_bytes(spec, &len);
    glstark_status st = gs_verify_bytes(vk, b, len, err);
    free(b);
    return st;
}

Test(soundness, proofs_for_another_key)
{
    static const char *const air[] = {"fib-small", "interactions-small", "fib-app18"};
    static const char *const spec[][2] = {{"fib-small_n4", "fib-small_n1"},
                                          {"interactions-small", "interactions-small"},
                                          {"fib-app18_n10", "fib-app18_n10"}};
    for (int k = 0; k < 3; k++) {
        gs_multi_vk vk;
        load_vk(air[k], &vk);
        for (int s = 0; s < 3; s++) {
            for (int j = 0; j < 2; j++) {
                gs_error err;
                gs_error_clear(&err);
                glstark_status st = verify_spec(&vk, spec[s][j], &err);
                if (s == k)
                    cr_assert_eq(st, GLSTARK_OK, "%s with its own key: %s", spec[s][j], err.msg);
                else
                    cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s with the key of %s: %s (%s)", spec[s][j], air[k],
                                 glstark_status_name(st), err.msg);
            }
        }
        gs_multi_vk_free(&vk);
    }
}

Test(soundness, public_values_changed)
{
    static const char *const specs[][2] = {{"fib-small_n1", "fib-small"}, {"fib-small_n4", "fib-small"},
                                           {"fib-small_n10", "fib-small"}, {"interactions-small", "interactions-small"},
                                           {"fib-app18_n10", "fib-app18"}};
    size_t changed = 0;
    for (int s = 0; s < 5; s++) {
        gs_multi_vk vk;
        load_vk(specs[s][1], &vk);
        size_t len;
        uint8_t *orig = load_proof_bytes(specs[s][0], &len);
        gs_proof p;
        gs_error err;
        cr_assert_eq(gs_proof_decode(orig, len, &p, &err), GLSTARK_OK);
        cr_assert_eq(gs_verify(&vk, &p, &err), GLSTARK_OK, "%s: %s", specs[s][0], err.msg);
        for (uint32_t a = 0; a < p.num_public_value_lists; a++) {
            for (uint32_t i = 0; i < p.public_values[a].len; i++) {
                bb_t keep = p.public_values[a].v[i];
                bb_t alts[3] = {bb_add(keep, bb_from_canonical(1)), bb_sub(keep, bb_from_canonical(1)), 0};
                for (int v = 0; v < 3; v++) {
                    if (alts[v] == keep)
                        continue;
                    p.public_values[a].v[i] = alts[v];
                    glstark_status st = gs_verify(&vk, &p, &err);
                    cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s: public value [%u][%u] changed: %s (%s)", specs[s][0],
                                 a, i, glstark_status_name(st), err.msg);
                    changed++;
                }
                p.public_values[a].v[i] = keep;
            }
            /* one public value fewer, one more */
            uint32_t n = p.public_values[a].len;
            if (n > 0) {
                p.public_values[a].len = n - 1;
                cr_assert_eq(gs_verify(&vk, &p, &err), GLSTARK_ERR_REJECTED, "%s: list %u shortened", specs[s][0], a);
            }
            bb_t *more = malloc((n + 1) * sizeof(bb_t));
            memcpy(more, p.public_values[a].v, n * sizeof(bb_t));
            more[n] = bb_from_canonical(7);
            bb_t *old = p.public_values[a].v;
            p.public_values[a].v = more;
            p.public_values[a].len = n + 1;
            cr_assert_eq(gs_verify(&vk, &p, &err), GLSTARK_ERR_REJECTED, "%s: list %u lengthened", specs[s][0], a);
            p.public_values[a].v = old;
            p.public_values[a].len = n;
            free(more);
        }
        cr_assert_eq(gs_verify(&vk, &p, &err), GLSTARK_OK, "%s: restored proof: %s", specs[s][0], err.msg);
        gs_proof_free(&p);
        free(orig);
        gs_multi_vk_free(&vk);
    }
    cr_log_info("%zu changed public values, all REJECTED", changed);
    cr_assert_gt(changed, 0);
}
