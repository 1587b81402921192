/* The GLES engine's hash family: Poseidon2 leaf hashing, the SWIRL Merkle
 * tree (the layout of src/hash/merkle.h) and
 * proof-of-work grinding, bit-identical to the CPU engine.
 *
 * Merkle commit. The N rows are processed in tiles of Y query cosets:
 * tile rows y0+y+t*S (t < K, y < Y) are hashed into a scratch leaf buffer
 * (glsl/merkle_leaf.comp), then the K leaves of each coset are compressed
 * pairwise, (t, t+1) first, into bottom-layer digests y0..y0+Y-1
 * (glsl/merkle_compress.comp with stride Y). When the whole matrix fits one
 * binding window, the cosets fill work groups and rows are short (at most
 * two rate blocks: WHIR's folded codewords, not keccakf's 42 columns), one
 * kernel does both (glsl/merkle_coset.comp): each work group hashes the K
 * rows of its cosets and compresses them in shared memory, so leaves never
 * reach memory and the coset trees cost no dispatches. Upper layers
 * compress adjacent pairs. Everything stays in engine buffers; only the
 * root and openings come back.
 *
 * Bindings. A matrix may be far larger than one SSBO binding (a 2^22 x 42
 * codeword is 672 MiB, the ES 3.1 floor is 128 MiB per binding), so a leaf
 * dispatch binds a window of whole columns restricted to the rows it
 * touches, and absorbs only that window's elements; the sponge states of the
 * tile rows wait in a scratch buffer between windows. Dispatches are also
 * cut to a permutation budget so none runs long on a slow GPU. */
