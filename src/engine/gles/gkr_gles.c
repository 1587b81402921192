/* The GLES engine's gkr family (src/engine/gkr_ops.h): tree layers, sumcheck
 * rounds, folds and eq tables of the LogUp fractional-sum GKR on the GPU
 * (glsl/gkr.comp), bit-identical to the CPU engine. BabyBear values are kept
 * fully reduced on both sides, so any exact evaluation order gives the same
 * bytes; sums are free to be re-associated.
 *
 * Sums are two-pass: the round kernel writes one (s1, s2, s3) triple per
 * workgroup, a reduce kernel folds runs of triples until one is left, and
 * only those 48 bytes come back to the host. No 64-bit atomics are needed.
 *
 * Bindings and dispatch length: every kernel walks its elements in chunks
 * whose windows fit one SSBO binding (bound at aligned offsets, the element
 * lead passed as a uniform) and whose work stays within a per-dispatch
 * budget, so no dispatch runs long on a slow GPU. At most 4 bindings are
 * used (the ES 3.1 floor).
 *
 * fold with dst == src (the protocol folds in place) cannot run in place on a
 * GPU, where the writes of one workgroup race the reads of another: it folds
 * into a temporary and copies back on the GPU.
 *
 * input_layer evaluates the interaction DAG on the host for now (the parts
 * are read back, the CPU kernel runs, the leaves are uploaded); the GPU DAG
 * interpreter (gpu-kernels.md, dag_eval.comp GKR_INPUT) is not written yet. */
#include "engine/gles/gles_engine.h"
#include "engine/gkr_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements per dispatch by kernel weight (EF products per element): ~2^20
 * EF products per dispatch, a few ms on llvmpipe; a Raspberry Pi 5 resets
 * jobs longer than about 500 ms (gles-targets.md); not measured on a Pi. */
#define GS_GKR_MULS_PER_DISPATCH (1u << 20)
/* Triples one reduce workgroup sums per invocation. */
#define GS_GKR_REDUCE_PER_INV 8u

enum { MODE_LAYER_UP = 1, MODE_ROUND = 2, MODE_REDUCE = 3, MODE_FOLD = 4, MODE_EQ = 5, MODE_FILL4 = 6 };

static glstark_status get_prog(gs_engine *eng, int mode, gs_gl_program **out)
{
    char defs[32];
    snprintf(defs, sizeof defs, "GKR_MODE %d\n", mode);
    return gs_gl_program_get(gs_gles_device(eng), "gkr.comp", defs, out, &eng->err);
}

static void set_u(const gs_gl_program *p, const char *name, uint32_t v)
{
    GLint loc = gs_gl_program_uniform(p, name);
    if (loc >= 0)
        glProgramUniform1ui(gs_gl_program_name(p), loc, v);
}

static void set_v(const gs_gl_program *p, bb4_t v)
{
    GLint loc = gs_gl_program_uniform(p, "gs_value");
    if (loc >= 0)
        glProgramUniform4ui(gs_gl_program_name(p), loc, v.c[0], v.c[1], v.c[2], v.c[3]);
}

static const char *const lead_names[4] = {"gs_lead0", "gs_lead1", "gs_lead2", "gs_lead3"};

/* Binds EF elements [first, first + count) of buf to `binding` at an aligned
 * offset and sets gs_lead<binding> to the element lead of `first`. */
static glstark_status bind_ef(gs_engine *eng, const gs_gl_program *prog, GLuint binding, const gs_buf *buf,
                              uint64_t first, uint64_t count)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t align = dev->caps.binding_offset_align;
    uint64_t byte = first * 16, start = byte - byte % align, end = byte + count * 16;
    if (end > buf->size)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles gkr: elements [%" PRIu64 ", %" PRIu64 ") pass the end of a %zu-byte buffer", first,
                            first + count, buf->size);
    set_u(prog, lead_names[binding], (uint32_t)((byte - start) / 16));
    return gs_gl_bind_range(dev, binding, buf->gl_name, start, end - start, &eng->err);
}

/* Largest chunk (a multiple of `quantum`) of logical items such that each
 * item's `span` elements fit a binding and `weight` EF products per item stay
 * within the dispatch budget. */
static uint64_t chunk_items(gs_engine *eng, uint64_t span, uint64_t weight, uint64_t quantum)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t by_bind = (dev->caps.max_binding_bytes - dev->caps.binding_offset_align) / (span * 16);
    uint64_t by_time = GS_GKR_MULS_PER_DISPATCH / (weight ? weight : 1);
    uint64_t c = by_bind < by_time ? by_bind : by_time;
    c -= c % quantum;
    return c ? c : quantum;
}

