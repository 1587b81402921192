/* The prove call's span recorder (protocol/spans.h) and the figures
 * glstark_prove reports through glstark_prove_stats: span nesting and
 * parents, the OpenVM span tree of a real proof, progress calls, host-sync
 * and buffer-peak accounting, and that a caller's smaller (older) stats
 * struct is written only up to its size. Expected proof bytes: OpenVM's
 * fib-small_n4 proof (tests/data/openvm). */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "glstark/glstark.h"
#include "prove/spans.h"

typedef struct counts {
    int begun, ended;
} counts;

static void count_cb(void *user, const glstark_span *s, int finished)
{
    counts *c = user;
    cr_assert(s->name[0]);
    if (finished) {
        c->ended++;
        cr_assert(s->end >= s->start, "span %s ended before it started", s->name);
    } else {
        c->begun++;
    }
}

Test(spans, nesting_parents_and_implicit_close)
{
    gs_engine *eng = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK, "%s", err.msg);
    gs_span_rec r;
    counts c = {0, 0};
    gs_span_rec_init(&r, eng, NULL, count_cb, &c);
    uint64_t syncs = eng->host_syncs;
    int a = gs_span_begin(&r, "a");
    int b = gs_span_begin(&r, "b");
    int x = gs_span_begin(&r, "x"); /* left open: closed with b */
    gs_span_end(&r, b);
    eng->spans = &r;
    int d = gs_span_eng_begin(eng, "d");
    gs_span_eng_end(eng, d);
    eng->spans = NULL;
    gs_span_end(&r, a);
    cr_assert_eq(r.n, 4);
    cr_assert_eq(a, 0);
    cr_assert_eq(r.spans[a].parent, -1);
    cr_assert_eq(r.spans[b].parent, a);
    cr_assert_eq(r.spans[x].parent, b);
    cr_assert_eq(r.spans[x].depth, 2);
    cr_assert_eq(r.spans[d].parent, a, "d opened after b closed: a child of a");
    cr_assert_str_eq(r.spans[d].engine, "cpu");
    cr_assert_str_eq(r.spans[b].engine, "");
    for (size_t i = 0; i < r.n; i++)
        cr_assert(r.spans[i].end >= r.spans[i].start, "span %zu not closed", i);
    cr_assert(r.spans[x].end <= r.spans[b].end && r.spans[b].end <= r.spans[a].end);
    cr_assert_eq(c.begun, 4);
    cr_assert_eq(c.ended, 4);
    cr_assert_eq(eng->host_syncs, syncs, "the recorder's finishes must not count as the proof's host syncs");
    /* NULL recorders and engines without one: no-ops */
    cr_assert_eq(gs_span_begin(NULL, "n"), -1);
    gs_span_end(NULL, 0);
    cr_assert_eq(gs_span_eng_begin(eng, "n"), -1);
    gs_span_eng_end(eng, -1);
    gs_engine_destroy(eng);
}

Test(spans, full_list_drops_and_stays_consistent)
{
    gs_span_rec r;
    gs_span_rec_init(&r, NULL, NULL, NULL, NULL);
    int root = gs_span_begin(&r, "root");
    for (int i = 0; i < GLSTARK_MAX_SPANS + 5; i++) {
        int k = gs_span_begin(&r, "child");
        gs_span_end(&r, k);
    }
    gs_span_end(&r, root);
    cr_assert_eq(r.n, GLSTARK_MAX_SPANS);
    cr_assert_eq(r.dropped, 6);
    cr_assert(r.spans[root].end >= r.spans[root].start);
    cr_assert_eq(r.top, 0);
    for (size_t i = 1; i < r.n; i++)
        cr_assert_eq(r.spans[i].parent, root);
}

