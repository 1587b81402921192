/* Benchmark (meson benchmark 'commit_bench', not a test) of the commitment
 * building blocks on one engine, medians of --reps runs, each ended by an
 * engine finish so GPU work is counted:
 *   - device copy bandwidth (buffer to buffer), the yardstick for DFT bytes/s;
 *   - GLES: what first use of fresh GPU memory costs, host and GPU side;
 *   - batched forward DFTs: elements/s and bytes/s (elements x 4 B / time);
 *   - Poseidon2 permutations/s through a Merkle commit of a 2^h x 8 matrix
 *     (one permutation per leaf plus one per compression);
 *   - the keccakf main-trace commit: a 2633-column trace of 2^15 rows stacked
 *     to 2^21 x 42 (l_skip 4, n_stack 17), log_blowup 1, k_whir 4, split into
 *     rs_code_matrix and merkle_tree.
 * Usage: bench_commit [--engine cpu|gles] [--reps N] [--trace-log L] [--no-dft]
 *                     [--no-commit] [--no-warmup] [--threads T] [--idle-ms M]
 * (--no-warmup skips the untimed first commit; --idle-ms leaves the device
 * idle for M ms before each commit, as a proof's host-bound trace upload does.) The commit also reports the
 * process CPU time (all threads, llvmpipe's included), steadier than wall
 * time on a shared machine.
 * The GLES engine takes the usual GLSTARK_* environment overrides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine/dft_ops.h"
#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "engine/hash_ops.h"
#include "common/stacking.h"
#include "util/clock.h"
#include "../util/splitmix.h"

#define MAX_REPS 32

/* CPU seconds used by this process, all threads (llvmpipe's included): on a
 * shared machine this is steadier than wall time. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int fail(gs_engine *eng, const char *what)
{
    fprintf(stderr, "bench_commit: %s failed: %s\n", what, eng->err.msg);
    return 1;
}

/* A buffer of `words` random field elements, generated in slices. */
static gs_buf *random_buf(gs_engine *eng, size_t words, uint64_t seed)
{
    gs_buf *b = NULL;
    if (gs_buf_create(eng, words * 4, &b))
        return NULL;
    const size_t slice = (size_t)1 << 22;
    bb_t *h = malloc(slice * 4);
    uint64_t s = seed;
    for (size_t o = 0; h && o < words; o += slice) {
        size_t n = words - o < slice ? words - o : slice;
        for (size_t i = 0; i < n; i++)
            h[i] = (bb_t)(splitmix64(&s) % BB_P);
        if (gs_buf_write(b, o * 4, h, n * 4)) {
            free(h);
            gs_buf_destroy(b);
            return NULL;
        }
    }
    free(h);
    return b;
}

static int bench_copy(gs_engine *eng, int is_gles, int reps, double *copy_bps)
{
    size_t bytes = (size_t)256 << 20;
    gs_buf *a = NULL, *b = NULL;
    if (gs_buf_create(eng, bytes, &a) || gs_buf_create(eng, bytes, &b))
        return fail(eng, "copy buffers");
    gs_buf_fill_u32(a, 0, bytes / 4, 1);
    gs_engine_finish(eng);
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double t0 = gs_now_s();
        if (gs_buf_copy(b, 0, a, 0, bytes) || gs_engine_finish(eng))
            return fail(eng, "copy");
        t[r] = gs_now_s() - t0;
    }
    double m = median(t, reps);
    /* gs_buf_copy: on the GLES engine the copy kernel on hardware GPUs,
     * glCopyBufferSubData on software renderers (GLSTARK_COPY chooses). */
    const char *how = "memcpy";
    if (is_gles)
        how = gs_gles_device(eng)->caps.shader_copy ? "the engine's copy kernel" : "glCopyBufferSubData";
    printf("copy 256 MiB buffer->buffer (gs_buf_copy: %s): %8.2f ms  %7.2f GB/s (read+write %7.2f GB/s)\n", how,
           m * 1e3, bytes / m / 1e9, 2 * bytes / m / 1e9);
    *copy_bps = bytes / m;
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    return 0;
}

/* GLES only: `want` bytes, or the most one binding holds (16-byte units). */
static size_t binding_sized(const gs_gl_device *dev, size_t want)
{
    return want <= dev->caps.max_binding_bytes ? want : (size_t)dev->caps.max_binding_bytes & ~(size_t)15;
}