#include "engine/gles/colwin.h"
#include "engine/gles/gles_engine.h"
#include "engine/hash_ops.h"
#include "gles/dispatch_plan.h"
#include "hash/grind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Permutations per dispatch: well under a second on llvmpipe with two cores;
 * a Raspberry Pi 5 resets GPU jobs that run longer than about 500 ms
 * (docs/design.md, 'Pitfalls we met on GLES compute'), so dispatches stay small (not measured on a Pi).
 * Desktop-class GPUs get 16x (as the interpreter's budget): 2^17 permutations
 * is under one wave of an H200, and the keccakf leaves then took 192
 * dispatches of one rate block each, their sponge states saved in between. */
#define GS_HASH_PERM_BUDGET (1u << 17)
#define GS_HASH_PERM_BUDGET_DESKTOP (1u << 21)

static uint64_t perm_budget(const gs_gl_device *dev)
{
    return dev->caps.desktop_class ? GS_HASH_PERM_BUDGET_DESKTOP : GS_HASH_PERM_BUDGET;
}
/* Longest rows, in rate blocks of 8 elements, hashed by the fused
 * leaf-and-coset kernel. */
#define GS_FUSED_MAX_ROW_BLOCKS 2u
/* Rows per tile (states 64 B, leaves 32 B each, so 16 + 8 MiB at most). */
#define GS_HASH_TILE_MAX (1u << 18)

static size_t pow2_floor_sz(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* Binds bytes [byte, byte + bytes) of buf to `binding` at an aligned offset;
 * returns the word lead of `byte` inside the binding in *lead. */
static glstark_status bind_window(gs_engine *eng, GLuint binding, const gs_buf *buf, uint64_t byte, uint64_t bytes,
                                  uint32_t *lead)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t align = dev->caps.binding_offset_align;
    uint64_t start = byte - byte % align;
    uint64_t end = byte + bytes;
    if (end > buf->size)
        end = buf->size;
    *lead = (uint32_t)((byte - start) / 4);
    return gs_gl_bind_range(dev, binding, buf->gl_name, start, end - start, &eng->err);
}

static void set_u(const gs_gl_program *p, const char *name, uint32_t v)
{
    GLint loc = gs_gl_program_uniform(p, name);
    if (loc >= 0)
        glProgramUniform1ui(gs_gl_program_name(p), loc, v);
}

typedef struct leaf_job {
    const gs_buf *mat;
    uint64_t mat_word; /* word offset of column col0 in its buffer */
    uint64_t n;        /* height */
    uint64_t width;    /* columns of the whole matrix */
    unsigned ds;       /* log2(elem_deg) */
    uint64_t s;        /* query stride S = N / K */
    uint64_t col0;     /* first column the buffer holds (0, or a streamed group's first) */
    uint64_t e0, e1;   /* row elements absorbed now: [e0, e1) (the whole row, or a group's) */
    /* streamed (merkle_leaf.comp GS_STREAM): 8-word states, dispatches on
     * rate blocks, e1 of the last group rounded up to a block; the window
     * column of a short last block's word 0 */
    int stream;
    uint64_t tail_col;
} leaf_job;

static uint64_t tile_row(const leaf_job *j, uint64_t y0, uint64_t ytile, uint64_t i)
{
    return y0 + i % ytile + (i / ytile) * j->s;
}

/* Absorbs elements [j->e0, j->e1) of tile rows [0, k*ytile) of the cosets
 * y0 .. y0+ytile-1, their sponge states at byte states_at of `states`; the
 * rows' leaves go to `leaves` when e1 ends the rows (else leaves may be NULL). */
static glstark_status hash_tile(gs_engine *eng, const gs_gl_program *prog, const leaf_job *j, uint64_t y0,
                                uint64_t ytile, uint64_t k, gs_buf *states, uint64_t states_at, gs_buf *leaves)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t deg = (uint64_t)1 << j->ds, len = j->width * deg, total = k * ytile;
    const uint64_t state_bytes = j->stream ? 32 : 64;
    /* streamed: the dispatch that permutes the block before a short last
     * one also writes that block's tail columns */
    const uint64_t short_at = j->stream && len % 8 ? len & ~(uint64_t)7 : UINT64_MAX;
    set_u(prog, "gs_ytile", (uint32_t)ytile);
    set_u(prog, "gs_y0", (uint32_t)y0);
    set_u(prog, "gs_stride_s", (uint32_t)j->s);
    set_u(prog, "gs_len", (uint32_t)len);
    set_u(prog, "gs_deg_shift", j->ds);
    set_u(prog, "gs_col_words", (uint32_t)(j->n * deg));
    uint32_t lead;
    if (states_at % align)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles merkle: sponge states at byte %" PRIu64 " miss the %" PRIu64 "-byte binding alignment",
                            states_at, align);
    if (j->stream) {
        set_u(prog, "gs_short_at", short_at == UINT64_MAX ? UINT32_MAX : (uint32_t)short_at);
        set_u(prog, "gs_tail_col", (uint32_t)j->tail_col);
    }
    glstark_status st = bind_window(eng, 1, states, states_at, total * state_bytes, &lead);
    /* leaves are written only by the dispatch that ends the rows */
    if (!st)
        st = leaves ? bind_window(eng, 2, leaves, 0, total * 32, &lead)
                    : bind_window(eng, 2, states, states_at, total * state_bytes, &lead);
    if (st)
        return st;
    const uint64_t budget = perm_budget(dev);
    uint64_t i0 = 0;
    while (i0 < total) {
        uint64_t i1 = total - i0 > budget ? i0 + budget : total;
        /* One column's rows of the id range must fit one binding. */
        for (;;) {
            uint64_t rlo = tile_row(j, y0, ytile, i0), rhi = tile_row(j, y0, ytile, i1 - 1) + 1;
            if ((rhi - rlo) * deg * 4 + align <= maxb || i1 - i0 == 1)
                break;
            i1 = i0 + (i1 - i0) / 2;
        }
        uint64_t rlo = tile_row(j, y0, ytile, i0), rhi = tile_row(j, y0, ytile, i1 - 1) + 1;
        if ((rhi - rlo) * deg * 4 + align > maxb)
            return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                                "gles merkle: one matrix entry does not fit the %" PRIu64 "-byte binding limit", maxb);
        uint64_t ids = i1 - i0;
        uint64_t emax = (budget / ids) * 8;
        if (emax < 8)
            emax = 8;
        set_u(prog, "gs_i0", (uint32_t)i0);
        set_u(prog, "gs_rlo", (uint32_t)rlo);
        uint64_t e = j->e0;
        while (e < j->e1) {
            uint64_t c0 = e >> j->ds;
            uint64_t first = (j->mat_word + ((c0 - j->col0) * j->n + rlo) * deg) * 4;
            uint64_t start = first - first % align;
            /* Largest c1 with (mat_word + ((c1-1-col0)*n + rhi)*deg)*4 - start <= maxb. */
            uint64_t tail = (j->mat_word + ((c0 - j->col0) * j->n + rhi) * deg) * 4 - start; /* bytes with c1 = c0+1 */
            uint64_t extra = (maxb - tail) / (j->n * deg * 4);
            uint64_t c1 = c0 + 1 + extra;
            if (c1 > (j->e1 >> j->ds))
                c1 = j->e1 >> j->ds;
            uint64_t e1 = c1 << j->ds;
            if (e1 - e > emax)
                e1 = e + emax;
            if (e1 > j->e1)
                e1 = j->e1;
            uint64_t cl = (e1 - 1) >> j->ds; /* last column touched */
            if (j->stream) {
                /* whole rate blocks, and the tail columns when written */
                if (e1 < j->e1)
                    e1 = e + (e1 - e) / 8 * 8;
                if (e1 <= e)
                    return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                                        "gles merkle stream: 8 columns of %" PRIu64
                                        " rows do not fit the %" PRIu64 "-byte binding limit; use the cpu engine",
                                        rhi - rlo, maxb);
                cl = e1 - 1;
                if (e < short_at && e1 >= short_at) {
                    if (j->tail_col < c0)
                        c0 = j->tail_col;
                    if (j->tail_col + 7 > cl)
                        cl = j->tail_col + 7;
                    first = (j->mat_word + ((c0 - j->col0) * j->n + rlo) * deg) * 4;
                    start = first - first % align;
                }
            }
            uint64_t bytes = (j->mat_word + ((cl - j->col0) * j->n + rhi) * deg) * 4 - start;
            if (bytes > maxb)
                return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                                    "gles merkle: a column window of %" PRIu64
                                    " rows exceeds the %" PRIu64 "-byte binding limit; use smaller column groups",
                                    rhi - rlo, maxb);
            st = gs_gl_bind_range(dev, 0, j->mat->gl_name, start, bytes, &eng->err);
            if (st)
                return st;
            set_u(prog, "gs_c0", (uint32_t)c0);
            set_u(prog, "gs_lead", (uint32_t)((first - start) / 4));
            set_u(prog, "gs_e0", (uint32_t)e);
            set_u(prog, "gs_e1", (uint32_t)e1);
            st = gs_gl_dispatch_1d_weighted(dev, prog, ids, dev->caps.local_size, gs_weight_sponge(e1 - e, 0),
                                            &eng->err);
            if (st)
                return st;
            e = e1;
        }
        i0 = i1;
    }
    return GLSTARK_OK;
}

