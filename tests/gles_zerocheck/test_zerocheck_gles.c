/* The GLES engine's zerocheck family against the CPU engine (the reference,
 * itself checked against OpenVM's proofs in tests/protocol/test_zerocheck.c):
 * round 0, the Z fold, the multilinear rounds and the fold, on random DAGs
 * (every node kind, rotations, publics, several parts, interactions, lifted
 * traces shorter than the skip domain), on the Fibonacci and
 * interactions-small AIRs, on edge values, with outputs poisoned, and again
 * with a tiny binding limit so the column windows and the gathered tiles
 * run; and on random AIRs made with the builder (include/glstark/air.h)
 * whose constraints hold on their generated traces (recurrences through the
 * next row, products, booleans, first/last-row selectors with public
 * values, a LogUp interaction), where the constraint sums must also vanish
 * on the trace domain. Seeds are fixed and printed. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove/zerocheck.h"
#include "../protocol/cl_fixtures.h"
#include "air/keygen.h"
#include "../gles/gles_test_util.h"
#include "engine/gles/gles_engine.h"
#include "engine/zerocheck_ops.h"
#include "engine/read_later.h"
#include "glstark/air.h"
#include "common/air_cdag.h"
#include "common/params.h"
#include "../util/splitmix.h"

static bb_t rand_bb(uint64_t *s)
{
    uint64_t r = splitmix64(s);
    switch (r & 15) {
    case 0: return 0;
    case 1: return bb_one();
    case 2: return bb_from_canonical(BB_P - 1);
    default: return bb_from_canonical((uint32_t)((r >> 8) % BB_P));
    }
}

static bb4_t rand_bb4(uint64_t *s)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = rand_bb(s);
    return r;
}

#define OK(eng, call)                                                                                     \
    do {                                                                                                  \
        glstark_status st_ = (call);                                                                      \
        cr_assert_eq(st_, GLSTARK_OK, "%s -> %s: %s", #call, glstark_status_name(st_), (eng)->err.msg); \
    } while (0)

/* Counts the library's notes that the gathered-row path ran ([0]) and
 * that an evaluation kept its slots in shared memory ([1]) or in the work
 * buffer ([2]) (debug-level notes: they reach the callback in every build). */
static void count_notes(void *user, glstark_log_level level, const char *msg)
{
    (void)level;
    int *n = user;
    if (strstr(msg, "gathering"))
        n[0]++;
    if (strstr(msg, "(shared memory)"))
        n[1]++;
    if (strstr(msg, "(work buffer)"))
        n[2]++;
    const char *g = strstr(msg, " instructions in ");
    if (g && atoi(g + 17) > 1)
        n[3]++; /* an evaluation split into groups */
}

/* notes (may be NULL, else 4 counters) counts the notes above */
static gs_engine *gles_opts(uint64_t max_binding, int *notes, glstark_slot_memory slots, unsigned groups)
{
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = max_binding;
    o.slots = slots;
    o.interp_groups = groups;
    if (notes) {
        o.log = count_notes;
        o.log_user = notes;
    }
    gs_engine *eng = NULL;
    gs_error err;
    glstark_status st = gs_gles_engine_create(&o, &eng, &err);
    cr_assert_eq(st, GLSTARK_OK, "opening a GLES device failed: %s", err.msg);
    return eng;
}

static gs_engine *gles_slots(uint64_t max_binding, int *notes, glstark_slot_memory slots)
{
    return gles_opts(max_binding, notes, slots, 0);
}

static gs_engine *gles(uint64_t max_binding, int *notes) { return gles_slots(max_binding, notes, GLSTARK_SLOTS_AUTO); }

static gs_engine *cpu(void)
{
    gs_engine *eng = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK, "%s", err.msg);
    return eng;
}

/* ---- a trace description, instantiated on both engines ---- */

#define MAXP 4
typedef struct tcase {
    gs_cdag dag;
    gs_cnode *nodes;
    uint32_t *cons;
    gs_cinteraction *inter;
    uint32_t *msgs;
    uint32_t log_h, n_parts, widths[MAXP];
    bb_t *data[MAXP];
    bb_t publics[4];
    uint32_t n_publics;
    /* weights */
    bb4_t *lpow, *eq3b, beta;
    bb_t norm;
    int owns_dag;
} tcase;

typedef struct inst {
    gs_buf *parts[MAXP];
    const gs_buf *cparts[MAXP];
    gs_zc_trace t;
} inst;

static void inst_make(inst *in, gs_engine *eng, const tcase *c)
{
    size_t H = (size_t)1 << c->log_h;
    for (uint32_t p = 0; p < c->n_parts; p++) {
        size_t words = (size_t)c->widths[p] * H;
        OK(eng, gs_buf_create(eng, (words ? words : 1) * 4, &in->parts[p]));
        OK(eng, gs_buf_write(in->parts[p], 0, c->data[p], words * 4));
        in->cparts[p] = in->parts[p];
    }
    gs_zc_trace t = {&c->dag, c->log_h, c->n_parts, in->cparts, c->widths, c->publics, c->n_publics, NULL};
    in->t = t;
}

static void inst_free(inst *in, uint32_t n_parts)
{
    for (uint32_t p = 0; p < n_parts; p++)
        gs_buf_destroy(in->parts[p]);
}

static void weights_of(const tcase *c, gs_zc_weights *w)
{
    w->lambda_pows = c->lpow;
    w->beta = c->beta;
    w->eq3b = c->eq3b;
    w->norm = c->norm;
}

static void tcase_weights(tcase *c, uint64_t *s)
{
    c->lpow = malloc((c->dag.n_constraints + 1) * sizeof(bb4_t));
    c->eq3b = malloc((c->dag.n_interactions + 1) * sizeof(bb4_t));
    for (uint32_t i = 0; i <= c->dag.n_constraints; i++)
        c->lpow[i] = rand_bb4(s);
    for (uint32_t i = 0; i <= c->dag.n_interactions; i++)
        c->eq3b[i] = rand_bb4(s);
    c->beta = rand_bb4(s);
    c->norm = rand_bb(s);
}

static void tcase_free(tcase *c)
{
    if (c->owns_dag) {
        free(c->nodes);
        free(c->cons);
        free(c->inter);
        free(c->msgs);
    }
    for (uint32_t p = 0; p < c->n_parts; p++)
        free(c->data[p]);
    free(c->lpow);
    free(c->eq3b);
}

/* Random DAG over random parts: leaves of every kind, then operations on
 * earlier nodes, random constraints and interactions. */
