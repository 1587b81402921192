/* Field arithmetic throughput, GPU (GLES) vs CPU: base-field and degree-4
 * extension products, the DFT's butterfly, and the cost of one dispatch +
 * sync. Prints medians.
 *
 *   bench_field [--n LOG2_ELEMENTS] [--reps R] [--floor]
 *
 * GPU throughput is measured with chains of dependent operations per element
 * (x = x * y, K times; for the butterfly four independent chains, so the
 * figure is the issue rate rather than one chain's latency); the rate is the
 * slope between a short and a long chain, so loads, stores, dispatch and sync
 * cancel out. From the butterfly rate it prints the least time a 2^22 x 42
 * DFT's butterflies take with this arithmetic (issue 8's DFT target is
 * measured against that size). The CPU number is the C reference (src/field)
 * on one thread. The GLSTARK_* environment variables apply. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "field/field_batch.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_u64);
    return v[n / 2];
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define CHECK(call)                                                                               \
    do {                                                                                          \
        glstark_status st_ = (call);                                                              \
        if (st_) {                                                                                \
            fprintf(stderr, "bench_field: %s: %s: %s\n", #call, glstark_status_name(st_), eng->err.msg); \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

/* One timed GPU run of the chain: dispatch + glFinish, wall clock. */
static glstark_status gpu_run(gs_engine *eng, int op, gs_buf *a, gs_buf *b, gs_buf *o, size_t n, uint32_t k,
                              uint64_t *ns)
{
    glstark_status st = gs_engine_finish(eng);
    uint64_t t0 = gs_monotonic_ns();
    if (!st)
        st = gs_gles_field_op(eng, op, a, b, o, n, k);
    if (!st)
        st = gs_engine_finish(eng);
    *ns = gs_monotonic_ns() - t0;
    return st;
}

/* One operation (per_step: operations per element and chain step, the
 * butterfly op running four independent chains; base_muls: base-field
 * products per operation). */
typedef struct field_case {
    int op;
    const char *name, *unit;
    double per_step, base_muls;
} field_case;

/* The bench's device buffers a, b, out (n 16-byte elements) and host copies
 * ha, hb (the inputs), ho and hw (scratch). */
typedef struct bench_bufs {
    gs_buf *a, *b, *out;
    uint32_t *ha, *hb, *ho, *hw;
    size_t n;
} bench_bufs;

/* Times fc on the GPU and on the CPU, checks the GPU's words against the
 * CPU's, prints a line; *rate receives the GPU rate (operations/s). */