/* out[out_first + i * out_step] = C(in[2x*ys + y], in[(2x+1)*ys + y]) for
 * i < count, digest indices absolute in their buffers (in layer starts at
 * in_first); out_step > 1 places one row class's coset digests. */
static glstark_status compress_layer(gs_engine *eng, const gs_gl_program *prog, const gs_buf *in, uint64_t in_first,
                                     gs_buf *out, uint64_t out_first, uint64_t out_step, uint64_t count, uint64_t ys)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    uint64_t limit = (maxb - align) / (32 * (out_step > 2 ? out_step : 2));
    if (limit > perm_budget(dev))
        limit = perm_budget(dev);
    uint64_t chunk = limit / ys * ys;
    if (chunk == 0)
        chunk = ys; /* the tile sizes keep 2*ys digests within a binding */
    set_u(prog, "gs_ystride", (uint32_t)ys);
    set_u(prog, "gs_out_step", (uint32_t)out_step);
    for (uint64_t i0 = 0; i0 < count; i0 += chunk) {
        uint64_t n = count - i0 < chunk ? count - i0 : chunk;
        uint32_t in_lead, out_lead;
        glstark_status st = bind_window(eng, 0, in, (in_first + 2 * i0) * 32, 2 * n * 32, &in_lead);
        if (!st)
            st = bind_window(eng, 1, out, (out_first + i0 * out_step) * 32, ((n - 1) * out_step + 1) * 32, &out_lead);
        if (st)
            return st;
        set_u(prog, "gs_i0", (uint32_t)i0);
        set_u(prog, "gs_in_lead", in_lead);
        set_u(prog, "gs_in_first", (uint32_t)(2 * i0));
        set_u(prog, "gs_out_lead", out_lead);
        st = gs_gl_dispatch_1d(dev, prog, n, &eng->err);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

/* The bottom layer (coset digests) by glsl/merkle_coset.comp; the caller
 * checked that the matrix fits one binding and that s >= local_size / k. */
static glstark_status coset_digests(gs_engine *eng, const leaf_job *j, unsigned log_k, gs_buf *dg)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t ls = dev->caps.local_size, yg = ls >> log_k, groups = j->s / yg;
    const uint64_t deg = (uint64_t)1 << j->ds, len = j->width * deg;
    gs_gl_program *p;
    glstark_status st = gs_gl_program_get(dev, "merkle_coset.comp", NULL, &p, &eng->err);
    uint32_t lead, out_lead;
    if (!st)
        st = bind_window(eng, 0, j->mat, j->mat_word * 4, j->n * len * 4, &lead);
    if (st)
        return st;
    set_u(p, "gs_stride_s", (uint32_t)j->s);
    set_u(p, "gs_log_k", log_k);
    set_u(p, "gs_len", (uint32_t)len);
    set_u(p, "gs_deg_shift", j->ds);
    set_u(p, "gs_col_words", (uint32_t)(j->n * deg));
    set_u(p, "gs_lead", lead);
    /* Work groups per dispatch: the permutation budget (a row's absorption
     * plus its share of the compressions) and the output binding. */
    uint64_t per = perm_budget(dev) / (ls * ((len + 7) / 8 + 1));
    uint64_t out_cap = (maxb - align) / (32 * yg);
    if (per > out_cap)
        per = out_cap;
    if (per == 0)
        per = 1;
    for (uint64_t g0 = 0; !st && g0 < groups; g0 += per) {
        uint64_t n = groups - g0 < per ? groups - g0 : per;
        st = bind_window(eng, 1, dg, g0 * yg * 32, n * yg * 32, &out_lead);
        if (st)
            break;
        set_u(p, "gs_y0", (uint32_t)(g0 * yg));
        set_u(p, "gs_out_lead", out_lead);
        /* an invocation absorbs its row and shares in the compressions */
        st = gs_gl_dispatch_1d_weighted(dev, p, n * ls, (uint32_t)ls, gs_weight_sponge(len, 1), &eng->err);
    }
    return st;
}

/* The coset trees of one tile: K leaves per coset in la from digest
 * la_first, t-major with stride ytile, into bottom digests y0 ..
 * y0+ytile-1 of dg, or, for row class cls of 2^lc (k > 1 then), the whole
 * tree's (y << lc) | cls. The layers alternate between lb and la's tile,
 * which they overwrite. */
