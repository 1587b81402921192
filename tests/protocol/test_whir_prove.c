/* The WHIR prover against OpenVM's bytes: from the recorded traces, build the
 * stacked commitment (stacking, RS code matrix, Merkle tree; its root must be
 * OpenVM's common_main_commit), replay the recorded transcript up to WHIR,
 * prove at the recorded u_cube, and require the encoded WHIR proof to equal
 * the WHIR part of OpenVM's proof.bin byte for byte and the WHIR transcript to
 * equal OpenVM's op for op. Then the verifier accepts the proof. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dft_ops.h"
#include "engine/engine.h"
#include "engine/hash_ops.h"
#include "common/stacking.h"
#include "common/whir.h"
#include "verify/whir_verify.h"
#include "prove/whir.h"
#include "whir_replay.h"
#include "whir_vectors.h"

/* mont_trace: NULL to take the traces from the vector file, else one trace
 * (Montgomery, column-major, mont_width columns of 2^mont_log_height).
 * prove_exact_on runs everything on eng (any engine with the dft, hash and
 * whir families; tests/gles_protocol runs it on the GLES engine) and leaves
 * it open; prove_exact uses a CPU engine. */
void prove_exact_on(gs_engine *eng, const char *spec, const bb_t *mont_trace, uint32_t mont_width,
                    uint32_t mont_log_height);
void prove_exact(const char *spec, const bb_t *mont_trace, uint32_t mont_width, uint32_t mont_log_height);
void prove_exact(const char *spec, const bb_t *mont_trace, uint32_t mont_width, uint32_t mont_log_height)
{
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(0, &eng, &err), GLSTARK_OK, "%s", err.msg);
    prove_exact_on(eng, spec, mont_trace, mont_width, mont_log_height);
    gs_engine_destroy(eng);
}

