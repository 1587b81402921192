/* The whole-proof prover (see prover.h): it only sequences the existing
 * pieces (stacking + RS + Merkle commit, transcript, LogUp/zerocheck,
 * stacked reduction, WHIR) and assembles the Proof struct. Every shape and
 * layout fact comes from the prove plan (prove/prove_plan.h), built once
 * before the engines start; this file holds the engine buffers. */
#include "prove/whir.h"
#include "prove/prover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "engine/read_later.h"
#include "engine/dft_ops.h"
#include "field/canonical.h"
#include "engine/hash_ops.h"
#include "engine/zc_trace.h"
#include "common/air_cdag.h"
#include "prove/logup_zerocheck.h"
#include "prove/prep_commit.h"
#include "prove/proof_bridge.h"
#include "prove/prove_plan.h"
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

/* The engine side of a side commit (the plan's gs_plan_side of the same
 * index). */
typedef struct side {
    /* the trace, column-major with 2^logh rows, in its own buffer; freed
     * after the commit when the plan says it lies in the stacked matrix
     * (gs_plan_side.in_q), where the constraint phases then read it */
    mbuf trace;
    mbuf q, cw;
    gs_merkle_dev tree[2];
    int have_tree[2];
    bb_t root[GS_DIGEST_LEN];
} side;

/* Common mains whose upload the streamed commit takes over (see
 * defer_main_writes): the next sorted trace and column not yet written into
 * Q, and the caller's arrays they come from. */
typedef struct deferred_mains {
    int active;
    uint32_t t, col;
    const glstark_air_trace *traces;
} deferred_mains;

/* Everything the prover allocates on the engines and for them, released
 * in one place; the shapes are the plan's. */
typedef struct pstate {
    gs_engine *eng[2];
    const gs_prove_plan *plan;
    mbuf *main;                 /* per sorted trace, unless plan->traces_in_q: common main, Montgomery, column-major */
    gs_trace_ref *refs;
    gs_cdag_owned *dags;
    bb_t **publics;
    /* per part (the plan's part order): buffer on the engine of the
     * current phase and offset of column 0 */
    const gs_buf **part_ptrs;
    size_t *part_off;
    side *sides;                /* per plan side */
    gs_zc_trace *zc;
    mbuf q, cw;
    gs_merkle_dev tree[2];
    int have_tree[2];
    bb4_t *r, *u, *ucube;
    gs_lz_proof lz;
    int have_lz;
    gs_open_sums osums; /* the openings' block sums, for the stacked reduction's round 0 */
    unsigned fallback_phases;
    char missing[256];
    deferred_mains pending;
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
    memset(d, 0, sizeof *d);
}

