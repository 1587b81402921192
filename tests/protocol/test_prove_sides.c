/* Proofs of AIRs with preprocessed traces and cached mains on the CPU
 * engine, through the public API (the AIRs: sides_fixture.h). OpenVM
 * publishes no proof of such an AIR to hold these byte for byte, so the
 * checks are: the verifier (held to OpenVM's proofs of common-main AIRs by
 * test_verifier) accepts them, the GLES engine gives the same bytes
 * (test_sides_gles), a fallback engine gives the same bytes, and everything
 * that should fail does: a change at every byte of a proof, another case's
 * key, unsatisfied cached or preprocessed data (refused before proving, and
 * rejected by the verifier when proven anyway), the verifier's
 * side-specific checks, a preprocessed trace changed after keygen, and
 * traces of the wrong shape. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "engine/engine.h"
#include "prove/prep_commit.h"
#include "common/proof.h"
#include "prove/prover.h"
#include "sides_fixture.h"
#include "../util/pow_witness.h"

static glstark_status prove_case(const sides_case *c, const glstark_air_trace *t, int skip_check,
                                 glstark_codeword_policy cw, glstark_prove_result *r)
{
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.cpu_threads = 2;
    o.skip_constraint_check = skip_check;
    o.codeword = cw;
    return glstark_prove(c->pk, t, 3, &o, r);
}

static void expect_refused(glstark_status st, const char *what, const sides_case *c)
{
    cr_assert(st == GLSTARK_ERR_REJECTED || st == GLSTARK_ERR_MALFORMED, "%s: %s: status %s", c->desc, what,
              glstark_status_name(st));
}

Test(prove_sides, proofs_verify_and_tampering_is_rejected, .timeout = 300)
{
    uint8_t *prev = NULL;
    size_t prev_len = 0;
    for (size_t k = 0; k < SIDES_NSPECS; k++) {
        sides_case c;
        sides_case_from_spec(&c, &sides_specs[k]);
        cr_log_info("case %zu: %s", k, c.desc);
        glstark_air_trace t[3];
        sides_case_traces(&c, t);
        glstark_prove_result r, rr;
        glstark_status st = prove_case(&c, t, 0, GLSTARK_CODEWORD_KEEP, &r);
        cr_assert_eq(st, GLSTARK_OK, "%s: %s", c.desc, r.message);
        char msg[1024];
        st = glstark_verify(c.vk, r.proof, r.proof_len, msg, sizeof msg);
        cr_assert_eq(st, GLSTARK_OK, "%s: %s", c.desc, msg);
        /* re-encoding the codewords for WHIR gives the same proof */
        st = prove_case(&c, t, 0, GLSTARK_CODEWORD_REENCODE, &rr);
        cr_assert_eq(st, GLSTARK_OK, "%s: %s", c.desc, rr.message);
        cr_assert(rr.proof_len == r.proof_len && !memcmp(rr.proof, r.proof, r.proof_len),
                  "%s: the re-encoded codewords gave another proof", c.desc);
        glstark_prove_result_free(&rr);
        /* the key through its encoding (the preprocessed commitments with it) */
        uint8_t *vkb = NULL;
        size_t vkl = 0;
        glstark_verifying_key *vk2 = NULL;
        cr_assert_eq(glstark_verifying_key_encode(c.vk, &vkb, &vkl), GLSTARK_OK);
        cr_assert_eq(glstark_verifying_key_decode(vkb, vkl, &vk2, msg, sizeof msg), GLSTARK_OK, "%s", msg);
        cr_assert_eq(glstark_verify(vk2, r.proof, r.proof_len, msg, sizeof msg), GLSTARK_OK, "%s: %s", c.desc, msg);
        glstark_verifying_key_destroy(vk2);
        glstark_free(vkb);
        /* flipped bytes, seeded */
        uint64_t s = c.seed ^ 0xB17Eu;
        uint8_t *bad = malloc(r.proof_len);
        cr_assert_not_null(bad);
        for (int rep = 0; rep < 8; rep++) {
            memcpy(bad, r.proof, r.proof_len);
            size_t at = (size_t)(splitmix64(&s) % r.proof_len);
            bad[at] ^= (uint8_t)(1u << (splitmix64(&s) % 8));
            expect_refused(glstark_verify(c.vk, bad, r.proof_len, msg, sizeof msg), "flipped byte", &c);
        }
        free(bad);
        /* the previous case's proof against this key */
        if (prev)
            expect_refused(glstark_verify(c.vk, prev, prev_len, msg, sizeof msg), "another case's proof", &c);
        free(prev);
        prev = malloc(r.proof_len);
        cr_assert_not_null(prev);
        memcpy(prev, r.proof, r.proof_len);
        prev_len = r.proof_len;
        glstark_prove_result_free(&r);
        sides_case_free(&c);
    }
    free(prev);
}

