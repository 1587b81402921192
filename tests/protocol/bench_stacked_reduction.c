/* Stacked-reduction prover time at Keccak-f scale (not a test):
 * one common-main commit of `width` columns of height 2^log_h, l_skip 4,
 * n_stack 17 (app params L = 21), all columns need_rot; random values
 * (seed printed), random r and challenges.
 * Usage: bench_stacked_reduction [width=2633] [log_h=15] [threads=0] */
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "common/stacked_reduction.h"
#include "prove/stacked_reduction.h"
#include "util/clock.h"
#include "../util/splitmix.h"

typedef struct chan {
    uint64_t seed;
} chan;
static void ch_observe(void *ctx, bb_t v)
{
    chan *c = ctx;
    c->seed ^= v;
}
static bb_t ch_sample(void *ctx)
{
    chan *c = ctx;
    return bb_from_canonical((uint32_t)(splitmix64(&c->seed) % BB_P));
}

int main(int argc, char **argv)
{
    uint32_t width = argc > 1 ? (uint32_t)atoi(argv[1]) : 2633;
    uint32_t log_h = argc > 2 ? (uint32_t)atoi(argv[2]) : 15;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    const uint32_t l = 4, n_stack = 17;
    const size_t height = (size_t)1 << (l + n_stack);
    uint64_t seed = 42;
    printf("stacked reduction bench: %u columns x 2^%u rows, l_skip %u, n_stack %u, seed %llu\n", width, log_h, l,
           n_stack, (unsigned long long)seed);
    uint32_t per_col = (uint32_t)(height >> log_h);
    uint32_t swidth = (width + per_col - 1) / per_col;
    gs_red_slice *sl = malloc(width * sizeof *sl);
    uint8_t *rot = malloc(width);
    for (uint32_t k = 0; k < width; k++) {
        sl[k] = (gs_red_slice){k / per_col, (k % per_col) << log_h, log_h};
        rot[k] = 1;
    }
    gs_engine *eng;
    gs_error err;
    if (gs_cpu_engine_create(threads, &eng, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    gs_buf *m;
    if (gs_buf_create(eng, (size_t)swidth * height * sizeof(bb_t), &m)) {
        fprintf(stderr, "%s\n", eng->err.msg);
        return 1;
    }
    bb_t *h = m->host;
    for (size_t i = 0; i < (size_t)swidth * height; i++)
        h[i] = (i / height) * height + (i % height) < (size_t)width << log_h
                   ? bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P))
                   : 0;
    gs_sred_commit c = {swidth, width, sl, rot};
    const gs_buf *mat = m;
    bb4_t r[32];
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 4; j++)
            r[i].c[j] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    chan ch = {7};
    gs_fs fs = {&ch, ch_observe, ch_sample, NULL};
    gs_stacking_proof sp;
    bb4_t u[32];
    double t0 = gs_now_s();
    glstark_status st =
        gs_sred_prove(eng, &fs, (gs_sred_params){l, n_stack}, &c, &mat, 1, r, log_h - l + 1, NULL, &sp, u, &err);
    double t1 = gs_now_s();
    if (st) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("stacked width %u: prove %.3f s\n", swidth, t1 - t0);
    /* the same steps, timed one by one */
    gs_sred_prover p;
    bb4_t coeffs[64], ev[2];
    double a = gs_now_s();
    st = gs_sred_prover_init(&p, eng, (gs_sred_params){l, n_stack}, &c, &mat, 1, r, log_h - l + 1, r[5], &err);
    double b = gs_now_s();
    st = st ? st : gs_sred_prover_round0(&p, coeffs, &err);
    double d = gs_now_s();
    st = st ? st : gs_sred_prover_fold_ple(&p, r[6], &err);
    double e = gs_now_s();
    for (uint32_t j = 0; j < n_stack && !st; j++) {
        st = gs_sred_prover_round(&p, gs_sums_host(ev), &err);
        st = st ? st : gs_sred_prover_fold(&p, gs_chal_value(r[7]), &err);
    }
    double f = gs_now_s();
    printf("init %.3f s, round 0 %.3f s, PLE fold + weights %.3f s, %u rounds %.3f s\n", b - a, d - b, e - d, n_stack,
           f - e);
    gs_sred_prover_free(&p);
    gs_stacking_proof_free(&sp);
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
    free(sl);
    free(rot);
    return 0;
}
