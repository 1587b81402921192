/* The WHIR verifier on OpenVM's proofs: replay the recorded transcript up to
 * WHIR, take the stacked-column claims and the WHIR proof from proof.bin, the
 * point u_cube from the recorded challenges, and verify; the WHIR-phase
 * transcript must equal OpenVM's op for op. Tampered proofs are rejected. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/whir.h"
#include "verify/whir_verify.h"
#include "whir_replay.h"
#include "whir_vectors.h"

typedef struct vctx {
    whir_vec v;
    gs_whir_proof proof;
    uint32_t widths[4];
    bb4_t *open;
    size_t nopen;
    gs_whir_digest commits[4];
    bb4_t u[32];
} vctx;

static void load(vctx *c, const char *spec)
{
    memset(c, 0, sizeof *c);
    cr_assert_eq(whir_vec_load(&c->v, spec), 0, "load %s", spec);
    gs_error err;
    size_t used;
    cr_assert_eq(gs_whir_proof_decode(&c->proof, c->v.proof + c->v.whir_offset, c->v.proof_len - c->v.whir_offset,
                                      &used, &err),
                 GLSTARK_OK, "%s", err.msg);
    c->open = malloc(4096 * sizeof(bb4_t));
    cr_assert_eq(whir_vec_openings(&c->v, c->widths, c->open, 4096, &c->nopen), 0);
    for (uint32_t i = 0; i < c->v.num_commits; i++)
        for (int j = 0; j < 8; j++)
            c->commits[i].v[j] = bb_from_canonical(c->v.commit[i][j]);
    for (uint32_t i = 0; i < c->v.L; i++)
        c->u[i] = bb4_from_canonical(c->v.ucube[i]);
}

static void unload(vctx *c)
{
    gs_whir_proof_free(&c->proof);
    free(c->open);
    whir_vec_free(&c->v);
}

static glstark_status run(vctx *c, gs_error *err, int compare_log)
{
    gs_transcript ts;
    whir_replay_pre(&ts, &c->v);
    gs_ts_record rec;
    gs_ts_record_init(&rec);
    if (compare_log)
        gs_transcript_set_log(&ts, gs_ts_record_log, &rec);
    glstark_status st = gs_whir_verify(&ts, &c->v.params, &c->proof, c->commits, c->widths, c->v.num_commits,
                                       c->open, c->nopen, c->u, c->v.L, err);
    if (compare_log && st == GLSTARK_OK)
        whir_compare_ops(&rec, &c->v, "verifier");
    gs_ts_record_free(&rec);
    return st;
}

static void accept(const char *spec)
{
    vctx c;
    load(&c, spec);
    gs_error err;
    glstark_status st = run(&c, &err, 1);
    cr_assert_eq(st, GLSTARK_OK, "%s: %s", spec, err.msg);
    unload(&c);
}

Test(whir_verify, fib_small_n4) { accept("fib-small_n4"); }
Test(whir_verify, fib_small_n10) { accept("fib-small_n10"); }
Test(whir_verify, interactions_small) { accept("interactions-small"); }
Test(whir_verify, fib_app18_n10) { accept("fib-app18_n10"); }
Test(whir_verify, keccak_app21_p16) { accept("keccak-app21_p16"); }

static void expect_reject(vctx *c, const char *what)
{
    gs_error err;
    glstark_status st = run(c, &err, 0);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED, "tampered %s: status %d (%s)", what, st, err.msg);
    cr_assert(strlen(err.msg) > 0);
}

static bb4_t bump(bb4_t a)
{
    a.c[0] = bb_add(a.c[0], bb_one());
    return a;
}

Test(whir_verify, tampered)
{
    const char *specs[] = {"fib-small_n4", "fib-app18_n10"};
    for (int sidx = 0; sidx < 2; sidx++) {
        vctx c;
        load(&c, specs[sidx]);
        gs_whir_proof *p = &c.proof;
        uint32_t rows = 1u << p->k;
        /* one change at a time, restored after */
        bb4_t e;
        bb_t f;
        gs_whir_digest d;
        e = p->sumcheck_polys[3];
        p->sumcheck_polys[3] = bump(e);
        expect_reject(&c, "sumcheck message");
        p->sumcheck_polys[3] = e;
        d = p->codeword_commits[0];
        p->codeword_commits[0].v[5] = bb_add(d.v[5], bb_one());
        expect_reject(&c, "round commitment");
        p->codeword_commits[0] = d;
        e = p->ood_values[0];
        p->ood_values[0] = bump(e);
        expect_reject(&c, "ood value");
        p->ood_values[0] = e;
        f = p->initial_rows[0][rows * c.widths[0] + 1];
        p->initial_rows[0][rows * c.widths[0] + 1] = bb_add(f, bb_one());
        expect_reject(&c, "opened row");
        p->initial_rows[0][rows * c.widths[0] + 1] = f;
        d = p->initial_proofs[0][2];
        p->initial_proofs[0][2].v[0] = bb_add(d.v[0], bb_one());
        expect_reject(&c, "merkle sibling");
        p->initial_proofs[0][2] = d;
        e = p->codeword_values[0][rows + 2];
        p->codeword_values[0][rows + 2] = bump(e);
        expect_reject(&c, "codeword opened value");
        p->codeword_values[0][rows + 2] = e;
        d = p->codeword_proofs[0][1];
        p->codeword_proofs[0][1].v[7] = bb_add(d.v[7], bb_one());
        expect_reject(&c, "codeword merkle sibling");
        p->codeword_proofs[0][1] = d;
        e = p->final_poly[1];
        p->final_poly[1] = bump(e);
        expect_reject(&c, "final polynomial");
        p->final_poly[1] = e;
        f = p->mu_pow_witness;
        p->mu_pow_witness = bb_add(f, bb_one());
        expect_reject(&c, "mu pow witness");
        p->mu_pow_witness = f;
        f = p->folding_pow_witnesses[2];
        p->folding_pow_witnesses[2] = bb_add(f, bb_one());
        expect_reject(&c, "folding pow witness");
        p->folding_pow_witnesses[2] = f;
        f = p->query_pow_witnesses[1];
        p->query_pow_witnesses[1] = bb_add(f, bb_one());
        expect_reject(&c, "query pow witness");
        p->query_pow_witnesses[1] = f;
        e = c.open[0];
        c.open[0] = bump(e);
        expect_reject(&c, "claimed stacked value");
        c.open[0] = e;
        /* restored: accepted again */
        gs_error err;
        cr_assert_eq(run(&c, &err, 0), GLSTARK_OK, "%s", err.msg);
        unload(&c);
    }
}

