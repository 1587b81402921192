/* WHIR proof codec against OpenVM's bytes: decode the WHIR part of each
 * recorded proof.bin, check the shape against the recorded parameters, and
 * re-encode to the identical bytes; malformed bytes give a status. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/whir.h"
#include "whir_vectors.h"

static void roundtrip(const char *spec)
{
    whir_vec v;
    cr_assert_eq(whir_vec_load(&v, spec), 0, "load vectors of %s", spec);
    const uint8_t *wb = v.proof + v.whir_offset;
    size_t wlen = v.proof_len - v.whir_offset;
    gs_whir_proof p;
    gs_error err;
    size_t used = 0;
    glstark_status st = gs_whir_proof_decode(&p, wb, wlen, &used, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: decode: %s", spec, err.msg);
    cr_assert_eq(used, wlen, "%s: WHIR part is the end of the proof (%zu of %zu)", spec, used, wlen);
    cr_assert_eq(p.num_rounds, v.params.num_rounds);
    cr_assert_eq(p.k, v.params.k);
    uint32_t widths[4];
    bb4_t vals[4096];
    size_t total;
    cr_assert_eq(whir_vec_openings(&v, widths, vals, 4096, &total), 0);
    st = gs_whir_proof_check_shape(&p, &v.params, widths, v.num_commits, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: shape: %s", spec, err.msg);
    size_t n = gs_whir_proof_encoded_size(&p);
    cr_assert_eq(n, wlen);
    uint8_t *out = malloc(n);
    size_t wrote = 0;
    st = gs_whir_proof_encode(&p, out, n, &wrote, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: encode: %s", spec, err.msg);
    cr_assert_eq(wrote, wlen);
    cr_assert(memcmp(out, wb, wlen) == 0, "%s: re-encoded bytes equal OpenVM's", spec);
    /* truncation anywhere gives MALFORMED, never a crash */
    size_t step = wlen / 97 + 1;
    for (size_t cut = 0; cut < wlen; cut += step) {
        gs_whir_proof q;
        st = gs_whir_proof_decode(&q, wb, cut, NULL, &err);
        cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "%s: truncated at %zu: status %d", spec, cut, st);
        cr_assert(strlen(err.msg) > 0);
    }
    free(out);
    gs_whir_proof_free(&p);
    whir_vec_free(&v);
}

Test(whir_codec, fib_small_n4) { roundtrip("fib-small_n4"); }
Test(whir_codec, fib_small_n10) { roundtrip("fib-small_n10"); }
Test(whir_codec, interactions_small) { roundtrip("interactions-small"); }
Test(whir_codec, fib_app18_n10) { roundtrip("fib-app18_n10"); }
Test(whir_codec, keccak_app21_p16) { roundtrip("keccak-app21_p16"); }

Test(whir_codec, malformed)
{
    whir_vec v;
    cr_assert_eq(whir_vec_load(&v, "fib-small_n4"), 0);
    size_t wlen = v.proof_len - v.whir_offset;
    uint8_t *b = malloc(wlen);
    gs_whir_proof p;
    gs_error err;
    /* a non-canonical field element (mu witness = p) */
    memcpy(b, v.proof + v.whir_offset, wlen);
    b[0] = 0x01; b[1] = 0x00; b[2] = 0x00; b[3] = 0x78;
    cr_assert_eq(gs_whir_proof_decode(&p, b, wlen, NULL, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "canonical") != NULL, "%s", err.msg);
    /* sumcheck count not a multiple of the rounds */
    memcpy(b, v.proof + v.whir_offset, wlen);
    b[4] = 10;
    cr_assert_eq(gs_whir_proof_decode(&p, b, wlen, NULL, &err), GLSTARK_ERR_MALFORMED);
    /* a huge length is rejected before allocating */
    memcpy(b, v.proof + v.whir_offset, wlen);
    b[4] = 0xff; b[5] = 0xff; b[6] = 0xff; b[7] = 0x7f;
    cr_assert_eq(gs_whir_proof_decode(&p, b, wlen, NULL, &err), GLSTARK_ERR_MALFORMED);
    /* zero commits */
    memcpy(b, v.proof + v.whir_offset, wlen);
    {
        gs_whir_proof q;
        size_t used;
        cr_assert_eq(gs_whir_proof_decode(&q, b, wlen, &used, &err), GLSTARK_OK);
        size_t nsc = (size_t)q.num_rounds * q.k;
        size_t off = 4 + 4 + nsc * 32 + 4 + (q.num_rounds - 1) * 48 + nsc * 4 + q.num_rounds * 4;
        gs_whir_proof_free(&q);
        memset(b + off, 0, 4);
        cr_assert_eq(gs_whir_proof_decode(&p, b, wlen, NULL, &err), GLSTARK_ERR_MALFORMED);
        cr_assert(strstr(err.msg, "num_commits") != NULL, "%s", err.msg);
    }
    /* the messages name the field and its offset */
    memcpy(b, v.proof + v.whir_offset, wlen);
    cr_assert_eq(gs_whir_proof_decode(&p, b, wlen - 1, NULL, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "whir_proof.") && strstr(err.msg, "at byte"), "%s", err.msg);
    /* a proof with padding decodes its part and reports the length used */
    uint8_t *pad = calloc(wlen + 8, 1);
    memcpy(pad, v.proof + v.whir_offset, wlen);
    size_t used = 0;
    cr_assert_eq(gs_whir_proof_decode(&p, pad, wlen + 8, &used, &err), GLSTARK_OK);
    cr_assert_eq(used, wlen);
    gs_whir_proof_free(&p);
    free(pad);
    free(b);
    whir_vec_free(&v);
}

