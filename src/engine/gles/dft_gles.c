/* The GLES engine's dft family (definitions in src/engine/dft_ops.h): the
 * same transforms as the CPU engine, so results are bit-identical.
 *
 * A DFT of 2^k points is a bit-reversal pass (which also applies 1/n for
 * inverses; from 2^10 points up as 32 x 32 tile swaps, coalesced on both
 * sides) and k decimation-in-time layers: the low layers inside work-group
 * blocks of up to 2^DFT_BLOCK_LOG elements in shared memory (8 KiB, within the
 * 16 KiB floor), the remaining layers DFT_RADIX_LOG at a time in registers
 * (glsl/dft.comp). Sequences that fit a block (the RS message's 2^l_skip
 * blocks) take one sweep instead: the shared pass bit-reverses and scales
 * them as it loads them, and runs the subset sums too. Each pass binds a
 * window of whole columns that fits the per-binding limit; a column too long
 * for any window is transformed on the host (read back, CPU engine, written
 * back) rather than failing. Passes are cut into dispatches of at most 2^22
 * elements so that none runs long on a slow GPU; 2^26 on desktop-class GPUs,
 * where the barrier between dispatches cost more than a long dispatch
 * (2^22 x 42: 9.2 -> 7.5 ms).
 *
 * RS code matrix: per group of stacked columns, Q is assembled in a scratch
 * buffer with buffer copies (zero fill, then every slice), turned into the RS
 * message (block inverse DFTs + subset sums), expanded straight into the
 * codeword columns in bit-reversed order with the first log_blowup copy-only
 * layers already applied, and finished with the remaining DIT layers.
 *
 * RS code rows (one row class): per window of output columns, Q is assembled
 * in the output itself, turned into the RS message there, twisted by g^j
 * (MODE_TWIST, from two tables of about 2^(L/2) words) and transformed by
 * the forward DFT of length 2^L in place: no buffer of message or codeword
 * size. */
#include "engine/dft_ops.h"
#include "engine/gles/colwin.h"
#include "engine/gles/gles_engine.h"
#include "gles/dispatch_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DFT_RADIX_LOG 4u      /* 16 points per invocation in the global passes (32, 64: slower) */
#define GS_DFT_DISPATCH ((uint64_t)1 << 22)
#define GS_DFT_DISPATCH_DESKTOP ((uint64_t)1 << 26)

enum {
    M_BITREV = 1,
    M_SHARED = 2,
    M_RADIX = 3,
    M_ZETA_LOW = 4,
    M_ZETA_BIT = 5,
    M_GATHER = 6,
    M_GATHER_TILED = 7,
    M_TWIDDLES = 8,
    M_BITREV_TILED = 9,
    M_SHARED_SHORT = 10,
    M_TWIST = 11,
    M_ADD_PART = 12,
    M_ENCODE_TILED = 13
};

/* A set of equal-length sequences in one bound window (see glsl/dft.comp). */
typedef struct vview {
    gs_buf *buf;
    uint64_t start; /* bound byte range */
    uint64_t bytes;
    uint32_t lead, stride, vpcs, subw, ews;
    uint64_t nv;    /* sequences */
    unsigned logn;
} vview;

typedef struct dft_ctx {
    gs_engine *eng;
    gs_gl_device *dev;
    unsigned block_log;
    uint64_t dispatch; /* most elements per dispatch */
    gs_gl_program *prog[14];
    gs_gl_program *radix[DFT_RADIX_LOG + 1]; /* MODE_RADIX per points-per-invocation log */
} dft_ctx;

static void set_u(const gs_gl_program *p, const char *name, uint32_t v)
{
    GLint loc = gs_gl_program_uniform(p, name);
    if (loc >= 0)
        glProgramUniform1ui(gs_gl_program_name(p), loc, v);
}

static glstark_status ctx_init(dft_ctx *c, gs_engine *eng)
{
    memset(c, 0, sizeof *c);
    c->eng = eng;
    c->dev = gs_gles_device(eng);
    c->block_log = c->dev->caps.dft_block_log ? c->dev->caps.dft_block_log : 1;
    c->dispatch = c->dev->caps.desktop_class ? GS_DFT_DISPATCH_DESKTOP : GS_DFT_DISPATCH;
    return GLSTARK_OK;
}

static void prog_defs(const dft_ctx *c, int mode, unsigned radix_m, char *defs, size_t n)
{
    snprintf(defs, n, "DFT_MODE %d\nDFT_BLOCK_LOG %u\nDFT_BLOCK %uu\nDFT_RADIX_M %u\n", mode, c->block_log,
             1u << c->block_log, radix_m);
}

static glstark_status prog_get(dft_ctx *c, int mode, unsigned radix_m, gs_gl_program **slot)
{
    if (*slot)
        return GLSTARK_OK;
    char defs[160];
    prog_defs(c, mode, radix_m, defs, sizeof defs);
    return gs_gl_program_get(c->dev, "dft.comp", defs, slot, &c->eng->err);
}

glstark_status gs_gles_dft_precompile(gs_engine *eng)
{
    dft_ctx c;
    ctx_init(&c, eng);
    /* What a proof's RS encodings run: twiddles, the RS message's small
     * block DFTs (one short shared pass), the codeword's tiled expansion,
     * its shared pass and its register passes (3 and 4 layers for the
     * usual 2^20..2^23 codewords); the streamed commit's row classes: the
     * twist and the tiled bit reversal, or all of a class's front in one
     * pass where Q's columns are one run of the trace. */
    static const int modes[] = {M_TWIDDLES,     M_SHARED_SHORT, M_SHARED, M_GATHER_TILED, M_TWIST, M_BITREV_TILED,
                                M_ENCODE_TILED};
    char defs[160];
    glstark_status st = GLSTARK_OK;
    for (size_t i = 0; !st && i < sizeof modes / sizeof modes[0]; i++) {
        prog_defs(&c, modes[i], 1, defs, sizeof defs);
        st = gs_gl_program_prefetch(c.dev, "dft.comp", defs, &eng->err);
    }
    for (unsigned m = 3; !st && m <= DFT_RADIX_LOG; m++) {
        prog_defs(&c, M_RADIX, m, defs, sizeof defs);
        st = gs_gl_program_prefetch(c.dev, "dft.comp", defs, &eng->err);
    }
    return st;
}

