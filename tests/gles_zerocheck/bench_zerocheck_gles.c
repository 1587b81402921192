/* Benchmark (not a test) of the GLES zerocheck family on Plonky3's Keccak-f
 * AIR (keygen DAG, StdRng seed 42 inputs, l_skip 4, degree 3):
 *   bench_zerocheck_gles [perms=64] [threads=0]
 * times round 0 (D points + 2 cosets), the Z fold, the first multilinear
 * round (X = 1..3) and its fold on the GLES engine and on the CPU engine,
 * and checks that both give the same bits. Then it measures the other
 * round-0 design, GLSL generated from the DAG: compile + link + first
 * dispatch (llvmpipe compiles lazily) of straight-line shaders made of the
 * first K Keccak DAG nodes. Set MESA_SHADER_CACHE_DISABLE=true for cold
 * compiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove/zerocheck.h"
#include "air/keygen.h"
#include "airs/keccak.h"
#include "engine/read_later.h"
#include "engine/cpu/cpu_engine.h"
#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "engine/zerocheck_ops.h"
#include "glstark/airs.h"
#include "common/air_cdag.h"
#include "common/params.h"
#include "util/stdrng.h"
#include "util/clock.h"
#include "../util/splitmix.h"

/* Process CPU time (all threads, llvmpipe's included): wall times are
 * meaningless on a shared machine. */
static double cpu_s(void) { return (double)clock() / CLOCKS_PER_SEC; }

static bb4_t rnd4(uint64_t *s)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = bb_from_u64(splitmix64(s));
    return r;
}

#define CHECK(eng, call)                                                                            \
    do {                                                                                            \
        if (call) {                                                                                 \
            fprintf(stderr, "%s failed: %s\n", #call, (eng)->err.msg);                              \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

static gs_buf *up(gs_engine *e, const void *p, size_t bytes)
{
    gs_buf *b;
    CHECK(e, gs_buf_create(e, bytes, &b));
    CHECK(e, gs_buf_write(b, 0, p, bytes));
    return b;
}

/* Straight-line GLSL for nodes [0, K) of the DAG: base-field values, the
 * constraints among them summed (a lower bound on what a real generated
 * round-0 kernel holds). */
static char *gen_glsl(const gs_cdag *d, uint32_t K, size_t *bytes)
{
    size_t cap = (size_t)K * 64 + 4096, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len,
                            "#include \"babybear.glsl\"\n#include \"grid.glsl\"\n"
                            "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
                            "layout(std430, binding = 0) readonly buffer Src { uint src[]; };\n"
                            "layout(std430, binding = 1) buffer Out { uint o[]; };\n"
                            "void main() {\n uint id = gs_linear_id();\n if (id >= gs_count) return;\n"
                            " uint acc = 0u;\n");
    uint32_t ci = 0;
    for (uint32_t i = 0; i < K; i++) {
        const gs_cnode *n = &d->nodes[i];
        switch (n->kind) {
        case GS_CN_VAR_MAIN:
        case GS_CN_VAR_PREP:
            len += (size_t)snprintf(s + len, cap - len, " uint v%u = src[%uu * gs_count + id];\n", i, 2 * n->a + n->offset);
            break;
        case GS_CN_CONST: len += (size_t)snprintf(s + len, cap - len, " uint v%u = %uu;\n", i, n->value); break;
        case GS_CN_ADD: len += (size_t)snprintf(s + len, cap - len, " uint v%u = bb_add(v%u, v%u);\n", i, n->a, n->b); break;
        case GS_CN_SUB: len += (size_t)snprintf(s + len, cap - len, " uint v%u = bb_sub(v%u, v%u);\n", i, n->a, n->b); break;
        case GS_CN_MUL: len += (size_t)snprintf(s + len, cap - len, " uint v%u = bb_mul(v%u, v%u);\n", i, n->a, n->b); break;
        case GS_CN_NEG: len += (size_t)snprintf(s + len, cap - len, " uint v%u = bb_neg(v%u);\n", i, n->a); break;
        default: len += (size_t)snprintf(s + len, cap - len, " uint v%u = src[id];\n", i); break;
        }
        while (ci < d->n_constraints && d->constraint_idx[ci] == i) {
            len += (size_t)snprintf(s + len, cap - len, " acc = bb_add(acc, v%u);\n", i);
            ci++;
        }
        if (cap - len < 256) {
            cap *= 2;
            s = realloc(s, cap);
        }
    }
    len += (size_t)snprintf(s + len, cap - len, " o[id] = acc;\n}\n");
    *bytes = len;
    return s;
}

static void generated_compile_times(gs_engine *g, const gs_cdag *d)
{
    gs_gl_device *dev = gs_gles_device(g);
    uint32_t ks[] = {250, 500, 1000, 2000, 4000};
    uint32_t cols = 2 * GLSTARK_KECCAK_WIDTH, count = 256;
    gs_buf *src, *out;
    CHECK(g, gs_buf_create(g, (size_t)cols * count * 4, &src));
    CHECK(g, gs_buf_fill_u32(src, 0, (size_t)cols * count, bb_one()));
    CHECK(g, gs_buf_create(g, count * 4, &out));
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        uint32_t K = ks[i] < d->n_nodes ? ks[i] : d->n_nodes;
        size_t bytes;
        char *text = gen_glsl(d, K, &bytes);
        char name[64];
        snprintf(name, sizeof name, "gen_round0_%u.comp", K);
        gs_gl_program *p;
        double t0 = gs_now_s(), c0 = cpu_s();
        if (gs_gl_program_build(dev, name, text, NULL, &p, &g->err)) {
            printf("generated GLSL, %u nodes (%zu bytes): compile failed: %.300s\n", K, bytes, g->err.msg);
            free(text);
            continue;
        }
        double t1 = gs_now_s(), c1 = cpu_s();
        CHECK(g, gs_gles_bind(g, 0, src, 0, src->size));
        CHECK(g, gs_gles_bind(g, 1, out, 0, out->size));
        CHECK(g, gs_gl_dispatch_1d(dev, p, count, &g->err));
        CHECK(g, gs_engine_finish(g));
        double t2 = gs_now_s(), c2 = cpu_s();
        printf("generated GLSL, %u of %u nodes (%zu bytes): compile+link %.3f s (cpu %.3f s), first dispatch (JIT) "
               "%.3f s (cpu %.3f s)\n",
               K, d->n_nodes, bytes, t1 - t0, c1 - c0, t2 - t1, c2 - c1);
        free(text);
    }
    gs_buf_destroy(src);
    gs_buf_destroy(out);
}

static void on_log(void *user, glstark_log_level level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "gles zerocheck"))
        printf("  [log] %s\n", msg);
}