Test(whir_verify, bad_inputs)
{
    vctx c;
    load(&c, "fib-small_n4");
    gs_transcript ts;
    gs_error err;
    whir_replay_pre(&ts, &c.v);
    /* claims of the wrong length */
    cr_assert_eq(gs_whir_verify(&ts, &c.v.params, &c.proof, c.commits, c.widths, 1, c.open, c.nopen + 1, c.u, c.v.L,
                                &err),
                 GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "claimed") != NULL, "%s", err.msg);
    /* a point of the wrong dimension */
    cr_assert_eq(gs_whir_verify(&ts, &c.v.params, &c.proof, c.commits, c.widths, 1, c.open, c.nopen, c.u, c.v.L - 1,
                                &err),
                 GLSTARK_ERR_INVALID_ARGUMENT);
    /* parameters with zero WHIR rounds */
    gs_whir_params p0 = c.v.params;
    p0.num_rounds = 0;
    cr_assert_eq(gs_whir_verify(&ts, &p0, &c.proof, c.commits, c.widths, 1, c.open, c.nopen, c.u, c.v.L, &err),
                 GLSTARK_ERR_INVALID_ARGUMENT);
    /* a proof of another shape (different query count) */
    gs_whir_params p1 = c.v.params;
    p1.num_queries[1] += 1;
    cr_assert_eq(gs_whir_verify(&ts, &p1, &c.proof, c.commits, c.widths, 1, c.open, c.nopen, c.u, c.v.L, &err),
                 GLSTARK_ERR_REJECTED);
    unload(&c);
}
