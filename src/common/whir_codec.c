/* Byte codec of the WHIR proof, exactly as OpenVM's `Encode/Decode for
 * WhirProof` (SB/proof.rs) lays it out; notes in docs/protocol.md, 'WHIR'.
 * Little-endian u32 everywhere; field elements canonical; lengths that the
 * layout implies are not written. */
#include "common/whir.h"

#include <stdlib.h>
#include <string.h>

/* ---------- shape and allocation ---------- */

glstark_status gs_whir_params_check(const gs_whir_params *p, gs_error *err)
{
    if (!p)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir params: NULL; pass the system's WHIR parameters");
    uint32_t L = p->l_skip + p->n_stack;
    if (p->num_rounds == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir params: zero WHIR rounds (L=%u); OpenVM cannot run WHIR without a round, so pick "
                            "parameters with log_final_poly_len < l_skip + n_stack",
                            L);
    if (p->num_rounds > GS_WHIR_PROOF_MAX_ROUNDS)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir params: %u rounds exceeds the supported %d",
                            p->num_rounds, GS_WHIR_PROOF_MAX_ROUNDS);
    if (p->k == 0 || p->k > 16)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir params: k = %u, need 1 <= k <= 16", p->k);
    if ((uint64_t)p->num_rounds * p->k > L)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir params: %u rounds of k = %u fold more than the L = %u stacked variables",
                            p->num_rounds, p->k, L);
    if (L + p->log_blowup > 27)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir params: codeword domain 2^%u exceeds BabyBear's two-adicity 27",
                            L + p->log_blowup);
    if (L + p->log_blowup < p->k + p->num_rounds)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir params: domain 2^%u too small for %u rounds of k = %u", L + p->log_blowup,
                            p->num_rounds, p->k);
    if (p->mu_pow_bits > 30 || p->folding_pow_bits > 30 || p->query_phase_pow_bits > 30)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir params: proof-of-work bits must be at most 30");
    return GLSTARK_OK;
}

glstark_status gs_whir_params_of(const gs_system_params *sp, gs_whir_params *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (sp->whir.num_rounds > GS_WHIR_PROOF_MAX_ROUNDS)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED, "WHIR: %zu rounds, at most %d supported",
                            sp->whir.num_rounds, GS_WHIR_PROOF_MAX_ROUNDS);
    out->l_skip = (uint32_t)sp->l_skip;
    out->n_stack = (uint32_t)sp->n_stack;
    out->log_blowup = (uint32_t)sp->log_blowup;
    out->k = (uint32_t)sp->whir.k;
    out->num_rounds = (uint32_t)sp->whir.num_rounds;
    for (size_t i = 0; i < sp->whir.num_rounds; i++)
        out->num_queries[i] = (uint32_t)sp->whir.num_queries[i];
    out->mu_pow_bits = (uint32_t)sp->whir.mu_pow_bits;
    out->folding_pow_bits = (uint32_t)sp->whir.folding_pow_bits;
    out->query_phase_pow_bits = (uint32_t)sp->whir.query_phase_pow_bits;
    return gs_whir_params_check(out, err);
}

void gs_whir_proof_free(gs_whir_proof *p)
{
    if (!p)
        return;
    free(p->sumcheck_polys);
    free(p->codeword_commits);
    free(p->ood_values);
    free(p->folding_pow_witnesses);
    free(p->query_pow_witnesses);
    if (p->initial_rows)
        for (uint32_t c = 0; c < p->num_commits; c++)
            free(p->initial_rows[c]);
    if (p->initial_proofs)
        for (uint32_t c = 0; c < p->num_commits; c++)
            free(p->initial_proofs[c]);
    free(p->initial_rows);
    free(p->initial_proofs);
    free(p->widths);
    if (p->codeword_values)
        for (uint32_t r = 0; r + 1 < p->num_rounds; r++)
            free(p->codeword_values[r]);
    if (p->codeword_proofs)
        for (uint32_t r = 0; r + 1 < p->num_rounds; r++)
            free(p->codeword_proofs[r]);
    free(p->codeword_values);
    free(p->codeword_proofs);
    free(p->final_poly);
    memset(p, 0, sizeof *p);
}

