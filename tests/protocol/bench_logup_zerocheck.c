/* Benchmark (not a test): the LogUp+zerocheck stage (T4..T13)
 *  - on Plonky3's Keccak-f AIR (keygen DAG, StdRng seed 42 inputs):
 *      bench_logup_zerocheck keccak [perms=1024] [threads=0]
 *  - or on a synthetic AIR of Keccak-like shape: W columns, degree-2 and
 *    degree-3 product constraints (all satisfied), need_rot, 2^log_h rows:
 *      bench_logup_zerocheck [log_h=15] [width=2633] [threads=0]
 * l_skip 4, D 3 (the app parameters). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "airs/keccak.h"
#include "engine/cpu/cpu_engine.h"
#include "glstark/airs.h"
#include "common/air_cdag.h"
#include "prove/logup_zerocheck.h"
#include "common/params.h"
#include "util/stdrng.h"
#include "util/clock.h"
#include "../util/splitmix.h"

static void fs_obs(void *c, bb_t v) { (void)c, (void)v; }
static bb_t fs_smp(void *c) { return bb_from_u64(splitmix64((uint64_t *)c)); }

static int keccak(size_t perms, unsigned threads)
{
    gs_error err;
    gs_system_params params;
    glstark_air *air;
    gs_multi_pk pk;
    gs_cdag_owned dag;
    if (gs_app_params_with_100_bits_security(21, &params, &err) || glstark_keccak_air(&air) ||
        gs_keygen(&params, &air, 1, NULL, &pk, &err) || gs_cdag_from_vk(&pk.vk.per_air[0], &dag, &err)) {
        fprintf(stderr, "keygen failed: %s\n", err.msg);
        return 1;
    }
    uint64_t (*inputs)[25] = malloc(perms * sizeof(*inputs));
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 42);
    for (size_t p = 0; p < perms; p++)
        for (int i = 0; i < 25; i++)
            inputs[p][i] = gs_stdrng_next_u64(&rng);
    size_t h = glstark_keccak_trace_height(perms);
    uint32_t logh = 0;
    while (((size_t)1 << logh) < h)
        logh++;
    gs_engine *eng;
    gs_buf *m;
    if (gs_cpu_engine_create(threads, &eng, &err) ||
        gs_buf_create(eng, (size_t)GLSTARK_KECCAK_WIDTH * h * sizeof(bb_t), &m) ||
        gs_keccak_trace_mont((const uint64_t (*)[25])inputs, perms, (bb_t *)m->host))
        return 1;
    free(inputs);
    const gs_buf *parts[1] = {m};
    uint32_t w[1] = {GLSTARK_KECCAK_WIDTH};
    gs_zc_trace tr = {&dag.dag, logh, 1, parts, w, NULL, 0, NULL};
    printf("keccak-f: %zu permutations, 2^%u rows, DAG %u nodes / %u constraints, %u threads\n", perms, logh,
           dag.dag.n_nodes, dag.dag.n_constraints, ((gs_cpu_state *)eng->impl)->threads);
    for (int check = 1; check >= 0; check--) {
        uint64_t fseed = 7;
        gs_fs fs = {&fseed, fs_obs, fs_smp, NULL};
        gs_lz_proof pf;
        bb4_t r[64];
        double t0 = gs_now_s();
        clock_t c0 = clock();
        glstark_status st = gs_lz_prove(eng, &fs, &tr, 1, 4, 3, check, &pf, r, NULL, &err);
        double t1 = gs_now_s();
        printf("logup+zerocheck prove (row check %s): %s, wall %.3f s, cpu %.3f s\n", check ? "on" : "off",
               st ? err.msg : "ok", t1 - t0, (double)(clock() - c0) / CLOCKS_PER_SEC);
        if (!st)
            gs_lz_proof_free(&pf);
    }
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
    gs_cdag_owned_free(&dag);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(air);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "keccak") == 0)
        return keccak(argc > 2 ? (size_t)atoll(argv[2]) : 1024, argc > 3 ? (unsigned)atoi(argv[3]) : 0);
    uint32_t log_h = argc > 1 ? (uint32_t)atoi(argv[1]) : 15;
    uint32_t W = argc > 2 ? (uint32_t)atoi(argv[2]) : 2633;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    size_t H = (size_t)1 << log_h;
    uint64_t seed = 42;
    printf("synthetic AIR: 2^%u rows, %u columns, seed %llu\n", log_h, W, (unsigned long long)seed);
    /* columns: the first third free; each later column c is a product of two
     * (deg 2) or three (deg 3) earlier ones, checked by one constraint */
    uint32_t nfree = W / 3;
    size_t cap = 8 * (size_t)W + 16;
    gs_cnode *nodes = calloc(cap, sizeof(gs_cnode));
    uint32_t *cons = calloc(W, sizeof(uint32_t));
    uint32_t (*src)[3] = calloc(W, sizeof(*src));
    uint32_t nn = 0, nc = 0;
    for (uint32_t c = 0; c < W; c++) {
        nodes[nn++] = (gs_cnode){GS_CN_VAR_MAIN, 0, 0, c, 0, 0};
    }
    /* one next-row variable so the AIR needs rotation */
    nodes[nn++] = (gs_cnode){GS_CN_VAR_MAIN, 1, 0, 0, 0, 0};
    for (uint32_t c = nfree; c < W; c++) {
        int deg3 = c % 2;
        for (int k = 0; k < 3; k++)
            src[c][k] = (uint32_t)(splitmix64(&seed) % c);
        uint32_t m = nn;
        nodes[nn++] = (gs_cnode){GS_CN_MUL, 0, 0, src[c][0], src[c][1], 0};
        if (deg3) {
            nodes[nn] = (gs_cnode){GS_CN_MUL, 0, 0, m, src[c][2], 0};
            m = nn++;
        }
        nodes[nn] = (gs_cnode){GS_CN_SUB, 0, 0, m, c, 0};
        cons[nc++] = nn++;
    }
    gs_cdag dag = {nodes, nn, cons, nc, NULL, 0, 3, 1, 0, 0};
    gs_engine *eng;
    gs_error err;
    if (gs_cpu_engine_create(threads, &eng, &err))
        return 1;
    gs_buf *m;
    if (gs_buf_create(eng, (size_t)W * H * sizeof(bb_t), &m))
        return 1;
    bb_t *t = m->host;
    for (uint32_t c = 0; c < W; c++)
        for (size_t i = 0; i < H; i++) {
            bb_t v;
            if (c < nfree)
                v = bb_from_u64(splitmix64(&seed));
            else {
                v = bb_mul(t[(size_t)src[c][0] * H + i], t[(size_t)src[c][1] * H + i]);
                if (c % 2)
                    v = bb_mul(v, t[(size_t)src[c][2] * H + i]);
            }
            t[(size_t)c * H + i] = v;
        }
    const gs_buf *parts[1] = {m};
    uint32_t widths[1] = {W};
    gs_zc_trace tr = {&dag, log_h, 1, parts, widths, NULL, 0, NULL};
    printf("DAG: %u nodes, %u constraints; engine threads %u\n", nn, nc, ((gs_cpu_state *)eng->impl)->threads);
    for (int check = 1; check >= 0; check--) {
        uint64_t fseed = 7;
        gs_fs fs = {&fseed, fs_obs, fs_smp, NULL};
        gs_lz_proof pf;
        bb4_t r[64];
        double t0 = gs_now_s();
        glstark_status st = gs_lz_prove(eng, &fs, &tr, 1, 4, 3, check, &pf, r, NULL, &err);
        double t1 = gs_now_s();
        printf("logup+zerocheck prove (row check %s): %s, %.3f s\n", check ? "on" : "off", st ? err.msg : "ok", t1 - t0);
        if (!st)
            gs_lz_proof_free(&pf);
    }
    gs_buf_destroy(m);
    gs_engine_destroy(eng);
    free(nodes), free(cons), free(src);
    return 0;
}
