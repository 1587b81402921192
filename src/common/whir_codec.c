/* Byte codec of the WHIR proof, exactly as OpenVM's `Encode/Decode for
 * WhirProof` (SB/proof.rs) lays it out; notes in docs/protocol.md, 'WHIR'.
 * Little-endian u32 everywhere; field elements canonical; lengths that the
 * layout implies are not written. */
#include "common/whir.h"

#include "common/codec_io.h"

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

glstark_status gs_whir_params_encodable(const gs_whir_params *p, gs_error *err)
{
    if (p->num_queries[0] > 0)
        return GLSTARK_OK;
    for (uint32_t r = 1; r < p->num_rounds; r++)
        if (p->num_queries[r] > 0)
            return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                                "whir params: round 0 opens no queries but round %u opens %u; OpenVM's proof encoding "
                                "then writes the later rounds' Merkle depth as 0 and no decoder can read their "
                                "paths. Use a key whose first WHIR round has queries",
                                r, p->num_queries[r]);
    return GLSTARK_OK;
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

/* OpenVM writes the first codeword depth only when round 0 has queries (it
 * reads it from codeword_merkle_proofs[0][0]); otherwise 0. */
static uint32_t written_codeword_depth(const gs_whir_proof *p)
{
    return (p->num_rounds > 1 && p->num_queries[0] > 0) ? p->first_codeword_merkle_depth : 0;
}

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
    /* Decode then encode must round-trip, so a round that opens queries needs
     * the depth as written (written_codeword_depth) to be the proof's own, and
     * the decoder's rule: it may not run below zero there. */
    const uint32_t depth1 = written_codeword_depth(p);
    for (uint32_t r = 1; r < p->num_rounds; r++)
        if (p->num_queries[r] > 0 && (depth1 != p->first_codeword_merkle_depth || depth1 < r - 1))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "whir encode: round %u opens %u queries, but the codeword Merkle depth as written is "
                                "%u (the proof's is %u; OpenVM writes 0 when round 0 opens none), which %s",
                                r, p->num_queries[r], depth1, p->first_codeword_merkle_depth,
                                depth1 < r - 1 ? "runs below zero there" : "the decoder would misread");
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
    put_u32(&w, written_codeword_depth(p));
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

/* Where each part of a WhirProof lies in the bytes and the shape its length
 * fields give. Decoding takes two passes: the first reads the lengths and
 * skips over the values (checking they are there), so that everything is
 * allocated at once from a shape known to fit in the input; the second goes
 * back and reads the values. */
typedef struct whir_layout {
    size_t start; /* the WhirProof's first byte */
    bb_t mu_pow_witness;
    uint32_t nsc, ncw, nu, k;       /* sumcheck rounds, codeword commits, WHIR rounds, k */
    size_t rows;                    /* 2^k */
    uint32_t ncommits, depth0;      /* initial round: commits, Merkle depth */
    uint32_t *widths;               /* ncommits (0 each without initial queries) */
    uint32_t nq[GS_WHIR_PROOF_MAX_ROUNDS];
    uint32_t depth1;                /* first codeword round's Merkle depth */
    uint32_t nfin;                  /* final polynomial length */
    size_t sc_pos, cw_pos, init_pos, cwv_pos[GS_WHIR_PROOF_MAX_ROUNDS], cwp_pos, fin_pos, end;
} whir_layout;

#define L_(name) "whir_proof." name

/* Siblings per query in codeword round r >= 1, or 0 where OpenVM's usize
 * decrement would wrap (only legal in a round without queries). */
static uint64_t layout_depth(const whir_layout *L, uint32_t r)
{
    return L->depth1 >= r - 1 ? (uint64_t)L->depth1 - (r - 1) : 0;
}

/* mu witness, sumcheck polynomials, codeword commits, OOD values and the
 * proof-of-work witnesses: their lengths give the number of rounds and k. */
