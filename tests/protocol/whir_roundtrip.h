/* Shared by the WHIR round-trip tests: prove → encode → decode → verify on
 * random stacked commitments (two commits, short and tall traces), with
 * claims computed independently as MLE[RS message](u_cube); tampering and
 * bad inputs are rejected. */
#ifndef GS_TESTS_WHIR_ROUNDTRIP_H
#define GS_TESTS_WHIR_ROUNDTRIP_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dft_ops.h"
#include "engine/engine.h"
#include "engine/hash_ops.h"
#include "common/stacking.h"
#include "common/transcript.h"
#include "common/whir.h"
#include "verify/whir_verify.h"
#include "prove/whir.h"
#include "common/whir_poly.h"
#include "../util/splitmix.h"

static uint64_t rng_state;
static uint64_t next64(void)
{ return splitmix64(&rng_state); }
static bb_t rbb(void) { return bb_from_canonical((uint32_t)(next64() % BB_P)); }

typedef struct commit {
    gs_stack_layout lay;
    gs_buf *q, *cw;
    gs_merkle_dev tree;
    gs_whir_digest root;
    gs_trace_ref refs[4];
    size_t ntr;
} commit;

static void make_commit(gs_engine *eng, const gs_whir_params *p, const gs_stack_trace_shape *shapes, size_t ntr,
                        commit *c)
{
    gs_error err;
    memset(c, 0, sizeof *c);
    c->ntr = ntr;
    for (size_t t = 0; t < ntr; t++) {
        size_t n = (size_t)shapes[t].width << shapes[t].log_height;
        bb_t *m = malloc(n * sizeof(bb_t));
        for (size_t i = 0; i < n; i++)
            m[i] = rbb();
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &c->refs[t].buf), GLSTARK_OK);
        cr_assert_eq(gs_buf_write(c->refs[t].buf, 0, m, n * sizeof(bb_t)), GLSTARK_OK);
        free(m);
    }
    cr_assert_eq(gs_stack_layout_build(p->l_skip, p->n_stack, shapes, ntr, &c->lay, &err), GLSTARK_OK, "%s", err.msg);
    unsigned L = p->l_skip + p->n_stack;
    size_t H = (size_t)1 << L, N = (size_t)1 << (L + p->log_blowup);
    cr_assert_eq(gs_buf_create(eng, c->lay.width * H * sizeof(bb_t), &c->q), GLSTARK_OK);
    cr_assert_eq(gs_buf_create(eng, c->lay.width * N * sizeof(bb_t), &c->cw), GLSTARK_OK);
    cr_assert_eq(gs_stack_matrix(eng, &c->lay, c->refs, 0, c->lay.width, c->q, 0), GLSTARK_OK);
    cr_assert_eq(gs_rs_code_matrix(eng, &c->lay, c->refs, p->log_blowup, 0, c->lay.width, c->cw, 0), GLSTARK_OK);
    cr_assert_eq(gs_engine_merkle_commit(eng, c->cw, 0, N, c->lay.width, 1, p->k, &c->tree), GLSTARK_OK);
    cr_assert_eq(gs_engine_merkle_root(eng, &c->tree, c->root.v), GLSTARK_OK);
}

static void free_commit(commit *c)
{
    gs_merkle_dev_release(&c->tree);
    gs_buf_destroy(c->q);
    gs_buf_destroy(c->cw);
    for (size_t t = 0; t < c->ntr; t++)
        gs_buf_destroy(c->refs[t].buf);
    gs_stack_layout_free(&c->lay);
}

/* claims[j] = MLE[msg_j](u): msg_j the RS message of stacked column j */
static size_t claims_of(gs_engine *eng, const gs_whir_params *p, const commit *c, const bb4_t *u, bb4_t *out)
{
    unsigned L = p->l_skip + p->n_stack;
    size_t H = (size_t)1 << L;
    gs_buf *tmp;
    cr_assert_eq(gs_buf_create(eng, c->lay.width * H * sizeof(bb_t), &tmp), GLSTARK_OK);
    cr_assert_eq(gs_buf_copy(tmp, 0, c->q, 0, c->lay.width * H * sizeof(bb_t)), GLSTARK_OK);
    gs_dft_cols cols = {.buf = tmp, .offset = 0, .col_stride = H, .ncols = c->lay.width, .log_n = L, .elem_words = 1};
    cr_assert_eq(gs_rs_message(eng, &cols, p->l_skip), GLSTARK_OK, "%s", eng->err.msg);
    bb_t *m = malloc(c->lay.width * H * sizeof(bb_t));
    cr_assert_eq(gs_buf_read(tmp, 0, m, c->lay.width * H * sizeof(bb_t)), GLSTARK_OK);
    bb4_t *e = malloc(H * sizeof(bb4_t)), *s = malloc(H * sizeof(bb4_t));
    for (uint32_t j = 0; j < c->lay.width; j++) {
        for (size_t i = 0; i < H; i++)
            e[i] = bb4_from_base(m[j * H + i]);
        out[j] = gs_whir_eval_mle(e, u, L, s);
    }
    free(e);
    free(s);
    free(m);
    gs_buf_destroy(tmp);
    return c->lay.width;
}

static void prefix(gs_transcript *ts)
{
    gs_transcript_init(ts);
    for (uint32_t i = 0; i < 13; i++)
        gs_transcript_observe_u32(ts, 1000 + i);
}