static glstark_status prog_for(dft_ctx *c, int mode, gs_gl_program **out)
{
    glstark_status st = prog_get(c, mode, 1, &c->prog[mode]);
    *out = c->prog[mode];
    return st;
}

static glstark_status prog_radix(dft_ctx *c, unsigned m, gs_gl_program **out)
{
    glstark_status st = prog_get(c, M_RADIX, m, &c->radix[m]);
    *out = c->radix[m];
    return st;
}

static glstark_status bind_view(dft_ctx *c, const vview *v, gs_gl_program *p)
{
    set_u(p, "gs_logn", v->logn);
    set_u(p, "gs_lead", v->lead);
    set_u(p, "gs_stride", v->stride);
    set_u(p, "gs_vpcs", v->vpcs);
    set_u(p, "gs_subw", v->subw);
    set_u(p, "gs_ews", v->ews);
    return gs_gl_bind_range(c->dev, 0, v->buf->gl_name, v->start, v->bytes, &c->eng->err);
}

/* Runs `count` ids of the bound program in dispatches of at most `chunk`
 * ids (chunk a multiple of the local size for the shared pass). `weight`
 * is an id's cost relative to the program's other calls (its layers, its
 * exponent bits): the dispatch time budget plans fewer ids per dispatch for
 * heavier calls of a program whose rate was measured on lighter ones. */
