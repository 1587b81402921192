/* stark-backend's Fiat-Shamir transcript: DuplexSponge<BabyBear, Poseidon2-16,
 * WIDTH 16, RATE 8> in overwrite mode (Plonky3 0.4.3 semantics, NOT the 0.6.0
 * DuplexChallenger). Notes: docs/protocol.md,
 * 'Transcript and proof of work'.
 *
 * Values passed in and out are bb_t (Montgomery form) except where a
 * function says canonical. An optional op log reports every primitive
 * observe/sample with its canonical value, in the same form as OpenVM's
 * debug/<spec>.transcript.txt logs. */
#ifndef GS_COMMON_TRANSCRIPT_H
#define GS_COMMON_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"
#include "hash/grind.h"
#include "hash/poseidon2.h"
#include "util/error.h"

typedef enum gs_ts_op { GS_TS_OBSERVE = 0, GS_TS_SAMPLE = 1 } gs_ts_op;

/* Called for every primitive op with the canonical value observed or sampled. */
typedef void (*gs_ts_log_fn)(void *ctx, gs_ts_op op, uint32_t canonical);

typedef struct gs_transcript {
    bb_t st[GS_P2_WIDTH];
    unsigned absorb_idx; /* 0..7: next rate cell an observe writes */
    unsigned sample_idx; /* 0..8: outputs of the last permutation not yet drawn */
    gs_ts_log_fn log;    /* NULL: no logging */
    void *log_ctx;
} gs_transcript;

/* Fresh transcript: all-zero state, no log. */
void gs_transcript_init(gs_transcript *ts);
void gs_transcript_set_log(gs_transcript *ts, gs_ts_log_fn fn, void *ctx);

void gs_transcript_observe(gs_transcript *ts, bb_t x);
/* Observes the field element with canonical value x (x < p; reduced otherwise),
 * e.g. F::from_usize(n) of the Rust code. */
void gs_transcript_observe_u32(gs_transcript *ts, uint32_t x);
void gs_transcript_observe_ext(gs_transcript *ts, bb4_t a);
void gs_transcript_observe_commit(gs_transcript *ts, const bb_t digest[GS_DIGEST_LEN]);
bb_t gs_transcript_sample(gs_transcript *ts);
bb4_t gs_transcript_sample_ext(gs_transcript *ts);

/* canonical(sample()) & (2^bits - 1); always one sample, even for bits = 0.
 * The protocol uses bits <= 30 (2^bits < p); bits >= 32 returns the whole
 * canonical value. */
uint32_t gs_transcript_sample_bits(gs_transcript *ts, unsigned bits);


/* Proof of work, verifier side: bits == 0 accepts without touching the
 * transcript; otherwise observe(w) then sample_bits(bits) == 0.
 * Returns GLSTARK_OK (accepted), GLSTARK_ERR_REJECTED (wrong witness; the
 * transcript has still advanced, as in the Rust code), or
 * GLSTARK_ERR_INVALID_ARGUMENT (bits > 30 or w >= p; transcript untouched). */
glstark_status gs_transcript_check_witness(gs_transcript *ts, unsigned bits, uint32_t w, gs_error *err);

/* Proof of work, prover side: bits == 0 returns w = 0 with no transcript op.
 * Otherwise finds the smallest witness with fn (NULL: gs_grind_cpu with ctx),
 * then runs check_witness(bits, w) on the real transcript. */
glstark_status gs_transcript_grind(gs_transcript *ts, unsigned bits, gs_grind_fn fn, void *ctx, uint32_t *w,
                                   gs_error *err);

/* A growable in-memory op log, usable as the gs_ts_log_fn (ctx = the record). */
typedef struct gs_ts_record {
    uint8_t *ops;     /* gs_ts_op values */
    uint32_t *values; /* canonical */
    size_t len, cap;
    int oom; /* set if an append failed; the log is then incomplete */
} gs_ts_record;

void gs_ts_record_init(gs_ts_record *rec);
void gs_ts_record_free(gs_ts_record *rec);
void gs_ts_record_log(void *rec, gs_ts_op op, uint32_t canonical);

#endif
