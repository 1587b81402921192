/* Duplex-sponge transcript and proof-of-work grinding (docs/protocol.md, 'Transcript and proof of work'). */
#include "common/transcript.h"

#include <stdlib.h>
#include <string.h>

void gs_transcript_init(gs_transcript *ts)
{
    memset(ts, 0, sizeof *ts);
}

void gs_transcript_set_log(gs_transcript *ts, gs_ts_log_fn fn, void *ctx)
{
    ts->log = fn;
    ts->log_ctx = ctx;
}

void gs_transcript_observe(gs_transcript *ts, bb_t x)
{
    if (ts->log)
        ts->log(ts->log_ctx, GS_TS_OBSERVE, bb_to_canonical(x));
    ts->st[ts->absorb_idx++] = x;
    if (ts->absorb_idx == GS_P2_RATE) {
        gs_poseidon2_permute(ts->st);
        ts->absorb_idx = 0;
        ts->sample_idx = GS_P2_RATE;
    }
}

void gs_transcript_observe_u32(gs_transcript *ts, uint32_t x)
{
    gs_transcript_observe(ts, bb_from_u32(x));
}

void gs_transcript_observe_ext(gs_transcript *ts, bb4_t a)
{
    for (int i = 0; i < 4; i++)
        gs_transcript_observe(ts, a.c[i]);
}

void gs_transcript_observe_commit(gs_transcript *ts, const bb_t digest[GS_DIGEST_LEN])
{
    for (int i = 0; i < GS_DIGEST_LEN; i++)
        gs_transcript_observe(ts, digest[i]);
}

bb_t gs_transcript_sample(gs_transcript *ts)
{
    /* Pending observes, or every output of the last permutation used:
     * permute first. Outputs are drawn from cell 7 down to cell 0. */
    if (ts->absorb_idx != 0 || ts->sample_idx == 0) {
        gs_poseidon2_permute(ts->st);
        ts->absorb_idx = 0;
        ts->sample_idx = GS_P2_RATE;
    }
    bb_t x = ts->st[--ts->sample_idx];
    if (ts->log)
        ts->log(ts->log_ctx, GS_TS_SAMPLE, bb_to_canonical(x));
    return x;
}

bb4_t gs_transcript_sample_ext(gs_transcript *ts)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = gs_transcript_sample(ts);
    return r;
}

static inline uint32_t low_mask(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u; }

uint32_t gs_transcript_sample_bits(gs_transcript *ts, unsigned bits)
{
    return bb_to_canonical(gs_transcript_sample(ts)) & low_mask(bits);
}

static glstark_status check_pow_args(unsigned bits, gs_error *err, const char *what)
{
    if (bits > GS_POW_MAX_BITS)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: %u proof-of-work bits requested; at most %u are possible (2^bits must stay below p)",
                            what, bits, GS_POW_MAX_BITS);
    return GLSTARK_OK;
}

glstark_status gs_transcript_check_witness(gs_transcript *ts, unsigned bits, uint32_t w, gs_error *err)
{
    if (bits == 0)
        return GLSTARK_OK;
    glstark_status st = check_pow_args(bits, err, "check_witness");
    if (st)
        return st;
    if (w >= BB_P)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "check_witness: witness %u is not a canonical field element (must be below p = %u)", w, BB_P);
    gs_transcript_observe(ts, bb_from_canonical(w));
    if (gs_transcript_sample_bits(ts, bits) != 0)
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "proof-of-work witness %u does not give %u leading zero bits for this transcript state", w, bits);
    return GLSTARK_OK;
}

glstark_status gs_transcript_grind(gs_transcript *ts, unsigned bits, gs_grind_fn fn, void *ctx, uint32_t *w,
                                   gs_error *err)
{
    *w = 0;
    if (bits == 0)
        return GLSTARK_OK;
    glstark_status st = check_pow_args(bits, err, "grind");
    if (st)
        return st;
    uint32_t found = 0;
    st = (fn ? fn : gs_grind_cpu)(ctx, ts->st, ts->absorb_idx, bits, &found, err);
    if (st)
        return st;
    st = gs_transcript_check_witness(ts, bits, found, err);
    if (st)
        return st == GLSTARK_ERR_REJECTED
                   ? gs_error_set(err, GLSTARK_ERR_INTERNAL,
                                  "grind: the grinder returned witness %u, which fails check_witness(%u)", found, bits)
                   : st;
    *w = found;
    return GLSTARK_OK;
}

void gs_ts_record_init(gs_ts_record *rec)
{
    memset(rec, 0, sizeof *rec);
}

void gs_ts_record_free(gs_ts_record *rec)
{
    free(rec->ops);
    free(rec->values);
    memset(rec, 0, sizeof *rec);
}

void gs_ts_record_log(void *ctx, gs_ts_op op, uint32_t canonical)
{
    gs_ts_record *rec = ctx;
    if (rec->oom)
        return;
    if (rec->len == rec->cap) {
        size_t cap = rec->cap ? rec->cap * 2 : 1024;
        uint8_t *o = realloc(rec->ops, cap);
        if (!o) {
            rec->oom = 1;
            return;
        }
        rec->ops = o;
        uint32_t *v = realloc(rec->values, cap * sizeof *v);
        if (!v) {
            rec->oom = 1;
            return;
        }
        rec->values = v;
        rec->cap = cap;
    }
    rec->ops[rec->len] = (uint8_t)op;
    rec->values[rec->len] = canonical;
    rec->len++;
}
