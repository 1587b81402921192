/* SWIRL verifier: shape checks, transcript in mirror order, sub-verifier
 * call points (see verifier.h). */
#include "verify/verifier.h"

#include "common/air_cdag.h"
#include "common/fs_transcript.h"
#include "common/gkr.h"
#include "common/stacking.h"
#include "common/whir.h"
#include "common/zerocheck.h"
#include "verify/gkr_verify.h"
#include "verify/stacked_reduction_verify.h"
#include "verify/whir_verify.h"
#include "verify/zerocheck_verify.h"

#include <stdlib.h>
#include <string.h>

/* ---- layout ---- */

void gs_verify_layout_free(gs_verify_layout *l)
{
    if (!l)
        return;
    free(l->trace_air);
    if (l->commits)
        for (uint32_t c = 0; c < l->num_commits; c++) {
            free((void *)l->commits[c].slices);
            free((void *)l->commits[c].need_rot);
        }
    free(l->commits);
    memset(l, 0, sizeof *l);
}

void gs_verify_challenges_free(gs_verify_challenges *c)
{
    if (!c)
        return;
    free(c->xi);
    free(c->r);
    free(c->u);
    free(c->whir_alphas);
    free(c->whir_z0);
    free(c->whir_gamma);
    free(c->query_indices);
    memset(c, 0, sizeof *c);
}

/* StackedLayout::new (stacking.c) over matrices given as (width,
 * log_height, need_rot), heights non-increasing, as one commit's view. */
static glstark_status build_commit_layout(uint32_t l_skip, uint32_t n_stack, const uint32_t *widths,
                                          const uint32_t *logh, const uint8_t *rot, uint32_t nmats,
                                          gs_sred_commit *out, gs_error *err)
{
    gs_stack_trace_shape *shapes = malloc((nmats ? nmats : 1) * sizeof *shapes);
    if (!shapes)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory for the stacked layout");
    for (uint32_t m = 0; m < nmats; m++)
        shapes[m] = (gs_stack_trace_shape){widths[m], logh[m]};
    gs_stack_layout lay;
    glstark_status st = gs_stack_layout_build(l_skip, n_stack, shapes, nmats, &lay, err);
    free(shapes);
    if (st)
        return st;
    gs_red_slice *sl;
    uint8_t *nr;
    st = gs_sred_commit_from_layout(&lay, rot, out, &sl, &nr, err);
    gs_stack_layout_free(&lay);
    return st;
}

/* WHIR's parameters from SystemParams (gs_whir_params_of); zero rounds is a
 * configuration this verifier does not run (UNSUPPORTED, not a rejection). */
static glstark_status whir_params_of(const gs_system_params *prm, gs_whir_params *wp, gs_error *err)
{
    if (prm->whir.num_rounds == 0) {
        memset(wp, 0, sizeof *wp);
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED, "verifier: %zu WHIR rounds (supported: 1..%d)",
                            prm->whir.num_rounds, GS_WHIR_PROOF_MAX_ROUNDS);
    }
    return gs_whir_params_of(prm, wp, err);
}

#define SHAPE_FAIL(...) return gs_error_set(err, GLSTARK_ERR_REJECTED, "proof shape: " __VA_ARGS__)

/* trace_vdata and public_values against the key, AIR by AIR; *present is
 * the number of traces. */
static glstark_status check_vdata(const gs_multi_vk *vk, const gs_proof *proof, uint32_t *present, gs_error *err)
{
    const gs_system_params *prm = &vk->params;
    const uint32_t l_skip = (uint32_t)prm->l_skip, n_stack = (uint32_t)prm->n_stack;
    const size_t num_airs = vk->num_airs;
    if (proof->num_airs != num_airs)
        SHAPE_FAIL("InvalidVDataLength: trace_vdata has %u entries, the vk has %zu AIRs", proof->num_airs, num_airs);
    if (proof->num_public_value_lists != num_airs)
        SHAPE_FAIL("InvalidPublicValuesLength: public_values has %u entries, the vk has %zu AIRs",
                   proof->num_public_value_lists, num_airs);
    *present = 0;
    for (size_t a = 0; a < num_airs; a++) {
        const gs_air_vk *av = &vk->per_air[a];
        const gs_trace_vdata *tv = &proof->trace_vdata[a];
        uint32_t npv = proof->public_values[a].len;
        if (!tv->present) {
            if (av->is_required)
                SHAPE_FAIL("RequiredAirNoVData: AIR %zu is required, but has no trace", a);
            if (npv != 0)
                SHAPE_FAIL("PublicValuesNoVData: AIR %zu has no trace but %u public values", a, npv);
            continue;
        }
        (*present)++;
        if (tv->num_cached != av->num_cached_mains)
            SHAPE_FAIL("InvalidCachedCommitments: AIR %zu should have %zu cached commitments, has %u", a,
                       av->num_cached_mains, tv->num_cached);
        if (tv->log_height > l_skip + n_stack)
            SHAPE_FAIL("LogHeightOutOfBounds: AIR %zu has log_height %u > l_skip + n_stack = %u", a, tv->log_height,
                       l_skip + n_stack);
        if (npv != av->num_public_values)
            SHAPE_FAIL("InvalidPublicValues: AIR %zu should have %zu public values, has %u", a,
                       av->num_public_values, npv);
    }
    if (*present == 0)
        return gs_error_set(err, GLSTARK_ERR_REJECTED, "EmptyTraces: the proof has no traces");
    return GLSTARK_OK;
}

