/* The prove plan (see prove_plan.h): the input checks and every layout
 * fact of a proof, derived once. */
#include "prove/prove_plan.h"

#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "common/stacking.h"
#include "field/canonical.h"
#include "hash/merkle.h"
#include "hash/poseidon2.h"

static glstark_status oom(gs_error *err)
{
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "prove: out of host memory");
}

/* An AIR's preprocessed trace and cached mains against its key: the
 * preprocessed trace comes from the AIR the proving key was made from. */
static glstark_status check_side_inputs(const gs_multi_pk *pk, size_t a, const glstark_air_trace *tr,
                                        gs_error *err)
{
    const gs_multi_vk *vk = &pk->vk;
    const gs_air_vk *av = &vk->per_air[a];
    if (av->has_preprocessed_width != av->has_preprocessed_data)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "prove: AIR %zu's key has preprocessed %s but no %s (make the key with keygen)", a,
                            av->has_preprocessed_width ? "columns" : "data",
                            av->has_preprocessed_width ? "commitment" : "columns");
    if (av->has_preprocessed_data) {
        const glstark_air *air = pk->airs && pk->num_airs == vk->num_airs ? pk->airs[a] : NULL;
        const int64_t lh = (int64_t)vk->params.l_skip + av->preprocessed_data.hypercube_dim;
        if (!air || !air->preprocessed_trace || air->preprocessed_width != av->preprocessed_width)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu has a preprocessed trace, but the proving key holds no AIR with "
                                "that trace (%zu columns); prove with the key keygen made from the AIRs",
                                a, av->preprocessed_width);
        if (lh < 0 || lh > 62 || tr->height != ((size_t)1 << lh) || air->preprocessed_height != tr->height)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu has %zu rows, its preprocessed trace %zu (the key says 2^%lld); "
                                "every part of a trace has the preprocessed trace's height",
                                a, tr->height, air->preprocessed_height, (long long)lh);
    }
    if (av->num_cached_mains && !tr->cached_mains)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "prove: AIR %zu has %zu cached mains but the trace gives none (set cached_mains)", a,
                            av->num_cached_mains);
    for (size_t c = 0; c < av->num_cached_mains; c++) {
        const glstark_trace_part *cp = &tr->cached_mains[c];
        if (cp->width != av->cached_main_widths[c] || !cp->values)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu cached main %zu has %zu columns%s, the AIR has %zu (cached mains "
                                "are passed whole; trace_rows streams only the common main)",
                                a, c, cp->width, cp->values ? "" : " and no values", av->cached_main_widths[c]);
        size_t n = cp->width * tr->height, bad = gs_first_non_canonical(cp->values, n, 0);
        if (bad < n)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu cached main %zu value %u (column %zu, row %zu) is not below p = %u",
                                a, c, cp->values[bad], bad / tr->height, bad % tr->height, (unsigned)BB_P);
    }
    return GLSTARK_OK;
}

/* log2 of a power of two */
static uint32_t log2_height(size_t height)
{
    uint32_t lh = 0;
    while (((size_t)1 << lh) < height)
        lh++;
    return lh;
}

/* The traces against the key; counts the present ones. */
static glstark_status check_inputs(const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                                   const gs_prove_options *opt, uint32_t *present_out, gs_error *err)
{
    const gs_multi_vk *vk = &pk->vk;
    const size_t L = vk->params.l_skip + vk->params.n_stack;
    if (num_traces != vk->num_airs)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "prove: %zu traces given, the key has %zu AIRs (pass one per AIR, height 0 = absent)",
                            num_traces, vk->num_airs);
    uint32_t present = 0;
    for (size_t a = 0; a < vk->num_airs; a++) {
        const gs_air_vk *av = &vk->per_air[a];
        const glstark_air_trace *tr = &traces[a];
        if (tr->height == 0) {
            if (av->is_required)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "prove: AIR %zu is required but has no trace (height 0)", a);
            if (tr->num_public_values)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "prove: AIR %zu has no trace but %zu public values (an absent AIR has none)", a,
                                    tr->num_public_values);
            continue;
        }
        if (tr->height & (tr->height - 1))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu trace height %zu is not a power of two", a, tr->height);
        const uint32_t lh = log2_height(tr->height);
        if (lh > L)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu has 2^%u rows, more than the stacked height 2^%zu of these params "
                                "(raise l_skip + n_stack)",
                                a, lh, L);
        if (tr->common_main.width != av->common_main_width)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu trace has %zu columns, the AIR has %zu", a, tr->common_main.width,
                                av->common_main_width);
        if (!tr->common_main.values && !opt->trace_rows && !(opt->row_major_mains && opt->row_major_mains[a]))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu trace values are NULL and no trace_rows source is given (pass the "
                                "values, or set glstark_prove_options.trace_rows)",
                                a);
        if (tr->num_public_values != av->num_public_values || (tr->num_public_values && !tr->public_values))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu has %zu public values, the AIR has %zu", a, tr->num_public_values,
                                av->num_public_values);
        glstark_status st = check_side_inputs(pk, a, tr, err);
        if (st)
            return st;
        present++;
    }
    if (!present)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "prove: every trace is absent (OpenVM refuses empty proofs: EmptyTraces)");
    *present_out = present;
    return GLSTARK_OK;
}