static void pstate_free(pstate *s)
{
    if (s->eng[0] && s->eng[0]->zerocheck && s->eng[0]->zerocheck->compile_wait)
        s->eng[0]->zerocheck->compile_wait(s->eng[0]); /* a no-op where nothing was started */
    const uint32_t M = s->plan ? s->plan->M : 0, n_sides = s->plan ? s->plan->n_sides : 0;
    for (uint32_t t = 0; t < M; t++) {
        if (s->main)
            mbuf_free(&s->main[t]);
        if (s->dags)
            gs_cdag_owned_free(&s->dags[t]);
        if (s->publics)
            free(s->publics[t]);
    }
    free(s->main);
    free(s->refs);
    free(s->dags);
    free(s->publics);
    free(s->part_ptrs);
    free(s->part_off);
    for (uint32_t i = 0; s->sides && i < n_sides; i++)
        side_free(&s->sides[i]);
    free(s->sides);
    free(s->zc);
    for (int e = 0; e < 2; e++)
        if (s->have_tree[e])
            gs_merkle_dev_release(&s->tree[e]);
    mbuf_free(&s->q);
    mbuf_free(&s->cw);
    free(s->r);
    free(s->u);
    free(s->ucube);
    if (s->have_lz)
        gs_lz_proof_free(&s->lz);
    gs_open_sums_free(&s->osums);
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
    for (uint32_t i = 0; i < s->plan->n_sides; i++) {
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
        /* the write checks every value; a refusal is located here */
        st = gs_buf_write_canonical(stage, 0, host, n * width);
        size_t bad = st == GLSTARK_ERR_INVALID_ARGUMENT ? gs_first_non_canonical(host, n * width, 0) : n * width;
        if (bad < n * width) {
            st = gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "prove: AIR %u trace value %u (column %zu, row %zu, from trace_rows) is not below p = %u",
                              a, host[bad], bad / n, r0 + bad % n, (unsigned)BB_P);
            break;
        }
        if (st ||
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


/* The per-trace and per-part arrays of the state, in the plan's shapes. */
static glstark_status pstate_alloc(pstate *s, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    const uint32_t M = p->M, P = p->num_parts;
    s->sides = calloc(p->n_sides ? p->n_sides : 1, sizeof(side));
    s->main = calloc(M, sizeof(mbuf));
    s->refs = calloc(M, sizeof(gs_trace_ref));
    s->dags = calloc(M, sizeof(gs_cdag_owned));
    s->publics = calloc(M, sizeof(bb_t *));
    s->part_ptrs = calloc(P, sizeof(gs_buf *));
    s->part_off = calloc(P, sizeof(size_t));
    s->zc = calloc(M, sizeof(gs_zc_trace));
    if (!s->sides || !s->main || !s->refs || !s->dags || !s->publics || !s->part_ptrs || !s->part_off || !s->zc)
        return oom(err);
    return GLSTARK_OK;
}

/* Every value of the common mains given as arrays is below p (the streamed
 * ones are checked block by block as they arrive). */
/* Nonzero, with the message naming where, if AIR a's common main holds a
 * value not below p. */
static int check_trace_value(uint32_t a, const glstark_air_trace *tr, gs_error *err)
{
    size_t n = tr->common_main.width * tr->height;
    size_t bad = gs_first_non_canonical(tr->common_main.values, n, 0);
    if (bad < n)
        gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                     "prove: AIR %u trace value %u (column %zu, row %zu) is not below p = %u", a,
                     tr->common_main.values[bad], bad / tr->height, bad % tr->height, (unsigned)BB_P);
    return bad < n;
}

/* Sorted trace t's common main to engine e: into Q at the plan's offset, or
 * into a buffer of its own; straight from the caller's array (the engine
 * stores Montgomery form), or block by block from row_major_mains or
 * trace_rows. */
static glstark_status write_main_trace(pstate *s, int e, const gs_prove_options *opt, const glstark_air_trace *traces,
                                       uint32_t t, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    const uint32_t a = p->trace_air[t];
    const glstark_air_trace *tr = &traces[a];
    size_t n = tr->common_main.width * tr->height;
    gs_buf *dst = s->q.b[e];
    size_t base = p->traces_in_q ? p->q_off[t] : 0;
    glstark_status st;
    if (!p->traces_in_q) {
        if ((st = gs_buf_create(eng, (n ? n : 1) * sizeof(bb_t), &s->main[t].b[e])))
            return eng_fail(eng, st, "uploading a trace", err);
        dst = s->main[t].b[e];
    }
    const uint32_t *row_major = opt->row_major_mains ? opt->row_major_mains[a] : NULL;
    if (!tr->common_main.values && row_major)
        return stream_row_major(eng, opt, row_major, tr->common_main.width, tr->height, dst, base, err);
    if (!tr->common_main.values)
        return stream_trace(eng, opt, a, tr->common_main.width, tr->height, dst, base, err);
    st = gs_buf_write_canonical(dst, base * sizeof(bb_t), tr->common_main.values, n);
    /* the write checks every value as it copies it; a refusal is located
     * (AIR, column, row) by scanning again, which only a bad trace pays */
    if (st == GLSTARK_ERR_INVALID_ARGUMENT && check_trace_value(a, tr, err))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    return st ? eng_fail(eng, st, "uploading a trace", err) : GLSTARK_OK;
}

/* The preprocessed traces (from the key's AIRs) and the cached mains, each
 * into a buffer of its own on engine e. */
static glstark_status upload_sides(pstate *s, int e, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                   gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    for (uint32_t i = 0; i < p->n_sides; i++) {
        const gs_plan_side *d = &p->sides[i];
        side *sd = &s->sides[i];
        const size_t h = (size_t)1 << p->logh[d->t];
        glstark_status st;
        if (d->is_prep) {
            const glstark_air *air = pk->airs[d->air];
            if ((st = gs_prep_upload(eng, air->preprocessed_trace, h, d->width, &sd->trace.b[e], err)))
                return st;
        } else {
            const glstark_trace_part *cp = &traces[d->air].cached_mains[d->cached];
            if ((st = gs_buf_create(eng, h * d->width * sizeof(bb_t), &sd->trace.b[e])) ||
                (st = gs_buf_write_canonical(sd->trace.b[e], 0, cp->values, h * d->width)))
                return eng_fail(eng, st, "uploading a cached main trace", err);
        }
    }
    return GLSTARK_OK;
}

/* Per sorted trace: its constraint DAG, its public values (Montgomery) and
 * the gs_zc_trace view the constraint phases read (its part buffers are
 * set by traces_on). */
static glstark_status build_constraint_views(pstate *s, const gs_multi_vk *vk, const glstark_air_trace *traces,
                                             gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    for (uint32_t t = 0; t < p->M; t++) {
        uint32_t a = p->trace_air[t];
        const glstark_air_trace *tr = &traces[a];
        glstark_status st = gs_cdag_from_vk(&vk->per_air[a], &s->dags[t], err);
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
        const uint32_t b = p->part_base[t], ns = p->side_first[t + 1] - p->side_first[t];
        s->zc[t] = (gs_zc_trace){&s->dags[t].dag, p->logh[t], 1 + ns, &s->part_ptrs[b], &p->part_width[b],
                                 s->publics[t], (uint32_t)tr->num_public_values, &s->part_off[b]};
    }
    return GLSTARK_OK;
}

/* Whether the common mains' upload should ride along with the streamed
 * commit instead of preceding it: the traces go straight into Q, every one
 * as a values array, in Q's order, on an engine with memory to spare. The
 * commit then writes the columns each group needs just before encoding it
 * (write_pending), so the host copies the next group while the GPU encodes
 * and hashes this one: on the H200 the upload (host-copy bound) and the
 * commit are of the same order. Elsewhere the upload goes first: the
 * caller's trace would live through the commit (+83 MB of peak RSS for
 * keccakf-1024 on llvmpipe, where host and "GPU" share the cores and
 * nothing overlaps), and the board proxy's proofs ran 10-25% longer. */
static int defer_main_writes(const pstate *s, const gs_engine *eng, const gs_prove_options *opt,
                             const glstark_air_trace *traces)
{
    const gs_prove_plan *p = s->plan;
    if (!eng->plentiful_memory || !p->traces_in_q || !p->stream_commit || opt->row_major_mains)
        return 0;
    for (uint32_t t = 0; t < p->M; t++) {
        const glstark_air_trace *tr = &traces[p->trace_air[t]];
        if (!tr->common_main.values && tr->common_main.width)
            return 0;
        if (t > 0 && p->q_off[t] < p->q_off[t - 1])
            return 0;
    }
    return 1;
}

/* The deferred common-main columns that start below Q word `end` into Q on
 * engine e, in Q's order (SIZE_MAX: all that are left). */
static glstark_status write_pending(pstate *s, int e, size_t end, gs_error *err)
{
    deferred_mains *d = &s->pending;
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    while (d->active && d->t < p->M) {
        const uint32_t a = p->trace_air[d->t];
        const glstark_air_trace *tr = &d->traces[a];
        const size_t w = tr->common_main.width, h = tr->height, base = p->q_off[d->t];
        size_t c_end = w;
        if (end != SIZE_MAX)
            c_end = end <= base ? 0 : (end - base + h - 1) / h < w ? (end - base + h - 1) / h : w;
        if (c_end > d->col) {
            glstark_status st = gs_buf_write_canonical(s->q.b[e], (base + d->col * h) * sizeof(bb_t),
                                                       tr->common_main.values + d->col * h, (c_end - d->col) * h);
            if (st == GLSTARK_ERR_INVALID_ARGUMENT && check_trace_value(a, tr, err))
                return GLSTARK_ERR_INVALID_ARGUMENT;
            if (st)
                return eng_fail(eng, st, "uploading a trace", err);
            d->col = (uint32_t)c_end;
        }
        if (d->col < w)
            return GLSTARK_OK;
        d->t++;
        d->col = 0;
    }
    d->active = 0;
    return GLSTARK_OK;
}

/* Uploads the present common mains (sorted order) to engine e: straight
 * into the stacked matrix Q when every trace is a contiguous block of it
 * (one copy of the trace on the engine instead of two: 345 MB less for
 * keccakf-1024), else into a buffer per trace; and the side traces
 * (preprocessed, cached mains) into a buffer each. From here on the
 * caller's arrays are not read (traces_released), unless the common mains
 * were left to the streamed commit (defer_main_writes). */
static glstark_status upload_traces(pstate *s, int e, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                    const gs_prove_options *opt, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    glstark_status st = pstate_alloc(s, err);
    if (st)
        return st;
    if (p->traces_in_q) {
        /* zero only what no trace covers */
        const size_t all = (size_t)p->lay.width * p->stacked_rows;
        if ((st = gs_buf_create(eng, all * sizeof(bb_t), &s->q.b[e])) ||
            (p->q_zero_from < all &&
             (st = gs_buf_fill_u32(s->q.b[e], p->q_zero_from * sizeof(bb_t), all - p->q_zero_from, 0))))
            return eng_fail(eng, st, "allocating the stacked matrix", err);
    }
    /* two passes, each one span: the uploads (which check that every value
     * is below p as they copy it), the constraint DAGs and public values */
    int sn = gs_span_eng_begin(eng, "trace_write");
    s->pending = (deferred_mains){defer_main_writes(s, eng, opt, traces), 0, 0, traces};
    for (uint32_t t = 0; t < p->M && !s->pending.active; t++)
        if ((st = write_main_trace(s, e, opt, traces, t, err)))
            return st;
    if ((st = upload_sides(s, e, pk, traces, err)))
        return st;
    gs_span_eng_end(eng, sn);
    sn = gs_span_eng_begin(eng, "constraint_dags");
    if ((st = build_constraint_views(s, &pk->vk, traces, err)))
        return st;
    gs_span_eng_end(eng, sn);
    return GLSTARK_OK;
}

/* Points refs and the common-main parts at the main traces on engine e. */
static glstark_status main_traces_on(pstate *s, int e, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    if (p->traces_in_q) {
        glstark_status st = mbuf_on(s, &s->q, e, err);
        if (st)
            return st;
    }
    for (uint32_t t = 0; t < p->M; t++) {
        gs_buf *b;
        size_t off = 0;
        if (p->traces_in_q) {
            b = s->q.b[e];
            off = p->q_off[t];
        } else {
            glstark_status st = mbuf_on(s, &s->main[t], e, err);
            if (st)
                return st;
            b = s->main[t].b[e];
        }
        s->refs[t] = (gs_trace_ref){b, off};
        s->part_ptrs[p->part_base[t]] = b; /* s->zc[t].parts points here */
        s->part_off[p->part_base[t]] = off;
    }
    return GLSTARK_OK;
}

/* Points the gs_zc_trace views at every part on engine e (after the side
 * commits: a side trace in its stacked matrix is read there). */
static glstark_status traces_on(pstate *s, int e, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    glstark_status st = main_traces_on(s, e, err);
    if (st)
        return st;
    for (uint32_t i = 0; i < p->n_sides; i++) {
        const gs_plan_side *d = &p->sides[i];
        mbuf *m = d->in_q ? &s->sides[i].q : &s->sides[i].trace;
        if ((st = mbuf_on(s, m, e, err)))
            return st;
        uint32_t part = p->part_base[d->t] + 1 + (i - p->side_first[d->t]);
        s->part_ptrs[part] = m->b[e];
        s->part_off[part] = 0;
    }
    return GLSTARK_OK;
}

/* The codeword of Q encoded a group of columns at a time (the plan's
 * stream_group_cols), each group absorbed into the Merkle tree's row
 * sponges before the next is encoded, so the whole codeword never exists
 * (for a prover that does not keep it: WHIR's first queries encode it
 * again). One stream (n = 1) takes the row classes in turn, each class's
 * groups in order; a set of one stream per class (n = 2^log_classes,
 * gs_engine_merkle_stream_begin_classes) takes every class of group g, then
 * group g + 1, so with the traces written here (write_pending) the GPU
 * encodes and hashes all classes of a group while the host copies the
 * next, where class by class only the first class could hide under the
 * copy. Same tree, same bytes. */
static glstark_status commit_streamed(pstate *s, int e, gs_merkle_stream *ms, size_t n, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    const size_t G = p->stream_group_cols, nc = (size_t)1 << ms[0].log_classes;
    const uint32_t W = p->lay.width;
    const size_t ngroups = (W + G - 1) / G;
    const unsigned b = (unsigned)p->sp->log_blowup;
    const gs_trace_ref qref = {s->q.b[e], 0};
    glstark_status st = GLSTARK_OK, wst = GLSTARK_OK;
    for (size_t k = 0; !st && !wst && k < nc * ngroups; k++) {
        const uint32_t cls = (uint32_t)(n > 1 ? k % nc : k / ngroups);
        const uint32_t c0 = (uint32_t)((n > 1 ? k / nc : k % ngroups) * G);
        const uint32_t g = W - c0 < G ? W - c0 : (uint32_t)G;
        gs_merkle_stream *m = &ms[n > 1 ? cls : 0];
        /* the deferred columns, as the first class to encode a group needs them */
        if ((wst = write_pending(s, e, (size_t)(c0 + g) * p->stacked_rows, err)))
            break;
        if (m->log_classes > b) {
            const gs_dft_cols qc = {s->q.b[e], (size_t)c0 * p->stacked_rows, p->stacked_rows, g, p->L, 1};
            st = gs_rs_code_rows_folded(eng, &qc, p->l_skip, b, m->log_classes, cls, m->group, 0);
        } else {
            st = m->log_classes ? gs_rs_code_rows(eng, &p->q_self, &qref, b, cls, c0, c0 + g, m->group, 0)
                                : gs_rs_code_matrix(eng, &p->q_self, &qref, b, c0, c0 + g, m->group, 0);
        }
        if (!st)
            st = gs_engine_merkle_stream_columns(eng, m, g, &s->tree[e]);
    }
    for (size_t c = 0; c < n; c++)
        gs_merkle_stream_release(&ms[c]);
    if (!st && !wst)
        wst = write_pending(s, e, SIZE_MAX, err); /* columns past the last group's, if any */
    if (wst)
        return wst;
    if (st)
        return eng_fail(eng, st, "encoding and committing the stacked matrix a column group at a time", err);
    s->have_tree[e] = 1;
    return GLSTARK_OK;
}

/* The row classes (log2) of a streamed commit through nstreams streams.
 * Without plentiful memory, one stream takes twice the classes the blowup
 * gives (rs_code_rows_folded): each class half as tall, so the sponge
 * states and the column group it holds beside Q are half as large (64 ->
 * 32 MiB each at keccakf-1024), for a second read of Q per class. Only
 * where the tree's query cosets stay whole in a class and a class's part of
 * a column still holds whole blocks of 2^l_skip rows. */
static unsigned commit_log_classes(const gs_prove_plan *p, const gs_engine *eng, size_t nstreams)
{
    const unsigned lc = p->stream_log_classes;
    if (nstreams != 1 || eng->plentiful_memory || lc == 0 || !eng->dft || !eng->dft->rs_code_rows_folded)
        return lc;
    if ((p->codeword_rows >> p->sp->whir.k) % ((size_t)2 << lc) != 0 || p->l_skip + 1 > p->L)
        return lc;
    return lc + 1;
}

/* The stacked commitment of all common mains (OpenVM stacked_commit) on
 * engine e: Q streamed into the tree (streamed), or encoded whole into the
 * codeword the tree is built from. */
static glstark_status commit_main(pstate *s, int e, int streamed, bb_t root[8], gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    int sp_commit = gs_span_eng_begin(eng, "stacked_commit"), sn;
    glstark_status st = main_traces_on(s, e, err);
    if (st)
        return st;
    const size_t H = p->stacked_rows, N = p->codeword_rows;
    const uint32_t W = p->lay.width;
    if (!s->q.b[e] && (st = gs_buf_create(eng, W * H * sizeof(bb_t), &s->q.b[e])))
        return eng_fail(eng, st, "allocating the stacked matrix", err);
    /* the stacked matrix Q itself is kept for the stacked reduction and WHIR;
     * when the traces were uploaded into it, it is already built */
    if (!p->traces_in_q) {
        sn = gs_span_eng_begin(eng, "stack_matrix");
        if ((st = gs_stack_matrix(eng, &p->lay, s->refs, 0, W, s->q.b[e], 0)))
            return eng_fail(eng, st, "stacking the main traces", err);
        gs_span_eng_end(eng, sn);
    }
    /* Encode Q itself (the plan's q_self layout), so an engine copies whole
     * columns instead of every trace column again. */
    /* An engine that cannot stream this shape (a binding too small for a
     * column group) commits the whole codeword instead. With the traces
     * still to write and memory to spare, one stream per row class, so that
     * every class of a group hides under the copy of the next. */
    const size_t n = streamed && s->pending.active && eng->plentiful_memory ? (size_t)1 << p->stream_log_classes : 1;
    gs_merkle_stream *ms = NULL;
    if (streamed) {
        if (!(ms = calloc(n, sizeof *ms)))
            return oom(err);
        st = n > 1 ? gs_engine_merkle_stream_begin_classes(eng, N, W, (unsigned)p->sp->whir.k, p->stream_log_classes,
                                                           p->stream_group_cols, ms)
                   : gs_engine_merkle_stream_begin(eng, N, W, (unsigned)p->sp->whir.k, commit_log_classes(p, eng, n),
                                                   p->stream_group_cols, ms);
        if (st == GLSTARK_ERR_UNSUPPORTED) {
            streamed = 0;
            gs_error_clear(&eng->err);
        } else if (st) {
            free(ms);
            return eng_fail(eng, st, "starting the streamed commitment", err);
        }
    }
    if (streamed) {
        sn = gs_span_eng_begin(eng, "rs_code_merkle_streamed");
        st = commit_streamed(s, e, ms, n, err);
        free(ms);
        if (st)
            return st;
        if ((st = gs_engine_merkle_root(eng, &s->tree[e], root)))
            return eng_fail(eng, st, "reading the Merkle root", err);
        gs_span_eng_end(eng, sn);
        gs_span_eng_end(eng, sp_commit);
        return GLSTARK_OK;
    }
    free(ms);
    if ((st = write_pending(s, e, SIZE_MAX, err)))
        return st;
    if (!s->cw.b[e] && (st = gs_buf_create(eng, W * N * sizeof(bb_t), &s->cw.b[e])))
        return eng_fail(eng, st, "allocating the codeword", err);
    sn = gs_span_eng_begin(eng, "rs_code_matrix");
    const gs_trace_ref qref = {s->q.b[e], 0};
    if ((st = gs_rs_code_matrix(eng, &p->q_self, &qref, (unsigned)p->sp->log_blowup, 0, W, s->cw.b[e], 0)))
        return eng_fail(eng, st, "Reed-Solomon encoding the stacked matrix", err);
    gs_span_eng_end(eng, sn);
    sn = gs_span_eng_begin(eng, "merkle_tree");
    if ((st = gs_engine_merkle_commit(eng, s->cw.b[e], 0, N, W, 1, (unsigned)p->sp->whir.k, &s->tree[e])))
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
static glstark_status commit_sides(pstate *s, int e, const gs_multi_pk *pk, const gs_prove_options *opt,
                                   gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    gs_engine *eng = s->eng[e];
    /* every side's root read in one host sync after the last commitment */
    gs_stacked_params prm = gs_stacked_params_from_system(p->sp);
    prm.root_by_caller = 1;
    for (uint32_t i = 0; i < p->n_sides; i++) {
        const gs_plan_side *d = &p->sides[i];
        side *sd = &s->sides[i];
        const gs_commit_trace ct = {sd->trace.b[e], 0, d->width, (size_t)1 << p->logh[d->t]};
        gs_stacked_commit_data cd;
        memset(&cd, 0, sizeof cd);
        glstark_status st = gs_stacked_commit(eng, &ct, 1, &prm, &cd);
        if (st) {
            gs_engine_read_drop(eng);
            return gs_error_set(err, st, "prove: AIR %u's %s commitment failed on the %s engine: %s", d->air,
                                d->is_prep ? "preprocessed" : "cached main", eng->core->name, eng->err.msg);
        }
        /* the side takes over what the commit made; its layout (the same
         * one, made from the same shape) is the plan's */
        const uint32_t commit_width = cd.layout.width;
        gs_stack_layout_free(&cd.layout);
        sd->q.b[e] = cd.matrix;
        sd->cw.b[e] = cd.codeword;
        sd->tree[e] = cd.tree;
        sd->have_tree[e] = 1;
        if (commit_width != d->lay.width) {
            gs_engine_read_drop(eng);
            return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                                "prove: AIR %u's %s commitment is %u columns wide, its planned layout %u", d->air,
                                d->is_prep ? "preprocessed" : "cached main", commit_width, d->lay.width);
        }
        if ((st = gs_engine_merkle_root_later(eng, &sd->tree[e], sd->root))) {
            gs_engine_read_drop(eng);
            return eng_fail(eng, st, "reading a side commitment's root", err);
        }
        if (d->in_q)
            mbuf_free(&sd->trace);
        if (opt->reencode_codeword)
            mbuf_free(&sd->cw);
    }
    glstark_status st = gs_engine_read_flush(eng);
    if (st)
        return eng_fail(eng, st, "reading the side commitments' roots", err);
    for (uint32_t i = 0; i < p->n_sides; i++) {
        const gs_plan_side *d = &p->sides[i];
        if (d->is_prep && memcmp(s->sides[i].root, pk->vk.per_air[d->air].preprocessed_data.commit,
                                 sizeof s->sides[i].root))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "prove: AIR %u's preprocessed trace does not match the commitment in the key (was "
                                "the trace set again after keygen?); make the key again from the AIRs as they are",
                                d->air);
    }
    return GLSTARK_OK;
}

