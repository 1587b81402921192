/* Times each GLES whir and reduction op against the CPU engine at one size
 * (glFinish after each op on GLES; the median of 3 runs). Not a test:
 *   ./bench_whir_gles [log_n] [cpu_threads]
 * Every GLES result is also compared with the CPU engine's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/device_testing.h"
#include "engine/read_later.h"
#include "engine/gles/gles_engine.h"
#include "engine/reduction_ops.h"
#include "engine/whir_ops.h"
#include "util/clock.h"
#include "../util/splitmix.h"

#define CHECK(e, x)                                                                                               \
    do {                                                                                                          \
        if ((x) != GLSTARK_OK) {                                                                                  \
            fprintf(stderr, "%s failed: %s\n", #x, (e)->err.msg);                                                 \
            exit(1);                                                                                              \
        }                                                                                                         \
    } while (0)

typedef struct bufs {
    gs_buf *m, *f, *w, *g, *h, *cw;
} bufs;

enum { OP_BATCH, OP_PREP, OP_EQ, OP_ROUND, OP_FOLD, OP_EVAL, OP_FOLDENC, OP_WACC, OP_FOLDPLE, OP_BSUMS, OP_N };
static const char *names[OP_N] = {"batch_columns(8 cols)", "prepare_f(l_skip 4)", "eq_table", "sumcheck_round",
                                  "fold", "eval_univariate", "fold_encode(4x)", "w_accumulate(100 pts)",
                                  "red fold_ple(8 cols)", "red block_sums(8 cols)"};

static double run(gs_engine *e, bufs *b, int op, unsigned L, const uint32_t *fw, bb4_t *res)
{
    size_t n = (size_t)1 << L;
    uint64_t s = 7;
    bb4_t co[8], z = {{5, 6, 7, 8}}, u[32];
    for (int i = 0; i < 8; i++)
        co[i] = (bb4_t){{(bb_t)(splitmix64(&s) % BB_P), 1, 2, 3}};
    for (unsigned i = 0; i < L; i++)
        u[i] = (bb4_t){{(bb_t)(splitmix64(&s) % BB_P), 9, 10, 11}};
    CHECK(e, gs_buf_write(b->f, 0, fw, n * 16));
    CHECK(e, gs_buf_write(b->w, 0, fw + 4 * n, n * 16));
    CHECK(e, gs_engine_finish(e));
    double t0 = gs_now_s();
    switch (op) {
    case OP_BATCH: {
        const gs_buf *ms[1] = {b->m};
        size_t off[1] = {0}, wd[1] = {8};
        CHECK(e, e->whir->batch_columns(e, ms, off, wd, 1, n, co, b->f));
        break;
    }
    case OP_PREP: CHECK(e, e->whir->prepare_f(e, b->f, L, 4)); break;
    case OP_EQ: CHECK(e, e->whir->eq_table(e, u, L, b->f)); break;
    case OP_ROUND: CHECK(e, e->whir->sumcheck_round(e, b->f, b->w, n, gs_sums_host(res))); break;
    case OP_FOLD: CHECK(e, e->whir->fold(e, b->f, b->w, n, gs_chal_value(z), b->g, b->h)); break;
    case OP_EVAL: CHECK(e, e->whir->eval_univariate(e, b->f, n, z, res)); break;
    case OP_FOLDENC: CHECK(e, e->whir->fold_encode(e, b->f, b->w, n, gs_chal_value(z), b->g, b->h, L + 1, b->cw)); break;
    case OP_WACC: {
        bb_t zs[100];
        bb4_t gm[100];
        for (int q = 0; q < 100; q++) {
            zs[q] = (bb_t)(splitmix64(&s) % BB_P);
            gm[q] = co[q % 8];
        }
        CHECK(e, e->whir->w_accumulate(e, b->w, L, z, co[0], zs, gm, 100));
        break;
    }
    case OP_FOLDPLE: {
        bb4_t lag[16];
        memcpy(lag, u, sizeof lag);
        gs_red_cols o = {b->f, 0, n / 16 * 1, 8};
        CHECK(e, e->reduction->fold_ple(e, b->m, 0, 8, (uint32_t)n, 4, lag, &o));
        break;
    }
    case OP_BSUMS: {
        unsigned nt = L - 4;
        gs_red_slice sl[8];
        for (int c = 0; c < 8; c++)
            sl[c] = (gs_red_slice){(uint32_t)c, 0, L};
        bb4_t *eq = malloc(((size_t)2 << nt) * sizeof(bb4_t));
        for (size_t i = 0; i < ((size_t)2 << nt) - 1; i++)
            eq[i] = co[i % 8];
        CHECK(e, e->reduction->block_sums(e, b->m, (uint32_t)n, 4, sl, 8, eq, nt, res));
        CHECK(e, gs_engine_read_flush(e));
        free(eq);
        break;
    }
    }
    CHECK(e, gs_engine_finish(e));
    return gs_now_s() - t0;
}

static void mk(gs_engine *e, bufs *b, unsigned L, const uint32_t *mat)
{
    size_t n = (size_t)1 << L;
    CHECK(e, gs_buf_create(e, 8 * n * 4, &b->m));
    CHECK(e, gs_buf_write(b->m, 0, mat, 8 * n * 4));
    CHECK(e, gs_buf_create(e, n * 16, &b->f));
    CHECK(e, gs_buf_create(e, n * 16, &b->w));
    CHECK(e, gs_buf_create(e, n * 16, &b->g));
    CHECK(e, gs_buf_create(e, n * 16, &b->h));
    CHECK(e, gs_buf_create(e, 2 * n * 16, &b->cw));
}

int main(int argc, char **argv)
{
    unsigned L = argc > 1 ? (unsigned)atoi(argv[1]) : 18;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    size_t n = (size_t)1 << L;
    uint64_t s = 1;
    uint32_t *mat = malloc(8 * n * 4), *fw = malloc(8 * n * 4);
    for (size_t i = 0; i < 8 * n; i++) {
        mat[i] = (uint32_t)(splitmix64(&s) % BB_P);
        fw[i] = (uint32_t)(splitmix64(&s) % BB_P);
    }
    gs_error err;
    gs_engine *g, *c;
    if (gs_gles_engine_create_opts(NULL, &g, &err) || gs_cpu_engine_create(threads, &c, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    gs_gl_device *dev = gs_gles_device(g);
    printf("GLES: %s | %s; 2^%u EF elements; CPU engine threads %u (0 = all)\n", dev->renderer, dev->gl_version, L,
           threads);
    bufs bg, bc;
    mk(g, &bg, L, mat);
    mk(c, &bc, L, mat);
    bb4_t *rg = malloc(8 * 32 * sizeof(bb4_t) * 16), *rc = malloc(8 * 32 * sizeof(bb4_t) * 16);
    int bad = 0;
    for (int op = 0; op < OP_N; op++) {
        double tg[3], tc[3];
        for (int r = 0; r < 3; r++) {
            tg[r] = run(g, &bg, op, L, fw, rg);
            tc[r] = run(c, &bc, op, L, fw, rc);
        }
        for (int r = 1; r < 3; r++) /* sort 3 */
            for (int k = r; k > 0 && tg[k] < tg[k - 1]; k--) {
                double t = tg[k]; tg[k] = tg[k - 1]; tg[k - 1] = t;
            }
        for (int r = 1; r < 3; r++)
            for (int k = r; k > 0 && tc[k] < tc[k - 1]; k--) {
                double t = tc[k]; tc[k] = tc[k - 1]; tc[k - 1] = t;
            }
        /* compare the op's outputs */
        size_t words = op == OP_FOLDENC ? 8 * n : op == OP_FOLD ? 2 * n : 4 * n;
        gs_buf *og = op == OP_FOLDENC ? bg.cw : op == OP_FOLD ? bg.g : op == OP_WACC ? bg.w : bg.f;
        gs_buf *oc = op == OP_FOLDENC ? bc.cw : op == OP_FOLD ? bc.g : op == OP_WACC ? bc.w : bc.f;
        uint32_t *x = malloc(words * 4), *y = malloc(words * 4);
        CHECK(g, gs_buf_read(og, 0, x, words * 4));
        CHECK(c, gs_buf_read(oc, 0, y, words * 4));
        int same = memcmp(x, y, words * 4) == 0;
        if (op == OP_ROUND || op == OP_EVAL || op == OP_BSUMS)
            same = same && memcmp(rg, rc, (op == OP_BSUMS ? 8 * 32 : op == OP_ROUND ? 2 : 1) * sizeof(bb4_t)) == 0;
        bad |= !same;
        printf("%-24s gles %8.2f ms   cpu %8.2f ms   %s\n", names[op], tg[1] * 1e3, tc[1] * 1e3,
               same ? "identical" : "DIFFERENT");
        free(x);
        free(y);
    }
    return bad;
}
