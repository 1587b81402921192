/* The GLES engine's reduction family (definitions in
 * src/engine/reduction_ops.h), bit-identical to the CPU engine (exact field
 * arithmetic: any summation order gives the same value).
 *
 * Round-0 block sums are two-pass: each slice's x range is cut into items of
 * at most RED_XC blocks; pass 1 (glsl/reduction.comp, BLOCK_PART) writes the
 * two eq-weighted sums of every (item, z), pass 2 (BLOCK_SUM) adds a slice's
 * items. Slices are processed in address order so each pass-1 dispatch binds
 * one matrix window covering its items, and in batches whose partials fit
 * one binding. Only the final num_slices·2·N sums come back (one sync).
 * The PLE fold is one invocation per (column, block) over column windows;
 * the product-sumcheck rounds and folds are the column-pair kernels shared
 * with the whir family (colwin.c). */
#include "engine/gles/colwin.h"
#include "engine/read_later.h"
#include "engine/reduction_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RED_XC 256u /* blocks per item at most */
#define RED_PART_CAP (64u << 20) /* bytes of partials per batch at most */

enum { RM_BLOCK_PART = 1, RM_BLOCK_SUM = 2, RM_FOLD_PLE = 3, RM_SCALED_COPY = 4 };

#define RED_COPY_ELEMS (1u << 20) /* elements written per scaled-copy dispatch at most */

static glstark_status prog(gs_engine *eng, int mode, gs_gl_program **out)
{
    char defs[32];
    snprintf(defs, sizeof defs, "RED_MODE %d\n", mode);
    return gs_gl_program_get(gs_gles_device(eng), "reduction.comp", defs, out, &eng->err);
}

glstark_status gs_gles_reduction_precompile(gs_engine *eng)
{
    glstark_status st = GLSTARK_OK;
    for (int mode = RM_BLOCK_PART; !st && mode <= RM_SCALED_COPY; mode++) {
        char defs[32];
        snprintf(defs, sizeof defs, "RED_MODE %d\n", mode);
        st = gs_gl_program_prefetch(gs_gles_device(eng), "reduction.comp", defs, &eng->err);
    }
    return st;
}

static glstark_status too_big(gs_engine *eng, const char *what, uint64_t bytes)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                        "gles reduction: %s (%" PRIu64 " bytes) exceeds this device's %" PRIu64
                        "-byte binding limit; use the cpu engine",
                        what, bytes, gs_gles_device(eng)->caps.max_binding_bytes);
}

typedef struct bs_sort {
    uint64_t base;
    uint32_t idx;
} bs_sort;

static int bs_cmp(const void *a, const void *b)
{
    const bs_sort *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* One block_sums call: the slices in address order, their items and the
 * device side. */
typedef struct bs_ctx {
    gs_engine *eng;
    gs_gl_device *dev;
    uint64_t N, maxb, align;
    bs_sort *order;  /* slices sorted by matrix address */
    uint32_t *tab;   /* items (base, x0, x1, nt), then per sorted slice (first item, count) */
    uint64_t nitems; /* items in tab */
    uint64_t stab;   /* word of the per-slice part of tab */
    uint64_t twords; /* words of tab */
    uint64_t eq_bytes;
    gs_gl_program *p1, *p2;
    gs_buf *tb, *eqb, *parts, *ob;
} bs_ctx;

/* Each slice's eq table is given and its rows lie inside the matrix. */
static glstark_status bs_check(gs_engine *eng, const gs_buf *matrix, uint32_t height, uint32_t l_skip,
                               const gs_red_slice *slices, uint32_t num_slices, uint32_t max_nt)
{
    if (l_skip > 10)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "reduction block_sums: l_skip %u > 10 is not supported by the gles engine", l_skip);
    const uint64_t N = (uint64_t)1 << l_skip;
    for (uint32_t s = 0; s < num_slices; s++) {
        uint32_t nt = slices[s].log_height > l_skip ? slices[s].log_height - l_skip : 0;
        if (nt > max_nt)
            return gs_error_set(&eng->err, GLSTARK_ERR_INTERNAL,
                                "reduction block_sums: slice %u needs eq table %u but only %u given", s, nt, max_nt);
        uint64_t end = ((uint64_t)slices[s].col * height + slices[s].row + (N << nt)) * 4;
        if (end > matrix->size)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "reduction block_sums: slice %u reads up to byte %" PRIu64 " of a %zu-byte matrix", s,
                                end, matrix->size);
    }
    return GLSTARK_OK;
}