/* Triples one reduce workgroup sums: GS_GKR_REDUCE_PER_INV per invocation,
 * fewer when a binding cannot hold that many. */
static uint64_t reduce_run(gs_engine *eng)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t run = (uint64_t)dev->caps.local_size * GS_GKR_REDUCE_PER_INV;
    uint64_t fit = (dev->caps.max_binding_bytes - dev->caps.binding_offset_align) / 48;
    if (run > fit)
        run = fit;
    return run ? run : 1;
}

static glstark_status need_ef(gs_engine *eng, const gs_buf *b, uint64_t n, const char *what)
{
    if (!b || b->size / 16 < n)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles gkr: %s holds fewer than %" PRIu64 " EF elements; allocate 16 bytes per element",
                            what, n);
    return GLSTARK_OK;
}

static glstark_status fill_ef(gs_engine *eng, gs_buf *buf, uint64_t first, uint64_t count, bb4_t v)
{
    gs_gl_program *prog;
    glstark_status st = get_prog(eng, MODE_FILL4, &prog);
    if (st)
        return st;
    set_v(prog, v);
    uint64_t c = chunk_items(eng, 1, 1, 1);
    for (uint64_t i = 0; i < count && !st; i += c) {
        uint64_t n = count - i < c ? count - i : c;
        st = bind_ef(eng, prog, 0, buf, first + i, n);
        if (!st)
            st = gs_gl_dispatch_1d(gs_gles_device(eng), prog, n, &eng->err);
    }
    return st;
}

static glstark_status gles_layer_up(gs_engine *eng, const gs_buf *p, const gs_buf *q, size_t n_parent, gs_buf *p_par,
                                    gs_buf *q_par)
{
    glstark_status st;
    if ((st = need_ef(eng, p, 2 * (uint64_t)n_parent, "layer_up p")) ||
        (st = need_ef(eng, q, 2 * (uint64_t)n_parent, "layer_up q")) ||
        (st = need_ef(eng, p_par, n_parent, "layer_up p_par")) ||
        (st = need_ef(eng, q_par, n_parent, "layer_up q_par")))
        return st;
    gs_gl_program *prog;
    if ((st = get_prog(eng, MODE_LAYER_UP, &prog)))
        return st;
    uint64_t c = chunk_items(eng, 2, 3, 1);
    for (uint64_t y = 0; y < n_parent; y += c) {
        uint64_t n = n_parent - y < c ? n_parent - y : c;
        if ((st = bind_ef(eng, prog, 0, p, 2 * y, 2 * n)) || (st = bind_ef(eng, prog, 1, q, 2 * y, 2 * n)) ||
            (st = bind_ef(eng, prog, 2, p_par, y, n)) || (st = bind_ef(eng, prog, 3, q_par, y, n)) ||
            (st = gs_gl_dispatch_1d(gs_gles_device(eng), prog, n, &eng->err)))
            return st;
    }
    return GLSTARK_OK;
}

/* Sums `n` triples of `a` down to one (ping-ponging with b) and reads it.
 * Each workgroup sums a run of triples; a dispatch covers as many runs as
 * one binding holds. */
static glstark_status reduce_triples(gs_engine *eng, gs_buf *a, gs_buf *b, uint64_t n, bb4_t out[3])
{
    gs_gl_device *dev = gs_gles_device(eng);
    gs_gl_program *prog;
    glstark_status st = get_prog(eng, MODE_REDUCE, &prog);
    if (st)
        return st;
    const uint64_t ls = dev->caps.local_size;
    uint64_t run = reduce_run(eng);
    uint64_t per = chunk_items(eng, 3 * run, run, 1); /* runs per dispatch */
    set_u(prog, "gs_run", (uint32_t)run);
    gs_buf *src = a, *dst = b;
    while (n > 1) {
        uint64_t groups = (n + run - 1) / run;
        for (uint64_t g0 = 0; g0 < groups; g0 += per) {
            uint64_t k = groups - g0 < per ? groups - g0 : per;
            uint64_t first = g0 * run, cnt = n - first < k * run ? n - first : k * run;
            set_u(prog, "gs_n", (uint32_t)cnt);
            if ((st = bind_ef(eng, prog, 0, src, 3 * first, 3 * cnt)) ||
                (st = bind_ef(eng, prog, 1, dst, 3 * g0, 3 * k)) ||
                (st = gs_gl_dispatch_1d(dev, prog, k * ls, &eng->err)))
                return st;
        }
        gs_buf *t = src;
        src = dst;
        dst = t;
        n = groups;
    }
    return gs_buf_read(src, 0, out, 3 * sizeof(bb4_t));
}

