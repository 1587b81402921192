/* The whole-proof prover (see prover.h): it only sequences the existing
 * pieces (stacking + RS + Merkle commit, transcript, LogUp/zerocheck,
 * stacked reduction, WHIR) and assembles the Proof struct. */
#include "prove/whir.h"
#include "prove/prover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "engine/dft_ops.h"
#include "field/canonical.h"
#include "engine/hash_ops.h"
#include "engine/zc_trace.h"
#include "common/air_cdag.h"
#include "prove/logup_zerocheck.h"
#include "prove/prep_commit.h"
#include "prove/proof_bridge.h"
#include "prove/spans.h"
#include "prove/stacked_commit.h"
#include "common/stacked_reduction.h"
#include "prove/stacked_reduction.h"
#include "common/stacking.h"
#include "common/transcript.h"
#include "common/fs_transcript.h"
#include "util/clock.h"

/* A buffer with a copy per engine (0: the main engine, 1: the fallback),
 * made on demand. */
typedef struct mbuf {
    gs_buf *b[2];
} mbuf;

/* A commitment besides the common main's: one AIR's preprocessed trace or
 * one of its cached mains, a single trace stacked on its own (OpenVM
 * commits each of these separately). The proof lists them after the common
 * main, per sorted trace: [preprocessed?, cached_0, cached_1, ..]. */
typedef struct side {
    uint32_t t;        /* the sorted trace it belongs to */
    uint32_t air;
    int is_prep;       /* 1: preprocessed, 0: cached main number `cached` */
    uint32_t cached;
    uint32_t width;
    /* the trace, column-major with 2^logh rows, as the constraint phases
     * read it: its own buffer, or (in_q) the stacked matrix itself, where a
     * trace of at least 2^l_skip rows lies whole from element 0 */
    mbuf trace;
    int in_q;
    gs_stack_layout lay;
    int have_lay;
    mbuf q, cw;
    gs_merkle_dev tree[2];
    int have_tree[2];
    bb_t root[GS_DIGEST_LEN];
    gs_red_slice *slices; /* the stacked reduction's view of lay */
    uint8_t *need_rot;
} side;

/* Everything the prover allocates, released in one place. */
typedef struct pstate {
    gs_engine *eng[2];
    uint32_t M;                 /* present traces */
    uint32_t *trace_air;        /* sorted position -> air id */
    uint32_t *logh;             /* per sorted trace */
    mbuf *main;                 /* per sorted trace: common main, Montgomery, column-major */
    gs_trace_ref *refs;
    gs_cdag_owned *dags;
    bb_t **publics;
    uint32_t *widths;
    /* every trace's parts in opening order, trace t's from part_base[t]:
     * [common main, then its sides]; buffer, offset of column 0, width */
    const gs_buf **part_ptrs;
    size_t *part_off;
    uint32_t *part_base;
    side *sides;                /* per sorted trace in order, each trace's in part order */
    uint32_t n_sides;
    uint32_t *side_first;       /* per sorted trace: index of its first side */
    gs_zc_trace *zc;
    /* 1: every trace was uploaded straight into the stacked matrix Q (each
     * one is a contiguous column-major block there, at element q_off[t]),
     * so there are no separate trace buffers and no stacking copy */
    int traces_in_q;
    size_t *q_off;
    gs_stack_layout lay;
    int have_lay;
    mbuf q, cw;
    gs_merkle_dev tree[2];
    int have_tree[2];
    gs_red_slice *slices;
    uint8_t *need_rot;
    bb4_t *r, *u, *ucube;
    gs_lz_proof lz;
    int have_lz;
    unsigned fallback_phases;
    char missing[256];
} pstate;

static void mbuf_free(mbuf *m)
{
    gs_buf_destroy(m->b[0]);
    gs_buf_destroy(m->b[1]);
    m->b[0] = m->b[1] = NULL;
}

static void side_free(side *d)
{
    mbuf_free(&d->trace);
    mbuf_free(&d->q);
    mbuf_free(&d->cw);
    for (int e = 0; e < 2; e++)
        if (d->have_tree[e])
            gs_merkle_dev_release(&d->tree[e]);
    if (d->have_lay)
        gs_stack_layout_free(&d->lay);
    free(d->slices);
    free(d->need_rot);
    memset(d, 0, sizeof *d);
}

static void pstate_free(pstate *s)
{
    for (uint32_t t = 0; t < s->M; t++) {
        if (s->main)
            mbuf_free(&s->main[t]);
        if (s->dags)
            gs_cdag_owned_free(&s->dags[t]);
        if (s->publics)
            free(s->publics[t]);
    }
    free(s->trace_air);
    free(s->logh);
    free(s->main);
    free(s->refs);
    free(s->dags);
    free(s->publics);
    free(s->widths);
    free(s->part_ptrs);
    free(s->part_off);
    free(s->part_base);
    for (uint32_t i = 0; s->sides && i < s->n_sides; i++)
        side_free(&s->sides[i]);
    free(s->sides);
    free(s->side_first);
    free(s->q_off);
    free(s->zc);
    if (s->have_lay)
        gs_stack_layout_free(&s->lay);
    for (int e = 0; e < 2; e++)
        if (s->have_tree[e])
            gs_merkle_dev_release(&s->tree[e]);
    mbuf_free(&s->q);
    mbuf_free(&s->cw);
    free(s->slices);
    free(s->need_rot);
    free(s->r);
    free(s->u);
    free(s->ucube);
    if (s->have_lz)
        gs_lz_proof_free(&s->lz);
    memset(s, 0, sizeof *s);
}

static glstark_status oom(gs_error *err)
{
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "prove: out of host memory");
}

/* Engine failures carry their message in eng->err. */
static glstark_status eng_fail(gs_engine *eng, glstark_status st, const char *what, gs_error *err)
{
    return gs_error_set(err, st, "prove: %s failed on the %s engine: %s", what, eng->core->name, eng->err.msg);
}

/* Copies a buffer from one engine to another through the host. */
static glstark_status move_buf(gs_engine *to, const gs_buf *from, gs_buf **out, gs_error *err)
{
    void *h = malloc(from->size ? from->size : 1);
    if (!h)
        return oom(err);
    glstark_status st = gs_buf_read(from, 0, h, from->size);
    if (st) {
        free(h);
        return eng_fail(from->engine, st, "reading a buffer back for the fallback engine", err);
    }
    st = gs_buf_create(to, from->size ? from->size : 1, out);
    if (!st)
        st = gs_buf_write(*out, 0, h, from->size);
    free(h);
    if (st)
        return eng_fail(to, st, "copying a buffer to the fallback engine", err);
    return GLSTARK_OK;
}

static glstark_status mbuf_on(pstate *s, mbuf *m, int e, gs_error *err)
{
    if (m->b[e])
        return GLSTARK_OK;
    return move_buf(s->eng[e], m->b[1 - e], &m->b[e], err);
}

