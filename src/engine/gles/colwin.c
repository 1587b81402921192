/* Column windows and the shared column-pair kernels (colwin.h). */
#include "engine/gles/colwin.h"

#include <inttypes.h>
#include <stdio.h>

void gs_cw_set_u(const gs_gl_program *p, const char *name, uint32_t v)
{
    GLint loc = gs_gl_program_uniform(p, name);
    if (loc >= 0)
        glProgramUniform1ui(gs_gl_program_name(p), loc, v);
}

void gs_cw_set_ef(const gs_gl_program *p, const char *name, bb4_t v)
{
    GLint loc = gs_gl_program_uniform(p, name);
    if (loc >= 0)
        glProgramUniform4ui(gs_gl_program_name(p), loc, v.c[0], v.c[1], v.c[2], v.c[3]);
}

static void whir_defs(int mode, char *defs, size_t n)
{
    snprintf(defs, n, "WHIR_MODE %d\nWHIR_ITEMS %uu\nWHIR_EVAL_ITEMS %uu\n", mode, GS_WHIR_ITEMS, GS_WHIR_EVAL_ITEMS);
}

glstark_status gs_gles_whir_prog(gs_engine *eng, int mode, gs_gl_program **out)
{
    char defs[120];
    whir_defs(mode, defs, sizeof defs);
    return gs_gl_program_get(gs_gles_device(eng), "whir.comp", defs, out, &eng->err);
}

glstark_status gs_gles_whir_precompile(gs_engine *eng)
{
    /* Every WHIR proof's kernels; the butterfly modes serve only other
     * callers and compile when asked. */
    static const int modes[] = {GS_WM_BATCH,     GS_WM_EQTAB, GS_WM_PAIRSUM,    GS_WM_REDUCE,       GS_WM_EVAL,
                                GS_WM_WACC,      GS_WM_FOLD,  GS_WM_PREP_BLOCK, GS_WM_FOLD_EXPAND};
    glstark_status st = GLSTARK_OK;
    for (size_t i = 0; !st && i < sizeof modes / sizeof modes[0]; i++) {
        char defs[120];
        whir_defs(modes[i], defs, sizeof defs);
        st = gs_gl_program_prefetch(gs_gles_device(eng), "whir.comp", defs, &eng->err);
    }
    return st;
}

/* Byte range [start, end) a set needs for columns [c0, c0+nc) x elements [e0, e0+ne). */
static void set_range(const gs_cw_set *s, uint64_t align, uint64_t c0, uint64_t nc, uint64_t e0, uint64_t ne,
                      uint64_t *start, uint64_t *end)
{
    uint64_t first = (s->off + c0 * s->stride + (e0 >> s->shift)) * s->esz;
    uint64_t last = (s->off + (c0 + nc - 1) * s->stride + ((e0 + ne - 1) >> s->shift) + 1) * s->esz;
    *start = first - first % align;
    *end = last;
}

static int fits(const gs_cw_iter *it, uint64_t c0, uint64_t nc, uint64_t e0, uint64_t ne)
{
    for (unsigned i = 0; i < it->nsets; i++) {
        uint64_t a, b;
        set_range(&it->sets[i], it->caps->binding_offset_align, c0, nc, e0, ne, &a, &b);
        if (b - a > it->caps->max_binding_bytes)
            return 0;
    }
    return 1;
}

uint64_t gs_colwin_fit(const gs_gl_caps *caps, uint64_t first, uint64_t stride, uint64_t col, uint32_t esz,
                       uint64_t ncols, uint64_t cap)
{
    uint64_t lead = (first * esz) % caps->binding_offset_align;
    uint64_t lim = cap && cap < caps->max_binding_bytes ? cap : caps->max_binding_bytes;
    if (col * esz + lead > lim)
        return 0;
    if (stride == 0)
        return ncols;
    uint64_t k = 1 + (lim - lead - col * esz) / (stride * esz);
    return k < ncols ? k : ncols;
}

uint64_t gs_colwin_fit_any(const gs_gl_caps *caps, uint64_t col_bytes)
{
    if (caps->max_binding_bytes <= caps->binding_offset_align)
        return 0;
    return (caps->max_binding_bytes - caps->binding_offset_align) / col_bytes;
}

