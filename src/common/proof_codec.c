/* OpenVM proof codec, version 3 (stark-backend v2.0.1 proof.rs Encode/Decode
 * for Proof, TraceVData, GkrProof, BatchConstraintProof, StackingProof; the
 * WHIR part is whir.h / whir_codec.c). Notes: docs/protocol.md,
 * 'Codecs and the verifying key'.
 *
 * Decoding follows OpenVM's decoder read for read; where OpenVM leaves a
 * length implicit it is derived the same way, so decode-then-encode gives
 * back the original bytes. Every length field is checked against the bytes
 * that remain before anything is allocated for it. */
#include <stdlib.h>
#include <string.h>

#include "common/codec_io.h"
#include "common/proof.h"

#define TRY(x)                                                                                     \
    do {                                                                                           \
        glstark_status st_ = (x);                                                                  \
        if (st_ != GLSTARK_OK)                                                                     \
            return st_;                                                                            \
    } while (0)

#define ALLOC(dst, n, what)                                                                        \
    do {                                                                                           \
        (dst) = gs_rd_calloc(rd, (n), sizeof *(dst), (what));                                      \
        if (!(dst))                                                                                \
            return GLSTARK_ERR_OUT_OF_MEMORY;                                                      \
    } while (0)

/* u32 length then `len` EF, with the length checked before allocating. */
static glstark_status read_ef_vec(gs_reader *rd, gs_ef_vec *out, const char *label, uint32_t i, uint32_t j)
{
    uint32_t len = 0;
    TRY(gs_rd_len(rd, &len, 16, "%s[%u][%u] length", label, i, j));
    ALLOC(out->v, len, label);
    out->len = len;
    return gs_rd_ef_n(rd, out->v, len, "%s[%u][%u]", label, i, j);
}

/* Same, for a top-level vector (no indices in the label). */
static glstark_status read_ef_vec0(gs_reader *rd, gs_ef_vec *out, const char *label)
{
    uint32_t len = 0;
    TRY(gs_rd_len(rd, &len, 16, "%s length", label));
    ALLOC(out->v, len, label);
    out->len = len;
    return gs_rd_ef_n(rd, out->v, len, "%s", label);
}

static glstark_status decode_header(gs_reader *rd, gs_proof *p)
{
    uint32_t version = 0;
    TRY(gs_rd_u32(rd, &version, "codec version"));
    if (version != GS_PROOF_CODEC_VERSION)
        return gs_rd_fail(rd, 0, "codec version", "expected %u, found %u", GS_PROOF_CODEC_VERSION, version);
    TRY(gs_rd_digest(rd, p->common_main_commit.v, "common_main_commit"));

    size_t at = rd->pos;
    uint32_t num_airs = 0;
    TRY(gs_rd_u32(rd, &num_airs, "num_airs"));
    uint32_t bitmap_len = (uint32_t)(((uint64_t)num_airs + 7) / 8);
    TRY(gs_rd_check_fits(rd, at, bitmap_len, 1, "num_airs (presence bitmap of %u bytes follows)", bitmap_len));
    const uint8_t *bitmap = rd->buf + rd->pos;
    size_t bitmap_at = rd->pos;
    rd->pos += bitmap_len;
    ALLOC(p->trace_vdata, num_airs, "trace_vdata");
    p->num_airs = num_airs;
    for (uint32_t b = 0; b < bitmap_len; b++) {
        uint32_t used = num_airs - 8 * b < 8 ? num_airs - 8 * b : 8;
        if (used < 8 && (bitmap[b] >> used) != 0)
            return gs_rd_fail(rd, bitmap_at + b, "trace_vdata presence bitmap",
                              "padding bits set (byte 0x%02x, only the low %u bits name AIRs)", bitmap[b], used);
        for (uint32_t i = 0; i < used; i++)
            p->trace_vdata[8 * b + i].present = (bitmap[b] >> i) & 1;
    }
    for (uint32_t a = 0; a < num_airs; a++) {
        gs_trace_vdata *tv = &p->trace_vdata[a];
        if (!tv->present)
            continue;
        TRY(gs_rd_u32(rd, &tv->log_height, "trace_vdata[%u].log_height", a));
        uint32_t nc = 0;
        TRY(gs_rd_len(rd, &nc, 32, "trace_vdata[%u].cached_commitments length", a));
        ALLOC(tv->cached_commitments, nc, "cached_commitments");
        tv->num_cached = nc;
        TRY(gs_rd_digest_n(rd, tv->cached_commitments[0].v, nc, "trace_vdata[%u].cached_commitments", a));
    }

    uint32_t npv = 0;
    TRY(gs_rd_len(rd, &npv, 4, "public_values length"));
    ALLOC(p->public_values, npv, "public_values");
    p->num_public_value_lists = npv;
    for (uint32_t a = 0; a < npv; a++) {
        uint32_t len = 0;
        TRY(gs_rd_len(rd, &len, 4, "public_values[%u] length", a));
        ALLOC(p->public_values[a].v, len, "public_values");
        p->public_values[a].len = len;
        TRY(gs_rd_f_n(rd, p->public_values[a].v, len, "public_values[%u]", a));
    }
    return GLSTARK_OK;
}