Test(whir_codec, params_check)
{
    gs_whir_params p = {.l_skip = 2, .n_stack = 8, .log_blowup = 1, .k = 3, .num_rounds = 0};
    gs_error err;
    cr_assert_eq(gs_whir_params_check(&p, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "zero WHIR rounds") != NULL, "%s", err.msg);
    p.num_rounds = 4; /* 12 > L = 10 */
    cr_assert_eq(gs_whir_params_check(&p, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    p.num_rounds = 3;
    cr_assert_eq(gs_whir_params_check(&p, &err), GLSTARK_OK);
}

/* OpenVM writes the later rounds' Merkle depth as 0 when round 0 opens no
 * queries: such parameters have no readable proof, so the prover refuses
 * them, naming the first later round that opens queries. */
Test(whir_codec, params_encodable)
{
    gs_whir_params p = {.l_skip = 2, .n_stack = 8, .log_blowup = 1, .k = 3, .num_rounds = 3,
                        .num_queries = {5, 4, 3}};
    gs_error err;
    cr_assert_eq(gs_whir_params_encodable(&p, &err), GLSTARK_OK);
    p.num_queries[0] = 0;
    cr_assert_eq(gs_whir_params_encodable(&p, &err), GLSTARK_ERR_UNSUPPORTED);
    cr_assert(strstr(err.msg, "round 0 opens no queries but round 1 opens 4"), "%s", err.msg);
    p.num_queries[1] = 0;
    cr_assert_eq(gs_whir_params_encodable(&p, &err), GLSTARK_ERR_UNSUPPORTED);
    cr_assert(strstr(err.msg, "round 2 opens 3"), "%s", err.msg);
    p.num_queries[2] = 0; /* no queries anywhere: nothing to misread */
    cr_assert_eq(gs_whir_params_encodable(&p, &err), GLSTARK_OK);
    p.num_queries[0] = 1; /* later rounds without queries: depth as written is the proof's own */
    cr_assert_eq(gs_whir_params_encodable(&p, &err), GLSTARK_OK);
}

/* The encoder writes only what the decoder reads back: with round 0 opening
 * no queries the depth is written as 0, so round 1's paths of depth 2 are
 * refused, not written at a length the decoder would misread. */
Test(whir_codec, encode_refuses_a_depth_it_cannot_write)
{
    const uint32_t widths[1] = {1}, nq[2] = {0, 2};
    gs_whir_proof p;
    gs_error err;
    cr_assert_eq(gs_whir_proof_alloc(&p, 2, 1, 1, widths, nq, 3, 2, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(p.first_codeword_merkle_depth, 2);
    size_t cap = gs_whir_proof_encoded_size(&p), written = 0;
    uint8_t *b = malloc(cap);
    cr_assert_eq(gs_whir_proof_encode(&p, b, cap, &written, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(err.msg, "round 1 opens 2 queries") && strstr(err.msg, "misread"), "%s", err.msg);
    /* with queries in round 0 the same proof round-trips */
    gs_whir_proof_free(&p);
    const uint32_t nq2[2] = {1, 2};
    cr_assert_eq(gs_whir_proof_alloc(&p, 2, 1, 1, widths, nq2, 3, 2, &err), GLSTARK_OK, "%s", err.msg);
    cap = gs_whir_proof_encoded_size(&p);
    b = realloc(b, cap);
    cr_assert_eq(gs_whir_proof_encode(&p, b, cap, &written, &err), GLSTARK_OK, "%s", err.msg);
    gs_whir_proof q;
    size_t used = 0;
    cr_assert_eq(gs_whir_proof_decode(&q, b, written, &used, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(used, written);
    cr_assert_eq(q.first_codeword_merkle_depth, 2);
    gs_whir_proof_free(&q);
    gs_whir_proof_free(&p);
    free(b);
}

/* Random byte changes to OpenVM's WHIR bytes: every result is a clean
 * decode that re-encodes to the same bytes, or MALFORMED with a message. */
Test(whir_codec, mutations)
{
    whir_vec v;
    cr_assert_eq(whir_vec_load(&v, "fib-small_n10"), 0);
    size_t wlen = v.proof_len - v.whir_offset;
    uint8_t *b = malloc(wlen), *out = malloc(wlen + 64);
    uint64_t s = 77;
    cr_log_info("seed 77");
    int ok = 0, bad = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(b, v.proof + v.whir_offset, wlen);
        for (int m = 0; m < 1 + it % 3; m++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            size_t pos = (size_t)(s >> 33) % wlen;
            b[pos] ^= (uint8_t)(1u << ((s >> 20) & 7));
        }
        gs_whir_proof p;
        gs_error err;
        size_t used = 0;
        glstark_status st = gs_whir_proof_decode(&p, b, wlen, &used, &err);
        if (st == GLSTARK_OK) {
            size_t n = gs_whir_proof_encoded_size(&p), wrote = 0;
            cr_assert_eq(n, used);
            if (n <= wlen + 64) {
                cr_assert_eq(gs_whir_proof_encode(&p, out, wlen + 64, &wrote, &err), GLSTARK_OK, "%s", err.msg);
                cr_assert(memcmp(out, b, used) == 0, "iteration %d re-encodes", it);
            }
            gs_whir_proof_free(&p);
            ok++;
        } else {
            cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "iteration %d: status %d", it, st);
            cr_assert(strlen(err.msg) > 0);
            bad++;
        }
    }
    cr_log_info("%d decoded, %d malformed", ok, bad);
    cr_assert(ok > 0 && bad > 0);
    free(b);
    free(out);
    whir_vec_free(&v);
}

static void put_u32(uint8_t *b, size_t *n, uint32_t v)
{
    b[(*n)++] = (uint8_t)v;
    b[(*n)++] = (uint8_t)(v >> 8);
    b[(*n)++] = (uint8_t)(v >> 16);
    b[(*n)++] = (uint8_t)(v >> 24);
}

/* Sizes whose product passes 2^64: one round of k = 16, one commit of width
 * 2^31 opened at 2^31 queries (2^31 * 2^16 * 2^31 * 4 bytes of rows, which
 * is 0 mod 2^64) and no bytes for them. The size check must not wrap. */
Test(whir_codec, row_bytes_overflowing_u64)
{
    static uint8_t b[1024];
    size_t n = 0;
    put_u32(b, &n, 0);  /* mu witness */
    put_u32(b, &n, 16); /* 16 sumcheck rounds: k = 16, one WHIR round */
    n += 16 * 32;
    put_u32(b, &n, 0); /* no codeword commits */
    n += 16 * 4 + 4;   /* folding and query witnesses */
    put_u32(b, &n, 1);          /* num_commits */
    put_u32(b, &n, 1u << 31);   /* initial num_queries */
    put_u32(b, &n, 0);          /* initial Merkle depth */
    put_u32(b, &n, 1u << 31);   /* width */
    put_u32(b, &n, 0);          /* codeword Merkle depth */
    put_u32(b, &n, 0);          /* final_poly length */
    gs_whir_proof p;
    gs_error err;
    gs_error_clear(&err);
    cr_assert_eq(gs_whir_proof_decode(&p, b, n, NULL, &err), GLSTARK_ERR_MALFORMED, "%s", err.msg);
    cr_assert(strstr(err.msg, "initial_round_opened_rows") != NULL, "%s", err.msg);
}
