/* Sumcheck rounds whose challenges the engine samples (engine/challenge.h).
 *
 * A product sumcheck on the engine used to cost a host sync per round: the
 * host read the round's two sums, observed them, sampled the challenge and
 * handed it to the fold. Here the transcript's state goes to the engine
 * once; each round the engine's sponge observes the sums where the round
 * left them, runs the round's proof of work if any, and samples the
 * challenge the fold then reads from the engine. The host reads every
 * round's sums, witnesses and challenges with its next read, and replays
 * the same steps on its own transcript, which must sample the very
 * challenges the engine did: a difference is an internal error, never a
 * wrong proof. */
#ifndef GS_PROVE_SPONGE_ROUNDS_H
#define GS_PROVE_SPONGE_ROUNDS_H

#include <stdint.h>

#include "common/transcript.h"
#include "engine/challenge.h"
#include "engine/engine.h"
#include "util/error.h"

typedef struct gs_sponge_rounds {
    gs_engine *eng;
    gs_buf *state; /* the sponge */
    gs_buf *sums;  /* per_round extension elements per round */
    gs_buf *chals; /* one per round */
    gs_buf *wits;  /* one word per round, when the rounds grind */
    uint32_t cap;  /* rounds room is made for */
    uint32_t n;    /* rounds stepped */
    uint32_t per_round; /* sums a round observes (2, or GKR's 3) */
    unsigned pow_bits;
    /* host copies, filled at the engine's next read after gs_sponge_rounds_read_later */
    bb4_t *h_sums, *h_chals;
    uint32_t *h_wits;
} gs_sponge_rounds;

/* May the engine sample these rounds' challenges? It needs the sponge
 * (hash op sponge_step) and a proof of work it can search. */
int gs_sponge_rounds_usable(const gs_engine *eng, unsigned pow_bits);

/* Room for up to max_rounds rounds of per_round sums each, starting from
 * ts's present state. */
glstark_status gs_sponge_rounds_begin(gs_sponge_rounds *r, gs_engine *eng, const gs_transcript *ts,
                                      uint32_t max_rounds, uint32_t per_round, unsigned pow_bits, gs_error *err);
/* Where the next round's op leaves its sums. */
gs_sums_dst gs_sponge_rounds_sums(const gs_sponge_rounds *r);
/* The engine observes the next round's sums, grinds, samples; the
 * challenge, for the round's fold. */
glstark_status gs_sponge_rounds_step(gs_sponge_rounds *r, gs_chal *chal, gs_error *err);
/* Queues the read of every stepped round (engine/read_later.h): the caller
 * flushes, or reads something else, before gs_sponge_rounds_replay. */
glstark_status gs_sponge_rounds_read_later(gs_sponge_rounds *r, gs_error *err);
/* Replays round i (< n) on ts, after the read: observes its sums, checks its
 * witness, samples. Writes the per_round sums, the witness (Montgomery, when
 * the rounds grind) and the challenge where given (NULL: not wanted). */
glstark_status gs_sponge_rounds_replay(gs_sponge_rounds *r, gs_transcript *ts, uint32_t i, bb4_t *sums,
                                       bb_t *witness, bb4_t *chal, gs_error *err);
void gs_sponge_rounds_free(gs_sponge_rounds *r);

#endif