/* GLES only: a benchmark's own kernel, or NULL after saying why. */
static gs_gl_program *bench_kernel(gs_gl_device *dev, const char *name, const char *src)
{
    gs_gl_program *prog = NULL;
    gs_error err;
    if (gs_gl_program_build(dev, name, src, NULL, &prog, &err)) {
        fprintf(stderr, "bench_commit: %s: %s\n", name, err.msg);
        return NULL;
    }
    return prog;
}

/* GLES only: what first use of new GPU memory costs (the keccakf proof's
 * commit runs 3x slower than this benchmark's repeated commits). For fresh
 * 512 MiB buffers (raw GL, not the engine's pool): the allocation call, the
 * host side of the first fill dispatch (bind + dispatch calls), the GPU side
 * (glFinish), a second fill of the same buffer, and the same for a buffer
 * allocated right after deleting one of the same size, and for immutable
 * storage (GL_EXT_buffer_storage) with the flags the engine may use. */
static const char *fill_kernel =
    "#include \"grid.glsl\"\n"
    "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
    "layout(std430, binding = 0) writeonly buffer Out { uvec4 o[]; };\n"
    "void main()\n"
    "{\n"
    "    uint id = gs_linear_id();\n"
    "    if (id >= gs_count)\n"
    "        return;\n"
    "    o[id] = uvec4(id);\n"
    "}\n";

static int bench_first_touch(gs_engine *eng)
{
    gs_gl_device *dev = gs_gles_device(eng);
    size_t bytes = binding_sized(dev, (size_t)512 << 20);
    gs_gl_program *prog = bench_kernel(dev, "bench_fill.comp", fill_kernel);
    gs_error err;
    if (!prog)
        return 1;
    static const char *const kinds[] = {"fresh", "after a delete", "immutable", "immutable, dynamic storage",
                                        "immutable, map read"};
    static const GLbitfield flags[] = {0, 0, 0, GL_DYNAMIC_STORAGE_BIT_EXT, GL_MAP_READ_BIT};
    for (int kind = 0; kind < 5; kind++) {
        if (kind >= 2 && !dev->BufferStorage)
            break;
        GLuint b = 0;
        gs_engine_finish(eng);
        double t0 = gs_now_s();
        glGenBuffers(1, &b);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
        if (kind >= 2)
            dev->BufferStorage(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, flags[kind]);
        else
            glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_COPY);
        double t1 = gs_now_s();
        double fill_host[2], fill_gpu[2];
        for (int pass = 0; pass < 2; pass++) {
            double a = gs_now_s();
            if (gs_gl_bind_range(dev, 0, b, 0, bytes, &err) ||
                gs_gl_dispatch_1d(dev, prog, bytes / 16, &eng->err)) {
                glDeleteBuffers(1, &b);
                return fail(eng, "first-touch fill");
            }
            double m = gs_now_s();
            glFinish();
            fill_host[pass] = m - a;
            fill_gpu[pass] = gs_now_s() - m;
        }
        printf("first touch %zu MiB (%s): allocate %.2f ms; first fill: calls %.2f ms + GPU %.2f ms (%.1f GB/s); "
               "second fill: calls %.2f + GPU %.2f ms (%.1f GB/s)\n",
               bytes >> 20, kinds[kind], (t1 - t0) * 1e3, fill_host[0] * 1e3, fill_gpu[0] * 1e3,
               bytes / (fill_host[0] + fill_gpu[0]) / 1e9, fill_host[1] * 1e3, fill_gpu[1] * 1e3,
               bytes / (fill_host[1] + fill_gpu[1]) / 1e9);
        glDeleteBuffers(1, &b);
    }
    return 0;
}

/* GLES only: the same copy by a compute shader (16 bytes per invocation),
 * which on some drivers runs far faster than glCopyBufferSubData: the
 * memory's own bandwidth, the fair yardstick for kernels. */
static const char *copy_kernel =
    "#include \"grid.glsl\"\n"
    "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
    "layout(std430, binding = 0) readonly buffer In { uvec4 a[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Out { uvec4 o[]; };\n"
    "void main()\n"
    "{\n"
    "    uint id = gs_linear_id();\n"
    "    if (id >= gs_count)\n"
    "        return;\n"
    "    o[id] = a[id];\n"
    "}\n";