static glstark_status decode_gkr(gs_reader *rd, gs_proof_gkr *g)
{
    TRY(gs_rd_f(rd, &g->logup_pow_witness, "gkr_proof.logup_pow_witness"));
    TRY(gs_rd_ef(rd, &g->q0_claim, "gkr_proof.q0_claim"));
    const size_t at = rd->pos;
    uint32_t R = 0;
    TRY(gs_rd_len(rd, &R, 64, "gkr_proof.claims_per_layer length"));
    ALLOC(g->claims_per_layer, R, "claims_per_layer");
    g->num_layers = R;
    for (uint32_t j = 0; j < R; j++) {
        gs_proof_gkr_claims *c = &g->claims_per_layer[j];
        TRY(gs_rd_ef(rd, &c->p_xi_0, "gkr_proof.claims_per_layer[%u].p_xi_0", j));
        TRY(gs_rd_ef(rd, &c->p_xi_1, "gkr_proof.claims_per_layer[%u].p_xi_1", j));
        TRY(gs_rd_ef(rd, &c->q_xi_0, "gkr_proof.claims_per_layer[%u].q_xi_0", j));
        TRY(gs_rd_ef(rd, &c->q_xi_1, "gkr_proof.claims_per_layer[%u].q_xi_1", j));
    }
    /* R-1 layers of sumcheck, layer j with j rounds of 3 EF (no lengths). */
    uint64_t rounds = R > 0 ? (uint64_t)(R - 1) * R / 2 : 0;
    TRY(gs_rd_check_fits(rd, at, rounds, 48, "gkr_proof.claims_per_layer length (implies %llu sumcheck rounds)",
                         (unsigned long long)rounds));
    ALLOC(g->sumcheck_polys, rounds * 3, "gkr sumcheck_polys");
    for (uint32_t layer = 1; layer < R; layer++)
        for (uint32_t k = 0; k < layer; k++)
            TRY(gs_rd_ef_n(rd, gs_proof_gkr_sumcheck(g, layer, k), 3, "gkr_proof.sumcheck_polys[%u][%u]", layer - 1,
                           k));
    return GLSTARK_OK;
}

