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
#include "engine/read_later.h"
#include "prove/host_tail.h"
#include "prove/sponge_rounds.h"

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
 * the codeword is encoded again from the stacked matrix, one row class and
 * a group of columns at a time, and each gives its part of the opened rows.
 * A query's K rows y + tS lie in one class (S a multiple of 2^b), the
 * class's rows r >> b of a codeword of Q's height (rs_code_rows), so the
 * engine holds one group of Q's height instead of the whole codeword (the
 * streamed commit's classes, src/engine/hash_ops.h); without classes (k = 0
 * or S odd), groups of whole codeword columns. The rows are those of the
 * committed codeword (the encoding is deterministic), so the proof is the
 * same. They are read with the host's next read (engine/read_later.h), so
 * the groups cost no host sync of their own. */
typedef struct reencode {
    gs_engine *eng;
    const gs_whir_params *prm;
    const gs_whir_commit_data *c;
    gs_stack_layout qlay;
    gs_trace_ref qref;
    unsigned lc;   /* log2 of the row classes */
    size_t rows;   /* codeword rows per class */
    uint32_t G;    /* columns per group */
    gs_buf *part;
} reencode;

/* The rows of the queries in class cls (their indices in idx_c, their
 * output rows at dst), a group at a time. */
static glstark_status reencode_class(reencode *r, uint32_t cls, const uint32_t *idx_c, bb_t **dst, size_t n)
{
    const uint32_t W = r->c->width, b = r->prm->log_blowup;
    if (n == 0)
        return GLSTARK_OK;
    unsigned depth = 0;
    glstark_status st = gs_merkle_check_shape(r->rows, 1, 1, r->prm->k, &depth, &r->eng->err);
    for (uint32_t c0 = 0; !st && c0 < W; c0 += r->G) {
        const uint32_t g = W - c0 < r->G ? W - c0 : r->G;
        /* the class's rows as a matrix of their own: the digests are not
         * read (paths come from the whole tree) */
        const gs_merkle_dev view = {r->c->tree->digests, r->rows, g, 1, r->prm->k, depth};
        st = r->lc ? gs_rs_code_rows(r->eng, &r->qlay, &r->qref, b, cls, c0, c0 + g, r->part, 0)
                   : gs_rs_code_matrix(r->eng, &r->qlay, &r->qref, b, c0, c0 + g, r->part, 0);
        if (!st)
            st = gs_engine_merkle_open_rows_to(r->eng, r->part, 0, &view, idx_c, n, dst, W);
        for (size_t q = 0; q < n; q++)
            dst[q] += g;
    }
    return st;
}

