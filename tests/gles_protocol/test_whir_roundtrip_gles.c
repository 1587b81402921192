/* WHIR on random multi-commit stacked matrices (the shapes of
 * tests/protocol/test_whir_roundtrip.c), proven on the CPU engine and on the
 * GLES engine from the same seed: the two WHIR proofs must be byte-identical,
 * and the verifier must accept the GLES one. */
#include "verify/whir_verify.h"
#include "prove/whir.h"
#include "../protocol/whir_roundtrip.h"

#include "../gles/gles_test_util.h"

/* Proves on eng with inputs drawn from seed; returns the encoded proof and
 * fills what the verifier needs. */
static uint8_t *prove_on(gs_engine *eng, const gs_whir_params *p, uint64_t seed, size_t *len, gs_whir_digest roots[2],
                         uint32_t widths[2], bb4_t *claims, size_t *nclaims, bb4_t *u)
{
    rng_state = seed;
    gs_error err;
    unsigned L = p->l_skip + p->n_stack;
    gs_stack_trace_shape sa[3] = {{3, L - 1}, {2, p->l_skip}, {1, p->l_skip - 1}};
    gs_stack_trace_shape sb[1] = {{2, L}};
    commit c[2];
    make_commit(eng, p, sa, 3, &c[0]);
    make_commit(eng, p, sb, 1, &c[1]);
    for (unsigned i = 0; i < L; i++) {
        bb4_t r = {{rbb(), rbb(), rbb(), rbb()}};
        u[i] = r;
    }
    size_t n0 = claims_of(eng, p, &c[0], u, claims);
    *nclaims = n0 + claims_of(eng, p, &c[1], u, claims + n0);
    gs_whir_commit_data cd[2];
    for (int i = 0; i < 2; i++) {
        cd[i] = (gs_whir_commit_data){c[i].q, 0, c[i].cw, 0, &c[i].tree, c[i].lay.width};
        widths[i] = c[i].lay.width;
        roots[i] = c[i].root;
    }
    gs_transcript ts;
    prefix(&ts);
    gs_whir_proof pf;
    cr_assert_eq(gs_whir_prove(eng, &ts, p, cd, 2, u, L, &pf, &err), GLSTARK_OK, "%s: %s", eng->core->name, err.msg);
    *len = gs_whir_proof_encoded_size(&pf);
    uint8_t *b = malloc(*len);
    cr_assert_eq(gs_whir_proof_encode(&pf, b, *len, NULL, &err), GLSTARK_OK, "%s", err.msg);
    gs_whir_proof_free(&pf);
    free_commit(&c[0]);
    free_commit(&c[1]);
    return b;
}

static void cpu_equals_gles(const gs_whir_params *p, uint64_t seed)
{
    cr_log_info("seed %llu (k %u, rounds %u)", (unsigned long long)seed, p->k, p->num_rounds);
    gs_engine *cpu;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &cpu, &err), GLSTARK_OK);
    gs_engine *gl = tu_engine(NULL);
    gs_whir_digest roots[2], roots_gl[2];
    uint32_t widths[2], widths_gl[2];
    bb4_t claims[64], claims_gl[64], u[32], u_gl[32];
    size_t nc, nc_gl, n_cpu, n_gl;
    uint8_t *a = prove_on(cpu, p, seed, &n_cpu, roots, widths, claims, &nc, u);
    uint8_t *b = prove_on(gl, p, seed, &n_gl, roots_gl, widths_gl, claims_gl, &nc_gl, u_gl);
    cr_assert_eq(n_cpu, n_gl, "proof sizes differ: cpu %zu, gles %zu", n_cpu, n_gl);
    cr_assert(memcmp(a, b, n_cpu) == 0, "GLES WHIR proof bytes differ from the CPU engine's (seed %llu)",
              (unsigned long long)seed);
    cr_assert(memcmp(roots, roots_gl, sizeof roots) == 0, "commitment roots differ");
    gs_whir_proof dec;
    size_t used;
    cr_assert_eq(gs_whir_proof_decode(&dec, b, n_gl, &used, &err), GLSTARK_OK, "%s", err.msg);
    gs_transcript ts;
    prefix(&ts);
    unsigned L = p->l_skip + p->n_stack;
    cr_assert_eq(gs_whir_verify(&ts, p, &dec, roots_gl, widths_gl, 2, claims_gl, nc_gl, u_gl, L, &err), GLSTARK_OK,
                 "%s", err.msg);
    gs_whir_proof_free(&dec);
    free(a);
    free(b);
    gs_engine_destroy(gl);
    gs_engine_destroy(cpu);
}

Test(whir_roundtrip_gles, two_rounds_k2)
{
    gs_whir_params p = {.l_skip = 2, .n_stack = 4, .log_blowup = 1, .k = 2, .num_rounds = 2, .num_queries = {3, 2},
                        .mu_pow_bits = 2, .folding_pow_bits = 1, .query_phase_pow_bits = 2};
    cpu_equals_gles(&p, 21);
}

Test(whir_roundtrip_gles, one_round)
{
    gs_whir_params p = {.l_skip = 2, .n_stack = 4, .log_blowup = 1, .k = 2, .num_rounds = 1, .num_queries = {5},
                        .mu_pow_bits = 0, .folding_pow_bits = 0, .query_phase_pow_bits = 0};
    cpu_equals_gles(&p, 22);
}

Test(whir_roundtrip_gles, three_rounds_k3_blowup2)
{
    gs_whir_params p = {.l_skip = 3, .n_stack = 6, .log_blowup = 2, .k = 3, .num_rounds = 3, .num_queries = {6, 3, 2},
                        .mu_pow_bits = 3, .folding_pow_bits = 2, .query_phase_pow_bits = 1};
    cpu_equals_gles(&p, 23);
}