/* The slices sorted by matrix address and cut into items of at most xc
 * blocks (c->order, c->tab). */
static glstark_status bs_table(bs_ctx *c, uint32_t height, uint32_t l_skip, const gs_red_slice *slices,
                               uint32_t num_slices, uint64_t xc)
{
    c->order = malloc(num_slices * sizeof *c->order);
    if (!c->order)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "reduction block_sums: out of host memory");
    bs_sort *order = c->order;
    c->nitems = 0;
    for (uint32_t s = 0; s < num_slices; s++) {
        order[s].base = (uint64_t)slices[s].col * height + slices[s].row;
        order[s].idx = s;
        uint32_t nt = slices[s].log_height > l_skip ? slices[s].log_height - l_skip : 0;
        c->nitems += (((uint64_t)1 << nt) + xc - 1) / xc;
    }
    qsort(order, num_slices, sizeof *order, bs_cmp);
    c->stab = 4 * c->nitems;
    c->twords = c->stab + 2 * (uint64_t)num_slices;
    uint32_t *tab = c->tab = malloc(c->twords * 4);
    if (!tab)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "reduction block_sums: out of host memory");
    const uint64_t stab = c->stab;
    uint64_t it = 0;
    for (uint32_t k = 0; k < num_slices; k++) {
        const gs_red_slice *sl = &slices[order[k].idx];
        uint32_t nt = sl->log_height > l_skip ? sl->log_height - l_skip : 0;
        uint64_t nx = (uint64_t)1 << nt;
        tab[stab + 2 * k] = (uint32_t)it;
        for (uint64_t x0 = 0; x0 < nx; x0 += xc, it++) {
            tab[4 * it] = (uint32_t)order[k].base;
            tab[4 * it + 1] = (uint32_t)x0;
            tab[4 * it + 2] = (uint32_t)(nx - x0 < xc ? nx : x0 + xc);
            tab[4 * it + 3] = nt;
        }
        tab[stab + 2 * k + 1] = (uint32_t)(it - tab[stab + 2 * k]);
    }
    return GLSTARK_OK;
}

/* Pass 1 over items [i0, i1): runs of items whose rows one matrix window
 * covers and whose blocks stay within the dispatch budget. */
static glstark_status bs_pass1(bs_ctx *c, const gs_buf *matrix, uint64_t i0, uint64_t i1)
{
    const uint64_t N = c->N, align = c->align;
    const uint32_t *tab = c->tab;
    const uint64_t budget = 4 * gs_cw_budget(&c->dev->caps); /* matrix words read per dispatch */
    glstark_status st = gs_gles_bind(c->eng, 1, c->eqb, 0, c->eq_bytes);
    if (!st)
        st = gs_gles_bind(c->eng, 2, c->tb, 0, c->twords * 4);
    if (!st)
        st = gs_gles_bind(c->eng, 3, c->parts, 0, (i1 - i0) * 2 * N * 16);
    gs_cw_set_u(c->p1, "gs_pbase", (uint32_t)i0);
    for (uint64_t a = i0; !st && a < i1;) {
        uint64_t w0 = ((uint64_t)tab[4 * a] + (uint64_t)tab[4 * a + 1] * N) * 4;
        uint64_t ws = w0 - w0 % align;
        uint64_t b = a, work = 0, wend = 0;
        while (b < i1) {
            uint64_t e = ((uint64_t)tab[4 * b] + (uint64_t)tab[4 * b + 2] * N) * 4;
            uint64_t wk = (uint64_t)(tab[4 * b + 2] - tab[4 * b + 1]) * N;
            if (b > a && (e - ws > c->maxb || work + wk > budget))
                break;
            work += wk;
            wend = e;
            b++;
        }
        st = gs_gl_bind_range(c->dev, 0, matrix->gl_name, ws, wend - ws, &c->eng->err);
        if (st)
            break;
        gs_cw_set_u(c->p1, "gs_win", (uint32_t)(ws / 4));
        gs_cw_set_u(c->p1, "gs_item0", (uint32_t)a);
        st = gs_gl_dispatch_1d(c->dev, c->p1, (b - a) * N, &c->eng->err);
        a = b;
    }
    return st;
}