static int bench_case(gs_engine *eng, const field_case *fc, const bench_bufs *bb, int reps, double *rate)
{
    gs_buf *a = bb->a, *b = bb->b, *out = bb->out;
    uint32_t *ha = bb->ha, *hb = bb->hb, *ho = bb->ho, *hw = bb->hw;
    size_t n = bb->n;
    int op = fc->op;
    /* Rate from the slope between a short chain K1 and a long one K2,
     * so loads, stores, dispatch and sync cancel out. K2 grows until it
     * adds at least 200 ms over K1. */
    const uint32_t k1 = 4;
    uint64_t ns1 = 0, ns2 = 0;
    CHECK(gpu_run(eng, op, a, b, out, n, k1, &ns1)); /* warm up: compiles the program */
    CHECK(gpu_run(eng, op, a, b, out, n, k1, &ns1));
    uint32_t k = 32;
    CHECK(gpu_run(eng, op, a, b, out, n, k, &ns2));
    while (ns2 < ns1 + 200000000ull && k < (1u << 20)) {
        k *= 2;
        CHECK(gpu_run(eng, op, a, b, out, n, k, &ns2));
    }
    uint64_t t[101], t2[101];
    for (int r = 0; r < reps; r++) {
        CHECK(gpu_run(eng, op, a, b, out, n, k1, &t[r]));
        CHECK(gpu_run(eng, op, a, b, out, n, k, &t2[r]));
    }
    uint64_t gpu_k = median(t, reps), gpu_2k = median(t2, reps);
    uint64_t gpu_ns = gpu_2k > gpu_k ? gpu_2k - gpu_k : 1;
    /* Check the last GPU result against the CPU on a prefix. */
    size_t check = n < 4096 ? n : 4096;
    unsigned w = gs_field_op_words_a(op);
    CHECK(gs_buf_read(out, 0, ho, check * w * 4));
    gs_field_batch_cpu(op, ha, hb, hw, check, k);
    if (memcmp(ho, hw, check * w * 4) != 0) {
        fprintf(stderr, "bench_field: GPU %s result differs from the CPU reference\n", fc->name);
        return 1;
    }
    double gpu_rate = (double)n * (k - k1) * fc->per_step / ((double)gpu_ns * 1e-9);
    /* CPU: same chain on a slice sized to take ~100 ms, one thread. */
    size_t cn = n;
    uint32_t ck = 1;
    for (;;) {
        uint64_t t0 = gs_monotonic_ns();
        gs_field_batch_cpu(op, ha, hb, hw, cn, ck);
        if (gs_monotonic_ns() - t0 > 50000000ull || ck >= k)
            break;
        ck *= 2;
    }
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = gs_monotonic_ns();
        gs_field_batch_cpu(op, ha, hb, hw, cn, ck);
        t[r] = gs_monotonic_ns() - t0;
    }
    uint64_t cpu_ns = median(t, reps);
    double cpu_rate = (double)cn * ck * fc->per_step / ((double)cpu_ns * 1e-9);
    *rate = gpu_rate;
    printf("%-9s GPU: %10.3f G %s/s (%8.3f G base mul/s; chains %u/%u: %.2f/%.2f ms)   CPU 1 thread: %8.3f G "
           "%s/s   GPU/CPU %.1fx\n",
           fc->name, gpu_rate * 1e-9, fc->unit, gpu_rate * fc->base_muls * 1e-9, k1, k,
           (double)gpu_k * 1e-6, (double)gpu_2k * 1e-6, cpu_rate * 1e-9, fc->unit, gpu_rate / cpu_rate);
    return 0;
}

/* What the butterflies alone cost a transform: a 2^L-point DFT is L
 * layers of 2^(L-1) butterflies per column. At the rate above, with no
 * load, store, address or barrier, this is the least time a DFT that
 * does every butterfly with this field arithmetic can take on this
 * device; leaving out the products by 1 (about a tenth) is the only
 * saving the count ignores. Issue 8 measures the DFT against the copy
 * rate: docs/performance.md, 'DFT and buffer copies' (2026-11-27). */
static void print_dft_floor(double butterfly_rate)
{
    const unsigned dl = 22, dcols = 42;
    double bflies = (double)dl * (double)(1u << (dl - 1)) * dcols;
    printf("DFT arithmetic floor: 2^%u x %u (%.2f G butterflies) >= %.3f ms at the butterfly rate; "
           "data %.1f MB each way\n",
           dl, dcols, bflies * 1e-9, bflies / butterfly_rate * 1e3, (double)(1u << dl) * dcols * 4 * 1e-6);
}