static glstark_status coset_trees(gs_engine *eng, const gs_gl_program *pcomp, gs_buf *la, uint64_t la_first,
                                  gs_buf *lb, gs_buf *dg, uint64_t y0, uint64_t ytile, uint64_t k, unsigned lc,
                                  uint64_t cls)
{
    glstark_status st = GLSTARK_OK;
    gs_buf *cur = la, *nxt = lb;
    uint64_t cur_first = la_first, nxt_first = 0;
    for (uint64_t m = k; !st && m > 1; m /= 2) {
        if (m == 2) {
            st = compress_layer(eng, pcomp, cur, cur_first, dg, gs_merkle_stream_bottom_index(y0, lc, cls),
                                (uint64_t)1 << lc, ytile, ytile);
        } else {
            st = compress_layer(eng, pcomp, cur, cur_first, nxt, nxt_first, 1, m / 2 * ytile, ytile);
            gs_buf *t = cur;
            uint64_t tf = cur_first;
            cur = nxt;
            cur_first = nxt_first;
            nxt = t;
            nxt_first = tf;
        }
    }
    if (!st && k == 1)
        st = gs_buf_copy(dg, y0 * 32, la, la_first * 32, ytile * 32);
    return st;
}

/* Upper layers: adjacent pairs, from the s bottom digests to the root. */
static glstark_status upper_layers(gs_engine *eng, const gs_gl_program *pcomp, gs_buf *dg, uint64_t s, unsigned depth)
{
    glstark_status st = GLSTARK_OK;
    for (unsigned jl = 0; !st && jl < depth; jl++) {
        uint64_t in_first = gs_merkle_layer_offset(s, jl), out_first = gs_merkle_layer_offset(s, jl + 1);
        st = compress_layer(eng, pcomp, dg, in_first, dg, out_first, 1, (s >> jl) / 2, 1);
    }
    return st;
}

/* Rows per tile for a tree of `height` rows and K = 2^log_k: ytile cosets of
 * K rows each (trows), their states and leaves within one binding. */
static glstark_status tile_shape(gs_engine *eng, size_t height, unsigned log_k, uint64_t *ytile, uint64_t *trows)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t k = (uint64_t)1 << log_k, s = (uint64_t)height >> log_k;
    uint64_t tile = pow2_floor_sz((size_t)((maxb - align) / 64));
    if (tile > GS_HASH_TILE_MAX)
        tile = GS_HASH_TILE_MAX;
    if (k > tile)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles merkle: 2^%u rows per query exceed the %" PRIu64
                            "-row tile this device's binding limit allows; use k <= %u or the cpu engine",
                            log_k, tile, (unsigned)__builtin_ctzll(tile));
    *ytile = tile / k < s ? tile / k : s;
    *trows = *ytile * k;
    return GLSTARK_OK;
}

static glstark_status gles_merkle_commit(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height,
                                         size_t width, unsigned elem_deg, unsigned log_k, gs_merkle_dev *tree)
{
    gs_gl_device *dev = gs_gles_device(eng);
    unsigned depth;
    glstark_status st = gs_merkle_check_shape(height, width, elem_deg, log_k, &depth, &eng->err);
    if (st)
        return st;
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t k = (uint64_t)1 << log_k, s = (uint64_t)height >> log_k;
    uint64_t ytile = 1, trows = 1;
    if ((st = tile_shape(eng, height, log_k, &ytile, &trows)))
        return st;
    const uint64_t ls = dev->caps.local_size, mat_bytes = (uint64_t)height * width * elem_deg * 4;
    /* The fused kernel for short rows only: its coset levels leave lanes
     * idle (K = 16: half, a quarter, ... of them), which rows of one or two
     * rate blocks repay by saving the leaf round trip and the dispatches,
     * but longer rows do not (H200, bench_commit: Merkle 2^22 x 8 1588 ->
     * 1717 M perms/s fused; keccakf's 42-column codeword 17.2 -> 20.2 ms). */
    const uint64_t row_blocks = ((uint64_t)width * elem_deg + 7) / 8;
    const int fused = row_blocks <= GS_FUSED_MAX_ROW_BLOCKS && k <= ls && s >= ls / k &&
                      (mat_off * 4) % align + mat_bytes <= maxb;
    gs_gl_program *pleaf = NULL, *pcomp;
    if (!fused)
        st = gs_gl_program_get(dev, "merkle_leaf.comp", NULL, &pleaf, &eng->err);
    if (!st)
        st = gs_gl_program_get(dev, "merkle_compress.comp", NULL, &pcomp, &eng->err);
    if (st)
        return st;
    gs_buf *dg = NULL, *states = NULL, *la = NULL, *lb = NULL;
    st = gs_buf_create(eng, gs_merkle_digest_words(height, log_k) * sizeof(bb_t), &dg);
    if (!st && !fused)
        st = gs_buf_create(eng, trows * 64, &states);
    if (!st && !fused)
        st = gs_buf_create(eng, trows * 32, &la);
    if (!st && !fused && k > 1)
        st = gs_buf_create(eng, trows * 16, &lb);
    leaf_job job = {mat, mat_off, height, width, elem_deg == 4 ? 2u : 0u, s, 0, 0, (uint64_t)width * elem_deg, 0, 0};
    if (!st && fused)
        st = coset_digests(eng, &job, log_k, dg);
    for (uint64_t y0 = 0; !st && !fused && y0 < s; y0 += ytile) {
        st = hash_tile(eng, pleaf, &job, y0, ytile, k, states, 0, la);
        if (!st)
            st = coset_trees(eng, pcomp, la, 0, lb, dg, y0, ytile, k, 0, 0);
    }
    if (!st)
        st = upper_layers(eng, pcomp, dg, s, depth);
    gs_buf_destroy(states);
    gs_buf_destroy(la);
    gs_buf_destroy(lb);
    if (st) {
        gs_buf_destroy(dg);
        return st;
    }
    *tree = (gs_merkle_dev){dg, height, width, elem_deg, log_k, depth};
    return GLSTARK_OK;
}

