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
 * input_layer interprets the used part of each trace's interaction DAG on
 * the GPU (glsl/gkr_input.comp): variables are gathered from the trace parts
 * into a slot-major node buffer, the other nodes are evaluated in slot order,
 * and each interaction's leaves are written; rows go in chunks bounded by a
 * binding and by a node-evaluation budget per dispatch. */
#include "engine/gles/colwin.h"
#include "engine/gles/gles_engine.h"
#include "engine/gkr_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements per dispatch by kernel weight (EF products per element): ~2^20
 * EF products per dispatch, a few ms on llvmpipe; a Raspberry Pi 5 resets
 * jobs longer than about 500 ms (docs/design.md, 'Pitfalls we met on GLES compute'); not measured on a Pi. */
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
static glstark_status reduce_triples(gs_engine *eng, gs_buf *a, gs_buf *b, uint64_t n, gs_sums_dst out)
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
    return out.buf ? gs_buf_copy(out.buf, out.index * sizeof(bb4_t), src, 0, 3 * sizeof(bb4_t))
                   : gs_buf_read(src, 0, out.out, 3 * sizeof(bb4_t));
}

static glstark_status gles_round(gs_engine *eng, const gs_buf *eq, const gs_buf *p, const gs_buf *q, size_t n_half,
                                 bb4_t lambda, gs_sums_dst out)
{
    glstark_status st = gs_sums_dst_check(eng, out, 3, "gles gkr round");
    if (st)
        return st;
    if (n_half == 0) {
        const bb4_t zero[3] = {bb4_zero(), bb4_zero(), bb4_zero()};
        return gs_sums_store(out, zero, 3);
    }
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

static glstark_status fold_into(gs_engine *eng, const gs_buf *src, uint64_t n_out, uint64_t stride, gs_chal r,
                                gs_buf *dst)
{
    gs_gl_program *prog;
    glstark_status st = get_prog(eng, MODE_FOLD, &prog);
    if (st)
        return st;
    set_v(prog, r.value);
    set_u(prog, "gs_chal", r.buf != NULL);
    if (r.buf && (st = bind_ef(eng, prog, 2, r.buf, r.index, 1)))
        return st;
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

static glstark_status gles_fold(gs_engine *eng, const gs_buf *src, size_t n_out, size_t stride, gs_chal r, gs_buf *dst)
{
    glstark_status cst = gs_chal_check(eng, r, "gles gkr fold");
    if (cst)
        return cst;
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

/* ---- input layer (glsl/gkr_input.comp) ---- */

/* Node evaluations per EVAL dispatch. */
#define GS_GKR_NODE_EVALS (1u << 21)

enum { IN_GATHER = 1, IN_EVAL = 2, IN_EMIT = 3 };
enum { OP_VAR = 0, OP_CONST, OP_FIRST, OP_LAST, OP_TRANS, OP_ADD, OP_SUB, OP_NEG, OP_MUL };

static void in_defs(int mode, char *defs, size_t n) { snprintf(defs, n, "GKR_IN_MODE %d\n", mode); }

static glstark_status get_in_prog(gs_engine *eng, int mode, gs_gl_program **out)
{
    char defs[32];
    in_defs(mode, defs, sizeof defs);
    return gs_gl_program_get(gs_gles_device(eng), "gkr_input.comp", defs, out, &eng->err);
}

glstark_status gs_gles_gkr_precompile(gs_engine *eng, int interactions)
{
    /* What every proof runs (the zerocheck's eq tables), and with LogUp
     * interactions the GKR layers and their input layer. */
    static const int always[] = {MODE_EQ, MODE_FILL4};
    static const int layers[] = {MODE_LAYER_UP, MODE_ROUND, MODE_REDUCE, MODE_FOLD};
    gs_gl_device *dev = gs_gles_device(eng);
    char defs[32];
    glstark_status st = GLSTARK_OK;
    for (size_t i = 0; !st && i < sizeof always / sizeof always[0]; i++) {
        snprintf(defs, sizeof defs, "GKR_MODE %d\n", always[i]);
        st = gs_gl_program_prefetch(dev, "gkr.comp", defs, &eng->err);
    }
    for (size_t i = 0; !st && interactions && i < sizeof layers / sizeof layers[0]; i++) {
        snprintf(defs, sizeof defs, "GKR_MODE %d\n", layers[i]);
        st = gs_gl_program_prefetch(dev, "gkr.comp", defs, &eng->err);
    }
    for (int mode = IN_GATHER; !st && interactions && mode <= IN_EMIT; mode++) {
        in_defs(mode, defs, sizeof defs);
        st = gs_gl_program_prefetch(dev, "gkr_input.comp", defs, &eng->err);
    }
    return st;
}

/* The used part of one trace's DAG, compiled for gkr_input.comp. */
typedef struct in_code {
    uint32_t *w;        /* code words */
    size_t n_words;
    uint32_t n_used;    /* slots */
    size_t *part_first; /* per part: first gather entry index, n_parts + 1 entries */
    size_t gather_word; /* word of gather entry 0 */
    size_t inter_word;  /* word of interaction 0 */
} in_code;

static void in_code_free(in_code *c)
{
    free(c->w);
    free(c->part_first);
    memset(c, 0, sizeof(*c));
}

/* gather entries by part (stashed in word 3), column, then slot */
static int cmp_gather(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    static const int order[4] = {3, 1, 0, 2};
    for (int i = 0; i < 4; i++)
        if (a[order[i]] != b[order[i]])
            return a[order[i]] < b[order[i]] ? -1 : 1;
    return 0;
}

static glstark_status in_compile(gs_engine *eng, const gs_zc_trace *tr, in_code *c)
{
    const gs_cdag *d = tr->dag;
    memset(c, 0, sizeof(*c));
    uint32_t nn = d->n_nodes;
    uint32_t *slot = malloc((nn ? nn : 1) * sizeof(uint32_t));
    uint8_t *used = calloc(nn ? nn : 1, 1);
    c->part_first = calloc(tr->n_parts + 1, sizeof(size_t));
    glstark_status st = GLSTARK_OK;
    if (!slot || !used || !c->part_first) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles gkr input layer: DAG compile allocation failed");
        goto done;
    }
    size_t msg_total = 0;
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        const gs_cinteraction *it = &d->interactions[k];
        if (it->count >= nn)
            goto bad;
        used[it->count] = 1;
        for (uint32_t j = 0; j < it->message_len; j++) {
            if (it->message[j] >= nn)
                goto bad;
            used[it->message[j]] = 1;
        }
        msg_total += it->message_len;
    }
    for (uint32_t i = nn; i-- > 0;) {
        const gs_cnode *n = &d->nodes[i];
        if (!used[i])
            continue;
        if (n->kind == GS_CN_ADD || n->kind == GS_CN_SUB || n->kind == GS_CN_MUL || n->kind == GS_CN_NEG) {
            if (n->a >= i || (n->kind != GS_CN_NEG && n->b >= i))
                goto bad;
            used[n->a] = 1;
            if (n->kind != GS_CN_NEG)
                used[n->b] = 1;
        }
    }
    uint32_t u = 0, n_vars = 0;
    for (uint32_t i = 0; i < nn; i++)
        if (used[i]) {
            slot[i] = u++;
            if (d->nodes[i].kind == GS_CN_VAR_MAIN || d->nodes[i].kind == GS_CN_VAR_PREP)
                n_vars++;
        }
    c->n_used = u;
    c->gather_word = 4 * (size_t)u;
    c->inter_word = c->gather_word + 4 * (size_t)n_vars;
    c->n_words = c->inter_word + 4 * (size_t)d->n_interactions + msg_total;
    c->w = calloc(c->n_words ? c->n_words : 1, sizeof(uint32_t));
    if (!c->w) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles gkr input layer: DAG compile allocation failed");
        goto done;
    }
    uint32_t *g = c->w + c->gather_word;
    size_t gv = 0;
    for (uint32_t i = 0; i < nn; i++) {
        if (!used[i])
            continue;
        const gs_cnode *n = &d->nodes[i];
        uint32_t *o = c->w + 4 * (size_t)slot[i];
        switch (n->kind) {
        case GS_CN_VAR_PREP:
        case GS_CN_VAR_MAIN: {
            int part = gs_cdag_part_of(d, n);
            if (part < 0 || (uint32_t)part >= tr->n_parts || n->a >= tr->part_widths[part])
                goto bad;
            o[0] = OP_VAR;
            uint32_t *e = g + 4 * gv++;
            e[0] = slot[i];
            e[1] = n->a;
            e[2] = n->offset;
            e[3] = (uint32_t)part;
            break;
        }
        case GS_CN_PUBLIC:
            if (n->a >= tr->n_publics)
                goto bad;
            o[0] = OP_CONST;
            o[3] = tr->publics[n->a];
            break;
        case GS_CN_CONST:
            o[0] = OP_CONST;
            o[3] = n->value;
            break;
        case GS_CN_IS_FIRST: o[0] = OP_FIRST; break;
        case GS_CN_IS_LAST: o[0] = OP_LAST; break;
        case GS_CN_IS_TRANSITION: o[0] = OP_TRANS; break;
        case GS_CN_ADD:
        case GS_CN_SUB:
        case GS_CN_MUL:
        case GS_CN_NEG:
            o[0] = n->kind == GS_CN_ADD ? OP_ADD : n->kind == GS_CN_SUB ? OP_SUB : n->kind == GS_CN_MUL ? OP_MUL : OP_NEG;
            o[1] = slot[n->a];
            o[2] = n->kind == GS_CN_NEG ? 0 : slot[n->b];
            break;
        default:
            goto bad;
        }
    }
    qsort(g, gv, 4 * sizeof(uint32_t), cmp_gather);
    for (size_t e = 0, p = 0; p <= tr->n_parts; p++) {
        while (e < gv && g[4 * e + 3] < p)
            e++;
        c->part_first[p] = e;
    }
    size_t mw = c->inter_word + 4 * (size_t)d->n_interactions;
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        const gs_cinteraction *it = &d->interactions[k];
        uint32_t *o = c->w + c->inter_word + 4 * (size_t)k;
        o[0] = slot[it->count];
        o[1] = bb_from_u32((uint32_t)it->bus_index + 1);
        o[2] = it->message_len;
        o[3] = (uint32_t)mw;
        for (uint32_t j = 0; j < it->message_len; j++)
            c->w[mw++] = slot[it->message[j]];
    }
    goto done;