/* The trace order (log_height descending, then air id) and what it fixes:
 * the interaction count, the GKR rounds, n_max. */
static glstark_status order_traces(const gs_multi_vk *vk, const gs_proof *proof, uint32_t present,
                                   gs_verify_layout *out, gs_error *err)
{
    const uint32_t l_skip = (uint32_t)vk->params.l_skip, n_stack = (uint32_t)vk->params.n_stack;
    out->trace_air = malloc(present * sizeof(uint32_t));
    if (!out->trace_air)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
    out->num_traces = present;
    uint32_t k = 0;
    for (int h = (int)(l_skip + n_stack); h >= 0; h--)
        for (size_t a = 0; a < vk->num_airs; a++)
            if (proof->trace_vdata[a].present && proof->trace_vdata[a].log_height == (uint32_t)h)
                out->trace_air[k++] = (uint32_t)a;
    uint64_t total_int = 0;
    for (uint32_t t = 0; t < present; t++) {
        uint32_t a = out->trace_air[t];
        uint32_t lh = proof->trace_vdata[a].log_height;
        total_int += (uint64_t)vk->per_air[a].dag.num_interactions << (lh > l_skip ? lh : l_skip);
    }
    out->total_interactions = total_int;
    if (total_int) {
        uint32_t bl = 0;
        for (uint64_t x = total_int; x; x >>= 1)
            bl++;
        out->n_logup = bl - l_skip;
        out->num_gkr_rounds = l_skip + out->n_logup;
    }
    uint32_t lh0 = proof->trace_vdata[out->trace_air[0]].log_height;
    out->n_max = lh0 > l_skip ? lh0 - l_skip : 0;
    return GLSTARK_OK;
}

/* One trace's column openings: the common main, preprocessed and cached
 * parts with the key's widths (doubled where the AIR needs rotation). */
static glstark_status check_column_openings(const gs_air_vk *av, uint32_t a, const gs_column_openings *co,
                                            gs_error *err)
{
    size_t per = av->need_rot ? 2 : 1;
    size_t nparts = 1 + av->num_cached_mains + (av->has_preprocessed_data ? 1 : 0);
    if (co->num_parts != nparts)
        SHAPE_FAIL("InvalidColumnOpeningsPerAir: AIR %u has %zu parts, %u sets of openings found", a, nparts,
                   co->num_parts);
    if (co->parts[0].len != av->common_main_width * per)
        SHAPE_FAIL("InvalidColumnOpeningsPerAirMain: AIR %u: %zu openings expected, %u found", a,
                   av->common_main_width * per, co->parts[0].len);
    if (av->has_preprocessed_width && (nparts < 2 || co->parts[1].len != av->preprocessed_width * per))
        SHAPE_FAIL("InvalidColumnOpeningsPerAirPreprocessed: AIR %u: %zu openings expected", a,
                   av->preprocessed_width * per);
    size_t p = 1 + (av->has_preprocessed_data ? 1 : 0);
    for (size_t c = 0; c < av->num_cached_mains && p + c < co->num_parts; c++)
        if (co->parts[p + c].len != av->cached_main_widths[c] * per)
            SHAPE_FAIL("InvalidColumnOpeningsPerAirCached: AIR %u cached %zu: %zu openings expected, %u found", a, c,
                       av->cached_main_widths[c] * per, co->parts[p + c].len);
    return GLSTARK_OK;
}

/* GKR claims, the batch constraint proof and the stacking sumcheck: the
 * lengths the trace order and the parameters fix. */