/* Columns in a group starting at column c: as many whole columns, rows
 * [e_begin, e_end), as one window holds in every set (0: not even one). */
static uint64_t group_cols(const gs_cw_iter *it, uint64_t c)
{
    uint64_t k = it->ncols - c;
    for (unsigned i = 0; i < it->nsets && k > 0; i++) {
        const gs_cw_set *s = &it->sets[i];
        uint64_t e0 = it->e_begin >> s->shift, e1 = (it->e_end - 1) >> s->shift;
        k = gs_colwin_fit(it->caps, s->off + c * s->stride + e0, s->stride, e1 - e0 + 1, s->esz, k, 0);
    }
    return k;
}

void gs_cw_start(gs_cw_iter *it, const gs_gl_caps *caps, const gs_cw_set *sets, unsigned nsets, uint64_t ncols,
                 uint64_t e_begin, uint64_t e_end, uint64_t unit, uint64_t budget)
{
    it->caps = caps;
    it->sets = sets;
    it->nsets = nsets;
    it->ncols = e_end > e_begin ? ncols : 0;
    it->e_begin = e_begin;
    it->e_end = e_end;
    it->unit = unit ? unit : 1;
    it->budget = budget < it->unit ? it->unit : budget;
    it->c = 0;
    it->e = e_begin;
    it->kg = 0;
}

int gs_cw_next(gs_cw_iter *it, gs_cw_piece *p)
{
    if (it->c >= it->ncols)
        return 0;
    if (it->kg == 0)
        it->kg = group_cols(it, it->c); /* a new group, if one column fits */
    if (it->kg > 0) {
        /* the group's rows, budget / kg at a time (all of them if they fit) */
        uint64_t r = it->budget / it->kg;
        r -= r % it->unit;
        if (r < it->unit)
            r = it->unit;
        uint64_t rem = it->e_end - it->e;
        uint64_t n = rem < r ? rem : r;
        *p = (gs_cw_piece){it->c, it->kg, it->e, n};
        it->e += n;
        if (it->e >= it->e_end) {
            it->e = it->e_begin;
            it->c += it->kg;
            it->kg = 0;
        }
        return 1;
    }
    /* part of one column too long for a window */
    uint64_t rem = it->e_end - it->e;
    uint64_t n = rem < it->budget ? rem : it->budget;
    n -= n % it->unit;
    if (n == 0)
        n = rem < it->unit ? rem : it->unit; /* the last, short unit */
    while (n > it->unit && !fits(it, it->c, 1, it->e, n)) {
        n /= 2;
        n -= n % it->unit;
        if (n < it->unit)
            n = it->unit;
    }
    if (!fits(it, it->c, 1, it->e, n))
        return -1;
    *p = (gs_cw_piece){it->c, 1, it->e, n};
    it->e += n;
    if (it->e >= it->e_end) {
        it->e = it->e_begin;
        it->c++;
    }
    return 1;
}

glstark_status gs_cw_bind(gs_engine *eng, GLuint binding, const gs_cw_set *s, const gs_cw_piece *p, uint32_t *lead)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t a, b;
    set_range(s, dev->caps.binding_offset_align, p->c0, p->nc, p->e0, p->ne, &a, &b);
    uint64_t first = (s->off + p->c0 * s->stride + (p->e0 >> s->shift)) * s->esz;
    if (b > s->buf->size)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles window: bytes [%" PRIu64 ", %" PRIu64 ") lie outside the %zu-byte buffer; allocate it "
                            "for the full length",
                            first, b, s->buf->size);
    *lead = (uint32_t)((first - a) / 4);
    return gs_gl_bind_range(dev, binding, s->buf->gl_name, a, b - a, &eng->err);
}

static glstark_status no_fit(gs_engine *eng, const char *op)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                        "gles %s: not even one element fits this device's %" PRIu64 "-byte binding limit", op,
                        gs_gles_device(eng)->caps.max_binding_bytes);
}