bad:
    st = gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                      "gles gkr input layer: the interaction DAG has an out-of-range node, column or public index; "
                      "check it with gs_cdag_check");
done:
    free(slot);
    free(used);
    if (st)
        in_code_free(c);
    return st;
}

static glstark_status bind_words(gs_engine *eng, const gs_gl_program *prog, GLuint binding, const gs_buf *buf,
                                 uint64_t first, uint64_t count, const char *lead)
{
    gs_gl_device *dev = gs_gles_device(eng);
    uint64_t align = dev->caps.binding_offset_align;
    uint64_t byte = first * 4, start = byte - byte % align, end = byte + count * 4;
    if (end > buf->size)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles gkr input layer: words [%" PRIu64 ", %" PRIu64 ") pass the end of a %zu-byte buffer",
                            first, first + count, buf->size);
    if (lead)
        set_u(prog, lead, (uint32_t)((byte - start) / 4));
    return gs_gl_bind_range(dev, binding, buf->gl_name, start, end - start, &eng->err);
}

static glstark_status input_trace(gs_engine *eng, const gs_zc_trace *tr, const uint64_t *slots, uint32_t l_skip,
                                  bb4_t alpha, bb4_t beta, gs_buf *p, gs_buf *q)
{
    gs_gl_device *dev = gs_gles_device(eng);
    const uint64_t maxb = dev->caps.max_binding_bytes, align = dev->caps.binding_offset_align;
    const gs_cdag *d = tr->dag;
    const uint32_t lh = tr->log_height;
    const uint64_t h = (uint64_t)1 << lh, len = (uint64_t)1 << (lh > l_skip ? lh : l_skip);
    bb_t norm = bb_one();
    if (lh < l_skip)
        norm = bb_inv(bb_from_u32(1u << (l_skip - lh)));
    for (uint32_t i = 0; i < tr->n_parts; i++)
        if (tr->parts[i]->size / 4 < gs_zc_part_offset(tr, i) ||
            (tr->parts[i]->size / 4 - gs_zc_part_offset(tr, i)) / h < tr->part_widths[i])
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "gles gkr input layer: part %u holds fewer than %u columns of 2^%u rows", i,
                                tr->part_widths[i], lh);
    if (h * 4 + align > maxb)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles gkr input layer: a 2^%u-row column does not fit the %" PRIu64 "-byte binding limit",
                            lh, maxb);
    in_code c;
    glstark_status st = in_compile(eng, tr, &c);
    if (st)
        return st;
    gs_gl_program *pg, *pe, *pm;
    gs_buf *code = NULL, *inter = NULL;
    if ((st = get_in_prog(eng, IN_GATHER, &pg)) || (st = get_in_prog(eng, IN_EVAL, &pe)) ||
        (st = get_in_prog(eng, IN_EMIT, &pm)))
        goto done;
    uint64_t u = c.n_used ? c.n_used : 1;
    uint64_t rows = (maxb - align) / (u * 4);
    if (rows > GS_GKR_NODE_EVALS / u)
        rows = GS_GKR_NODE_EVALS / u;
    if (rows > len)
        rows = len;
    if (rows == 0)
        rows = 1;
    if (u * rows * 4 + align > maxb) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                          "gles gkr input layer: %" PRIu64 " DAG nodes do not fit one binding", u);
        goto done;
    }
    if ((st = gs_buf_create(eng, c.n_words * 4, &code)) || (st = gs_buf_write(code, 0, c.w, c.n_words * 4)) ||
        (st = gs_buf_create(eng, u * rows * 4, &inter)))
        goto done;
    if (c.n_words * 4 > maxb) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED, "gles gkr input layer: the compiled DAG exceeds one binding");
        goto done;
    }
    const gs_gl_program *progs[3] = {pg, pe, pm};
    for (int i = 0; i < 3; i++)
        set_u(progs[i], "gs_log_h", lh);
    set_u(pm, "gs_norm", norm);
    GLint loc;
    if ((loc = gs_gl_program_uniform(pm, "gs_alpha")) >= 0)
        glProgramUniform4ui(gs_gl_program_name(pm), loc, alpha.c[0], alpha.c[1], alpha.c[2], alpha.c[3]);
    if ((loc = gs_gl_program_uniform(pm, "gs_beta")) >= 0)
        glProgramUniform4ui(gs_gl_program_name(pm), loc, beta.c[0], beta.c[1], beta.c[2], beta.c[3]);
    const uint64_t cols_per_window = gs_colwin_fit_any(&dev->caps, h * 4);
    for (uint64_t r0 = 0; r0 < len; r0 += rows) {
        uint64_t nr = len - r0 < rows ? len - r0 : rows;
        for (int i = 0; i < 3; i++) {
            set_u(progs[i], "gs_rows", (uint32_t)nr);
            set_u(progs[i], "gs_row0", (uint32_t)r0);
        }
        /* gather: per part, windows of whole columns */
        for (uint32_t pi = 0; pi < tr->n_parts; pi++) {
            size_t e = c.part_first[pi], e_end = c.part_first[pi + 1];
            while (e < e_end) {
                uint32_t c0 = c.w[c.gather_word + 4 * e + 1];
                size_t f = e;
                while (f < e_end && c.w[c.gather_word + 4 * f + 1] < c0 + cols_per_window)
                    f++;
                uint32_t cl = c.w[c.gather_word + 4 * (f - 1) + 1];
                set_u(pg, "gs_c0", c0);
                set_u(pg, "gs_first", (uint32_t)(c.gather_word + 4 * e));
                if ((st = bind_words(eng, pg, 0, code, 0, c.n_words, NULL)) ||
                    (st = bind_words(eng, pg, 1, tr->parts[pi], gs_zc_part_offset(tr, pi) + (uint64_t)c0 * h,
                                     (uint64_t)(cl - c0 + 1) * h,
                                     "gs_lead1")) ||
                    (st = bind_words(eng, pg, 2, inter, 0, u * nr, NULL)) ||
                    (st = gs_gl_dispatch_1d(dev, pg, (uint64_t)(f - e) * nr, &eng->err)))
                    goto done;
                e = f;
            }
        }
        set_u(pe, "gs_first", 0);
        set_u(pe, "gs_nodes", c.n_used);
        if ((st = bind_words(eng, pe, 0, code, 0, c.n_words, NULL)) ||
            (st = bind_words(eng, pe, 1, inter, 0, u * nr, NULL)) ||
            (st = gs_gl_dispatch_1d(dev, pe, nr, &eng->err)))
            goto done;
        for (uint32_t k = 0; k < d->n_interactions; k++) {
            set_u(pm, "gs_first", (uint32_t)(c.inter_word + 4 * (size_t)k));
            if ((st = bind_words(eng, pm, 0, code, 0, c.n_words, NULL)) ||
                (st = bind_words(eng, pm, 1, inter, 0, u * nr, NULL)) ||
                (st = bind_ef(eng, pm, 2, p, slots[k] + r0, nr)) || (st = bind_ef(eng, pm, 3, q, slots[k] + r0, nr)) ||
                (st = gs_gl_dispatch_1d(dev, pm, nr, &eng->err)))
                goto done;
        }
    }