static void tcase_random(tcase *c, uint64_t *s, uint32_t log_h, uint32_t n_nodes)
{
    memset(c, 0, sizeof *c);
    c->owns_dag = 1;
    c->log_h = log_h;
    int has_prep = (int)(splitmix64(s) & 1);
    uint32_t n_cached = (uint32_t)(splitmix64(s) % 2);
    c->n_parts = 1 + (uint32_t)has_prep + n_cached;
    for (uint32_t p = 0; p < c->n_parts; p++) {
        c->widths[p] = 1 + (uint32_t)(splitmix64(s) % 4);
        size_t words = (size_t)c->widths[p] << log_h;
        c->data[p] = malloc((words ? words : 1) * 4);
        int edge = (int)(splitmix64(s) % 4); /* some parts hold only edge values */
        for (size_t i = 0; i < words; i++)
            c->data[p][i] = edge == 0 ? bb_from_canonical(BB_P - 1 - (uint32_t)(i & 1)) : rand_bb(s);
    }
    c->n_publics = (uint32_t)(splitmix64(s) % 4);
    for (uint32_t i = 0; i < c->n_publics; i++)
        c->publics[i] = rand_bb(s);
    c->nodes = calloc(n_nodes, sizeof(gs_cnode));
    uint32_t n_leaves = n_nodes < 8 ? n_nodes : 8 + n_nodes / 8;
    for (uint32_t i = 0; i < n_nodes; i++) {
        gs_cnode *nd = &c->nodes[i];
        uint64_t r = splitmix64(s);
        if (i < n_leaves) {
            switch (r % 7) {
            case 0: case 1: case 2: {
                /* a variable of a random part */
                uint32_t p = (uint32_t)((r >> 8) % c->n_parts);
                nd->offset = (uint8_t)((r >> 16) & 1);
                nd->a = (uint32_t)((r >> 20) % c->widths[p]);
                if (p == 0) {
                    nd->kind = GS_CN_VAR_MAIN;
                    nd->part = (uint16_t)n_cached;
                } else if (has_prep && p == 1) {
                    nd->kind = GS_CN_VAR_PREP;
                } else {
                    nd->kind = GS_CN_VAR_MAIN;
                    nd->part = (uint16_t)(p - 1 - (uint32_t)has_prep);
                }
                break;
            }
            case 3:
                if (c->n_publics) {
                    nd->kind = GS_CN_PUBLIC;
                    nd->a = (uint32_t)((r >> 8) % c->n_publics);
                    break;
                }
                /* fall through */
            case 4:
                nd->kind = GS_CN_CONST;
                nd->value = rand_bb(s);
                break;
            default:
                nd->kind = (uint8_t)(GS_CN_IS_FIRST + (r >> 8) % 3);
                break;
            }
        } else {
            static const uint8_t ops[] = {GS_CN_ADD, GS_CN_SUB, GS_CN_MUL, GS_CN_MUL, GS_CN_NEG};
            nd->kind = ops[r % 5];
            /* mostly recent operands: deep chains and long-lived values both occur */
            uint32_t span = (r >> 8) & 1 ? i : (i < 6 ? i : 6);
            nd->a = i - 1 - (uint32_t)((r >> 16) % span);
            nd->b = nd->kind == GS_CN_NEG ? 0 : i - 1 - (uint32_t)((r >> 40) % span);
        }
    }
    /* ascending constraints, about one node in four, always the last node */
    c->cons = malloc(n_nodes * sizeof(uint32_t));
    for (uint32_t i = 0; i < n_nodes; i++)
        if (i + 1 == n_nodes || splitmix64(s) % 4 == 0)
            c->cons[c->dag.n_constraints++] = i;
    uint32_t ni = (uint32_t)(splitmix64(s) % 4);
    c->inter = calloc(ni + 1, sizeof(gs_cinteraction));
    c->msgs = malloc(4 * (ni + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < ni; k++) {
        gs_cinteraction *it = &c->inter[k];
        it->message = c->msgs + 4 * k;
        it->message_len = (uint32_t)(splitmix64(s) % 4);
        for (uint32_t j = 0; j < it->message_len; j++)
            c->msgs[4 * k + j] = (uint32_t)(splitmix64(s) % n_nodes);
        it->count = (uint32_t)(splitmix64(s) % n_nodes);
        it->bus_index = (uint16_t)(splitmix64(s) % 5);
    }
    c->dag.nodes = c->nodes;
    c->dag.n_nodes = n_nodes;
    c->dag.constraint_idx = c->cons;
    c->dag.interactions = c->inter;
    c->dag.n_interactions = ni;
    c->dag.max_degree = 3;
    c->dag.need_rot = 1;
    c->dag.has_preprocessed = has_prep;
    c->dag.n_cached = n_cached;
    cr_assert_eq(gs_cdag_check(&c->dag, c->widths, c->n_parts, c->n_publics), 0, "generator made a bad DAG");
    tcase_weights(c, s);
}

/* A DAG whose constraints all read one long chain: x_0 = a (a main
 * column), x_{i+1} = x_i * x_i + a, then constraint j = x_last + b_j for
 * n_cons constants b_j. Split into groups, every group recomputes the whole
 * chain, so its bytecode grows with the group count while its slots stay
 * few: what the bytecode's binding bound (not the work buffer's) limits. */
static void tcase_chain(tcase *c, uint64_t *s, uint32_t log_h, uint32_t chain, uint32_t n_cons)
{
    memset(c, 0, sizeof *c);
    c->owns_dag = 1;
    c->log_h = log_h;
    c->n_parts = 1;
    c->widths[0] = 1;
    size_t words = (size_t)1 << log_h;
    c->data[0] = malloc(words * 4);
    for (size_t i = 0; i < words; i++)
        c->data[0][i] = rand_bb(s);
    uint32_t n = 1 + 2 * chain + 2 * n_cons;
    c->nodes = calloc(n, sizeof(gs_cnode));
    c->cons = malloc(n_cons * sizeof(uint32_t));
    uint32_t k = 0;
    c->nodes[k++] = (gs_cnode){GS_CN_VAR_MAIN, 0, 0, 0, 0, 0}; /* a */
    uint32_t x = 0;
    for (uint32_t i = 0; i < chain; i++) {
        c->nodes[k] = (gs_cnode){GS_CN_MUL, 0, 0, x, x, 0};
        c->nodes[k + 1] = (gs_cnode){GS_CN_ADD, 0, 0, k, 0, 0};
        x = k + 1;
        k += 2;
    }
    for (uint32_t j = 0; j < n_cons; j++) {
        c->nodes[k] = (gs_cnode){GS_CN_CONST, 0, 0, 0, 0, 0};
        c->nodes[k].value = rand_bb(s);
        c->nodes[k + 1] = (gs_cnode){GS_CN_ADD, 0, 0, x, k, 0};
        c->cons[c->dag.n_constraints++] = k + 1;
        k += 2;
    }
    c->inter = calloc(1, sizeof(gs_cinteraction));
    c->msgs = malloc(4 * sizeof(uint32_t));
    c->dag.nodes = c->nodes;
    c->dag.n_nodes = n;
    c->dag.constraint_idx = c->cons;
    c->dag.interactions = c->inter;
    c->dag.max_degree = 2;
    c->dag.need_rot = 0;
    cr_assert_eq(gs_cdag_check(&c->dag, c->widths, c->n_parts, c->n_publics), 0, "generator made a bad DAG");
    tcase_weights(c, s);
}

static void tcase_fib(tcase *c, uint64_t *s, uint32_t log_h)
{
    memset(c, 0, sizeof *c);
    c->dag = fib_dag();
    c->log_h = log_h;
    c->n_parts = 1;
    c->widths[0] = 2;
    size_t n = (size_t)1 << log_h;
    c->data[0] = malloc(2 * n * 4);
    uint64_t a = 0, b = 1;
    for (size_t i = 0; i < n; i++) {
        c->data[0][i] = bb_from_canonical((uint32_t)a);
        c->data[0][n + i] = bb_from_canonical((uint32_t)b);
        uint64_t t = (a + b) % BB_P;
        a = b;
        b = t;
    }
    c->n_publics = 3;
    c->publics[0] = bb_from_canonical(0);
    c->publics[1] = bb_one();
    c->publics[2] = c->data[0][2 * n - 1];
    tcase_weights(c, s);
}

static void tcase_ix(tcase *c, uint64_t *s, int air)
{
    memset(c, 0, sizeof *c);
    c->dag = ix_dag(air);
    c->log_h = air ? 3 : 2;
    c->n_parts = 1;
    c->widths[0] = 2;
    size_t n = (size_t)1 << c->log_h;
    c->data[0] = malloc(2 * n * 4);
    for (size_t i = 0; i < 2 * n; i++)
        c->data[0][i] = bb_from_canonical(air ? (&ix1_cols[0][0])[i] : (&ix0_cols[0][0])[i]);
    tcase_weights(c, s);
}

/* ---- the comparisons ---- */

static gs_buf *upload_ext(gs_engine *eng, const bb4_t *v, size_t n)
{
    gs_buf *b = NULL;
    OK(eng, gs_buf_create(eng, (n ? n : 1) * 16, &b));
    OK(eng, gs_buf_write(b, 0, v, n * 16));
    return b;
}

static size_t lifted(const tcase *c, uint32_t l) { return (size_t)1 << (c->log_h > l ? c->log_h : l); }

/* Columns of the folded tables: the selectors and the columns the DAG reads. */
static size_t folded_cols(const gs_zc_trace *t)
{
    uint32_t *layout, n;
    gs_error err;
    cr_assert_eq(gs_zc_folded_layout(t, &layout, &n, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_leq(n, gs_zc_table_cols(t));
    cr_assert(n >= 3 && layout[0] == 0 && layout[1] == 1 && layout[2] == 2);
    free(layout);
    return n;
}

static void cmp_words(const void *a, const void *b, size_t words, const char *what, const char *tag)
{
    const uint32_t *x = a, *y = b;
    for (size_t i = 0; i < words; i++)
        cr_assert_eq(x[i], y[i], "%s (%s): word %zu gles %08x cpu %08x", what, tag, i, x[i], y[i]);
}

/* round 0, then fold_ple, then the multilinear rounds with folds down to one
 * row, comparing every output and the whole table buffer after each step. */
static void compare_case(gs_engine *g, gs_engine *c, tcase *tc, uint32_t l, uint64_t *s, const char *tag)
{
    gs_engine *engs[2] = {g, c};
    inst in[2];
    for (int k = 0; k < 2; k++)
        inst_make(&in[k], engs[k], tc);
    gs_zc_weights w;
    weights_of(tc, &w);
    size_t N = (size_t)1 << l, nx = lifted(tc, l) / N;
    uint32_t nt = 0;
    while (((size_t)1 << nt) < nx)
        nt++;
    /* round 0 with and without the D points, 1..3 cosets */
    bb4_t *E = malloc(nx * sizeof(bb4_t));
    for (size_t i = 0; i < nx; i++)
        E[i] = rand_bb4(s);
    for (int dp = 0; dp < 2; dp++) {
        uint32_t n_cos = 1 + (uint32_t)(splitmix64(s) % 3);
        size_t n_pts = (dp ? N : 0) + n_cos * N;
        bb4_t *o[2];
        for (int k = 0; k < 2; k++) {
            gs_buf *eb = upload_ext(engs[k], E, nx);
            o[k] = malloc(3 * n_pts * sizeof(bb4_t));
            memset(o[k], 0xA5, 3 * n_pts * sizeof(bb4_t));
            OK(engs[k], engs[k]->zerocheck->round0(engs[k], &in[k].t, l, n_cos, dp, eb, &w, o[k]));
            OK(engs[k], gs_engine_read_flush(engs[k]));
            gs_buf_destroy(eb);
        }
        cmp_words(o[0], o[1], 12 * n_pts, "round0", tag);
        free(o[0]);
        free(o[1]);
    }
    free(E);
    /* Z fold */
    bb4_t *lw = malloc(N * sizeof(bb4_t));
    for (size_t k = 0; k < N; k++)
        lw[k] = rand_bb4(s);
    /* the folded tables, and one poisoned column after them that no engine may write */
    size_t ncols = folded_cols(&in[0].t);
    size_t twords = ncols * nx * 4, pwords = twords + nx * 4;
    gs_buf *tb[2];
    for (int k = 0; k < 2; k++) {
        OK(engs[k], gs_buf_create(engs[k], pwords * 4, &tb[k]));
        OK(engs[k], gs_buf_fill_u32(tb[k], 0, pwords, 0xDEADBEEFu));
        OK(engs[k], engs[k]->zerocheck->fold_ple(engs[k], &in[k].t, l, lw, tb[k]));
    }
    free(lw);
    uint32_t *h[2];
    for (int k = 0; k < 2; k++) {
        h[k] = malloc(pwords * 4);
        OK(engs[k], gs_buf_read(tb[k], 0, h[k], pwords * 4));
        for (size_t i = twords; i < pwords; i++)
            cr_assert_eq(h[k][i], 0xDEADBEEFu, "%s: fold_ple wrote past the folded tables (engine %d, word %zu)", tag,
                         k, i);
    }
    cmp_words(h[0], h[1], pwords, "fold_ple tables", tag);
    /* rounds */
    size_t stride = nx;
    bb4_t *eq = malloc(nx * sizeof(bb4_t));
    for (uint32_t j = 1; j <= nt; j++) {
        size_t m = (size_t)1 << (nt - j + 1);
        size_t n_x = 1 + (size_t)(splitmix64(s) % 4);
        for (size_t i = 0; i < m / 2; i++)
            eq[i] = rand_bb4(s);
        bb4_t *o[2];
        for (int k = 0; k < 2; k++) {
            gs_buf *eb = upload_ext(engs[k], eq, m / 2);
            o[k] = malloc(3 * n_x * sizeof(bb4_t));
            memset(o[k], 0x5A, 3 * n_x * sizeof(bb4_t));
            OK(engs[k], engs[k]->zerocheck->mle_round(engs[k], &in[k].t, tb[k], stride, m, eb, n_x, &w, o[k]));
            gs_buf_destroy(eb); /* the sums' read, queued by the engine, is already copied out of the work */
            OK(engs[k], gs_engine_read_flush(engs[k]));
        }
        cmp_words(o[0], o[1], 12 * n_x, "mle_round", tag);
        free(o[0]);
        free(o[1]);
        bb4_t r = rand_bb4(s);
        for (int k = 0; k < 2; k++) {
            OK(engs[k], engs[k]->zerocheck->fold(engs[k], tb[k], ncols, stride, m, r));
            OK(engs[k], gs_buf_read(tb[k], 0, h[k], twords * 4));
        }
        cmp_words(h[0], h[1], twords, "fold tables", tag);
    }
    /* the fully bound point */
    {
        bb4_t o[2][3];
        memset(o, 0x77, sizeof o);
        for (int k = 0; k < 2; k++) {
            OK(engs[k], engs[k]->zerocheck->mle_round(engs[k], &in[k].t, tb[k], stride, 1, NULL, 1, &w, o[k]));
            OK(engs[k], gs_engine_read_flush(engs[k]));
        }
        cmp_words(o[0], o[1], 12, "mle_round m=1", tag);
    }
    for (int k = 0; k < 2; k++)
        if (engs[k]->zerocheck->mle_rounds_done)
            engs[k]->zerocheck->mle_rounds_done(engs[k]);
    free(eq);
    for (int k = 0; k < 2; k++) {
        free(h[k]);
        gs_buf_destroy(tb[k]);
        inst_free(&in[k], tc->n_parts);
    }
}

/* Returns how many multilinear rounds gathered rows. */
static int random_cases_opts(uint64_t max_binding, uint64_t seed, int iters, uint32_t max_l, uint32_t max_log_h,
                             uint32_t max_nodes, glstark_slot_memory slots, unsigned groups, int *notes)
{
    printf("zerocheck gles vs cpu: binding limit %llu, seed %llu, slots %d, groups %u\n",
           (unsigned long long)max_binding, (unsigned long long)seed, (int)slots, groups);
    uint64_t s = seed;
    gs_engine *g = gles_opts(max_binding, notes, slots, groups), *c = cpu();
    for (int it = 0; it < iters; it++) {
        uint32_t l = 1 + (uint32_t)(splitmix64(&s) % max_l);
        uint32_t log_h = (uint32_t)(splitmix64(&s) % (max_log_h + 1));
        uint32_t nn = 1 + (uint32_t)(splitmix64(&s) % max_nodes);
        tcase tc;
        tcase_random(&tc, &s, log_h, nn);
        char tag[96];
        snprintf(tag, sizeof tag, "iter %d: l %u, 2^%u rows, %u nodes, %u parts", it, l, log_h, nn, tc.n_parts);
        compare_case(g, c, &tc, l, &s, tag);
        tcase_free(&tc);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
    return notes ? notes[0] : 0;
}

static int random_cases_slots(uint64_t max_binding, uint64_t seed, int iters, uint32_t max_l, uint32_t max_log_h,
                              uint32_t max_nodes, glstark_slot_memory slots, int *notes)
{
    return random_cases_opts(max_binding, seed, iters, max_l, max_log_h, max_nodes, slots, 0, notes);
}

static int random_cases(uint64_t max_binding, uint64_t seed, int iters, uint32_t max_l, uint32_t max_log_h,
                        uint32_t max_nodes)
{
    int notes[4] = {0, 0, 0, 0};
    random_cases_slots(max_binding, seed, iters, max_l, max_log_h, max_nodes, GLSTARK_SLOTS_AUTO, notes);
    return notes[0];
}

/* Default policy: slots in the work buffer. */
Test(zerocheck_gles, random_dags_match_cpu)
{
    int notes[4] = {0, 0, 0, 0};
    random_cases_slots(0, 0x2C0001, 24, 4, 9, 120, GLSTARK_SLOTS_AUTO, notes);
    cr_assert(notes[1] == 0 && notes[2] > 0, "shared %d, work buffer %d: the default is the work buffer", notes[1],
              notes[2]);
}

/* No skip domain (l_skip 0): round 0's keys are the cosets and the D
 * point (an odd number of them in some cases), then the skip-domain fold
 * and the rounds, against the CPU engine. */
Test(zerocheck_gles, random_dags_without_skip_domain)
{
    int notes[4] = {0, 0, 0, 0};
    uint64_t s = 0x2C0009;
    printf("zerocheck gles vs cpu, l_skip 0: seed %llu\n", (unsigned long long)s);
    gs_engine *g = gles_opts(0, notes, GLSTARK_SLOTS_AUTO, 0), *c = cpu();
    for (int it = 0; it < 8; it++) {
        tcase tc;
        uint32_t log_h = (uint32_t)(splitmix64(&s) % 7), nn = 1 + (uint32_t)(splitmix64(&s) % 80);
        tcase_random(&tc, &s, log_h, nn);
        char tag[96];
        snprintf(tag, sizeof tag, "l_skip 0, iter %d: 2^%u rows, %u nodes", it, log_h, nn);
        compare_case(g, c, &tc, 0, &s, tag);
        tcase_free(&tc);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
    cr_assert(notes[2] > 0, "no evaluation ran");
}

/* The same cases with the slots in shared memory (opt-in), where they fit
 * (in floor mode, 16 KiB per group, the wider DAGs fall back). */
Test(zerocheck_gles, random_dags_shared_slots)
{
    int notes[4] = {0, 0, 0, 0};
    random_cases_slots(0, 0x2C0001, 24, 4, 9, 120, GLSTARK_SLOTS_SHARED, notes);
    cr_log_info("evaluations with shared-memory slots: %d, with work-buffer slots: %d", notes[1], notes[2]);
    cr_assert(notes[1] > 0, "no evaluation used shared-memory slots: SHARED was not honoured");
}

/* Each evaluation split into groups of the DAG's uses run by separate lanes
 * (automatic on desktop-class GPUs; forced here): 4, 16, 128 and 256 (the
 * most) groups, with work-buffer and shared-memory slots, and 16 and 128 groups with 8 KiB
 * bindings (where the library falls back to fewer groups: the work buffer
 * or the bytecode would not fit one binding). */
Test(zerocheck_gles, random_dags_split_into_groups)
{
    const unsigned groups[] = {4, 16, 128, 256};
    for (int i = 0; i < 4; i++)
        for (int sl = 0; sl < 2; sl++) {
            int notes[4] = {0, 0, 0, 0};
            random_cases_opts(0, 0x2C0007 + (uint64_t)i, 16, 4, 9, 120,
                              sl ? GLSTARK_SLOTS_SHARED : GLSTARK_SLOTS_GLOBAL, groups[i], notes);
            cr_log_info("%u groups, %s slots: %d split evaluations", groups[i], sl ? "shared" : "global", notes[3]);
            cr_assert(notes[3] > 0, "%u groups: no evaluation was split", groups[i]);
        }
    int notes[4] = {0, 0, 0, 0};
    random_cases_opts(8192, 0x2C0009, 8, 3, 10, 40, GLSTARK_SLOTS_GLOBAL, 16, notes);
    random_cases_opts(8192, 0x2C000A, 8, 3, 10, 120, GLSTARK_SLOTS_GLOBAL, 128, notes);
}

/* 8 KiB bindings: part and table windows of a few columns, gathered row
 * tiles in the multilinear rounds, LDE tiles of a few x, short dispatches. */
/* Asked for 128 groups, a DAG whose constraints share one long chain still
 * compiles to several groups that each hold the chain (5 within the
 * compile's growth bound, 18 KB of bytecode): where that exceeds the binding
 * limit (16 KiB here, while the work buffer fits), the library compiles
 * fewer groups instead of refusing the device. */
Test(zerocheck_gles, shared_chain_falls_back_to_fewer_groups)
{
    uint64_t s = 0x2C000B;
    int notes[4] = {0, 0, 0, 0};
    gs_engine *g = gles_opts(16384, notes, GLSTARK_SLOTS_GLOBAL, 128), *c = cpu();
    tcase tc;
    tcase_chain(&tc, &s, 6, 100, 40);
    compare_case(g, c, &tc, 2, &s, "chain of 100, 40 constraints");
    tcase_free(&tc);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* Under a dispatch time budget a dispatch is cut between work groups only,
 * and one lane runs its whole group of the DAG: a DAG whose group alone
 * runs past what one work group may run is compiled into more groups (their
 * own lanes, which the dispatcher can cut between), with the same sums. A
 * budget of 2 ns makes every lane too long once the interpreter's rate is
 * measured (each program's first evaluation measures it), so the later
 * evaluations split; without a budget none does (one group unless the
 * device is desktop-class). */
Test(zerocheck_gles, budget_splits_long_lanes)
{
    for (int on = 0; on < 2; on++) {
        uint64_t s = 0x2C000C;
        int notes[4] = {0, 0, 0, 0};
        gs_engine *g = gles_opts(0, notes, GLSTARK_SLOTS_GLOBAL, 0), *c = cpu();
        gs_gl_device *dev = gs_gles_device(g);
        dev->dispatch_budget_ns = on ? 2 : 0;
        for (int it = 0; it < 3; it++) {
            tcase tc;
            tcase_random(&tc, &s, 5, 60);
            char tag[64];
            snprintf(tag, sizeof tag, "budget %s, case %d", on ? "2 ns" : "none", it);
            compare_case(g, c, &tc, 2, &s, tag);
            tcase_free(&tc);
        }
        cr_log_info("budget %s: %d split evaluations", on ? "2 ns" : "none", notes[3]);
        if (on)
            cr_assert(notes[3] > 0, "a 2 ns budget split no evaluation's DAG");
        else if (!dev->caps.desktop_class)
            cr_assert_eq(notes[3], 0, "no budget: no split off desktop-class devices");
        gs_engine_destroy(g);
        gs_engine_destroy(c);
    }
}

/* Dispatches of one call of n ids planned at p ids each (p >= 1). */
static uint64_t chunks(uint64_t n, uint64_t p) { return (n + p - 1) / p; }

/* The same for a calibrated program, whose call of several chunks starts
 * with a probe of half a chunk in whole work groups of ls ids (at least
 * one group): gs_dispatch_probe_chunk, an independent restatement. */
static uint64_t chunks_probed(uint64_t n, uint64_t p, uint64_t ls)
{
    if (n <= p)
        return 1;
    uint64_t q = p / 2 - (p / 2) % ls;
    if (q < ls)
        q = ls;
    return 1 + chunks(n - q, p);
}

/* The skip-domain fold under a budget, with a rate injected as if measured
 * on the selector ids (the program's first call): a selector id costs 5
 * units per point (a comparison and a sum), a trace column's 9 (a load, an
 * extension-by-base product, a sum), so the column ids get 5/9 the ids per
 * dispatch. The expected dispatch counts are computed here from those
 * costs; the library's count is dev->budget_splits (the dispatches that
 * did not end their call). The unweighted plan gave the columns the
 * selectors' chunk, 1.8x the budget. Same tables as the CPU engine. */
Test(zerocheck_gles, fold_ple_budget_weights)
{
    uint64_t s = 0x2C000D;
    gs_engine *g = gles(0, NULL), *c = cpu();
    gs_gl_device *dev = gs_gles_device(g);
    const uint32_t l = 2, log_h = 10;
    const uint64_t N = 1u << l, nx = (1u << log_h) / N, ls = dev->caps.local_size;
    dev->dispatch_budget_ns = 50000000ull;
    /* the rule restated below is one group at a time; whole rounds of
     * parallel groups (llvmpipe's threads) are dispatch_plan's test */
    dev->caps.parallel_groups = 1;
    gs_gl_program *p = NULL;
    char defs[64];
    snprintf(defs, sizeof defs, "ZC_MODE 3\nZC_LOGN %u\n", l);
    OK(g, gs_gl_program_get(dev, "zerocheck.comp", defs, &p, &g->err));
    /* measured: 2 work groups of selector ids per 50 ms */
    const uint64_t sel_cost = 5 * N, col_cost = 9 * N;
    gs_dispatch_rate *r = gs_gl_program_rate(p);
    memset(r, 0, sizeof *r);
    r->rate = (double)(2 * ls * sel_cost) / 50e6;
    r->calibrated = 1;
    r->dispatches = 1;
    /* ids per dispatch: whole work groups within the budget */
    const uint64_t p_sel = 2 * ls, p_col = (2 * ls * sel_cost / col_cost) / ls * ls;
    cr_assert_eq(p_col, ls, "2 x 20 / 36 of a group: one group");
    tcase tc;
    tcase_fib(&tc, &s, log_h);
    inst in[2];
    gs_engine *engs[2] = {g, c};
    for (int k = 0; k < 2; k++)
        inst_make(&in[k], engs[k], &tc);
    bb4_t lw[4];
    for (size_t k = 0; k < N; k++)
        lw[k] = rand_bb4(&s);
    const size_t twords = folded_cols(&in[0].t) * nx * 4;
    gs_buf *tb[2];
    for (int k = 0; k < 2; k++)
        OK(engs[k], gs_buf_create(engs[k], twords * 4, &tb[k]));
    /* around the fold alone: a poisoned pool fills new buffers by dispatch */
    const uint64_t splits0 = dev->budget_splits;
    for (int k = 0; k < 2; k++)
        OK(engs[k], engs[k]->zerocheck->fold_ple(engs[k], &in[k].t, l, lw, tb[k]));
    /* one call for the 3 selector columns, one for the part's 2 columns
     * (local and next) of 2 trace columns; each starts with a probe, which
     * runs well within half the budget here (the injected rate is far
     * slower than any device's), so it caps nothing and the rest of each
     * call keeps the injected plan */
    const uint64_t want = (chunks_probed(3 * nx, p_sel, ls) - 1) + (chunks_probed(2 * 2 * nx, p_col, ls) - 1);
    cr_log_info("fold_ple: %llu ids per selector dispatch, %llu per column dispatch, %llu extra dispatches",
                (unsigned long long)p_sel, (unsigned long long)p_col, (unsigned long long)want);
    cr_assert_eq(dev->budget_splits - splits0, want);
    cr_assert_gt(want, (chunks(3 * nx, p_sel) - 1) + (chunks(2 * 2 * nx, p_sel) - 1),
                 "the unweighted plan would have made as many dispatches");
    uint32_t *h[2];
    for (int k = 0; k < 2; k++) {
        h[k] = malloc(twords * 4);
        OK(engs[k], gs_buf_read(tb[k], 0, h[k], twords * 4));
    }
    cmp_words(h[0], h[1], twords, "fold_ple tables", "budget weights");
    for (int k = 0; k < 2; k++) {
        free(h[k]);
        gs_buf_destroy(tb[k]);
        inst_free(&in[k], tc.n_parts);
    }
    tcase_free(&tc);
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

Test(zerocheck_gles, random_dags_small_bindings)
{
    int gathers = random_cases(8192, 0x2C0002, 12, 3, 10, 40);
    cr_assert(gathers > 0, "no multilinear round took the gathered-rows path: the test lost its purpose");
}

Test(zerocheck_gles, fibonacci_and_interactions_small)
{
    uint64_t seed = 0x2C0003, s = seed;
    printf("zerocheck gles fixtures seed %llu\n", (unsigned long long)seed);
    gs_engine *g = gles(0, NULL), *c = cpu();
    uint32_t fib[][2] = {{2, 2}, {4, 2}, {10, 2}, {10, 4}, {3, 4}};
    for (size_t i = 0; i < sizeof fib / sizeof fib[0]; i++) {
        tcase tc;
        tcase_fib(&tc, &s, fib[i][0]);
        char tag[64];
        snprintf(tag, sizeof tag, "fibonacci 2^%u, l %u", fib[i][0], fib[i][1]);
        compare_case(g, c, &tc, fib[i][1], &s, tag);
        tcase_free(&tc);
    }
    for (int air = 0; air < 2; air++) {
        tcase tc;
        tcase_ix(&tc, &s, air);
        char tag[64];
        snprintf(tag, sizeof tag, "interactions-small air %d", air);
        compare_case(g, c, &tc, 2, &s, tag);
        tcase_free(&tc);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* A satisfied Fibonacci trace: the constraint sums vanish on D (round 0 with
 * the D points), on both engines. */
Test(zerocheck_gles, satisfied_trace_vanishes_on_d)
{
    uint64_t seed = 0x2C0004, s = seed;
    printf("zerocheck gles vanishing seed %llu\n", (unsigned long long)seed);
    gs_engine *g = gles(0, NULL);
    tcase tc;
    tcase_fib(&tc, &s, 8);
    inst in;
    inst_make(&in, g, &tc);
    gs_zc_weights w;
    weights_of(&tc, &w);
    size_t nx = 256 / 4;
    bb4_t *E = malloc(nx * sizeof(bb4_t));
    for (size_t i = 0; i < nx; i++)
        E[i] = rand_bb4(&s);
    gs_buf *eb = upload_ext(g, E, nx);
    bb4_t o[3 * 8];
    memset(o, 0x33, sizeof o);
    OK(g, g->zerocheck->round0(g, &in.t, 2, 1, 1, eb, &w, o));
    OK(g, gs_engine_read_flush(g));
    for (int k = 0; k < 4; k++)
        cr_assert(bb4_is_zero(o[3 * k]), "constraint sum at D point %d is not zero", k);
    int any = 0;
    for (int k = 4; k < 8; k++)
        any |= !bb4_is_zero(o[3 * k]);
    cr_assert(any, "the coset sums are all zero: the test would not see a broken kernel");
    gs_buf_destroy(eb);
    free(E);
    inst_free(&in, 1);
    tcase_free(&tc);
    gs_engine_destroy(g);
}

Test(zerocheck_gles, bad_arguments_give_status)
{
    uint64_t s = 0x2C0005;
    gs_engine *g = gles(0, NULL);
    tcase tc;
    tcase_fib(&tc, &s, 4);
    inst in;
    inst_make(&in, g, &tc);
    gs_zc_weights w;
    weights_of(&tc, &w);
    gs_buf *tb = NULL;
    OK(g, gs_buf_create(g, 16, &tb));
    bb4_t o[12];
    glstark_status st = g->zerocheck->fold_ple(g, &in.t, 2, o, tb);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "short table buffer: %s", g->err.msg);
    st = g->zerocheck->mle_round(g, &in.t, tb, 4, 3, tb, 1, &w, o);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "m not a power of two: %s", g->err.msg);
    st = g->zerocheck->round0(g, &in.t, 9, 1, 0, tb, &w, o);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "l_skip 9: %s", g->err.msg);
    /* a DAG that reads a column the trace does not have */
    gs_cnode bad[] = {VMAIN(5, 0)};
    uint32_t bc[] = {0};
    gs_cdag bd = {bad, 1, bc, 1, NULL, 0, 1, 0, 0, 0};
    gs_zc_trace bt = in.t;
    bt.dag = &bd;
    gs_buf *eb = NULL;
    OK(g, gs_buf_create(g, 64 * 16, &eb));
    st = g->zerocheck->round0(g, &bt, 2, 1, 0, eb, &w, o);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "bad column: %s", g->err.msg);
    cr_assert(strlen(g->err.msg) > 0);
    gs_buf_destroy(eb);
    gs_buf_destroy(tb);
    inst_free(&in, 1);
    tcase_free(&tc);
    gs_engine_destroy(g);
}

/* One multilinear round on both engines with m live rows and n_x points,
 * compared word for word; returns GLES's status. */
static glstark_status round_on_both(gs_engine **engs, inst *in, gs_buf **tb, size_t stride, size_t m, size_t n_x,
                                    const gs_zc_weights *w, uint64_t *s, const char *what)
{
    bb4_t eq[64], o[2][12];
    cr_assert_leq(m / 2, 64);
    for (size_t i = 0; i < m / 2; i++)
        eq[i] = rand_bb4(s);
    glstark_status st = GLSTARK_OK;
    for (int k = 0; k < 2; k++) {
        gs_buf *eb = upload_ext(engs[k], eq, m / 2);
        memset(o[k], 0x5A, sizeof o[k]);
        glstark_status sk = engs[k]->zerocheck->mle_round(engs[k], &in[k].t, tb[k], stride, m, eb, n_x, w, o[k]);
        gs_buf_destroy(eb);
        if (!sk)
            sk = gs_engine_read_flush(engs[k]);
        else
            gs_engine_read_drop(engs[k]);
        if (k == 0)
            st = sk;
        else
            OK(engs[k], sk);
    }
    if (!st)
        cmp_words(o[0], o[1], 12 * n_x, "mle_round", what);
    return st;
}

/* The plan the GLES engine keeps from one multilinear round to the next:
 * reused for the same trace and weights with fewer rows (no new buffers),
 * made again when the weights change in place, the points change or a call
 * has more rows, dropped after a failed call, and freed by
 * mle_rounds_done. Every sum equals the CPU engine's, so the reduce left
 * no accumulator behind. */
Test(zerocheck_gles, kept_plans_across_rounds)
{
    uint64_t s = 0x2C000C;
    printf("kept_plans_across_rounds: seed %#" PRIx64 "\n", s);
    gs_engine *engs[2] = {gles(0, NULL), cpu()};
    tcase tc;
    tcase_random(&tc, &s, 6, 60);
    inst in[2];
    gs_buf *tb[2];
    const uint32_t l = 2;
    const size_t nx = lifted(&tc, l) >> l;
    bb4_t lw[4];
    for (int i = 0; i < 4; i++)
        lw[i] = rand_bb4(&s);
    for (int k = 0; k < 2; k++)
        inst_make(&in[k], engs[k], &tc);
    const size_t ncols = folded_cols(&in[0].t);
    for (int k = 0; k < 2; k++) {
        OK(engs[k], gs_buf_create(engs[k], ncols * nx * 16, &tb[k]));
        OK(engs[k], engs[k]->zerocheck->fold_ple(engs[k], &in[k].t, l, lw, tb[k]));
    }
    gs_zc_weights w;
    weights_of(&tc, &w);
    gs_engine *g = engs[0];
    const size_t before = g->bytes_live;
    OK(g, round_on_both(engs, in, tb, nx, nx, 3, &w, &s, "first round"));
    const size_t kept = g->bytes_live;
    cr_assert_gt(kept, before, "the first round's plan is kept (%zu -> %zu bytes live)", before, kept);
    OK(g, round_on_both(engs, in, tb, nx, nx / 2, 3, &w, &s, "fewer rows"));
    OK(g, round_on_both(engs, in, tb, nx, nx / 4, 3, &w, &s, "fewer rows again"));
    cr_assert_eq(g->bytes_live, kept, "the kept plan served the later rounds");
    tc.lpow[0] = bb4_add(tc.lpow[0], bb4_one()); /* the same weights object, new values */
    OK(g, round_on_both(engs, in, tb, nx, nx / 4, 3, &w, &s, "weights changed in place"));
    OK(g, round_on_both(engs, in, tb, nx, nx / 4, 2, &w, &s, "fewer points"));
    OK(g, round_on_both(engs, in, tb, nx, nx, 2, &w, &s, "more rows"));
    /* a failing call (a table buffer too small for the stride) drops it */
    gs_buf *small = NULL;
    OK(g, gs_buf_create(g, 16, &small));
    gs_buf *eb = upload_ext(g, lw, 2);
    bb4_t o[12];
    glstark_status st = g->zerocheck->mle_round(g, &in[0].t, small, nx, nx / 4, eb, 2, &w, o);
    cr_assert_eq(st, GLSTARK_ERR_INVALID_ARGUMENT, "short tables: %s", g->err.msg);
    gs_buf_destroy(eb);
    gs_buf_destroy(small);
    OK(g, round_on_both(engs, in, tb, nx, nx / 4, 2, &w, &s, "after a failed call"));
    cr_assert_not_null(g->zerocheck->mle_rounds_done);
    g->zerocheck->mle_rounds_done(g);
    cr_assert_eq(g->bytes_live, before, "mle_rounds_done frees the kept plan");
    for (int k = 0; k < 2; k++) {
        gs_buf_destroy(tb[k]);
        inst_free(&in[k], tc.n_parts);
        gs_engine_destroy(engs[k]);
    }
    tcase_free(&tc);
}

/* ---- random AIRs from the builder whose constraints hold ---- */

/* next(c_j) = f_j(local row): kind 0: c_a c_b + c_d, 1: c_a + c_b, 2: k c_a */
typedef struct rec {
    int kind;
    uint32_t a, b, d;
    bb_t k;
} rec;

static bb_t rec_eval(const rec *r, const bb_t *row)
{
    switch (r->kind) {
    case 0: return bb_add(bb_mul(row[r->a], row[r->b]), row[r->d]);
    case 1: return bb_add(row[r->a], row[r->b]);
    default: return bb_mul(r->k, row[r->a]);
    }
}

static glstark_expr rec_expr(glstark_air *air, const rec *r)
{
    glstark_expr a = glstark_air_main(air, r->a, 0), b = glstark_air_main(air, r->b, 0);
    switch (r->kind) {
    case 0: return glstark_air_add(air, glstark_air_mul(air, a, b), glstark_air_main(air, r->d, 0));
    case 1: return glstark_air_add(air, a, b);
    default: return glstark_air_mul(air, glstark_air_const(air, bb_to_canonical(r->k)), a);
    }
}

Test(zerocheck_gles, builder_airs_hold_and_match)
{
    uint64_t seed = 0x2C0006, s = seed;
    printf("zerocheck gles builder AIRs seed %llu\n", (unsigned long long)seed);
    gs_engine *g = gles(0, NULL), *c = cpu();
    for (int it = 0; it < 6; it++) {
        uint32_t w = 2 + (uint32_t)(splitmix64(&s) % 3); /* recurrence columns */
        uint32_t W = w + 2;                          /* + product column p, boolean column b */
        uint32_t log_h = 1 + (uint32_t)(splitmix64(&s) % 8), l = 1 + (uint32_t)(splitmix64(&s) % 4);
        size_t H = (size_t)1 << log_h;
        rec rs[4];
        for (uint32_t j = 0; j < w; j++) {
            rs[j].kind = (int)(splitmix64(&s) % 3);
            rs[j].a = (uint32_t)(splitmix64(&s) % w);
            rs[j].b = (uint32_t)(splitmix64(&s) % w);
            rs[j].d = (uint32_t)(splitmix64(&s) % w);
            rs[j].k = rand_bb(&s);
        }
        uint32_t pa = (uint32_t)(splitmix64(&s) % w), pb = (uint32_t)(splitmix64(&s) % w);
        /* the trace (column-major), row by row */
        bb_t *tr = malloc((size_t)W * H * sizeof(bb_t));
        bb_t row[8], nxt[8];
        for (uint32_t j = 0; j < w; j++)
            row[j] = rand_bb(&s);
        for (size_t r = 0; r < H; r++) {
            for (uint32_t j = 0; j < w; j++)
                tr[(size_t)j * H + r] = row[j];
            tr[(size_t)w * H + r] = bb_mul(row[pa], row[pb]);
            tr[(size_t)(w + 1) * H + r] = splitmix64(&s) & 1 ? bb_one() : 0;
            for (uint32_t j = 0; j < w; j++)
                nxt[j] = rec_eval(&rs[j], row);
            memcpy(row, nxt, w * sizeof(bb_t));
        }
        glstark_air *air;
        cr_assert_eq(glstark_air_create("random", W, 2, &air), GLSTARK_OK);
        glstark_expr tsel = glstark_air_is_transition(air);
        for (uint32_t j = 0; j < w; j++) {
            glstark_expr d = glstark_air_sub(air, glstark_air_main(air, j, 1), rec_expr(air, &rs[j]));
            glstark_air_assert_zero(air, glstark_air_mul(air, tsel, d));
        }
        glstark_air_assert_eq(air, glstark_air_main(air, w, 0),
                              glstark_air_mul(air, glstark_air_main(air, pa, 0), glstark_air_main(air, pb, 0)));
        glstark_air_assert_bool(air, glstark_air_main(air, w + 1, 0));
        glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_first_row(air),
                                                     glstark_air_sub(air, glstark_air_main(air, 0, 0),
                                                                     glstark_air_public_value(air, 0))));
        glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_last_row(air),
                                                     glstark_air_sub(air, glstark_air_main(air, 1, 0),
                                                                     glstark_air_public_value(air, 1))));
        glstark_expr fields[2] = {glstark_air_main(air, pa, 0),
                                  glstark_air_add(air, glstark_air_main(air, pb, 0), glstark_air_const(air, 7))};
        glstark_air_push_interaction(air, (uint16_t)(splitmix64(&s) % 4), fields, 2, glstark_air_main(air, w + 1, 0), 1);
        cr_assert_eq(glstark_air_status(air), GLSTARK_OK, "%s", glstark_air_error_message(air));
        gs_system_params prm;
        gs_default_test_params_small(&prm);
        gs_multi_pk pk;
        gs_cdag_owned dag;
        gs_error err;
        cr_assert_eq(gs_keygen(&prm, &air, 1, NULL, &pk, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert_eq(gs_cdag_from_vk(&pk.vk.per_air[0], &dag, &err), GLSTARK_OK, "%s", err.msg);
        tcase tc;
        memset(&tc, 0, sizeof tc);
        tc.dag = dag.dag;
        tc.log_h = log_h;
        tc.n_parts = 1;
        tc.widths[0] = W;
        tc.data[0] = tr;
        tc.n_publics = 2;
        tc.publics[0] = tr[0];
        tc.publics[1] = tr[H + H - 1];
        tcase_weights(&tc, &s);
        char tag[96];
        snprintf(tag, sizeof tag, "builder AIR %d: %u columns, 2^%u rows, l %u", it, W, log_h, l);
        compare_case(g, c, &tc, l, &s, tag);
        /* the constraints hold: the constraint sums vanish on D (both engines agree, checked above) */
        {
            inst in;
            inst_make(&in, g, &tc);
            gs_zc_weights wt;
            weights_of(&tc, &wt);
            size_t N = (size_t)1 << l, nx = lifted(&tc, l) / N;
            bb4_t *E = malloc(nx * sizeof(bb4_t)), *o = malloc(3 * 2 * N * sizeof(bb4_t));
            for (size_t i = 0; i < nx; i++)
                E[i] = rand_bb4(&s);
            gs_buf *eb = upload_ext(g, E, nx);
            OK(g, g->zerocheck->round0(g, &in.t, l, 1, 1, eb, &wt, o));
            OK(g, gs_engine_read_flush(g));
            for (size_t k = 0; k < N; k++)
                cr_assert(bb4_is_zero(o[3 * k]), "%s: constraint sum at D point %zu is not zero", tag, k);
            gs_buf_destroy(eb);
            free(E);
            free(o);
            inst_free(&in, 1);
        }
        tcase_free(&tc);
        gs_cdag_owned_free(&dag);
        gs_multi_pk_free(&pk);
        glstark_air_destroy(air);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
}

/* The fold of tables whose halves exceed the scratch off desktop-class
 * devices (GS_CW_FOLD_SCRATCH_BYTES, 4 MiB): three columns of 2^20 entries
 * (8 MiB halves) go through the scratch a column at a time, in a table
 * with padding between columns that no fold may write. Against the CPU
 * engine, on random entries from a printed seed. */
Test(zerocheck_gles, fold_through_a_small_scratch)
{
    uint64_t s = 0x2C00F0;
    cr_log_info("seed 0x%llx", (unsigned long long)s);
    gs_engine *engs[2] = {gles(0, NULL), cpu()};
    const size_t ncols = 3, m = (size_t)1 << 20, stride = m + 5, n = (ncols - 1) * stride + m + 3;
    bb4_t *v = malloc(n * sizeof(bb4_t));
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = rand_bb4(&s);
    const bb4_t r = rand_bb4(&s);
    uint32_t *h[2];
    for (int k = 0; k < 2; k++) {
        gs_buf *tb = upload_ext(engs[k], v, n);
        OK(engs[k], engs[k]->zerocheck->fold(engs[k], tb, ncols, stride, m, r));
        h[k] = malloc(n * sizeof(bb4_t));
        OK(engs[k], gs_buf_read(tb, 0, h[k], n * sizeof(bb4_t)));
        gs_buf_destroy(tb);
    }
    cmp_words(h[0], h[1], 4 * n, "fold tables", "three columns of 2^20");
    /* the padding and every column's upper half as they were */
    const uint32_t *orig = (const uint32_t *)v;
    for (size_t c = 0; c < ncols; c++)
        for (size_t i = c * stride + m / 2; i < (c + 1) * stride && i < n; i++)
            for (int j = 0; j < 4; j++)
                cr_assert_eq(h[0][4 * i + j], orig[4 * i + j], "fold wrote entry %zu past column %zu's half", i, c);
    free(h[0]);
    free(h[1]);
    free(v);
    gs_engine_destroy(engs[0]);
    gs_engine_destroy(engs[1]);
}
