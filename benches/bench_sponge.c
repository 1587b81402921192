/* The engine's sponge step (hash op sponge_step, glsl/sponge.comp) against
 * the host sync it replaces: runs of 16 chained steps with 0, 5 and 8
 * proof-of-work bits, each run ended by one glFinish, and a lone dispatch +
 * glFinish for scale. Prints the median time per step.
 *
 *   bench_sponge [--reps R] [--floor]
 *
 * The GLSTARK_* environment variables apply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "engine/hash_ops.h"
#include "gles/gl_device.h"

#define STEPS 16

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        if ((x) != GLSTARK_OK) {                                                                                       \
            fprintf(stderr, "bench_sponge: %s failed: %s\n", #x, eng->err.msg);                                       \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    int reps = 9;
    glstark_device_options o;
    glstark_device_options_init(&o);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--floor"))
            o.limits_floor = 1;
        else {
            fprintf(stderr, "usage: bench_sponge [--reps R] [--floor]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 101) {
        fprintf(stderr, "bench_sponge: --reps 1..101\n");
        return 2;
    }
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    if (gs_gles_engine_create_opts(&o, &eng, &err)) {
        fprintf(stderr, "bench_sponge: %s\n", err.msg);
        return 1;
    }
    gs_gl_device *dev = gs_gles_device(eng);
    printf("device: %s | %s | local size %u\n", dev->renderer, dev->gl_version, (unsigned)dev->caps.local_size);
    bb_t st[GS_P2_WIDTH];
    for (int i = 0; i < GS_P2_WIDTH; i++)
        st[i] = bb_from_canonical((uint32_t)(i * 7919u + 13u));
    gs_buf *state = NULL, *sums = NULL, *chals = NULL, *wits = NULL;
    CHECK(gs_engine_sponge_create(eng, st, 0, 0, &state));
    CHECK(gs_buf_create(eng, 2 * STEPS * 16, &sums));
    CHECK(gs_buf_create(eng, STEPS * 16, &chals));
    CHECK(gs_buf_create(eng, STEPS * 4, &wits));
    CHECK(gs_buf_fill_u32(sums, 0, 8 * STEPS, 12345));
    uint64_t *t = malloc((size_t)reps * sizeof *t);
    static const unsigned bits[] = {0, 5, 8};
    for (int b = 0; b < 3; b++) {
        for (int r = -1; r < reps; r++) { /* r = -1: the program's build */
            uint64_t t0 = gs_monotonic_ns();
            for (uint32_t s = 0; s < STEPS; s++) {
                const gs_sponge_step step = {sums, 2 * (size_t)s, 2, bits[b], wits, s, chals, s};
                CHECK(gs_engine_sponge_step(eng, state, &step));
            }
            CHECK(gs_engine_finish(eng));
            if (r >= 0)
                t[r] = gs_monotonic_ns() - t0;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_u64);
        printf("sponge step, %u pow bits: %.1f us per step (median of %d runs of %d)\n", bits[b],
               (double)t[reps / 2] * 1e-3 / STEPS, reps, STEPS);
    }
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = gs_monotonic_ns();
        CHECK(gs_buf_fill_u32(wits, 0, 1, 0));
        CHECK(gs_engine_finish(eng));
        t[r] = gs_monotonic_ns() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_u64);
    printf("one small fill + glFinish (a host sync's floor): %.1f us\n", (double)t[reps / 2] * 1e-3);
    free(t);
    gs_buf_destroy(state);
    gs_buf_destroy(sums);
    gs_buf_destroy(chals);
    gs_buf_destroy(wits);
    gs_engine_destroy(eng);
    return 0;
}