static glstark_status tree_on(pstate *s, gs_merkle_dev tree[2], int have_tree[2], int e, gs_error *err)
{
    if (have_tree[e])
        return GLSTARK_OK;
    tree[e] = tree[1 - e];
    tree[e].digests = NULL;
    glstark_status st = move_buf(s->eng[e], tree[1 - e].digests, &tree[e].digests, err);
    if (st)
        return st;
    have_tree[e] = 1;
    return GLSTARK_OK;
}

/* Everything of the side commits a phase on engine e reads: the stacked
 * matrices, and for WHIR (whir = 1) the codewords (unless re-encoded) and
 * trees. The traces themselves: traces_on. */
static glstark_status sides_on(pstate *s, int e, int whir, int keep_cw, gs_error *err)
{
    for (uint32_t i = 0; i < s->n_sides; i++) {
        side *d = &s->sides[i];
        glstark_status st = mbuf_on(s, &d->q, e, err);
        if (!st && whir && keep_cw)
            st = mbuf_on(s, &d->cw, e, err);
        if (!st && whir)
            st = tree_on(s, d->tree, d->have_tree, e, err);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

/* Which engine runs a phase: the main one if it has every family the phase
 * needs, else the fallback (recorded), else UNSUPPORTED. */
static glstark_status pick(pstate *s, unsigned phase, int *e, gs_error *err)
{
    const gs_engine *m = s->eng[0];
    char miss[128] = "";
#define NEED(fam)                                                                                                  \
    if (!m->fam) {                                                                                                 \
        snprintf(miss + strlen(miss), sizeof miss - strlen(miss), "%s" #fam, miss[0] ? ", " : "");                 \
        if (s->eng[1] && !strstr(s->missing, #fam))                                                                \
            snprintf(s->missing + strlen(s->missing), sizeof s->missing - strlen(s->missing), "%s" #fam,          \
                     s->missing[0] ? ", " : "");                                                                   \
    }
    switch (phase) {
    case GS_PHASE_COMMIT: NEED(dft) NEED(hash) break;
    case GS_PHASE_LOGUP_POW: NEED(hash) break;
    case GS_PHASE_LOGUP_ZEROCHECK: NEED(gkr) NEED(zerocheck) break;
    case GS_PHASE_STACKED_REDUCTION: NEED(reduction) break;
    default: NEED(whir) NEED(hash) break;
    }
#undef NEED
    if (!miss[0]) {
        *e = 0;
        return GLSTARK_OK;
    }
    if (!s->eng[1])
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "prove: the %s engine lacks the %s famil%s and no fallback engine was given",
                            m->core->name, miss, strchr(miss, ',') ? "ies" : "y");
    *e = 1;
    s->fallback_phases |= phase;
    return GLSTARK_OK;
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

static glstark_status check_inputs(const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                                   int (*rows_fn)(void *, size_t, size_t, size_t, uint32_t *),
                                   const uint32_t *const *row_major, uint32_t *present_out, gs_error *err)
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
        uint32_t lh = 0;
        while (((size_t)1 << lh) < tr->height)
            lh++;
        if (lh > L)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu has 2^%u rows, more than the stacked height 2^%zu of these params "
                                "(raise l_skip + n_stack)",
                                a, lh, L);
        if (tr->common_main.width != av->common_main_width)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %zu trace has %zu columns, the AIR has %zu", a, tr->common_main.width,
                                av->common_main_width);
        if (!tr->common_main.values && !rows_fn && !(row_major && row_major[a]))
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

/* Index of the first value >= p in v[0..n), or n. The common case (all
 * canonical) runs as a branch-free scan the compiler vectorises. */

/* The stacked layout of the present common mains (sorted order). */
static glstark_status build_layout(const gs_system_params *sp, const glstark_air_trace *traces, pstate *s,
                                   gs_error *err)
{
    gs_stack_trace_shape *shapes = calloc(s->M, sizeof *shapes);
    if (!shapes)
        return oom(err);
    for (uint32_t t = 0; t < s->M; t++)
        shapes[t] = (gs_stack_trace_shape){(uint32_t)traces[s->trace_air[t]].common_main.width, s->logh[t]};
    glstark_status st = gs_stack_layout_build((unsigned)sp->l_skip, (unsigned)sp->n_stack, shapes, s->M, &s->lay, err);
    free(shapes);
    if (st)
        return st;
    s->have_lay = 1;
    if (s->lay.width > sp->w_stack)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "prove: the stacked matrix is %u columns wide, more than w_stack = %zu (OpenVM: "
                            "TotalStackedWidthOutOfBounds); use a larger l_skip + n_stack",
                            s->lay.width, sp->w_stack);
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

/* A streamed trace (no values array) arrives in blocks of about this many
 * bytes: small next to a trace, large enough that the per-block calls
 * (one upload and one strided copy per block) cost nothing. */
#define GS_TRACE_BLOCK_BYTES ((size_t)16 << 20)

/* Rows per streamed block of a width-column trace: the largest power of two
 * whose block fits the block size (at least one row). */
static size_t block_rows(const gs_prove_options *opt, size_t width, size_t height)
{
    const size_t block = opt->trace_block_bytes ? opt->trace_block_bytes : GS_TRACE_BLOCK_BYTES;
    size_t rows = 1;
    while (rows < height && 2 * rows * width * sizeof(uint32_t) <= block)
        rows *= 2;
    return rows;
}

/* Rows of AIR a's trace (width x height, column-major) from the caller's
 * trace_rows, block by block, into `dst` at word `base` (column c at
 * base + c * height): each block is checked (values below p), written to a
 * staging buffer in Montgomery form and scattered into place by one strided
 * copy, so neither the caller nor the prover ever holds the whole trace. */
static glstark_status stream_trace(gs_engine *eng, const gs_prove_options *opt, uint32_t a, size_t width,
                                   size_t height, gs_buf *dst, size_t base, gs_error *err)
{
    if (!width || !height)
        return GLSTARK_OK;
    const size_t rows = block_rows(opt, width, height);
    uint32_t *host = malloc(rows * width * sizeof *host);
    if (!host)
        return oom(err);
    gs_buf *stage = NULL;
    glstark_status st = gs_buf_create(eng, rows * width * sizeof(uint32_t), &stage);
    if (st) {
        free(host);
        return eng_fail(eng, st, "allocating a trace block", err);
    }
    for (size_t r0 = 0; r0 < height && !st; r0 += rows) {
        size_t n = height - r0 < rows ? height - r0 : rows;
        int rc = opt->trace_rows(opt->trace_rows_user, a, r0, n, host);
        if (rc) {
            st = gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "prove: trace_rows returned %d for AIR %u rows [%zu, %zu); the proof stopped there", rc,
                              a, r0, r0 + n);
            break;
        }
        size_t bad = gs_first_non_canonical(host, n * width, 0);
        if (bad < n * width) {
            st = gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "prove: AIR %u trace value %u (column %zu, row %zu, from trace_rows) is not below p = %u",
                              a, host[bad], bad / n, r0 + bad % n, (unsigned)BB_P);
            break;
        }
        if ((st = gs_buf_write_canonical(stage, 0, host, n * width)) ||
            (st = gs_buf_copy_strided(dst, base + r0, height, stage, 0, n, n, width)))
            st = eng_fail(eng, st, "uploading a block of trace rows", err);
    }
    gs_buf_destroy(stage);
    free(host);
    return st;
}

/* AIR a's common main from row-major words (gs_prove_options.row_major_mains)
 * into `dst` at word `base` (column c at base + c * height): each block of
 * rows is written to a staging buffer as it lies in the caller's memory and
 * transposed into place by the engine (on the GPU for GLES), which is
 * cheaper than transposing on the host. The values were checked by the
 * caller. */
static glstark_status stream_row_major(gs_engine *eng, const gs_prove_options *opt, const uint32_t *rows_src,
                                       size_t width, size_t height, gs_buf *dst, size_t base, gs_error *err)
{
    if (!width || !height)
        return GLSTARK_OK;
    const size_t rows = block_rows(opt, width, height);
    gs_buf *stage = NULL;
    glstark_status st = gs_buf_create(eng, rows * width * sizeof(uint32_t), &stage);
    if (st)
        return eng_fail(eng, st, "allocating a trace block", err);
    for (size_t r0 = 0; r0 < height && !st; r0 += rows) {
        const size_t n = height - r0 < rows ? height - r0 : rows;
        if ((st = gs_buf_write_canonical(stage, 0, rows_src + r0 * width, n * width)) ||
            (st = gs_buf_transpose(dst, base + r0, height, stage, 0, n, width)))
            st = eng_fail(eng, st, "uploading a block of trace rows", err);
    }
    gs_buf_destroy(stage);
    return st;
}

/* Uploads the present common mains (sorted order) to engine e: straight
 * into the stacked matrix Q when every trace is a contiguous block of it
 * (one copy of the trace on the engine instead of two: 345 MB less for
 * keccakf-1024), else into a buffer per trace; and the side traces
 * (preprocessed, cached mains) into a buffer each. */
static glstark_status upload_traces(const gs_system_params *sp, const gs_multi_pk *pk,
                                    const glstark_air_trace *traces, const gs_prove_options *opt, pstate *s, int e,
                                    gs_error *err)
{
    const gs_multi_vk *vk = &pk->vk;
    const uint32_t M = s->M;
    gs_engine *eng = s->eng[e];
    /* the side commits, per sorted trace in part order */
    s->side_first = calloc(M + 1, sizeof(uint32_t));
    s->part_base = calloc(M, sizeof(uint32_t));
    if (!s->side_first || !s->part_base)
        return oom(err);
    for (uint32_t t = 0; t < M; t++) {
        const gs_air_vk *av = &vk->per_air[s->trace_air[t]];
        s->side_first[t + 1] = s->side_first[t] + (av->has_preprocessed_data ? 1u : 0u) +
                               (uint32_t)av->num_cached_mains;
        s->part_base[t] = t + s->side_first[t];
    }
    s->n_sides = s->side_first[M];
    const uint32_t P = M + s->n_sides;
    s->sides = calloc(s->n_sides ? s->n_sides : 1, sizeof(side));
    s->main = calloc(M, sizeof(mbuf));
    s->refs = calloc(M, sizeof(gs_trace_ref));
    s->dags = calloc(M, sizeof(gs_cdag_owned));
    s->publics = calloc(M, sizeof(bb_t *));
    s->widths = calloc(P, sizeof(uint32_t));
    s->part_ptrs = calloc(P, sizeof(gs_buf *));
    s->part_off = calloc(P, sizeof(size_t));
    s->q_off = calloc(M, sizeof(size_t));
    s->zc = calloc(M, sizeof(gs_zc_trace));
    if (!s->sides || !s->main || !s->refs || !s->dags || !s->publics || !s->widths || !s->part_ptrs ||
        !s->part_off || !s->q_off || !s->zc)
        return oom(err);
    for (uint32_t t = 0; t < M; t++) {
        uint32_t a = s->trace_air[t], i = s->side_first[t];
        const gs_air_vk *av = &vk->per_air[a];
        if (av->has_preprocessed_data)
            s->sides[i++] = (side){.t = t, .air = a, .is_prep = 1, .width = (uint32_t)av->preprocessed_width};
        for (size_t c = 0; c < av->num_cached_mains; c++)
            s->sides[i++] =
                (side){.t = t, .air = a, .cached = (uint32_t)c, .width = (uint32_t)av->cached_main_widths[c]};
    }
    glstark_status st = build_layout(sp, traces, s, err);
    if (st)
        return st;
    const size_t H = (size_t)1 << (sp->l_skip + sp->n_stack);
    if (s->lay.ntraces == M && layout_is_in_place(&s->lay, H, s->q_off)) {
        s->traces_in_q = 1;
        /* zero only what no trace covers: slices never overlap, so when their
         * sizes add up to the end of the last one they cover [0, end) */
        size_t covered = 0, end = 0, all = (size_t)s->lay.width * H;
        for (size_t k = 0; k < s->lay.nslices; k++) {
            const gs_stack_slice *sl = &s->lay.slices[k];
            size_t at = (size_t)sl->stacked_col * H + sl->row, h = (size_t)1 << sl->log_height;
            covered += h;
            end = at + h > end ? at + h : end;
        }
        size_t zero_from = covered == end ? end : 0;
        if ((st = gs_buf_create(eng, all * sizeof(bb_t), &s->q.b[e])) ||
            (zero_from < all && (st = gs_buf_fill_u32(s->q.b[e], zero_from * sizeof(bb_t), all - zero_from, 0))))
            return eng_fail(eng, st, "allocating the stacked matrix", err);
    }
    /* three passes, each one span: every value below p (host), the uploads,
     * the constraint DAGs and public values */
    int sn = gs_span_eng_begin(eng, "trace_check");
    for (uint32_t t = 0; t < M; t++) {
        uint32_t a = s->trace_air[t];
        const glstark_air_trace *tr = &traces[a];
        size_t n = tr->common_main.width * tr->height;
        if (!tr->common_main.values)
            continue; /* streamed: checked block by block as it arrives */
        size_t bad = gs_first_non_canonical(tr->common_main.values, n, 0);
        if (bad < n)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %u trace value %u (column %zu, row %zu) is not below p = %u", a,
                                tr->common_main.values[bad], bad / tr->height, bad % tr->height, (unsigned)BB_P);
    }
    gs_span_eng_end(eng, sn);
    sn = gs_span_eng_begin(eng, "trace_write");
    for (uint32_t t = 0; t < M; t++) {
        const glstark_air_trace *tr = &traces[s->trace_air[t]];
        size_t n = tr->common_main.width * tr->height;
        /* straight from the caller's array (the engine stores Montgomery
         * form), or block by block from trace_rows */
        gs_buf *dst = s->q.b[e];
        size_t base = s->traces_in_q ? s->q_off[t] : 0;
        if (!s->traces_in_q) {
            if ((st = gs_buf_create(eng, (n ? n : 1) * sizeof(bb_t), &s->main[t].b[e])))
                return eng_fail(eng, st, "uploading a trace", err);
            dst = s->main[t].b[e];
        }
        const uint32_t *row_major = opt->row_major_mains ? opt->row_major_mains[s->trace_air[t]] : NULL;
        if (!tr->common_main.values && row_major) {
            if ((st = stream_row_major(eng, opt, row_major, tr->common_main.width, tr->height, dst, base, err)))
                return st;
        } else if (!tr->common_main.values) {
            if ((st = stream_trace(eng, opt, s->trace_air[t], tr->common_main.width, tr->height, dst, base, err)))
                return st;
        } else if ((st = gs_buf_write_canonical(dst, base * sizeof(bb_t), tr->common_main.values, n))) {
            return eng_fail(eng, st, "uploading a trace", err);
        }
    }
    /* the preprocessed traces (from the key's AIRs) and the cached mains,
     * each into a buffer of its own: from here on the caller's arrays are
     * not read (traces_released) */
    for (uint32_t i = 0; i < s->n_sides; i++) {
        side *d = &s->sides[i];
        const size_t h = (size_t)1 << s->logh[d->t];
        if (d->is_prep) {
            const glstark_air *air = pk->airs[d->air];
            if ((st = gs_prep_upload(eng, air->preprocessed_trace, h, d->width, &d->trace.b[e], err)))
                return st;
        } else {
            const glstark_trace_part *cp = &traces[d->air].cached_mains[d->cached];
            if ((st = gs_buf_create(eng, h * d->width * sizeof(bb_t), &d->trace.b[e])) ||
                (st = gs_buf_write_canonical(d->trace.b[e], 0, cp->values, h * d->width)))
                return eng_fail(eng, st, "uploading a cached main trace", err);
        }
    }
    gs_span_eng_end(eng, sn);
    sn = gs_span_eng_begin(eng, "constraint_dags");
    for (uint32_t t = 0; t < M; t++) {
        uint32_t a = s->trace_air[t];
        const glstark_air_trace *tr = &traces[a];
        st = gs_cdag_from_vk(&vk->per_air[a], &s->dags[t], err);
        if (st)
            return st;
        s->publics[t] = malloc((tr->num_public_values ? tr->num_public_values : 1) * sizeof(bb_t));
        if (!s->publics[t])
            return oom(err);
        for (size_t i = 0; i < tr->num_public_values; i++) {
            if (tr->public_values[i] >= BB_P)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "prove: AIR %u public value %zu = %u is not below p", a, i, tr->public_values[i]);
            s->publics[t][i] = bb_from_canonical(tr->public_values[i]);
        }
        const uint32_t b = s->part_base[t], ns = s->side_first[t + 1] - s->side_first[t];
        s->widths[b] = (uint32_t)tr->common_main.width;
        for (uint32_t j = 0; j < ns; j++)
            s->widths[b + 1 + j] = s->sides[s->side_first[t] + j].width;
        s->zc[t] = (gs_zc_trace){&s->dags[t].dag, s->logh[t], 1 + ns, &s->part_ptrs[b], &s->widths[b], s->publics[t],
                                 (uint32_t)tr->num_public_values, &s->part_off[b]};
    }
    gs_span_eng_end(eng, sn);
    return GLSTARK_OK;
}

