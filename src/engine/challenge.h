/* A Fiat-Shamir challenge as an engine op takes it: a value the host
 * sampled, or one the engine's own sponge wrote into a buffer
 * (gs_hash_ops.sponge_step) and the host has not read. The second lets a
 * run of sumcheck rounds go on without a host sync per round: each round's
 * sums stay on the engine, the engine's sponge observes them and samples
 * the next challenge, and the fold reads it from there. The host reads the
 * sums once at the end and replays the same transcript steps
 * (docs/design.md, "Challenges sampled on the engine"). */
#ifndef GS_ENGINE_CHALLENGE_H
#define GS_ENGINE_CHALLENGE_H

#include <stddef.h>

#include "field/ext4.h"
#include "util/error.h"

struct gs_buf;

typedef struct gs_chal {
    bb4_t value;              /* the challenge, when buf is NULL */
    const struct gs_buf *buf; /* else: extension element `index` of buf */
    size_t index;
} gs_chal;

static inline gs_chal gs_chal_value(bb4_t v)
{
    gs_chal c = {v, NULL, 0};
    return c;
}

static inline gs_chal gs_chal_in(const struct gs_buf *buf, size_t index)
{
    gs_chal c = {{{0, 0, 0, 0}}, buf, index};
    return c;
}

/* Where an op leaves a round's n sums (two for the stacked reduction and
 * WHIR, three for GKR): the host array out, or (buf not NULL) extension
 * elements index .. index + n - 1 of buf, on the engine. */
typedef struct gs_sums_dst {
    bb4_t *out;
    struct gs_buf *buf;
    size_t index;
} gs_sums_dst;

static inline gs_sums_dst gs_sums_host(bb4_t *out)
{
    gs_sums_dst d = {out, NULL, 0};
    return d;
}

static inline gs_sums_dst gs_sums_in(struct gs_buf *buf, size_t index)
{
    gs_sums_dst d = {NULL, buf, index};
    return d;
}

/* The engine's sponge state in a buffer: the 16 cells (Montgomery), then
 * the transcript's absorb and sample positions (common/transcript.h). */
#define GS_SPONGE_WORDS 18u

struct gs_engine;

/* Checks, for any engine, that a challenge or a sums destination lies
 * inside its buffer and that the buffer belongs to eng (op names the
 * caller in the message). */
glstark_status gs_chal_check(struct gs_engine *eng, gs_chal c, const char *op);
glstark_status gs_sums_dst_check(struct gs_engine *eng, gs_sums_dst d, unsigned n, const char *op);

/* n sums the host holds, stored where d says (a buffer write on the
 * engine, or a copy): the CPU engine's results, and any engine's sums of an
 * empty round. */
glstark_status gs_sums_store(gs_sums_dst d, const bb4_t *v, unsigned n);
/* For engines whose buffers are host memory (the CPU engine): the
 * challenge's value. */
bb4_t gs_chal_host_value(gs_chal c);

#endif