static glstark_status check_sumcheck_shapes(const gs_multi_vk *vk, const gs_proof *proof,
                                            const gs_verify_layout *out, gs_error *err)
{
    const gs_system_params *prm = &vk->params;
    const uint32_t present = out->num_traces, n_max = out->n_max;
    if (proof->gkr.num_layers != out->num_gkr_rounds)
        SHAPE_FAIL("InvalidClaimsPerLayer: claims_per_layer should have %u claims, has %u", out->num_gkr_rounds,
                   proof->gkr.num_layers);
    /* sumcheck_polys lengths are implied by the codec (R-1 layers of 1..R-1 rounds) */
    const gs_batch_constraint_proof *b = &proof->batch;
    size_t D = prm->max_constraint_degree;
    size_t N = (size_t)1 << prm->l_skip;
    if (b->num_traces != present)
        SHAPE_FAIL("InvalidNumeratorTerms: numerator_term_per_air should have %u terms, has %u", present,
                   b->num_traces);
    if (b->univariate_round_coeffs.len != (D + 1) * (N - 1) + 1)
        SHAPE_FAIL("InvalidUnivariateRoundCoeffs (batch): %zu coefficients expected, %u found", (D + 1) * (N - 1) + 1,
                   b->univariate_round_coeffs.len);
    if (b->n_max != n_max)
        SHAPE_FAIL("InvalidSumcheckRoundPolys (batch): n_max = %u polynomials expected, %u found", n_max, b->n_max);
    if (n_max > 0 && b->round_poly_len != D + 1)
        SHAPE_FAIL("InvalidSumcheckRoundPolyEvals: %zu evaluations per round expected, %u found", D + 1,
                   b->round_poly_len);
    for (uint32_t t = 0; t < present; t++) {
        uint32_t a = out->trace_air[t];
        glstark_status st = check_column_openings(&vk->per_air[a], a, &b->column_openings[t], err);
        if (st)
            return st;
    }
    const gs_stacking_proof *s = &proof->stacking;
    if (s->univariate_round_coeffs.len != 2 * (N - 1) + 1)
        SHAPE_FAIL("InvalidUnivariateRoundCoeffs (stacking): %zu coefficients expected, %u found", 2 * (N - 1) + 1,
                   s->univariate_round_coeffs.len);
    if (s->num_rounds != prm->n_stack)
        SHAPE_FAIL("InvalidSumcheckRoundPolys (stacking): n_stack = %u rounds expected, %u found",
                   (uint32_t)prm->n_stack, s->num_rounds);
    return GLSTARK_OK;
}

/* The stacked layout of every commit: the common mains of all traces, then
 * per trace its preprocessed (if any) and cached mains, one commit each. */
static glstark_status build_layouts(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_layout *out,
                                    gs_error *err)
{
    const uint32_t l_skip = (uint32_t)vk->params.l_skip, n_stack = (uint32_t)vk->params.n_stack;
    const uint32_t present = out->num_traces;
    uint32_t ncommits = 1;
    for (uint32_t t = 0; t < present; t++) {
        const gs_air_vk *av = &vk->per_air[out->trace_air[t]];
        ncommits += (av->has_preprocessed_width ? 1u : 0u) + (uint32_t)av->num_cached_mains;
    }
    out->commits = calloc(ncommits, sizeof(gs_sred_commit));
    uint32_t *w = calloc(present, sizeof(uint32_t)), *lh = calloc(present, sizeof(uint32_t));
    uint8_t *rot = calloc(present, 1);
    if (!out->commits || !w || !lh || !rot) {
        free(w);
        free(lh);
        free(rot);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
    }
    out->num_commits = ncommits;
    for (uint32_t t = 0; t < present; t++) {
        uint32_t a = out->trace_air[t];
        w[t] = (uint32_t)vk->per_air[a].common_main_width;
        lh[t] = proof->trace_vdata[a].log_height;
        rot[t] = (uint8_t)(vk->per_air[a].need_rot != 0);
    }
    glstark_status st = build_commit_layout(l_skip, n_stack, w, lh, rot, present, &out->commits[0], err);
    uint32_t ci = 1;
    for (uint32_t t = 0; t < present && !st; t++) {
        const gs_air_vk *av = &vk->per_air[out->trace_air[t]];
        if (av->has_preprocessed_width) {
            uint32_t pw = (uint32_t)av->preprocessed_width;
            st = build_commit_layout(l_skip, n_stack, &pw, &lh[t], &rot[t], 1, &out->commits[ci++], err);
        }
        for (size_t c = 0; c < av->num_cached_mains && !st; c++) {
            uint32_t cw = (uint32_t)av->cached_main_widths[c];
            st = build_commit_layout(l_skip, n_stack, &cw, &lh[t], &rot[t], 1, &out->commits[ci++], err);
        }
    }
    free(w);
    free(lh);
    free(rot);
    return st;
}

/* The stacked widths against w_stack and the stacking openings, then the
 * WHIR proof (proof_shape.rs's WHIR part, implemented by whir.h). */
static glstark_status check_openings_and_whir(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_layout *out,
                                              gs_error *err)
{
    const gs_stacking_proof *s = &proof->stacking;
    const uint32_t ncommits = out->num_commits;
    uint64_t total_width = 0;
    for (uint32_t c = 0; c < ncommits; c++) {
        total_width += out->commits[c].width;
        out->total_slices += out->commits[c].num_slices;
    }
    if (total_width > vk->params.w_stack)
        SHAPE_FAIL("TotalStackedWidthOutOfBounds: total stacked width %llu exceeds w_stack %zu",
                   (unsigned long long)total_width, vk->params.w_stack);
    if (s->num_commits != ncommits)
        SHAPE_FAIL("InvalidStackOpenings: %u sets of stacking openings expected, %u found", ncommits, s->num_commits);
    for (uint32_t c = 0; c < ncommits; c++)
        if (s->stacking_openings[c].len != out->commits[c].width)
            SHAPE_FAIL("InvalidStackOpeningsPerMatrix: commit %u should have %u openings, has %u", c,
                       out->commits[c].width, s->stacking_openings[c].len);
    gs_whir_params wp;
    glstark_status st = whir_params_of(&vk->params, &wp, err);
    uint32_t *widths = st ? NULL : malloc((size_t)ncommits * sizeof(uint32_t));
    if (!st && !widths)
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
    if (!st) {
        for (uint32_t c = 0; c < ncommits; c++)
            widths[c] = out->commits[c].width;
        st = gs_whir_proof_check_shape(&proof->whir, &wp, widths, ncommits, err);
        if (st)
            gs_error_prefix(err, "proof shape");
    }
    free(widths);
    return st;
}