static glstark_status gles_round(gs_engine *eng, const gs_buf *eq, const gs_buf *p, const gs_buf *q, size_t n_half,
                                 bb4_t lambda, bb4_t out[3])
{
    glstark_status st;
    for (int i = 0; i < 3; i++)
        out[i] = bb4_zero();
    if (n_half == 0)
        return GLSTARK_OK;
    if ((st = need_ef(eng, eq, 2 * (uint64_t)n_half, "round eq")) ||
        (st = need_ef(eng, p, 4 * (uint64_t)n_half, "round p")) ||
        (st = need_ef(eng, q, 4 * (uint64_t)n_half, "round q")))
        return st;
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t ls = dev->caps.local_size;
    gs_gl_program *prog;
    if ((st = get_prog(eng, MODE_ROUND, &prog)))
        return st;
    /* chunks are whole workgroups unless the binding limit is tiny */
    uint64_t c = chunk_items(eng, 4, 16, 1);
    if (c >= ls)
        c -= c % ls;
    uint64_t groups = 0;
    for (uint64_t a = 0; a < n_half; a += c) {
        uint64_t n = n_half - a < c ? n_half - a : c;
        groups += (n + ls - 1) / ls;
    }
    uint64_t run = reduce_run(eng);
    gs_buf *pa = NULL, *pb = NULL;
    if ((st = gs_buf_create(eng, groups * 48, &pa)) ||
        (st = gs_buf_create(eng, ((groups + run - 1) / run) * 48, &pb)))
        goto done;
    set_v(prog, lambda);
    set_u(prog, "gs_group0", 0);
    uint64_t g0 = 0;
    for (uint64_t a = 0; a < n_half; a += c) {
        uint64_t n = n_half - a < c ? n_half - a : c;
        uint64_t g = (n + ls - 1) / ls;
        if ((st = bind_ef(eng, prog, 0, eq, 2 * a, 2 * n)) || (st = bind_ef(eng, prog, 1, p, 4 * a, 4 * n)) ||
            (st = bind_ef(eng, prog, 2, q, 4 * a, 4 * n)) || (st = bind_ef(eng, prog, 3, pa, 3 * g0, 3 * g)) ||
            (st = gs_gl_dispatch_1d(dev, prog, n, &eng->err)))
            goto done;
        g0 += g;
    }
    st = reduce_triples(eng, pa, pb, groups, out);
done:
    gs_buf_destroy(pa);
    gs_buf_destroy(pb);
    return st;
}

static glstark_status fold_into(gs_engine *eng, const gs_buf *src, uint64_t n_out, uint64_t stride, bb4_t r,
                                gs_buf *dst)
{
    gs_gl_program *prog;
    glstark_status st = get_prog(eng, MODE_FOLD, &prog);
    if (st)
        return st;
    set_v(prog, r);
    set_u(prog, "gs_stride", (uint32_t)stride);
    uint64_t total = n_out * stride;
    uint64_t c = chunk_items(eng, 2, 1, stride);
    for (uint64_t i = 0; i < total; i += c) {
        uint64_t n = total - i < c ? total - i : c;
        if ((st = bind_ef(eng, prog, 0, src, 2 * i, 2 * n)) || (st = bind_ef(eng, prog, 1, dst, i, n)) ||
            (st = gs_gl_dispatch_1d(gs_gles_device(eng), prog, n, &eng->err)))
            return st;
    }
    return GLSTARK_OK;
}

static glstark_status gles_fold(gs_engine *eng, const gs_buf *src, size_t n_out, size_t stride, bb4_t r, gs_buf *dst)
{
    uint64_t total = (uint64_t)n_out * stride;
    if (total == 0)
        return GLSTARK_OK;
    if (stride > UINT32_MAX / 4)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "gles gkr fold: stride %zu too large", stride);
    glstark_status st;
    if ((st = need_ef(eng, src, 2 * total, "fold src")) || (st = need_ef(eng, dst, total, "fold dst")))
        return st;
    if (src->gl_name != dst->gl_name)
        return fold_into(eng, src, n_out, stride, r, dst);
    /* in place: fold into a temporary, then copy back on the GPU */
    gs_buf *tmp = NULL;
    if ((st = gs_buf_create(eng, total * 16, &tmp)))
        return st;
    st = fold_into(eng, src, n_out, stride, r, tmp);
    if (!st)
        st = gs_buf_copy(dst, 0, tmp, 0, total * 16);
    gs_buf_destroy(tmp);
    return st;
}