static int bench_shader_copy(gs_engine *eng, int reps, double *copy_bps)
{
    gs_gl_device *dev = gs_gles_device(eng);
    size_t bytes = binding_sized(dev, (size_t)256 << 20);
    gs_gl_program *prog = bench_kernel(dev, "bench_copy.comp", copy_kernel);
    if (!prog)
        return 1;
    gs_buf *a = NULL, *b = NULL;
    if (gs_buf_create(eng, bytes, &a) || gs_buf_create(eng, bytes, &b))
        return fail(eng, "copy buffers");
    gs_buf_fill_u32(a, 0, bytes / 4, 1);
    gs_buf_fill_u32(b, 0, bytes / 4, 0);
    double t[MAX_REPS];
    for (int r = -1; r < reps; r++) {
        double t0 = gs_now_s();
        if (gs_gles_bind(eng, 0, a, 0, bytes) || gs_gles_bind(eng, 1, b, 0, bytes) ||
            gs_gl_dispatch_1d(dev, prog, bytes / 16, &eng->err) || gs_engine_finish(eng))
            return fail(eng, "shader copy");
        if (r >= 0)
            t[r] = gs_now_s() - t0;
    }
    double m = median(t, reps);
    printf("copy %zu MiB by a compute shader: %8.2f ms  %7.2f GB/s (read+write %7.2f GB/s)\n", bytes >> 20, m * 1e3,
           bytes / m / 1e9, 2 * bytes / m / 1e9);
    *copy_bps = bytes / m;
    gs_buf_destroy(a);
    gs_buf_destroy(b);
    return 0;
}

/* Bytes/s = the column data (elements x 4 B) over the time, the measure the
 * copy rate above is put beside. */
static int bench_dft(gs_engine *eng, unsigned log_n, size_t ncols, int reps, double copy_bps, double shader_bps)
{
    size_t n = (size_t)1 << log_n, total = n * ncols;
    gs_buf *b = random_buf(eng, total, 1);
    if (!b)
        return fail(eng, "dft buffer");
    gs_dft_cols c = {b, 0, n, ncols, log_n, 1};
    /* warm-up (programs, twiddles, first-touch) */
    if (gs_dft(eng, &c, GS_DFT_FORWARD) || gs_engine_finish(eng))
        return fail(eng, "dft");
    double t[MAX_REPS], ct[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double t0 = gs_now_s(), c0 = cpu_s();
        if (gs_dft(eng, &c, GS_DFT_FORWARD) || gs_engine_finish(eng))
            return fail(eng, "dft");
        t[r] = gs_now_s() - t0;
        ct[r] = cpu_s() - c0;
    }
    double m = median(t, reps), cm = median(ct, reps);
    printf("dft fwd 2^%-2u x %4zu cols: %9.2f ms  %8.1f Melem/s  %8.1f MB/s = %5.1f%% of buffer copy, %5.1f%% of "
           "shader copy  (CPU %9.2f ms)\n",
           log_n, ncols, m * 1e3, (double)total / m / 1e6, (double)total * 4 / m / 1e6,
           100.0 * (double)total * 4 / m / copy_bps, 100.0 * (double)total * 4 / m / shader_bps, cm * 1e3);
    gs_buf_destroy(b);
    return 0;
}

static int bench_poseidon2(gs_engine *eng, unsigned log_h, int reps)
{
    size_t n = (size_t)1 << log_h, width = 8;
    gs_buf *m = random_buf(eng, n * width, 2);
    if (!m)
        return fail(eng, "poseidon2 matrix");
    double t[MAX_REPS], ct[MAX_REPS];
    for (int r = -1; r < reps; r++) {
        gs_merkle_dev tree;
        double t0 = gs_now_s(), c0 = cpu_s();
        if (gs_engine_merkle_commit(eng, m, 0, n, width, 1, 0, &tree) || gs_engine_finish(eng))
            return fail(eng, "merkle (poseidon2)");
        if (r >= 0) {
            t[r] = gs_now_s() - t0;
            ct[r] = cpu_s() - c0;
        }
        gs_merkle_dev_release(&tree);
    }
    double md = median(t, reps), cm = median(ct, reps), perms = (double)n + (double)(n - 1);
    printf("poseidon2 via merkle 2^%u x 8: %9.2f ms  %8.3f M perms/s  (CPU %9.2f ms: %.3f M perms per CPU-s)\n",
           log_h, md * 1e3, perms / md / 1e6, cm * 1e3, perms / cm / 1e6);
    gs_buf_destroy(m);
    return 0;
}

/* GLES only: the permutation's own rate, as OpenVM's CUDA field benchmark
 * measures it: each invocation loads a state, permutes it `rounds` times
 * in registers and stores it (memory traffic negligible). */