static glstark_status open_reencoded(gs_engine *eng, const gs_whir_params *prm, const gs_whir_commit_data *c,
                                     const uint32_t *idx, uint32_t nq, bb_t *rows_out, bb_t *proofs_out,
                                     gs_error *err)
{
    const uint32_t W = c->width, L = prm->l_skip + prm->n_stack, K = 1u << prm->k;
    const size_t N = (size_t)1 << (L + prm->log_blowup);
    reencode r = {.eng = eng, .prm = prm, .c = c, .qref = {(gs_buf *)c->matrix, c->matrix_off}};
    r.lc = gs_merkle_stream_log_classes(N, prm->k, prm->log_blowup);
    r.rows = N >> r.lc;
    /* Without plentiful memory, a quarter of the streamed commit's group
     * (at keccakf-1024 two columns, 16 MiB, the least the paths' view
     * below needs anyway): the group (64 MiB) was the board profile's
     * largest buffer in WHIR's first round, beside f, w and the round's
     * codeword. */
    const size_t group_words = eng->plentiful_memory ? GS_MERKLE_STREAM_GROUP_WORDS : GS_MERKLE_STREAM_GROUP_WORDS / 4;
    const size_t fit = group_words / r.rows;
    r.G = fit >= W ? W : fit > 0 ? (uint32_t)fit : 1;
    const gs_stack_trace_shape qshape = {W, L};
    glstark_status st = gs_stack_layout_build(prm->l_skip, prm->n_stack, &qshape, 1, &r.qlay, err);
    if (st)
        return st;
    uint32_t *idx_c = malloc(nq * sizeof *idx_c + 1);
    bb_t **dst = malloc(nq * sizeof *dst + 1);
    /* at least N words: the paths' view of the whole tree checks its matrix */
    const size_t part_words = (size_t)r.G * r.rows > N ? (size_t)r.G * r.rows : N;
    if (!idx_c || !dst)
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir prove: out of host memory for the query lists");
    else if ((st = gs_buf_create(eng, part_words * sizeof(bb_t), &r.part)))
        st = eng_fail(eng, st, err, "allocating a group of re-encoded codeword columns");
    /* the paths, from the whole tree (rows not wanted: its matrix is not read) */
    gs_merkle_dev whole = *c->tree;
    whole.width = 1;
    if (!st && (st = gs_engine_merkle_open_later(eng, r.part, 0, &whole, idx, nq, NULL, W, proofs_out)))
        st = eng_fail(eng, st, err, "opening the Merkle paths of the first queries");
    for (uint32_t cls = 0; !st && cls < (1u << r.lc); cls++) {
        size_t n = 0;
        for (uint32_t q = 0; q < nq; q++)
            if ((idx[q] & ((1u << r.lc) - 1)) == cls) {
                idx_c[n] = idx[q] >> r.lc;
                dst[n++] = rows_out + (size_t)q * K * W;
            }
        if ((st = reencode_class(&r, cls, idx_c, dst, n)))
            st = eng_fail(eng, st, err, "re-encoding the stacked matrix for the first queries");
    }
    free(idx_c);
    free(dst);
    gs_buf_destroy(r.part);
    gs_stack_layout_free(&r.qlay);
    return st;
}

/* The most commitments one proof opens (the widths live on the stack). */
#define WHIR_MAX_COMMITS 64

/* The commitments against the parameters: each has its matrix and a tree
 * of the codeword's shape. Writes the widths and their sum. */
static glstark_status check_commits(const gs_whir_params *prm, const gs_whir_commit_data *commits,
                                    uint32_t num_commits, uint32_t *widths, size_t *total_width, gs_error *err)
{
    const uint32_t L = prm->l_skip + prm->n_stack, k = prm->k;
    if (num_commits == 0 || !commits)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prove: no commitments to open");
    if (num_commits > WHIR_MAX_COMMITS)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "whir prove: %u commitments, at most 64 supported",
                            num_commits);
    *total_width = 0;
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
        *total_width += commits[c].width;
    }
    return GLSTARK_OK;
}

/* What the prover holds from one round to the next. */
typedef struct whir_state {
    gs_engine *eng;
    gs_transcript *ts;
    const gs_whir_params *prm;
    const gs_whir_commit_data *commits;
    uint32_t num_commits;
    /* f (coefficients) and w (moments) fold out of place, between these and
     * f2 / w2 (half as long), swapped after each fold */
    gs_buf *f, *w, *f2, *w2;
    size_t len;      /* entries of f and w */
    int scratch_cut; /* the full-height pair has been dropped (take_fold) */
    uint32_t log_rs; /* log2 of the codeword domain of the current round */
    /* the current round's codeword and tree, and the previous round's (its
     * queries open that one) */
    gs_buf *cw, *prev_cw;
    gs_merkle_dev tree, prev_tree;
    /* per query of a round: index, domain point, γ power */
    uint32_t *idx;
    bb_t *zs;
    bb4_t *gp;
    gs_sponge_rounds dr; /* the present round's sumcheck on the engine's sponge, if any */
} whir_state;

