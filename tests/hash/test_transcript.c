/* The duplex-sponge transcript against OpenVM's transcript_kat.json script
 * (tests/data/transcript_kat.txt) and its recorded prover log
 * (tests/data/fib-small_n4.transcript.txt); grinding against brute force. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "kat_reader.h"
#include "common/transcript.h"
#include "../util/splitmix.h"

static void expect_val(bb_t got, uint32_t want, const char *what, size_t i)
{
    cr_expect_eq(bb_to_canonical(got), want, "%s [%zu]: got %u, expected %u", what, i, bb_to_canonical(got), want);
}

Test(transcript, openvm_script)
{
    FILE *f = kat_open("transcript_kat.txt");
    gs_transcript ts;
    gs_transcript_init(&ts);
    gs_ts_record rec;
    gs_ts_record_init(&rec);
    gs_transcript_set_log(&ts, gs_ts_record_log, &rec);
    gs_error err;
    gs_error_clear(&err);
    kat_line l;
    int saw_final = 0, saw_grind = 0;
    size_t expected_ops = 0;
    while (kat_next(f, &l)) {
        if (strcmp(l.key, "observe") == 0) {
            cr_assert_eq(l.n, 1 + l.v[0]);
            for (size_t i = 0; i < l.v[0]; i++)
                gs_transcript_observe_u32(&ts, l.v[1 + i]);
            expected_ops += l.v[0];
        } else if (strcmp(l.key, "sample") == 0) {
            cr_assert_eq(l.n, 1 + l.v[0]);
            for (size_t i = 0; i < l.v[0]; i++)
                expect_val(gs_transcript_sample(&ts), l.v[1 + i], "sample", i);
            expected_ops += l.v[0];
        } else if (strcmp(l.key, "sample_ext") == 0) {
            cr_assert_eq(l.n, 1 + 4 * l.v[0]);
            for (size_t i = 0; i < l.v[0]; i++) {
                bb4_t e = gs_transcript_sample_ext(&ts);
                for (int c = 0; c < 4; c++)
                    expect_val(e.c[c], l.v[1 + 4 * i + c], "sample_ext coefficient", 4 * i + c);
            }
            expected_ops += 4 * l.v[0];
        } else if (strcmp(l.key, "observe_ext") == 0) {
            cr_assert_eq(l.n, 4);
            bb4_t e;
            for (int c = 0; c < 4; c++)
                e.c[c] = bb_from_canonical(l.v[c]);
            gs_transcript_observe_ext(&ts, e);
            expected_ops += 4;
        } else if (strcmp(l.key, "observe_commit") == 0) {
            cr_assert_eq(l.n, 8);
            bb_t d[8];
            for (int c = 0; c < 8; c++)
                d[c] = bb_from_canonical(l.v[c]);
            gs_transcript_observe_commit(&ts, d);
            expected_ops += 8;
        } else if (strcmp(l.key, "sample_bits") == 0) {
            cr_assert_eq(l.n, 2);
            cr_expect_eq(gs_transcript_sample_bits(&ts, l.v[0]), l.v[1], "sample_bits(%u)", l.v[0]);
            expected_ops += 1;
        } else if (strcmp(l.key, "grind") == 0) {
            cr_assert_eq(l.n, 2);
            /* Independent check first: on a copy, the listed witness passes
             * and no smaller one does (brute force through check_witness). */
            for (uint32_t w = 0; w <= l.v[1]; w++) {
                gs_transcript c = ts;
                c.log = NULL;
                glstark_status s = gs_transcript_check_witness(&c, l.v[0], w, &err);
                cr_expect_eq(s == GLSTARK_OK, w == l.v[1], "check_witness(%u, %u) gave %d", l.v[0], w, s);
            }
            uint32_t w = 0;
            cr_assert_eq(gs_transcript_grind(&ts, l.v[0], NULL, NULL, &w, &err), GLSTARK_OK, "%s", err.msg);
            cr_expect_eq(w, l.v[1], "grind(%u) found %u, OpenVM's smallest witness is %u", l.v[0], w, l.v[1]);
            expected_ops += 2;
            saw_grind = 1;
        } else if (strcmp(l.key, "final") == 0) {
            cr_assert_eq(l.n, 16);
            for (size_t i = 0; i < 16; i++)
                expect_val(ts.st[i], l.v[i], "final sponge state", i);
            saw_final = 1;
        } else {
            cr_assert_fail("unknown transcript op '%s'", l.key);
        }
    }
    fclose(f);
    cr_expect(saw_final && saw_grind);
    cr_expect_eq(rec.len, expected_ops, "the op log holds %zu ops, the script made %zu", rec.len, expected_ops);
    cr_expect_eq(rec.oom, 0);
    gs_ts_record_free(&rec);
}