static glstark_status decode_batch(gs_reader *rd, gs_batch_constraint_proof *b)
{
    uint32_t M = 0;
    TRY(gs_rd_len(rd, &M, 36, "batch_constraint_proof.numerator_term_per_air length"));
    ALLOC(b->numerator_term_per_air, M, "numerator_term_per_air");
    ALLOC(b->denominator_term_per_air, M, "denominator_term_per_air");
    ALLOC(b->column_openings, M, "column_openings");
    b->num_traces = M;
    TRY(gs_rd_ef_n(rd, b->numerator_term_per_air, M, "batch_constraint_proof.numerator_term_per_air"));
    TRY(gs_rd_ef_n(rd, b->denominator_term_per_air, M, "batch_constraint_proof.denominator_term_per_air"));
    TRY(read_ef_vec0(rd, &b->univariate_round_coeffs, "batch_constraint_proof.univariate_round_coeffs"));

    const size_t at = rd->pos;
    TRY(gs_rd_u32(rd, &b->n_max, "batch_constraint_proof.sumcheck_round_polys length"));
    if (b->n_max > 0) {
        size_t at_d = rd->pos;
        TRY(gs_rd_u32(rd, &b->round_poly_len, "batch_constraint_proof.sumcheck_round_polys[0] length"));
        if (b->round_poly_len > 0)
            TRY(gs_rd_check_fits(rd, at, b->n_max, (uint64_t)b->round_poly_len * 16,
                                 "batch_constraint_proof.sumcheck_round_polys length"));
        else if (b->n_max > (1u << 24))
            /* rounds of nothing: legal bytes, but bound the count sanely */
            return gs_rd_fail(rd, at_d, "batch_constraint_proof.sumcheck_round_polys[0] length",
                              "empty round polynomials with %u rounds", b->n_max);
    }
    size_t cnt = (size_t)b->n_max * b->round_poly_len;
    ALLOC(b->sumcheck_round_polys, cnt, "batch sumcheck_round_polys");
    for (uint32_t j = 0; j < b->n_max && b->round_poly_len; j++)
        TRY(gs_rd_ef_n(rd, b->sumcheck_round_polys + (size_t)j * b->round_poly_len, b->round_poly_len,
                       "batch_constraint_proof.sumcheck_round_polys[%u]", j));

    for (uint32_t t = 0; t < M; t++) {
        gs_column_openings *co = &b->column_openings[t];
        uint32_t parts = 0;
        TRY(gs_rd_len(rd, &parts, 4, "batch_constraint_proof.column_openings[%u] length", t));
        ALLOC(co->parts, parts, "column_openings parts");
        co->num_parts = parts;
        for (uint32_t j = 0; j < parts; j++)
            TRY(read_ef_vec(rd, &co->parts[j], "batch_constraint_proof.column_openings", t, j));
    }
    return GLSTARK_OK;
}

static glstark_status decode_stacking(gs_reader *rd, gs_stacking_proof *s)
{
    TRY(read_ef_vec0(rd, &s->univariate_round_coeffs, "stacking_proof.univariate_round_coeffs"));
    uint32_t n = 0;
    TRY(gs_rd_len(rd, &n, 32, "stacking_proof.sumcheck_round_polys length"));
    ALLOC(s->sumcheck_round_polys, (size_t)n * 2, "stacking sumcheck_round_polys");
    s->num_rounds = n;
    TRY(gs_rd_ef_n(rd, s->sumcheck_round_polys, (size_t)n * 2,
                   "stacking_proof.sumcheck_round_polys (flattened [round][2])"));
    uint32_t nc = 0;
    TRY(gs_rd_len(rd, &nc, 4, "stacking_proof.stacking_openings length"));
    ALLOC(s->stacking_openings, nc, "stacking_openings");
    s->num_commits = nc;
    for (uint32_t c = 0; c < nc; c++)
        TRY(read_ef_vec(rd, &s->stacking_openings[c], "stacking_proof.stacking_openings", c, 0));
    return GLSTARK_OK;
}

glstark_status gs_proof_decode(const uint8_t *bytes, size_t len, gs_proof *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!bytes && len)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "gs_proof_decode: NULL bytes with length %zu", len);
    gs_reader rd;
    gs_reader_init(&rd, bytes, len, err);
    glstark_status st = decode_header(&rd, out);
    if (st == GLSTARK_OK)
        st = decode_gkr(&rd, &out->gkr);
    if (st == GLSTARK_OK)
        st = decode_batch(&rd, &out->batch);
    if (st == GLSTARK_OK)
        st = decode_stacking(&rd, &out->stacking);
    if (st == GLSTARK_OK)
        st = gs_whir_proof_read(&rd, &out->whir); /* whir_codec.c */
    if (st == GLSTARK_OK && rd.pos != len)
        st = gs_rd_fail(&rd, rd.pos, "end of proof", "%zu trailing bytes after the WHIR proof", len - rd.pos);
    if (st != GLSTARK_OK)
        gs_proof_free(out);
    return st;
}

/* ---- encode ---- */

static void write_ef_vec(gs_writer *w, const gs_ef_vec *v)
{
    gs_wr_u32(w, v->len);
    gs_wr_ef_n(w, v->v, v->len);
}