glstark_status gs_verify_proof_shape(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_layout *out,
                                     gs_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t present = 0;
    glstark_status st = check_vdata(vk, proof, &present, err);
    if (!st)
        st = order_traces(vk, proof, present, out, err);
    if (!st)
        st = check_sumcheck_shapes(vk, proof, out, err);
    if (!st)
        st = build_layouts(vk, proof, out, err);
    if (!st)
        st = check_openings_and_whir(vk, proof, out, err);
    if (st)
        gs_verify_layout_free(out);
    return st;
}

/* ---- the walk ---- */

typedef struct walk {
    const gs_multi_vk *vk;
    const gs_proof *proof;
    gs_verify_layout lay;
    gs_transcript ts;
    gs_fs fs;
    gs_verify_challenges *ch;
    unsigned checked;
    gs_error *err;
    bb4_t alpha, beta;
} walk;

static glstark_status pow_check(walk *w, size_t bits, bb_t witness, const char *what, bb_t *sample_out)
{
    if (bits == 0)
        return GLSTARK_OK;
    gs_error e2;
    gs_error_clear(&e2);
    glstark_status st = gs_transcript_check_witness(&w->ts, (unsigned)bits, bb_to_canonical(witness), &e2);
    if (sample_out)
        *sample_out = w->ts.st[w->ts.sample_idx]; /* the sample just drawn */
    if (st)
        return gs_error_set(w->err, GLSTARK_ERR_REJECTED, "%s: proof-of-work witness %u fails %zu bits (%s)", what,
                            bb_to_canonical(witness), bits, e2.msg);
    return GLSTARK_OK;
}

static glstark_status stage_preamble(walk *w)
{
    const gs_multi_vk *vk = w->vk;
    const gs_proof *p = w->proof;
    const size_t l_skip = vk->params.l_skip;
    /* trace-height linear constraints */
    for (size_t i = 0; i < vk->num_trace_height_constraints; i++) {
        const gs_linear_constraint *lc = &vk->trace_height_constraints[i];
        uint64_t sum = 0;
        for (uint32_t t = 0; t < w->lay.num_traces; t++) {
            uint32_t a = w->lay.trace_air[t];
            uint32_t lh = p->trace_vdata[a].log_height;
            sum += ((uint64_t)1 << (lh > l_skip ? lh : l_skip)) * lc->coefficients[a];
        }
        if (sum >= lc->threshold)
            return gs_error_set(w->err, GLSTARK_ERR_REJECTED,
                                "TraceHeightsTooLarge: trace-height constraint %zu sums to %llu >= threshold %u", i,
                                (unsigned long long)sum, lc->threshold);
    }
    gs_transcript_observe_commit(&w->ts, vk->pre_hash);
    gs_transcript_observe_commit(&w->ts, p->common_main_commit.v);
    for (size_t a = 0; a < vk->num_airs; a++) {
        const gs_air_vk *av = &vk->per_air[a];
        const gs_trace_vdata *tv = &p->trace_vdata[a];
        if (!av->is_required)
            gs_transcript_observe_u32(&w->ts, tv->present ? 1 : 0);
        if (tv->present) {
            if (av->has_preprocessed_data) {
                if ((int64_t)l_skip + av->preprocessed_data.hypercube_dim != (int64_t)tv->log_height)
                    return gs_error_set(w->err, GLSTARK_ERR_REJECTED,
                                        "PreprocessedTraceHeightMismatch: AIR %zu has log_height %u, its "
                                        "preprocessed trace 2^%lld rows",
                                        a, tv->log_height, (long long)(l_skip + av->preprocessed_data.hypercube_dim));
                gs_transcript_observe_commit(&w->ts, av->preprocessed_data.commit);
            } else {
                gs_transcript_observe_u32(&w->ts, tv->log_height);
            }
            for (uint32_t c = 0; c < tv->num_cached; c++)
                gs_transcript_observe_commit(&w->ts, tv->cached_commitments[c].v);
        }
        for (uint32_t i = 0; i < p->public_values[a].len; i++)
            gs_transcript_observe(&w->ts, p->public_values[a].v[i]);
    }
    bb_t smp = 0;
    glstark_status st = pow_check(w, vk->params.logup.pow_bits, p->gkr.logup_pow_witness, "LogUp", &smp);
    if (st)
        return st;
    bb4_t alpha = gs_fs_sample_ext(&w->fs);
    bb4_t beta = gs_fs_sample_ext(&w->fs);
    w->alpha = alpha;
    w->beta = beta;
    if (w->ch) {
        w->ch->logup_pow_sample = smp;
        w->ch->alpha = alpha;
        w->ch->beta = beta;
    }
    w->checked |= GS_VSTAGE_PREAMBLE;
    return GLSTARK_OK;
}