static glstark_status run_ids_weighted(dft_ctx *c, gs_gl_program *p, uint64_t count, uint64_t chunk, uint64_t weight)
{
    for (uint64_t i0 = 0; i0 < count; i0 += chunk) {
        uint64_t n = count - i0 < chunk ? count - i0 : chunk;
        set_u(p, "gs_id0", (uint32_t)i0);
        glstark_status st =
            gs_gl_dispatch_1d_weighted(c->dev, p, n, c->dev->caps.local_size, weight, &c->eng->err);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

/* run_ids_weighted for programs whose ids all cost the same. */
static glstark_status run_ids(dft_ctx *c, gs_gl_program *p, uint64_t count, uint64_t chunk)
{
    return run_ids_weighted(c, p, count, chunk, 1);
}

/* Twiddle table of the CPU engine: tw[h + t] = w_(2h)^t (inverse roots if
 * asked) for every power of two h and t < h, tw[0] = 1. Entry h + t does not
 * depend on the table's size, so the engine keeps one table per direction,
 * grown to the largest size asked for, and a transform of 2^logn points
 * binds its first 2^logn words (which fit a binding whenever a column does).
 * The table is computed on the GPU (glsl/dft.comp, MODE_TWIDDLES): exact
 * powers, the same words as the host's running products. */
typedef struct tw_buf {
    gs_buf *buf;
    unsigned logn; /* words bound: 2^logn (at least 2) */
} tw_buf;

static glstark_status twiddles(dft_ctx *c, unsigned logn, int inverse, tw_buf *out)
{
    gs_gles_state *gs = c->eng->impl;
    unsigned want = logn > 1 ? logn : 1;
    out->buf = NULL;
    out->logn = want;
    if (gs->twiddles[inverse] && gs->twiddles_log[inverse] >= want) {
        out->buf = gs->twiddles[inverse];
        return GLSTARK_OK;
    }
    gs_buf *b = NULL;
    glstark_status st = gs_buf_create(c->eng, ((size_t)4) << want, &b);
    gs_gl_program *p = NULL;
    if (!st)
        st = prog_for(c, M_TWIDDLES, &p);
    if (!st)
        st = gs_gl_bind_range(c->dev, 0, b->gl_name, 0, ((uint64_t)4) << want, &c->eng->err);
    if (!st) {
        bb_t w = bb_two_adic_generator(want);
        set_u(p, "gs_gen", inverse ? bb_inv(w) : w);
        set_u(p, "gs_logn", want);
        set_u(p, "gs_lead", 0);
        st = run_ids_weighted(c, p, (uint64_t)1 << want, c->dispatch, gs_weight_pow(want));
    }
    if (st) {
        if (b)
            gs_buf_destroy(b);
        return st;
    }
    if (gs->twiddles[inverse])
        gs_buf_destroy(gs->twiddles[inverse]);
    gs->twiddles[inverse] = b;
    gs->twiddles_log[inverse] = want;
    out->buf = b;
    return GLSTARK_OK;
}

static glstark_status bind_tw(dft_ctx *c, const tw_buf *tw)
{
    return gs_gl_bind_range(c->dev, 1, tw->buf->gl_name, 0, ((uint64_t)4) << tw->logn, &c->eng->err);
}

static glstark_status pass_bitrev(dft_ctx *c, const vview *v, bb_t scale)
{
    gs_gl_program *p;
    const int tiled = v->logn >= 10;
    glstark_status st = prog_for(c, tiled ? M_BITREV_TILED : M_BITREV, &p);
    if (!st)
        st = bind_view(c, v, p);
    if (st)
        return st;
    set_u(p, "gs_scale", scale);
    if (!tiled)
        return run_ids(c, p, v->nv << v->logn, c->dispatch);
    /* One work group per 32 x 32 tile (those past their partner exit). */
    uint64_t ls = c->dev->caps.local_size;
    return run_ids(c, p, (v->nv << (v->logn - 10)) * ls, (c->dispatch >> 10) * ls);
}

/* The shared-memory pass: DIT layers [lo, hi) of every sequence of v, in
 * blocks of 2^block_log words (shorter sequences share a block). `whole`
 * (sequences that fit a block: lo = 0, hi = logn <= block_log, logn >= 1)
 * runs the short variant, which does the rest of such a transform in the
 * same sweep: the bit reversal and the 1/n scale (scale != 0) on the load
 * and subset sums over the low `zeta` bits after the layers. */
static glstark_status shared_pass(dft_ctx *c, const vview *v, unsigned lo, unsigned hi, int whole, bb_t scale,
                                  unsigned zeta)
{
    unsigned logn = v->logn;
    gs_gl_program *p;
    glstark_status st = prog_for(c, whole ? M_SHARED_SHORT : M_SHARED, &p);
    if (!st)
        st = bind_view(c, v, p);
    if (st)
        return st;
    set_u(p, "gs_layer", lo);
    set_u(p, "gs_layers", hi - lo);
    set_u(p, "gs_nv", (uint32_t)v->nv);
    if (whole) {
        set_u(p, "gs_scale", scale);
        set_u(p, "gs_zeta", zeta);
    }
    uint64_t ls = c->dev->caps.local_size;
    uint64_t groups = logn >= c->block_log ? v->nv << (logn - c->block_log)
                                           : (v->nv + ((uint64_t)1 << (c->block_log - logn)) - 1) >>
                                                 (c->block_log - logn);
    uint64_t per = (c->dispatch >> c->block_log) * ls;
    if (per < ls)
        per = ls;
    return run_ids_weighted(c, p, groups * ls, per, gs_weight_dft_shared(hi - lo, zeta));
}

/* DIT layers [lo, logn) of every sequence of v (twiddles already bound). */
static glstark_status dit_layers(dft_ctx *c, const vview *v, unsigned lo)
{
    unsigned logn = v->logn;
    unsigned bl = logn < c->block_log ? logn : c->block_log;
    glstark_status st;
    gs_gl_program *p;
    if (lo < bl) {
        st = shared_pass(c, v, lo, bl, 0, 0, 0);
        if (st)
            return st;
    }
    unsigned l = lo > bl ? lo : bl;
    /* The remaining layers in as few register passes as possible, of even
     * sizes (9 layers: 3+3+3, not 4+4+1: a thin pass costs a full sweep). */
    unsigned rem = logn > l ? logn - l : 0;
    unsigned passes = (rem + DFT_RADIX_LOG - 1) / DFT_RADIX_LOG;
    for (unsigned k = 0; k < passes; k++) {
        unsigned m = (rem + (passes - k) - 1) / (passes - k);
        st = prog_radix(c, m, &p);
        if (!st)
            st = bind_view(c, v, p);
        if (st)
            return st;
        set_u(p, "gs_layer", l);
        st = run_ids(c, p, v->nv << (logn - m), c->dispatch >> m);
        if (st)
            return st;
        l += m;
        rem -= m;
    }
    return GLSTARK_OK;
}

/* Subset sums over the low `bits` index bits of every sequence. */
static glstark_status pass_zeta(dft_ctx *c, const vview *v, unsigned bits)
{
    gs_gl_program *p;
    unsigned low = bits < 5 ? bits : 5;
    glstark_status st = prog_for(c, M_ZETA_LOW, &p);
    if (!st)
        st = bind_view(c, v, p);
    if (st)
        return st;
    set_u(p, "gs_bits", low);
    st = run_ids_weighted(c, p, v->nv << (v->logn - low), c->dispatch >> low, gs_weight_subset_sums(low));
    if (st || bits <= 5)
        return st;
    st = prog_for(c, M_ZETA_BIT, &p);
    if (!st)
        st = bind_view(c, v, p);
    for (unsigned b = 5; !st && b < bits; b++) {
        set_u(p, "gs_bits", b);
        st = run_ids(c, p, v->nv << (v->logn - 1), c->dispatch);
    }
    return st;
}

/* 2^-logn (Montgomery form): the inverse transform's scale, which the
 * passes that load a sequence apply (gs_scale). */
static bb_t inv_pow2(unsigned logn) { return bb_inv(bb_pow(bb_from_canonical(2), logn)); }

/* Full DFT of the sequences of v, then subset sums over the low `zeta` bits
 * (0: none). Sequences that fit a shared-memory block take one sweep: the
 * bit reversal and scale on the load, every layer, the sums (the RS
 * message's 2^l_skip blocks; before, a bit-reversal pass, the shared pass
 * and a subset-sum pass each swept the stacked matrix). */
static glstark_status dft_view(dft_ctx *c, const vview *v, gs_dft_dir dir, const tw_buf *tw, unsigned zeta)
{
    if (v->logn == 0)
        return GLSTARK_OK; /* length 1: the identity both ways, and no bits to sum over */
    glstark_status st = bind_tw(c, tw);
    if (st)
        return st;
    bb_t scale = dir == GS_DFT_INVERSE ? inv_pow2(v->logn) : 0;
    if (v->logn <= c->block_log)
        return shared_pass(c, v, 0, v->logn, 1, scale, zeta);
    st = pass_bitrev(c, v, scale);
    if (!st)
        st = dit_layers(c, v, 0);
    if (!st && zeta)
        st = pass_zeta(c, v, zeta);
    return st;
}

/* Fills a view of columns [c0, c1) of a column set; words per column span
 * `span` words from its first word. */
static void make_view(dft_ctx *c, vview *v, gs_buf *buf, uint64_t first_word, uint64_t stride, uint64_t ncols,
                      uint64_t span)
{
    uint64_t align = c->dev->caps.binding_offset_align;
    uint64_t byte = first_word * 4;
    v->buf = buf;
    v->start = byte - byte % align;
    v->lead = (uint32_t)((byte - v->start) / 4);
    v->bytes = ((ncols - 1) * stride + span) * 4 + (byte - v->start);
    v->stride = (uint32_t)stride;
}

/* make_view for n plain base-field sequences of 2^logn words. */
static void base_view(dft_ctx *c, vview *v, gs_buf *buf, uint64_t first_word, uint64_t stride, uint64_t n,
                      uint64_t span, unsigned logn)
{
    make_view(c, v, buf, first_word, stride, n, span);
    v->vpcs = 0;
    v->subw = 1;
    v->ews = 0;
    v->nv = n;
    v->logn = logn;
}

/* Columns per window starting at word first_word such that the window,
 * bound from the aligned offset below it, fits one binding (0: not even
 * one column does). */
static uint64_t cols_per_window(dft_ctx *c, uint64_t first_word, uint64_t stride, uint64_t span, uint64_t ncols)
{
    return gs_colwin_fit(&c->dev->caps, first_word, stride, span, 4, ncols, 0);
}

/* Host fallback for one column longer than any binding window. */
static glstark_status dft_column_host(dft_ctx *c, gs_buf *buf, uint64_t word, unsigned logn, unsigned ew,
                                      gs_dft_dir dir)
{
    gs_engine *cpu = NULL;
    gs_error err;
    size_t words = ((size_t)ew) << logn;
    glstark_status st = gs_cpu_engine_create(0, &cpu, &err);
    if (st)
        return gs_error_set(&c->eng->err, st, "gles dft host fallback: %s", err.msg);
    gs_buf *h = NULL;
    st = gs_buf_create(cpu, words * 4, &h);
    if (!st)
        st = gs_buf_read(buf, word * 4, h->host, words * 4);
    if (!st) {
        gs_dft_cols hc = {h, 0, words, 1, logn, ew};
        st = gs_dft(cpu, &hc, dir);
        if (st)
            gs_error_set(&c->eng->err, st, "gles dft host fallback: %s", cpu->err.msg);
    }
    if (!st)
        st = gs_buf_write(buf, word * 4, h->host, words * 4);
    gs_buf_destroy(h);
    gs_engine_destroy(cpu);
    return st;
}

static glstark_status gles_dft(gs_engine *eng, const gs_dft_cols *cols, gs_dft_dir dir)
{
    dft_ctx c;
    ctx_init(&c, eng);
    if (cols->log_n == 0)
        return GLSTARK_OK;
    unsigned ews = cols->elem_words == 4 ? 2 : 0;
    uint64_t span = (uint64_t)cols->elem_words << cols->log_n;
    uint64_t stride = cols->ncols > 1 ? cols->col_stride : span;
    tw_buf tw = {NULL, 0};
    glstark_status st = GLSTARK_OK;
    for (uint64_t c0 = 0; !st && c0 < cols->ncols;) {
        uint64_t first = cols->offset + c0 * stride;
        uint64_t n = cols_per_window(&c, first, stride, span, cols->ncols - c0);
        if (n == 0) {
            st = dft_column_host(&c, cols->buf, first, cols->log_n, cols->elem_words, dir);
            c0++;
            continue;
        }
        if (!tw.buf)
            st = twiddles(&c, cols->log_n, dir == GS_DFT_INVERSE, &tw);
        if (st)
            break;
        vview v;
        make_view(&c, &v, cols->buf, first, stride, n, span);
        v.vpcs = ews;
        v.subw = 1;
        v.ews = ews;
        v.nv = n << ews;
        v.logn = cols->log_n;
        st = dft_view(&c, &v, dir, &tw, 0);
        c0 += n;
    }
    return st;
}

/* RS message of a view whose sequences are whole columns of 2^logn words:
 * block inverse DFTs of size 2^l, then subset sums over the l block bits. */
static glstark_status rs_message_view(dft_ctx *c, const vview *col, unsigned l, const tw_buf *tw_small)
{
    if (l == 0)
        return GLSTARK_OK;
    vview v = *col;
    v.vpcs = col->vpcs + (col->logn - l); /* blocks per column */
    v.subw = 1u << l;
    v.nv = col->nv << (col->logn - l);
    v.logn = l;
    return dft_view(c, &v, GS_DFT_INVERSE, tw_small, l);
}

static glstark_status gles_rs_message(gs_engine *eng, const gs_dft_cols *cols, unsigned l_skip)
{
    dft_ctx c;
    ctx_init(&c, eng);
    if (l_skip == 0)
        return GLSTARK_OK;
    uint64_t span = (uint64_t)1 << cols->log_n;
    uint64_t stride = cols->ncols > 1 ? cols->col_stride : span;
    tw_buf tw = {NULL, 0};
    glstark_status st = twiddles(&c, l_skip, 1, &tw);
    for (uint64_t c0 = 0; !st && c0 < cols->ncols;) {
        uint64_t first = cols->offset + c0 * stride;
        uint64_t n = cols_per_window(&c, first, stride, span, cols->ncols - c0);
        if (n == 0) {
            /* A column longer than a binding: its blocks in window-sized runs. */
            uint64_t maxw = (c.dev->caps.max_binding_bytes - c.dev->caps.binding_offset_align) / 4;
            uint64_t run = (maxw >> l_skip) << l_skip;
            if (run == 0) {
                st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                                  "gles rs_message: a block of 2^%u elements exceeds this device's binding limit; "
                                  "use the cpu engine", l_skip);
                break;
            }
            for (uint64_t o = 0; !st && o < span; o += run) {
                uint64_t len = span - o < run ? span - o : run; /* a multiple of 2^l */
                unsigned lg = 0;
                while (((uint64_t)1 << (lg + 1)) <= len)
                    lg++;
                /* split len into power-of-two pieces (each a multiple of 2^l) */
                for (uint64_t done = 0; !st && done < len;) {
                    uint64_t piece = (uint64_t)1 << lg;
                    while (piece > len - done)
                        piece >>= 1;
                    vview v;
                    unsigned pl = 0;
                    while (((uint64_t)1 << pl) < piece)
                        pl++;
                    base_view(&c, &v, cols->buf, first + o + done, piece, 1, piece, pl);
                    st = rs_message_view(&c, &v, l_skip, &tw);
                    done += piece;
                }
            }
            c0++;
            continue;
        }
        vview v;
        base_view(&c, &v, cols->buf, first, stride, n, span, cols->log_n);
        st = rs_message_view(&c, &v, l_skip, &tw);
        c0 += n;
    }
    return st;
}

/* Writes stacked columns [c0, c1) into q at word q_word (column j at
 * q_word + j * H) with buffer copies. */
static glstark_status stack_into(gs_engine *eng, const gs_stack_layout *lay, const gs_trace_ref *traces, uint32_t c0,
                                 uint32_t c1, gs_buf *q, size_t q_word)
{
    (void)eng; /* errors land in q's engine, which is eng */
    unsigned l = lay->l_skip;
    size_t H = (size_t)1 << (l + lay->n_stack);
    /* Zero padding only where slices leave gaps (slices never overlap, so
     * covering every word means their heights add up to the whole). */
    size_t covered = 0;
    for (size_t i = gs_stack_first_slice(lay, c0); i < lay->nslices && lay->slices[i].stacked_col < c1; i++)
        covered += lay->slices[i].log_height >= l ? (size_t)1 << lay->slices[i].log_height : 0;
    glstark_status st = covered == (size_t)(c1 - c0) * H ? GLSTARK_OK
                                                          : gs_buf_fill_u32(q, q_word * 4, (size_t)(c1 - c0) * H, 0);
    /* Runs of whole slices that are contiguous on both sides (consecutive
     * columns of one trace filling consecutive rows: keccakf's 2633 trace
     * columns are one run) become one copy: each copy is a dispatch, and
     * dispatches are separated by barriers. */
    const gs_buf *run_buf = NULL;
    size_t run_src = 0, run_dst = 0, run_len = 0;
    for (size_t i = gs_stack_first_slice(lay, c0); !st && i < lay->nslices && lay->slices[i].stacked_col < c1; i++) {
        const gs_stack_slice *s = &lay->slices[i];
        size_t h = (size_t)1 << s->log_height;
        size_t src = traces[s->trace].offset + (size_t)s->trace_col * h;
        size_t dst = q_word + (size_t)(s->stacked_col - c0) * H + s->row;
        if (s->log_height >= l) {
            if (run_len && run_buf == traces[s->trace].buf && run_src + run_len == src && run_dst + run_len == dst) {
                run_len += h;
                continue;
            }
            if (run_len)
                st = gs_buf_copy(q, run_dst * 4, run_buf, run_src * 4, run_len * 4);
            run_buf = traces[s->trace].buf;
            run_src = src;
            run_dst = dst;
            run_len = h;
        } else {
            /* rows spread 2^(l - log_height) apart: one strided copy */
            size_t stride = (size_t)1 << (l - s->log_height);
            st = gs_buf_copy_strided(q, dst, stride, traces[s->trace].buf, src, 1, 1, h);
        }
    }
    if (!st && run_len)
        st = gs_buf_copy(q, run_dst * 4, run_buf, run_src * 4, run_len * 4);
    return st;
}

/* Whether stacked columns [c0, c1) are one run of a trace buffer's words
 * (every slice whole and contiguous on both sides, no padding: keccakf's
 * trace is one such run), and where it starts. */
static int stack_one_run(const gs_stack_layout *lay, const gs_trace_ref *traces, uint32_t c0, uint32_t c1,
                         const gs_buf **buf, uint64_t *src_word)
{
    const size_t H = (size_t)1 << (lay->l_skip + lay->n_stack);
    size_t next_src = 0, next_dst = 0;
    *buf = NULL;
    for (size_t i = gs_stack_first_slice(lay, c0); i < lay->nslices && lay->slices[i].stacked_col < c1; i++) {
        const gs_stack_slice *s = &lay->slices[i];
        const size_t h = (size_t)1 << s->log_height;
        const size_t src = traces[s->trace].offset + (size_t)s->trace_col * h;
        const size_t dst = (size_t)(s->stacked_col - c0) * H + s->row;
        if (s->log_height < lay->l_skip)
            return 0;
        if (!*buf) {
            if (dst != 0)
                return 0;
            *buf = traces[s->trace].buf;
            *src_word = src;
        } else if (*buf != traces[s->trace].buf || src != next_src || dst != next_dst) {
            return 0;
        }
        next_src = src + h;
        next_dst = dst + h;
    }
    return *buf && next_dst == (size_t)(c1 - c0) * H;
}

static glstark_status gles_stack_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                        uint32_t col_begin, uint32_t col_end, gs_buf *q, size_t q_offset)
{
    return stack_into(eng, layout, traces, col_begin, col_end, q, q_offset);
}

