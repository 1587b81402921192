/* Proof codec (codec version 3) against OpenVM's own proofs.
 *
 * - decode then encode gives back every shared OpenVM proof byte for byte;
 * - the decoded values equal OpenVM's Debug dump of the same Proof struct
 *   (tests/data/openvm/<spec>.proof.values.txt: every integer of
 *   <spec>.proof.debug.txt in print order, extracted with grep), which
 *   checks field order and nesting independently of the encoder;
 * - malformed inputs (every truncation, trailing bytes, bad version, huge
 *   lengths, non-canonical values, bitmap padding, arbitrary byte changes)
 *   give GLSTARK_ERR_MALFORMED with a message naming field and offset, never
 *   a crash. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proof.h"
#include "../util/test_files.h"

static const char *const PROOFS[] = {
    "fib-small_n1", "fib-small_n2", "fib-small_n3", "fib-small_n4", "fib-small_n10",
    "interactions-small", "fib-app18_n10", "keccak-app21_p16",
};

static void roundtrip(const char *spec)
{
    char name[256];
    snprintf(name, sizeof name, "%s.proof.bin", spec);
    size_t len;
    uint8_t *bytes = tf_read("openvm", name, &len);
    gs_proof p;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_proof_decode(bytes, len, &p, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: decode failed: %s", spec, err.msg);
    uint8_t *out = NULL;
    size_t out_len = 0;
    st = gs_proof_encode(&p, &out, &out_len, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: encode failed: %s", spec, err.msg);
    cr_assert_eq(out_len, len, "%s: re-encoded %zu bytes, original %zu", spec, out_len, len);
    size_t first = 0;
    while (first < len && out[first] == bytes[first])
        first++;
    cr_assert_eq(first, len, "%s: re-encoding differs first at byte %zu", spec, first);
    gs_proof_free(&p);
    free(out);
    free(bytes);
}

Test(proof_codec, roundtrip_all_shared_proofs)
{
    for (size_t i = 0; i < sizeof PROOFS / sizeof PROOFS[0]; i++)
        roundtrip(PROOFS[i]);
}

/* ---- Debug-order walk: pushes every value as the Rust Debug dump prints it. */

typedef struct walk {
    uint32_t *v;
    size_t n, cap;
} walk;

static void push(walk *w, uint32_t x)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 1024;
        w->v = realloc(w->v, w->cap * sizeof *w->v);
        cr_assert(w->v);
    }
    w->v[w->n++] = x;
}
static void push_f(walk *w, bb_t x) { push(w, bb_to_canonical(x)); }
static void push_ef(walk *w, bb4_t x)
{
    for (int j = 0; j < 4; j++)
        push_f(w, x.c[j]);
}
static void push_dg(walk *w, const gs_digest *d)
{
    for (int j = 0; j < 8; j++)
        push_f(w, d->v[j]);
}

