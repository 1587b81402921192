/* Duplex-sponge transcript and proof-of-work grinding (commitment-layer.md section 4). */
#include "protocol/transcript.h"

#include <pthread.h>
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

int gs_pow_witness_ok(const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t w)
{
    bb_t s[GS_P2_WIDTH];
    memcpy(s, st, sizeof s);
    s[absorb_idx] = bb_from_canonical(w);
    gs_poseidon2_permute(s);
    return (bb_to_canonical(s[GS_P2_RATE - 1]) & low_mask(bits)) == 0;
}

/* Scans [lo, hi) in ascending order, GS_P2_LANES candidates per batched
 * permutation; returns the first valid witness, or UINT32_MAX. */
static uint32_t scan_range(const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t lo, uint32_t hi)
{
    uint32_t mask = low_mask(bits);
    bb_t s[GS_P2_WIDTH][GS_P2_LANES];
    for (uint32_t base = lo; base < hi; base += GS_P2_LANES) {
        for (int i = 0; i < GS_P2_WIDTH; i++)
            for (int l = 0; l < GS_P2_LANES; l++)
                s[i][l] = st[i];
        for (int l = 0; l < GS_P2_LANES; l++) {
            uint32_t w = base + (uint32_t)l;
            s[absorb_idx][l] = bb_from_canonical(w < BB_P ? w : 0);
        }
        gs_poseidon2_permute_batch(s);
        for (int l = 0; l < GS_P2_LANES; l++) {
            uint32_t w = base + (uint32_t)l;
            if (w < hi && (bb_to_canonical(s[GS_P2_RATE - 1][l]) & mask) == 0)
                return w;
        }
    }
    return UINT32_MAX;
}

typedef struct grind_job {
    const bb_t *st;
    unsigned absorb_idx, bits;
    uint32_t lo, hi, found;
} grind_job;

static void *grind_worker(void *arg)
{
    grind_job *j = arg;
    j->found = scan_range(j->st, j->absorb_idx, j->bits, j->lo, j->hi);
    return NULL;
}

#define GRIND_MAX_THREADS 256u

glstark_status gs_grind_cpu(void *ctx, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t *w,
                            gs_error *err)
{
    unsigned threads = ctx ? *(const unsigned *)ctx : 1u;
    if (threads == 0)
        threads = 1;
    if (threads > GRIND_MAX_THREADS)
        threads = GRIND_MAX_THREADS;
    glstark_status sc = check_pow_args(bits, err, "grind");
    if (sc)
        return sc;
    if (absorb_idx >= GS_P2_RATE)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "grind: absorb index %u is outside the rate (0..%u)", absorb_idx, GS_P2_RATE - 1);
    if (threads == 1) {
        uint32_t f = scan_range(st, absorb_idx, bits, 0, BB_P);
        if (f != UINT32_MAX) {
            *w = f;
            return GLSTARK_OK;
        }
    } else {
        /* Ordered batches: thread t scans the t-th contiguous chunk of the
         * batch; the lowest chunk with a hit holds the batch minimum. Chunks
         * start small so easy searches do not pay for a huge first batch. */
        grind_job jobs[GRIND_MAX_THREADS];
        pthread_t tid[GRIND_MAX_THREADS];
        uint32_t chunk = 256;
        for (uint64_t base = 0; base < BB_P;) {
            unsigned started = 0;
            for (unsigned t = 0; t < threads; t++) {
                uint64_t lo = base + (uint64_t)t * chunk, hi = lo + chunk;
                if (lo >= BB_P)
                    break;
                if (hi > BB_P)
                    hi = BB_P;
                jobs[t] = (grind_job){st, absorb_idx, bits, (uint32_t)lo, (uint32_t)hi, UINT32_MAX};
                if (t > 0 && pthread_create(&tid[t], NULL, grind_worker, &jobs[t]) != 0) {
                    for (unsigned u = 1; u < started; u++)
                        pthread_join(tid[u], NULL);
                    return gs_error_set(err, GLSTARK_ERR_INTERNAL, "grind: could not start a worker thread");
                }
                started = t + 1;
            }
            grind_worker(&jobs[0]);
            for (unsigned t = 1; t < started; t++)
                pthread_join(tid[t], NULL);
            for (unsigned t = 0; t < started; t++)
                if (jobs[t].found != UINT32_MAX) {
                    *w = jobs[t].found;
                    return GLSTARK_OK;
                }
            base += (uint64_t)started * chunk;
            if (chunk < (1u << 16))
                chunk *= 2;
        }
    }
    return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                        "grind: no witness in [0, p) gives %u zero bits; this should not happen for bits <= %u", bits,
                        GS_POW_MAX_BITS);
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