/* Replays the prover-side op log of a whole OpenVM proof: observes are fed,
 * samples must match, and at every proof-of-work step ("[check_witness b]")
 * the CPU grinder, run on the state just before the witness is observed,
 * must find exactly OpenVM's witness (the logs come from a serial build, so
 * every witness there is the smallest valid one). */
static void replay_log(const char *name)
{
    FILE *f = kat_open(name);
    gs_transcript ts;
    gs_transcript_init(&ts);
    gs_ts_record rec;
    gs_ts_record_init(&rec);
    gs_transcript_set_log(&ts, gs_ts_record_log, &rec);
    gs_error err;
    char buf[512];
    size_t observes = 0, samples = 0, bad = 0, want_obs = 0, want_samp = 0, grinds = 0;
    unsigned pending_bits = 0;
    while (fgets(buf, sizeof buf, f)) {
        unsigned long v;
        size_t tot;
        unsigned bits;
        char *cw;
        if (sscanf(buf, "# total ops: %zu (%zu samples, %zu observes)", &tot, &want_samp, &want_obs) == 3)
            continue;
        if (buf[0] == '#' && (cw = strstr(buf, "[check_witness ")) != NULL && sscanf(cw, "[check_witness %u]", &bits) == 1) {
            pending_bits = bits;
        } else if (sscanf(buf, "observe %lu", &v) == 1) {
            if (pending_bits) {
                uint32_t w = 0;
                unsigned threads = 2;
                cr_assert_eq(gs_grind_cpu(&threads, ts.st, ts.absorb_idx, pending_bits, &w, &err), GLSTARK_OK);
                cr_expect_eq(w, v, "%s: grind(%u) found %u, OpenVM's witness is %lu", name, pending_bits, w, v);
                pending_bits = 0;
                grinds++;
            }
            gs_transcript_observe_u32(&ts, (uint32_t)v);
            observes++;
        } else if (sscanf(buf, "sample %lu", &v) == 1) {
            uint32_t got = bb_to_canonical(gs_transcript_sample(&ts));
            if (got != v && bad++ < 5)
                cr_expect_eq(got, v, "%s: sample #%zu: got %u, log says %lu", name, samples, got, v);
            samples++;
        }
    }
    fclose(f);
    printf("%s: %zu observes, %zu samples, %zu grinds replayed\n", name, observes, samples, grinds);
    cr_expect_eq(bad, 0);
    cr_expect_gt(grinds, 0);
    cr_expect_eq(observes, want_obs);
    cr_expect_eq(samples, want_samp);
    cr_expect_eq(rec.len, observes + samples);
    gs_ts_record_free(&rec);
}

Test(transcript, openvm_fib_small_n4_log_replay) { replay_log("fib-small_n4.transcript.txt"); }

/* Production parameters: 18-, 15- and 20-bit proofs of work. */
Test(transcript, openvm_fib_app18_n10_log_replay) { replay_log("fib-app18_n10.transcript.txt"); }

/* Grinding returns the same witness as a brute-force loop over
 * check_witness, for several bit counts, pending-observe counts and thread
 * counts; and the transcript advances exactly as check_witness does. */