static void walk_proof(const gs_proof *p, walk *w)
{
    push_dg(w, &p->common_main_commit);
    for (uint32_t a = 0; a < p->num_airs; a++) {
        const gs_trace_vdata *tv = &p->trace_vdata[a];
        if (!tv->present)
            continue;
        push(w, tv->log_height);
        for (uint32_t c = 0; c < tv->num_cached; c++)
            push_dg(w, &tv->cached_commitments[c]);
    }
    for (uint32_t a = 0; a < p->num_public_value_lists; a++)
        for (uint32_t i = 0; i < p->public_values[a].len; i++)
            push_f(w, p->public_values[a].v[i]);
    const gs_proof_gkr *g = &p->gkr;
    push_f(w, g->logup_pow_witness);
    push_ef(w, g->q0_claim);
    for (uint32_t j = 0; j < g->num_layers; j++) {
        push_ef(w, g->claims_per_layer[j].p_xi_0);
        push_ef(w, g->claims_per_layer[j].p_xi_1);
        push_ef(w, g->claims_per_layer[j].q_xi_0);
        push_ef(w, g->claims_per_layer[j].q_xi_1);
    }
    for (uint32_t layer = 1; layer < g->num_layers; layer++)
        for (uint32_t k = 0; k < layer; k++)
            for (int e = 0; e < 3; e++)
                push_ef(w, gs_proof_gkr_sumcheck(g, layer, k)[e]);
    const gs_batch_constraint_proof *b = &p->batch;
    for (uint32_t t = 0; t < b->num_traces; t++)
        push_ef(w, b->numerator_term_per_air[t]);
    for (uint32_t t = 0; t < b->num_traces; t++)
        push_ef(w, b->denominator_term_per_air[t]);
    for (uint32_t i = 0; i < b->univariate_round_coeffs.len; i++)
        push_ef(w, b->univariate_round_coeffs.v[i]);
    for (size_t i = 0; i < (size_t)b->n_max * b->round_poly_len; i++)
        push_ef(w, b->sumcheck_round_polys[i]);
    for (uint32_t t = 0; t < b->num_traces; t++)
        for (uint32_t j = 0; j < b->column_openings[t].num_parts; j++)
            for (uint32_t i = 0; i < b->column_openings[t].parts[j].len; i++)
                push_ef(w, b->column_openings[t].parts[j].v[i]);
    const gs_stacking_proof *s = &p->stacking;
    for (uint32_t i = 0; i < s->univariate_round_coeffs.len; i++)
        push_ef(w, s->univariate_round_coeffs.v[i]);
    for (size_t i = 0; i < (size_t)s->num_rounds * 2; i++)
        push_ef(w, s->sumcheck_round_polys[i]);
    for (uint32_t c = 0; c < s->num_commits; c++)
        for (uint32_t i = 0; i < s->stacking_openings[c].len; i++)
            push_ef(w, s->stacking_openings[c].v[i]);
    const gs_whir_proof *h = &p->whir;
    const size_t nsc = (size_t)h->num_rounds * h->k;
    push_f(w, h->mu_pow_witness);
    for (size_t i = 0; i < nsc * 2; i++)
        push_ef(w, h->sumcheck_polys[i]);
    for (uint32_t i = 0; i + 1 < h->num_rounds; i++)
        for (int j = 0; j < 8; j++)
            push_f(w, h->codeword_commits[i].v[j]);
    for (uint32_t i = 0; i + 1 < h->num_rounds; i++)
        push_ef(w, h->ood_values[i]);
    for (size_t i = 0; i < nsc; i++)
        push_f(w, h->folding_pow_witnesses[i]);
    for (uint32_t i = 0; i < h->num_rounds; i++)
        push_f(w, h->query_pow_witnesses[i]);
    size_t R = (size_t)1 << h->k;
    for (uint32_t c = 0; c < h->num_commits; c++)
        for (size_t i = 0; i < h->num_queries[0] * R * h->widths[c]; i++)
            push_f(w, h->initial_rows[c][i]);
    for (uint32_t c = 0; c < h->num_commits; c++)
        for (size_t i = 0; i < (size_t)h->num_queries[0] * h->initial_merkle_depth; i++)
            for (int j = 0; j < 8; j++)
                push_f(w, h->initial_proofs[c][i].v[j]);
    for (uint32_t r = 1; r < h->num_rounds; r++)
        for (size_t i = 0; i < h->num_queries[r] * R; i++)
            push_ef(w, h->codeword_values[r - 1][i]);
    for (uint32_t r = 1; r < h->num_rounds; r++)
        for (size_t i = 0; i < (size_t)h->num_queries[r] * (h->first_codeword_merkle_depth - (r - 1)); i++)
            for (int j = 0; j < 8; j++)
                push_f(w, h->codeword_proofs[r - 1][i].v[j]);
    for (uint32_t i = 0; i < h->final_poly_len; i++)
        push_ef(w, h->final_poly[i]);
}