/* A cached main (or the multiplicities against the preprocessed table)
 * broken in one cell: the checker names the failure; proven anyway, the
 * verifier rejects the proof. */
Test(prove_sides, unsatisfied_side_traces_are_refused_and_their_proofs_rejected, .timeout = 300)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[0]);
    glstark_air_trace t[3];
    sides_case_traces(&c, t);
    struct {
        uint32_t *cell;
        const char *what;
    } breaks[] = {
        {&c.u_c0[3], "user cached main 0 (u = v + 5)"},
        {&c.u_c1[c.h_u + 5], "user cached main 1 (b = a v)"},
        {&c.u_c1[7], "user cached main 1 (next(a) = a + u)"},
        {&c.t_mult[2], "table multiplicity (bus 3 no longer balances)"},
    };
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        uint32_t keep = *breaks[i].cell;
        *breaks[i].cell = sf_add(keep, 1);
        if (breaks[i].cell == &c.t_mult[2])
            c.t_main[2] = sf_mul(c.t_mult[2], 2); /* keep x = m r: only the bus is wrong */
        glstark_prove_result r;
        glstark_status st = prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &r);
        cr_assert_eq(st, GLSTARK_ERR_UNSATISFIED, "%s: %s: status %s (%s)", c.desc, breaks[i].what,
                     glstark_status_name(st), r.message);
        cr_log_info("%s: %s", breaks[i].what, r.message);
        glstark_prove_result_free(&r);
        st = prove_case(&c, t, 1, GLSTARK_CODEWORD_AUTO, &r);
        if (st == GLSTARK_OK) {
            char msg[1024];
            st = glstark_verify(c.vk, r.proof, r.proof_len, msg, sizeof msg);
            cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s: the proof of a broken %s: status %s", c.desc, breaks[i].what,
                         glstark_status_name(st));
            cr_log_info("  proven anyway, the verifier says: %s", msg);
        } else {
            /* the prover may notice on its own (a GKR denominator of 0) */
            cr_log_info("  proven anyway, the prover stopped: %s", r.message);
        }
        glstark_prove_result_free(&r);
        *breaks[i].cell = keep;
        if (breaks[i].cell == &c.t_mult[2])
            c.t_main[2] = sf_mul(c.t_mult[2], 2);
    }
    /* restored: it proves again */
    glstark_prove_result r;
    cr_assert_eq(prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &r), GLSTARK_OK, "%s", r.message);
    glstark_prove_result_free(&r);
    sides_case_free(&c);
}

/* The proving key borrows the AIRs: a preprocessed trace set again after
 * keygen no longer matches the key's commitment, and the prover says so
 * instead of making a proof the verifier would reject. */
Test(prove_sides, preprocessed_trace_changed_after_keygen_is_refused, .timeout = 120)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[0]);
    glstark_air_trace t[3];
    sides_case_traces(&c, t);
    uint32_t *q = malloc(c.h_c * sizeof *q);
    cr_assert_not_null(q);
    for (size_t r = 0; r < c.h_c; r++) {
        q[r] = sf_add(c.c_prep[r], 1);
        c.c_main[r] = sf_add(sf_mul(2, q[r]), 1); /* still satisfied */
    }
    cr_assert_eq(glstark_air_set_preprocessed_trace(c.airs[2], c.h_c, q), GLSTARK_OK);
    free(q);
    glstark_prove_result r;
    glstark_status st = prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &r);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "status %s (%s)", glstark_status_name(st), r.message);
    cr_assert(strstr(r.message, "preprocessed") && strstr(r.message, "commitment"), "%s", r.message);
    glstark_prove_result_free(&r);
    sides_case_free(&c);
}