/* Points refs and the gs_zc_trace views at the main traces on engine e. */
static glstark_status traces_on(pstate *s, int e, gs_error *err)
{
    if (s->traces_in_q) {
        glstark_status st = mbuf_on(s, &s->q, e, err);
        if (st)
            return st;
    }
    for (uint32_t t = 0; t < s->M; t++) {
        gs_buf *b;
        size_t off = 0;
        if (s->traces_in_q) {
            b = s->q.b[e];
            off = s->q_off[t];
        } else {
            glstark_status st = mbuf_on(s, &s->main[t], e, err);
            if (st)
                return st;
            b = s->main[t].b[e];
        }
        s->refs[t] = (gs_trace_ref){b, off};
        s->part_ptrs[s->part_base[t]] = b; /* s->zc[t].parts points here */
        s->part_off[s->part_base[t]] = off;
    }
    for (uint32_t i = 0; i < s->n_sides; i++) {
        side *d = &s->sides[i];
        mbuf *m = d->in_q ? &d->q : &d->trace;
        glstark_status st = mbuf_on(s, m, e, err);
        if (st)
            return st;
        uint32_t p = s->part_base[d->t] + 1 + (i - s->side_first[d->t]);
        s->part_ptrs[p] = m->b[e];
        s->part_off[p] = 0;
    }
    return GLSTARK_OK;
}