static glstark_status gles_rs_code_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                          unsigned log_blowup, uint32_t col_begin, uint32_t col_end, gs_buf *codeword,
                                          size_t cw_offset)
{
    dft_ctx c;
    ctx_init(&c, eng);
    const unsigned l = layout->l_skip, L = l + layout->n_stack, logN = L + log_blowup;
    const uint64_t H = (uint64_t)1 << L, N = (uint64_t)1 << logN;
    const uint64_t maxb = c.dev->caps.max_binding_bytes;
    const uint64_t ncols = col_end - col_begin;
    if (N * 4 > maxb)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles rs_code_matrix: a codeword column of 2^%u rows (%" PRIu64
                            " bytes) exceeds this device's %" PRIu64 "-byte binding limit; use the cpu engine",
                            logN, N * 4, maxb);
    /* Columns per group: the codeword window and the message scratch must
     * each fit a binding; keep scratch modest. */
    uint64_t g = gs_colwin_fit_any(&c.dev->caps, N * 4);
    if (g == 0)
        g = 1;
    uint64_t cap = ((uint64_t)1 << 24) / H;
    if (g > cap)
        g = cap ? cap : 1;
    if (g > ncols)
        g = ncols;
    gs_buf *msg = NULL, *tmp = NULL;
    tw_buf tw = {NULL, 0}, tw_small = {NULL, 0};
    glstark_status st = gs_buf_create(eng, g * H * 4, &msg);
    if (!st)
        st = twiddles(&c, logN, 0, &tw);
    if (!st && l > 0)
        st = twiddles(&c, l, 1, &tw_small);
    /* The bit-reversed expansion as 32 x 32 tile transposes when the message
     * has at least 2^10 rows (4.1 KiB of shared memory, within the floor);
     * one scattered read per word otherwise. */
    const int tiled = L >= 10 && c.dev->caps.max_shared_bytes >= 32 * 33 * 4;
    gs_gl_program *pg = NULL;
    if (!st)
        st = prog_for(&c, tiled ? M_GATHER_TILED : M_GATHER, &pg);
    for (uint64_t c0 = 0; !st && c0 < ncols; c0 += g) {
        uint64_t n = ncols - c0 < g ? ncols - c0 : g;
        st = stack_into(eng, layout, traces, col_begin + (uint32_t)c0, col_begin + (uint32_t)(c0 + n), msg, 0);
        vview mv;
        base_view(&c, &mv, msg, 0, H, n, H, L);
        if (!st)
            st = rs_message_view(&c, &mv, l, &tw_small);
        /* An unaligned or oversize destination goes through an aligned
         * temporary, then a buffer copy. */
        int direct = cols_per_window(&c, cw_offset + c0 * N, N, N, n) >= n;
        if (!st && !direct && !tmp)
            st = gs_buf_create(eng, g * N * 4, &tmp);
        gs_buf *dst = direct ? codeword : tmp;
        uint64_t dst_word = direct ? cw_offset + c0 * N : 0;
        vview cv;
        base_view(&c, &cv, dst, dst_word, N, n, N, logN);
        if (!st)
            st = bind_view(&c, &cv, pg);
        if (!st)
            st = gs_gl_bind_range(c.dev, 2, msg->gl_name, 0, n * H * 4, &eng->err);
        if (!st) {
            set_u(pg, "gs_src_lead", 0);
            set_u(pg, "gs_src_logh", L);
            set_u(pg, "gs_blowup", log_blowup);
            if (tiled) {
                uint64_t ls = c.dev->caps.local_size;
                st = run_ids_weighted(&c, pg, (n << (L - 10)) * ls, (c.dispatch >> (10 + log_blowup)) * ls,
                                      gs_weight_gather(log_blowup));
            } else {
                st = run_ids(&c, pg, n * N, c.dispatch);
            }
        }
        if (!st)
            st = bind_tw(&c, &tw);
        if (!st)
            st = dit_layers(&c, &cv, log_blowup);
        if (!st && !direct)
            st = gs_buf_copy(codeword, (cw_offset + c0 * N) * 4, tmp, 0, n * N * 4);
    }
    gs_buf_destroy(msg);
    gs_buf_destroy(tmp);
    return st;
}