/* Pass 2: the sums of sorted slices [s0, s1), whose items start at i0,
 * into the output. */
static glstark_status bs_pass2(bs_ctx *c, uint32_t s0, uint32_t s1, uint64_t i0)
{
    const uint64_t N = c->N;
    gs_cw_set ocs = {c->ob, 0, 0, 16, 0};
    gs_cw_piece pc = {0, 1, (uint64_t)s0 * 2 * N, (uint64_t)(s1 - s0) * 2 * N};
    uint32_t lead;
    glstark_status st = gs_cw_bind(c->eng, 0, &ocs, &pc, &lead);
    if (!st) {
        gs_cw_set_u(c->p2, "gs_olead", lead);
        gs_cw_set_u(c->p2, "gs_s0", s0);
        gs_cw_set_u(c->p2, "gs_pbase", (uint32_t)i0);
        st = gs_gl_dispatch_1d(c->dev, c->p2, (uint64_t)(s1 - s0) * 2 * N, &c->eng->err);
    }
    return st;
}

/* The programs, the table and eq tables on the device, the partial slots
 * (items_per_batch items) and the output. */
static glstark_status bs_setup(bs_ctx *c, const bb4_t *eq_tables, uint32_t num_slices, uint64_t items_per_batch,
                               uint32_t l_skip)
{
    const uint64_t N = c->N;
    glstark_status st = prog(c->eng, RM_BLOCK_PART, &c->p1);
    if (!st)
        st = prog(c->eng, RM_BLOCK_SUM, &c->p2);
    if (!st && !(st = gs_buf_create(c->eng, c->twords * 4, &c->tb)))
        st = gs_buf_write(c->tb, 0, c->tab, c->twords * 4);
    if (!st && !(st = gs_buf_create(c->eng, c->eq_bytes, &c->eqb)))
        st = gs_buf_write(c->eqb, 0, eq_tables, c->eq_bytes);
    if (!st)
        st = gs_buf_create(c->eng, items_per_batch * 2 * N * 16, &c->parts);
    if (!st)
        st = gs_buf_create(c->eng, (uint64_t)num_slices * 2 * N * 16, &c->ob);
    if (!st) {
        gs_cw_set_u(c->p1, "gs_lskip", l_skip);
        gs_cw_set_u(c->p2, "gs_lskip", l_skip);
        gs_cw_set_u(c->p2, "gs_stab", (uint32_t)c->stab);
    }
    return st;
}

static void bs_free(bs_ctx *c)
{
    gs_buf_destroy(c->tb);
    gs_buf_destroy(c->eqb);
    gs_buf_destroy(c->parts);
    gs_buf_destroy(c->ob);
    free(c->order);
    free(c->tab);
}