/* Wrong shapes: each refused with a message naming the part, whether or not
 * the constraint check runs first. */
Test(prove_sides, wrong_shapes_are_refused, .timeout = 120)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[0]);
    glstark_air_trace good[3], t[3];
    sides_case_traces(&c, good);
    glstark_trace_part wide[2] = {{c.u_c0, 1}, {c.u_c1, 1}};
    glstark_trace_part no_values[2] = {{NULL, 1}, {c.u_c1, 2}};
    uint32_t *big = malloc(2 * c.h_u * sizeof *big);
    cr_assert_not_null(big);
    memcpy(big, c.u_c1, 2 * c.h_u * sizeof *big);
    big[4] = SF_P;
    glstark_trace_part not_canonical[2] = {{c.u_c0, 1}, {big, 2}};
    for (int skip = 0; skip < 2; skip++) {
        for (int k = 0; k < 5; k++) {
            memcpy(t, good, sizeof t);
            const char *what = "";
            switch (k) {
            case 0: t[1].cached_mains = NULL; what = "no cached mains"; break;
            case 1: t[1].cached_mains = wide; what = "cached main of the wrong width"; break;
            case 2: t[1].cached_mains = no_values; what = "cached main without values"; break;
            case 3: t[1].cached_mains = not_canonical; what = "cached value p"; break;
            default: t[0].height = c.h_t / 2; what = "table height unlike its preprocessed trace"; break;
            }
            if (k == 3 && !skip)
                continue; /* the checker reads the value mod p and reports the constraint */
            glstark_prove_result r;
            glstark_status st = prove_case(&c, t, skip, GLSTARK_CODEWORD_AUTO, &r);
            cr_assert(st == GLSTARK_ERR_INVALID_ARGUMENT || (!skip && st == GLSTARK_ERR_UNSATISFIED),
                      "%s (skip check %d): status %s (%s)", what, skip, glstark_status_name(st), r.message);
            cr_assert(r.message[0], "%s: no message", what);
            cr_log_info("%s (skip check %d): %s", what, skip, r.message);
            glstark_prove_result_free(&r);
        }
    }
    free(big);
    sides_case_free(&c);
}

/* Per-phase fallback with side commits: an engine without the gkr and whir
 * families hands those phases (and with them the preprocessed and cached
 * traces, matrices, codewords and trees) to a second engine; the proof is
 * the same bytes as the one-engine proof. */

Test(prove_sides, fallback_engine_gets_the_side_commits, .timeout = 120)
{
    for (size_t k = 0; k < 2; k++) {
        sides_case c;
        sides_case_from_spec(&c, &sides_specs[k]);
        glstark_air_trace t[3];
        sides_case_traces(&c, t);
        gs_error err;
        gs_system_params sp;
        gs_default_test_params_small(&sp);
        const gs_keygen_options ko = {NULL, gs_prep_commit_cpu, NULL};
        gs_multi_pk pk;
        cr_assert_eq(gs_keygen(&sp, c.airs, 3, &ko, &pk, &err), GLSTARK_OK, "%s", err.msg);
        gs_engine *one, *main_eng, *cpu;
        cr_assert_eq(gs_cpu_engine_create(1, &one, &err), GLSTARK_OK);
        cr_assert_eq(gs_cpu_engine_create(1, &main_eng, &err), GLSTARK_OK);
        cr_assert_eq(gs_cpu_engine_create(1, &cpu, &err), GLSTARK_OK);
        main_eng->gkr = NULL;
        main_eng->whir = NULL;
        gs_proof p1, p2;
        gs_prove_timings tm;
        cr_assert_eq(gs_prove(one, &pk, t, 3, NULL, &p1, &tm, &err), GLSTARK_OK, "%s", err.msg);
        for (int reencode = 0; reencode < 2; reencode++) {
            gs_prove_options opt = {.fallback = cpu, .reencode_codeword = reencode};
            cr_assert_eq(gs_prove(main_eng, &pk, t, 3, &opt, &p2, &tm, &err), GLSTARK_OK, "%s", err.msg);
            cr_assert_eq(tm.fallback_phases, GS_PHASE_LOGUP_ZEROCHECK | GS_PHASE_WHIR, "%s", tm.fallback_note);
            uint8_t *b1, *b2;
            size_t n1, n2;
            cr_assert_eq(gs_proof_encode(&p1, &b1, &n1, &err), GLSTARK_OK);
            cr_assert_eq(gs_proof_encode(&p2, &b2, &n2, &err), GLSTARK_OK);
            cr_assert(n1 == n2 && !memcmp(b1, b2, n1), "%s: the fallback proof differs (re-encode %d)", c.desc,
                      reencode);
            free(b1);
            free(b2);
            gs_proof_free(&p2);
        }
        gs_proof_free(&p1);
        gs_engine_destroy(one);
        gs_engine_destroy(main_eng);
        gs_engine_destroy(cpu);
        gs_multi_pk_free(&pk);
        sides_case_free(&c);
    }
}