/* calloc that treats a zero count as a valid empty array and checks n·size. */
static void *zalloc(size_t n, size_t size, int *fail)
{
    if (n == 0)
        return NULL;
    if (size && n > SIZE_MAX / size) {
        *fail = 1;
        return NULL;
    }
    void *q = calloc(n, size);
    if (!q)
        *fail = 1;
    return q;
}

glstark_status gs_whir_proof_alloc(gs_whir_proof *p, uint32_t num_rounds, uint32_t k, uint32_t num_commits,
                                   const uint32_t *widths, const uint32_t *num_queries, uint32_t depth_0,
                                   uint32_t final_poly_len, gs_error *err)
{
    memset(p, 0, sizeof *p);
    if (num_rounds == 0 || num_rounds > GS_WHIR_PROOF_MAX_ROUNDS || num_commits == 0 || k > 16)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir proof alloc: bad shape (rounds %u, k %u, commits %u)", num_rounds, k, num_commits);
    int fail = 0;
    size_t rows = (size_t)1 << k;
    p->num_rounds = num_rounds;
    p->k = k;
    p->num_commits = num_commits;
    p->initial_merkle_depth = depth_0;
    p->first_codeword_merkle_depth = num_rounds > 1 ? depth_0 - 1 : 0;
    p->final_poly_len = final_poly_len;
    memcpy(p->num_queries, num_queries, num_rounds * sizeof(uint32_t));
    size_t nsc = (size_t)num_rounds * k;
    p->sumcheck_polys = zalloc(2 * nsc, sizeof(bb4_t), &fail);
    p->codeword_commits = zalloc(num_rounds - 1, sizeof(gs_whir_digest), &fail);
    p->ood_values = zalloc(num_rounds - 1, sizeof(bb4_t), &fail);
    p->folding_pow_witnesses = zalloc(nsc, sizeof(bb_t), &fail);
    p->query_pow_witnesses = zalloc(num_rounds, sizeof(bb_t), &fail);
    p->widths = zalloc(num_commits, sizeof(uint32_t), &fail);
    p->initial_rows = zalloc(num_commits, sizeof(bb_t *), &fail);
    p->initial_proofs = zalloc(num_commits, sizeof(gs_whir_digest *), &fail);
    if (!fail) {
        for (uint32_t c = 0; c < num_commits; c++) {
            p->widths[c] = widths[c];
            p->initial_rows[c] = zalloc((size_t)num_queries[0] * rows * widths[c], sizeof(bb_t), &fail);
            p->initial_proofs[c] = zalloc((size_t)num_queries[0] * depth_0, sizeof(gs_whir_digest), &fail);
        }
    }
    p->codeword_values = zalloc(num_rounds - 1, sizeof(bb4_t *), &fail);
    p->codeword_proofs = zalloc(num_rounds - 1, sizeof(gs_whir_digest *), &fail);
    if (!fail) {
        for (uint32_t r = 1; r < num_rounds; r++) {
            uint32_t depth = depth_0 >= r ? depth_0 - r : 0;
            p->codeword_values[r - 1] = zalloc((size_t)num_queries[r] * rows, sizeof(bb4_t), &fail);
            p->codeword_proofs[r - 1] = zalloc((size_t)num_queries[r] * depth, sizeof(gs_whir_digest), &fail);
        }
    }
    p->final_poly = zalloc(final_poly_len, sizeof(bb4_t), &fail);
    if (fail) {
        gs_whir_proof_free(p);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir proof alloc: out of host memory");
    }
    return GLSTARK_OK;
}

static uint32_t codeword_depth(const gs_whir_proof *p, uint32_t r)
{
    /* r ≥ 1; the decoder decrements from first_codeword_merkle_depth. A depth
     * that would run below zero is only legal for a round without queries
     * (the decoder checks), where it multiplies nothing: count it as 0. */
    return p->first_codeword_merkle_depth >= r - 1 ? p->first_codeword_merkle_depth - (r - 1) : 0;
}

/* ---------- encoding ---------- */

