/* Benchmark (meson benchmark 'gkr_gles_bench'): the whole LogUp GKR
 * sub-protocol (gs_gkr_prove: tree build, R(R-1)/2 sumcheck rounds, folds,
 * eq tables) on 2^R random balanced leaves, CPU engine vs GLES engine, with
 * the proofs compared and the GLES host syncs printed.
 *
 * Usage: bench_gkr_gles [R_min] [R_max] [cpu_threads]   (defaults 12 18 0) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "common/gkr.h"
#include "prove/gkr.h"
#include "util/clock.h"
#include "../util/splitmix.h"

typedef struct bfs {
    uint64_t s;
} bfs;
static void b_observe(void *c, bb_t v) { ((bfs *)c)->s = (((bfs *)c)->s ^ v) * 0x9E3779B97F4A7C15ull; }
static bb_t b_sample(void *c) { return bb_from_u64(splitmix64(&((bfs *)c)->s)); }

static int run(gs_engine *e, const bb4_t *P, const bb4_t *Q, uint32_t R, gs_gkr_proof *pf, double *secs,
               uint64_t *syncs)
{
    size_t n = (size_t)1 << R;
    gs_buf *p = NULL, *q = NULL;
    if (gs_buf_create(e, n * 16, &p) || gs_buf_create(e, n * 16, &q) || gs_buf_write(p, 0, P, n * 16) ||
        gs_buf_write(q, 0, Q, n * 16) || gs_engine_finish(e)) {
        fprintf(stderr, "setup on %s: %s\n", e->core->name, e->err.msg);
        return 1;
    }
    bfs f = {42};
    gs_fs fs = {&f, b_observe, b_sample, NULL};
    bb4_t xi[40];
    gs_error err;
    uint64_t s0 = e->host_syncs;
    double t0 = gs_now_s();
    glstark_status st = gs_gkr_prove(e, &fs, p, q, R, pf, xi, &err);
    *secs = gs_now_s() - t0;
    *syncs = e->host_syncs - s0;
    gs_buf_destroy(p);
    gs_buf_destroy(q);
    if (st) {
        fprintf(stderr, "prove on %s: %s\n", e->core->name, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint32_t rmin = argc > 1 ? (uint32_t)atoi(argv[1]) : 12, rmax = argc > 2 ? (uint32_t)atoi(argv[2]) : 18;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    gs_error err;
    gs_engine *c = NULL, *g = NULL;
    if (gs_cpu_engine_create(threads, &c, &err) || gs_gles_engine_create_opts(NULL, &g, &err)) {
        fprintf(stderr, "engines: %s\n", err.msg);
        return 1;
    }
    printf("gles device: %s\n", gs_gles_device(g)->renderer);
    int bad = 0;
    for (uint32_t R = rmin; R <= rmax; R++) {
        size_t n = (size_t)1 << R;
        bb4_t *P = malloc(n * 16), *Q = malloc(n * 16);
        uint64_t s = 0xB0000000ull + R;
        bb4_t sum = bb4_zero();
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 4; k++) {
                P[i].c[k] = bb_from_u64(splitmix64(&s));
                Q[i].c[k] = bb_from_u64(splitmix64(&s));
            }
        for (size_t i = 0; i + 1 < n; i++)
            sum = bb4_add(sum, bb4_mul(P[i], bb4_inv(Q[i])));
        P[n - 1] = bb4_neg(bb4_mul(sum, Q[n - 1]));
        gs_gkr_proof pc, pg;
        double tc, tg;
        uint64_t sc, sg;
        /* warm the program cache once */
        if (R == rmin) {
            double t;
            uint64_t y;
            if (run(g, P, Q, R, &pg, &t, &y))
                return 1;
            gs_gkr_proof_free(&pg);
        }
        if (run(c, P, Q, R, &pc, &tc, &sc) || run(g, P, Q, R, &pg, &tg, &sg))
            return 1;
        int same = !memcmp(pc.claims, pg.claims, R * sizeof(gs_gkr_layer_claims)) &&
                   !memcmp(pc.sumcheck, pg.sumcheck, 3 * (size_t)R * (R - 1) / 2 * 16) &&
                   bb4_eq(pc.q0_claim, pg.q0_claim);
        bad |= !same;
        printf("R=%2u leaves=2^%u  cpu %.3f s  gles %.3f s  gles host syncs %llu  proofs %s\n", R, R, tc, tg,
               (unsigned long long)sg, same ? "equal" : "DIFFER");
        fflush(stdout);
        gs_gkr_proof_free(&pc);
        gs_gkr_proof_free(&pg);
        free(P);
        free(Q);
    }
    gs_engine_destroy(g);
    gs_engine_destroy(c);
    return bad;
}