static glstark_status scan_rounds(gs_reader *rd, whir_layout *L)
{
    glstark_status st;
    if ((st = gs_rd_f(rd, &L->mu_pow_witness, L_("mu_pow_witness"))) ||
        (st = gs_rd_len(rd, &L->nsc, 32, L_("whir_sumcheck_polys length"))))
        return st;
    L->sc_pos = rd->pos;
    if ((st = gs_rd_skip(rd, (uint64_t)L->nsc * 32, L_("whir_sumcheck_polys"))))
        return st;
    const size_t at = rd->pos;
    if ((st = gs_rd_u32(rd, &L->ncw, L_("codeword_commits length"))))
        return st;
    if (L->ncw >= GS_WHIR_PROOF_MAX_ROUNDS)
        return gs_rd_fail(rd, at, L_("codeword_commits length"), "%u codeword commits (more than %d rounds)", L->ncw,
                          GS_WHIR_PROOF_MAX_ROUNDS);
    L->nu = L->ncw + 1;
    if (L->nsc % L->nu != 0)
        return gs_rd_fail(rd, at, L_("codeword_commits length"),
                          "%u sumcheck rounds is not a multiple of the %u WHIR rounds", L->nsc, L->nu);
    L->k = L->nsc / L->nu;
    if (L->k > 16)
        return gs_rd_fail(rd, at, L_("codeword_commits length"), "folding factor k = %u is out of range (at most 16)",
                          L->k);
    L->rows = (size_t)1 << L->k;
    L->cw_pos = rd->pos;
    /* commits, OOD values, folding and query witnesses (u32 counts: no overflow) */
    return gs_rd_skip(rd, (uint64_t)L->ncw * 32 + (uint64_t)L->ncw * 16 + (uint64_t)L->nsc * 4 + (uint64_t)L->nu * 4,
                      L_("codeword_commits, ood_values and pow witnesses"));
}

/* Adds `a * b * c` bytes to *total unless that passes `limit` (a, b, c below
 * 2^32 but their product may not fit in 64 bits). */
static int add_within(uint64_t *total, uint64_t a, uint64_t b, uint64_t c, uint64_t limit)
{
    uint64_t room = limit - *total;
    if (a == 0 || b == 0 || c == 0)
        return 1;
    if (a > room / b || a * b > room / c)
        return 0;
    *total += a * b * c;
    return 1;
}

/* The initial round's shape: commits, queries, Merkle depth, widths, and the
 * opened rows and Merkle proofs they size. */
static glstark_status scan_initial(gs_reader *rd, whir_layout *L)
{
    glstark_status st;
    const size_t at = rd->pos;
    if ((st = gs_rd_u32(rd, &L->ncommits, L_("num_commits"))))
        return st;
    if (L->ncommits == 0)
        return gs_rd_fail(rd, at, L_("num_commits"), "num_commits must be nonzero");
    if ((st = gs_rd_u32(rd, &L->nq[0], L_("initial num_queries"))))
        return st;
    if (L->nq[0] > 0) {
        if ((st = gs_rd_u32(rd, &L->depth0, L_("initial merkle depth"))) ||
            (st = gs_rd_check_fits(rd, at, L->ncommits, 4, L_("num_commits (commit widths follow)"))))
            return st;
    } else if (L->ncommits > rd->len - L->start) {
        /* Without initial queries a commit takes no bytes here, so the
         * remaining length cannot bound the count; a commit still stands for
         * a stacking opening earlier in the proof (at least 4 bytes), so more
         * commits than input bytes is malformed. (Found by fuzz_proof:
         * num_commits = 0xFFFFFFFF made a 16 GiB allocation.) */
        return gs_rd_fail(rd, at, L_("num_commits"), "num_commits %u exceeds the %zu-byte input", L->ncommits,
                          rd->len - L->start);
    }
    L->widths = gs_rd_calloc(rd, L->ncommits, sizeof *L->widths, "WHIR commit widths"); /* OpenVM fills 0 */
    if (!L->widths)
        return rd->failed;
    if (L->nq[0] > 0)
        for (uint32_t c = 0; c < L->ncommits; c++)
            if ((st = gs_rd_u32(rd, &L->widths[c], L_("commit widths[%u]"), c)))
                return st;
    /* bound the initial rows and proofs before allocating */
    const uint64_t left = gs_reader_remaining(rd);
    uint64_t tot = 0;
    for (uint32_t c = 0; c < L->ncommits; c++)
        if (!add_within(&tot, L->nq[0], L->rows * 4, L->widths[c], left) ||
            !add_within(&tot, L->nq[0], L->depth0, 32, left))
            return gs_rd_fail(rd, rd->pos, L_("initial_round_opened_rows and merkle proofs"),
                              "commit %u's opened rows and Merkle proofs need more than the %llu bytes that remain "
                              "(truncated input or a length field too large)",
                              c, (unsigned long long)left);
    L->init_pos = rd->pos;
    rd->pos += (size_t)tot;
    return GLSTARK_OK;
}

