/* The public prove/verify API end to end (CPU engine): OpenVM's shared
 * proofs verify against glstark's keys, glstark's own proofs verify and
 * equal OpenVM's bytes, and the verifier rejects every single-byte change
 * of a small proof, truncation, padding, wrong public values and proofs
 * for another AIR or other parameters. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glstark/glstark.h"
#include "common/proof.h"
#include "../util/splitmix.h"

/* A changed proof that still verifies is allowed only when the change is
 * confined to a proof-of-work witness: another witness that also passes the
 * grinding check (1 in 2^bits) changes only the challenge sampled after it,
 * and the last WHIR folding challenge of a small Fibonacci proof does not
 * enter any check (the folded polynomial does not depend on that variable:
 * 16 trace rows in a 2^10-row stacked column), so OpenVM's verifier, which
 * checks the same equations, accepts such proofs as well. Restoring the
 * witnesses must give back the original bytes. */
static int only_witnesses_changed(const uint8_t *orig, size_t n, const uint8_t *changed)
{
    gs_proof a, c;
    gs_error err;
    if (gs_proof_decode(orig, n, &a, &err))
        return 0;
    if (gs_proof_decode(changed, n, &c, &err)) {
        gs_proof_free(&a);
        return 0;
    }
    c.gkr.logup_pow_witness = a.gkr.logup_pow_witness;
    c.whir.mu_pow_witness = a.whir.mu_pow_witness;
    for (uint32_t i = 0; i < a.whir.num_rounds * a.whir.k; i++)
        c.whir.folding_pow_witnesses[i] = a.whir.folding_pow_witnesses[i];
    for (uint32_t i = 0; i < a.whir.num_rounds; i++)
        c.whir.query_pow_witnesses[i] = a.whir.query_pow_witnesses[i];
    uint8_t *e = NULL;
    size_t en = 0;
    int same = gs_proof_encode(&c, &e, &en, &err) == GLSTARK_OK && en == n && memcmp(e, orig, n) == 0;
    free(e);
    gs_proof_free(&a);
    gs_proof_free(&c);
    return same;
}