static glstark_status gles_block_sums(gs_engine *eng, const gs_buf *matrix, uint32_t height, uint32_t l_skip,
                                      const gs_red_slice *slices, uint32_t num_slices, const bb4_t *eq_tables,
                                      uint32_t max_nt, bb4_t *out)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    glstark_status st = bs_check(eng, matrix, height, l_skip, slices, num_slices, max_nt);
    if (st || num_slices == 0)
        return st;
    const uint64_t N = (uint64_t)1 << l_skip;
    bs_ctx c = {.eng = eng, .dev = dev, .N = N, .maxb = maxb, .align = align};
    c.eq_bytes = ((((uint64_t)2) << max_nt) - 1) * 16;
    if (c.eq_bytes > maxb)
        return too_big(eng, "the eq tables", c.eq_bytes);
    /* blocks per item: one item's rows must fit a window */
    uint64_t xc = (maxb - align) / (N * 4);
    if (xc > RED_XC)
        xc = RED_XC;
    if (xc == 0)
        return too_big(eng, "one block of the matrix", N * 4);
    void **res = NULL; /* each slice's place in out, in the kernels' order */
    if ((st = bs_table(&c, height, l_skip, slices, num_slices, xc)))
        goto done;
    res = malloc((size_t)num_slices * sizeof *res);
    if (!res) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "reduction block_sums: out of host memory");
        goto done;
    }
    const uint32_t *tab = c.tab;
    const uint64_t stab = c.stab;
    if (c.twords * 4 > maxb)
        st = too_big(eng, "the slice table", c.twords * 4);
    if (c.order[num_slices - 1].base + (N << max_nt) > UINT32_MAX)
        st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                          "gles reduction block_sums: matrix word indices beyond 2^32 are not supported");
    uint64_t part_cap = maxb < RED_PART_CAP ? maxb : RED_PART_CAP;
    if (!st && 2 * N * 16 > part_cap)
        st = too_big(eng, "the partials of one item", 2 * N * 16);
    /* partial slots: as many items as fit part_cap */
    uint64_t items_per_batch = part_cap / (2 * N * 16);
    if (items_per_batch > c.nitems)
        items_per_batch = c.nitems;
    if (!st)
        st = bs_setup(&c, eq_tables, num_slices, items_per_batch, l_skip);
    /* batches of whole slices whose items' partials fit the slots and whose
     * outputs fit a binding */
    for (uint32_t s0 = 0; !st && s0 < num_slices;) {
        uint64_t i0 = tab[stab + 2 * s0];
        uint32_t s1 = s0;
        while (s1 < num_slices && tab[stab + 2 * s1] + tab[stab + 2 * s1 + 1] - i0 <= items_per_batch &&
               (uint64_t)(s1 + 1 - s0) * 2 * N * 16 + align <= maxb)
            s1++;
        if (s1 == s0) {
            st = too_big(eng, "one slice's partial sums", (uint64_t)tab[stab + 2 * s0 + 1] * 2 * N * 16);
            break;
        }
        uint64_t i1 = tab[stab + 2 * (s1 - 1)] + tab[stab + 2 * (s1 - 1) + 1];
        st = bs_pass1(&c, matrix, i0, i1);
        if (!st)
            st = bs_pass2(&c, s0, s1, i0);
        s0 = s1;
    }
    /* read with the engine's next read (the caller flushes), each slice's
     * sums straight to its place in out */
    for (uint32_t k = 0; !st && k < num_slices; k++)
        res[k] = out + (size_t)c.order[k].idx * 2 * N;
    if (!st)
        st = gs_buf_read_later_scatter(c.ob, 0, res, num_slices, 2 * N * sizeof(bb4_t), 1, 2 * N * sizeof(bb4_t));
done:
    bs_free(&c);
    free(res);
    return st;
}