/* The present traces in sorted order (OpenVM sort_for_stacking: log height
 * descending, then AIR id). */
static glstark_status sort_traces(gs_prove_plan *p, const gs_multi_vk *vk, const glstark_air_trace *traces,
                                  gs_error *err)
{
    uint32_t *present_air = malloc(p->M * sizeof(uint32_t)), *plogh = malloc(p->M * sizeof(uint32_t)),
             *order = malloc(p->M * sizeof(uint32_t));
    p->trace_air = malloc(p->M * sizeof(uint32_t));
    p->logh = malloc(p->M * sizeof(uint32_t));
    glstark_status st = GLSTARK_OK;
    if (!present_air || !plogh || !order || !p->trace_air || !p->logh) {
        st = oom(err);
        goto out;
    }
    uint32_t k = 0;
    for (size_t a = 0; a < vk->num_airs; a++)
        if (traces[a].height) {
            present_air[k] = (uint32_t)a;
            plogh[k++] = log2_height(traces[a].height);
        }
    st = gs_stack_sort_order(plogh, p->M, order, err);
    for (uint32_t t = 0; !st && t < p->M; t++) {
        p->trace_air[t] = present_air[order[t]];
        p->logh[t] = plogh[order[t]];
    }
out:
    free(present_air);
    free(plogh);
    free(order);
    return st;
}

/* The side commits and the parts of every trace, in part order. */
static glstark_status plan_parts(gs_prove_plan *p, const gs_multi_vk *vk, const glstark_air_trace *traces,
                                 gs_error *err)
{
    const uint32_t M = p->M;
    p->side_first = calloc(M + 1, sizeof(uint32_t));
    p->part_base = calloc(M, sizeof(uint32_t));
    if (!p->side_first || !p->part_base)
        return oom(err);
    for (uint32_t t = 0; t < M; t++) {
        const gs_air_vk *av = &vk->per_air[p->trace_air[t]];
        p->side_first[t + 1] = p->side_first[t] + (av->has_preprocessed_data ? 1u : 0u) +
                               (uint32_t)av->num_cached_mains;
        p->part_base[t] = t + p->side_first[t];
    }
    p->n_sides = p->side_first[M];
    p->num_parts = M + p->n_sides;
    p->sides = calloc(p->n_sides ? p->n_sides : 1, sizeof(gs_plan_side));
    p->part_width = calloc(p->num_parts, sizeof(uint32_t));
    if (!p->sides || !p->part_width)
        return oom(err);
    for (uint32_t t = 0; t < M; t++) {
        uint32_t a = p->trace_air[t], i = p->side_first[t];
        const gs_air_vk *av = &vk->per_air[a];
        if (av->has_preprocessed_data)
            p->sides[i++] = (gs_plan_side){.t = t, .air = a, .is_prep = 1, .width = (uint32_t)av->preprocessed_width};
        for (size_t c = 0; c < av->num_cached_mains; c++)
            p->sides[i++] =
                (gs_plan_side){.t = t, .air = a, .cached = (uint32_t)c, .width = (uint32_t)av->cached_main_widths[c]};
        const uint32_t b = p->part_base[t];
        p->part_width[b] = (uint32_t)traces[a].common_main.width;
        for (uint32_t j = 0; j < i - p->side_first[t]; j++)
            p->part_width[b + 1 + j] = p->sides[p->side_first[t] + j].width;
    }
    return GLSTARK_OK;
}

/* Whether every trace is a contiguous column-major block of Q (a trace of
 * at least 2^l_skip rows whose columns follow each other down the stacked
 * columns; true whenever no trace is shorter than 2^l_skip, since heights
 * are powers of two placed tallest first). Fills q_off with each trace's
 * element offset. */