glstark_status gs_proof_encode(const gs_proof *p, uint8_t **bytes, size_t *len, gs_error *err)
{
    *bytes = NULL;
    *len = 0;
    /* n_max rounds of empty polynomials are legal bytes (the decoder reads
     * them; the verifier's shape check rejects them), so they encode too:
     * whatever decodes must re-encode. */
    const gs_batch_constraint_proof *b = &p->batch;

    gs_writer w;
    gs_writer_init(&w);
    gs_wr_u32(&w, GS_PROOF_CODEC_VERSION);
    gs_wr_digest(&w, p->common_main_commit.v);
    gs_wr_u32(&w, p->num_airs);
    for (uint32_t b8 = 0; b8 < (p->num_airs + 7u) / 8u; b8++) {
        uint8_t byte = 0;
        for (uint32_t i = 0; i < 8 && 8 * b8 + i < p->num_airs; i++)
            byte |= (uint8_t)((p->trace_vdata[8 * b8 + i].present ? 1u : 0u) << i);
        gs_wr_u8(&w, byte);
    }
    for (uint32_t a = 0; a < p->num_airs; a++) {
        const gs_trace_vdata *tv = &p->trace_vdata[a];
        if (!tv->present)
            continue;
        gs_wr_u32(&w, tv->log_height);
        gs_wr_u32(&w, tv->num_cached);
        for (uint32_t c = 0; c < tv->num_cached; c++)
            gs_wr_digest(&w, tv->cached_commitments[c].v);
    }
    gs_wr_u32(&w, p->num_public_value_lists);
    for (uint32_t a = 0; a < p->num_public_value_lists; a++) {
        gs_wr_u32(&w, p->public_values[a].len);
        gs_wr_f_n(&w, p->public_values[a].v, p->public_values[a].len);
    }

    const gs_proof_gkr *g = &p->gkr;
    gs_wr_f(&w, g->logup_pow_witness);
    gs_wr_ef(&w, g->q0_claim);
    gs_wr_u32(&w, g->num_layers);
    for (uint32_t j = 0; j < g->num_layers; j++) {
        const gs_proof_gkr_claims *c = &g->claims_per_layer[j];
        gs_wr_ef(&w, c->p_xi_0);
        gs_wr_ef(&w, c->p_xi_1);
        gs_wr_ef(&w, c->q_xi_0);
        gs_wr_ef(&w, c->q_xi_1);
    }
    if (g->num_layers > 1)
        gs_wr_ef_n(&w, g->sumcheck_polys, (size_t)3 * (g->num_layers - 1) * g->num_layers / 2);

    gs_wr_u32(&w, b->num_traces);
    gs_wr_ef_n(&w, b->numerator_term_per_air, b->num_traces);
    gs_wr_ef_n(&w, b->denominator_term_per_air, b->num_traces);
    write_ef_vec(&w, &b->univariate_round_coeffs);
    gs_wr_u32(&w, b->n_max);
    if (b->n_max > 0) {
        gs_wr_u32(&w, b->round_poly_len);
        gs_wr_ef_n(&w, b->sumcheck_round_polys, (size_t)b->n_max * b->round_poly_len);
    }
    for (uint32_t t = 0; t < b->num_traces; t++) {
        const gs_column_openings *co = &b->column_openings[t];
        gs_wr_u32(&w, co->num_parts);
        for (uint32_t j = 0; j < co->num_parts; j++)
            write_ef_vec(&w, &co->parts[j]);
    }

    const gs_stacking_proof *s = &p->stacking;
    write_ef_vec(&w, &s->univariate_round_coeffs);
    gs_wr_u32(&w, s->num_rounds);
    gs_wr_ef_n(&w, s->sumcheck_round_polys, (size_t)s->num_rounds * 2);
    gs_wr_u32(&w, s->num_commits);
    for (uint32_t c = 0; c < s->num_commits; c++)
        write_ef_vec(&w, &s->stacking_openings[c]);

    size_t wn = gs_whir_proof_encoded_size(&p->whir), written = 0;
    uint8_t *dst = gs_wr_extend(&w, wn);
    if (!dst) {
        gs_writer_free(&w);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "gs_proof_encode: out of host memory for the proof bytes");
    }
    glstark_status st = gs_whir_proof_encode(&p->whir, dst, wn, &written, err);
    if (st) {
        gs_writer_free(&w);
        gs_error_prefix(err, "gs_proof_encode: the WHIR proof");
        return st;
    }
    *bytes = gs_writer_take(&w, len);
    return GLSTARK_OK;
}