/* Streamed commitment (hash_ops.h): the class rows' capacity words, tile
 * by tile in the order hash_tile visits them (tile y0 / ytile at row slot
 * (y0 / ytile) * trows), so each group runs the leaf kernel over every
 * tile with that tile's window of states; the group that ends the rows
 * writes each tile's leaves and the class's coset digests as it goes. The
 * class's rows are a tree of class_rows rows of their own (hash/merkle.h). */
static glstark_status gles_stream_begin(gs_engine *eng, gs_merkle_stream *ms)
{
    const gs_gl_caps *caps = &gs_gles_device(eng)->caps;
    /* a dispatch binds whole rate blocks, and at a short last block the
     * group's columns that hold its tail: the whole group in one binding */
    const uint64_t group_bytes = (uint64_t)ms->group_cols * ms->class_rows * 4;
    if (group_bytes + caps->binding_offset_align > caps->max_binding_bytes)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles merkle stream: a group of %zu columns of %zu rows (%" PRIu64
                            " bytes) exceeds this device's %" PRIu64
                            "-byte binding limit; use smaller groups, more row classes or the whole matrix",
                            ms->group_cols, ms->class_rows, group_bytes, caps->max_binding_bytes);
    uint64_t ytile = 1, trows = 1;
    glstark_status st = tile_shape(eng, ms->class_rows, ms->log_k, &ytile, &trows);
    return st ? st : gs_buf_create(eng, (size_t)ms->class_rows * 32, &ms->states);
}

static glstark_status gles_stream_columns(gs_engine *eng, gs_merkle_stream *ms, size_t ncols)
{
    const uint64_t n = ms->class_rows, k = (uint64_t)1 << ms->log_k, s = n >> ms->log_k;
    const int last = ms->next_col + ncols == ms->width;
    uint64_t ytile = 1, trows = 1;
    glstark_status st = tile_shape(eng, n, ms->log_k, &ytile, &trows);
    gs_gl_program *pleaf = NULL, *pcomp = NULL;
    if (!st)
        st = gs_gl_program_get(gs_gles_device(eng), "merkle_leaf.comp", "GS_STREAM 1", &pleaf, &eng->err);
    if (!st && last)
        st = gs_gl_program_get(gs_gles_device(eng), "merkle_compress.comp", NULL, &pcomp, &eng->err);
    gs_buf *lb = NULL;
    if (!st && last && k > 1)
        st = gs_buf_create(eng, trows * 16, &lb);
    /* the last group's e1 covers its short block's tail words */
    const uint64_t e1 = last ? (ms->width + 7) / 8 * 8 : ms->next_col + ncols;
    const leaf_job job = {ms->group, 0, n, ms->width, 0, s, ms->next_col, ms->next_col, e1, 1,
                          ms->next_col + gs_merkle_stream_tail_col(ms->width, ms->group_cols)};
    /* The last group writes each row's leaf over its sponge state (the
     * same 8 words, read and written by one invocation), and the coset
     * trees start from there: no leaf buffer. */
    for (uint64_t y0 = 0; !st && y0 < s; y0 += ytile) {
        const uint64_t slot = (y0 / ytile) * trows;
        st = hash_tile(eng, pleaf, &job, y0, ytile, k, ms->states, slot * 32, NULL);
        if (!st && last)
            st = coset_trees(eng, pcomp, ms->states, slot, lb, ms->digests, y0, ytile, k, ms->log_classes, ms->cls);
    }
    if (!st && last && ms->cls + 1 == ((size_t)1 << ms->log_classes)) {
        unsigned depth = 0;
        st = gs_merkle_check_shape(ms->height, ms->width, 1, ms->log_k, &depth, &eng->err);
        if (!st)
            st = upper_layers(eng, pcomp, ms->digests, ms->height >> ms->log_k, depth);
    }
    gs_buf_destroy(lb);
    return st;
}

/* One gather (glsl/merkle_gather.comp): for each of the m entries of rows
 * and each of `width` columns (col_words words apart from word mat_word of
 * mat), that row's deg words into stage from word out_word, entry-major.
 * One dispatch per window of whole columns. Returns UNSUPPORTED (the
 * caller then copies) when a column or the output exceeds a binding. */