/* The verifier's checks of the side data, each reached by a proof changed
 * in that one place (decoded, changed, encoded again, so the bytes are a
 * well-formed proof): the height of an AIR with a preprocessed trace, a
 * cached commitment, and the number of cached commitments. */
static glstark_status verify_changed(const sides_case *c, const glstark_prove_result *r, int what, char *msg,
                                     size_t msg_len)
{
    gs_proof p;
    gs_error err;
    cr_assert_eq(gs_proof_decode(r->proof, r->proof_len, &p, &err), GLSTARK_OK, "%s", err.msg);
    gs_trace_vdata *table = &p.trace_vdata[0], *user = &p.trace_vdata[1];
    cr_assert(table->present && user->present && user->num_cached == 2);
    switch (what) {
    case 0: table->log_height -= 1; break;
    case 1: user->cached_commitments[1].v[3] ^= 1; break;
    default: user->num_cached = 1; break; /* the second digest is still freed with the proof */
    }
    uint8_t *b;
    size_t n;
    cr_assert_eq(gs_proof_encode(&p, &b, &n, &err), GLSTARK_OK, "%s", err.msg);
    if (what == 2)
        user->num_cached = 2;
    gs_proof_free(&p);
    glstark_status st = glstark_verify(c->vk, b, n, msg, msg_len);
    free(b);
    return st;
}

Test(prove_sides, verifier_checks_preprocessed_height_and_cached_commitments, .timeout = 120)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[0]);
    glstark_air_trace t[3];
    sides_case_traces(&c, t);
    glstark_prove_result r;
    cr_assert_eq(prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &r), GLSTARK_OK, "%s", r.message);
    const char *want[3] = {"PreprocessedTraceHeightMismatch", NULL, "InvalidCachedCommitments"};
    for (int what = 0; what < 3; what++) {
        char msg[1024];
        glstark_status st = verify_changed(&c, &r, what, msg, sizeof msg);
        cr_assert_eq(st, GLSTARK_ERR_REJECTED, "change %d: status %s (%s)", what, glstark_status_name(st), msg);
        if (want[what])
            cr_assert(strstr(msg, want[what]), "change %d: %s", what, msg);
        cr_log_info("change %d: %s", what, msg);
    }
    glstark_prove_result_free(&r);
    sides_case_free(&c);
}

/* A single-byte change at every byte of a proof with side commits (^0x01 at
 * even bytes, ^0x80 at odd ones: the low and the high bit of every word
 * position): each is MALFORMED or REJECTED, except a changed proof-of-work
 * witness that still passes (then the proof differs from the original in
 * its witnesses only, checked by restoring them). */