/* The later rounds' queries and opened values, their Merkle depth and
 * proofs, and the final polynomial's length. */
static glstark_status scan_codewords(gs_reader *rd, whir_layout *L)
{
    glstark_status st;
    for (uint32_t r = 1; r < L->nu; r++) {
        if ((st = gs_rd_len(rd, &L->nq[r], L->rows * 16, L_("codeword round %u num_queries"), r)))
            return st;
        L->cwv_pos[r] = rd->pos;
        rd->pos += (size_t)L->nq[r] * L->rows * 16;
    }
    const size_t at = rd->pos;
    if ((st = gs_rd_u32(rd, &L->depth1, L_("codeword merkle depth"))))
        return st;
    /* OpenVM decrements the depth per round (usize); a wrap past zero can only
     * be read when that round has no queries. */
    for (uint32_t r = 1; r < L->nu; r++)
        if (L->depth1 < r - 1 && L->nq[r] > 0)
            return gs_rd_fail(rd, at, L_("codeword merkle depth"), "depth %u runs below zero at round %u, which has %u "
                              "queries", L->depth1, r, L->nq[r]);
    L->cwp_pos = rd->pos;
    const uint64_t left = gs_reader_remaining(rd);
    uint64_t tot = 0;
    for (uint32_t r = 1; r < L->nu; r++)
        if (!add_within(&tot, L->nq[r], layout_depth(L, r), 32, left))
            return gs_rd_fail(rd, rd->pos, L_("codeword_merkle_proofs"),
                              "round %u's Merkle proofs need more than the %llu bytes that remain (truncated input "
                              "or a length field too large)",
                              r, (unsigned long long)left);
    rd->pos += (size_t)tot;
    if ((st = gs_rd_len(rd, &L->nfin, 16, L_("final_poly length"))))
        return st;
    L->fin_pos = rd->pos;
    L->end = rd->pos + (size_t)L->nfin * 16;
    return GLSTARK_OK;
}

/* Allocates p from the layout: the initial proofs at depth0, the codeword
 * proofs at whatever depth the bytes say. */
static glstark_status alloc_from_layout(gs_whir_proof *p, const whir_layout *L, gs_error *err)
{
    glstark_status st =
        gs_whir_proof_alloc(p, L->nu, L->k, L->ncommits, L->widths, L->nq, L->depth0, L->nfin, err);
    if (st)
        return st;
    p->first_codeword_merkle_depth = L->depth1;
    for (uint32_t r = 1; r < L->nu; r++) {
        free(p->codeword_proofs[r - 1]);
        size_t n = (size_t)L->nq[r] * (size_t)layout_depth(L, r);
        p->codeword_proofs[r - 1] = n ? calloc(n, sizeof(gs_whir_digest)) : NULL;
        if (n && !p->codeword_proofs[r - 1]) {
            gs_whir_proof_free(p);
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir decode: out of memory");
        }
    }
    p->mu_pow_witness = L->mu_pow_witness;
    return GLSTARK_OK;
}

#define TRY(x)                                                                                                       \
    do {                                                                                                             \
        glstark_status st_ = (x);                                                                                    \
        if (st_)                                                                                                     \
            return st_;                                                                                              \
    } while (0)