static glstark_status gather_entries(gs_engine *eng, const gs_buf *mat, uint64_t mat_word, uint64_t col_words,
                                     uint64_t width, unsigned deg, const uint32_t *rows, size_t m, gs_buf *stage,
                                     uint64_t out_word)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const uint64_t out_words = (uint64_t)m * width * deg;
    /* columns per window: whole columns plus the alignment lead in one binding */
    const uint64_t cw_max = gs_colwin_fit_any(&dev->caps, col_words * 4);
    if (cw_max == 0 || out_words * 4 + align > maxb || (uint64_t)m * 4 > maxb || col_words > UINT32_MAX ||
        out_words + align > UINT32_MAX)
        return GLSTARK_ERR_UNSUPPORTED;
    gs_buf *rb = NULL;
    gs_gl_program *prog = NULL;
    uint32_t olead = 0;
    glstark_status st = gs_buf_create(eng, m * sizeof(uint32_t), &rb);
    if (!st)
        st = gs_buf_write(rb, 0, rows, m * sizeof(uint32_t));
    if (!st)
        st = gs_gl_program_get(dev, "merkle_gather.comp", NULL, &prog, &eng->err);
    if (!st)
        st = gs_gles_bind(eng, 1, rb, 0, m * sizeof(uint32_t));
    if (!st)
        st = bind_window(eng, 2, stage, out_word * 4, out_words * 4, &olead);
    if (!st) {
        set_u(prog, "gs_col_words", (uint32_t)col_words);
        set_u(prog, "gs_width", (uint32_t)width);
        set_u(prog, "gs_deg", deg);
        set_u(prog, "gs_olead", olead);
    }
    for (uint64_t c0 = 0; !st && c0 < width;) {
        uint64_t cw = width - c0 < cw_max ? width - c0 : cw_max;
        uint32_t lead = 0;
        st = bind_window(eng, 0, mat, (mat_word + c0 * col_words) * 4, cw * col_words * 4, &lead);
        if (st)
            break;
        set_u(prog, "gs_lead", lead);
        set_u(prog, "gs_cw", (uint32_t)cw);
        set_u(prog, "gs_c0", (uint32_t)c0);
        st = gs_gl_dispatch_1d(dev, prog, (uint64_t)m * cw * deg, &eng->err);
        c0 += cw;
    }
    gs_buf_destroy(rb);
    return st;
}

/* The opened rows of queries into stage words [0, n·row_words). */
static glstark_status gather_rows(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                  const uint32_t *indices, size_t n, gs_buf *stage)
{
    const size_t k = (size_t)1 << tree->log_k, s = tree->height >> tree->log_k;
    uint32_t *rows = malloc(n * k * sizeof(uint32_t));
    if (!rows)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles merkle open: out of host memory");
    for (size_t q = 0; q < n; q++)
        for (size_t t = 0; t < k; t++)
            rows[q * k + t] = (uint32_t)(indices[q] + t * s);
    glstark_status st = gather_entries(eng, mat, mat_off, (uint64_t)tree->height * tree->elem_deg, tree->width,
                                       tree->elem_deg, rows, n * k, stage, 0);
    free(rows);
    return st;
}

/* The opening proofs of queries (n * depth sibling digests) into stage from
 * word o: the digest array gathered as one column of 8-word elements. */
static glstark_status gather_paths(gs_engine *eng, const gs_merkle_dev *tree, const uint32_t *indices, size_t n,
                                   gs_buf *stage, size_t o)
{
    const size_t s = tree->height >> tree->log_k, m = n * tree->depth;
    if (m == 0)
        return GLSTARK_OK;
    uint32_t *sib = malloc(m * sizeof(uint32_t));
    if (!sib)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles merkle open: out of host memory");
    for (size_t q = 0; q < n; q++)
        for (unsigned jl = 0; jl < tree->depth; jl++)
            sib[q * tree->depth + jl] = (uint32_t)(gs_merkle_layer_offset(s, jl) + ((indices[q] >> jl) ^ 1));
    glstark_status st = gather_entries(eng, tree->digests, 0, tree->digests->size / 4, 1, GS_DIGEST_LEN, sib, m,
                                       stage, o);
    free(sib);
    return st;
}

/* Openings: the opened rows and the sibling digests are gathered by a
 * kernel (or, where a column or the digest array exceeds a binding, with
 * buffer copies) into one staging buffer: rows first (n * K rows of
 * width * deg words), then the paths (n * depth digests). */