/* The codeword of Q encoded a group of columns at a time, each group
 * absorbed into the Merkle tree's row sponges before the next is encoded,
 * so the whole codeword never exists (for a prover that does not keep it:
 * WHIR's first queries encode it again). Groups are whole rate blocks of 8
 * columns, as many as fit 128 MiB (stream_group_cols). */
static size_t stream_group_cols(const gs_prove_options *opt, size_t N, uint32_t W)
{
    size_t blocks = ((size_t)32 << 20) / ((size_t)GS_P2_RATE * N);
    size_t G = GS_P2_RATE * (blocks > 1 ? blocks : 1);
    if (opt->stream_group_cols)
        G = (opt->stream_group_cols + GS_P2_RATE - 1) / GS_P2_RATE * GS_P2_RATE;
    return G < W ? G : W;
}

/* Streaming holds 16 state words and a group's G words per row where the
 * codeword has W: it pays when 16 + G < W (keccakf: 16 + 8 against 42). */
static int stream_saves_memory(const gs_system_params *sp, const gs_prove_options *opt, uint32_t W)
{
    const size_t N = (size_t)1 << (sp->l_skip + sp->n_stack + sp->log_blowup);
    return GS_P2_WIDTH + stream_group_cols(opt, N, W) < W;
}

static glstark_status commit_streamed(const gs_system_params *sp, const gs_prove_options *opt, pstate *s, int e,
                                      const gs_stack_layout *qlay, gs_error *err)
{
    gs_engine *eng = s->eng[e];
    const unsigned L = (unsigned)(sp->l_skip + sp->n_stack);
    const size_t N = (size_t)1 << (L + sp->log_blowup);
    const uint32_t W = s->lay.width;
    const size_t G = stream_group_cols(opt, N, W);
    gs_merkle_stream ms;
    gs_buf *part = NULL;
    const gs_trace_ref qref = {s->q.b[e], 0};
    glstark_status st = gs_engine_merkle_stream_begin(eng, N, W, (unsigned)sp->whir.k, &ms);
    if (!st)
        st = gs_buf_create(eng, G * N * sizeof(bb_t), &part);
    for (uint32_t c0 = 0; !st && c0 < W; c0 += (uint32_t)G) {
        uint32_t g = W - c0 < G ? W - c0 : (uint32_t)G;
        if (!(st = gs_rs_code_matrix(eng, qlay, &qref, (unsigned)sp->log_blowup, c0, c0 + g, part, 0)))
            st = gs_engine_merkle_stream_columns(eng, &ms, part, 0, g, &s->tree[e]);
    }
    gs_buf_destroy(part);
    gs_merkle_stream_release(&ms);
    if (st)
        return eng_fail(eng, st, "encoding and committing the stacked matrix a column group at a time", err);
    s->have_tree[e] = 1;
    return GLSTARK_OK;
}

