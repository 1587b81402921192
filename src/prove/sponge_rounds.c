/* Sumcheck rounds whose challenges the engine samples (sponge_rounds.h). */
#include "prove/sponge_rounds.h"

#include <stdlib.h>
#include <string.h>

#include "engine/hash_ops.h"
#include "engine/read_later.h"

int gs_sponge_rounds_usable(const gs_engine *eng, unsigned pow_bits)
{
    return eng->hash && eng->hash->sponge_step && pow_bits <= GS_SPONGE_POW_MAX_BITS;
}

static glstark_status fail(gs_sponge_rounds *r, glstark_status st, gs_error *err, const char *what)
{
    return gs_error_set(err, st, "sumcheck rounds on the engine's sponge: %s: %s", what, r->eng->err.msg);
}

glstark_status gs_sponge_rounds_begin(gs_sponge_rounds *r, gs_engine *eng, const gs_transcript *ts,
                                      uint32_t max_rounds, uint32_t per_round, unsigned pow_bits, gs_error *err)
{
    memset(r, 0, sizeof *r);
    r->eng = eng;
    r->cap = max_rounds;
    r->per_round = per_round;
    r->pow_bits = pow_bits;
    const size_t n = max_rounds ? max_rounds : 1;
    r->h_sums = malloc(per_round * n * sizeof(bb4_t));
    r->h_chals = malloc(n * sizeof(bb4_t));
    r->h_wits = malloc(n * sizeof(uint32_t));
    if (!r->h_sums || !r->h_chals || !r->h_wits)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "sumcheck rounds on the engine's sponge: out of host memory");
    glstark_status st = gs_engine_sponge_create(eng, ts->st, ts->absorb_idx, ts->sample_idx, &r->state);
    if (!st)
        st = gs_buf_create(eng, per_round * n * sizeof(bb4_t), &r->sums);
    if (!st)
        st = gs_buf_create(eng, n * sizeof(bb4_t), &r->chals);
    if (!st && pow_bits)
        st = gs_buf_create(eng, n * sizeof(uint32_t), &r->wits);
    return st ? fail(r, st, err, "allocating its buffers") : GLSTARK_OK;
}

gs_sums_dst gs_sponge_rounds_sums(const gs_sponge_rounds *r)
{
    return gs_sums_in(r->sums, (size_t)r->per_round * r->n);
}

glstark_status gs_sponge_rounds_step(gs_sponge_rounds *r, gs_chal *chal, gs_error *err)
{
    if (r->n >= r->cap)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "sumcheck rounds on the engine's sponge: more than %u rounds",
                            r->cap);
    const gs_sponge_step step = {.src = r->sums,
                                 .src_index = (size_t)r->per_round * r->n,
                                 .n_obs = r->per_round,
                                 .pow_bits = r->pow_bits,
                                 .witness = r->wits,
                                 .witness_index = r->n,
                                 .dst = r->chals,
                                 .dst_index = r->n};
    glstark_status st = gs_engine_sponge_step(r->eng, r->state, &step);
    if (st)
        return fail(r, st, err, "a transcript step");
    *chal = gs_chal_in(r->chals, r->n++);
    return GLSTARK_OK;
}

glstark_status gs_sponge_rounds_read_later(gs_sponge_rounds *r, gs_error *err)
{
    if (r->n == 0)
        return GLSTARK_OK;
    glstark_status st = gs_buf_read_later(r->sums, 0, r->h_sums, (size_t)r->per_round * r->n * sizeof(bb4_t), 1, 0);
    if (!st)
        st = gs_buf_read_later(r->chals, 0, r->h_chals, r->n * sizeof(bb4_t), 1, 0);
    if (!st && r->pow_bits)
        st = gs_buf_read_later(r->wits, 0, r->h_wits, r->n * sizeof(uint32_t), 1, 0);
    return st ? fail(r, st, err, "queueing the rounds' read") : GLSTARK_OK;
}

glstark_status gs_sponge_rounds_replay(gs_sponge_rounds *r, gs_transcript *ts, uint32_t i, bb4_t *sums,
                                       bb_t *witness, bb4_t *chal, gs_error *err)
{
    const bb4_t *s = r->h_sums + (size_t)r->per_round * i;
    for (uint32_t k = 0; k < r->per_round; k++) {
        gs_transcript_observe_ext(ts, s[k]);
        if (sums)
            sums[k] = s[k];
    }
    if (r->pow_bits) {
        gs_error why = {0};
        if (gs_transcript_check_witness(ts, r->pow_bits, r->h_wits[i], &why))
            return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                                "sumcheck round %u: the engine's proof-of-work witness %u fails on the host's "
                                "transcript (%s)",
                                i, r->h_wits[i], why.msg);
        if (witness)
            *witness = bb_from_canonical(r->h_wits[i]);
    } else if (witness) {
        *witness = 0; /* no proof of work: the witness the host's grind gives */
    }
    bb4_t c = gs_transcript_sample_ext(ts);
    if (memcmp(&c, &r->h_chals[i], sizeof c) != 0)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                            "sumcheck round %u: the engine's sponge sampled another challenge than the host's "
                            "transcript; the engine's Poseidon2 or sponge is wrong (run the engine tests)",
                            i);
    if (chal)
        *chal = c;
    return GLSTARK_OK;
}

void gs_sponge_rounds_free(gs_sponge_rounds *r)
{
    gs_buf_destroy(r->state);
    gs_buf_destroy(r->sums);
    gs_buf_destroy(r->chals);
    gs_buf_destroy(r->wits);
    free(r->h_sums);
    free(r->h_chals);
    free(r->h_wits);
    memset(r, 0, sizeof *r);
}