size_t gs_whir_proof_encoded_size(const gs_whir_proof *p)
{
    size_t nu = p->num_rounds, k = p->k, rows = (size_t)1 << k, nsc = nu * k;
    size_t n = 4;                        /* mu witness */
    n += 4 + nsc * 32;                   /* sumcheck polys */
    n += 4 + (nu - 1) * 32;              /* codeword commits */
    n += (nu - 1) * 16;                  /* ood */
    n += nsc * 4 + nu * 4;               /* witnesses */
    n += 8;                              /* num_commits, initial queries */
    if (p->num_queries[0] > 0) {
        n += 4 + 4 * (size_t)p->num_commits;
        for (uint32_t c = 0; c < p->num_commits; c++)
            n += (size_t)p->num_queries[0] * rows * p->widths[c] * 4 +
                 (size_t)p->num_queries[0] * p->initial_merkle_depth * 32;
    }
    for (uint32_t r = 1; r < nu; r++)
        n += 4 + (size_t)p->num_queries[r] * rows * 16;
    n += 4;
    for (uint32_t r = 1; r < nu; r++)
        n += (size_t)p->num_queries[r] * codeword_depth(p, r) * 32;
    n += 4 + (size_t)p->final_poly_len * 16;
    return n;
}

typedef struct wr {
    uint8_t *b;
    size_t pos;
} wr;

static void put_u32(wr *w, uint32_t x)
{
    w->b[w->pos++] = (uint8_t)x;
    w->b[w->pos++] = (uint8_t)(x >> 8);
    w->b[w->pos++] = (uint8_t)(x >> 16);
    w->b[w->pos++] = (uint8_t)(x >> 24);
}
static void put_f(wr *w, bb_t x) { put_u32(w, bb_to_canonical(x)); }
static void put_ef(wr *w, bb4_t x)
{
    for (int i = 0; i < 4; i++)
        put_f(w, x.c[i]);
}
static void put_dg(wr *w, const gs_whir_digest *d)
{
    for (int i = 0; i < 8; i++)
        put_f(w, d->v[i]);
}

glstark_status gs_whir_proof_encode(const gs_whir_proof *p, uint8_t *out, size_t cap, size_t *written,
                                    gs_error *err)
{
    if (!p || !out || p->num_rounds == 0 || p->num_commits == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir encode: empty proof (no rounds or no commits); OpenVM requires both");
    /* Same rule as the decoder: the per-round depth may only run below zero
     * in rounds that open no queries (decode then encode must round-trip). */
    for (uint32_t r = 1; r < p->num_rounds; r++)
        if (p->first_codeword_merkle_depth < r - 1 && p->num_queries[r] > 0)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "whir encode: codeword Merkle depth %u runs below zero at round %u, which has %u queries",
                                p->first_codeword_merkle_depth, r, p->num_queries[r]);
    size_t need = gs_whir_proof_encoded_size(p);
    if (cap < need)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir encode: %zu-byte buffer, need %zu", cap, need);
    wr w = {out, 0};
    size_t nu = p->num_rounds, rows = (size_t)1 << p->k, nsc = nu * p->k;
    put_f(&w, p->mu_pow_witness);
    put_u32(&w, (uint32_t)nsc);
    for (size_t j = 0; j < 2 * nsc; j++)
        put_ef(&w, p->sumcheck_polys[j]);
    put_u32(&w, (uint32_t)(nu - 1));
    for (size_t r = 0; r + 1 < nu; r++)
        put_dg(&w, &p->codeword_commits[r]);
    for (size_t r = 0; r + 1 < nu; r++)
        put_ef(&w, p->ood_values[r]);
    for (size_t j = 0; j < nsc; j++)
        put_f(&w, p->folding_pow_witnesses[j]);
    for (size_t r = 0; r < nu; r++)
        put_f(&w, p->query_pow_witnesses[r]);
    put_u32(&w, p->num_commits);
    put_u32(&w, p->num_queries[0]);
    if (p->num_queries[0] > 0) {
        put_u32(&w, p->initial_merkle_depth);
        for (uint32_t c = 0; c < p->num_commits; c++)
            put_u32(&w, p->widths[c]);
        for (uint32_t c = 0; c < p->num_commits; c++) {
            size_t n = (size_t)p->num_queries[0] * rows * p->widths[c];
            for (size_t i = 0; i < n; i++)
                put_f(&w, p->initial_rows[c][i]);
        }
        for (uint32_t c = 0; c < p->num_commits; c++) {
            size_t n = (size_t)p->num_queries[0] * p->initial_merkle_depth;
            for (size_t i = 0; i < n; i++)
                put_dg(&w, &p->initial_proofs[c][i]);
        }
    }
    for (uint32_t r = 1; r < nu; r++) {
        put_u32(&w, p->num_queries[r]);
        size_t n = (size_t)p->num_queries[r] * rows;
        for (size_t i = 0; i < n; i++)
            put_ef(&w, p->codeword_values[r - 1][i]);
    }
    /* OpenVM writes the first codeword depth only when round 0 has queries
     * (it reads it from codeword_merkle_proofs[0][0]); otherwise 0. */
    put_u32(&w, (nu > 1 && p->num_queries[0] > 0) ? p->first_codeword_merkle_depth : 0);
    for (uint32_t r = 1; r < nu; r++) {
        size_t n = (size_t)p->num_queries[r] * codeword_depth(p, r);
        for (size_t i = 0; i < n; i++)
            put_dg(&w, &p->codeword_proofs[r - 1][i]);
    }
    put_u32(&w, p->final_poly_len);
    for (uint32_t i = 0; i < p->final_poly_len; i++)
        put_ef(&w, p->final_poly[i]);
    if (w.pos != need)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "whir encode: wrote %zu bytes, size said %zu", w.pos, need);
    if (written)
        *written = w.pos;
    return GLSTARK_OK;
}