done:
    gs_buf_destroy(code);
    gs_buf_destroy(inter);
    in_code_free(&c);
    return st;
}

static glstark_status gles_input_layer(gs_engine *eng, const gs_zc_trace *traces, size_t n_traces,
                                       const uint64_t *slots, uint32_t l_skip, bb4_t alpha, bb4_t beta,
                                       size_t n_leaves, gs_buf *p, gs_buf *q)
{
    glstark_status st;
    if ((st = need_ef(eng, p, n_leaves, "input layer p")) || (st = need_ef(eng, q, n_leaves, "input layer q")))
        return st;
    if (n_leaves > UINT32_MAX || l_skip > 30)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED, "gles gkr input layer: %zu leaves (l_skip %u) too many",
                            n_leaves, l_skip);
    if ((st = fill_ef(eng, p, 0, n_leaves, bb4_zero())) || (st = fill_ef(eng, q, 0, n_leaves, alpha)))
        return st;
    size_t si = 0;
    for (size_t t = 0; t < n_traces; t++) {
        const gs_zc_trace *tr = &traces[t];
        uint32_t n_int = tr->dag->n_interactions;
        if (n_int == 0)
            continue;
        if (tr->log_height > 30)
            return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED, "gles gkr input layer: trace of 2^%u rows",
                                tr->log_height);
        uint64_t len = (uint64_t)1 << (tr->log_height > l_skip ? tr->log_height : l_skip);
        for (uint32_t k = 0; k < n_int; k++)
            if (slots[si + k] + len > n_leaves)
                return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "gkr input layer: trace %zu interaction %u slot at %llu + %llu passes %zu leaves", t,
                                    k, (unsigned long long)slots[si + k], (unsigned long long)len, n_leaves);
        if ((st = input_trace(eng, tr, slots + si, l_skip, alpha, beta, p, q)))
            return st;
        si += n_int;
    }
    return GLSTARK_OK;
}

const gs_gkr_ops gs_gles_gkr_ops = {
    .input_layer = gles_input_layer,
    .layer_up = gles_layer_up,
    .round = gles_round,
    .fold = gles_fold,
    .eq_table = gles_eq_table,
};