static glstark_status gles_fold_ple(gs_engine *eng, const gs_buf *matrix, uint32_t col0, uint32_t width,
                                    uint32_t height, uint32_t l_skip, const bb4_t *lag, const gs_red_cols *out)
{
    gs_gl_device *dev = gs_gles_device(eng);
    if (l_skip > 10 || ((uint64_t)1 << l_skip) > height)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "reduction fold_ple: l_skip %u with height %u (needs 2^l_skip <= height, l_skip <= 10)",
                            l_skip, height);
    const uint64_t N = (uint64_t)1 << l_skip, nx = height >> l_skip;
    if (width == 0 || nx == 0)
        return GLSTARK_OK;
    if (matrix->size < ((uint64_t)col0 + width) * height * 4 || !out->buf ||
        out->buf->size < (out->offset + (uint64_t)(width - 1) * out->stride + nx) * 16)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "reduction fold_ple: columns %u..%u of %u rows do not fit the matrix (%zu bytes) or the "
                            "output",
                            col0, col0 + width - 1, height, matrix->size);
    gs_gl_program *pf;
    gs_buf *lb = NULL;
    glstark_status st = prog(eng, RM_FOLD_PLE, &pf);
    if (!st && !(st = gs_buf_create(eng, N * 16, &lb)))
        st = gs_buf_write(lb, 0, lag, N * 16);
    if (!st)
        st = gs_gles_bind(eng, 2, lb, 0, N * 16);
    gs_cw_set sets[2] = {{matrix, (uint64_t)col0 * height, height, 4, 0},
                         {out->buf, out->offset, out->stride, 16, l_skip}};
    gs_cw_iter it;
    gs_cw_piece p;
    int r;
    gs_cw_set_u(pf, "gs_lskip", l_skip);
    gs_cw_set_u(pf, "gs_height", height);
    gs_cw_set_u(pf, "gs_ostride", (uint32_t)(out->stride * 4));
    gs_cw_start(&it, &dev->caps, sets, 2, width, 0, height, N, 4 * gs_cw_budget(&dev->caps));
    while (!st && (r = gs_cw_next(&it, &p)) != 0) {
        uint32_t l0, l1;
        if (r < 0) {
            st = too_big(eng, "one block of the matrix", N * 4);
            break;
        }
        st = gs_cw_bind(eng, 0, &sets[0], &p, &l0);
        if (!st)
            st = gs_cw_bind(eng, 1, &sets[1], &p, &l1);
        if (st)
            break;
        gs_cw_set_u(pf, "gs_lead0", l0);
        gs_cw_set_u(pf, "gs_lead1", l1);
        gs_cw_set_u(pf, "gs_nx", (uint32_t)(p.ne >> l_skip));
        st = gs_gl_dispatch_1d(dev, pf, p.nc * (p.ne >> l_skip), &eng->err);
    }
    gs_buf_destroy(lb);
    return st;
}

static glstark_status cols_check(gs_engine *eng, const gs_red_cols *a, size_t len, const char *op)
{
    if (!a->buf || (a->ncols && a->buf->size < (a->offset + (uint64_t)(a->ncols - 1) * a->stride + len) * 16))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "reduction %s: %u columns of %zu entries (stride %zu) do not fit the buffer", op, a->ncols,
                            len, a->stride);
    return GLSTARK_OK;
}

static glstark_status gles_round_evals(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len,
                                       gs_sums_dst out)
{
    glstark_status st = cols_check(eng, q, len, "round");
    if (!st)
        st = cols_check(eng, w, len, "round");
    if (!st && q->ncols != w->ncols)
        st = gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "reduction round: %u q columns but %u w columns",
                          q->ncols, w->ncols);
    if (st)
        return st;
    gs_cw_set qs = {q->buf, q->offset, q->stride, 16, 0}, ws = {w->buf, w->offset, w->stride, 16, 0};
    return gs_gles_pair_sums(eng, &qs, &ws, q->ncols, len, GS_PAIR_EVALS, out, "reduction round");
}

static glstark_status gles_fold(gs_engine *eng, const gs_red_cols *q, const gs_red_cols *w, size_t len, gs_chal u)
{
    glstark_status st = cols_check(eng, q, len, "fold");
    if (!st)
        st = cols_check(eng, w, len, "fold");
    if (st)
        return st;
    gs_cw_set qs = {q->buf, q->offset, q->stride, 16, 0}, ws = {w->buf, w->offset, w->stride, 16, 0};
    st = gs_gles_fold_cols(eng, &qs, q->ncols, len, u, "reduction fold");
    if (!st)
        st = gs_gles_fold_cols(eng, &ws, w->ncols, len, u, "reduction fold");
    return st;
}