Test(prove_sides, single_byte_mutations_are_refused, .timeout = 600)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[1]);
    glstark_air_trace t[3];
    sides_case_traces(&c, t);
    glstark_prove_result r;
    cr_assert_eq(prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &r), GLSTARK_OK, "%s", r.message);
    gs_proof op;
    gs_error err;
    cr_assert_eq(gs_proof_decode(r.proof, r.proof_len, &op, &err), GLSTARK_OK, "%s", err.msg);
    uint8_t *b = malloc(r.proof_len);
    cr_assert_not_null(b);
    memcpy(b, r.proof, r.proof_len);
    size_t malformed = 0, rejected = 0, witness_only = 0;
    for (size_t at = 0; at < r.proof_len; at++) {
        const unsigned flip = at & 1 ? 0x80u : 0x01u;
        b[at] = (uint8_t)(r.proof[at] ^ flip);
        char msg[512];
        glstark_status st = glstark_verify(c.vk, b, r.proof_len, msg, sizeof msg);
        if (st == GLSTARK_ERR_MALFORMED) {
            malformed++;
        } else if (st == GLSTARK_ERR_REJECTED) {
            rejected++;
        } else {
            cr_assert_eq(st, GLSTARK_OK, "byte %zu: status %s", at, glstark_status_name(st));
            gs_proof p;
            cr_assert_eq(gs_proof_decode(b, r.proof_len, &p, &err), GLSTARK_OK);
            cr_assert(pw_differs_only_in_pow_witnesses(&op, &p, r.proof, r.proof_len),
                      "byte %zu ^ 0x%02x: a changed proof was ACCEPTED and the change is not a PoW witness", at,
                      flip);
            gs_proof_free(&p);
            witness_only++;
        }
        b[at] = r.proof[at];
    }
    cr_log_info("%s: %zu bytes changed one at a time: %zu MALFORMED, %zu REJECTED, %zu accepted (PoW witness only)",
                c.desc, r.proof_len, malformed, rejected, witness_only);
    cr_assert_eq(malformed + rejected + witness_only, r.proof_len);
    cr_assert(witness_only * 100 < r.proof_len, "too many accepted witness changes");
    free(b);
    gs_proof_free(&op);
    glstark_prove_result_free(&r);
    sides_case_free(&c);
}

/* Required AIRs (glstark_air_set_required, OpenVM's add_required_air): in the
 * key, proven without the presence flag in the transcript (so other bytes
 * than the same AIRs added as optional), refused by the prover when absent,
 * and a proof that leaves one out is rejected by the verifier. */