static void whir_state_free(whir_state *s)
{
    gs_merkle_dev_release(&s->tree);
    gs_merkle_dev_release(&s->prev_tree);
    gs_buf_destroy(s->cw);
    gs_buf_destroy(s->prev_cw);
    gs_buf_destroy(s->f);
    gs_buf_destroy(s->w);
    gs_buf_destroy(s->f2);
    gs_buf_destroy(s->w2);
    free(s->idx);
    free(s->zs);
    free(s->gp);
    gs_sponge_rounds_free(&s->dr);
}

/* μ batching, after its proof of work: f = Σ_j μ^j (column j of every
 * commit's matrix in turn), as coefficients, and w = eq(u, ·). Sub-spans
 * are glstark's own (OpenVM has none below "whir"). */
static glstark_status whir_prepare(whir_state *s, const bb4_t *u, size_t total_width, gs_whir_proof *pf,
                                   gs_error *err)
{
    gs_engine *eng = s->eng;
    const gs_whir_params *prm = s->prm;
    const uint32_t L = prm->l_skip + prm->n_stack, nc = s->num_commits;
    const size_t height = (size_t)1 << L;
    bb4_t *mu_pows = malloc((total_width + 1) * sizeof(bb4_t));
    const gs_buf **mats = malloc(nc * sizeof *mats);
    size_t *offs = malloc(nc * sizeof *offs), *wds = malloc(nc * sizeof *wds);
    glstark_status st = GLSTARK_OK;
    if (!mu_pows || !mats || !offs || !wds) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir prove: out of host memory");
        goto out;
    }
    int sp = gs_span_eng_begin(eng, "whir_mu_pow");
    st = grind(eng, s->ts, prm->mu_pow_bits, &pf->mu_pow_witness, err);
    gs_span_eng_end(eng, sp);
    if (st)
        goto out;
    bb4_t mu = gs_transcript_sample_ext(s->ts), mp = bb4_one();
    for (size_t j = 0; j < total_width; j++) {
        mu_pows[j] = mp;
        mp = bb4_mul(mp, mu);
    }
    for (uint32_t c = 0; c < nc; c++) {
        mats[c] = s->commits[c].matrix;
        offs[c] = s->commits[c].matrix_off;
        wds[c] = s->commits[c].width;
    }
    sp = gs_span_eng_begin(eng, "whir_prepare");
    if ((st = gs_buf_create(eng, height * sizeof(bb4_t), &s->f)) ||
        (st = gs_buf_create(eng, height * sizeof(bb4_t), &s->w))) {
        st = eng_fail(eng, st, err, "allocating f and w");
        goto out;
    }
    if ((st = eng->whir->batch_columns(eng, mats, offs, wds, nc, height, mu_pows, s->f)) ||
        (st = eng->whir->prepare_f(eng, s->f, L, prm->l_skip)) || (st = eng->whir->eq_table(eng, u, L, s->w))) {
        st = eng_fail(eng, st, err, "preparing f and w");
        goto out;
    }
    gs_span_eng_end(eng, sp);
    s->len = height;
    s->log_rs = L + prm->log_blowup;
out:
    free(mu_pows);
    free(mats);
    free(offs);
    free(wds);
    return st;
}

/* f2 and w2 for the first fold, made only then: beside f and w they were
 * the largest part of WHIR's preparation, whose own scratch is gone by the
 * first fold (32 MiB of the board profile's peak there at keccakf-1024). */
static glstark_status fold_scratch(whir_state *s)
{
    if (s->f2)
        return GLSTARK_OK;
    const size_t half = s->len / 2 ? s->len / 2 : 1;
    glstark_status st = gs_buf_create(s->eng, half * sizeof(bb4_t), &s->f2);
    return st ? st : gs_buf_create(s->eng, half * sizeof(bb4_t), &s->w2);
}

static void drop_fold_scratch(whir_state *s)
{
    gs_buf_destroy(s->f2);
    gs_buf_destroy(s->w2);
    s->f2 = s->w2 = NULL;
}