/* The stacked commitment of all common mains (OpenVM stacked_commit) on engine e. */
static glstark_status commit_main(const gs_system_params *sp, const gs_prove_options *opt, pstate *s, int e,
                                  int streamed, bb_t root[8], gs_error *err)
{
    gs_engine *eng = s->eng[e];
    int sp_commit = gs_span_eng_begin(eng, "stacked_commit"), sn;
    glstark_status st = traces_on(s, e, err);
    if (st)
        return st;
    const unsigned L = (unsigned)(sp->l_skip + sp->n_stack);
    const size_t H = (size_t)1 << L, N = (size_t)1 << (L + sp->log_blowup);
    const uint32_t W = s->lay.width;
    if ((!s->q.b[e] && (st = gs_buf_create(eng, W * H * sizeof(bb_t), &s->q.b[e]))) ||
        (!streamed && (st = gs_buf_create(eng, W * N * sizeof(bb_t), &s->cw.b[e]))))
        return eng_fail(eng, st, "allocating the stacked matrix and its codeword", err);
    /* the stacked matrix Q itself is kept for the stacked reduction and WHIR;
     * when the traces were uploaded into it, it is already built */
    if (!s->traces_in_q) {
        sn = gs_span_eng_begin(eng, "stack_matrix");
        if ((st = gs_stack_matrix(eng, &s->lay, s->refs, 0, W, s->q.b[e], 0)))
            return eng_fail(eng, st, "stacking the main traces", err);
        gs_span_eng_end(eng, sn);
    }
    /* Encode Q itself, described as one trace of W columns of height H
     * stacked onto itself: one whole-column slice per stacked column, so an
     * engine copies whole columns instead of every trace column again. */
    gs_stack_layout qlay;
    const gs_stack_trace_shape qshape = {W, L};
    if ((st = gs_stack_layout_build((unsigned)sp->l_skip, (unsigned)sp->n_stack, &qshape, 1, &qlay, err)))
        return st;
    if (streamed) {
        sn = gs_span_eng_begin(eng, "rs_code_merkle_streamed");
        st = commit_streamed(sp, opt, s, e, &qlay, err);
        gs_stack_layout_free(&qlay);
        if (st)
            return st;
        if ((st = gs_engine_merkle_root(eng, &s->tree[e], root)))
            return eng_fail(eng, st, "reading the Merkle root", err);
        gs_span_eng_end(eng, sn);
        gs_span_eng_end(eng, sp_commit);
        return GLSTARK_OK;
    }
    sn = gs_span_eng_begin(eng, "rs_code_matrix");
    const gs_trace_ref qref = {s->q.b[e], 0};
    st = gs_rs_code_matrix(eng, &qlay, &qref, (unsigned)sp->log_blowup, 0, W, s->cw.b[e], 0);
    gs_stack_layout_free(&qlay);
    if (st)
        return eng_fail(eng, st, "Reed-Solomon encoding the stacked matrix", err);
    gs_span_eng_end(eng, sn);
    sn = gs_span_eng_begin(eng, "merkle_tree");
    if ((st = gs_engine_merkle_commit(eng, s->cw.b[e], 0, N, W, 1, (unsigned)sp->whir.k, &s->tree[e])))
        return eng_fail(eng, st, "the Merkle commitment", err);
    s->have_tree[e] = 1;
    if ((st = gs_engine_merkle_root(eng, &s->tree[e], root)))
        return eng_fail(eng, st, "reading the Merkle root", err);
    gs_span_eng_end(eng, sn);
    gs_span_eng_end(eng, sp_commit);
    return GLSTARK_OK;
}

/* The side commits on engine e (OpenVM: the preprocessed commit of the
 * proving key and the caller's cached-main commits), each the stacked
 * commit of its one trace. A preprocessed root must equal the key's. */
static glstark_status commit_sides(const gs_multi_pk *pk, const gs_prove_options *opt, pstate *s, int e,
                                   gs_error *err)
{
    gs_engine *eng = s->eng[e];
    const gs_system_params *sp = &pk->vk.params;
    const size_t H = (size_t)1 << (sp->l_skip + sp->n_stack);
    size_t total_width = s->lay.width;
    for (uint32_t i = 0; i < s->n_sides; i++) {
        side *d = &s->sides[i];
        const size_t h = (size_t)1 << s->logh[d->t];
        glstark_status st;
        gs_stacked_params prm = gs_stacked_params_from_system(sp);
        const gs_commit_trace ct = {d->trace.b[e], 0, d->width, h};
        gs_stacked_commit_data cd;
        memset(&cd, 0, sizeof cd);
        if ((st = gs_stacked_commit(eng, &ct, 1, &prm, &cd)))
            return gs_error_set(err, st, "prove: AIR %u's %s commitment failed on the %s engine: %s", d->air,
                                d->is_prep ? "preprocessed" : "cached main", eng->core->name, eng->err.msg);
        /* the side takes over what the commit made */
        d->lay = cd.layout;
        d->have_lay = 1;
        d->q.b[e] = cd.matrix;
        d->cw.b[e] = cd.codeword;
        d->tree[e] = cd.tree;
        d->have_tree[e] = 1;
        memcpy(d->root, cd.root, sizeof d->root);
        total_width += d->lay.width;
        if (total_width > sp->w_stack)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: the stacked matrices are %zu columns wide in all, more than w_stack = %zu "
                                "(OpenVM: TotalStackedWidthOutOfBounds); use a larger l_skip + n_stack",
                                total_width, sp->w_stack);
        if (d->is_prep && memcmp(d->root, pk->vk.per_air[d->air].preprocessed_data.commit, sizeof d->root))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %u's preprocessed trace does not match the commitment in the key (was "
                                "the trace set again after keygen?); make the key again from the AIRs as they are",
                                d->air);
        /* a trace of at least 2^l_skip rows lies whole at the start of its
         * stacked matrix: the constraint phases read it there */
        size_t off = 0;
        if (layout_is_in_place(&d->lay, H, &off) && off == 0) {
            mbuf_free(&d->trace);
            d->in_q = 1;
        }
        uint8_t rot = (uint8_t)(pk->vk.per_air[d->air].need_rot != 0);
        gs_sred_commit sc;
        if ((st = gs_sred_commit_from_layout(&d->lay, &rot, &sc, &d->slices, &d->need_rot, err)))
            return st;
        if (opt->reencode_codeword)
            mbuf_free(&d->cw);
    }
    return GLSTARK_OK;
}