/* The powers of g that MODE_TWIST reads: g^k for k < 2^s, then g^(k 2^s) for
 * k < 2^(L-s), s = ceil(L/2). A 2^(L+b)-entry table of w_N's powers would
 * cost as much memory as a codeword column, which the row classes exist to
 * avoid. */
static glstark_status twist_table(dft_ctx *c, bb_t g, unsigned L, gs_buf **out, unsigned *s_out)
{
    unsigned s = (L + 1) / 2;
    size_t lo = (size_t)1 << s, n = lo + ((size_t)1 << (L - s));
    bb_t *t = malloc(n * sizeof *t);
    if (!t)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "gles rs_code_rows: could not allocate %zu bytes for the twist table", n * sizeof *t);
    bb_t step = bb_pow(g, lo);
    t[0] = bb_one();
    t[lo] = bb_one();
    for (size_t k = 1; k < lo; k++)
        t[k] = bb_mul(t[k - 1], g);
    for (size_t k = lo + 1; k < n; k++)
        t[k] = bb_mul(t[k - 1], step);
    *out = NULL;
    *s_out = s;
    glstark_status st = gs_buf_create(c->eng, n * sizeof *t, out);
    if (!st)
        st = gs_buf_write(*out, 0, t, n * sizeof *t);
    free(t);
    return st;
}