/* ---------- decoding ---------- */

typedef struct rd {
    const uint8_t *b;
    size_t len, pos;
    gs_error *err;
    const char *what; /* the field being read, for messages */
} rd;

static glstark_status short_read(rd *r, size_t need)
{
    return gs_error_set(r->err, GLSTARK_ERR_MALFORMED,
                        "whir decode: truncated while reading %s at byte %zu (need %zu more bytes, %zu left); "
                        "the proof bytes are cut short or a length field is wrong",
                        r->what, r->pos, need, r->len - r->pos);
}

static glstark_status get_u32(rd *r, uint32_t *x)
{
    if (r->len - r->pos < 4)
        return short_read(r, 4);
    const uint8_t *b = r->b + r->pos;
    *x = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->pos += 4;
    return GLSTARK_OK;
}

static glstark_status get_f(rd *r, bb_t *x)
{
    uint32_t v = 0;
    glstark_status st = get_u32(r, &v);
    if (st)
        return st;
    if (v >= BB_P)
        return gs_error_set(r->err, GLSTARK_ERR_MALFORMED,
                            "whir decode: %s at byte %zu holds %u, not a canonical BabyBear value (< %u)", r->what,
                            r->pos - 4, v, (unsigned)BB_P);
    *x = bb_from_canonical(v);
    return GLSTARK_OK;
}