static glstark_status fill_preamble(const gs_multi_vk *vk, const glstark_air_trace *traces, const pstate *s,
                                    gs_proof *p, gs_error *err)
{
    const size_t A = vk->num_airs;
    p->num_airs = (uint32_t)A;
    p->trace_vdata = calloc(A, sizeof(gs_trace_vdata));
    p->num_public_value_lists = (uint32_t)A;
    p->public_values = calloc(A, sizeof *p->public_values);
    if (!p->trace_vdata || !p->public_values)
        return oom(err);
    for (uint32_t t = 0; t < s->M; t++) {
        uint32_t a = s->trace_air[t];
        p->trace_vdata[a].present = 1;
        p->trace_vdata[a].log_height = s->logh[t];
        uint32_t nc = (uint32_t)vk->per_air[a].num_cached_mains;
        if (nc) {
            p->trace_vdata[a].cached_commitments = calloc(nc, sizeof(gs_digest));
            if (!p->trace_vdata[a].cached_commitments)
                return oom(err);
            p->trace_vdata[a].num_cached = nc;
            for (uint32_t i = s->side_first[t], c = 0; i < s->side_first[t + 1]; i++)
                if (!s->sides[i].is_prep)
                    memcpy(p->trace_vdata[a].cached_commitments[c++].v, s->sides[i].root, sizeof s->sides[i].root);
        }
        size_t n = traces[a].num_public_values;
        p->public_values[a].len = (uint32_t)n;
        p->public_values[a].v = malloc((n ? n : 1) * sizeof(bb_t));
        if (!p->public_values[a].v)
            return oom(err);
        memcpy(p->public_values[a].v, s->publics[t], n * sizeof(bb_t));
    }
    return GLSTARK_OK;
}

/* T0..T2 */
static void observe_preamble(gs_transcript *ts, const gs_multi_vk *vk, const gs_proof *p)
{
    gs_transcript_observe_commit(ts, vk->pre_hash);
    gs_transcript_observe_commit(ts, p->common_main_commit.v);
    for (size_t a = 0; a < vk->num_airs; a++) {
        const gs_trace_vdata *tv = &p->trace_vdata[a];
        if (!vk->per_air[a].is_required)
            gs_transcript_observe_u32(ts, tv->present ? 1 : 0);
        if (tv->present) {
            /* an AIR with a preprocessed trace has its height fixed by the
             * key: the commitment stands for it */
            if (vk->per_air[a].has_preprocessed_data)
                gs_transcript_observe_commit(ts, vk->per_air[a].preprocessed_data.commit);
            else
                gs_transcript_observe_u32(ts, tv->log_height);
            for (uint32_t c = 0; c < tv->num_cached; c++)
                gs_transcript_observe_commit(ts, tv->cached_commitments[c].v);
        }
        for (uint32_t i = 0; i < p->public_values[a].len; i++)
            gs_transcript_observe(ts, p->public_values[a].v[i]);
    }
}

static const char *phase_name(unsigned ph)
{
    switch (ph) {
    case GS_PHASE_COMMIT: return "commit";
    case GS_PHASE_LOGUP_POW: return "LogUp PoW";
    case GS_PHASE_LOGUP_ZEROCHECK: return "LogUp/zerocheck";
    case GS_PHASE_STACKED_REDUCTION: return "stacked reduction";
    default: return "WHIR";
    }
}

/* Labels span idx with the engine a phase picked. */
static void span_on(gs_span_rec *R, int idx, const pstate *s, int e)
{
    gs_span_engine(R, idx, s->eng[e]->core->name);
}