/* After a fold into f2 / w2: those become f and w (half as long), and the
 * fold's inputs the scratch of the next fold. The first time, the inputs
 * are the full-height pair, WHIR's largest buffers (2 x 32 MiB at height
 * 2^21), of which the next fold writes a quarter: they are dropped, and
 * fold_scratch makes a pair of that size at the next fold. WHIR's own peak
 * comes later (the first round's codeword and its re-encoded queries), so
 * this lowers it by ~50 MB, and with it the proof's peak where WHIR holds
 * that (keccakf-256 in the board profile: 312 -> 264 MiB of GPU buffers). */
static void take_fold(whir_state *s)
{
    swap_bufs(&s->f, &s->f2);
    swap_bufs(&s->w, &s->w2);
    s->len /= 2;
    if (!s->scratch_cut) {
        s->scratch_cut = 1;
        drop_fold_scratch(s);
    }
}

/* A round that is not the last, with its challenges sampled by the
 * engine's sponge (prove/sponge_rounds.h): the k sumcheck rounds and their
 * folds queue without a host sync, and the round's codeword root, which
 * the host reads anyway, brings their sums, witnesses and challenges back
 * (round_commit replays them). Leaves the last α on the engine. */
static glstark_status round_sumcheck_on_engine(whir_state *s, gs_chal *alpha, gs_error *err)
{
    gs_engine *eng = s->eng;
    const uint32_t k = s->prm->k;
    glstark_status st = gs_sponge_rounds_begin(&s->dr, eng, s->ts, k, 2, (unsigned)s->prm->folding_pow_bits, err);
    for (uint32_t j = 0; !st && j < k; j++) {
        if ((st = eng->whir->sumcheck_round(eng, s->f, s->w, s->len, gs_sponge_rounds_sums(&s->dr))))
            return eng_fail(eng, st, err, "sumcheck round");
        if ((st = gs_sponge_rounds_step(&s->dr, alpha, err)))
            return st;
        if (j + 1 == k)
            break; /* the round's last fold goes with the encoding */
        if ((st = fold_scratch(s)) || (st = eng->whir->fold(eng, s->f, s->w, s->len, *alpha, s->f2, s->w2)))
            return eng_fail(eng, st, err, "fold");
        take_fold(s);
    }
    return st ? st : gs_sponge_rounds_read_later(&s->dr, err);
}

/* Round i's k sumcheck rounds (each observed, then its proof of work and
 * folding challenge α), folding f and w after each but the last of a
 * round that is not the last: that fold goes with the encoding
 * (round_commit). Leaves the last α in *alpha. */
static glstark_status round_sumcheck(whir_state *s, uint32_t i, int last, gs_whir_proof *pf, gs_chal *alpha,
                                     gs_error *err)
{
    gs_engine *eng = s->eng;
    const uint32_t k = s->prm->k;
    for (uint32_t j = 0; j < k; j++) {
        size_t n = (size_t)i * k + j;
        bb4_t sv[2];
        glstark_status st = eng->whir->sumcheck_round(eng, s->f, s->w, s->len, gs_sums_host(sv));
        if (st)
            return eng_fail(eng, st, err, "sumcheck round");
        gs_transcript_observe_ext(s->ts, sv[0]);
        gs_transcript_observe_ext(s->ts, sv[1]);
        pf->sumcheck_polys[2 * n] = sv[0];
        pf->sumcheck_polys[2 * n + 1] = sv[1];
        if ((st = grind(eng, s->ts, s->prm->folding_pow_bits, &pf->folding_pow_witnesses[n], err)))
            return st;
        *alpha = gs_chal_value(gs_transcript_sample_ext(s->ts));
        if (j + 1 == k && !last)
            break; /* the round's last fold goes with the encoding below */
        if ((st = fold_scratch(s)) || (st = eng->whir->fold(eng, s->f, s->w, s->len, *alpha, s->f2, s->w2)))
            return eng_fail(eng, st, err, "fold");
        take_fold(s);
    }
    return GLSTARK_OK;
}