static glstark_status get_ef(rd *r, bb4_t *x)
{
    for (int i = 0; i < 4; i++) {
        glstark_status st = get_f(r, &x->c[i]);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

static glstark_status get_dg(rd *r, gs_whir_digest *d)
{
    for (int i = 0; i < 8; i++) {
        glstark_status st = get_f(r, &d->v[i]);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

/* Checks that count items of item_bytes each fit in what is left, before
 * anything is allocated for them (lengths come from untrusted bytes). */
static glstark_status need_bytes(rd *r, uint64_t count, uint64_t item_bytes)
{
    if (item_bytes && count > (uint64_t)(r->len - r->pos) / item_bytes)
        return short_read(r, (size_t)(count * item_bytes > SIZE_MAX ? SIZE_MAX : count * item_bytes));
    return GLSTARK_OK;
}

#define TRY(x)                                                                                                       \
    do {                                                                                                             \
        st = (x);                                                                                                    \
        if (st)                                                                                                      \
            goto fail;                                                                                               \
    } while (0)

glstark_status gs_whir_proof_decode(gs_whir_proof *p, const uint8_t *bytes, size_t len, size_t *consumed,
                                    gs_error *err)
{
    memset(p, 0, sizeof *p);
    if (!bytes && len)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir decode: NULL bytes");
    rd r = {bytes, len, 0, err, "mu_pow_witness"};
    glstark_status st;
    bb_t mu_w = 0;
    uint32_t nsc = 0, ncw = 0;
    TRY(get_f(&r, &mu_w));
    r.what = "num_whir_sumcheck_rounds";
    TRY(get_u32(&r, &nsc));
    TRY(need_bytes(&r, nsc, 32));
    size_t sc_pos = r.pos;
    r.pos += (size_t)nsc * 32; /* read after allocation; bounds checked above */
    r.what = "codeword_commits length";
    TRY(get_u32(&r, &ncw));
    if (ncw >= GS_WHIR_PROOF_MAX_ROUNDS)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED, "whir decode: %u codeword commits (more than %d rounds)",
                            ncw, GS_WHIR_PROOF_MAX_ROUNDS);
    uint32_t nu = ncw + 1;
    if (nsc % nu != 0)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                            "whir decode: %u sumcheck rounds is not a multiple of the %u WHIR rounds", nsc, nu);
    uint32_t k = nsc / nu;
    if (k > 16)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED, "whir decode: folding factor k = %u is out of range", k);
    size_t rows = (size_t)1 << k;
    /* Skip to the shape fields to size the allocation, then come back. */
    size_t cw_pos = r.pos;
    TRY(need_bytes(&r, (uint64_t)ncw * 32 + (uint64_t)ncw * 16 + (uint64_t)nsc * 4 + (uint64_t)nu * 4, 1));
    r.pos += (size_t)ncw * 32 + (size_t)ncw * 16 + (size_t)nsc * 4 + (size_t)nu * 4;
    uint32_t ncommits = 0, nq0 = 0, depth0 = 0;
    r.what = "num_commits";
    TRY(get_u32(&r, &ncommits));
    if (ncommits == 0)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED, "whir decode: num_commits must be nonzero");
    r.what = "initial num_queries";
    TRY(get_u32(&r, &nq0));
    uint32_t *widths = NULL;
    if (nq0 > 0) {
        r.what = "initial merkle depth";
        TRY(get_u32(&r, &depth0));
        TRY(need_bytes(&r, ncommits, 4));
        widths = calloc(ncommits, sizeof *widths);
        if (!widths)
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir decode: out of memory");
        r.what = "commit widths";
        for (uint32_t c = 0; c < ncommits; c++)
            if ((st = get_u32(&r, &widths[c]))) {
                free(widths);
                return st;
            }
    } else {
        /* Without initial queries a commit takes no bytes here, so the
         * remaining length cannot bound the count; a commit still stands for
         * a stacking opening earlier in the proof (at least 4 bytes), so more
         * commits than input bytes is malformed. (Found by fuzz_proof:
         * num_commits = 0xFFFFFFFF made a 16 GiB allocation.) */
        if (ncommits > r.len)
            return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                                "whir decode: num_commits %u at byte %zu exceeds the %zu-byte input", ncommits,
                                r.pos - 8, r.len);
        widths = calloc(ncommits, sizeof *widths); /* OpenVM fills 0 */
        if (!widths)
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir decode: out of memory");
    }
    /* bound the initial rows and proofs before allocating */
    {
        uint64_t tot = 0;
        for (uint32_t c = 0; c < ncommits; c++) {
            tot += (uint64_t)nq0 * rows * widths[c] * 4 + (uint64_t)nq0 * depth0 * 32;
            if (tot > (uint64_t)(r.len - r.pos)) {
                free(widths);
                r.what = "initial opened rows and Merkle proofs";
                return short_read(&r, (size_t)(tot > SIZE_MAX ? SIZE_MAX : tot));
            }
        }
    }
    size_t init_pos = r.pos;
    for (uint32_t c = 0; c < ncommits; c++)
        r.pos += (size_t)nq0 * rows * widths[c] * 4 + (size_t)nq0 * depth0 * 32;
    uint32_t nq[GS_WHIR_PROOF_MAX_ROUNDS];
    nq[0] = nq0;
    size_t cwv_pos[GS_WHIR_PROOF_MAX_ROUNDS];
    for (uint32_t rr = 1; rr < nu; rr++) {
        r.what = "codeword round num_queries";
        if ((st = get_u32(&r, &nq[rr]))) {
            free(widths);
            return st;
        }
        cwv_pos[rr] = r.pos;
        if ((st = need_bytes(&r, (uint64_t)nq[rr] * rows, 16))) {
            free(widths);
            return st;
        }
        r.pos += (size_t)nq[rr] * rows * 16;
    }
    uint32_t depth1;
    r.what = "codeword merkle depth";
    if ((st = get_u32(&r, &depth1))) {
        free(widths);
        return st;
    }
    /* OpenVM decrements the depth per round (usize); a wrap past zero can only
     * be read when that round has no queries. */
    for (uint32_t rr = 1; rr < nu; rr++) {
        if (depth1 < rr - 1 && nq[rr] > 0) {
            free(widths);
            return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                                "whir decode: codeword Merkle depth %u runs below zero at round %u", depth1, rr);
        }
    }
    size_t cwp_pos = r.pos;
    {
        uint64_t tot = 0;
        for (uint32_t rr = 1; rr < nu; rr++)
            if (depth1 >= rr - 1)
                tot += (uint64_t)nq[rr] * (depth1 - (rr - 1)) * 32;
        r.what = "codeword Merkle proofs";
        if ((st = need_bytes(&r, tot, 1))) {
            free(widths);
            return st;
        }
        r.pos += (size_t)tot;
    }
    uint32_t nfin;
    r.what = "final_poly length";
    if ((st = get_u32(&r, &nfin)) || (st = need_bytes(&r, nfin, 16))) {
        free(widths);
        return st;
    }
    size_t fin_pos = r.pos;
    size_t end = r.pos + (size_t)nfin * 16;

    /* Allocate with depth0 for the initial proofs; the codeword depth is
     * whatever the bytes say, so allocate those arrays here. */
    st = gs_whir_proof_alloc(p, nu, k, ncommits, widths, nq, depth0, nfin, err);
    free(widths);
    if (st)
        return st;
    p->first_codeword_merkle_depth = depth1;
    for (uint32_t rr = 1; rr < nu; rr++) {
        free(p->codeword_proofs[rr - 1]);
        size_t n = depth1 >= rr - 1 ? (size_t)nq[rr] * (depth1 - (rr - 1)) : 0;
        p->codeword_proofs[rr - 1] = n ? calloc(n, sizeof(gs_whir_digest)) : NULL;
        if (n && !p->codeword_proofs[rr - 1]) {
            gs_whir_proof_free(p);
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir decode: out of memory");
        }
    }
    p->mu_pow_witness = mu_w;

    /* second pass: values */
    r.pos = sc_pos;
    r.what = "whir_sumcheck_polys";
    for (size_t j = 0; j < 2 * (size_t)nsc; j++)
        TRY(get_ef(&r, &p->sumcheck_polys[j]));
    r.pos = cw_pos;
    r.what = "codeword_commits";
    for (uint32_t i = 0; i < ncw; i++)
        TRY(get_dg(&r, &p->codeword_commits[i]));
    r.what = "ood_values";
    for (uint32_t i = 0; i < ncw; i++)
        TRY(get_ef(&r, &p->ood_values[i]));
    r.what = "folding_pow_witnesses";
    for (uint32_t i = 0; i < nsc; i++)
        TRY(get_f(&r, &p->folding_pow_witnesses[i]));
    r.what = "query_phase_pow_witnesses";
    for (uint32_t i = 0; i < nu; i++)
        TRY(get_f(&r, &p->query_pow_witnesses[i]));
    r.pos = init_pos;
    r.what = "initial_round_opened_rows";
    for (uint32_t c = 0; c < ncommits; c++) {
        size_t n = (size_t)nq0 * rows * p->widths[c];
        for (size_t i = 0; i < n; i++)
            TRY(get_f(&r, &p->initial_rows[c][i]));
    }
    r.what = "initial_round_merkle_proofs";
    for (uint32_t c = 0; c < ncommits; c++) {
        size_t n = (size_t)nq0 * depth0;
        for (size_t i = 0; i < n; i++)
            TRY(get_dg(&r, &p->initial_proofs[c][i]));
    }
    r.what = "codeword_opened_values";
    for (uint32_t rr = 1; rr < nu; rr++) {
        r.pos = cwv_pos[rr];
        for (size_t i = 0; i < (size_t)nq[rr] * rows; i++)
            TRY(get_ef(&r, &p->codeword_values[rr - 1][i]));
    }
    r.pos = cwp_pos;
    r.what = "codeword_merkle_proofs";
    for (uint32_t rr = 1; rr < nu; rr++) {
        size_t n = depth1 >= rr - 1 ? (size_t)nq[rr] * (depth1 - (rr - 1)) : 0;
        for (size_t i = 0; i < n; i++)
            TRY(get_dg(&r, &p->codeword_proofs[rr - 1][i]));
    }
    r.pos = fin_pos;
    r.what = "final_poly";
    for (uint32_t i = 0; i < nfin; i++)
        TRY(get_ef(&r, &p->final_poly[i]));
    if (r.pos != end) {
        st = gs_error_set(err, GLSTARK_ERR_INTERNAL, "whir decode: position %zu after final poly, expected %zu",
                          r.pos, end);
        goto fail;
    }
    if (consumed)
        *consumed = end;
    return GLSTARK_OK;
