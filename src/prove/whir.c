/* The WHIR opening prover (SB/prover/whir.rs `prove_whir_opening`), notes in
 * docs/protocol.md, 'WHIR'. The transcript stays on the host; the large
 * vectors (f, w, the round codewords and their trees) stay on the engine and
 * only round messages, roots, openings and the final polynomial come back. */
#include <stdlib.h>
#include <string.h>

#include "engine/dft_ops.h"
#include "engine/engine.h"
#include "engine/hash_ops.h"
#include "engine/whir_ops.h"
#include "common/stacking.h"
#include "common/transcript.h"
#include "prove/whir.h"

#include "prove/spans.h"

/* Moves an engine failure into err with context. */
static glstark_status eng_fail(gs_engine *eng, glstark_status st, gs_error *err, const char *step)
{
    return gs_error_set(err, st, "whir prove: %s failed: %s", step, eng->err.msg);
}

static void swap_bufs(gs_buf **a, gs_buf **b)
{
    gs_buf *t = *a;
    *a = *b;
    *b = t;
}

static glstark_status grind(gs_engine *eng, gs_transcript *ts, unsigned bits, bb_t *w, gs_error *err)
{
    uint32_t x = 0;
    glstark_status st = gs_transcript_grind(ts, bits, gs_engine_grind_fn, eng, &x, err);
    if (st)
        return st;
    *w = bb_from_canonical(x);
    return GLSTARK_OK;
}

/* The first round's openings of a commitment whose codeword the prover
 * dropped after building its Merkle tree (gs_whir_commit_data.codeword NULL):
 * the codeword is encoded again from the stacked matrix, a group of columns
 * at a time, and each group gives its part of every opened row. The rows are
 * those of the committed codeword (the encoding is deterministic), so the
 * proof is the same; the engine holds one group instead of the whole
 * codeword. Groups are a third of the columns (rounded up): each costs one
 * readback, and the three keep a keccakf proof within its 64 host syncs. */
#define REENCODE_GROUPS 3

static glstark_status open_reencoded(gs_engine *eng, const gs_whir_params *prm, const gs_whir_commit_data *c,
                                     const uint32_t *idx, uint32_t nq, bb_t *rows_out, bb_t *proofs_out,
                                     gs_error *err)
{
    const uint32_t W = c->width, L = prm->l_skip + prm->n_stack;
    const size_t K = (size_t)1 << prm->k, N = (size_t)1 << (L + prm->log_blowup);
    const uint32_t G = (W + REENCODE_GROUPS - 1) / REENCODE_GROUPS;
    gs_stack_layout qlay;
    const gs_stack_trace_shape qshape = {W, L};
    glstark_status st = gs_stack_layout_build(prm->l_skip, prm->n_stack, &qshape, 1, &qlay, err);
    if (st)
        return st;
    gs_buf *part = NULL;
    bb_t *rows = malloc((size_t)nq * K * G * sizeof(bb_t) + 1);
    if (!rows) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir prove: out of host memory for the re-encoded rows");
        goto out;
    }
    if ((st = gs_buf_create(eng, (size_t)G * N * sizeof(bb_t), &part))) {
        st = eng_fail(eng, st, err, "allocating a group of re-encoded codeword columns");
        goto out;
    }
    const gs_trace_ref qref = {(gs_buf *)c->matrix, c->matrix_off};
    for (uint32_t c0 = 0; c0 < W; c0 += G) {
        const uint32_t g = W - c0 < G ? W - c0 : G;
        gs_merkle_dev group = *c->tree; /* its digests, opened for the path only once */
        group.width = g;
        if ((st = gs_rs_code_matrix(eng, &qlay, &qref, prm->log_blowup, c0, c0 + g, part, 0)) ||
            (st = gs_engine_merkle_open(eng, part, 0, &group, idx, nq, rows, c0 == 0 ? proofs_out : NULL))) {
            st = eng_fail(eng, st, err, "re-encoding the stacked matrix for the first queries");
            goto out;
        }
        for (size_t r = 0; r < (size_t)nq * K; r++)
            memcpy(rows_out + r * W + c0, rows + r * g, g * sizeof(bb_t));
    }