Test(prove_sides, required_airs, .timeout = 120)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[0]);
    glstark_air_trace t[3];
    sides_case_traces(&c, t);
    glstark_prove_result opt_proof, req_proof;
    cr_assert_eq(prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &opt_proof), GLSTARK_OK, "%s", opt_proof.message);
    /* the same traces without the user AIR (the table then looks nothing up) */
    uint32_t *zeros = calloc(c.h_t, sizeof *zeros);
    cr_assert_not_null(zeros);
    glstark_trace_part zero_cached[1] = {{zeros, 1}};
    glstark_air_trace t_absent[3];
    memcpy(t_absent, t, sizeof t_absent);
    t_absent[0].common_main.values = zeros;
    t_absent[0].cached_mains = zero_cached;
    t_absent[1] = (glstark_air_trace){0, {NULL, 2}, NULL, NULL, 0};
    glstark_prove_result absent_proof;
    cr_assert_eq(prove_case(&c, t_absent, 0, GLSTARK_CODEWORD_AUTO, &absent_proof), GLSTARK_OK, "%s",
                 absent_proof.message);
    char msg[1024];
    cr_assert_eq(glstark_verify(c.vk, absent_proof.proof, absent_proof.proof_len, msg, sizeof msg), GLSTARK_OK, "%s",
                 msg);

    /* the table and the user AIR required */
    cr_assert_eq(glstark_air_set_required(c.airs[0], 1), GLSTARK_OK);
    cr_assert_eq(glstark_air_set_required(c.airs[1], 1), GLSTARK_OK);
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    cr_assert_eq(glstark_keygen(c.airs, 3, c.params, &pk, &vk, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_proving_key *keep_pk = c.pk;
    c.pk = pk;
    cr_assert_eq(prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &req_proof), GLSTARK_OK, "%s", req_proof.message);
    cr_assert_eq(glstark_verify(vk, req_proof.proof, req_proof.proof_len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert(req_proof.proof_len != opt_proof.proof_len ||
                  memcmp(req_proof.proof, opt_proof.proof, opt_proof.proof_len),
              "a required AIR gave the same proof as an optional one");
    /* the flag is in the key's encoding */
    uint8_t *vkb = NULL;
    size_t vkl = 0;
    glstark_verifying_key *vk_back = NULL;
    cr_assert_eq(glstark_verifying_key_encode(vk, &vkb, &vkl), GLSTARK_OK);
    cr_assert_eq(glstark_verifying_key_decode(vkb, vkl, &vk_back, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_verify(vk_back, req_proof.proof, req_proof.proof_len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    /* the optional key's proof does not verify under the required key, nor
     * the other way round */
    glstark_status st = glstark_verify(vk, opt_proof.proof, opt_proof.proof_len, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s", glstark_status_name(st));
    st = glstark_verify(c.vk, req_proof.proof, req_proof.proof_len, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s", glstark_status_name(st));
    /* a proof that leaves a required AIR out */
    st = glstark_verify(vk, absent_proof.proof, absent_proof.proof_len, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED, "%s", glstark_status_name(st));
    cr_assert(strstr(msg, "RequiredAirNoVData"), "%s", msg);
    /* and the prover refuses to make one */
    glstark_prove_result r;
    st = prove_case(&c, t_absent, 0, GLSTARK_CODEWORD_AUTO, &r);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "%s", glstark_status_name(st));
    cr_assert(strstr(r.message, "required"), "%s", r.message);
    glstark_prove_result_free(&r);

    glstark_free(vkb);
    glstark_verifying_key_destroy(vk_back);
    glstark_prove_result_free(&opt_proof);
    glstark_prove_result_free(&req_proof);
    glstark_prove_result_free(&absent_proof);
    glstark_proving_key_destroy(pk);
    glstark_verifying_key_destroy(vk);
    c.pk = keep_pk;
    free(zeros);
    sides_case_free(&c);
}

/* traces_released: once called, the prover reads none of the caller's
 * arrays, cached mains included. The callback overwrites every trace array
 * of the case; the proof must still be the one made from the real values. */
static void poison_traces(void *user)
{
    sides_case *c = user;
    const size_t hu = c->h_u ? c->h_u : 1;
    memset(c->t_main, 0xA5, c->h_t * sizeof(uint32_t));
    memset(c->t_mult, 0xA5, c->h_t * sizeof(uint32_t));
    memset(c->u_main, 0xA5, 2 * hu * sizeof(uint32_t));
    memset(c->u_c0, 0xA5, hu * sizeof(uint32_t));
    memset(c->u_c1, 0xA5, 2 * hu * sizeof(uint32_t));
    c->u_pub = 0xA5A5A5A5u;
}

Test(prove_sides, side_traces_are_not_read_after_traces_released, .timeout = 120)
{
    for (size_t k = 0; k < 2; k++) {
        sides_case c;
        sides_case_from_spec(&c, &sides_specs[k]);
        glstark_air_trace t[3];
        sides_case_traces(&c, t);
        glstark_prove_result ref, r;
        cr_assert_eq(prove_case(&c, t, 0, GLSTARK_CODEWORD_AUTO, &ref), GLSTARK_OK, "%s", ref.message);
        glstark_prove_options o;
        glstark_prove_options_init(&o);
        o.cpu_threads = 2;
        o.traces_released = poison_traces;
        o.traces_released_user = &c;
        cr_assert_eq(glstark_prove(c.pk, t, 3, &o, &r), GLSTARK_OK, "%s", r.message);
        cr_assert(r.proof_len == ref.proof_len && !memcmp(r.proof, ref.proof, r.proof_len),
                  "%s: the proof changed when the caller's arrays were overwritten after traces_released", c.desc);
        glstark_prove_result_free(&ref);
        glstark_prove_result_free(&r);
        sides_case_free(&c);
    }
}

/* keygen of a preprocessed trace taller than the stacked height: refused
 * with a message, no key. */
Test(prove_sides, keygen_refuses_a_preprocessed_trace_over_the_stacked_height)
{
    glstark_params *params = NULL;
    cr_assert_eq(glstark_params_test_small(&params), GLSTARK_OK);
    const size_t L = glstark_params_log_stacked_height(params);
    glstark_air *air = sf_table_air((size_t)1 << (L + 1));
    glstark_proving_key *pk = (glstark_proving_key *)&pk;
    glstark_verifying_key *vk = (glstark_verifying_key *)&vk;
    char msg[1024];
    glstark_status st = glstark_keygen(&air, 1, params, &pk, &vk, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "%s", glstark_status_name(st));
    cr_assert(pk == NULL && vk == NULL);
    cr_assert(strstr(msg, "stacked height"), "%s", msg);
    cr_log_info("%s", msg);
    glstark_air_destroy(air);
    glstark_params_destroy(params);
}