/* The second pass: every value, from the positions the first pass found. */
static glstark_status read_values(gs_reader *rd, const whir_layout *L, gs_whir_proof *p)
{
    rd->pos = L->sc_pos;
    TRY(gs_rd_ef_n(rd, p->sumcheck_polys, 2 * (size_t)L->nsc, L_("whir_sumcheck_polys")));
    rd->pos = L->cw_pos;
    for (uint32_t i = 0; i < L->ncw; i++)
        TRY(gs_rd_digest(rd, p->codeword_commits[i].v, L_("codeword_commits[%u]"), i));
    TRY(gs_rd_ef_n(rd, p->ood_values, L->ncw, L_("ood_values")));
    TRY(gs_rd_f_n(rd, p->folding_pow_witnesses, L->nsc, L_("folding_pow_witnesses")));
    TRY(gs_rd_f_n(rd, p->query_pow_witnesses, L->nu, L_("query_phase_pow_witnesses")));
    rd->pos = L->init_pos;
    for (uint32_t c = 0; c < L->ncommits; c++)
        TRY(gs_rd_f_n(rd, p->initial_rows[c], (size_t)L->nq[0] * L->rows * p->widths[c],
                      L_("initial_round_opened_rows[%u]"), c));
    for (uint32_t c = 0; c < L->ncommits; c++)
        for (size_t i = 0; i < (size_t)L->nq[0] * L->depth0; i++)
            TRY(gs_rd_digest(rd, p->initial_proofs[c][i].v, L_("initial_round_merkle_proofs[%u][%zu]"), c, i));
    for (uint32_t r = 1; r < L->nu; r++) {
        rd->pos = L->cwv_pos[r];
        TRY(gs_rd_ef_n(rd, p->codeword_values[r - 1], (size_t)L->nq[r] * L->rows,
                       L_("codeword_opened_values[%u]"), r - 1));
    }
    rd->pos = L->cwp_pos;
    for (uint32_t r = 1; r < L->nu; r++)
        for (size_t i = 0; i < (size_t)L->nq[r] * (size_t)layout_depth(L, r); i++)
            TRY(gs_rd_digest(rd, p->codeword_proofs[r - 1][i].v, L_("codeword_merkle_proofs[%u][%zu]"), r - 1, i));
    rd->pos = L->fin_pos;
    TRY(gs_rd_ef_n(rd, p->final_poly, L->nfin, L_("final_poly")));
    if (rd->pos != L->end)
        return gs_error_set(rd->err, GLSTARK_ERR_INTERNAL, "whir decode: position %zu after final poly, expected %zu",
                            rd->pos, L->end);
    return GLSTARK_OK;
}

glstark_status gs_whir_proof_read(gs_reader *rd, gs_whir_proof *p)
{
    memset(p, 0, sizeof *p);
    whir_layout L;
    memset(&L, 0, sizeof L);
    L.start = rd->pos;
    glstark_status st = scan_rounds(rd, &L);
    if (!st)
        st = scan_initial(rd, &L);
    if (!st)
        st = scan_codewords(rd, &L);
    if (!st)
        st = alloc_from_layout(p, &L, rd->err);
    free(L.widths);
    if (!st)
        st = read_values(rd, &L, p);
    if (st) {
        gs_whir_proof_free(p);
        return st;
    }
    rd->pos = L.end;
    return GLSTARK_OK;
}

glstark_status gs_whir_proof_decode(gs_whir_proof *p, const uint8_t *bytes, size_t len, size_t *consumed,
                                    gs_error *err)
{
    memset(p, 0, sizeof *p);
    if (!bytes && len)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir decode: NULL bytes");
    gs_reader rd;
    gs_reader_init_format(&rd, bytes, len, "WHIR proof bytes", "a valid OpenVM v2.0.1 WhirProof encoding", err);
    glstark_status st = gs_whir_proof_read(&rd, p);
    if (!st && consumed)
        *consumed = rd.pos;
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