static uint8_t *data(const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/openvm/%s", GLSTARK_TEST_DATA, name);
    uint8_t *b = NULL;
    char msg[256];
    cr_assert_eq(glstark_read_file(path, &b, n, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    return b;
}

static int find(const glstark_prove_stats *s, const char *name)
{
    for (size_t i = 0; i < s->num_spans; i++)
        if (!strcmp(s->spans[i].name, name))
            return (int)i;
    return -1;
}

Test(prove_stats, openvm_span_tree_syncs_and_bytes)
{
    glstark_air *air = NULL;
    glstark_params *p = NULL;
    glstark_proving_key *pk = NULL;
    char msg[1024];
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    cr_assert_eq(glstark_params_test_small(&p), GLSTARK_OK);
    cr_assert_eq(glstark_keygen(&air, 1, p, &pk, NULL, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    size_t h = 16;
    uint32_t tr[32], pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};

    glstark_prove_stats st;
    glstark_prove_stats_init(&st);
    cr_assert_eq(st.size, sizeof st);
    st.programs_built = 77; /* poisoned: the library must write it */
    st.program_build_seconds = -1.0;
    counts c = {0, 0};
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.stats = &st;
    o.progress = count_cb;
    o.progress_user = &c;
    glstark_prove_result r;
    cr_assert_eq(glstark_prove(pk, &t, 1, &o, &r), GLSTARK_OK, "%s", r.message);
    size_t n = 0;
    uint8_t *want = data("fib-small_n4.proof.bin", &n);
    cr_assert(n == r.proof_len && !memcmp(want, r.proof, n), "recording spans changed the proof bytes");

    static const char *tree[][2] = {{"stark_prove_excluding_trace", NULL},
                                    {"prover.main_trace_commit", "stark_prove_excluding_trace"},
                                    {"stacked_commit", "prover.main_trace_commit"},
                                    {"rs_code_matrix", "stacked_commit"},
                                    {"merkle_tree", "stacked_commit"},
                                    {"prover.rap_constraints", "stark_prove_excluding_trace"},
                                    {"logup_gkr", "prover.rap_constraints"},
                                    {"round0", "prover.rap_constraints"},
                                    {"mle_rounds", "prover.rap_constraints"},
                                    {"prover.openings", "stark_prove_excluding_trace"},
                                    {"stacked_reduction", "prover.openings"},
                                    {"whir", "prover.openings"},
                                    {"check_constraints", NULL}};
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        int k = find(&st, tree[i][0]);
        cr_assert(k >= 0, "span %s missing", tree[i][0]);
        int par = st.spans[k].parent;
        if (tree[i][1])
            cr_assert(par >= 0 && !strcmp(st.spans[par].name, tree[i][1]), "span %s: parent %s, expected %s",
                      tree[i][0], par >= 0 ? st.spans[par].name : "(none)", tree[i][1]);
        else
            cr_assert_eq(par, -1, "span %s should be top-level", tree[i][0]);
    }
    for (size_t i = 0; i < st.num_spans; i++) {
        const glstark_span *s = &st.spans[i];
        cr_assert(s->end >= s->start && s->start >= 0, "span %s times", s->name);
        if (s->parent >= 0) {
            const glstark_span *q = &st.spans[s->parent];
            cr_assert(q->start <= s->start && s->end <= q->end, "span %s outside %s", s->name, q->name);
        }
    }
    cr_assert_str_eq(st.spans[find(&st, "whir")].engine, "cpu");
    cr_assert_eq(c.begun, (int)st.num_spans);
    cr_assert_eq(c.ended, (int)st.num_spans);
    cr_assert_eq(st.spans_dropped, 0);
    cr_assert(st.host_syncs > 0);
    cr_assert_eq(st.host_syncs, st.device_host_syncs + st.fallback_host_syncs);
    cr_assert_eq(st.fallback_host_syncs, 0);
    cr_assert(st.device_bytes_peak > 0);
    /* the CPU engine allocates every buffer anew */
    cr_assert(st.device_bytes_allocated >= st.device_bytes_peak, "allocated %llu < peak %zu",
              (unsigned long long)st.device_bytes_allocated, st.device_bytes_peak);
    cr_assert(st.programs_built == 0 && st.program_build_seconds == 0.0, "the CPU engine built %llu GPU programs",
              (unsigned long long)st.programs_built);
    cr_assert_eq(st.fallback_bytes_allocated, 0);
    cr_assert_str_eq(st.device_engine, "cpu");
    glstark_prove_result_free(&r);

    /* skip the check: no check_constraints span */
    glstark_prove_stats_init(&st);
    o.skip_constraint_check = 1;
    o.progress = NULL;
    cr_assert_eq(glstark_prove(pk, &t, 1, &o, &r), GLSTARK_OK, "%s", r.message);
    cr_assert_eq(find(&st, "check_constraints"), -1);
    cr_assert(find(&st, "whir") >= 0);
    glstark_prove_result_free(&r);

    /* an older caller's smaller struct: nothing written past its size */
    _Alignas(glstark_prove_stats) unsigned char buf[sizeof(glstark_prove_stats) + 16];
    memset(buf, 0xA5, sizeof buf);
    glstark_prove_stats *small = (glstark_prove_stats *)buf;
    small->size = offsetof(glstark_prove_stats, spans);
    o.stats = small;
    cr_assert_eq(glstark_prove(pk, &t, 1, &o, &r), GLSTARK_OK, "%s", r.message);
    cr_assert_eq(small->size, offsetof(glstark_prove_stats, spans));
    cr_assert(small->num_spans > 0);
    for (size_t i = offsetof(glstark_prove_stats, spans); i < sizeof buf; i++)
        cr_assert_eq(buf[i], 0xA5, "byte %zu past the caller's size was written", i);
    glstark_prove_result_free(&r);

    free(want);
    glstark_proving_key_destroy(pk);
    glstark_params_destroy(p);
    glstark_air_destroy(air);
}