/* Scaled copies: descriptors go up once; then runs of consecutive copies of
 * one length whose dst range and descriptors each fit one binding (and at
 * most RED_COPY_ELEMS elements) become one dispatch, one invocation per
 * element. */
static glstark_status gles_scaled_copies(gs_engine *eng, gs_buf *dst, const gs_buf *src, const gs_red_copy *copies,
                                         size_t n)
{
    gs_gl_device *dev = gs_gles_device(eng);
    glstark_status st = gs_red_copies_check(eng, dst, src, copies, n);
    if (st || n == 0)
        return st;
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    if (src->size > maxb)
        return too_big(eng, "the scaled copies' source table", src->size);
    if (dst->size / 16 > UINT32_MAX)
        return too_big(eng, "the weight table", dst->size);
    uint32_t *desc = malloc(n * 24);
    if (!desc)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles scaled_copies: out of host memory");
    for (size_t i = 0; i < n; i++) {
        desc[6 * i] = (uint32_t)copies[i].dst;
        desc[6 * i + 1] = (uint32_t)copies[i].src;
        for (int k = 0; k < 4; k++)
            desc[6 * i + 2 + k] = copies[i].scale.c[k];
    }
    gs_gl_program *pc;
    gs_buf *db = NULL;
    st = prog(eng, RM_SCALED_COPY, &pc);
    if (!st && !(st = gs_buf_create(eng, n * 24, &db)))
        st = gs_buf_write(db, 0, desc, n * 24);
    free(desc);
    if (!st)
        st = gs_gles_bind(eng, 1, src, 0, src->size);
    for (size_t i = 0; !st && i < n;) {
        /* the run [i, j): same length, dst inside one aligned binding */
        const uint32_t ll = copies[i].log_len;
        const uint64_t len = (uint64_t)1 << ll;
        uint64_t lo = copies[i].dst * 16, hi = (copies[i].dst + len) * 16;
        lo -= lo % align;
        if (hi - lo > maxb) {
            st = too_big(eng, "one scaled copy", len * 16);
            break;
        }
        const uint64_t d_off = (uint64_t)i * 24 - ((uint64_t)i * 24) % align;
        const uint64_t d_lead = (uint64_t)i * 24 - d_off; /* bytes, a multiple of 4 */
        if (d_lead + 24 > maxb) {
            st = too_big(eng, "one scaled-copy descriptor", d_lead + 24);
            break;
        }
        size_t j = i + 1;
        while (j < n && copies[j].log_len == ll && (uint64_t)(j + 1 - i) * len <= RED_COPY_ELEMS &&
               d_lead + (uint64_t)(j + 1 - i) * 24 <= maxb) {
            uint64_t l2 = copies[j].dst * 16 < lo ? copies[j].dst * 16 - (copies[j].dst * 16) % align : lo;
            uint64_t h2 = (copies[j].dst + len) * 16 > hi ? (copies[j].dst + len) * 16 : hi;
            if (h2 - l2 > maxb)
                break;
            lo = l2;
            hi = h2;
            j++;
        }
        st = gs_gl_bind_range(dev, 0, dst->gl_name, lo, hi - lo, &eng->err);
        if (!st)
            st = gs_gles_bind(eng, 2, db, d_off, d_lead + (uint64_t)(j - i) * 24);
        if (st)
            break;
        gs_cw_set_u(pc, "gs_loglen", ll);
        gs_cw_set_u(pc, "gs_c0", (uint32_t)(d_lead / 4));
        gs_cw_set_u(pc, "gs_wbase", (uint32_t)(lo / 16));
        st = gs_gl_dispatch_1d(dev, pc, (uint64_t)(j - i) * len, &eng->err);
        i = j;
    }
    gs_buf_destroy(db);
    return st;
}

const gs_reduction_ops gs_gles_reduction_ops = {
    .block_sums = gles_block_sums,
    .fold_ple = gles_fold_ple,
    .round_evals = gles_round_evals,
    .fold = gles_fold,
    .scaled_copies = gles_scaled_copies,
};