/* A round that is not the last: the last fold, and the folded f
 * (coefficients) encoded as the round's codeword, committed (root
 * observed); then the out-of-domain point z0 and f's value there. */
static glstark_status round_commit(whir_state *s, uint32_t i, gs_chal alpha, gs_whir_proof *pf, bb4_t *z0,
                                   gs_error *err)
{
    gs_engine *eng = s->eng;
    size_t n = (size_t)1 << (s->log_rs - 1);
    glstark_status st;
    if ((st = fold_scratch(s)) || (st = gs_buf_create(eng, n * sizeof(bb4_t), &s->cw)) ||
        (st = eng->whir->fold_encode(eng, s->f, s->w, s->len, alpha, s->f2, s->w2, s->log_rs - 1, s->cw)))
        return eng_fail(eng, st, err, "folding and encoding the round codeword");
    take_fold(s);
    if ((st = gs_engine_merkle_commit(eng, s->cw, 0, n, 1, 4, s->prm->k, &s->tree)) ||
        (st = gs_engine_merkle_root(eng, &s->tree, pf->codeword_commits[i].v)))
        return eng_fail(eng, st, err, "committing the round codeword");
    /* the sumcheck rounds the engine's sponge ran came with the root */
    for (uint32_t j = 0; j < s->dr.n; j++) {
        const size_t r = (size_t)i * s->prm->k + j;
        if ((st = gs_sponge_rounds_replay(&s->dr, s->ts, j, pf->sumcheck_polys + 2 * r,
                                          &pf->folding_pow_witnesses[r], NULL, err)))
            return st;
    }
    gs_sponge_rounds_free(&s->dr);
    gs_transcript_observe_commit(s->ts, pf->codeword_commits[i].v);
    *z0 = gs_transcript_sample_ext(s->ts);
    if ((st = eng->whir->eval_univariate(eng, s->f, s->len, *z0, &pf->ood_values[i])))
        return eng_fail(eng, st, err, "out-of-domain evaluation");
    gs_transcript_observe_ext(s->ts, pf->ood_values[i]);
    return GLSTARK_OK;
}

/* The last round: f itself, read back and observed. */
static glstark_status final_poly(whir_state *s, gs_whir_proof *pf, gs_error *err)
{
    glstark_status st = gs_buf_read(s->f, 0, pf->final_poly, s->len * sizeof(bb4_t));
    if (st)
        return eng_fail(s->eng, st, err, "reading the final polynomial");
    for (size_t c = 0; c < s->len; c++)
        gs_transcript_observe_ext(s->ts, pf->final_poly[c]);
    return GLSTARK_OK;
}

/* The last round on the host (prove/host_tail.h) once f and w are small:
 * both read in one host sync (instead of one per sumcheck round and one for
 * the final polynomial), then its k sumcheck rounds (each observed, its
 * proof of work and α) and folds, and f as the final polynomial. */