static glstark_status prove_impl(gs_engine *eng, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                 size_t num_traces, const gs_prove_options *opt, gs_span_rec *R, gs_proof *out,
                                 gs_prove_timings *times, gs_error *err)
{
    const gs_prove_options dflt = {0};
    if (!opt)
        opt = &dflt;
    memset(out, 0, sizeof *out);
    gs_prove_timings tm;
    memset(&tm, 0, sizeof tm);
    if (!eng || !pk || (!traces && num_traces))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "prove: NULL engine, key or traces");
    const gs_multi_vk *vk = &pk->vk;
    const gs_system_params *sp = &vk->params;
    if (!vk->has_pre_hash)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "prove: the key has no vk pre-hash (make it with gs_keygen)");
    const uint32_t l_skip = (uint32_t)sp->l_skip, n_stack = (uint32_t)sp->n_stack, L = l_skip + n_stack;
    double t0 = gs_now_s(), t1;
    pstate s;
    memset(&s, 0, sizeof s);
    s.eng[0] = eng;
    s.eng[1] = opt->fallback != eng ? opt->fallback : NULL;
    glstark_status st = check_inputs(pk, traces, num_traces, opt->trace_rows, opt->row_major_mains, &s.M, err);
    if (st)
        return st;
    gs_whir_params wpar;
    if ((st = gs_whir_params_of(sp, &wpar, err)))
        return st;

    /* the checker: names AIR, constraint and row */
    if (!opt->skip_constraint_check && pk->airs && pk->num_airs == vk->num_airs) {
        for (size_t a = 0; a < num_traces; a++)
            if (traces[a].height && !traces[a].common_main.values)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "prove: the constraint check reads whole traces, but AIR %zu's rows come from "
                                    "trace_rows; set skip_constraint_check (or pass the values)",
                                    a);
        int sp_check = gs_span_begin(R, "check_constraints");
        glstark_check_failure f;
        char msg[512];
        msg[0] = 0;
        st = glstark_check_constraints((glstark_air *const *)pk->airs, pk->num_airs, traces, &f, msg, sizeof msg);
        if (st)
            return gs_error_set(err, st, "prove: the traces do not satisfy the AIRs: %s", msg);
        gs_span_end(R, sp_check);
    }
    t1 = gs_now_s();
    tm.check = t1 - t0;
    /* OpenVM's root span: everything after the (debug) constraint check */
    const int sp_root = gs_span_begin(R, "stark_prove_excluding_trace");
    /* The engine may start ahead of use what the proof will need (the GLES
     * engine: background compiles of its programs where the driver's cache
     * is cold), inside the proof's time, not the check's. */
    gs_prepare_hint hint = {l_skip, 0};
    for (size_t a = 0; a < vk->num_airs && a < num_traces; a++)
        if (traces[a].height && vk->per_air[a].dag.num_interactions)
            hint.interactions = 1;
    if ((st = gs_engine_prepare(eng, &hint)))
        return eng_fail(eng, st, "preparing for the proof", err);
    int sp_phase, sk;

    /* sorted order: log height descending, then AIR id */
    uint32_t *present_air = malloc(s.M * sizeof(uint32_t)), *plogh = malloc(s.M * sizeof(uint32_t)),
             *order = malloc(s.M * sizeof(uint32_t));
    s.trace_air = malloc(s.M * sizeof(uint32_t));
    s.logh = malloc(s.M * sizeof(uint32_t));
    if (!present_air || !plogh || !order || !s.trace_air || !s.logh) {
        free(present_air);
        free(plogh);
        free(order);
        pstate_free(&s);
        return oom(err);
    }
    {
        uint32_t k = 0;
        for (size_t a = 0; a < vk->num_airs; a++)
            if (traces[a].height) {
                uint32_t lh = 0;
                while (((size_t)1 << lh) < traces[a].height)
                    lh++;
                present_air[k] = (uint32_t)a;
                plogh[k++] = lh;
            }
    }
    st = gs_stack_sort_order(plogh, s.M, order, err);
    for (uint32_t t = 0; !st && t < s.M; t++) {
        s.trace_air[t] = present_air[order[t]];
        s.logh[t] = plogh[order[t]];
    }
    free(present_air);
    free(plogh);
    free(order);
    if (st)
        goto fail;

    int e;
    sp_phase = gs_span_begin(R, "prover.main_trace_commit");
    if ((st = pick(&s, GS_PHASE_COMMIT, &e, err)))
        goto fail;
    span_on(R, sp_phase, &s, e);
    sk = gs_span_begin(R, "trace_upload");
    span_on(R, sk, &s, e);
    if ((st = upload_traces(sp, pk, traces, opt, &s, e, err)))
        goto fail;
    gs_span_end(R, sk);
    /* the engine's writes copy the values before returning and the public
     * values are in s.publics: nothing below reads the caller's arrays */
    if (opt->traces_released)
        opt->traces_released(opt->traces_released_user);
    /* Without a kept codeword (reencode_codeword), the commit encodes Q a
     * column group at a time into the tree's row sponges where the engine
     * can (the codeword never exists whole), else it encodes it whole and
     * frees it after the tree; WHIR's first queries encode it again from Q
     * (gs_whir_commit_data). */
    const int streamed = opt->reencode_codeword && s.eng[e]->hash && s.eng[e]->hash->stream_begin &&
                         stream_saves_memory(sp, opt, s.lay.width);
    if ((st = commit_main(sp, opt, &s, e, streamed, out->common_main_commit.v, err)))
        goto fail;
    if (opt->reencode_codeword)
        mbuf_free(&s.cw);
    if (s.n_sides) {
        sk = gs_span_begin(R, "preprocessed_and_cached_commits");
        span_on(R, sk, &s, e);
        if ((st = commit_sides(pk, opt, &s, e, err)))
            goto fail;
        gs_span_end(R, sk);
    }
    if ((st = fill_preamble(vk, traces, &s, out, err)))
        goto fail;
    gs_span_end(R, sp_phase);
    tm.commit = gs_now_s() - t1;
    t1 = gs_now_s();

    gs_transcript ts;
    gs_transcript_init(&ts);
    gs_fs fs;
    fs = gs_fs_wrap_transcript(&ts);
    observe_preamble(&ts, vk, out);

    uint32_t w = 0;
    sp_phase = gs_span_begin(R, "prover.rap_constraints");
    sk = gs_span_begin(R, "logup_pow");
    if ((st = pick(&s, GS_PHASE_LOGUP_POW, &e, err)))
        goto fail;
    span_on(R, sk, &s, e);
    if ((st = gs_transcript_grind(&ts, (unsigned)sp->logup.pow_bits, gs_engine_grind_fn, s.eng[e], &w, err)))
        goto fail;
    gs_span_end(R, sk);
    out->gkr.logup_pow_witness = bb_from_canonical(w);
    tm.logup_pow = gs_now_s() - t1;
    t1 = gs_now_s();

    /* T4..T13 */
    s.r = calloc(L + 2, sizeof(bb4_t));
    s.u = calloc(n_stack + 2, sizeof(bb4_t));
    s.ucube = calloc(L + 1, sizeof(bb4_t));
    if (!s.r || !s.u || !s.ucube) {
        st = oom(err);
        goto fail;
    }
    if ((st = pick(&s, GS_PHASE_LOGUP_ZEROCHECK, &e, err)))
        goto fail;
    sk = (s.traces_in_q ? s.q.b[e] : s.main[0].b[e]) ? -1 : gs_span_begin(R, "copy_to_fallback");
    span_on(R, sk, &s, e);
    if ((st = traces_on(&s, e, err)))
        goto fail;
    gs_span_end(R, sk);
    /* logup_gkr, round0, mle_rounds, column_openings: marked inside */
    if ((st = gs_lz_prove(s.eng[e], &fs, s.zc, s.M, l_skip, (uint32_t)sp->max_constraint_degree, 0, &s.lz, s.r, err)))
        goto fail;
    s.have_lz = 1;
    if ((st = gs_bridge_lz_to_proof(&s.lz, s.zc, s.M, out, err)))
        goto fail;
    gs_span_end(R, sp_phase);
    uint32_t n_max = s.lz.batch.n_rounds;
    tm.logup_zerocheck = gs_now_s() - t1;
    t1 = gs_now_s();

    /* T14..T17: one commit (the common main), slices in placement order */
    s.slices = calloc(s.lay.nslices ? s.lay.nslices : 1, sizeof(gs_red_slice));
    s.need_rot = calloc(s.lay.nslices ? s.lay.nslices : 1, 1);
    if (!s.slices || !s.need_rot) {
        st = oom(err);
        goto fail;
    }
    for (size_t k = 0; k < s.lay.nslices; k++) {
        const gs_stack_slice *sl = &s.lay.slices[k];
        s.slices[k] = (gs_red_slice){sl->stacked_col, sl->row, sl->log_height};
        s.need_rot[k] = (uint8_t)(vk->per_air[s.trace_air[sl->trace]].need_rot != 0);
    }
    sp_phase = gs_span_begin(R, "prover.openings");
    sk = gs_span_begin(R, "stacked_reduction");
    if ((st = pick(&s, GS_PHASE_STACKED_REDUCTION, &e, err)) || (st = mbuf_on(&s, &s.q, e, err)) ||
        (st = sides_on(&s, e, 0, 0, err)))
        goto fail;
    span_on(R, sk, &s, e);
    /* the commits in the proof's order: the common main, then the sides */
    gs_sred_commit *sc = calloc(1 + s.n_sides, sizeof *sc);
    const gs_buf **mats = calloc(1 + s.n_sides, sizeof *mats);
    if (!sc || !mats) {
        free(sc);
        free(mats);
        st = oom(err);
        goto fail;
    }
    sc[0] = (gs_sred_commit){s.lay.width, (uint32_t)s.lay.nslices, s.slices, s.need_rot};
    mats[0] = s.q.b[e];
    for (uint32_t i = 0; i < s.n_sides; i++) {
        const side *d = &s.sides[i];
        sc[1 + i] = (gs_sred_commit){d->lay.width, (uint32_t)d->lay.nslices, d->slices, d->need_rot};
        mats[1 + i] = d->q.b[e];
    }
    st = gs_sred_prove(s.eng[e], &fs, (gs_sred_params){l_skip, n_stack}, sc, mats, 1 + s.n_sides, s.r, n_max + 1,
                       &out->stacking, s.u, err);
    free(sc);
    free(mats);
    if (st)
        goto fail;
    gs_span_end(R, sk);
    tm.stacked_reduction = gs_now_s() - t1;
    t1 = gs_now_s();

    /* WHIR on u_cube = (u_0, u_0^2, .., u_0^(2^(l-1)), u_1, .., u_{n_stack}) */
    {
        bb4_t x = s.u[0];
        for (uint32_t i = 0; i < l_skip; i++) {
            s.ucube[i] = x;
            x = bb4_mul(x, x);
        }
        for (uint32_t j = 1; j <= n_stack; j++)
            s.ucube[l_skip + j - 1] = s.u[j];
    }
    sk = gs_span_begin(R, "whir");
    if ((st = pick(&s, GS_PHASE_WHIR, &e, err)) || (st = mbuf_on(&s, &s.q, e, err)) ||
        (!opt->reencode_codeword && (st = mbuf_on(&s, &s.cw, e, err))) ||
        (st = tree_on(&s, s.tree, s.have_tree, e, err)) || (st = sides_on(&s, e, 1, !opt->reencode_codeword, err)))
        goto fail;
    span_on(R, sk, &s, e);
    gs_whir_commit_data *cd = calloc(1 + s.n_sides, sizeof *cd);
    if (!cd) {
        st = oom(err);
        goto fail;
    }
    cd[0] = (gs_whir_commit_data){s.q.b[e], 0, opt->reencode_codeword ? NULL : s.cw.b[e], 0, &s.tree[e], s.lay.width};
    for (uint32_t i = 0; i < s.n_sides; i++) {
        side *d = &s.sides[i];
        cd[1 + i] = (gs_whir_commit_data){d->q.b[e], 0, opt->reencode_codeword ? NULL : d->cw.b[e], 0, &d->tree[e],
                                          d->lay.width};
    }
    st = gs_whir_prove(s.eng[e], &ts, &wpar, cd, 1 + s.n_sides, s.ucube, L, &out->whir, err);
    free(cd);
    if (st)
        goto fail;
    gs_span_end(R, sk);
    gs_span_end(R, sp_phase);
    gs_span_end(R, sp_root);
    tm.whir = gs_now_s() - t1;
    tm.total = gs_now_s() - t0;
    tm.fallback_phases = s.fallback_phases;
    if (s.fallback_phases) {
        char ph[160] = "";
        for (unsigned b = 1; b <= GS_PHASE_WHIR; b <<= 1)
            if (s.fallback_phases & b)
                snprintf(ph + strlen(ph), sizeof ph - strlen(ph), "%s%s", ph[0] ? ", " : "", phase_name(b));
        snprintf(tm.fallback_note, sizeof tm.fallback_note, "%s ran on the %s engine (the %s engine lacks %s)", ph,
                 s.eng[1]->core->name, eng->core->name, s.missing);
    }
    if (times)
        *times = tm;
    pstate_free(&s);
    return GLSTARK_OK;
