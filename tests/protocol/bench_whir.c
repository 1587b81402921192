/* WHIR span for the keccakf shape: app_params_with_100_bits_security(21)
 * (l_skip 4, n_stack 17, log_blowup 1, k 4, queries 193/88/81, PoW 15/5/20)
 * on a random stacked matrix of the given width (keccak p16: width 1),
 * CPU engine. Prints prove and verify times and host syncs.
 * Usage: bench_whir [width] [threads] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dft_ops.h"
#include "engine/engine.h"
#include "engine/hash_ops.h"
#include "common/transcript.h"
#include "common/whir.h"
#include "verify/whir_verify.h"
#include "prove/whir.h"
#include "util/clock.h"

int main(int argc, char **argv)
{
    unsigned width = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    gs_whir_params p = {.l_skip = 4, .n_stack = 17, .log_blowup = 1, .k = 4, .num_rounds = 3,
                        .num_queries = {193, 88, 81}, .mu_pow_bits = 15, .folding_pow_bits = 5,
                        .query_phase_pow_bits = 20};
    const unsigned L = 21;
    const size_t H = (size_t)1 << L, N = H << 1;
    gs_engine *eng;
    gs_error err;
    if (gs_cpu_engine_create(threads, &eng, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    /* random stacked matrix, then its codeword as the commitment would make it */
    uint64_t s = 42;
    bb_t *m = malloc(width * H * sizeof(bb_t));
    for (size_t i = 0; i < width * H; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        m[i] = bb_from_canonical((uint32_t)((s >> 33) % BB_P));
    }
    gs_buf *q, *cw;
    gs_buf_create(eng, width * H * sizeof(bb_t), &q);
    gs_buf_create(eng, width * N * sizeof(bb_t), &cw);
    gs_buf_write(q, 0, m, width * H * sizeof(bb_t));
    gs_buf_fill_u32(cw, 0, width * N, 0);
    for (unsigned c = 0; c < width; c++)
        gs_buf_copy(cw, c * N * sizeof(bb_t), q, c * H * sizeof(bb_t), H * sizeof(bb_t));
    gs_dft_cols msg = {.buf = cw, .offset = 0, .col_stride = N, .ncols = width, .log_n = L, .elem_words = 1};
    gs_dft_cols full = {.buf = cw, .offset = 0, .col_stride = N, .ncols = width, .log_n = L + 1, .elem_words = 1};
    double t0 = gs_now_s();
    if (gs_rs_message(eng, &msg, p.l_skip) || gs_dft(eng, &full, GS_DFT_FORWARD))
        return fprintf(stderr, "rs: %s\n", eng->err.msg), 1;
    gs_merkle_dev tree;
    if (gs_engine_merkle_commit(eng, cw, 0, N, width, 1, p.k, &tree))
        return fprintf(stderr, "merkle: %s\n", eng->err.msg), 1;
    gs_whir_digest root;
    gs_engine_merkle_root(eng, &tree, root.v);
    double t1 = gs_now_s();
    bb4_t u[21];
    for (unsigned i = 0; i < L; i++)
        for (int c = 0; c < 4; c++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            u[i].c[c] = bb_from_canonical((uint32_t)((s >> 33) % BB_P));
        }
    gs_whir_commit_data cd = {q, 0, cw, 0, &tree, width};
    gs_transcript ts;
    gs_transcript_init(&ts);
    gs_whir_proof pf;
    uint64_t sy = eng->host_syncs;
    double t2 = gs_now_s();
    if (gs_whir_prove(eng, &ts, &p, &cd, 1, u, L, &pf, &err))
        return fprintf(stderr, "prove: %s\n", err.msg), 1;
    double t3 = gs_now_s();
    size_t bytes = gs_whir_proof_encoded_size(&pf);
    /* claims are not computed here; the verifier is timed up to its final check */
    bb4_t *claims = calloc(width, sizeof(bb4_t));
    gs_transcript_init(&ts);
    double t4 = gs_now_s();
    glstark_status vst = gs_whir_verify(&ts, &p, &pf, &root, &width, 1, claims, width, u, L, &err);
    double t5 = gs_now_s();
    printf("whir keccakf shape (L=21, width %u, threads %u): commit %.3f s, whir prove %.3f s (%llu host syncs), "
           "proof %zu bytes, verify %.1f ms (status %d: random claims, rejection expected)\n",
           width, threads, t1 - t0, t3 - t2, (unsigned long long)(eng->host_syncs - sy), bytes, (t5 - t4) * 1e3,
           (int)vst);
    free(claims);
    free(m);
    gs_whir_proof_free(&pf);
    gs_merkle_dev_release(&tree);
    gs_buf_destroy(q);
    gs_buf_destroy(cw);
    gs_engine_destroy(eng);
    return 0;
}