glstark_status gs_gles_pair_sums(gs_engine *eng, const gs_cw_set *q, const gs_cw_set *w, uint64_t ncols, uint64_t len,
                                 gs_pair_form form, gs_sums_dst out, const char *op)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t ls = dev->caps.local_size;
    glstark_status st = gs_sums_dst_check(eng, out, 2, op);
    if (st)
        return st;
    if (len < 2 || ncols == 0) {
        const bb4_t zero[2] = {bb4_zero(), bb4_zero()};
        return gs_sums_store(out, zero, 2);
    }
    const uint64_t pairs = len / 2;
    gs_cw_set sets[2] = {*q, *w};
    gs_cw_iter it;
    gs_cw_piece p;
    /* count the partial slots first */
    uint64_t slots = 0;
    int r;
    gs_cw_start(&it, &dev->caps, sets, 2, ncols, 0, 2 * pairs, 2, 2 * gs_cw_budget(&dev->caps));
    while ((r = gs_cw_next(&it, &p)) > 0) {
        uint64_t inv = p.nc * ((p.ne / 2 + GS_WHIR_ITEMS - 1) / GS_WHIR_ITEMS);
        slots += (inv + ls - 1) / ls;
    }
    if (r < 0)
        return no_fit(eng, op);
    if (slots * 32 > dev->caps.max_binding_bytes)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles %s: %" PRIu64 " partial sums exceed one binding; use the cpu engine", op, slots);
    gs_gl_program *pp, *pr;
    st = gs_gles_whir_prog(eng, GS_WM_PAIRSUM, &pp);
    if (!st)
        st = gs_gles_whir_prog(eng, GS_WM_REDUCE, &pr);
    if (st)
        return st;
    gs_buf *parts = NULL, *res = NULL;
    st = gs_buf_create(eng, slots * 32, &parts);
    if (!st && !out.buf)
        st = gs_buf_create(eng, 32, &res);
    if (!st)
        st = gs_gles_bind(eng, 2, parts, 0, slots * 32);
    uint64_t pbase = 0;
    gs_cw_start(&it, &dev->caps, sets, 2, ncols, 0, 2 * pairs, 2, 2 * gs_cw_budget(&dev->caps));
    while (!st && gs_cw_next(&it, &p) > 0) {
        uint32_t l0, l1;
        st = gs_cw_bind(eng, 0, &sets[0], &p, &l0);
        if (!st)
            st = gs_cw_bind(eng, 1, &sets[1], &p, &l1);
        if (st)
            break;
        uint64_t chunks = (p.ne / 2 + GS_WHIR_ITEMS - 1) / GS_WHIR_ITEMS, inv = p.nc * chunks;
        gs_cw_set_u(pp, "gs_lead0", l0);
        gs_cw_set_u(pp, "gs_lead1", l1);
        gs_cw_set_u(pp, "gs_lead2", 0);
        gs_cw_set_u(pp, "gs_stride0", (uint32_t)(q->stride * 4));
        gs_cw_set_u(pp, "gs_stride1", (uint32_t)(w->stride * 4));
        gs_cw_set_u(pp, "gs_n", (uint32_t)(p.ne / 2));
        gs_cw_set_u(pp, "gs_pbase", (uint32_t)pbase);
        gs_cw_set_u(pp, "gs_form", (uint32_t)form);
        st = gs_gl_dispatch_1d(dev, pp, inv, &eng->err);
        pbase += (inv + ls - 1) / ls;
    }
    uint32_t lead = 0;
    if (!st)
        st = out.buf ? gs_gles_bind_at(eng, 1, out.buf, out.index * 16, 32, &lead) : gs_gles_bind(eng, 1, res, 0, 32);
    if (!st) {
        gs_cw_set_u(pr, "gs_lead1", lead);
        gs_cw_set_u(pr, "gs_lead2", 0);
        gs_cw_set_u(pr, "gs_n", (uint32_t)slots);
        gs_cw_set_u(pr, "gs_k", 2);
        st = gs_gl_dispatch_1d(dev, pr, ls, &eng->err);
    }
    if (!st && !out.buf)
        st = gs_buf_read(res, 0, out.out, 32);
    gs_buf_destroy(parts);
    gs_buf_destroy(res);
    return st;
}