static void check_values(const char *spec)
{
    char name[256];
    snprintf(name, sizeof name, "%s.proof.bin", spec);
    size_t len;
    uint8_t *bytes = tf_read("openvm", name, &len);
    gs_proof p;
    gs_error err;
    cr_assert_eq(gs_proof_decode(bytes, len, &p, &err), GLSTARK_OK, "%s: %s", spec, err.msg);
    walk w = {0};
    walk_proof(&p, &w);

    snprintf(name, sizeof name, "%s.proof.values.txt", spec);
    size_t tlen;
    char *text = (char *)tf_read("openvm", name, &tlen);
    text[tlen] = '\0';
    size_t i = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save), i++) {
        cr_assert(i < w.n, "%s: the dump has more values than the decoded proof (%zu)", spec, w.n);
        unsigned long want = strtoul(tok, NULL, 10);
        cr_assert_eq(w.v[i], want, "%s: value %zu: decoded %u, OpenVM's dump %lu", spec, i, w.v[i], want);
    }
    cr_assert_eq(i, w.n, "%s: decoded proof has %zu values, OpenVM's dump %zu", spec, w.n, i);
    free(w.v);
    free(text);
    gs_proof_free(&p);
    free(bytes);
}

Test(proof_codec, decoded_values_match_openvm_debug_dump)
{
    check_values("fib-small_n4");
    check_values("fib-small_n10");
    check_values("interactions-small");
    check_values("fib-app18_n10");
}

Test(proof_codec, decoded_shapes_of_known_proofs)
{
    size_t len;
    uint8_t *bytes = tf_read("openvm", "keccak-app21_p16.proof.bin", &len);
    gs_proof p;
    gs_error err;
    cr_assert_eq(gs_proof_decode(bytes, len, &p, &err), GLSTARK_OK, "%s", err.msg);
    /* app params L = 21: l_skip 4, n_stack 17, D = 3, k = 4, 3 WHIR rounds */
    cr_assert_eq(p.num_airs, 1);
    cr_assert_eq(p.batch.univariate_round_coeffs.len, 61);
    cr_assert_eq(p.batch.round_poly_len, 4);
    cr_assert_eq(p.stacking.univariate_round_coeffs.len, 31);
    cr_assert_eq(p.stacking.num_rounds, 17);
    cr_assert_eq(p.gkr.num_layers, 0);
    cr_assert_eq(p.whir.k, 4);
    cr_assert_eq(p.whir.num_rounds, 3);
    cr_assert_eq(p.whir.num_queries[0], 193);
    cr_assert_eq(p.whir.num_queries[1], 88);
    cr_assert_eq(p.whir.num_queries[2], 81);
    cr_assert_eq(p.whir.initial_merkle_depth, 18);
    cr_assert_eq(p.whir.first_codeword_merkle_depth, 17);
    cr_assert_eq(p.whir.final_poly_len, 512);
    gs_proof_free(&p);
    free(bytes);
}

/* ---- malformed inputs ---- */

static glstark_status decode_bytes(const uint8_t *b, size_t n, gs_error *err)
{
    gs_proof p;
    gs_error_clear(err);
    glstark_status st = gs_proof_decode(b, n, &p, err);
    if (st == GLSTARK_OK)
        gs_proof_free(&p);
    return st;
}

static void put_u32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

Test(proof_codec, every_truncation_is_malformed)
{
    const char *specs[] = {"fib-small_n4", "interactions-small"};
    for (size_t s = 0; s < 2; s++) {
        char name[256];
        snprintf(name, sizeof name, "%s.proof.bin", specs[s]);
        size_t len;
        uint8_t *bytes = tf_read("openvm", name, &len);
        gs_error err;
        for (size_t cut = 0; cut < len; cut++) {
            /* an exact-size copy so that any over-read is caught by tools */
            uint8_t *copy = malloc(cut ? cut : 1);
            memcpy(copy, bytes, cut);
            glstark_status st = decode_bytes(copy, cut, &err);
            cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "%s cut at %zu: status %d", specs[s], cut, st);
            cr_assert(strstr(err.msg, "at byte") && strstr(err.msg, "truncated"), "%s cut at %zu: message '%s'",
                      specs[s], cut, err.msg);
            free(copy);
        }
        free(bytes);
    }
}

Test(proof_codec, trailing_bytes_rejected)
{
    size_t len;
    uint8_t *bytes = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    uint8_t *padded = calloc(len + 1, 1);
    memcpy(padded, bytes, len);
    gs_error err;
    cr_assert_eq(decode_bytes(padded, len + 1, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "trailing"), "%s", err.msg);
    free(padded);
    free(bytes);
}