static int layout_is_in_place(const gs_stack_layout *lay, size_t H, size_t *q_off)
{
    for (size_t t = 0; t < lay->ntraces; t++)
        q_off[t] = SIZE_MAX;
    for (size_t k = 0; k < lay->nslices; k++) {
        const gs_stack_slice *sl = &lay->slices[k];
        if (sl->log_height < lay->l_skip || sl->trace >= lay->ntraces)
            return 0;
        size_t at = (size_t)sl->stacked_col * H + sl->row, h = (size_t)1 << sl->log_height;
        size_t base = at - (size_t)sl->trace_col * h;
        if ((size_t)sl->trace_col * h > at || (q_off[sl->trace] != SIZE_MAX && q_off[sl->trace] != base))
            return 0;
        q_off[sl->trace] = base;
    }
    for (size_t t = 0; t < lay->ntraces; t++)
        if (q_off[t] == SIZE_MAX && lay->traces[t].width)
            return 0;
    return 1;
}

/* The first element of Q no trace covers, for traces uploaded into Q:
 * slices never overlap, so when their sizes add up to the end of the last
 * one they cover [0, end); else 0 (zero all of Q). */
static size_t uncovered_from(const gs_stack_layout *lay, size_t H)
{
    size_t covered = 0, end = 0;
    for (size_t k = 0; k < lay->nslices; k++) {
        const gs_stack_slice *sl = &lay->slices[k];
        size_t at = (size_t)sl->stacked_col * H + sl->row, h = (size_t)1 << sl->log_height;
        covered += h;
        end = at + h > end ? at + h : end;
    }
    return covered == end ? end : 0;
}

/* The common main's commit: its stacked layout (at most w_stack columns),
 * the stacked reduction's view of it, and whether the traces lie in Q. */
static glstark_status plan_main_commit(gs_prove_plan *p, const gs_multi_vk *vk, const glstark_air_trace *traces,
                                       gs_error *err)
{
    const gs_system_params *sp = p->sp;
    gs_stack_trace_shape *shapes = calloc(p->M, sizeof *shapes);
    uint8_t *rot = calloc(p->M, 1);
    p->q_off = calloc(p->M, sizeof(size_t));
    if (!shapes || !rot || !p->q_off) {
        free(shapes);
        free(rot);
        return oom(err);
    }
    for (uint32_t t = 0; t < p->M; t++) {
        shapes[t] = (gs_stack_trace_shape){(uint32_t)traces[p->trace_air[t]].common_main.width, p->logh[t]};
        rot[t] = (uint8_t)(vk->per_air[p->trace_air[t]].need_rot != 0);
    }
    glstark_status st = gs_stack_layout_build(p->l_skip, p->n_stack, shapes, p->M, &p->lay, err);
    free(shapes);
    if (!st && p->lay.width > sp->w_stack)
        st = gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                          "prove: the stacked matrix is %u columns wide, more than w_stack = %zu (OpenVM: "
                          "TotalStackedWidthOutOfBounds); use a larger l_skip + n_stack",
                          p->lay.width, sp->w_stack);
    gs_red_slice *slices;
    uint8_t *need_rot;
    if (!st)
        st = gs_sred_commit_from_layout(&p->lay, rot, &p->red, &slices, &need_rot, err);
    free(rot);
    if (st)
        return st;
    if (p->lay.ntraces == p->M && layout_is_in_place(&p->lay, p->stacked_rows, p->q_off)) {
        p->traces_in_q = 1;
        p->q_zero_from = uncovered_from(&p->lay, p->stacked_rows);
    }
    const gs_stack_trace_shape qshape = {p->lay.width, p->L};
    return gs_stack_layout_build(p->l_skip, p->n_stack, &qshape, 1, &p->q_self, err);
}

/* Each side commit's layout (its one trace stacked alone), with the width
 * of all commits together at most w_stack. */
static glstark_status plan_side_commits(gs_prove_plan *p, const gs_multi_vk *vk, gs_error *err)
{
    size_t total_width = p->lay.width;
    for (uint32_t i = 0; i < p->n_sides; i++) {
        gs_plan_side *d = &p->sides[i];
        const gs_stack_trace_shape shape = {d->width, p->logh[d->t]};
        glstark_status st = gs_stack_layout_build(p->l_skip, p->n_stack, &shape, 1, &d->lay, err);
        if (st)
            return st;
        total_width += d->lay.width;
        if (total_width > p->sp->w_stack)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: the stacked matrices are %zu columns wide in all, more than w_stack = %zu "
                                "(OpenVM: TotalStackedWidthOutOfBounds); use a larger l_skip + n_stack",
                                total_width, p->sp->w_stack);
        size_t off = 0;
        d->in_q = layout_is_in_place(&d->lay, p->stacked_rows, &off) && off == 0;
        const uint8_t rot = (uint8_t)(vk->per_air[d->air].need_rot != 0);
        gs_red_slice *slices;
        uint8_t *need_rot;
        if ((st = gs_sred_commit_from_layout(&d->lay, &rot, &d->red, &slices, &need_rot, err)))
            return st;
    }
    return GLSTARK_OK;
}