static glstark_status gles_eq_table(gs_engine *eng, const bb4_t *xi, size_t n, gs_buf *dst)
{
    if (n >= 32)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "gles gkr eq table: 2^%zu entries are too many", n);
    glstark_status st = need_ef(eng, dst, (uint64_t)1 << n, "eq table");
    if (st)
        return st;
    if ((st = fill_ef(eng, dst, 0, 1, bb4_one())))
        return st;
    gs_gl_program *prog;
    if ((st = get_prog(eng, MODE_EQ, &prog)))
        return st;
    uint64_t c = chunk_items(eng, 1, 1, 1);
    for (size_t k = 0; k < n; k++) {
        uint64_t half = (uint64_t)1 << k;
        set_v(prog, xi[k]);
        for (uint64_t x = 0; x < half; x += c) {
            uint64_t m = half - x < c ? half - x : c;
            if ((st = bind_ef(eng, prog, 0, dst, x, m)) || (st = bind_ef(eng, prog, 1, dst, half + x, m)) ||
                (st = gs_gl_dispatch_1d(gs_gles_device(eng), prog, m, &eng->err)))
                return st;
        }
    }
    return GLSTARK_OK;
}

/* Host evaluation of the leaves: parts are read back into host copies, the
 * CPU kernel fills host leaves, which are uploaded. */
static glstark_status gles_input_layer(gs_engine *eng, const gs_zc_trace *traces, size_t n_traces,
                                       const uint64_t *slots, uint32_t l_skip, bb4_t alpha, bb4_t beta,
                                       size_t n_leaves, gs_buf *p, gs_buf *q)
{
    glstark_status st;
    if ((st = need_ef(eng, p, n_leaves, "input layer p")) || (st = need_ef(eng, q, n_leaves, "input layer q")))
        return st;
    size_t n_parts = 0;
    for (size_t t = 0; t < n_traces; t++)
        n_parts += traces[t].n_parts;
    gs_zc_trace *ht = calloc(n_traces ? n_traces : 1, sizeof(*ht));
    gs_buf *hb = calloc(n_parts ? n_parts : 1, sizeof(*hb));
    const gs_buf **hp = calloc(n_parts ? n_parts : 1, sizeof(*hp));
    gs_buf lp = {0}, lq = {0};
    lp.size = lq.size = n_leaves * sizeof(bb4_t);
    lp.host = malloc(lp.size ? lp.size : 1);
    lq.host = malloc(lq.size ? lq.size : 1);
    if (!ht || !hb || !hp || !lp.host || !lq.host) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles gkr input layer: host staging allocation failed");
        goto done;
    }
    size_t k = 0;
    for (size_t t = 0; t < n_traces; t++) {
        ht[t] = traces[t];
        ht[t].parts = &hp[k];
        if (traces[t].dag->n_interactions == 0) {
            k += traces[t].n_parts;
            continue;
        }
        size_t h = (size_t)1 << traces[t].log_height;
        for (uint32_t i = 0; i < traces[t].n_parts; i++, k++) {
            size_t bytes = h * traces[t].part_widths[i] * sizeof(bb_t);
            hb[k].size = bytes;
            hb[k].host = malloc(bytes ? bytes : 1);
            hp[k] = &hb[k];
            if (!hb[k].host) {
                st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles gkr input layer: staging a trace part failed");
                goto done;
            }
            if ((st = gs_buf_read(traces[t].parts[i], 0, hb[k].host, bytes)))
                goto done;
        }
    }
    if ((st = gs_cpu_gkr_ops.input_layer(eng, ht, n_traces, slots, l_skip, alpha, beta, n_leaves, &lp, &lq)))
        goto done;
    if ((st = gs_buf_write(p, 0, lp.host, lp.size)) || (st = gs_buf_write(q, 0, lq.host, lq.size)))
        goto done;
done:
    if (hb)
        for (size_t i = 0; i < n_parts; i++)
            free(hb[i].host);
    free(hb);
    free(hp);
    free(ht);
    free(lp.host);
    free(lq.host);
    return st;
}

const gs_gkr_ops gs_gles_gkr_ops = {
    .input_layer = gles_input_layer,
    .layer_up = gles_layer_up,
    .round = gles_round,
    .fold = gles_fold,
    .eq_table = gles_eq_table,
};