fail:
    pstate_free(&s);
    gs_proof_free(out);
    return st;
}

glstark_status gs_prove_ex(gs_engine *eng, const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                           const gs_prove_options *opt, gs_span_rec *spans, gs_proof *out, gs_prove_timings *times,
                           gs_error *err)
{
    if (!eng) {
        memset(out, 0, sizeof *out);
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "prove: NULL engine, key or traces");
    }
    gs_engine *E[2] = {eng, opt && opt->fallback != eng ? opt->fallback : NULL};
    uint64_t sync0[2] = {0, 0}, alloc0[2] = {0, 0};
    size_t peak_before[2] = {0, 0};
    struct gs_span_rec *borrowed[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!E[i])
            continue;
        sync0[i] = E[i]->host_syncs;
        alloc0[i] = E[i]->bytes_allocated;
        /* this proof's high-water mark: restart the mark, merge it back after */
        peak_before[i] = E[i]->bytes_peak;
        E[i]->bytes_peak = E[i]->bytes_live + E[i]->bytes_pooled;
        borrowed[i] = E[i]->spans;
        if (spans) {
            spans->eng[i] = E[i];
            E[i]->spans = spans;
        }
    }
    if (spans && !E[1])
        spans->eng[1] = NULL;
    uint64_t built0, build_ns0;
    gs_engine_program_builds(eng, &built0, &build_ns0);
    gs_prove_timings tm;
    memset(&tm, 0, sizeof tm);
    glstark_status st = prove_impl(eng, pk, traces, num_traces, opt, spans, out, &tm, err);
    uint64_t built1, build_ns1;
    gs_engine_program_builds(eng, &built1, &build_ns1);
    tm.programs_built = built1 - built0;
    tm.program_build_ns = build_ns1 - build_ns0;
    for (int i = 0; i < 2; i++) {
        if (!E[i])
            continue;
        tm.host_syncs[i] = E[i]->host_syncs - sync0[i];
        tm.bytes_peak[i] = E[i]->bytes_peak;
        tm.bytes_allocated[i] = E[i]->bytes_allocated - alloc0[i];
        if (E[i]->bytes_peak < peak_before[i])
            E[i]->bytes_peak = peak_before[i];
        E[i]->spans = borrowed[i];
    }
    if (!st && times)
        *times = tm;
    return st;
}

glstark_status gs_prove(gs_engine *eng, const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                        const gs_prove_options *opt, gs_proof *out, gs_prove_timings *times, gs_error *err)
{
    return gs_prove_ex(eng, pk, traces, num_traces, opt, NULL, out, times, err);
}