Test(proof_codec, wrong_version_rejected)
{
    size_t len;
    uint8_t *bytes = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    put_u32(bytes, 2);
    gs_error err;
    cr_assert_eq(decode_bytes(bytes, len, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "codec version") && strstr(err.msg, "at byte 0"), "%s", err.msg);
    free(bytes);
}

Test(proof_codec, non_canonical_field_value_named)
{
    size_t len;
    uint8_t *bytes = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    gs_error err;
    /* common_main_commit[3] sits at byte 4 + 3*4 = 16 */
    put_u32(bytes + 16, BB_P);
    cr_assert_eq(decode_bytes(bytes, len, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "common_main_commit[3]") && strstr(err.msg, "at byte 16") &&
                  strstr(err.msg, "canonical"),
              "%s", err.msg);
    free(bytes);
    /* the first public value: version 4, digest 32, num_airs 4, bitmap 1,
     * log_height 4, #cached 4, #pv lists 4, pv[0] length 4 -> byte 57 */
    bytes = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    put_u32(bytes + 57, 0xFFFFFFFFu);
    cr_assert_eq(decode_bytes(bytes, len, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "public_values[0][0]") && strstr(err.msg, "at byte 57"), "%s", err.msg);
    free(bytes);
}

Test(proof_codec, huge_lengths_rejected_without_allocating)
{
    size_t len;
    uint8_t *orig = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    uint8_t *bytes = malloc(len);
    gs_error err;
    /* num_airs at byte 36; #cached at 45; #pv lists at 49; pv[0] len at 53 */
    const size_t offsets[] = {36, 45, 49, 53};
    for (size_t i = 0; i < 4; i++) {
        memcpy(bytes, orig, len);
        put_u32(bytes + offsets[i], 0xFFFFFFF0u);
        cr_assert_eq(decode_bytes(bytes, len, &err), GLSTARK_ERR_MALFORMED, "offset %zu", offsets[i]);
        cr_assert(strstr(err.msg, "length") || strstr(err.msg, "num_airs"), "%s", err.msg);
    }
    free(bytes);
    free(orig);
}

Test(proof_codec, bitmap_padding_bits_rejected)
{
    size_t len;
    uint8_t *bytes = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    cr_assert_eq(bytes[40], 1); /* one AIR, present */
    bytes[40] = 3;
    gs_error err;
    cr_assert_eq(decode_bytes(bytes, len, &err), GLSTARK_ERR_MALFORMED);
    cr_assert(strstr(err.msg, "padding bits") && strstr(err.msg, "at byte 40"), "%s", err.msg);
    free(bytes);
}

/* Every byte of a small proof replaced by a few values: decoding must return
 * OK or MALFORMED, never crash; when OK, re-encoding gives the changed bytes
 * back (the codec is a bijection on what it accepts, for these proofs). */
Test(proof_codec, every_single_byte_change_is_handled)
{
    size_t len;
    uint8_t *orig = tf_read("openvm", "fib-small_n4.proof.bin", &len);
    uint8_t *bytes = malloc(len);
    const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    size_t ok = 0, bad = 0;
    for (size_t pos = 0; pos < len; pos++) {
        for (size_t v = 0; v < sizeof vals; v++) {
            if (orig[pos] == vals[v])
                continue;
            memcpy(bytes, orig, len);
            bytes[pos] = vals[v];
            gs_proof p;
            gs_error err;
            glstark_status st = gs_proof_decode(bytes, len, &p, &err);
            if (st == GLSTARK_OK) {
                uint8_t *out;
                size_t out_len;
                cr_assert_eq(gs_proof_encode(&p, &out, &out_len, &err), GLSTARK_OK, "%s", err.msg);
                cr_assert(out_len == len && memcmp(out, bytes, len) == 0, "byte %zu := %u: re-encoding differs", pos,
                          vals[v]);
                free(out);
                gs_proof_free(&p);
                ok++;
            } else {
                cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "byte %zu := %u: status %d", pos, vals[v], st);
                cr_assert(strstr(err.msg, "at byte"), "byte %zu: message '%s'", pos, err.msg);
                bad++;
            }
        }
    }
    cr_log_info("single-byte changes: %zu decoded, %zu rejected as malformed", ok, bad);
    cr_assert(ok > 0 && bad > 0);
    free(bytes);
    free(orig);
}