static glstark_status gles_merkle_gather(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                         const uint32_t *indices, size_t n, int rows, int proofs, gs_buf **out)
{
    gs_gl_device *dev = gs_gles_device(eng);
    *out = NULL;
    const size_t k = (size_t)1 << tree->log_k, s = tree->height >> tree->log_k, deg = tree->elem_deg;
    const size_t row_words = k * tree->width * deg, proof_words = (size_t)tree->depth * GS_DIGEST_LEN;
    size_t words = n * ((rows ? row_words : 0) + (proofs ? proof_words : 0));
    if (words == 0)
        return GLSTARK_OK;
    gs_buf *stage = NULL;
    glstark_status st = gs_buf_create(eng, words * 4, &stage);
    if (st)
        return st;
    size_t o = 0;
    if (rows) {
        st = gather_rows(eng, mat, mat_off, tree, indices, n, stage);
        if (st == GLSTARK_ERR_UNSUPPORTED) {
            /* a column beyond one binding: copy entry by entry */
            st = GLSTARK_OK;
            gs_gl_barrier_for(dev, GL_BUFFER_UPDATE_BARRIER_BIT);
            glBindBuffer(GL_COPY_WRITE_BUFFER, stage->gl_name);
            glBindBuffer(GL_COPY_READ_BUFFER, mat->gl_name);
            for (size_t q = 0; q < n; q++)
                for (size_t t = 0; t < k; t++)
                    for (size_t c = 0; c < tree->width; c++) {
                        size_t r = indices[q] + t * s;
                        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                                            (GLintptr)((mat_off + (c * tree->height + r) * deg) * 4),
                                            (GLintptr)(((q * k + t) * tree->width + c) * deg * 4),
                                            (GLsizeiptr)(deg * 4));
                    }
        }
        if (st) {
            gs_buf_destroy(stage);
            return st;
        }
        o = n * row_words;
    }
    st = proofs ? gather_paths(eng, tree, indices, n, stage, o) : GLSTARK_OK;
    if (st && st != GLSTARK_ERR_UNSUPPORTED) {
        gs_buf_destroy(stage);
        return st;
    }
    /* copies read what the gather kernel wrote into stage only after this */
    gs_gl_barrier_for(dev, GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_COPY_WRITE_BUFFER, stage->gl_name);
    if (st == GLSTARK_ERR_UNSUPPORTED) {
        /* the digests exceed one binding: a copy per sibling digest */
        glBindBuffer(GL_COPY_READ_BUFFER, tree->digests->gl_name);
        for (size_t q = 0; q < n; q++) {
            size_t idx = indices[q];
            for (unsigned jl = 0; jl < tree->depth; jl++, o += GS_DIGEST_LEN) {
                size_t sib = gs_merkle_layer_offset(s, jl) + ((idx >> jl) ^ 1);
                glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)(sib * 32),
                                    (GLintptr)(o * 4), 32);
            }
        }
    }
    st = gs_gl_check(dev, &eng->err, "gles merkle open (glCopyBufferSubData)");
    if (st) {
        gs_buf_destroy(stage);
        return st;
    }
    *out = stage;
    return GLSTARK_OK;
}

/* The gathered rows and paths read back once (one host sync). */
static glstark_status gles_merkle_open(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                       const uint32_t *indices, size_t n, bb_t *rows_out, bb_t *proofs_out)
{
    if (n == 0)
        return GLSTARK_OK;
    gs_buf *stage = NULL;
    glstark_status st = gles_merkle_gather(eng, mat, mat_off, tree, indices, n, rows_out != NULL, proofs_out != NULL,
                                           &stage);
    if (st || !stage)
        return st;
    const size_t rows_words = rows_out ? n * ((size_t)1 << tree->log_k) * tree->width * tree->elem_deg : 0;
    const size_t words = stage->size / 4;
    uint32_t *host = malloc(words * 4);
    if (!host)
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles merkle open: out of host memory");
    if (!st)
        st = gs_buf_read(stage, 0, host, words * 4);
    if (!st && rows_out)
        memcpy(rows_out, host, rows_words * 4);
    if (!st && proofs_out)
        memcpy(proofs_out, host + rows_words, (words - rows_words) * 4);
    free(host);
    gs_buf_destroy(stage);
    return st;
}

/* Grinding: ordered batches [w0, w0 + batch), each a few dispatches, then
 * one read of the batch minimum: one host sync per batch. The first batch
 * holds 2^bits candidates, the expected work: it holds a witness with
 * probability 63%, and a miss costs a second sync (4 of keccakf-16's 9
 * grinding syncs at seed 42). On desktop-class GPUs it holds
 * 2^(bits + GS_GRIND_FIRST_EXTRA), eight times that, found in one sync with
 * probability 1 - e^-8 (99.97%): there a dispatch after the one that found
 * a witness skips its work (grind.comp) at almost no cost. Elsewhere the
 * skipped candidates are not free (llvmpipe: keccakf-1024's 18-bit search
 * took 63 ms with one batch of 2^18, 869 ms with 2^21), and a sync is cheap,
 * so those keep one batch of the expected work. On desktop-class GPUs the
 * dispatches hold 2^(bits - 3) candidates up to 2^(bits + 1) into the batch,
 * where 86% of the searches end, so the one holding the witness does 1/16
 * of the expected work past it on average; then they double, so the
 * unlikely tail takes 5 dispatches more. The first batch holding a valid
 * witness holds the smallest one overall, so the result equals the CPU
 * grinder's. */
#define GS_GRIND_DISPATCH (1u << 16)
#define GS_GRIND_FIRST_EXTRA 3u
#define GS_GRIND_BATCH_MIN (1u << 12)
#define GS_GRIND_BATCH_MAX (1u << 22)      /* later batches grow to this */
#define GS_GRIND_BATCH_MAX_WIDE (1u << 27) /* on desktop-class GPUs */

/* Below this many bits the expected search (2^bits permutations) takes the
 * host well under a millisecond, less than one GPU round trip, and costs no
 * host sync: WHIR's folding proof-of-work (5 bits per round with the app
 * parameters) runs here. */
#define GS_GRIND_HOST_MAX_BITS 8u