/* GKR (T5): gkr.h's verifier over a gs_gkr_proof view of the proof's
 * GkrProof (same claim order p0, p1, q0, q1 and sumcheck layout). Writes xi
 * (R entries) and p̂(ξ), q̂(ξ); without interactions p̂ = 0, q̂ = alpha and
 * OpenVM requires q0_claim == 1. */
static glstark_status stage_gkr(walk *w, bb4_t alpha, bb4_t *xi, bb4_t *p_claim, bb4_t *q_claim)
{
    const gs_proof_gkr *g = &w->proof->gkr;
    uint32_t R = w->lay.num_gkr_rounds;
    if (R == 0) {
        if (!bb4_eq(g->q0_claim, bb4_one()))
            return gs_error_set(w->err, GLSTARK_ERR_REJECTED,
                                "GKR: no interactions, but q0_claim is not 1 (OpenVM requires it)");
        *p_claim = bb4_zero();
        *q_claim = alpha;
        w->checked |= GS_VSTAGE_GKR;
        return GLSTARK_OK;
    }
    gs_gkr_layer_claims *cl = malloc((size_t)R * sizeof *cl);
    if (!cl)
        return gs_error_set(w->err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
    for (uint32_t j = 0; j < R; j++)
        cl[j] = (gs_gkr_layer_claims){g->claims_per_layer[j].p_xi_0, g->claims_per_layer[j].p_xi_1,
                                      g->claims_per_layer[j].q_xi_0, g->claims_per_layer[j].q_xi_1};
    gs_gkr_proof view = {g->q0_claim, R, cl, g->sumcheck_polys};
    glstark_status st = gs_gkr_verify(&w->fs, &view, R, xi, p_claim, q_claim, w->err);
    free(cl);
    if (st) {
        gs_error_prefix(w->err, "GKR");
        return st == GLSTARK_ERR_OUT_OF_MEMORY ? st : GLSTARK_ERR_REJECTED;
    }
    w->checked |= GS_VSTAGE_GKR;
    return GLSTARK_OK;
}

/* The batch constraint transcript (T7..T13) without its algebra: run on a
 * copy of the transcript to report lambda and mu. */
static void batch_replay(walk *w, gs_fs *fs)
{
    const gs_batch_constraint_proof *b = &w->proof->batch;
    bb4_t lambda = gs_fs_sample_ext(fs);
    for (uint32_t t = 0; t < b->num_traces; t++) {
        gs_fs_observe_ext(fs, b->numerator_term_per_air[t]);
        gs_fs_observe_ext(fs, b->denominator_term_per_air[t]);
    }
    bb4_t mu = gs_fs_sample_ext(fs);
    w->ch->batch_lambda = lambda;
    w->ch->batch_mu = mu;
}

/* Batch constraint sumcheck (T7..T13 and the final check): zerocheck.h's verifier on
 * the vk's DAGs, the public values and the proof's batch part. Writes r. */
static glstark_status stage_batch(walk *w, const bb4_t *xi, bb4_t alpha, bb4_t beta, bb4_t p_claim, bb4_t q_claim,
                                  bb4_t *r)
{
    const gs_batch_constraint_proof *b = &w->proof->batch;
    const uint32_t M = w->lay.num_traces;
    if (w->ch) {
        gs_transcript copy = w->ts;
        gs_fs cfs;
        cfs = gs_fs_wrap_transcript(&copy);
        batch_replay(w, &cfs);
    }
    glstark_status st = GLSTARK_OK;
    gs_cdag_owned *dags = calloc(M, sizeof *dags);
    gs_batch_trace *tr = calloc(M, sizeof *tr);
    uint32_t *pw = calloc((size_t)M * 64 + 1, sizeof(uint32_t));
    size_t nopen = 0;
    for (uint32_t t = 0; t < M; t++)
        for (uint32_t pi = 0; pi < b->column_openings[t].num_parts; pi++)
            nopen += b->column_openings[t].parts[pi].len;
    bb4_t *open = malloc((nopen + 1) * sizeof(bb4_t));
    if (!dags || !tr || !pw || !open) {
        st = gs_error_set(w->err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
        goto done;
    }
    size_t o = 0;
    for (uint32_t t = 0; t < M && !st; t++) {
        uint32_t a = w->lay.trace_air[t];
        const gs_air_vk *av = &w->vk->per_air[a];
        st = gs_cdag_from_vk(av, &dags[t], w->err);
        if (st)
            break;
        const gs_column_openings *co = &b->column_openings[t];
        if (co->num_parts > 64) {
            st = gs_error_set(w->err, GLSTARK_ERR_UNSUPPORTED, "verifier: AIR %u has %u parts (at most 64)", a,
                              co->num_parts);
            break;
        }
        uint32_t *widths = pw + (size_t)t * 64;
        uint32_t per = av->need_rot ? 2 : 1;
        for (uint32_t pi = 0; pi < co->num_parts; pi++) {
            widths[pi] = co->parts[pi].len / per;
            for (uint32_t i = 0; i < co->parts[pi].len; i++)
                open[o++] = co->parts[pi].v[i];
        }
        tr[t] = (gs_batch_trace){&dags[t].dag,
                                 w->proof->trace_vdata[a].log_height,
                                 co->num_parts,
                                 widths,
                                 w->proof->public_values[a].v,
                                 w->proof->public_values[a].len};
    }
    if (!st) {
        gs_batch_proof view = {M,
                               b->numerator_term_per_air,
                               b->denominator_term_per_air,
                               b->univariate_round_coeffs.len,
                               b->univariate_round_coeffs.v,
                               b->n_max,
                               b->n_max ? b->round_poly_len : (uint32_t)w->vk->params.max_constraint_degree + 1,
                               b->sumcheck_round_polys,
                               nopen,
                               open};
        st = gs_batch_verify(&w->fs, tr, M, (uint32_t)w->vk->params.l_skip,
                             (uint32_t)w->vk->params.max_constraint_degree, w->lay.n_logup, xi, alpha, beta, p_claim,
                             q_claim, &view, r, w->err);
        if (st) {
            gs_error_prefix(w->err, "batch constraints");
            if (st != GLSTARK_ERR_OUT_OF_MEMORY && st != GLSTARK_ERR_UNSUPPORTED)
                st = GLSTARK_ERR_REJECTED;
        } else {
            w->checked |= GS_VSTAGE_BATCH;
        }
    }
done:
    if (dags)
        for (uint32_t t = 0; t < M; t++)
            gs_cdag_owned_free(&dags[t]);
    free(dags);
    free(tr);
    free(pw);
    free(open);
    return st;
}

/* Claims [t, t_rot] in the stacked reduction's order: common-main columns of
 * every trace, then per trace its other parts (one commit each). */
static bb4_t *stacking_claims(walk *w)
{
    const gs_batch_constraint_proof *b = &w->proof->batch;
    bb4_t *cl = calloc(2 * (size_t)w->lay.total_slices + 2, sizeof(bb4_t));
    if (!cl)
        return NULL;
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < b->num_traces; t++) {
            int rot = w->vk->per_air[w->lay.trace_air[t]].need_rot;
            uint32_t p0 = pass == 0 ? 0 : 1, p1 = pass == 0 ? 1 : b->column_openings[t].num_parts;
            for (uint32_t pi = p0; pi < p1; pi++) {
                const gs_ef_vec *part = &b->column_openings[t].parts[pi];
                if (rot) {
                    for (uint32_t i = 0; i + 1 < part->len; i += 2, k++) {
                        cl[2 * k] = part->v[i];
                        cl[2 * k + 1] = part->v[i + 1];
                    }
                } else {
                    for (uint32_t i = 0; i < part->len; i++, k++)
                        cl[2 * k] = part->v[i];
                }
            }
        }
    return cl;
}

/* WHIR's transcript operations (docs/protocol.md, 'WHIR') without its algebra, to report its
 * challenges: run on a copy of the walk. */
static glstark_status whir_replay(walk *w)
{
    const gs_system_params *prm = &w->vk->params;
    const gs_whir_proof *h = &w->proof->whir;
    gs_fs *fs = &w->fs;
    glstark_status st = pow_check(w, prm->whir.mu_pow_bits, h->mu_pow_witness, "WHIR mu", NULL);
    if (st)
        return st;
    bb4_t mu = gs_fs_sample_ext(fs);
    size_t nu = prm->whir.num_rounds, k = prm->whir.k;
    size_t log_rs = prm->l_skip + prm->n_stack + prm->log_blowup;
    gs_verify_challenges *ch = w->ch;
    if (ch) {
        ch->whir_mu = mu;
        ch->num_whir_alphas = (uint32_t)(nu * k);
        ch->num_whir_rounds = (uint32_t)nu;
        ch->whir_alphas = calloc(nu * k + 1, sizeof(bb4_t));
        ch->whir_z0 = calloc(nu + 1, sizeof(bb4_t));
        ch->whir_gamma = calloc(nu + 1, sizeof(bb4_t));
        size_t nq = 0;
        for (size_t i = 0; i < nu; i++)
            nq += prm->whir.num_queries[i];
        ch->query_indices = calloc(nq + 1, sizeof(uint32_t));
        ch->num_query_indices = (uint32_t)nq;
        if (!ch->whir_alphas || !ch->whir_z0 || !ch->whir_gamma || !ch->query_indices)
            return gs_error_set(w->err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
    }
    size_t qi = 0;
    for (size_t i = 0; i < nu; i++) {
        for (size_t j = 0; j < k; j++) {
            size_t sc = i * k + j;
            gs_fs_observe_ext(fs, h->sumcheck_polys[2 * sc]);
            gs_fs_observe_ext(fs, h->sumcheck_polys[2 * sc + 1]);
            st = pow_check(w, prm->whir.folding_pow_bits, h->folding_pow_witnesses[sc], "WHIR folding", NULL);
            if (st)
                return st;
            bb4_t a = gs_fs_sample_ext(fs);
            if (ch)
                ch->whir_alphas[sc] = a;
        }
        if (i == nu - 1) {
            for (uint32_t c = 0; c < h->final_poly_len; c++)
                gs_fs_observe_ext(fs, h->final_poly[c]);
        } else {
            gs_transcript_observe_commit(&w->ts, h->codeword_commits[i].v);
            bb4_t z0 = gs_fs_sample_ext(fs);
            if (ch)
                ch->whir_z0[i] = z0;
            gs_fs_observe_ext(fs, h->ood_values[i]);
        }
        st = pow_check(w, prm->whir.query_phase_pow_bits, h->query_pow_witnesses[i], "WHIR query phase",
                       NULL);
        if (st)
            return st;
        for (size_t q = 0; q < prm->whir.num_queries[i]; q++) {
            uint32_t idx = gs_transcript_sample_bits(&w->ts, (unsigned)(log_rs - k));
            if (ch)
                ch->query_indices[qi] = idx;
            qi++;
        }
        bb4_t gamma = gs_fs_sample_ext(fs);
        if (ch)
            ch->whir_gamma[i] = gamma;
        log_rs--;
    }
    return GLSTARK_OK;
}

/* WHIR: whir.h's verifier on the point u_cube = (u_0, u_0^2, .., u_0^(2^(l-1)),
 * u_1, .., u_{n_stack}) and the commitments [common main, then per sorted
 * trace: preprocessed?, cached..]. */
static glstark_status stage_whir(walk *w, const bb4_t *u)
{
    const gs_system_params *prm = &w->vk->params;
    const gs_proof *p = w->proof;
    const uint32_t l_skip = (uint32_t)prm->l_skip, n_stack = (uint32_t)prm->n_stack;
    if (w->ch) {
        walk copy = *w;
        copy.fs = gs_fs_wrap_transcript(&copy.ts);
        gs_error e2;
        copy.err = &e2;
        (void)whir_replay(&copy); /* failures are reported by the real verifier below */
    }
    gs_whir_params wp;
    glstark_status st = whir_params_of(prm, &wp, w->err);
    if (st)
        return st;
    uint32_t nc = w->lay.num_commits;
    gs_whir_digest *commits = calloc(nc, sizeof *commits);
    uint32_t *widths = calloc(nc, sizeof *widths);
    bb4_t *ucube = calloc((size_t)l_skip + n_stack + 1, sizeof(bb4_t));
    size_t nopen = 0;
    for (uint32_t c = 0; c < nc; c++)
        nopen += p->stacking.stacking_openings[c].len;
    bb4_t *open = malloc((nopen + 1) * sizeof(bb4_t));
    if (!commits || !widths || !ucube || !open) {
        st = gs_error_set(w->err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
        goto done;
    }
    memcpy(commits[0].v, p->common_main_commit.v, sizeof commits[0].v);
    uint32_t ci = 1;
    for (uint32_t t = 0; t < w->lay.num_traces; t++) {
        uint32_t a = w->lay.trace_air[t];
        const gs_air_vk *av = &w->vk->per_air[a];
        if (av->has_preprocessed_data && ci < nc)
            memcpy(commits[ci++].v, av->preprocessed_data.commit, sizeof commits[0].v);
        for (uint32_t c = 0; c < p->trace_vdata[a].num_cached && ci < nc; c++)
            memcpy(commits[ci++].v, p->trace_vdata[a].cached_commitments[c].v, sizeof commits[0].v);
    }
    if (ci != nc) {
        st = gs_error_set(w->err, GLSTARK_ERR_REJECTED,
                          "verifier: %u commitments for %u stacked matrices (preprocessed data and widths of the vk "
                          "disagree)",
                          ci, nc);
        goto done;
    }
    size_t o = 0;
    for (uint32_t c = 0; c < nc; c++) {
        widths[c] = w->lay.commits[c].width;
        for (uint32_t i = 0; i < p->stacking.stacking_openings[c].len; i++)
            open[o++] = p->stacking.stacking_openings[c].v[i];
    }
    bb4_t x = u[0];
    for (uint32_t i = 0; i < l_skip; i++) {
        ucube[i] = x;
        x = bb4_square(x);
    }
    for (uint32_t j = 1; j <= n_stack; j++)
        ucube[l_skip + j - 1] = u[j];
    st = gs_whir_verify(&w->ts, &wp, &p->whir, commits, widths, nc, open, nopen, ucube, (size_t)l_skip + n_stack,
                        w->err);
    if (st) {
        gs_error_prefix(w->err, "WHIR");
        if (st != GLSTARK_ERR_OUT_OF_MEMORY && st != GLSTARK_ERR_UNSUPPORTED)
            st = GLSTARK_ERR_REJECTED;
    } else {
        w->checked |= GS_VSTAGE_WHIR;
    }
done:
    free(commits);
    free(widths);
    free(ucube);
    free(open);
    return st;
}

static glstark_status run(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_challenges *ch, unsigned *checked,
                          gs_error *err)
{
    walk w;
    memset(&w, 0, sizeof w);
    w.vk = vk;
    w.proof = proof;
    w.ch = ch;
    w.err = err;
    if (ch)
        memset(ch, 0, sizeof *ch);
    if (checked)
        *checked = 0;
    if (!vk->has_pre_hash)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "verifier: the verifying key has no pre-hash; compute it with gs_vk_compute_pre_hash");
    glstark_status st = gs_verify_proof_shape(vk, proof, &w.lay, err);
    if (st)
        return st;
    w.checked |= GS_VSTAGE_SHAPE;
    gs_transcript_init(&w.ts);
    w.fs = gs_fs_wrap_transcript(&w.ts);

    const uint32_t l_skip = (uint32_t)vk->params.l_skip, n_stack = (uint32_t)vk->params.n_stack;
    uint32_t n_global = w.lay.n_max > w.lay.n_logup ? w.lay.n_max : w.lay.n_logup;
    uint32_t xi_len = l_skip + n_global;
    uint32_t xi_cap = xi_len > w.lay.num_gkr_rounds ? xi_len : w.lay.num_gkr_rounds;
    bb4_t *xi = calloc((size_t)xi_cap + 1, sizeof(bb4_t));
    bb4_t *r = calloc((size_t)w.lay.n_max + 1, sizeof(bb4_t));
    bb4_t *u = calloc((size_t)n_stack + 1, sizeof(bb4_t));
    bb4_t *claims = NULL;
    if (!xi || !r || !u) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
        goto done;
    }
    st = stage_preamble(&w);
    if (st)
        goto done;
    bb4_t p_claim, q_claim;
    st = stage_gkr(&w, w.alpha, xi, &p_claim, &q_claim);
    if (st)
        goto done;
    for (uint32_t i = w.lay.num_gkr_rounds; i < xi_len; i++)
        xi[i] = gs_fs_sample_ext(&w.fs);
    st = stage_batch(&w, xi, w.alpha, w.beta, p_claim, q_claim, r);
    if (st)
        goto done;
    claims = stacking_claims(&w);
    if (!claims) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "verifier: out of host memory");
        goto done;
    }
    st = gs_sred_verify(&w.fs, &proof->stacking, (gs_sred_params){l_skip, n_stack}, w.lay.commits, w.lay.num_commits,
                        claims, r, w.lay.n_max + 1, u, err);
    if (st)
        goto done;
    w.checked |= GS_VSTAGE_STACKING;
    st = stage_whir(&w, u);
    if (st)
        goto done;
    if (ch) {
        ch->xi_len = xi_len;
        ch->xi = xi;
        xi = NULL;
        ch->r_len = w.lay.n_max + 1;
        ch->r = r;
        r = NULL;
        ch->u_len = n_stack + 1;
        ch->u = u;
        u = NULL;
    }
