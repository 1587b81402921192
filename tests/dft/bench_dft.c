/* Benchmark (meson benchmark 'dft'): DFT throughput on the CPU engine and the
 * main-trace commit shape of keccakf (2^21 x 42 stacked matrix, l_skip 4,
 * log_blowup 1: one 2633-column trace of 2^15 rows), split into
 * rs_code_matrix and merkle_tree.
 *
 * Usage: bench_dft [threads] [trace_log_height] [skip_dft]  (defaults: all cores, 15, 0)
 * A smaller trace_log_height scales the commit down (stacked width shrinks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/dft_ops.h"
#include "common/stacking.h"
#include "engine/hash_ops.h"
#include "util/clock.h"
#include "../util/splitmix.h"

/* CPU seconds of all threads: with other work on the machine, wall time
 * is noisy but this is not. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(gs_engine *eng, const char *what)
{
    fprintf(stderr, "bench_dft: %s failed: %s\n", what, eng->err.msg);
    return 1;
}

static int bench_dft(gs_engine *eng, unsigned log_n, size_t ncols)
{
    size_t n = (size_t)1 << log_n, total = n * ncols;
    gs_buf *b = NULL;
    if (gs_buf_create(eng, total * sizeof(bb_t), &b))
        return fail(eng, "buffer");
    bb_t *h = b->host; /* CPU engine: fill in place */
    uint64_t s = 1;
    for (size_t i = 0; i < total; i++)
        h[i] = (bb_t)(splitmix64(&s) % BB_P);
    gs_dft_cols c = {b, 0, n, ncols, log_n, 1};
    double best = 1e30, best_cpu = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = gs_now_s(), c0 = cpu_s();
        if (gs_dft(eng, &c, rep & 1 ? GS_DFT_INVERSE : GS_DFT_FORWARD))
            return fail(eng, "dft");
        double t = gs_now_s() - t0, ct = cpu_s() - c0;
        if (t < best)
            best = t;
        if (ct < best_cpu)
            best_cpu = ct;
    }
    printf("dft 2^%-2u x %4zu cols: %8.2f ms  %7.1f Melem/s  %7.1f MB/s (elements x 4 B / time)  cpu %8.2f ms\n",
           log_n, ncols, best * 1e3, (double)total / best / 1e6, (double)total * 4 / best / 1e6, best_cpu * 1e3);
    gs_buf_destroy(b);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    unsigned trace_log = argc > 2 ? (unsigned)atoi(argv[2]) : 15;
    gs_engine *eng = NULL;
    gs_error err;
    if (gs_cpu_engine_create(threads, &eng, &err)) {
        fprintf(stderr, "bench_dft: %s\n", err.msg);
        return 1;
    }
    printf("cpu engine, %u threads\n", ((gs_cpu_state *)eng->impl)->threads);
    { /* reference: host copy bandwidth (read + write counted once, as for the DFT) */
        size_t bytes = (size_t)64 << 20;
        char *a = malloc(bytes), *b = malloc(bytes);
        if (!a || !b)
            return 1;
        memset(a, 1, bytes);
        memset(b, 2, bytes);
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = gs_now_s();
            memcpy(b, a, bytes);
            double t = gs_now_s() - t0;
            best = t < best ? t : best;
        }
        printf("memcpy 64 MiB: %.1f MB/s (one thread)\n", (double)bytes / best / 1e6 + (double)(b[7] - 1));
        free(a);
        free(b);
    }
    struct {
        unsigned log_n;
        size_t ncols;
    } sizes[] = {{10, 4096}, {16, 64}, {20, 16}, {22, 4}, {22, 1}, {24, 1}};
    int skip_dft = argc > 3 && atoi(argv[3]);
    for (size_t i = 0; !skip_dft && i < sizeof sizes / sizeof sizes[0]; i++)
        if (bench_dft(eng, sizes[i].log_n, sizes[i].ncols))
            return 1;

    /* keccakf main trace commit shape */
    const unsigned l_skip = 4, n_stack = 17, log_blowup = 1, log_k = 4;
    gs_stack_trace_shape sh = {2633, trace_log};
    gs_stack_layout lay;
    if (gs_stack_layout_build(l_skip, n_stack, &sh, 1, &lay, &err)) {
        fprintf(stderr, "bench_dft: %s\n", err.msg);
        return 1;
    }
    size_t tn = (size_t)sh.width << sh.log_height, N = (size_t)1 << (l_skip + n_stack + log_blowup);
    gs_buf *tb = NULL, *cw = NULL;
    if (gs_buf_create(eng, tn * sizeof(bb_t), &tb) || gs_buf_create(eng, N * lay.width * sizeof(bb_t), &cw))
        return fail(eng, "commit buffers");
    bb_t *h = tb->host;
    uint64_t s = 7;
    for (size_t i = 0; i < tn; i++)
        h[i] = (bb_t)(splitmix64(&s) % BB_P);
    gs_trace_ref ref = {tb, 0};
    double t0 = gs_now_s(), c0 = cpu_s();
    if (gs_rs_code_matrix(eng, &lay, &ref, log_blowup, 0, lay.width, cw, 0))
        return fail(eng, "rs_code_matrix");
    double t_rs = gs_now_s() - t0, c_rs = cpu_s() - c0;
    printf("stacked commit: trace 2633 x 2^%u -> stacked 2^%u x %u, codeword 2^%u x %u (%.0f MiB)\n", trace_log,
           l_skip + n_stack, lay.width, l_skip + n_stack + log_blowup, lay.width,
           (double)N * lay.width * 4 / 1048576.0);
    printf("  rs_code_matrix: %8.1f ms  (cpu %8.1f ms)\n", t_rs * 1e3, c_rs * 1e3);
    gs_merkle_dev tree;
    memset(&tree, 0, sizeof tree);
    t0 = gs_now_s();
    c0 = cpu_s();
    if (gs_engine_merkle_commit(eng, cw, 0, N, lay.width, 1, log_k, &tree))
        return fail(eng, "merkle_tree");
    double t_mt = gs_now_s() - t0, c_mt = cpu_s() - c0;
    printf("  merkle_tree:    %8.1f ms  (cpu %8.1f ms)\n", t_mt * 1e3, c_mt * 1e3);
    printf("  total:          %8.1f ms\n", (t_rs + t_mt) * 1e3);
    gs_merkle_dev_release(&tree);
    gs_buf_destroy(cw);
    gs_buf_destroy(tb);
    gs_stack_layout_free(&lay);
    gs_engine_destroy(eng);
    return 0;
}