static glstark_status last_round_on_host(whir_state *s, uint32_t i, gs_whir_proof *pf, gs_error *err)
{
    gs_engine *eng = s->eng;
    size_t len = s->len;
    bb4_t *hf = malloc(len * sizeof(bb4_t) + 1), *hw = malloc(len * sizeof(bb4_t) + 1);
    glstark_status st = hf && hw ? GLSTARK_OK
                                 : gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                                                "whir prove: out of host memory for the last round");
    if (!st) {
        /* f comes along with the read of w (and any queued openings) */
        st = gs_buf_read_later(s->f, 0, hf, len * sizeof(bb4_t), 1, 0);
        if (!st)
            st = gs_buf_read(s->w, 0, hw, len * sizeof(bb4_t));
        if (st)
            st = eng_fail(eng, st, err, "reading f and w for the last round");
    }
    for (uint32_t j = 0; !st && j < s->prm->k; j++) {
        size_t n = (size_t)i * s->prm->k + j;
        bb4_t sv[2], alpha;
        gs_tail_whir_round(hf, hw, len, sv);
        gs_transcript_observe_ext(s->ts, sv[0]);
        gs_transcript_observe_ext(s->ts, sv[1]);
        pf->sumcheck_polys[2 * n] = sv[0];
        pf->sumcheck_polys[2 * n + 1] = sv[1];
        if ((st = grind(eng, s->ts, s->prm->folding_pow_bits, &pf->folding_pow_witnesses[n], err)))
            break;
        alpha = gs_transcript_sample_ext(s->ts);
        gs_tail_whir_fold(hf, hw, len, alpha);
        len /= 2;
    }
    if (!st) {
        s->len = len;
        memcpy(pf->final_poly, hf, len * sizeof(bb4_t));
        for (size_t c = 0; c < len; c++)
            gs_transcript_observe_ext(s->ts, pf->final_poly[c]);
    }
    free(hf);
    free(hw);
    return st;
}

/* Round i's nq queries at s->idx opened: the stacked commitments in the
 * first round (re-encoded where the codeword was dropped), the previous
 * round's codeword after that. */
static glstark_status open_queries(whir_state *s, uint32_t i, uint32_t nq, gs_whir_proof *pf, gs_error *err)
{
    gs_engine *eng = s->eng;
    glstark_status st = GLSTARK_OK;
    if (i > 0) {
        if ((st = gs_engine_merkle_open_later(eng, s->prev_cw, 0, &s->prev_tree, s->idx, nq,
                                              pf->codeword_values[i - 1][0].c,
                                              s->prev_tree.width * s->prev_tree.elem_deg,
                                              pf->codeword_proofs[i - 1][0].v)))
            return eng_fail(eng, st, err, "opening the previous round codeword");
        return GLSTARK_OK;
    }
    for (uint32_t c = 0; c < s->num_commits && !st; c++) {
        const gs_whir_commit_data *cd = &s->commits[c];
        if (!cd->codeword)
            st = open_reencoded(eng, s->prm, cd, s->idx, nq, pf->initial_rows[c], pf->initial_proofs[c][0].v, err);
        else if ((st = gs_engine_merkle_open_later(eng, cd->codeword, cd->codeword_off, cd->tree, s->idx, nq,
                                                   pf->initial_rows[c], cd->tree->width * cd->tree->elem_deg,
                                                   pf->initial_proofs[c][0].v)))
            st = eng_fail(eng, st, err, "opening the stacked commitments");
    }
    return st;
}

/* Round i's queries: proof of work, the indices, their openings; then γ
 * and, unless it is the last round, w updated with the out-of-domain point
 * z0 and the queried points, weighted by powers of γ. */