/* Every element i of every sequence of v times g^i (tables from twist_table). */
static glstark_status pass_twist(dft_ctx *c, const vview *v, gs_buf *table, unsigned s)
{
    gs_gl_program *p;
    glstark_status st = prog_for(c, M_TWIST, &p);
    if (!st)
        st = bind_view(c, v, p);
    if (!st)
        st = gs_gl_bind_range(c->dev, 2, table->gl_name, 0, table->size, &c->eng->err);
    if (st)
        return st;
    set_u(p, "gs_bits", s);
    return run_ids(c, p, v->nv << v->logn, c->dispatch);
}

/* What every window of one rs_code_rows call shares. */
typedef struct rows_plan {
    const gs_stack_layout *lay;
    const gs_trace_ref *traces;
    tw_buf tw, tw_small; /* forward 2^L, inverse 2^l_skip */
    gs_buf *twist;       /* NULL for row class 0 (g = 1) */
    unsigned twist_s;
} rows_plan;

/* The front of a row class's encoding in one sweep (glsl/dft.comp,
 * MODE_ENCODE_TILED): Q's columns read where the trace holds them as one run
 * (bytes [start, start + bytes) of src, the first column at word lead of
 * that window), their RS message, the twist and the bit reversal written
 * into v; then the DIT layers. Where the columns are not one run, or
 * 2^l_skip exceeds a tile row, rows_window takes the copy and the separate
 * passes instead. */