static glstark_status fill_preamble(const gs_multi_vk *vk, const glstark_air_trace *traces, const pstate *s,
                                    gs_proof *pf, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    const size_t A = vk->num_airs;
    pf->num_airs = (uint32_t)A;
    pf->trace_vdata = calloc(A, sizeof(gs_trace_vdata));
    pf->num_public_value_lists = (uint32_t)A;
    pf->public_values = calloc(A, sizeof *pf->public_values);
    if (!pf->trace_vdata || !pf->public_values)
        return oom(err);
    for (uint32_t t = 0; t < p->M; t++) {
        uint32_t a = p->trace_air[t];
        pf->trace_vdata[a].present = 1;
        pf->trace_vdata[a].log_height = p->logh[t];
        uint32_t nc = (uint32_t)vk->per_air[a].num_cached_mains;
        if (nc) {
            pf->trace_vdata[a].cached_commitments = calloc(nc, sizeof(gs_digest));
            if (!pf->trace_vdata[a].cached_commitments)
                return oom(err);
            pf->trace_vdata[a].num_cached = nc;
            for (uint32_t i = p->side_first[t], c = 0; i < p->side_first[t + 1]; i++)
                if (!p->sides[i].is_prep)
                    memcpy(pf->trace_vdata[a].cached_commitments[c++].v, s->sides[i].root, sizeof s->sides[i].root);
        }
        size_t n = traces[a].num_public_values;
        pf->public_values[a].len = (uint32_t)n;
        pf->public_values[a].v = malloc((n ? n : 1) * sizeof(bb_t));
        if (!pf->public_values[a].v)
            return oom(err);
        memcpy(pf->public_values[a].v, s->publics[t], n * sizeof(bb_t));
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

/* The constraint checker (unless skipped): names AIR, constraint and row. */
static glstark_status check_constraints(const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                                        const gs_prove_options *opt, gs_span_rec *R, gs_error *err)
{
    if (opt->skip_constraint_check || !pk->airs || pk->num_airs != pk->vk.num_airs)
        return GLSTARK_OK;
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
    glstark_status st =
        glstark_check_constraints((glstark_air *const *)pk->airs, pk->num_airs, traces, &f, msg, sizeof msg);
    if (st)
        return gs_error_set(err, st, "prove: the traces do not satisfy the AIRs: %s", msg);
    gs_span_end(R, sp_check);
    return GLSTARK_OK;
}

/* The constraint programs compile on a thread of their own while the
 * commit runs (zerocheck op compile_ahead); pstate_free waits for it
 * before the views go. */
static void compile_ahead(pstate *s)
{
    gs_engine *eng = s->eng[0];
    if (eng->zerocheck && eng->zerocheck->compile_ahead && eng->zerocheck->compile_wait)
        eng->zerocheck->compile_ahead(eng, s->zc, s->plan->M);
}

/* T1's data: the traces uploaded, the common main committed (its root into
 * the proof), the side commits, and the proof's per-AIR preamble. */
static glstark_status phase_commit(pstate *s, const gs_multi_pk *pk, const glstark_air_trace *traces,
                                   const gs_prove_options *opt, gs_span_rec *R, gs_proof *out, gs_error *err)
{
    int e, sk;
    const int sp_phase = gs_span_begin(R, "prover.main_trace_commit");
    glstark_status st = pick(s, GS_PHASE_COMMIT, &e, err);
    if (st)
        return st;
    span_on(R, sp_phase, s, e);
    sk = gs_span_begin(R, "trace_upload");
    span_on(R, sk, s, e);
    if ((st = upload_traces(s, e, pk, traces, opt, err)))
        return st;
    gs_span_end(R, sk);
    compile_ahead(s);
    /* the engine's writes copy the values before returning and the public
     * values are in s->publics: nothing below reads the caller's arrays
     * (once the commit has written the deferred columns, if any) */
    const int deferred = s->pending.active;
    if (opt->traces_released && !deferred)
        opt->traces_released(opt->traces_released_user);
    /* Without a kept codeword (reencode_codeword), the commit encodes Q a
     * column group at a time into the tree's row sponges where the engine
     * can (the codeword never exists whole), else it encodes it whole and
     * frees it after the tree; WHIR's first queries encode it again from Q
     * (gs_whir_commit_data). */
    const int streamed = s->plan->stream_commit && s->eng[e]->hash && s->eng[e]->hash->stream_begin;
    if ((st = commit_main(s, e, streamed, out->common_main_commit.v, err)))
        return st;
    if (opt->traces_released && deferred)
        opt->traces_released(opt->traces_released_user);
    if (opt->reencode_codeword)
        mbuf_free(&s->cw);
    if (s->plan->n_sides) {
        sk = gs_span_begin(R, "preprocessed_and_cached_commits");
        span_on(R, sk, s, e);
        if ((st = commit_sides(s, e, pk, opt, err)))
            return st;
        gs_span_end(R, sk);
    }
    /* short of memory, the commits' transforms' tables go until WHIR
     * encodes again: the constraint phases beside Q are the board
     * profile's peak */
    if (!s->eng[e]->plentiful_memory)
        gs_engine_trim(s->eng[e]);
    if ((st = fill_preamble(&pk->vk, traces, s, out, err)))
        return st;
    gs_span_end(R, sp_phase);
    return GLSTARK_OK;
}

/* T3: the LogUp proof-of-work, ground on the engine. */
static glstark_status phase_logup_pow(pstate *s, gs_transcript *ts, gs_span_rec *R, gs_proof *out, gs_error *err)
{
    int e;
    uint32_t w = 0;
    const int sk = gs_span_begin(R, "logup_pow");
    glstark_status st = pick(s, GS_PHASE_LOGUP_POW, &e, err);
    if (st)
        return st;
    span_on(R, sk, s, e);
    if ((st = gs_transcript_grind(ts, (unsigned)s->plan->sp->logup.pow_bits, gs_engine_grind_fn, s->eng[e], &w,
                                  err)))
        return st;
    gs_span_end(R, sk);
    out->gkr.logup_pow_witness = bb_from_canonical(w);
    return GLSTARK_OK;
}

/* T4..T13: GKR, the batch constraint sumcheck and the column openings;
 * leaves the sumcheck point in s->r. */
static glstark_status phase_logup_zerocheck(pstate *s, gs_fs *fs, gs_span_rec *R, gs_proof *out, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    int e;
    s->r = calloc(p->L + 2, sizeof(bb4_t));
    if (!s->r)
        return oom(err);
    glstark_status st = pick(s, GS_PHASE_LOGUP_ZEROCHECK, &e, err);
    if (st)
        return st;
    const int sk = (p->traces_in_q ? s->q.b[e] : s->main[0].b[e]) ? -1 : gs_span_begin(R, "copy_to_fallback");
    span_on(R, sk, s, e);
    if ((st = traces_on(s, e, err)))
        return st;
    gs_span_end(R, sk);
    /* logup_gkr, round0, mle_rounds, column_openings: marked inside */
    if ((st = gs_lz_prove(s->eng[e], fs, s->zc, p->M, p->l_skip, (uint32_t)p->sp->max_constraint_degree, 0, &s->lz,
                          s->r, &s->osums, err)))
        return st;
    s->have_lz = 1;
    return gs_bridge_lz_to_proof(&s->lz, s->zc, p->M, out, err);
}

/* A commit's round-0 block sums (2N per slice of lay, in placement order),
 * from the sums the column openings were read from: slice (trace k of lay,
 * column c) is column c of part `part` of sorted trace trace_of[k]. A
 * column shorter than 2^l_skip rows was summed at its own height; the
 * stacked matrix spreads its values 2^(l_skip - h) rows apart over a slot
 * of 2^l_skip rows, zeros between, and so do its sums (with no multilinear
 * variable both halves are the same). NULL when a part's sums are missing
 * (the reduction then reads the matrix) or out of memory. */
static bb4_t *known_commit_sums(const gs_open_sums *os, const gs_stack_layout *lay, const uint32_t *trace_of,
                                uint32_t part, uint32_t l_skip)
{
    const size_t N = (size_t)1 << l_skip;
    if (part >= GS_OPEN_SUMS_PARTS || !os->part)
        return NULL;
    bb4_t *out = calloc(lay->nslices ? lay->nslices * 2 * N : 1, sizeof(bb4_t));
    if (!out)
        return NULL;
    for (size_t i = 0; i < lay->nslices; i++) {
        const gs_stack_slice *sl = &lay->slices[i];
        const uint32_t t = trace_of[sl->trace];
        const bb4_t *src = t < os->M ? os->part[(size_t)t * GS_OPEN_SUMS_PARTS + part] : NULL;
        if (!src) {
            free(out);
            return NULL;
        }
        const size_t n = (size_t)1 << (sl->log_height < l_skip ? sl->log_height : l_skip);
        src += (size_t)sl->trace_col * 2 * n;
        bb4_t *dst = out + i * 2 * N;
        if (n == N) {
            memcpy(dst, src, 2 * N * sizeof(bb4_t));
        } else {
            const size_t gap = N / n;
            for (size_t j = 0; j < n; j++)
                dst[j * gap] = dst[N + j * gap] = src[j];
        }
    }
    return out;
}

/* T14..T17: the stacked opening reduction over every commit in the proof's
 * order (the common main, then the sides); leaves u in s->u. */
static glstark_status phase_stacked_reduction(pstate *s, gs_fs *fs, gs_span_rec *R, gs_proof *out, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    const uint32_t n_commits = 1 + p->n_sides;
    int e;
    s->u = calloc(p->n_stack + 2, sizeof(bb4_t));
    if (!s->u)
        return oom(err);
    const int sk = gs_span_begin(R, "stacked_reduction");
    glstark_status st;
    if ((st = pick(s, GS_PHASE_STACKED_REDUCTION, &e, err)) || (st = mbuf_on(s, &s->q, e, err)) ||
        (st = sides_on(s, e, 0, 0, err)))
        return st;
    span_on(R, sk, s, e);
    gs_sred_commit *sc = calloc(n_commits, sizeof *sc);
    const gs_buf **mats = calloc(n_commits, sizeof *mats);
    if (!sc || !mats) {
        free(sc);
        free(mats);
        return oom(err);
    }
    sc[0] = p->red;
    mats[0] = s->q.b[e];
    for (uint32_t i = 0; i < p->n_sides; i++) {
        sc[1 + i] = p->sides[i].red;
        mats[1 + i] = s->sides[i].q.b[e];
    }
    /* round 0's block sums from the openings where every slice has them
     * (a commit without them is read from its matrix) */
    bb4_t **known = calloc(n_commits, sizeof *known);
    uint32_t *ident = calloc(p->M ? p->M : 1, sizeof *ident);
    if (known && ident) {
        for (uint32_t t = 0; t < p->M; t++)
            ident[t] = t;
        known[0] = known_commit_sums(&s->osums, &p->lay, ident, 0, p->l_skip);
        for (uint32_t i = 0; i < p->n_sides; i++) {
            const uint32_t t = p->sides[i].t;
            known[1 + i] = known_commit_sums(&s->osums, &p->sides[i].lay, &t, 1 + i - p->side_first[t], p->l_skip);
        }
    }
    st = gs_sred_prove(s->eng[e], fs, (gs_sred_params){p->l_skip, p->n_stack}, sc, mats, n_commits, s->r,
                       s->lz.batch.n_rounds + 1, (const bb4_t *const *)known, &out->stacking, s->u, err);
    for (uint32_t c = 0; known && c < n_commits; c++)
        free(known[c]);
    free(known);
    free(ident);
    gs_open_sums_free(&s->osums);
    free(sc);
    free(mats);
    if (st)
        return st;
    gs_span_end(R, sk);
    return GLSTARK_OK;
}

/* WHIR on u_cube = (u_0, u_0^2, .., u_0^(2^(l-1)), u_1, .., u_{n_stack})
 * over every commit. */
static glstark_status phase_whir(pstate *s, gs_transcript *ts, const gs_prove_options *opt, gs_span_rec *R,
                                 gs_proof *out, gs_error *err)
{
    const gs_prove_plan *p = s->plan;
    const uint32_t n_commits = 1 + p->n_sides;
    const int keep_cw = !opt->reencode_codeword;
    int e;
    s->ucube = calloc(p->L + 1, sizeof(bb4_t));
    if (!s->ucube)
        return oom(err);
    bb4_t x = s->u[0];
    for (uint32_t i = 0; i < p->l_skip; i++) {
        s->ucube[i] = x;
        x = bb4_mul(x, x);
    }
    for (uint32_t j = 1; j <= p->n_stack; j++)
        s->ucube[p->l_skip + j - 1] = s->u[j];
    const int sk = gs_span_begin(R, "whir");
    glstark_status st;
    if ((st = pick(s, GS_PHASE_WHIR, &e, err)) || (st = mbuf_on(s, &s->q, e, err)) ||
        (keep_cw && (st = mbuf_on(s, &s->cw, e, err))) || (st = tree_on(s, s->tree, s->have_tree, e, err)) ||
        (st = sides_on(s, e, 1, keep_cw, err)))
        return st;
    span_on(R, sk, s, e);
    gs_whir_commit_data *cd = calloc(n_commits, sizeof *cd);
    if (!cd)
        return oom(err);
    cd[0] = (gs_whir_commit_data){s->q.b[e], 0, keep_cw ? s->cw.b[e] : NULL, 0, &s->tree[e], p->lay.width};
    for (uint32_t i = 0; i < p->n_sides; i++) {
        side *d = &s->sides[i];
        cd[1 + i] = (gs_whir_commit_data){d->q.b[e], 0, keep_cw ? d->cw.b[e] : NULL, 0, &d->tree[e],
                                          p->sides[i].lay.width};
    }
    st = gs_whir_prove(s->eng[e], ts, &p->whir, cd, n_commits, s->ucube, p->L, &out->whir, err);
    free(cd);
    if (st)
        return st;
    gs_span_end(R, sk);
    return GLSTARK_OK;
}

/* "commit, WHIR ran on the cpu engine (the gles engine lacks dft, whir)" */
static void fallback_note(const pstate *s, gs_prove_timings *tm)
{
    char ph[160] = "";
    for (unsigned b = 1; b <= GS_PHASE_WHIR; b <<= 1)
        if (s->fallback_phases & b)
            snprintf(ph + strlen(ph), sizeof ph - strlen(ph), "%s%s", ph[0] ? ", " : "", phase_name(b));
    snprintf(tm->fallback_note, sizeof tm->fallback_note, "%s ran on the %s engine (the %s engine lacks %s)", ph,
             s->eng[1]->core->name, s->eng[0]->core->name, s->missing);
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
    if (!vk->has_pre_hash)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "prove: the key has no vk pre-hash (make it with gs_keygen)");
    double t0 = gs_now_s(), t1;
    gs_prove_plan plan;
    glstark_status st = gs_prove_plan_build(&plan, pk, traces, num_traces, opt, err);
    if (st)
        return st;
    pstate s;
    memset(&s, 0, sizeof s);
    s.plan = &plan;
    s.eng[0] = eng;
    s.eng[1] = opt->fallback != eng ? opt->fallback : NULL;
    if ((st = check_constraints(pk, traces, num_traces, opt, R, err)))
        goto fail;
    t1 = gs_now_s();
    tm.check = t1 - t0;
    /* OpenVM's root span: everything after the (debug) constraint check */
    const int sp_root = gs_span_begin(R, "stark_prove_excluding_trace");
    /* The engine may start ahead of use what the proof will need (the GLES
     * engine: background compiles of its programs where the driver's cache
     * is cold), inside the proof's time, not the check's. */
    const gs_prepare_hint hint = {plan.l_skip, plan.has_interactions, GS_PREPARE_PROOF_START};
    if ((st = gs_engine_prepare(eng, &hint))) {
        st = eng_fail(eng, st, "preparing for the proof", err);
        goto fail;
    }
    if ((st = phase_commit(&s, pk, traces, opt, R, out, err)))
        goto fail;
    tm.commit = gs_now_s() - t1;
    t1 = gs_now_s();

    gs_transcript ts;
    gs_transcript_init(&ts);
    gs_fs fs = gs_fs_wrap_transcript(&ts);
    observe_preamble(&ts, vk, out);
    const int sp_rap = gs_span_begin(R, "prover.rap_constraints");
    if ((st = phase_logup_pow(&s, &ts, R, out, err)))
        goto fail;
    tm.logup_pow = gs_now_s() - t1;
    t1 = gs_now_s();
    if ((st = phase_logup_zerocheck(&s, &fs, R, out, err)))
        goto fail;
    gs_span_end(R, sp_rap);
    tm.logup_zerocheck = gs_now_s() - t1;
    t1 = gs_now_s();

    const int sp_open = gs_span_begin(R, "prover.openings");
    if ((st = phase_stacked_reduction(&s, &fs, R, out, err)))
        goto fail;
    tm.stacked_reduction = gs_now_s() - t1;
    t1 = gs_now_s();
    if ((st = phase_whir(&s, &ts, opt, R, out, err)))
        goto fail;
    gs_span_end(R, sp_open);
    gs_span_end(R, sp_root);
    tm.whir = gs_now_s() - t1;
    tm.total = gs_now_s() - t0;
    tm.fallback_phases = s.fallback_phases;
    if (s.fallback_phases)
        fallback_note(&s, &tm);
    if (times)
        *times = tm;
    pstate_free(&s);
    gs_prove_plan_free(&plan);
    return GLSTARK_OK;
fail:
    pstate_free(&s);
    gs_prove_plan_free(&plan);
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
    uint64_t sync0[2] = {0, 0}, alloc0[2] = {0, 0}, wait0[2] = {0, 0};
    size_t peak_before[2] = {0, 0};
    struct gs_span_rec *borrowed[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!E[i])
            continue;
        sync0[i] = E[i]->host_syncs;
        wait0[i] = E[i]->upload_waits;
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
        tm.upload_waits[i] = E[i]->upload_waits - wait0[i];
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