static inline void roundtrip(const gs_whir_params *p, uint64_t seed)
{
    rng_state = seed;
    cr_log_info("seed %llu (k %u, rounds %u)", (unsigned long long)seed, p->k, p->num_rounds);
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK);
    unsigned L = p->l_skip + p->n_stack;
    gs_stack_trace_shape sa[3] = {{9, L - 1}, {2, p->l_skip}, {1, p->l_skip - 1}}; /* 5 stacked columns */
    gs_stack_trace_shape sb[1] = {{2, L}};
    commit c[2];
    make_commit(eng, p, sa, 3, &c[0]);
    make_commit(eng, p, sb, 1, &c[1]);
    bb4_t u[32];
    for (unsigned i = 0; i < L; i++) {
        bb4_t r = {{rbb(), rbb(), rbb(), rbb()}};
        u[i] = r;
    }
    bb4_t claims[64];
    size_t n0 = claims_of(eng, p, &c[0], u, claims);
    size_t n1 = claims_of(eng, p, &c[1], u, claims + n0);
    gs_whir_commit_data cd[2];
    uint32_t widths[2];
    gs_whir_digest roots[2];
    for (int i = 0; i < 2; i++) {
        cd[i] = (gs_whir_commit_data){c[i].q, 0, c[i].cw, 0, &c[i].tree, c[i].lay.width};
        widths[i] = c[i].lay.width;
        roots[i] = c[i].root;
    }
    gs_transcript ts;
    prefix(&ts);
    gs_whir_proof pf, dec;
    cr_log_info("stacked widths %u and %u", widths[0], widths[1]);
    cr_assert_eq(gs_whir_prove(eng, &ts, p, cd, 2, u, L, &pf, &err), GLSTARK_OK, "%s", err.msg);
    size_t n = gs_whir_proof_encoded_size(&pf), used;
    uint8_t *b = malloc(n), *b2 = malloc(n);
    cr_assert_eq(gs_whir_proof_encode(&pf, b, n, NULL, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_whir_proof_decode(&dec, b, n, &used, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(used, n);
    cr_assert_eq(gs_whir_proof_encode(&dec, b2, n, NULL, &err), GLSTARK_OK);
    cr_assert(memcmp(b, b2, n) == 0);
    /* the codewords dropped (the first commit's, then both): the first
     * queries encode them again, and the proof is the same bytes */
    for (int drop = 1; drop <= 2; drop++) {
        gs_whir_commit_data cdr[2] = {cd[0], cd[1]};
        for (int i = 0; i < drop; i++)
            cdr[i].codeword = NULL;
        gs_whir_proof pr;
        prefix(&ts);
        cr_assert_eq(gs_whir_prove(eng, &ts, p, cdr, 2, u, L, &pr, &err), GLSTARK_OK, "%s", err.msg);
        memset(b2, 0xA5, n);
        cr_assert_eq(gs_whir_proof_encoded_size(&pr), n);
        cr_assert_eq(gs_whir_proof_encode(&pr, b2, n, NULL, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert(memcmp(b, b2, n) == 0, "%d codeword(s) re-encoded: the proof differs", drop);
        gs_whir_proof_free(&pr);
    }
    prefix(&ts);
    cr_assert_eq(gs_whir_verify(&ts, p, &dec, roots, widths, 2, claims, n0 + n1, u, L, &err), GLSTARK_OK, "%s",
                 err.msg);
    /* a wrong claim, a wrong root, a changed opened row of the second commit */
    claims[n0] = bb4_add(claims[n0], bb4_one());
    prefix(&ts);
    cr_assert_eq(gs_whir_verify(&ts, p, &dec, roots, widths, 2, claims, n0 + n1, u, L, &err), GLSTARK_ERR_REJECTED);
    claims[n0] = bb4_sub(claims[n0], bb4_one());
    roots[1].v[3] = bb_add(roots[1].v[3], bb_one());
    prefix(&ts);
    cr_assert_eq(gs_whir_verify(&ts, p, &dec, roots, widths, 2, claims, n0 + n1, u, L, &err), GLSTARK_ERR_REJECTED);
    roots[1] = c[1].root;
    dec.initial_rows[1][5] = bb_add(dec.initial_rows[1][5], bb_one());
    prefix(&ts);
    cr_assert_eq(gs_whir_verify(&ts, p, &dec, roots, widths, 2, claims, n0 + n1, u, L, &err), GLSTARK_ERR_REJECTED);
    /* a different transcript prefix gives different challenges: rejected */
    dec.initial_rows[1][5] = bb_sub(dec.initial_rows[1][5], bb_one());
    gs_transcript_init(&ts);
    cr_assert_eq(gs_whir_verify(&ts, p, &dec, roots, widths, 2, claims, n0 + n1, u, L, &err), GLSTARK_ERR_REJECTED);

    /* prover bad inputs: status and message */
    prefix(&ts);
    gs_whir_proof bad;
    cr_assert_eq(gs_whir_prove(eng, &ts, p, cd, 2, u, L + 1, &bad, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    gs_whir_params p0 = *p;
    p0.num_rounds = 0;
    cr_assert_eq(gs_whir_prove(eng, &ts, &p0, cd, 2, u, L, &bad, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "zero WHIR rounds") != NULL, "%s", err.msg);
    gs_whir_params pk = *p;
    pk.k = p->k + 1;
    pk.num_rounds = 1;
    cr_assert_eq(gs_whir_prove(eng, &ts, &pk, cd, 2, u, L, &bad, &err), GLSTARK_ERR_INVALID_ARGUMENT);

    free(b);
    free(b2);
    gs_whir_proof_free(&pf);
    gs_whir_proof_free(&dec);
    free_commit(&c[0]);
    free_commit(&c[1]);
    gs_engine_destroy(eng);
}

#endif