out:
    gs_buf_destroy(part);
    free(rows);
    gs_stack_layout_free(&qlay);
    return st;
}

glstark_status gs_whir_prove(gs_engine *eng, gs_transcript *ts, const gs_whir_params *prm,
                             const gs_whir_commit_data *commits, uint32_t num_commits, const bb4_t *u, size_t u_len,
                             gs_whir_proof *pf, gs_error *err)
{
    memset(pf, 0, sizeof *pf);
    glstark_status st = gs_whir_params_check(prm, err);
    if (st)
        return st;
    if (!eng || !eng->whir || !eng->hash)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "whir prove: the engine lacks the whir or hash family; use an engine that has both");
    const uint32_t L = prm->l_skip + prm->n_stack, k = prm->k, nu = prm->num_rounds;
    if (u_len != L)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "whir prove: the point has %zu coordinates, the stacked matrix has L = %u variables", u_len,
                            L);
    if (num_commits == 0 || !commits)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prove: no commitments to open");
    const size_t height = (size_t)1 << L;
    size_t total_width = 0;
    uint32_t widths[64];
    if (num_commits > 64)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prove: %u commitments, at most 64 supported",
                            num_commits);
    for (uint32_t c = 0; c < num_commits; c++) {
        const gs_merkle_dev *t = commits[c].tree;
        if (!commits[c].matrix || !t)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prove: commit %u lacks its data", c);
        if (commits[c].width == 0)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "whir prove: commit %u has stacked width 0; every commitment needs a column", c);
        if (t->height != (size_t)1 << (L + prm->log_blowup) || t->log_k != k || t->elem_deg != 1 ||
            t->width != commits[c].width)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "whir prove: commit %u tree has %zu rows x %zu columns (k = %u), expected 2^%u rows x "
                                "%u columns with k = %u",
                                c, t->height, t->width, t->log_k, L + prm->log_blowup, commits[c].width, k);
        widths[c] = commits[c].width;
        total_width += commits[c].width;
    }
    const uint32_t depth0 = L + prm->log_blowup - k;
    st = gs_whir_proof_alloc(pf, nu, k, num_commits, widths, prm->num_queries, depth0, 1u << (L - nu * k), err);
    if (st)
        return st;

    /* f (coefficients) and w (moments) fold out of place, between these and
     * f2 / w2 (half as long), swapped after each fold */
    gs_buf *f = NULL, *w = NULL, *f2 = NULL, *w2 = NULL, *cw = NULL, *prev_cw = NULL;
    gs_merkle_dev tree = {0}, prev_tree = {0};
    bb4_t *mu_pows = malloc((total_width + 1) * sizeof(bb4_t));
    const gs_buf **mats = malloc(num_commits * sizeof *mats);
    size_t *offs = malloc(num_commits * sizeof *offs), *wds = malloc(num_commits * sizeof *wds);
    uint32_t maxq = 0;
    for (uint32_t i = 0; i < nu; i++)
        maxq = prm->num_queries[i] > maxq ? prm->num_queries[i] : maxq;
    uint32_t *idx = malloc((maxq + 1) * sizeof(uint32_t));
    bb_t *zs = malloc((maxq + 1) * sizeof(bb_t));
    bb4_t *gp = malloc((maxq + 1) * sizeof(bb4_t));
    if (!mu_pows || !mats || !offs || !wds || !idx || !zs || !gp) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir prove: out of host memory");
        goto out;
    }

    /* μ batching, after its proof of work. Sub-spans are glstark's own
     * (OpenVM has none below "whir"). */
    int sp = gs_span_eng_begin(eng, "whir_mu_pow");
    st = grind(eng, ts, prm->mu_pow_bits, &pf->mu_pow_witness, err);
    gs_span_eng_end(eng, sp);
    if (st)
        goto out;
    bb4_t mu = gs_transcript_sample_ext(ts), mp = bb4_one();
    for (size_t j = 0; j < total_width; j++) {
        mu_pows[j] = mp;
        mp = bb4_mul(mp, mu);
    }
    for (uint32_t c = 0; c < num_commits; c++) {
        mats[c] = commits[c].matrix;
        offs[c] = commits[c].matrix_off;
        wds[c] = commits[c].width;
    }
    sp = gs_span_eng_begin(eng, "whir_prepare");
    const size_t half = height / 2 ? height / 2 : 1;
    if ((st = gs_buf_create(eng, height * sizeof(bb4_t), &f)) || (st = gs_buf_create(eng, height * sizeof(bb4_t), &w)) ||
        (st = gs_buf_create(eng, half * sizeof(bb4_t), &f2)) || (st = gs_buf_create(eng, half * sizeof(bb4_t), &w2))) {
        st = eng_fail(eng, st, err, "allocating f and w");
        goto out;
    }
    if ((st = eng->whir->batch_columns(eng, mats, offs, wds, num_commits, height, mu_pows, f)) ||
        (st = eng->whir->prepare_f(eng, f, L, prm->l_skip)) || (st = eng->whir->eq_table(eng, u, L, w))) {
        st = eng_fail(eng, st, err, "preparing f and w");
        goto out;
    }
    gs_span_eng_end(eng, sp);

    size_t len = height;
    uint32_t log_rs = L + prm->log_blowup;
    for (uint32_t i = 0; i < nu; i++) {
        const int last = i + 1 == nu;
        sp = gs_span_eng_begin(eng, "whir_sumcheck");
        bb4_t alpha = bb4_zero();
        for (uint32_t j = 0; j < k; j++) {
            size_t s = (size_t)i * k + j;
            bb4_t sv[2];
            if ((st = eng->whir->sumcheck_round(eng, f, w, len, sv))) {
                st = eng_fail(eng, st, err, "sumcheck round");
                goto out;
            }
            gs_transcript_observe_ext(ts, sv[0]);
            gs_transcript_observe_ext(ts, sv[1]);
            pf->sumcheck_polys[2 * s] = sv[0];
            pf->sumcheck_polys[2 * s + 1] = sv[1];
            if ((st = grind(eng, ts, prm->folding_pow_bits, &pf->folding_pow_witnesses[s], err)))
                goto out;
            alpha = gs_transcript_sample_ext(ts);
            if (j + 1 == k && !last)
                break; /* the round's last fold goes with the encoding below */
            if ((st = eng->whir->fold(eng, f, w, len, alpha, f2, w2))) {
                st = eng_fail(eng, st, err, "fold");
                goto out;
            }
            swap_bufs(&f, &f2);
            swap_bufs(&w, &w2);
            len /= 2;
        }
        gs_span_eng_end(eng, sp);
        sp = gs_span_eng_begin(eng, last ? "whir_final_poly" : "whir_commit_round");
        bb4_t z0 = bb4_zero();
        if (!last) {
            /* the last fold, and the folded f (coefficients) encoded as the
             * round's codeword */
            size_t n = (size_t)1 << (log_rs - 1);
            if ((st = gs_buf_create(eng, n * sizeof(bb4_t), &cw)) ||
                (st = eng->whir->fold_encode(eng, f, w, len, alpha, f2, w2, log_rs - 1, cw))) {
                st = eng_fail(eng, st, err, "folding and encoding the round codeword");
                goto out;
            }
            swap_bufs(&f, &f2);
            swap_bufs(&w, &w2);
            len /= 2;
            if ((st = gs_engine_merkle_commit(eng, cw, 0, n, 1, 4, k, &tree)) ||
                (st = gs_engine_merkle_root(eng, &tree, pf->codeword_commits[i].v))) {
                st = eng_fail(eng, st, err, "committing the round codeword");
                goto out;
            }
            gs_transcript_observe_commit(ts, pf->codeword_commits[i].v);
            z0 = gs_transcript_sample_ext(ts);
            if ((st = eng->whir->eval_univariate(eng, f, len, z0, &pf->ood_values[i]))) {
                st = eng_fail(eng, st, err, "out-of-domain evaluation");
                goto out;
            }
            gs_transcript_observe_ext(ts, pf->ood_values[i]);
        } else {
            if ((st = gs_buf_read(f, 0, pf->final_poly, len * sizeof(bb4_t)))) {
                st = eng_fail(eng, st, err, "reading the final polynomial");
                goto out;
            }
            for (size_t c = 0; c < len; c++)
                gs_transcript_observe_ext(ts, pf->final_poly[c]);
        }
        gs_span_eng_end(eng, sp);
        sp = gs_span_eng_begin(eng, "whir_queries");
        if ((st = grind(eng, ts, prm->query_phase_pow_bits, &pf->query_pow_witnesses[i], err)))
            goto out;
        const uint32_t nq = prm->num_queries[i];
        for (uint32_t q = 0; q < nq; q++)
            idx[q] = gs_transcript_sample_bits(ts, log_rs - k);
        if (nq > 0) {
            if (i == 0) {
                for (uint32_t c = 0; c < num_commits && !st; c++) {
                    if (!commits[c].codeword)
                        st = open_reencoded(eng, prm, &commits[c], idx, nq, pf->initial_rows[c],
                                            pf->initial_proofs[c][0].v, err);
                    else if ((st = gs_engine_merkle_open(eng, commits[c].codeword, commits[c].codeword_off,
                                                         commits[c].tree, idx, nq, pf->initial_rows[c],
                                                         pf->initial_proofs[c][0].v)))
                        st = eng_fail(eng, st, err, "opening the stacked commitments");
                }
                if (st)
                    goto out;
            } else {
                if ((st = gs_engine_merkle_open(eng, prev_cw, 0, &prev_tree, idx, nq,
                                                pf->codeword_values[i - 1][0].c, pf->codeword_proofs[i - 1][0].v))) {
                    st = eng_fail(eng, st, err, "opening the previous round codeword");
                    goto out;
                }
            }
        }
        /* the previous codeword is done; this round's becomes the next one's */
        gs_merkle_dev_release(&prev_tree);
        gs_buf_destroy(prev_cw);
        prev_tree = tree;
        prev_cw = cw;
        memset(&tree, 0, sizeof tree);
        cw = NULL;

        bb4_t gamma = gs_transcript_sample_ext(ts);
        if (!last) {
            bb_t omega = bb_two_adic_generator(log_rs - k);
            bb4_t gpw = bb4_mul(gamma, gamma);
            for (uint32_t q = 0; q < nq; q++) {
                zs[q] = bb_pow(omega, idx[q]);
                gp[q] = gpw;
                gpw = bb4_mul(gpw, gamma);
            }
            unsigned n = 0;
            while (((size_t)1 << n) < len)
                n++;
            if ((st = eng->whir->w_accumulate(eng, w, n, z0, gamma, zs, gp, nq))) {
                st = eng_fail(eng, st, err, "updating w");
                goto out;
            }
        }
        gs_span_eng_end(eng, sp);
        log_rs -= 1;
    }
out:
    gs_merkle_dev_release(&tree);
    gs_merkle_dev_release(&prev_tree);
    gs_buf_destroy(cw);
    gs_buf_destroy(prev_cw);
    gs_buf_destroy(f);
    gs_buf_destroy(w);
    gs_buf_destroy(f2);
    gs_buf_destroy(w2);
    free(mu_pows);
    free(mats);
    free(offs);
    free(wds);
    free(idx);
    free(zs);
    free(gp);
    if (st)
        gs_whir_proof_free(pf);
    return st;
}