void prove_exact_on(gs_engine *eng, const char *spec, const bb_t *mont_trace, uint32_t mont_width,
                    uint32_t mont_log_height)
{
    whir_vec v;
    cr_assert_eq(whir_vec_load(&v, spec), 0, "load %s", spec);
    if (mont_trace) {
        v.num_traces = 1;
        v.traces[0].width = mont_width;
        v.traces[0].log_height = mont_log_height;
    }
    cr_assert(v.num_traces > 0, "%s has traces", spec);
    gs_error err;
    const gs_whir_params *prm = &v.params;
    const unsigned L = prm->l_skip + prm->n_stack;

    /* the stacked commitment of the traces (already in stacking order) */
    gs_stack_trace_shape shapes[8];
    gs_trace_ref refs[8];
    for (uint32_t t = 0; t < v.num_traces; t++) {
        shapes[t].width = v.traces[t].width;
        shapes[t].log_height = v.traces[t].log_height;
        size_t n = (size_t)v.traces[t].width << v.traces[t].log_height;
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &refs[t].buf), GLSTARK_OK);
        refs[t].offset = 0;
        if (mont_trace) {
            cr_assert_eq(gs_buf_write(refs[t].buf, 0, mont_trace, n * sizeof(bb_t)), GLSTARK_OK);
            continue;
        }
        bb_t *m = malloc(n * sizeof(bb_t));
        for (size_t i = 0; i < n; i++)
            m[i] = bb_from_canonical(v.traces[t].cols[i]);
        cr_assert_eq(gs_buf_write(refs[t].buf, 0, m, n * sizeof(bb_t)), GLSTARK_OK);
        free(m);
    }
    gs_stack_layout lay;
    cr_assert_eq(gs_stack_layout_build(prm->l_skip, prm->n_stack, shapes, v.num_traces, &lay, &err), GLSTARK_OK, "%s",
                 err.msg);
    size_t H = (size_t)1 << L, N = (size_t)1 << (L + prm->log_blowup);
    gs_buf *q, *cwm;
    cr_assert_eq(gs_buf_create(eng, lay.width * H * sizeof(bb_t), &q), GLSTARK_OK);
    cr_assert_eq(gs_buf_create(eng, lay.width * N * sizeof(bb_t), &cwm), GLSTARK_OK);
    cr_assert_eq(gs_stack_matrix(eng, &lay, refs, 0, lay.width, q, 0), GLSTARK_OK, "%s", eng->err.msg);
    cr_assert_eq(gs_rs_code_matrix(eng, &lay, refs, prm->log_blowup, 0, lay.width, cwm, 0), GLSTARK_OK, "%s",
                 eng->err.msg);
    gs_merkle_dev tree;
    cr_assert_eq(gs_engine_merkle_commit(eng, cwm, 0, N, lay.width, 1, prm->k, &tree), GLSTARK_OK, "%s", eng->err.msg);
    bb_t root[8];
    cr_assert_eq(gs_engine_merkle_root(eng, &tree, root), GLSTARK_OK);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(bb_to_canonical(root[i]), v.commit[0][i], "%s: stacked commitment equals OpenVM's", spec);

    /* WHIR from the recorded starting state */
    gs_transcript ts;
    whir_replay_pre(&ts, &v);
    gs_ts_record rec;
    gs_ts_record_init(&rec);
    gs_transcript_set_log(&ts, gs_ts_record_log, &rec);
    bb4_t u[32];
    for (uint32_t i = 0; i < v.L; i++)
        u[i] = bb4_from_canonical(v.ucube[i]);
    gs_whir_commit_data cd = {.matrix = q, .matrix_off = 0, .codeword = cwm, .codeword_off = 0, .tree = &tree,
                              .width = lay.width};
    gs_whir_proof pf;
    uint64_t syncs0 = eng->host_syncs;
    glstark_status st = gs_whir_prove(eng, &ts, prm, &cd, 1, u, v.L, &pf, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: prove on %s: %s", spec, eng->core->name, err.msg);
    cr_log_info("%s: WHIR host syncs %llu", spec, (unsigned long long)(eng->host_syncs - syncs0));
    whir_compare_ops(&rec, &v, "prover");
    gs_ts_record_free(&rec);

    size_t n = gs_whir_proof_encoded_size(&pf), wrote;
    uint8_t *bytes = malloc(n);
    cr_assert_eq(gs_whir_proof_encode(&pf, bytes, n, &wrote, &err), GLSTARK_OK, "%s", err.msg);
    size_t wlen = v.proof_len - v.whir_offset;
    cr_assert_eq(wrote, wlen, "%s: WHIR proof is %zu bytes, OpenVM's %zu", spec, wrote, wlen);
    size_t first = 0;
    while (first < wlen && bytes[first] == v.proof[v.whir_offset + first])
        first++;
    cr_assert_eq(first, wlen, "%s: WHIR proof bytes differ from OpenVM's at byte %zu", spec, first);

    /* and it verifies */
    uint32_t widths[4];
    bb4_t *open = malloc(4096 * sizeof(bb4_t));
    size_t nopen;
    cr_assert_eq(whir_vec_openings(&v, widths, open, 4096, &nopen), 0);
    gs_whir_digest com;
    memcpy(com.v, root, sizeof root);
    whir_replay_pre(&ts, &v);
    st = gs_whir_verify(&ts, prm, &pf, &com, widths, 1, open, nopen, u, v.L, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: verify own proof: %s", spec, err.msg);

    free(open);
    free(bytes);
    gs_whir_proof_free(&pf);
    gs_merkle_dev_release(&tree);
    gs_buf_destroy(q);
    gs_buf_destroy(cwm);
    for (uint32_t t = 0; t < v.num_traces; t++)
        gs_buf_destroy(refs[t].buf);
    gs_stack_layout_free(&lay);
    whir_vec_free(&v);
}

#ifndef GS_WHIR_PROVE_NO_TESTS
Test(whir_prove, fib_small_n4) { prove_exact("fib-small_n4", NULL, 0, 0); }
Test(whir_prove, fib_small_n10) { prove_exact("fib-small_n10", NULL, 0, 0); }
Test(whir_prove, interactions_small) { prove_exact("interactions-small", NULL, 0, 0); }
Test(whir_prove, fib_app18_n10, .timeout = 300) { prove_exact("fib-app18_n10", NULL, 0, 0); }
#endif