glstark_status gs_gles_fold_coefs(gs_engine *eng, const gs_gl_program *prog, gs_chal c, gs_cw_coef a, gs_cw_coef b)
{
    if (!c.buf) {
        gs_cw_set_ef(prog, "gs_x", bb4_add(a.k0, bb4_mul_base(c.value, a.k1)));
        gs_cw_set_ef(prog, "gs_y", bb4_add(b.k0, bb4_mul_base(c.value, b.k1)));
        gs_cw_set_u(prog, "gs_chal", 0xFFFFFFFFu);
        return GLSTARK_OK;
    }
    uint32_t lead;
    glstark_status st = gs_gles_bind_at(eng, 3, c.buf, c.index * sizeof(bb4_t), sizeof(bb4_t), &lead);
    if (st)
        return st;
    gs_cw_set_ef(prog, "gs_x", a.k0);
    gs_cw_set_ef(prog, "gs_y", b.k0);
    gs_cw_set_u(prog, "gs_xc", a.k1);
    gs_cw_set_u(prog, "gs_yc", b.k1);
    gs_cw_set_u(prog, "gs_chal", lead);
    return GLSTARK_OK;
}

glstark_status gs_gles_fold_into(gs_engine *eng, const gs_cw_set *src, const gs_cw_set *dst, uint64_t ncols,
                                 uint64_t len, gs_chal c, gs_cw_coef a, gs_cw_coef b, const char *op)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t half = len / 2;
    if (half == 0 || ncols == 0)
        return GLSTARK_OK;
    gs_gl_program *pf;
    glstark_status st = gs_gles_whir_prog(eng, GS_WM_FOLD, &pf);
    if (!st)
        st = gs_chal_check(eng, c, op);
    if (!st)
        st = gs_gles_fold_coefs(eng, pf, c, a, b);
    if (st)
        return st;
    gs_cw_set sets[2] = {*src, *dst};
    sets[1].shift = 1;
    gs_cw_iter it;
    gs_cw_piece p;
    int r;
    gs_cw_start(&it, &dev->caps, sets, 2, ncols, 0, 2 * half, 2, 2 * gs_cw_budget(&dev->caps));
    while (!st && (r = gs_cw_next(&it, &p)) != 0) {
        if (r < 0)
            return no_fit(eng, op);
        uint32_t l0, l1;
        st = gs_cw_bind(eng, 0, &sets[0], &p, &l0);
        if (!st)
            st = gs_cw_bind(eng, 1, &sets[1], &p, &l1);
        if (st)
            break;
        gs_cw_set_u(pf, "gs_lead0", l0);
        gs_cw_set_u(pf, "gs_lead1", l1);
        gs_cw_set_u(pf, "gs_stride0", (uint32_t)(src->stride * 4));
        gs_cw_set_u(pf, "gs_stride1", (uint32_t)(dst->stride * 4));
        gs_cw_set_u(pf, "gs_n", (uint32_t)(p.ne / 2));
        st = gs_gl_dispatch_1d(dev, pf, p.nc * (p.ne / 2), &eng->err);
    }
    return st;
}

glstark_status gs_gles_fold_cols(gs_engine *eng, const gs_cw_set *v, uint64_t ncols, uint64_t len, gs_chal alpha,
                                 const char *op)
{
    const uint64_t half = len / 2, col_bytes = half * 16;
    if (half == 0 || ncols == 0)
        return GLSTARK_OK;
    uint64_t group = ncols;
    if (!gs_gles_device(eng)->caps.desktop_class) {
        group = GS_CW_FOLD_SCRATCH_BYTES / col_bytes;
        if (group < 1)
            group = 1;
        if (group > ncols)
            group = ncols;
    }
    gs_buf *tmp = NULL;
    glstark_status st = gs_buf_create(eng, group * col_bytes, &tmp);
    /* v0 + α(v1 − v0) = (1 − α)·v0 + α·v1, a group of columns at a time */
    for (uint64_t c0 = 0; !st && c0 < ncols; c0 += group) {
        const uint64_t nc = ncols - c0 < group ? ncols - c0 : group;
        gs_cw_set src = *v;
        src.off = v->off + c0 * v->stride;
        gs_cw_set dst = {tmp, 0, half, 16, 1};
        st = gs_gles_fold_into(eng, &src, &dst, nc, len, alpha, (gs_cw_coef){bb4_one(), bb_neg(bb_one())},
                               (gs_cw_coef){bb4_zero(), bb_one()}, op);
        if (!st)
            st = gs_buf_copy_strided((gs_buf *)v->buf, src.off * 4, v->stride * 4, tmp, 0, half * 4, half * 4, nc);
    }
    gs_buf_destroy(tmp);
    return st;
}