/* One tiny dispatch + glFinish, and a dispatch without a sync. */
static int bench_dispatch(gs_engine *eng, const bench_bufs *bb, int reps)
{
    gs_buf *a = bb->a, *b = bb->b, *out = bb->out;
    uint32_t *ho = bb->ho;
    uint64_t t[101];
    const int inner = 50;
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = gs_monotonic_ns();
        for (int i = 0; i < inner; i++) {
            CHECK(gs_gles_field_op(eng, GS_FOP_ADD, a, b, out, 64, 0));
            CHECK(gs_engine_finish(eng));
        }
        t[r] = (gs_monotonic_ns() - t0) / inner;
    }
    uint64_t sync_ns = median(t, reps);
    for (int r = 0; r < reps; r++) {
        CHECK(gs_engine_finish(eng));
        uint64_t t0 = gs_monotonic_ns();
        for (int i = 0; i < inner; i++)
            CHECK(gs_gles_field_op(eng, GS_FOP_ADD, a, b, out, 64, 0));
        CHECK(gs_engine_finish(eng));
        t[r] = (gs_monotonic_ns() - t0) / inner;
    }
    uint64_t nosync_ns = median(t, reps);
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = gs_monotonic_ns();
        for (int i = 0; i < inner; i++) {
            CHECK(gs_gles_field_op(eng, GS_FOP_ADD, a, b, out, 64, 0));
            CHECK(gs_buf_read(out, 0, ho, 256));
        }
        t[r] = (gs_monotonic_ns() - t0) / inner;
    }
    uint64_t read_ns = median(t, reps);
    printf("dispatch (64 elements) + glFinish: %.1f us | dispatch + 256-byte map read: %.1f us | dispatch "
           "alone, back to back: %.1f us\n",
           (double)sync_ns * 1e-3, (double)read_ns * 1e-3, (double)nosync_ns * 1e-3);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned log_n = 20;
    int reps = 5;
    glstark_device_options o;
    glstark_device_options_init(&o);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) log_n = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--floor")) o.limits_floor = 1;
        else {
            fprintf(stderr, "usage: bench_field [--n LOG2_ELEMENTS] [--reps R] [--floor]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 101 || log_n < 10 || log_n > 26) {
        fprintf(stderr, "bench_field: --reps 1..101, --n 10..26\n");
        return 2;
    }
    size_t n = (size_t)1 << log_n;
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    if (gs_gles_engine_create_opts(&o, &eng, &err)) {
        fprintf(stderr, "bench_field: %s\n", err.msg);
        return 1;
    }
    gs_gl_device *dev = gs_gles_device(eng);
    printf("device: %s | %s | %s%s\n", dev->platform_path, dev->renderer, dev->gl_version,
           dev->caps.floor_mode ? " | floor mode" : "");
    printf("elements: 2^%u, repetitions: %d (medians)\n", log_n, reps);

    uint32_t *ha = malloc(n * 16), *hb = malloc(n * 16), *ho = malloc(n * 16), *hw = malloc(n * 16);
    if (!ha || !hb || !ho || !hw) {
        fprintf(stderr, "bench_field: out of host memory\n");
        return 1;
    }
    uint64_t seed = 42;
    for (size_t i = 0; i < 4 * n; i++) {
        ha[i] = bb_from_canonical((uint32_t)(splitmix(&seed) % BB_P));
        hb[i] = bb_from_canonical((uint32_t)(splitmix(&seed) % BB_P));
    }
    gs_buf *a, *b, *out;
    CHECK(gs_buf_create(eng, n * 16, &a));
    CHECK(gs_buf_create(eng, n * 16, &b));
    CHECK(gs_buf_create(eng, n * 16, &out));
    CHECK(gs_buf_write(a, 0, ha, n * 16));
    CHECK(gs_buf_write(b, 0, hb, n * 16));

    static const field_case cases[] = {
        {GS_FOP_MUL_CHAIN, "base mul", "mul", 1.0, 1.0},
        {GS_FOP4_MUL_CHAIN, "ext4 mul", "mul", 1.0, 19.0},       /* 16 products + 3 by W */
        {GS_FOP_BUTTERFLY_CHAIN, "butterfly", "bfly", 4.0, 1.0}, /* a product, an add, a subtract */
    };
    const bench_bufs bb = {a, b, out, ha, hb, ho, hw, n};
    double butterfly_rate = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double rate;
        if (bench_case(eng, &cases[c], &bb, reps, &rate))
            return 1;
        if (cases[c].op == GS_FOP_BUTTERFLY_CHAIN)
            butterfly_rate = rate;
    }
    print_dft_floor(butterfly_rate);
    if (bench_dispatch(eng, &bb, reps))
        return 1;
    printf("host syncs in this run: %" PRIu64 "\n", eng->host_syncs);
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    gs_buf_destroy(out);
    gs_engine_destroy(eng);
    free(ha);
    free(hb);
    free(ho);
    free(hw);
    return 0;
}
