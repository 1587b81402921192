/* Shared by the WHIR tests: bring a transcript to WHIR's starting state by
 * replaying OpenVM's recorded ops, and compare the WHIR-phase op log. */
#ifndef GS_TESTS_WHIR_REPLAY_H
#define GS_TESTS_WHIR_REPLAY_H

#include <criterion/criterion.h>

#include "common/transcript.h"
#include "whir_vectors.h"

/* Replays every op before '# ===== whir =====': observes the recorded values
 * and checks that each sample equals the recorded one. */
static inline void whir_replay_pre(gs_transcript *ts, const whir_vec *v)
{
    gs_transcript_init(ts);
    for (size_t i = 0; i < v->num_ops; i++) {
        if (v->op_kind[i] == 'o') {
            gs_transcript_observe_u32(ts, v->op_val[i]);
        } else {
            uint32_t s = bb_to_canonical(gs_transcript_sample(ts));
            cr_assert_eq(s, v->op_val[i], "replay: sample at op %zu is %u, OpenVM recorded %u", i, s, v->op_val[i]);
        }
    }
}

/* Compares a recorded WHIR-phase op log with OpenVM's; names the first
 * differing op. */
static inline void whir_compare_ops(const gs_ts_record *rec, const whir_vec *v, const char *who)
{
    cr_assert_eq(rec->oom, 0);
    size_t n = rec->len < v->num_whir_ops ? rec->len : v->num_whir_ops;
    for (size_t i = 0; i < n; i++) {
        char k = rec->ops[i] == GS_TS_OBSERVE ? 'o' : 's';
        cr_assert(k == v->whir_op_kind[i] && rec->values[i] == v->whir_op_val[i],
                  "%s: WHIR transcript op %zu (op %zu of the whole log) is %c %u, OpenVM has %c %u", who, i,
                  i + v->num_ops, k, rec->values[i], v->whir_op_kind[i], v->whir_op_val[i]);
    }
    cr_assert_eq(rec->len, v->num_whir_ops, "%s: %zu WHIR transcript ops, OpenVM has %zu", who, rec->len,
                 v->num_whir_ops);
}

#endif