Test(transcript, grind_matches_brute_force)
{
    uint64_t seed = 0x5eed0003ull;
    printf("grind_matches_brute_force: seed 0x%llx\n", (unsigned long long)seed);
    gs_error err;
    static const unsigned bits_list[] = {1, 3, 6, 9, 12};
    for (int trial = 0; trial < 10; trial++) {
        gs_transcript ts;
        gs_transcript_init(&ts);
        unsigned nobs = (unsigned)(splitmix64(&seed) % 20);
        for (unsigned i = 0; i < nobs; i++)
            gs_transcript_observe_u32(&ts, (uint32_t)(splitmix64(&seed) % BB_P));
        if (splitmix64(&seed) & 1)
            (void)gs_transcript_sample(&ts);
        unsigned bits = bits_list[trial % 5];
        uint32_t brute = UINT32_MAX;
        for (uint32_t w = 0; w < (1u << 20); w++) {
            gs_transcript c = ts;
            if (gs_transcript_check_witness(&c, bits, w, &err) == GLSTARK_OK) {
                brute = w;
                break;
            }
        }
        cr_assert_neq(brute, UINT32_MAX);
        for (unsigned threads = 1; threads <= 3; threads++) {
            uint32_t w = 0;
            cr_assert_eq(gs_grind_cpu(&threads, ts.st, ts.absorb_idx, bits, &w, &err), GLSTARK_OK, "%s", err.msg);
            cr_expect_eq(w, brute, "trial %d bits %u threads %u: grinder %u, brute force %u", trial, bits, threads, w,
                         brute);
            cr_expect(gs_pow_witness_ok(ts.st, ts.absorb_idx, bits, w));
        }
        gs_transcript a = ts, b = ts;
        uint32_t w = 0;
        unsigned two = 2;
        cr_assert_eq(gs_transcript_grind(&a, bits, gs_grind_cpu, &two, &w, &err), GLSTARK_OK);
        cr_assert_eq(gs_transcript_check_witness(&b, bits, brute, &err), GLSTARK_OK);
        cr_expect_eq(memcmp(&a, &b, sizeof a), 0, "grind must leave the transcript as check_witness does");
        cr_expect_eq(gs_transcript_sample(&a), gs_transcript_sample(&b));
    }
}

Test(transcript, zero_bits_and_bad_inputs)
{
    gs_error err;
    gs_transcript ts, before;
    gs_transcript_init(&ts);
    gs_transcript_observe_u32(&ts, 7);
    before = ts;
    uint32_t w = 123;
    cr_expect_eq(gs_transcript_grind(&ts, 0, NULL, NULL, &w, &err), GLSTARK_OK);
    cr_expect_eq(w, 0);
    cr_expect_eq(gs_transcript_check_witness(&ts, 0, 55, &err), GLSTARK_OK);
    cr_expect_eq(memcmp(&ts, &before, sizeof ts), 0, "bits = 0 must not touch the transcript");

    gs_error_clear(&err);
    cr_expect_eq(gs_transcript_grind(&ts, 31, NULL, NULL, &w, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect(strlen(err.msg) > 0);
    cr_expect_eq(gs_transcript_check_witness(&ts, 40, 0, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(gs_transcript_check_witness(&ts, 4, BB_P, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(memcmp(&ts, &before, sizeof ts), 0, "rejected arguments must not touch the transcript");
    bb_t st[16] = {0};
    cr_expect_eq(gs_grind_cpu(NULL, st, 8, 4, &w, &err), GLSTARK_ERR_INVALID_ARGUMENT);

    /* A wrong witness is rejected with a message (and, as in the Rust code,
     * the transcript has consumed the observe and the sample). */
    uint32_t good = 0;
    gs_transcript c = ts;
    cr_assert_eq(gs_grind_cpu(NULL, c.st, c.absorb_idx, 10, &good, &err), GLSTARK_OK);
    uint32_t wrong = good == 0 ? 1 : good - 1;
    cr_expect_eq(gs_transcript_check_witness(&c, 10, wrong, &err), GLSTARK_ERR_REJECTED);
    cr_expect(strlen(err.msg) > 0);
}

/* Model-derived vector (docs/protocol.md, 'Test vectors'): 10 samples from a fresh
 * transcript; the first 8 are perm(0^16)[7..0]. */
Test(transcript, fresh_samples)
{
    static const uint32_t want[10] = {1054281681, 1878363991, 1704698758, 360581875, 883925857,
                                      747404447,  128782440,  1168947398, 311164911, 1836916456};
    gs_transcript ts;
    gs_transcript_init(&ts);
    for (size_t i = 0; i < 10; i++)
        expect_val(gs_transcript_sample(&ts), want[i], "fresh sample", i);
}