/* The codeword of Q encoded a group of columns of one row class at a time:
 * groups are whole rate blocks of 8 columns, as many as fit 64 MiB (or the
 * option's count, rounded up to a block), at most the W columns of Q
 * rounded up to a block. */
static size_t stream_group_cols(const gs_prove_options *opt, size_t rows, uint32_t W)
{
    size_t blocks = GS_MERKLE_STREAM_GROUP_WORDS / ((size_t)GS_P2_RATE * rows);
    size_t G = GS_P2_RATE * (blocks > 1 ? blocks : 1);
    if (opt->stream_group_cols)
        G = (opt->stream_group_cols + GS_P2_RATE - 1) / GS_P2_RATE * GS_P2_RATE;
    /* whole rate blocks: a short last block's tail lies in the group */
    size_t whole = ((size_t)W + GS_P2_RATE - 1) / GS_P2_RATE * GS_P2_RATE;
    return G < whole ? G : whole;
}

glstark_status gs_prove_plan_build(gs_prove_plan *plan, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                   size_t num_traces, const gs_prove_options *opt, gs_error *err)
{
    memset(plan, 0, sizeof *plan);
    const gs_multi_vk *vk = &pk->vk;
    const gs_system_params *sp = &vk->params;
    gs_prove_plan p;
    memset(&p, 0, sizeof p);
    p.sp = sp;
    glstark_status st = check_inputs(pk, traces, num_traces, opt, &p.M, err);
    if (st)
        return st;
    if ((st = gs_whir_params_of(sp, &p.whir, err)) || (st = gs_whir_params_encodable(&p.whir, err)))
        return st;
    p.l_skip = (uint32_t)sp->l_skip;
    p.n_stack = (uint32_t)sp->n_stack;
    p.L = p.l_skip + p.n_stack;
    p.stacked_rows = (size_t)1 << p.L;
    p.codeword_rows = (size_t)1 << (p.L + sp->log_blowup);
    for (size_t a = 0; a < vk->num_airs; a++)
        if (traces[a].height && vk->per_air[a].dag.num_interactions)
            p.has_interactions = 1;
    if ((st = sort_traces(&p, vk, traces, err)) || (st = plan_parts(&p, vk, traces, err)) ||
        (st = plan_main_commit(&p, vk, traces, err)) || (st = plan_side_commits(&p, vk, err))) {
        gs_prove_plan_free(&p);
        return st;
    }
    /* The streamed commit takes the codeword's rows a class at a time (rows
     * r with r mod 2^b = p: each a coset, encoded by a DFT of Q's height),
     * where the tree's query cosets are whole in a class (k >= 1, S a
     * multiple of 2^b). It holds 8 capacity words and a group's G words per
     * class row where the codeword has W words per row: it pays when
     * (8 + G) / 2^lc < W (keccakf: 16 / 2 against 42). */
    p.stream_log_classes =
        gs_merkle_stream_log_classes(p.codeword_rows, (unsigned)sp->whir.k, (unsigned)sp->log_blowup);
    const size_t class_rows = p.codeword_rows >> p.stream_log_classes;
    p.stream_group_cols = stream_group_cols(opt, class_rows, p.lay.width);
    p.stream_commit = opt->reencode_codeword &&
                      ((GS_DIGEST_LEN + p.stream_group_cols) >> p.stream_log_classes) < p.lay.width;
    *plan = p;
    return GLSTARK_OK;
}

static void red_free(gs_sred_commit *c)
{
    free((void *)c->slices);
    free((void *)c->need_rot);
    memset(c, 0, sizeof *c);
}

void gs_prove_plan_free(gs_prove_plan *p)
{
    for (uint32_t i = 0; p->sides && i < p->n_sides; i++) {
        gs_stack_layout_free(&p->sides[i].lay);
        red_free(&p->sides[i].red);
    }
    free(p->sides);
    free(p->trace_air);
    free(p->logh);
    free(p->part_base);
    free(p->part_width);
    free(p->side_first);
    gs_stack_layout_free(&p->lay);
    red_free(&p->red);
    free(p->q_off);
    gs_stack_layout_free(&p->q_self);
    memset(p, 0, sizeof *p);
}