static const char *p2_rate_kernel =
    "#include \"poseidon2.glsl\"\n"
    "#include \"grid.glsl\"\n"
    "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
    "layout(std430, binding = 0) buffer S { uint a[]; };\n"
    "uniform uint gs_rounds;\n"
    "void main()\n"
    "{\n"
    "    uint id = gs_linear_id();\n"
    "    if (id >= gs_count)\n"
    "        return;\n"
    "    uint s[16];\n"
    "    for (uint i = 0u; i < 16u; i++) s[i] = a[16u * id + i];\n"
    "    for (uint r = 0u; r < gs_rounds; r++) p2_permute(s);\n"
    "    for (uint i = 0u; i < 16u; i++) a[16u * id + i] = s[i];\n"
    "}\n";

static int bench_poseidon2_rate(gs_engine *eng, unsigned log_states, unsigned rounds, int reps)
{
    gs_gl_device *dev = gs_gles_device(eng);
    gs_gl_program *prog = NULL;
    gs_error err;
    if (gs_gl_program_build(dev, "bench_p2_rate.comp", p2_rate_kernel, NULL, &prog, &err)) {
        fprintf(stderr, "bench_commit: poseidon2 rate kernel: %s\n", err.msg);
        return 1;
    }
    size_t n = (size_t)1 << log_states;
    gs_buf *st = random_buf(eng, n * 16, 3);
    if (!st)
        return fail(eng, "poseidon2 states");
    glProgramUniform1ui(gs_gl_program_name(prog), gs_gl_program_uniform(prog, "gs_rounds"), rounds);
    double t[MAX_REPS];
    for (int r = -1; r < reps; r++) {
        double t0 = gs_now_s();
        if (gs_gles_bind(eng, 0, st, 0, n * 64) || gs_gl_dispatch_1d(dev, prog, n, &eng->err) ||
            gs_engine_finish(eng))
            return fail(eng, "poseidon2 rate");
        if (r >= 0)
            t[r] = gs_now_s() - t0;
    }
    double m = median(t, reps), perms = (double)n * rounds;
    printf("poseidon2 in registers 2^%u states x %u: %9.2f ms  %8.1f M perms/s\n", log_states, rounds, m * 1e3,
           perms / m / 1e6);
    gs_buf_destroy(st);
    return 0;
}