int main(int argc, char **argv)
{
    size_t perms = argc > 1 ? (size_t)atoll(argv[1]) : 64;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    int gen = argc > 3 ? atoi(argv[3]) : 1;
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
    size_t H = (size_t)1 << logh;
    bb_t *trace = calloc((size_t)GLSTARK_KECCAK_WIDTH * H, sizeof(bb_t));
    if (gs_keccak_trace_mont((const uint64_t (*)[25])inputs, perms, trace))
        return 1;
    free(inputs);
    gs_engine *engs[2];
    glstark_device_options opts;
    glstark_device_options_init(&opts);
    opts.log = on_log;
    if (gs_gles_engine_create_opts(&opts, &engs[0], &err) || gs_cpu_engine_create(threads, &engs[1], &err)) {
        fprintf(stderr, "engines: %s\n", err.msg);
        return 1;
    }
    printf("keccak-f: %zu permutations, 2^%u rows, DAG %u nodes / %u constraints; GLES on '%s'\n", perms, logh,
           dag.dag.n_nodes, dag.dag.n_constraints, gs_gles_device(engs[0])->renderer);
    const uint32_t l = 4, N = 16, n_cos = 2;
    size_t nx = H / N, n_pts = N + n_cos * N;
    uint32_t nt = 0;
    while (((size_t)1 << nt) < nx)
        nt++;
    uint64_t seed = 42;
    bb4_t *lp = malloc((dag.dag.n_constraints + 1) * sizeof(bb4_t)), *E = malloc(nx * sizeof(bb4_t));
    bb4_t lam = rnd4(&seed);
    lp[0] = bb4_one();
    for (uint32_t i = 1; i <= dag.dag.n_constraints; i++)
        lp[i] = bb4_mul(lp[i - 1], lam);
    for (size_t i = 0; i < nx; i++)
        E[i] = rnd4(&seed);
    bb4_t lw[16], r = rnd4(&seed);
    for (int k = 0; k < 16; k++)
        lw[k] = rnd4(&seed);
    gs_zc_weights w = {lp, rnd4(&seed), NULL, bb_one()};
    uint32_t width = GLSTARK_KECCAK_WIDTH;
    size_t ncols = 3 + 2 * (size_t)width;
    bb4_t *o[2][2];
    uint32_t *tabs[2];
    const char *names[2] = {"gles", "cpu"};
    /* pass 0: the GLES engine cold (programs compiled and JIT-ed on first
     * use), pass 1: GLES warm, pass 2: CPU */
    for (int pass = 0; pass < 3; pass++) {
        int k = pass == 2;
        gs_engine *e = engs[k];
        if (pass == 1) {
            free(o[0][0]), free(o[0][1]), free(tabs[0]);
        }
        gs_buf *m = up(e, trace, (size_t)width * H * 4), *eb = up(e, E, nx * 16), *tb, *eqb;
        const gs_buf *parts[1] = {m};
        gs_zc_trace tr = {&dag.dag, logh, 1, parts, &width, NULL, 0, NULL};
        o[k][0] = malloc(3 * n_pts * sizeof(bb4_t));
        o[k][1] = malloc(9 * sizeof(bb4_t));
        CHECK(e, gs_engine_finish(e));
        double t0 = gs_now_s(), c0 = cpu_s();
        CHECK(e, e->zerocheck->round0(e, &tr, l, n_cos, 1, eb, &w, o[k][0]));
        CHECK(e, gs_engine_read_flush(e));
        double t1 = gs_now_s(), c1 = cpu_s();
        CHECK(e, gs_buf_create(e, ncols * nx * 16, &tb));
        CHECK(e, e->zerocheck->fold_ple(e, &tr, l, lw, tb));
        CHECK(e, gs_engine_finish(e));
        double t2 = gs_now_s();
        eqb = up(e, E, nx / 2 * 16);
        CHECK(e, gs_engine_finish(e));
        double t3 = gs_now_s(), c3 = cpu_s();
        CHECK(e, e->zerocheck->mle_round(e, &tr, tb, nx, nx, eqb, 3, &w, o[k][1]));
        CHECK(e, gs_engine_read_flush(e));
        double t4 = gs_now_s(), c4 = cpu_s();
        CHECK(e, e->zerocheck->fold(e, tb, ncols, nx, nx, r));
        CHECK(e, gs_engine_finish(e));
        double t5 = gs_now_s();
        tabs[k] = malloc(ncols * nx * 16);
        CHECK(e, gs_buf_read(tb, 0, tabs[k], ncols * nx * 16));
        printf("%s%s: round0 %.3f s (cpu time %.3f s), fold_ple %.3f s, mle round 1 (%zu pairs x 3) %.3f s (cpu "
               "time %.3f s), fold %.3f s\n",
               names[k], pass == 0 ? " (cold)" : "", t1 - t0, c1 - c0, t2 - t1, nx / 2, t4 - t3, c4 - c3, t5 - t4);
        gs_buf_destroy(m), gs_buf_destroy(eb), gs_buf_destroy(tb), gs_buf_destroy(eqb);
    }
    int same0 = !memcmp(o[0][0], o[1][0], 3 * n_pts * sizeof(bb4_t));
    int same1 = !memcmp(o[0][1], o[1][1], 9 * sizeof(bb4_t));
    int same2 = !memcmp(tabs[0], tabs[1], ncols * nx * 16);
    printf("bit-identical: round0 %s, mle round %s, folded tables %s\n", same0 ? "yes" : "NO", same1 ? "yes" : "NO",
           same2 ? "yes" : "NO");
    if (gen)
        generated_compile_times(engs[0], &dag.dag);
    for (int k = 0; k < 2; k++) {
        free(o[k][0]), free(o[k][1]), free(tabs[k]);
        gs_engine_destroy(engs[k]);
    }
    free(lp), free(E), free(trace);
    gs_cdag_owned_free(&dag);
    gs_multi_pk_free(&pk);
    glstark_air_destroy(air);
    return same0 && same1 && same2 ? 0 : 1;
}
