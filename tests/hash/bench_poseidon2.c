/* Benchmark (meson benchmark 'poseidon2_bench', not a test): Poseidon2-16
 * permutations per second on the CPU, single thread: one state at a time
 * (chained, so the rate is one over the latency) with the version the
 * dispatch picks and with each version this CPU has, then 16 states
 * batched; then a Merkle commit of a log_h x width base-field matrix with
 * 1 thread and with all cores, as permutations/s and milliseconds.
 * Usage: bench_poseidon2 [log_height=18] [width=42] [threads=0 (all)] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hash/merkle.h"
#include "hash/poseidon2.h"
#include "util/clock.h"

int main(int argc, char **argv)
{
    unsigned log_h = argc > 1 ? (unsigned)atoi(argv[1]) : 18;
    size_t width = argc > 2 ? (size_t)atoi(argv[2]) : 42;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 1;
    }

    /* Single state, each permutation applied to the previous one's output
     * (as in the transcript's sponge): the latency of one permutation. Best
     * of 5 runs: the development machine is shared, so take the least
     * disturbed run. */
    static const char *impl_names[] = {"portable", "avx2", "avx512f", "neon"};
    const long iters = 200000;
    double best = 1e30, t0, t1;
    bb_t st[GS_P2_WIDTH];
    for (int i = 0; i < GS_P2_WIDTH; i++)
        st[i] = bb_from_canonical((uint32_t)i);
    for (int rep = 0; rep < 5; rep++) {
        t0 = gs_now_s();
        for (long i = 0; i < iters; i++)
            gs_poseidon2_permute(st);
        t1 = gs_now_s();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    printf("poseidon2 single state (%s), 1 thread: %.3f M perms/s, %.0f ns each (best of 5; checksum %u)\n",
           impl_names[gs_poseidon2_single_impl()], (double)iters / best / 1e6, best / (double)iters * 1e9,
           bb_to_canonical(st[0]));
    for (int impl = 0; impl < 4; impl++) {
        for (int i = 0; i < GS_P2_WIDTH; i++)
            st[i] = bb_from_canonical((uint32_t)i);
        if (!gs_poseidon2_permute_with((gs_p2_impl)impl, st))
            continue;
        best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            t0 = gs_now_s();
            for (long i = 0; i < iters / 2; i++)
                gs_poseidon2_permute_with((gs_p2_impl)impl, st);
            t1 = gs_now_s();
            if (t1 - t0 < best)
                best = t1 - t0;
        }
        printf("  single %-8s: %.3f M perms/s, %.0f ns each (checksum %u)\n", impl_names[impl],
               (double)(iters / 2) / best / 1e6, best / (double)(iters / 2) * 1e9, bb_to_canonical(st[0]));
    }

    static bb_t bs[GS_P2_WIDTH][GS_P2_LANES];
    for (int i = 0; i < GS_P2_WIDTH; i++)
        for (int l = 0; l < GS_P2_LANES; l++)
            bs[i][l] = bb_from_canonical((uint32_t)(i + l));
    best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        t0 = gs_now_s();
        for (long i = 0; i < iters; i++)
            gs_poseidon2_permute_batch(bs);
        t1 = gs_now_s();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    printf("poseidon2 batched x%d (%s), 1 thread: %.3f M perms/s (best of 5; checksum %u)\n", GS_P2_LANES,
           impl_names[gs_poseidon2_batch_impl()], (double)(iters * GS_P2_LANES) / best / 1e6,
           bb_to_canonical(bs[0][0]));
    for (int impl = 0; impl < 4; impl++) {
        best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            t0 = gs_now_s();
            for (long i = 0; i < iters / 2; i++)
                if (!gs_poseidon2_permute_batch_with((gs_p2_impl)impl, bs))
                    break;
            t1 = gs_now_s();
            if (t1 - t0 < best)
                best = t1 - t0;
        }
        if (gs_poseidon2_permute_batch_with((gs_p2_impl)impl, bs))
            printf("  %-8s: %.3f M perms/s\n", impl_names[impl], (double)(iters / 2 * GS_P2_LANES) / best / 1e6);
    }

    size_t n = (size_t)1 << log_h;
    bb_t *mat = malloc(n * width * sizeof *mat);
    if (!mat) {
        fprintf(stderr, "out of memory for a 2^%u x %zu matrix\n", log_h, width);
        return 1;
    }
    uint64_t s = 12345;
    for (size_t i = 0; i < n * width; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        mat[i] = bb_from_canonical((uint32_t)((s >> 33) % BB_P));
    }
    double perms = (double)n * (double)((width + 7) / 8) + (double)(n - 1);
    unsigned runs[2] = {1, threads};
    for (int r = 0; r < (threads > 1 ? 2 : 1); r++) {
        gs_merkle_tree t;
        gs_error err;
        t0 = gs_now_s();
        if (gs_merkle_commit(mat, n, width, 1, 4, (gs_workers){NULL, runs[r]}, &t, &err) != GLSTARK_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        t1 = gs_now_s();
        printf("merkle commit 2^%u x %zu (k=4), %u thread(s): %.1f ms, %.3f M perms/s, root[0] %u\n", log_h, width,
               runs[r], (t1 - t0) * 1e3, perms / (t1 - t0) / 1e6, bb_to_canonical(gs_merkle_root(&t)[0]));
        gs_merkle_tree_free(&t);
    }
    free(mat);
    return 0;
}