static int bench_keccak_commit(gs_engine *eng, unsigned trace_log, int reps, int warmup, unsigned idle_ms)
{
    const unsigned l_skip = 4, n_stack = 17, log_blowup = 1, log_k = 4;
    gs_stack_trace_shape sh = {2633, trace_log};
    gs_stack_layout lay;
    gs_error err;
    if (gs_stack_layout_build(l_skip, n_stack, &sh, 1, &lay, &err)) {
        fprintf(stderr, "bench_commit: %s\n", err.msg);
        return 1;
    }
    size_t tn = (size_t)sh.width << sh.log_height, N = (size_t)1 << (l_skip + n_stack + log_blowup);
    gs_buf *tb = random_buf(eng, tn, 7), *cw = NULL;
    if (!tb || gs_buf_create(eng, N * lay.width * sizeof(bb_t), &cw))
        return fail(eng, "commit buffers");
    gs_trace_ref ref = {tb, 0};
    printf("keccakf main commit: trace 2633 x 2^%u -> stacked 2^%u x %u, codeword 2^%u x %u (%.0f MiB)\n", trace_log,
           l_skip + n_stack, lay.width, l_skip + n_stack + log_blowup, lay.width,
           (double)N * lay.width * 4 / 1048576.0);
    double trs[MAX_REPS], tmt[MAX_REPS], crs[MAX_REPS], cmt[MAX_REPS];
    bb_t root[8];
    for (int r = warmup ? -1 : 0; r < reps; r++) { /* r = -1: warm-up */
        if (idle_ms) { /* the GPU idle before each commit, as in a proof after the host-bound upload */
            struct timespec ts = {(time_t)(idle_ms / 1000), (long)(idle_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        double t0 = gs_now_s(), c0 = cpu_s();
        if (gs_rs_code_matrix(eng, &lay, &ref, log_blowup, 0, lay.width, cw, 0) || gs_engine_finish(eng))
            return fail(eng, "rs_code_matrix");
        double t1 = gs_now_s(), c1 = cpu_s();
        gs_merkle_dev tree;
        if (gs_engine_merkle_commit(eng, cw, 0, N, lay.width, 1, log_k, &tree) ||
            gs_engine_merkle_root(eng, &tree, root))
            return fail(eng, "merkle_tree");
        double t2 = gs_now_s(), c2 = cpu_s();
        gs_merkle_dev_release(&tree);
        if (r >= 0) {
            trs[r] = t1 - t0;
            tmt[r] = t2 - t1;
            crs[r] = c1 - c0;
            cmt[r] = c2 - c1;
        }
    }
    double a = median(trs, reps), b = median(tmt, reps), ca = median(crs, reps), cb = median(cmt, reps);
    printf("  rs_code_matrix: %9.1f ms wall, %9.1f ms CPU (median of %d)\n", a * 1e3, ca * 1e3, reps);
    printf("  merkle_tree:    %9.1f ms wall, %9.1f ms CPU (median of %d)\n", b * 1e3, cb * 1e3, reps);
    printf("  total:          %9.1f ms wall, %9.1f ms CPU   root[0] = %u\n", (a + b) * 1e3, (ca + cb) * 1e3,
           bb_to_canonical(root[0]));
    gs_buf_destroy(cw);
    gs_buf_destroy(tb);
    gs_stack_layout_free(&lay);
    return 0;
}

int main(int argc, char **argv)
{
    const char *engine = "cpu";
    int reps = 3, do_dft = 1, do_commit = 1, warmup = 1;
    unsigned trace_log = 15, threads = 0, idle_ms = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--engine") && i + 1 < argc)
            engine = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--trace-log") && i + 1 < argc)
            trace_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-dft"))
            do_dft = 0;
        else if (!strcmp(argv[i], "--no-commit"))
            do_commit = 0;
        else if (!strcmp(argv[i], "--no-warmup"))
            warmup = 0;
        else if (!strcmp(argv[i], "--idle-ms") && i + 1 < argc)
            idle_ms = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: bench_commit [--engine cpu|gles] [--reps N] [--trace-log L] [--threads T] [--no-dft] "
                    "[--no-commit] [--no-warmup] [--idle-ms M]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    gs_engine *eng = NULL;
    gs_error err;
    glstark_status st;
    if (!strcmp(engine, "gles"))
        st = gs_gles_engine_create_opts(NULL, &eng, &err);
    else if (!strcmp(engine, "cpu"))
        st = gs_cpu_engine_create(threads, &eng, &err);
    else {
        fprintf(stderr, "bench_commit: unknown engine '%s' (cpu or gles)\n", engine);
        return 2;
    }
    if (st) {
        fprintf(stderr, "bench_commit: %s\n", err.msg);
        return 1;
    }
    if (!strcmp(engine, "gles")) {
        gs_gl_device *dev = gs_gles_device(eng);
        printf("engine gles: %s (%s), local size %u, binding limit %llu MiB%s\n", dev->renderer, dev->gl_version,
               dev->caps.local_size, (unsigned long long)(dev->caps.max_binding_bytes >> 20),
               dev->caps.floor_mode ? ", ES 3.1 floor mode" : "");
    } else {
        printf("engine cpu\n");
    }
    printf("medians of %d runs\n", reps);
    double copy_bps = 1, shader_bps = 1;
    int rc = bench_copy(eng, !strcmp(engine, "gles"), reps, &copy_bps);
    if (!rc && !strcmp(engine, "gles"))
        rc = bench_shader_copy(eng, reps, &shader_bps);
    if (!rc && !strcmp(engine, "gles"))
        rc = bench_first_touch(eng);
    else
        shader_bps = copy_bps;
    static const struct {
        unsigned log_n;
        size_t ncols;
    } sizes[] = {{10, 1024}, {16, 64}, {20, 8}, {22, 4}, {24, 1}, {22, 42},
                 /* the bytes of 2^22 x 42 in shorter transforms: a transform's
                  * butterflies per element grow with log n, its bytes do not */
                 {11, 86016}, {16, 2688}};
    for (size_t i = 0; !rc && do_dft && i < sizeof sizes / sizeof sizes[0]; i++)
        rc = bench_dft(eng, sizes[i].log_n, sizes[i].ncols, reps, copy_bps, shader_bps);
    if (!rc)
        rc = bench_poseidon2(eng, 18, reps);
    if (!rc)
        rc = bench_poseidon2(eng, 22, reps);
    if (!rc && !strcmp(engine, "gles"))
        rc = bench_poseidon2_rate(eng, 20, 16, reps);
    if (!rc && do_commit)
        rc = bench_keccak_commit(eng, trace_log, reps, warmup, idle_ms);
    gs_engine_destroy(eng);
    return rc;
}