static glstark_status gles_grind(gs_engine *eng, const bb_t state[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                                 uint32_t *witness)
{
    if (bits <= GS_GRIND_HOST_MAX_BITS)
        return gs_grind_cpu(NULL, state, absorb_idx, bits, witness, &eng->err);
    gs_gl_device *dev = gs_gles_device(eng);
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, "grind.comp", NULL, &prog, &eng->err);
    if (st)
        return st;
    gs_buf *res = NULL;
    st = gs_buf_create(eng, 4, &res);
    if (st)
        return st;
    GLuint p = gs_gl_program_name(prog);
    GLint loc = gs_gl_program_uniform(prog, "gs_state[0]");
    if (loc < 0)
        loc = gs_gl_program_uniform(prog, "gs_state");
    glProgramUniform1uiv(p, loc, GS_P2_WIDTH, state);
    set_u(prog, "gs_absorb", absorb_idx);
    set_u(prog, "gs_bits", bits);
    const int wide = dev->caps.desktop_class;
    const unsigned extra = wide ? GS_GRIND_FIRST_EXTRA : 0;
    const uint64_t batch_max = wide ? GS_GRIND_BATCH_MAX_WIDE : GS_GRIND_BATCH_MAX;
    uint64_t batch = GS_GRIND_BATCH_MIN;
    while (batch < batch_max && batch < ((uint64_t)1 << (bits + extra)))
        batch *= 2;
    for (uint64_t w0 = 0; w0 < BB_P;) {
        const uint32_t none = 0xFFFFFFFFu;
        st = gs_buf_write(res, 0, &none, 4);
        if (st)
            break;
        st = gs_gles_bind(eng, 0, res, 0, 4);
        uint64_t end = w0 + batch < BB_P ? w0 + batch : BB_P;
        const uint64_t p0 = wide && bits > 3 && ((uint64_t)1 << (bits - 3)) > GS_GRIND_DISPATCH
                                ? (uint64_t)1 << (bits - 3)
                                : GS_GRIND_DISPATCH;
        for (uint64_t a = w0, piece = p0; !st && a < end; a += piece) {
            if (wide && a - w0 >= 16 * p0)
                piece *= 2;
            uint64_t cnt = end - a < piece ? end - a : piece;
            set_u(prog, "gs_w0", (uint32_t)a);
            st = gs_gl_dispatch_1d(dev, prog, cnt, &eng->err);
        }
        uint32_t found = none;
        if (!st)
            st = gs_buf_read(res, 0, &found, 4);
        if (st)
            break;
        if (found != none) {
            *witness = found;
            break;
        }
        w0 = end;
        if (w0 >= BB_P)
            st = gs_error_set(&eng->err, GLSTARK_ERR_INTERNAL,
                              "gles grind: no witness in [0, p) gives %u zero bits; this should not happen", bits);
        if (batch < batch_max)
            batch *= 4;
    }
    gs_buf_destroy(res);
    return st;
}

/* One work group of glsl/sponge.comp. The witness binding is the
 * destination's when there is no search (the kernel does not touch it). */
#define SPONGE_GROUP 32u /* glsl/sponge.comp */
static glstark_status gles_sponge_step(gs_engine *eng, gs_buf *state, const gs_sponge_step *step)
{
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(gs_gles_device(eng), "sponge.comp", NULL, &prog, &eng->err);
    uint32_t src_lead = 0, dst_lead = 0, wit_lead = 0;
    if (!st)
        st = gs_gles_bind(eng, 0, state, 0, GS_SPONGE_WORDS * 4);
    if (!st)
        st = step->n_obs ? gs_gles_bind_at(eng, 1, step->src, step->src_index * 16, (size_t)step->n_obs * 16, &src_lead)
                         : gs_gles_bind(eng, 1, state, 0, GS_SPONGE_WORDS * 4);
    if (!st)
        st = gs_gles_bind_at(eng, 2, step->dst, step->dst_index * 16, 16, &dst_lead);
    if (!st)
        st = step->pow_bits ? gs_gles_bind_at(eng, 3, step->witness, step->witness_index * 4, 4, &wit_lead)
                            : gs_gles_bind_at(eng, 3, step->dst, step->dst_index * 16, 16, &wit_lead);
    if (st)
        return st;
    set_u(prog, "gs_src_word", src_lead);
    set_u(prog, "gs_n_obs", step->n_obs);
    set_u(prog, "gs_pow_bits", step->pow_bits);
    set_u(prog, "gs_wit_word", wit_lead);
    set_u(prog, "gs_dst_word", dst_lead);
    return gs_gl_dispatch_1d_local(gs_gles_device(eng), prog, SPONGE_GROUP, SPONGE_GROUP, &eng->err);
}

const gs_hash_ops gs_gles_hash_ops = {
    .merkle_commit = gles_merkle_commit,
    .merkle_open = gles_merkle_open,
    .merkle_gather = gles_merkle_gather,
    .grind = gles_grind,
    .sponge_step = gles_sponge_step,
    .stream_begin = gles_stream_begin,
    .stream_columns = gles_stream_columns,
};

glstark_status gs_gles_hash_precompile(gs_engine *eng)
{
    /* Every commitment's Merkle kernels, the queries' path gather, the
     * proof-of-work search. */
    static const char *const kernels[] = {"merkle_leaf.comp", "merkle_coset.comp", "merkle_compress.comp",
                                          "merkle_gather.comp", "grind.comp", "sponge.comp"};
    glstark_status st = GLSTARK_OK;
    for (size_t i = 0; !st && i < sizeof kernels / sizeof kernels[0]; i++)
        st = gs_gl_program_prefetch(gs_gles_device(eng), kernels[i], NULL, &eng->err);
    if (!st)
        st = gs_gl_program_prefetch(gs_gles_device(eng), "merkle_leaf.comp", "GS_STREAM 1", &eng->err);
    return st;
}