static glstark_status round_queries(whir_state *s, uint32_t i, int last, bb4_t z0, gs_whir_proof *pf, gs_error *err)
{
    const gs_whir_params *prm = s->prm;
    const uint32_t k = prm->k, nq = prm->num_queries[i];
    glstark_status st = grind(s->eng, s->ts, prm->query_phase_pow_bits, &pf->query_pow_witnesses[i], err);
    if (st)
        return st;
    for (uint32_t q = 0; q < nq; q++)
        s->idx[q] = gs_transcript_sample_bits(s->ts, s->log_rs - k);
    if (nq > 0 && (st = open_queries(s, i, nq, pf, err)))
        return st;
    /* the previous codeword is done; this round's becomes the next one's */
    gs_merkle_dev_release(&s->prev_tree);
    gs_buf_destroy(s->prev_cw);
    s->prev_tree = s->tree;
    s->prev_cw = s->cw;
    memset(&s->tree, 0, sizeof s->tree);
    s->cw = NULL;

    bb4_t gamma = gs_transcript_sample_ext(s->ts);
    if (last)
        return GLSTARK_OK;
    bb_t omega = bb_two_adic_generator(s->log_rs - k);
    bb4_t gpw = bb4_mul(gamma, gamma);
    for (uint32_t q = 0; q < nq; q++) {
        s->zs[q] = bb_pow(omega, s->idx[q]);
        s->gp[q] = gpw;
        gpw = bb4_mul(gpw, gamma);
    }
    unsigned n = 0;
    while (((size_t)1 << n) < s->len)
        n++;
    if ((st = s->eng->whir->w_accumulate(s->eng, s->w, n, z0, gamma, s->zs, s->gp, nq)))
        return eng_fail(s->eng, st, err, "updating w");
    return GLSTARK_OK;
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
    size_t total_width = 0;
    uint32_t widths[WHIR_MAX_COMMITS];
    if ((st = check_commits(prm, commits, num_commits, widths, &total_width, err)))
        return st;
    const uint32_t depth0 = L + prm->log_blowup - k;
    st = gs_whir_proof_alloc(pf, nu, k, num_commits, widths, prm->num_queries, depth0, 1u << (L - nu * k), err);
    if (st)
        return st;

    whir_state s = {.eng = eng, .ts = ts, .prm = prm, .commits = commits, .num_commits = num_commits};
    uint32_t maxq = 0;
    for (uint32_t i = 0; i < nu; i++)
        maxq = prm->num_queries[i] > maxq ? prm->num_queries[i] : maxq;
    s.idx = malloc((maxq + 1) * sizeof(uint32_t));
    s.zs = malloc((maxq + 1) * sizeof(bb_t));
    s.gp = malloc((maxq + 1) * sizeof(bb4_t));
    if (!s.idx || !s.zs || !s.gp)
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "whir prove: out of host memory");
    if (!st)
        st = whir_prepare(&s, u, total_width, pf, err);
    for (uint32_t i = 0; i < nu && !st; i++) {
        const int last = i + 1 == nu;
        bb4_t z0 = bb4_zero();
        if (last && s.len <= GS_HOST_TAIL_ENTRIES) {
            int sp = gs_span_eng_begin(eng, "whir_last_round_host");
            if ((st = last_round_on_host(&s, i, pf, err)))
                break;
            gs_span_eng_end(eng, sp);
        } else {
            /* a round that is not the last samples its challenges on the
             * engine where it can */
            const int on_engine = !last && gs_sponge_rounds_usable(eng, (unsigned)prm->folding_pow_bits);
            gs_chal alpha = gs_chal_value(bb4_zero());
            int sp = gs_span_eng_begin(eng, "whir_sumcheck");
            if ((st = on_engine ? round_sumcheck_on_engine(&s, &alpha, err)
                                : round_sumcheck(&s, i, last, pf, &alpha, err)))
                break;
            gs_span_eng_end(eng, sp);
            sp = gs_span_eng_begin(eng, last ? "whir_final_poly" : "whir_commit_round");
            if ((st = last ? final_poly(&s, pf, err) : round_commit(&s, i, alpha, pf, &z0, err)))
                break;
            gs_span_eng_end(eng, sp);
        }
        /* without plentiful memory the fold scratch waits for the next
         * fold (fold_scratch): the queries re-encode beside the round's
         * codeword */
        if (!eng->plentiful_memory)
            drop_fold_scratch(&s);
        int sp;
        sp = gs_span_eng_begin(eng, "whir_queries");
        if ((st = round_queries(&s, i, last, z0, pf, err)))
            break;
        gs_span_eng_end(eng, sp);
        s.log_rs -= 1;
    }
    /* the last round's openings (earlier ones came with later reads) */
    if (!st && (st = gs_engine_read_flush(eng)))
        st = eng_fail(eng, st, err, "reading the query openings");
    if (st)
        gs_engine_read_drop(eng);
    whir_state_free(&s);
    if (st)
        gs_whir_proof_free(pf);
    return st;
}