fail:
    gs_whir_proof_free(p);
    return st;
}

/* ---------- proof shape (SB/verifier/proof_shape.rs, WHIR part) ---------- */

glstark_status gs_whir_proof_check_shape(const gs_whir_proof *p, const gs_whir_params *prm,
                                         const uint32_t *widths, uint32_t num_commits, gs_error *err)
{
    glstark_status st = gs_whir_params_check(prm, err);
    if (st)
        return st;
    uint32_t L = prm->l_skip + prm->n_stack;
    if (p->num_rounds != prm->num_rounds)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "whir proof shape: %u rounds, parameters say %u",
                            p->num_rounds, prm->num_rounds);
    if (p->k != prm->k)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "whir proof shape: %u sumcheck rounds per WHIR round, k = %u",
                            p->k, prm->k);
    if (p->num_commits != num_commits)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "whir proof shape: %u commits opened, expected %u",
                            p->num_commits, num_commits);
    for (uint32_t r = 0; r < p->num_rounds; r++)
        if (p->num_queries[r] != prm->num_queries[r])
            return gs_error_set(err, GLSTARK_ERR_REJECTED, "whir proof shape: round %u has %u queries, expected %u",
                                r, p->num_queries[r], prm->num_queries[r]);
    uint32_t depth0 = L + prm->log_blowup - prm->k;
    if (p->num_queries[0] > 0) {
        if (p->initial_merkle_depth != depth0)
            return gs_error_set(err, GLSTARK_ERR_REJECTED,
                                "whir proof shape: initial Merkle proofs have %u siblings, expected %u",
                                p->initial_merkle_depth, depth0);
        for (uint32_t c = 0; c < num_commits; c++)
            if (p->widths[c] != widths[c])
                return gs_error_set(err, GLSTARK_ERR_REJECTED,
                                    "whir proof shape: commit %u opened rows of width %u, stacked width is %u", c,
                                    p->widths[c], widths[c]);
    }
    for (uint32_t r = 1; r < p->num_rounds; r++)
        if (p->num_queries[r] > 0 && codeword_depth(p, r) != depth0 - r)
            return gs_error_set(err, GLSTARK_ERR_REJECTED,
                                "whir proof shape: round %u Merkle proofs have %u siblings, expected %u", r,
                                codeword_depth(p, r), depth0 - r);
    uint32_t log_final = L - prm->num_rounds * prm->k;
    if (p->final_poly_len != (1u << log_final))
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "whir proof shape: final polynomial has %u coefficients, expected %u",
                            p->final_poly_len, 1u << log_final);
    return GLSTARK_OK;
}