static glstark_status encode_tiled(dft_ctx *c, const rows_plan *r, const vview *v, const gs_buf *src, uint64_t start,
                                   uint64_t bytes, uint32_t lead)
{
    const unsigned l = r->lay->l_skip;
    gs_gl_program *p;
    glstark_status st = prog_for(c, M_ENCODE_TILED, &p);
    if (!st)
        st = bind_view(c, v, p);
    /* every block the program declares gets a valid binding, used or not */
    if (!st)
        st = bind_tw(c, l > 0 ? &r->tw_small : &r->tw);
    if (!st)
        st = gs_gl_bind_range(c->dev, 2, src->gl_name, start, bytes, &c->eng->err);
    if (!st)
        st = gs_gl_bind_range(c->dev, 3, r->twist ? r->twist->gl_name : r->tw.buf->gl_name, 0,
                              r->twist ? r->twist->size : (uint64_t)4 << r->tw.logn, &c->eng->err);
    if (st)
        return st;
    set_u(p, "gs_src_lead", lead);
    set_u(p, "gs_src_stride", 1u << v->logn);
    set_u(p, "gs_lskip", l);
    set_u(p, "gs_scale", l > 0 ? inv_pow2(l) : 0);
    set_u(p, "gs_bits", r->twist ? r->twist_s : 0xFFFFFFFFu);
    const uint64_t ls = c->dev->caps.local_size;
    st = run_ids_weighted(c, p, (v->nv << (v->logn - 10)) * ls, (c->dispatch >> 10) * ls,
                          gs_weight_dft_shared(l, l));
    if (!st)
        st = bind_tw(c, &r->tw);
    if (!st)
        st = dit_layers(c, v, 0);
    return st;
}

/* Row class of stacked columns [c0, c0 + n), column j at word first + j 2^L
 * of out, which one binding holds. */
static glstark_status rows_window(dft_ctx *c, const rows_plan *r, uint32_t c0, uint64_t n, gs_buf *out,
                                  uint64_t first)
{
    const unsigned L = r->lay->l_skip + r->lay->n_stack;
    const uint64_t H = (uint64_t)1 << L;
    vview v;
    base_view(c, &v, out, first, H, n, H, L);
    const gs_buf *run = NULL;
    uint64_t run_word = 0;
    if (L >= 10 && r->lay->l_skip <= 5 && stack_one_run(r->lay, r->traces, c0, c0 + (uint32_t)n, &run, &run_word)) {
        const uint64_t align = c->dev->caps.binding_offset_align, byte = run_word * 4;
        const uint64_t start = byte - byte % align, bytes = n * H * 4 + (byte - start);
        if (bytes <= c->dev->caps.max_binding_bytes)
            return encode_tiled(c, r, &v, run, start, bytes, (uint32_t)((byte - start) / 4));
    }
    glstark_status st = stack_into(c->eng, r->lay, r->traces, c0, c0 + (uint32_t)n, out, first);
    if (!st)
        st = rs_message_view(c, &v, r->lay->l_skip, &r->tw_small);
    if (!st && r->twist)
        st = pass_twist(c, &v, r->twist, r->twist_s);
    if (!st)
        st = dft_view(c, &v, GS_DFT_FORWARD, &r->tw, 0);
    return st;
}

static glstark_status gles_rs_code_rows(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                        unsigned log_blowup, uint32_t row_class, uint32_t col_begin, uint32_t col_end,
                                        gs_buf *out, size_t out_offset)
{
    dft_ctx c;
    ctx_init(&c, eng);
    const unsigned l = layout->l_skip, L = l + layout->n_stack;
    const uint64_t H = (uint64_t)1 << L, ncols = col_end - col_begin;
    rows_plan r = {layout, traces, {NULL, 0}, {NULL, 0}, NULL, 0};
    /* Different directions, so neither request regrows the other's table. */
    glstark_status st = twiddles(&c, L, 0, &r.tw);
    if (!st && l > 0)
        st = twiddles(&c, l, 1, &r.tw_small);
    if (!st && row_class)
        st = twist_table(&c, bb_pow(bb_two_adic_generator(L + log_blowup), row_class), L, &r.twist, &r.twist_s);
    for (uint64_t c0 = 0; !st && c0 < ncols;) {
        uint64_t first = out_offset + c0 * H;
        uint64_t n = cols_per_window(&c, first, H, H, ncols - c0);
        if (n == 0) {
            st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                              "gles rs_code_rows: a column of 2^%u rows at word %" PRIu64
                              " does not fit this device's %" PRIu64 "-byte binding limit; use the cpu engine",
                              L, first, c.dev->caps.max_binding_bytes);
            break;
        }
        st = rows_window(&c, &r, col_begin + (uint32_t)c0, n, out, first);
        c0 += n;
    }
    gs_buf_destroy(r.twist);
    return st;
}