done:
    free(xi);
    free(r);
    free(u);
    free(claims);
    gs_verify_layout_free(&w.lay);
    if (checked)
        *checked = w.checked;
    return st;
}

glstark_status gs_verify_replay(const gs_multi_vk *vk, const gs_proof *proof, gs_verify_challenges *ch,
                                unsigned *checked_stages, gs_error *err)
{
    return run(vk, proof, ch, checked_stages, err);
}

glstark_status gs_verify(const gs_multi_vk *vk, const gs_proof *proof, gs_error *err)
{
    unsigned checked = 0;
    glstark_status st = run(vk, proof, NULL, &checked, err);
    if (st)
        return st;
    if (checked != GS_VSTAGE_ALL) {
        const char *names[] = {"shape", "preamble", "GKR", "batch constraints", "stacked reduction", "WHIR"};
        char missing[160] = "";
        for (int i = 0; i < 6; i++)
            if (!(checked & (1u << i))) {
                strncat(missing, missing[0] ? ", " : "", sizeof missing - strlen(missing) - 1);
                strncat(missing, names[i], sizeof missing - strlen(missing) - 1);
            }
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "verifier: every executed check passed, but these stages did not run their checks: "
                            "%s; the proof is NOT accepted",
                            missing);
    }
    return GLSTARK_OK;
}

glstark_status gs_verify_bytes(const gs_multi_vk *vk, const uint8_t *bytes, size_t len, gs_error *err)
{
    gs_proof p;
    glstark_status st = gs_proof_decode(bytes, len, &p, err);
    if (st)
        return st;
    st = gs_verify(vk, &p, err);
    gs_proof_free(&p);
    return st;
}