static uint8_t *data(const char *name, size_t *n)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/openvm/%s", GLSTARK_TEST_DATA, name);
    uint8_t *b;
    cr_assert_eq(glstark_read_file(path, &b, n, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    return b;
}

typedef struct keys {
    glstark_air *airs[2];
    size_t n;
    glstark_params *p;
    glstark_proving_key *pk;
    glstark_verifying_key *vk;
} keys;

static void make_keys(keys *k, int which, int app_L)
{
    memset(k, 0, sizeof *k);
    char msg[1024];
    if (which == 0) {
        cr_assert_eq(glstark_fibonacci_air(&k->airs[0]), GLSTARK_OK);
        k->n = 1;
    } else {
        cr_assert_eq(glstark_interactions_fixture_airs(k->airs), GLSTARK_OK);
        k->n = 2;
    }
    if (app_L)
        cr_assert_eq(glstark_params_app_100_bits((size_t)app_L, &k->p, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    else
        cr_assert_eq(glstark_params_test_small(&k->p), GLSTARK_OK);
    cr_assert_eq(glstark_keygen(k->airs, k->n, k->p, &k->pk, &k->vk, msg, sizeof msg), GLSTARK_OK, "%s", msg);
}

static void free_keys(keys *k)
{
    glstark_verifying_key_destroy(k->vk);
    glstark_proving_key_destroy(k->pk);
    glstark_params_destroy(k->p);
    for (size_t i = 0; i < k->n; i++)
        glstark_air_destroy(k->airs[i]);
}

static glstark_status verify(const keys *k, const uint8_t *b, size_t n, char *msg)
{
    return glstark_verify(k->vk, b, n, msg, 1024);
}

Test(prove_api, openvm_proofs_verify)
{
    const char *fib[] = {"fib-small_n1.proof.bin", "fib-small_n2.proof.bin", "fib-small_n3.proof.bin",
                         "fib-small_n4.proof.bin", "fib-small_n10.proof.bin"};
    keys k;
    char msg[1024];
    size_t n;
    make_keys(&k, 0, 0);
    for (int i = 0; i < 5; i++) {
        uint8_t *b = data(fib[i], &n);
        cr_assert_eq(verify(&k, b, n, msg), GLSTARK_OK, "%s: %s", fib[i], msg);
        free(b);
    }
    /* the interactions proof is for another AIR set: rejected */
    uint8_t *ix = data("interactions-small.proof.bin", &n);
    cr_assert_eq(verify(&k, ix, n, msg), GLSTARK_ERR_REJECTED, "%s", msg);
    free_keys(&k);
    make_keys(&k, 1, 0);
    cr_assert_eq(verify(&k, ix, n, msg), GLSTARK_OK, "%s", msg);
    free(ix);
    uint8_t *f4 = data("fib-small_n4.proof.bin", &n);
    cr_assert_eq(verify(&k, f4, n, msg), GLSTARK_ERR_REJECTED, "%s", msg);
    free_keys(&k);
    /* same AIR, other params (another vk): rejected */
    make_keys(&k, 0, 18);
    cr_assert_eq(verify(&k, f4, n, msg), GLSTARK_ERR_REJECTED, "%s", msg);
    free(f4);
    uint8_t *app = data("fib-app18_n10.proof.bin", &n);
    cr_assert_eq(verify(&k, app, n, msg), GLSTARK_OK, "%s", msg);
    free(app);
    free_keys(&k);
}

static void own_fib(const keys *k, unsigned log_n, glstark_prove_result *r)
{
    size_t h = (size_t)1 << log_n;
    uint32_t *tr = malloc(2 * h * sizeof(uint32_t)), pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};
    cr_assert_eq(glstark_prove(k->pk, &t, 1, NULL, r), GLSTARK_OK, "%s", r->message);
    free(tr);
}

/* traces_released: what the callback may do to the caller's arrays. */
typedef struct release_probe {
    int calls;
    uint32_t *values, *publics;
    size_t n_values, n_publics;
} release_probe;

static void scribble(void *user)
{
    release_probe *p = user;
    p->calls++;
    memset(p->values, 0xFF, p->n_values * sizeof *p->values); /* not field words: any later read would show */
    memset(p->publics, 0xFF, p->n_publics * sizeof *p->publics);
}

/* The callback comes once, after which the prover reads neither the values
 * nor the public values: scribbling over both in it still gives OpenVM's
 * bytes. A proof refused before the upload never calls it. */
Test(prove_api, traces_released_once_then_unread)
{
    keys k;
    make_keys(&k, 0, 0);
    size_t h = 1024;
    uint32_t *tr = malloc(2 * h * sizeof(uint32_t)), pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};
    release_probe probe = {0, tr, pv, 2 * h, 3};
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.traces_released = scribble;
    o.traces_released_user = &probe;
    glstark_prove_result r;
    cr_assert_eq(glstark_prove(k.pk, &t, 1, &o, &r), GLSTARK_OK, "%s", r.message);
    cr_assert_eq(probe.calls, 1, "traces_released called %d times", probe.calls);
    size_t n;
    uint8_t *want = data("fib-small_n10.proof.bin", &n);
    cr_assert(n == r.proof_len && memcmp(want, r.proof, n) == 0,
              "the proof changed when the trace was overwritten after traces_released");
    free(want);
    glstark_prove_result_free(&r);

    /* refused by the constraint check, before the upload: no call */
    probe.calls = 0;
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    tr[5] += 1;
    cr_assert_eq(glstark_prove(k.pk, &t, 1, &o, &r), GLSTARK_ERR_UNSATISFIED, "%s", r.message);
    cr_assert_eq(probe.calls, 0, "traces_released called for a proof refused before the upload");
    free(tr);
    free_keys(&k);
}

/* The codeword policy: AUTO keeps it on the CPU engine, REENCODE frees it
 * after the tree and encodes it again for the queries; both give OpenVM's
 * bytes, the stats say which ran, and the re-encoding lowers the engine's
 * buffer peak. A value outside the enum is refused with a message. */
Test(prove_api, codeword_policies)
{
    keys k;
    make_keys(&k, 0, 0);
    size_t h = 1024, n;
    uint32_t *tr = malloc(2 * h * sizeof(uint32_t)), pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};
    uint8_t *want = data("fib-small_n10.proof.bin", &n);
    const glstark_codeword_policy pol[3] = {GLSTARK_CODEWORD_AUTO, GLSTARK_CODEWORD_KEEP, GLSTARK_CODEWORD_REENCODE};
    size_t peak[3];
    for (int i = 0; i < 3; i++) {
        glstark_prove_stats stats;
        glstark_prove_stats_init(&stats);
        stats.codeword_reencoded = -1; /* poisoned: the library must write it */
        glstark_prove_options o;
        glstark_prove_options_init(&o);
        o.codeword = pol[i];
        o.stats = &stats;
        glstark_prove_result r;
        cr_assert_eq(glstark_prove(k.pk, &t, 1, &o, &r), GLSTARK_OK, "policy %d: %s", (int)pol[i], r.message);
        cr_assert(n == r.proof_len && memcmp(want, r.proof, n) == 0, "policy %d: bytes differ from OpenVM's",
                  (int)pol[i]);
        cr_assert_eq(stats.codeword_reencoded, pol[i] == GLSTARK_CODEWORD_REENCODE,
                     "policy %d on the CPU engine: codeword_reencoded %d", (int)pol[i], stats.codeword_reencoded);
        peak[i] = stats.device_bytes_peak;
        glstark_prove_result_free(&r);
    }
    cr_log_info("engine buffer peak: keep %zu, re-encode %zu bytes", peak[1], peak[2]);
    cr_assert(peak[2] < peak[1], "re-encoding did not lower the peak (%zu >= %zu)", peak[2], peak[1]);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.codeword = (glstark_codeword_policy)7;
    glstark_prove_result r;
    cr_assert_eq(glstark_prove(k.pk, &t, 1, &o, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(r.message, "codeword policy 7") != NULL, "%s", r.message);
    free(want);
    free(tr);
    free_keys(&k);
}

Test(prove_api, own_proofs_verify_and_equal_openvm)
{
    keys k;
    char msg[1024];
    make_keys(&k, 0, 0);
    glstark_prove_result r;
    own_fib(&k, 10, &r);
    cr_assert_eq(verify(&k, r.proof, r.proof_len, msg), GLSTARK_OK, "%s", msg);
    size_t n;
    uint8_t *want = data("fib-small_n10.proof.bin", &n);
    cr_assert(n == r.proof_len && memcmp(want, r.proof, n) == 0, "fib-small_n10 bytes differ from OpenVM's");
    free(want);
    cr_assert_eq(r.fallback_phases, 0);
    glstark_prove_result_free(&r);
    free_keys(&k);

    make_keys(&k, 1, 0);
    uint32_t s[8], rc[16];
    glstark_interactions_fixture_traces(s, rc);
    glstark_air_trace t[2] = {{4, {s, 2}, NULL, NULL, 0}, {8, {rc, 2}, NULL, NULL, 0}};
    cr_assert_eq(glstark_prove(k.pk, t, 2, NULL, &r), GLSTARK_OK, "%s", r.message);
    cr_assert_eq(verify(&k, r.proof, r.proof_len, msg), GLSTARK_OK, "%s", msg);
    glstark_prove_result_free(&r);
    /* an unbalanced bus is refused before proving */
    rc[8 + 2] += 1;
    cr_assert_eq(glstark_prove(k.pk, t, 2, NULL, &r), GLSTARK_ERR_UNSATISFIED);
    cr_log_info("%s", r.message);
    free_keys(&k);
}

Test(prove_api, rejects_tampering, .timeout = 120)
{
    keys k;
    char msg[1024];
    make_keys(&k, 0, 0);
    glstark_prove_result r;
    own_fib(&k, 4, &r);
    size_t n = r.proof_len;
    uint8_t *b = malloc(n + 1);
    memcpy(b, r.proof, n);
    /* every single-byte change (xor 0x01 and xor 0x80) */
    size_t malformed = 0, rejected = 0, other_witness = 0;
    for (size_t i = 0; i < n; i++) {
        for (int m = 0; m < 2; m++) {
            b[i] ^= m ? 0x80 : 0x01;
            glstark_status st = verify(&k, b, n, msg);
            if (st == GLSTARK_OK && only_witnesses_changed(r.proof, n, b)) {
                other_witness++;
                b[i] ^= m ? 0x80 : 0x01;
                continue;
            }
            cr_assert(st == GLSTARK_ERR_REJECTED || st == GLSTARK_ERR_MALFORMED,
                      "byte %zu ^ %s of %zu: status %s (%s)", i, m ? "0x80" : "0x01", n, glstark_status_name(st),
                      msg);
            if (st == GLSTARK_ERR_MALFORMED)
                malformed++;
            else
                rejected++;
            b[i] ^= m ? 0x80 : 0x01;
        }
    }
    cr_log_info("%zu single-byte changes: %zu malformed, %zu rejected, %zu accepted: another valid PoW "
                "witness (see only_witnesses_changed)",
                2 * n, malformed, rejected, other_witness);
    cr_assert(other_witness <= 2 * 4 * 16, "too many accepted changes: %zu", other_witness);
    cr_assert_eq(verify(&k, b, n, msg), GLSTARK_OK, "%s", msg);
    /* truncated and padded */
    for (size_t cut = 0; cut < n; cut += 97)
        cr_assert_eq(verify(&k, b, cut, msg), GLSTARK_ERR_MALFORMED, "truncated to %zu", cut);
    cr_assert_eq(verify(&k, b, n - 1, msg), GLSTARK_ERR_MALFORMED);
    b[n] = 0;
    cr_assert_eq(verify(&k, b, n + 1, msg), GLSTARK_ERR_MALFORMED);
    /* wrong public values, re-encoded as a well-formed proof */
    gs_proof pf;
    gs_error err;
    cr_assert_eq(gs_proof_decode(b, n, &pf, &err), GLSTARK_OK, "%s", err.msg);
    pf.public_values[0].v[2] = bb_add(pf.public_values[0].v[2], bb_one());
    uint8_t *e;
    size_t en;
    cr_assert_eq(gs_proof_encode(&pf, &e, &en, &err), GLSTARK_OK);
    cr_assert_eq(verify(&k, e, en, msg), GLSTARK_ERR_REJECTED);
    cr_log_info("wrong public value: %s", msg);
    free(e);
    gs_proof_free(&pf);
    free(b);
    glstark_prove_result_free(&r);
    free_keys(&k);
}

Test(prove_api, bad_arguments)
{
    char msg[256];
    glstark_params *p;
    cr_assert_eq(glstark_params_app_100_bits(40, &p, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(p == NULL && msg[0]);
    uint8_t *b;
    size_t n;
    cr_assert_eq(glstark_read_file("/nonexistent/glstark.proof", &b, &n, msg, sizeof msg), GLSTARK_ERR_IO);
    cr_assert(strstr(msg, "/nonexistent") != NULL);
    glstark_prove_result r;
    cr_assert_eq(glstark_prove(NULL, NULL, 0, NULL, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    keys k;
    make_keys(&k, 0, 0);
    uint8_t *vb;
    size_t vn;
    cr_assert_eq(glstark_verifying_key_encode(k.vk, &vb, &vn), GLSTARK_OK);
    glstark_verifying_key *vk2;
    cr_assert_eq(glstark_verifying_key_decode(vb, vn, &vk2, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    size_t pn;
    uint8_t *f4 = data("fib-small_n4.proof.bin", &pn);
    cr_assert_eq(glstark_verify(vk2, f4, pn, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_verifying_key_destroy(vk2); /* before the failing decode overwrites vk2 (leak under ASan) */
    cr_assert_eq(glstark_verifying_key_decode(vb, vn - 3, &vk2, msg, sizeof msg), GLSTARK_ERR_MALFORMED);
    cr_assert_null(vk2);
    /* the decoded OpenVM vk bytes are the shared prevk file */
    char path[1024];
    snprintf(path, sizeof path, "%s/fib-small.prevk.bin", GLSTARK_TEST_DATA);
    uint8_t *want;
    size_t wn;
    cr_assert_eq(glstark_read_file(path, &want, &wn, msg, sizeof msg), GLSTARK_OK);
    cr_assert(wn == vn && memcmp(want, vb, vn) == 0);
    glstark_free(want);
    glstark_free(vb);
    free(f4);
    free_keys(&k);
}

/* Every entry point of the prove API on NULL or impossible arguments: a
 * status (INVALID_ARGUMENT or IO), a message where the call takes a buffer,
 * outputs left NULL, and no crash; the destroy and free calls take NULL. */
Test(prove_api, null_and_impossible_arguments)
{
    char msg[512];
    glstark_params *p = NULL;
    cr_assert_eq(glstark_params_test_small(NULL), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_params_app_100_bits(21, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_params_test_small(&p), GLSTARK_OK);
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    glstark_proving_key *pk = (glstark_proving_key *)&msg; /* must be reset to NULL */
    glstark_verifying_key *vk = NULL;
    msg[0] = 0;
    cr_assert_eq(glstark_keygen(NULL, 1, p, &pk, &vk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(pk == NULL && vk == NULL && msg[0] != 0, "keygen without AIRs: '%s'", msg);
    cr_assert_eq(glstark_keygen(&air, 1, NULL, &pk, &vk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_keygen(&air, 1, p, NULL, &vk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_keygen(&air, 1, p, &pk, NULL, NULL, 0), GLSTARK_OK); /* vk optional, msg optional */
    uint8_t *b = NULL;
    size_t n = 0;
    cr_assert_eq(glstark_verifying_key_encode(NULL, &b, &n), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_verifying_key_decode(NULL, 10, &vk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_null(vk);
    msg[0] = 0;
    cr_assert_eq(glstark_verify(NULL, (const uint8_t *)"x", 1, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(msg[0] != 0);
    glstark_prove_result r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(glstark_prove(pk, NULL, 1, NULL, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_prove_result_free(&r);
    b = (uint8_t *)msg; /* must be reset to NULL */
    cr_assert_eq(glstark_read_file(NULL, &b, &n, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(b == NULL && n == 0 && strstr(msg, "NULL") != NULL, "%s", msg);
    cr_assert_eq(glstark_write_file(NULL, (const uint8_t *)"x", 1, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "NULL") != NULL, "%s", msg);
    msg[0] = 0;
    cr_assert_eq(glstark_write_file("/nonexistent/dir/glstark.proof", (const uint8_t *)"x", 1, msg, sizeof msg),
                 GLSTARK_ERR_IO);
    cr_assert(strstr(msg, "/nonexistent/dir/glstark.proof") != NULL, "%s", msg);
    cr_assert_eq(glstark_params_log_stacked_height(NULL), 0);
    glstark_proving_key_destroy(NULL);
    glstark_verifying_key_destroy(NULL);
    glstark_params_destroy(NULL);
    glstark_prove_result_free(NULL);
    glstark_free(NULL);
    glstark_proving_key_destroy(pk);
    glstark_params_destroy(p);
    glstark_air_destroy(air);
}

/* The verifying key taken from a proving key is the keygen's: the same
 * bytes (OpenVM's prevk file for fib-small), and it verifies OpenVM's proof;
 * NULL arguments are refused. */
Test(prove_api, verifying_key_from_proving_key)
{
    keys k;
    make_keys(&k, 0, 0);
    glstark_verifying_key *vk2 = NULL;
    vk2 = (glstark_verifying_key *)&k; /* must be reset to NULL */
    cr_assert_eq(glstark_proving_key_verifying_key(NULL, &vk2), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_null(vk2);
    cr_assert_eq(glstark_proving_key_verifying_key(k.pk, NULL), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_proving_key_verifying_key(k.pk, &vk2), GLSTARK_OK);
    cr_assert_not_null(vk2);
    uint8_t *a, *b;
    size_t an, bn;
    cr_assert_eq(glstark_verifying_key_encode(k.vk, &a, &an), GLSTARK_OK);
    cr_assert_eq(glstark_verifying_key_encode(vk2, &b, &bn), GLSTARK_OK);
    cr_assert(an == bn && memcmp(a, b, an) == 0, "the vk from the pk encodes differently (%zu vs %zu bytes)", an, bn);
    char msg[1024];
    size_t pn;
    uint8_t *f4 = data("fib-small_n4.proof.bin", &pn);
    cr_assert_eq(glstark_verify(vk2, f4, pn, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    free(f4);
    glstark_free(a);
    glstark_free(b);
    glstark_verifying_key_destroy(vk2);
    free_keys(&k);
}

/* Sampled single-byte changes of OpenVM's large fib-app18 proof (fixed
 * seed, printed): each is malformed or rejected. */
Test(prove_api, rejects_sampled_changes_app18, .timeout = 120)
{
    keys k;
    char msg[1024];
    make_keys(&k, 0, 18);
    size_t n;
    uint8_t *b = data("fib-app18_n10.proof.bin", &n);
    uint64_t seed = 0x5eed0018u, x = seed;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int s = 0; s < 64; s++) {
        uint64_t z = splitmix64(&x);
        size_t i = (size_t)(z % n);
        uint8_t mask = (uint8_t)(1u << ((z >> 40) & 7));
        b[i] ^= mask;
        glstark_status st = verify(&k, b, n, msg);
        cr_assert(st == GLSTARK_ERR_REJECTED || st == GLSTARK_ERR_MALFORMED, "byte %zu ^ 0x%02x: %s (%s)", i, mask,
                  glstark_status_name(st), msg);
        b[i] ^= mask;
    }
    cr_assert_eq(verify(&k, b, n, msg), GLSTARK_OK, "%s", msg);
    free(b);
    free_keys(&k);
}

/* The version names the release and the commit the library was built from. */
/* The CPU engine's vector set: one of the names, "none" when capped so,
 * and an error text (and a refused engine) for a set that does not exist. */
Test(prove_api, cpu_vector_set)
{
    const char *v = glstark_cpu_vector_set();
    cr_assert(!strcmp(v, "avx512") || !strcmp(v, "avx2") || !strcmp(v, "none"), "vector set '%s'", v);
    cr_log_info("CPU vector set here: %s", v);
    setenv("GLSTARK_CPU_SIMD", "none", 1);
    cr_assert_str_eq(glstark_cpu_vector_set(), "none");
    setenv("GLSTARK_CPU_SIMD", "avx3000", 1);
    cr_assert_str_eq(glstark_cpu_vector_set(), "invalid GLSTARK_CPU_SIMD");
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_CPU;
    glstark_device *dev = NULL;
    char msg[512];
    cr_assert_neq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_OK, "a CPU device opened with a bad set");
    cr_log_info("%s", msg);
    unsetenv("GLSTARK_CPU_SIMD");
}

Test(prove_api, version_string)
{
    const char *v = glstark_version();
    cr_assert_not_null(v);
    cr_log_info("glstark %s", v);
    cr_assert(strncmp(v, GLSTARK_PROJECT_VERSION " (", strlen(GLSTARK_PROJECT_VERSION) + 2) == 0, "'%s'", v);
    size_t n = strlen(v);
    cr_assert(n > strlen(GLSTARK_PROJECT_VERSION) + 3 && v[n - 1] == ')', "'%s' lacks a commit", v);
}