/* x[i] += c * part[i] over the sequences of v, sequence j's part at word
 * part_first + j * part_stride of part (MODE_ADD_PART). */
static glstark_status pass_add_part(dft_ctx *c, const vview *v, bb_t coef, const gs_buf *part, uint64_t part_first,
                                    uint64_t part_stride)
{
    gs_gl_program *p;
    const uint64_t len = (uint64_t)1 << v->logn, align = c->dev->caps.binding_offset_align;
    const uint64_t start = part_first * 4 - (part_first * 4) % align;
    const uint64_t end = (part_first + (v->nv - 1) * part_stride + len) * 4;
    glstark_status st = prog_for(c, M_ADD_PART, &p);
    if (!st)
        st = bind_view(c, v, p);
    if (!st)
        st = gs_gl_bind_range(c->dev, 3, part->gl_name, start, end - start, &c->eng->err);
    if (st)
        return st;
    set_u(p, "gs_coef", coef);
    set_u(p, "gs_src_stride", (uint32_t)part_stride);
    set_u(p, "gs_src_lead", (uint32_t)(part_first - start / 4));
    return run_ids(c, p, v->nv << v->logn, c->dispatch);
}

/* Finer row classes (dft_ops.h): per window of output columns, part 0 of
 * each Q column copied into the output and every later part r added with
 * the weight g^(r H') (MODE_ADD_PART, read from Q where it lies); then,
 * since the RS message is linear and blockwise, one message, one twist by
 * g^j and one DFT of length H', all in the output. */
static glstark_status gles_rs_code_rows_folded(gs_engine *eng, const gs_dft_cols *q, unsigned l_skip,
                                               unsigned log_blowup, unsigned log_classes, uint32_t row_class,
                                               gs_buf *out, size_t out_offset)
{
    dft_ctx c;
    ctx_init(&c, eng);
    const unsigned L = q->log_n, f = log_classes - log_blowup, Lf = L - f;
    const uint64_t Hf = (uint64_t)1 << Lf, ncols = q->ncols, parts = (uint64_t)1 << f;
    if (ncols == 0)
        return GLSTARK_OK;
    const bb_t g = bb_pow(bb_two_adic_generator(L + log_blowup), row_class);
    tw_buf tw = {NULL, 0}, tw_small = {NULL, 0};
    gs_buf *table = NULL;
    unsigned s = 0;
    glstark_status st = twiddles(&c, Lf, 0, &tw);
    if (!st && l_skip > 0)
        st = twiddles(&c, l_skip, 1, &tw_small);
    if (!st && row_class != 0)
        st = twist_table(&c, g, Lf, &table, &s);
    for (uint64_t c0 = 0; !st && c0 < ncols;) {
        const uint64_t first = out_offset + c0 * Hf, qcol = q->offset + c0 * q->col_stride;
        /* the window's output columns and each of its parts of Q within one binding */
        uint64_t n = cols_per_window(&c, first, Hf, Hf, ncols - c0);
        for (uint64_t r = 1; r < parts && n > 0; r++) {
            uint64_t nq = cols_per_window(&c, qcol + r * Hf, q->col_stride, Hf, n);
            n = nq < n ? nq : n;
        }
        if (n == 0) {
            st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                              "gles rs_code_rows_folded: a column part of 2^%u rows at word %" PRIu64
                              " does not fit this device's %" PRIu64 "-byte binding limit; use the cpu engine",
                              Lf, first, c.dev->caps.max_binding_bytes);
            break;
        }
        st = gs_buf_copy_strided(out, first, Hf, q->buf, qcol, q->col_stride, Hf, n);
        vview v;
        base_view(&c, &v, out, first, Hf, n, Hf, Lf);
        for (uint64_t r = 1; !st && r < parts; r++)
            st = pass_add_part(&c, &v, bb_pow(g, r * Hf), q->buf, qcol + r * Hf, q->col_stride);
        if (!st)
            st = rs_message_view(&c, &v, l_skip, &tw_small);
        if (!st && table)
            st = pass_twist(&c, &v, table, s);
        if (!st)
            st = dft_view(&c, &v, GS_DFT_FORWARD, &tw, 0);
        c0 += n;
    }
    gs_buf_destroy(table);
    return st;
}

glstark_status gs_gles_dft_finish_ext(gs_engine *eng, gs_buf *buf, unsigned log_n, unsigned first_layer)
{
    dft_ctx c;
    ctx_init(&c, eng);
    const uint64_t words = (uint64_t)4 << log_n;
    if (log_n > GS_DFT_MAX_LOG_N || buf->size < words * 4 || cols_per_window(&c, 0, words, words, 1) == 0)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles dft: an EF column of 2^%u elements does not fit one binding of this device", log_n);
    if (first_layer >= log_n)
        return GLSTARK_OK;
    tw_buf tw = {NULL, 0};
    glstark_status st = twiddles(&c, log_n, 0, &tw);
    vview v;
    make_view(&c, &v, buf, 0, words, 1, words);
    v.vpcs = 2;
    v.subw = 1;
    v.ews = 2;
    v.nv = 4;
    v.logn = log_n;
    if (!st)
        st = bind_tw(&c, &tw);
    if (!st)
        st = dit_layers(&c, &v, first_layer);
    return st;
}

const gs_dft_ops gs_gles_dft_ops = {
    .dft = gles_dft,
    .rs_message = gles_rs_message,
    .stack_matrix = gles_stack_matrix,
    .rs_code_matrix = gles_rs_code_matrix,
    .rs_code_rows = gles_rs_code_rows,
    .rs_code_rows_folded = gles_rs_code_rows_folded,
};
