/* The GLES engine's zerocheck family (definitions in src/engine/
 * zerocheck_ops.h): the same sums as the CPU engine, bit-identical because
 * every value is a fully reduced field element and the field operations are
 * exact, whatever the order of the additions.
 *
 * The DAG runs in a bytecode interpreter (glsl/zerocheck_eval.comp; the
 * choice and its measurements are in docs/design-round0.md). The host
 * compiles the DAG into bytecode once per DAG and weights (src/engine/
 * zc_code.h: liveness-recycled slots, weighted accumulates); the CPU
 * engine's lane interpreter runs the same program.
 *
 * Round 0 works in tiles of x (blocks of 2^l rows): a coset-LDE pass
 * (glsl/zerocheck.comp, LDE) writes every table column's values at every
 * point into a tile, then the interpreter runs one invocation per (x, point).
 * The multilinear rounds read the tables directly when all columns fit one
 * binding, else through a gathered tile of rows. Every evaluation adds
 * eq-weight x (zc, p, q) into a per-lane accumulator whose key (point or X)
 * is fixed by the lane; a second pass sums the lanes by key. Dispatches are
 * cut to a budget of interpreted instructions so none runs long on a slow
 * GPU, and every buffer is bound through windows within the binding limit.
 * The fold is out of place (scratch, then copied back) because in place the
 * invocations would race. */
#include "engine/gles/colwin.h"
#include "engine/gles/gles_engine.h"
#include "engine/read_later.h"
#include "engine/zc_code.h"
#include "engine/zerocheck_ops.h"
#include "util/bytebuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Interpreted instructions per dispatch (lanes x program length). llvmpipe
 * on 2 cores runs about 1.3 G instructions/s on Keccak (design-round0.md),
 * so 2^25 is ~30 ms there and should stay well under 500 ms on a Pi-class
 * GPU (not measured). Devices that offer a binding of 1 GiB or more are
 * desktop-class (an H100 offers 2 GiB) and get 16x more, or Keccak's ~40k
 * instructions would leave them ~800 lanes per dispatch. Floor mode caps
 * the binding at 128 MiB and so keeps the small budget. */
#define ZC_WORK_BUDGET (1u << 25)
#define ZC_WORK_BUDGET_DESKTOP (1u << 29)
/* Cap on scratch buffers (LDE tiles, gathered rows, slots, fold scratch).
 * Round 0 interprets one LDE tile at a time, and a tile's items are the
 * dispatch's lanes: with 64 MiB Keccak gets 99 rows of blocks per tile and
 * ~3k lanes, which leaves most of a big GPU idle. Desktop-class devices (as
 * for the budget above) get 256 MiB for round 0 and the multilinear rounds.
 * Measurements of 2026-11-22 had found 96-128 MiB as fast as 256 (H200, 16 groups), but
 * then every proof allocated these buffers afresh (the bounded pool); with
 * the reuse pool keccakf-1024 on the H100 runs round 0 in 31 against 43 ms
 * and mle_rounds in 55 against 60 ms (warm proofs 0.174-0.182 against
 * 0.191-0.207 s, single proofs 0.300-0.308 against 0.306-0.360 s), for 1314
 * against 1186 MiB of GPU buffers; 384 and 512 MiB gained nothing more,
 * 1 GiB lost (docs/performance.md, 'Constraint rounds on GLES', 2026-11-26). */
#define ZC_SCRATCH_BYTES ((uint64_t)64 << 20)
#define ZC_SCRATCH_BYTES_DESKTOP ((uint64_t)256 << 20)
/* Ids per dispatch for the data movers. */
#define ZC_DISPATCH (1u << 20)

enum { M_LDE = 1, M_REDUCE = 2, M_FOLD_PLE = 3, M_FOLD = 4, M_COPY = 5, M_GATHER = 6 };
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }


/* ---- GL helpers ---- */

typedef struct zc_ctx {
    gs_engine *eng;
    gs_gl_device *dev;
    uint64_t maxb, align;
    int desktop;      /* a hardware device offering bindings of 1 GiB or more */
    uint64_t scratch; /* ZC_SCRATCH_BYTES or ZC_SCRATCH_BYTES_DESKTOP */
} zc_ctx;

static void ctx_init(zc_ctx *c, gs_engine *eng)
{
    c->eng = eng;
    c->dev = gs_gles_device(eng);
    c->maxb = c->dev->caps.max_binding_bytes;
    c->align = c->dev->caps.binding_offset_align;
    c->desktop = c->dev->caps.desktop_class;
    c->scratch = c->desktop ? ZC_SCRATCH_BYTES_DESKTOP : ZC_SCRATCH_BYTES;
}

static void set_u(const gs_gl_program *p, const char *name, uint32_t v)
{
    GLint loc = gs_gl_program_uniform(p, name);
    if (loc >= 0)
        glProgramUniform1ui(gs_gl_program_name(p), loc, v);
}

static void mode_defs(int mode, unsigned logn, char *defs, size_t n)
{
    snprintf(defs, n, "ZC_MODE %d\nZC_LOGN %u\n", mode, logn);
}

static glstark_status prog_mode(zc_ctx *c, int mode, unsigned logn, gs_gl_program **out)
{
    char defs[96];
    mode_defs(mode, logn, defs, sizeof defs);
    return gs_gl_program_get(c->dev, "zerocheck.comp", defs, out, &c->eng->err);
}

/* The interpreter; lpg > 0 builds the shared-memory-slot variant for
 * n_slots intermediates and lpg lanes per work group; else `local` lanes
 * per work group (the usual local size, or fewer under the dispatch time
 * budget). */
static glstark_status prog_eval(zc_ctx *c, int ext, uint32_t lpg, uint32_t local, uint32_t n_slots,
                                gs_gl_program **out)
{
    char defs[128];
    if (lpg)
        snprintf(defs, sizeof defs, "ZC_EXT %d\nZC_SHARED 1\nZC_LPG %u\nZC_NSLOTS %u\n", ext ? 1 : 0, lpg,
                 n_slots ? n_slots : 1);
    else if (local && local != c->dev->caps.local_size)
        snprintf(defs, sizeof defs, "ZC_EXT %d\nZC_LOCAL %u\n", ext ? 1 : 0, local);
    else
        snprintf(defs, sizeof defs, "ZC_EXT %d\n", ext ? 1 : 0);
    return gs_gl_program_get(c->dev, "zerocheck_eval.comp", defs, out, &c->eng->err);
}

glstark_status gs_gles_zerocheck_precompile(gs_engine *eng, unsigned l_skip)
{
    gs_gl_device *dev = gs_gles_device(eng);
    char defs[96];
    glstark_status st = GLSTARK_OK;
    /* The modes with logn 0 do not depend on the proof; round 0's LDE and
     * fold are built for its l_skip, known once a proof begins. */
    static const int fixed[] = {M_REDUCE, M_FOLD, M_COPY};
    for (size_t i = 0; !st && i < sizeof fixed / sizeof fixed[0]; i++) {
        mode_defs(fixed[i], 0, defs, sizeof defs);
        st = gs_gl_program_prefetch(dev, "zerocheck.comp", defs, &eng->err);
    }
    if (l_skip) {
        static const int skip_modes[] = {M_LDE, M_FOLD_PLE};
        for (size_t i = 0; !st && i < sizeof skip_modes / sizeof skip_modes[0]; i++) {
            mode_defs(skip_modes[i], l_skip, defs, sizeof defs);
            st = gs_gl_program_prefetch(dev, "zerocheck.comp", defs, &eng->err);
        }
    }
    /* The interpreter with its slots in a storage buffer (the shared-memory
     * variant is built per DAG). */
    for (int ext = 0; !st && ext <= 1 && dev->caps.slots != GLSTARK_SLOTS_SHARED; ext++) {
        snprintf(defs, sizeof defs, "ZC_EXT %d\n", ext);
        st = gs_gl_program_prefetch(dev, "zerocheck_eval.comp", defs, &eng->err);
    }
    return st;
}

/* Lanes per work group when every lane's slots live in shared memory: the
 * largest power of two whose slots fit (at most the usual local size, at
 * most 64), or 0 when the policy says global or not even one lane fits. */
static uint32_t shared_lanes(const zc_ctx *c, uint32_t n_slots, int ext)
{
    const gs_gl_caps *k = &c->dev->caps;
    if (k->slots != GLSTARK_SLOTS_SHARED)
        return 0;
    uint64_t per = (uint64_t)(n_slots ? n_slots : 1) * (ext ? 16 : 4);
    uint64_t fit = k->max_shared_bytes / per;
    uint32_t lpg = 0;
    for (uint32_t l = 1; l <= 64 && l <= k->local_size && l <= fit; l *= 2)
        lpg = l;
    return lpg;
}

/* Binds elements [first, first + count) of buf (eb bytes each) to binding;
 * *lead = index of element `first` inside the bound range. */
static glstark_status bind_elems(zc_ctx *c, GLuint binding, const gs_buf *buf, uint64_t first, uint64_t count,
                                 uint32_t eb, uint32_t *lead)
{
    uint64_t byte = first * eb, off = byte - byte % c->align;
    uint64_t bytes = count * eb + (byte - off);
    if (bytes > c->maxb || off + bytes > buf->size)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_INTERNAL,
                            "gles zerocheck: a window of %" PRIu64 " bytes at %" PRIu64
                            " does not fit the binding limit (%" PRIu64 ") or the %zu-byte buffer",
                            bytes, off, c->maxb, buf->size);
    if (lead)
        *lead = (uint32_t)((byte - off) / eb);
    return gs_gl_bind_range(c->dev, binding, buf->gl_name, off, bytes, &c->eng->err);
}

/* `weight`: an id's cost relative to the program's other calls (gs_weight_*
 * in gles/dispatch_plan.h), so that the dispatch time budget plans fewer
 * ids for heavier calls of a program whose rate was measured on lighter
 * ones. */
static glstark_status run_ids_weighted(zc_ctx *c, gs_gl_program *p, uint64_t count, uint64_t weight)
{
    for (uint64_t i0 = 0; i0 < count; i0 += ZC_DISPATCH) {
        uint64_t n = min_u64(count - i0, ZC_DISPATCH);
        set_u(p, "gs_id0", (uint32_t)i0);
        glstark_status st =
            gs_gl_dispatch_1d_weighted(c->dev, p, n, c->dev->caps.local_size, weight, &c->eng->err);
        if (st)
            return st;
    }
    return GLSTARK_OK;
}

/* run_ids_weighted for programs whose ids all cost the same. */
static glstark_status run_ids(zc_ctx *c, gs_gl_program *p, uint64_t count)
{
    return run_ids_weighted(c, p, count, 1);
}

static size_t lifted_rows(const gs_zc_trace *t, uint32_t l_skip)
{
    return (size_t)1 << (t->log_height > l_skip ? t->log_height : l_skip);
}

/* ---- evaluation plumbing shared by round 0 and the rounds ---- */

/* Uniforms an interpreter plan records (plan_set): the plan's six and the
 * callers' tile and table uniforms. */
#define PLAN_UNIFORMS 16

typedef struct eval_plan {
    gs_zc_code code;
    gs_buf *aux, *work;
    uint32_t lanes, nkeys;
    uint32_t items_per; /* items per dispatch; a dispatch runs items_per * code.n_groups lanes */
    uint32_t lpg;    /* shared-memory slots: lanes per work group (0: slots in the work buffer) */
    uint32_t local;  /* lanes per work group of the program */
    uint32_t acc_off, res_off;
    /* lanes the dispatches since the last reduce added to (reduce_read sums
     * and zeroes only these; the rest stay zero) */
    uint64_t touched;
    int ext;
    gs_gl_program *prog;
    /* the program's uniforms that outlive one dispatch (plan_set), so that
     * plan_widen can set them on a wider variant of the program */
    struct {
        const char *name;
        uint32_t v;
    } u[PLAN_UNIFORMS];
    unsigned nu;
} eval_plan;

/* Sets a uniform of the plan's interpreter program and records it. */
static void plan_set(eval_plan *e, const char *name, uint32_t v)
{
    unsigned i = 0;
    while (i < e->nu && strcmp(e->u[i].name, name))
        i++;
    if (i < PLAN_UNIFORMS) {
        e->u[i].name = name;
        e->u[i].v = v;
        if (i == e->nu)
            e->nu++;
    }
    set_u(e->prog, name, v);
}

static void plan_free(eval_plan *e)
{
    gs_zc_code_free(&e->code);
    gs_buf_destroy(e->aux);
    gs_buf_destroy(e->work);
    e->aux = e->work = NULL;
}

/* How many groups to split a DAG's evaluation into: the device option
 * (GLSTARK_GROUPS) if set, else on desktop-class devices 256 for the
 * multilinear rounds and 16 for round 0, else 1. One evaluation is a chain
 * of ~40k instructions (Keccak) whose latency bounds a round with few items,
 * and splitting pays even with many: on the H200 sizing the split for ~32k
 * lanes (1 group from 2^15 items up) gave keccakf-1024 repeat proofs of
 * 0.310-0.321 s, 16 groups everywhere 0.251-0.277 s. On the H100 (the reuse
 * pool, the work-group reduce) the multilinear rounds (a few thousand items)
 * take 47 / 36 / 22 / 15 / 11 / 10-11 ms with 16 / 32 / 64 / 96 / 128 / 256
 * groups; round 0 (~10^6 items, bound by throughput, where each group
 * recomputes the nodes it shares) 31 ms with 8 or 16 and 34-35 ms with 32
 * (docs/performance.md, 'Constraint rounds on GLES', 2026-11-26). With
 * fused instructions on the H200, 256 groups against 128 took the rounds
 * from 81 to 74 ms at keccakf-16384 and 11 to 10 ms at keccakf-1024, and
 * fewer groups for rounds with many items was slower (2026-11-29). */
#define ZC_ROUND0_GROUPS 16u
static uint32_t groups_for(const zc_ctx *c, int ext)
{
    uint32_t most = c->dev->caps.interp_groups < GS_ZC_MAX_GROUPS ? c->dev->caps.interp_groups : GS_ZC_MAX_GROUPS;
    if (!ext && !c->dev->cfg.interp_groups && most > ZC_ROUND0_GROUPS)
        most = ZC_ROUND0_GROUPS;
    return most ? most : 1;
}

/* What one interpreter lane costs against the dispatch time budget: the
 * instructions of the longest group it may run (the DAG's size over the
 * groups). */
static uint64_t instr_weight(const eval_plan *e)
{
    return e->code.max_group_instr ? e->code.max_group_instr : 1;
}

/* Whether one dispatch of nkeys items in k groups fits the work buffer
 * (small binding limits) and the bytecode one binding. */
static int groups_fit(const zc_ctx *c, const eval_plan *e, int ext, uint32_t nkeys, uint64_t k)
{
    uint64_t sb = (uint64_t)e->code.n_slots * (ext ? 16 : 4) + 48;
    return (uint64_t)nkeys * k * sb + 48ull * nkeys <= min_u64(c->maxb, c->scratch) &&
           (uint64_t)e->code.aux_words * 4 <= c->maxb;
}

/* Round 0 (base field) reads a tile of the columns the program reads; the
 * rounds (extension) read the folded tables. */
static int cols_for(int ext)
{
    return ext ? GS_ZC_COLS_FOLDED : GS_ZC_COLS_READ;
}

/* Under a dispatch time budget a dispatch is cut between work groups only,
 * and a lane runs its whole group of the DAG, so the smallest work group is
 * the narrowest the plan allows (GS_ZC_MIN_LANES: narrower ones run no
 * faster). A DAG whose longest group, run by a work group of that width,
 * passes what one work group may run (gs_zc_group_fits: the prior, or half
 * the budget at the rate measured on the program the plan would start
 * with) is compiled into twice as many groups, until it fits or the groups
 * reach GS_ZC_MAX_GROUPS or no longer fit the work buffer. Each group runs in
 * its own lanes, which the dispatcher can cut between; the groups
 * recompute the nodes they share (more work in all, none of it too long),
 * and the sums are the same, whatever the grouping. */
static glstark_status plan_split(zc_ctx *c, eval_plan *e, const gs_zc_trace *t, const gs_zc_weights *w, int ext,
                                 uint32_t nkeys)
{
    const uint64_t budget = c->dev->dispatch_budget_ns;
    if (!budget || c->dev->caps.slots == GLSTARK_SLOTS_SHARED)
        return GLSTARK_OK;
    for (;;) {
        const uint64_t per = instr_weight(e);
        const uint32_t k = e->code.n_groups * 2;
        gs_gl_program *p;
        uint32_t l1 = gs_zc_budget_local(budget, NULL, per, c->dev->caps.local_size, ext);
        glstark_status st = prog_eval(c, ext, 0, l1, e->code.n_slots, &p);
        if (st)
            return st;
        const gs_dispatch_rate *r = gs_gl_program_rate(p);
        if (gs_zc_group_fits(budget, r->rate > 0.0 ? r : NULL, per, c->dev->caps.local_size, ext) ||
            k > GS_ZC_MAX_GROUPS || !groups_fit(c, e, ext, nkeys, k))
            return GLSTARK_OK;
        gs_zc_code next;
        if ((st = gs_zc_compile_cached(&((gs_gles_state *)c->eng->impl)->zc_cache, t, w, k, cols_for(ext), &next,
                                       &c->eng->err)))
            return st;
        if (next.n_groups <= e->code.n_groups || next.max_group_instr >= per) {
            gs_zc_code_free(&next); /* the DAG does not split further */
            return GLSTARK_OK;
        }
        gs_zc_code_free(&e->code);
        e->code = next;
    }
}

/* The plan's program: the DAG compiled with this call's weights (round 0,
 * !ext: with compact column numbering, so its tile holds only the columns
 * the program reads; the rounds, ext: numbered as the folded tables), in as
 * many groups as fit the work buffer. */
static glstark_status plan_compile(zc_ctx *c, eval_plan *e, const gs_zc_trace *t, const gs_zc_weights *w, int ext,
                                   uint32_t nkeys)
{
    memset(e, 0, sizeof *e);
    uint32_t k = groups_for(c, ext);
    if (c->dev->prof)
        gs_gl_profile_begin(c->dev);
    glstark_status st =
        gs_zc_compile_cached(&((gs_gles_state *)c->eng->impl)->zc_cache, t, w, k, cols_for(ext), &e->code, &c->eng->err);
    if (c->dev->prof)
        gs_gl_profile_end(c->dev, "zerocheck: DAG compile (host)", e->code.n_instr);
    if (!st)
        st = plan_split(c, e, t, w, ext, nkeys);
    if (st)
        return st;
    /* fewer groups while one dispatch of nkeys items per group would not
     * fit the work buffer (small binding limits), or the bytecode not one
     * binding (groups that share much recompute it each) */
    while (e->code.n_groups > 1) {
        if (groups_fit(c, e, ext, nkeys, e->code.n_groups))
            break;
        k = e->code.n_groups / 2;
        gs_zc_code_free(&e->code);
        if ((st = gs_zc_compile_cached(&((gs_gles_state *)c->eng->impl)->zc_cache, t, w, k, cols_for(ext), &e->code,
                                       &c->eng->err)))
            return st;
    }
    e->nkeys = nkeys;
    return GLSTARK_OK;
}

/* Sizes the plan's dispatches for `items` evaluations (at most) at a time
 * and makes its buffers and program. */
static glstark_status plan_finish(zc_ctx *c, eval_plan *e, const gs_zc_trace *t, int ext, uint64_t items)
{
    uint32_t nkeys = e->nkeys;
    glstark_status st;
    if ((uint64_t)e->code.aux_words * 4 > c->maxb)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles zerocheck: the compiled DAG (%u instructions, %zu bytes) exceeds this device's "
                            "%" PRIu64 "-byte binding limit; use the cpu engine",
                            e->code.n_instr, e->code.aux_words * 4, c->maxb);
    /* the budget counts the longest group's instructions per lane */
    uint64_t per = e->code.max_group_instr ? e->code.max_group_instr : 1;
    const uint64_t ng = e->code.n_groups ? e->code.n_groups : 1;
    /* the time budget (GLSTARK_DISPATCH_MS): once the interpreter's rate in
     * instructions per ns is known on this device, at most the lanes that
     * run within it, each costing the longest group's instructions
     * (eval_items dispatches with that weight, so the first dispatches,
     * which calibrate the rate, are cut by the budget too) */
    const uint64_t budget = c->dev->dispatch_budget_ns;
    /* the whole program per lane under a budget off desktop-class devices
     * (gs_zc_work_lanes): at keccakf-1024 with the floor limits, the
     * multilinear rounds' program split into 4 groups had made the work
     * buffer 45 MiB instead of 12, and the proof's buffer peak 22.8 MiB
     * higher */
    uint64_t lanes = gs_zc_work_lanes(budget, c->desktop, c->desktop ? ZC_WORK_BUDGET_DESKTOP : ZC_WORK_BUDGET, per,
                                      e->code.n_instr);
    e->lpg = shared_lanes(c, e->code.n_slots, ext);
    uint32_t loc = e->lpg ? e->lpg : c->dev->caps.local_size;
    /* a dispatch is cut between work groups only, so under a budget a large
     * DAG also gets small work groups: first what the prior allows (it
     * assumes a slow device), then, once that program's rate is measured,
     * what the rate allows, up to the full local size: a fast GPU under a
     * budget would otherwise keep 8-lane groups for good */
    uint32_t l1 = gs_zc_budget_local(budget, NULL, per, loc, ext);
    if ((st = prog_eval(c, ext, e->lpg ? l1 : 0, l1, e->code.n_slots, &e->prog)))
        return st;
    const gs_dispatch_rate *r1 = gs_gl_program_rate(e->prog);
    uint32_t l2 = r1->rate > 0.0 ? gs_zc_budget_local(budget, r1, per, loc, ext) : l1;
    if (l2 != l1 && (st = prog_eval(c, ext, e->lpg ? l2 : 0, l2, e->code.n_slots, &e->prog)))
        return st;
    if (e->lpg)
        e->lpg = l2;
    e->local = l2;
    lanes = gs_zc_budget_lanes(budget, gs_gl_program_rate(e->prog), per, e->local, lanes);
    /* slots (unless in shared memory) + accumulators per lane */
    uint64_t slot_bytes = (e->lpg ? 0 : (uint64_t)e->code.n_slots * (ext ? 16 : 4)) + 48;
    uint64_t lim = min_u64(c->maxb, c->scratch);
    lim = lim > 48ull * nkeys ? lim - 48ull * nkeys : 0; /* the per-key results follow the lanes */
    if (lanes > lim / slot_bytes)
        lanes = lim / slot_bytes;
    /* items per dispatch: a multiple of nkeys, so lane % nkeys is the key */
    uint64_t per_disp = lanes / ng;
    if (per_disp > items)
        per_disp = items;
    per_disp -= per_disp % nkeys;
    if (per_disp < nkeys)
        per_disp = nkeys;
    lanes = per_disp * ng;
    if (lanes * slot_bytes + 48ull * nkeys > c->maxb)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "gles zerocheck: %u intermediate slots for %u evaluation points need %" PRIu64
                            " bytes with the results, beyond this device's %" PRIu64 "-byte binding limit; use the cpu engine",
                            e->code.n_slots, nkeys, (uint64_t)(lanes * slot_bytes + 48ull * nkeys), c->maxb);
    e->lanes = (uint32_t)lanes;
    e->items_per = (uint32_t)per_disp;
    gs_gl_log(c->dev, GLSTARK_LOG_DEBUG,
              "gles zerocheck: %u DAG nodes -> %u instructions in %u group(s) (longest %u), %u slots (%s); %u lanes "
              "per dispatch, %u keys",
              t->dag->n_nodes, e->code.n_instr, e->code.n_groups, e->code.max_group_instr, e->code.n_slots,
              e->lpg ? "shared memory" : "work buffer", e->lanes, nkeys);
    uint64_t words = e->lpg ? 0 : (uint64_t)e->code.n_slots * lanes * (ext ? 4 : 1);
    e->acc_off = (uint32_t)words;
    e->res_off = (uint32_t)(words + 12 * lanes);
    uint64_t total = e->res_off + 12ull * nkeys;
    st = gs_buf_create(c->eng, e->code.aux_words * 4, &e->aux);
    if (!st)
        st = gs_buf_write(e->aux, 0, e->code.aux, e->code.aux_words * 4);
    if (!st)
        st = gs_buf_create(c->eng, total * 4, &e->work);
    if (!st)
        st = gs_buf_fill_u32(e->work, (size_t)e->acc_off * 4, 12 * (size_t)lanes, 0);
    if (st)
        return st;
    e->ext = ext;
    e->nu = 0;
    plan_set(e, "gs_nkeys", nkeys);
    plan_set(e, "gs_grp_off", e->code.grp_off);
    plan_set(e, "gs_lanes", e->lanes);
    plan_set(e, "gs_nslots", e->code.n_slots);
    plan_set(e, "gs_acc_off", e->acc_off);
    plan_set(e, "gs_const_off", e->code.const_off);
    plan_set(e, "gs_w_off", e->code.w_off);
    return GLSTARK_OK;
}

static glstark_status plan_init(zc_ctx *c, eval_plan *e, const gs_zc_trace *t, const gs_zc_weights *w, int ext,
                                uint64_t items, uint32_t nkeys)
{
    glstark_status st = plan_compile(c, e, t, w, ext, nkeys);
    return st ? st : plan_finish(c, e, t, ext, items);
}

/* Under a time budget a plan starts with the small work groups the
 * slow-device prior allows (gs_zc_budget_local), since the interpreter's
 * rate is not known before its first dispatches. Once they have measured
 * it (a low estimate at first, rising as the chunks grow), the plan moves
 * to the widest variant that rate allows, with the
 * recorded uniforms; the lanes and the work buffer stay as they are (a lane
 * is an index, not a place in a work group). Without this a fast GPU under
 * a budget kept 8-lane groups for a whole round (keccakf-256 with the floor
 * limits on the H200: 11.6 s against 0.69 s without the budget). */
static glstark_status plan_widen(zc_ctx *c, eval_plan *e)
{
    const uint64_t budget = c->dev->dispatch_budget_ns;
    const uint32_t full = c->dev->caps.local_size;
    if (!budget || e->lpg || e->local >= full)
        return GLSTARK_OK;
    const gs_dispatch_rate *r = gs_gl_program_rate(e->prog);
    if (!(r->rate > 0.0))
        return GLSTARK_OK;
    uint32_t l = gs_zc_budget_local(budget, r, instr_weight(e), full, e->ext);
    if (l <= e->local)
        return GLSTARK_OK;
    gs_gl_program *wide;
    glstark_status st = prog_eval(c, e->ext, 0, l, e->code.n_slots, &wide);
    if (st)
        return st;
    /* the wider variant runs the same lanes: it starts from this rate
     * (still with its own warm-up dispatch, where a driver may compile) */
    gs_dispatch_rate *wr = gs_gl_program_rate(wide);
    if (!(wr->rate > 0.0) && wr->dispatches == 0) {
        uint64_t d = wr->dispatches;
        *wr = *r;
        wr->dispatches = d;
        wr->calibrated = 0;
    }
    e->prog = wide;
    e->local = l;
    for (unsigned i = 0; i < e->nu; i++)
        set_u(wide, e->u[i].name, e->u[i].v);
    return GLSTARK_OK;
}

/* Evaluates items [i0, i1) in lane-sized dispatches; src (binding 0) and the
 * other uniforms are already set (plan_set). eq may be NULL (weight one). */
static glstark_status eval_items(zc_ctx *c, eval_plan *e, uint64_t i0, uint64_t i1, const gs_buf *eq)
{
    glstark_status st = bind_elems(c, 1, e->aux, 0, e->code.aux_words, 4, NULL);
    if (!st)
        st = bind_elems(c, 2, e->work, 0, e->work->size / 4, 4, NULL);
    for (uint64_t i = i0; !st && i < i1; i += e->items_per) {
        /* between dispatches: the rate may have become known */
        if ((st = plan_widen(c, e)))
            break;
        gs_gl_program *p = e->prog;
        uint64_t cnt = min_u64(e->items_per, i1 - i);
        uint64_t g0 = i / e->nkeys, g1 = (i + cnt - 1) / e->nkeys;
        uint32_t lead = 0;
        if (eq) {
            st = bind_elems(c, 3, eq, g0, g1 - g0 + 1, 16, &lead);
        } else {
            /* unused (weight one), but keep a valid binding */
            st = bind_elems(c, 3, e->aux, 0, e->code.aux_words - e->code.aux_words % 4, 4, NULL);
        }
        if (st)
            break;
        set_u(p, "gs_eq_on", eq ? 1 : 0);
        set_u(p, "gs_eq_lead", lead);
        set_u(p, "gs_grp_base", (uint32_t)g0);
        set_u(p, "gs_i0", (uint32_t)i);
        set_u(p, "gs_icnt", (uint32_t)cnt);
        st = gs_gl_dispatch_1d_weighted(c->dev, p, cnt * e->code.n_groups, e->local, instr_weight(e),
                                        &c->eng->err);
        if (cnt * e->code.n_groups > e->touched)
            e->touched = cnt * e->code.n_groups;
    }
    return st;
}

/* Sums the lanes by key and reads 3 nkeys extension elements into out at the
 * engine's next read (engine/read_later.h: the caller flushes, so a batch's
 * traces share one host sync). The kernel zeroes the accumulators it reads,
 * so the plan can run again. */
static glstark_status reduce_read(zc_ctx *c, eval_plan *e, bb4_t *out)
{
    gs_gl_program *p;
    glstark_status st = prog_mode(c, M_REDUCE, 0, &p);
    if (!st)
        st = bind_elems(c, 0, e->work, 0, e->work->size / 4, 4, NULL);
    if (st)
        return st;
    set_u(p, "gs_nkeys", e->nkeys);
    set_u(p, "gs_lanes", (uint32_t)e->touched);
    set_u(p, "gs_acc_off", e->acc_off);
    set_u(p, "gs_res_off", e->res_off);
    /* a work group per output (glsl/zerocheck.comp) */
    st = run_ids(c, p, 3ull * e->nkeys * c->dev->caps.local_size);
    e->touched = 0;
    const size_t bytes = 3 * (size_t)e->nkeys * sizeof(bb4_t);
    if (!st)
        st = gs_buf_read_later(e->work, (size_t)e->res_off * 4, out, bytes, 1, bytes);
    return st;
}

/* ---- round 0 ---- */

/* The eq buffer holds nx extension elements and every part its columns. */
static glstark_status r0_check(gs_engine *eng, const gs_zc_trace *t, const gs_buf *e, uint64_t nx)
{
    const uint64_t H = (uint64_t)1 << t->log_height;
    if (!e || e->size < nx * 16)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles zerocheck round 0: the eq buffer needs %" PRIu64 " extension elements", nx);
    for (uint32_t p = 0; p < t->n_parts; p++)
        if (t->parts[p]->size < ((uint64_t)gs_zc_part_offset(t, p) + (uint64_t)t->part_widths[p] * H) * 4)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "gles zerocheck round 0: part %u has %zu bytes, needs %" PRIu64, p, t->parts[p]->size,
                                ((uint64_t)gs_zc_part_offset(t, p) + (uint64_t)t->part_widths[p] * H) * 4);
    return GLSTARK_OK;
}

/* The LDE's table: twiddles w^k, w^-k (k < N/2), then the coset scales
 * g^(ij) / N, then the column map (at least one word). */
static glstark_status r0_table(zc_ctx *c, uint32_t l_skip, uint32_t n_cos, const uint32_t *col_map, uint64_t ncols,
                               gs_buf **tab)
{
    const size_t N = (size_t)1 << l_skip, ent0 = N + (size_t)n_cos * N;
    size_t words = ent0 + (ncols ? ncols : 1);
    bb_t *tw = calloc(words, sizeof(bb_t));
    if (!tw)
        return gs_error_set(&c->eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "gles zerocheck round 0: no host memory");
    bb_t om = bb_two_adic_generator(l_skip), omi = bb_inv(om), a = bb_one(), b = bb_one();
    for (size_t k = 0; k < N / 2; k++) {
        tw[k] = a;
        tw[N / 2 + k] = b;
        a = bb_mul(a, om);
        b = bb_mul(b, omi);
    }
    if (N == 1)
        tw[0] = bb_one();
    bb_t g = bb_from_u32(31), gi = g, ninv = bb_inv(bb_from_u32((uint32_t)N));
    for (uint32_t i = 0; i < n_cos; i++) {
        bb_t s = ninv;
        for (size_t j = 0; j < N; j++) {
            tw[N + (size_t)i * N + j] = s;
            s = bb_mul(s, gi);
        }
        gi = bb_mul(gi, g);
    }
    memcpy(tw + ent0, col_map, ncols * sizeof(uint32_t));
    glstark_status st = gs_buf_create(c->eng, words * 4, tab);
    if (!st)
        st = gs_buf_write(*tab, 0, tw, words * 4);
    free(tw);
    return st;
}

/* The LDE of the tile's tx x for the table columns the program reads
 * (tile columns [te, ncols), col_map ascending) from the parts: windows of
 * whole trace columns that fit one binding, skipping to the window of the
 * next column the program reads. An id weighs `weight` (gs_weight_lde). */
static glstark_status r0_lde_parts(zc_ctx *c, const gs_zc_trace *t, gs_gl_program *lde, const uint32_t *col_map,
                                  uint64_t ncols, uint64_t te, uint64_t tx, uint64_t weight)
{
    const uint64_t H = (uint64_t)1 << t->log_height;
    glstark_status st = GLSTARK_OK;
    uint64_t col = 3; /* the next tile column to make */
    for (uint32_t p = 0; !st && p < t->n_parts; p++) {
        uint64_t wdt = t->part_widths[p];
        for (uint64_t j0 = 0; !st && j0 < wdt && te < ncols && col_map[te] < col + 2 * wdt;) {
            /* skip to the window of the next column the program reads */
            if (col_map[te] >= col + 2 * j0 + 2) {
                j0 = (col_map[te] - col) / 2;
                continue;
            }
            uint64_t cw = gs_colwin_fit(&c->dev->caps, gs_zc_part_offset(t, p) + j0 * H, H, H, 4, wdt - j0, 0);
            if (cw == 0) {
                st = gs_error_set(&c->eng->err, GLSTARK_ERR_UNSUPPORTED,
                                  "gles zerocheck round 0: a column of 2^%u rows exceeds the binding limit",
                                  t->log_height);
                break;
            }
            uint64_t e_b = te;
            while (e_b < ncols && col_map[e_b] < col + 2 * (j0 + cw))
                e_b++;
            uint32_t lead = 0;
            st = bind_elems(c, 0, t->parts[p], gs_zc_part_offset(t, p) + j0 * H, cw * H, 4, &lead);
            if (st)
                break;
            set_u(lde, "gs_plead", lead);
            set_u(lde, "gs_tcol0", (uint32_t)(col + 2 * j0));
            set_u(lde, "gs_e0", (uint32_t)te);
            st = run_ids_weighted(c, lde, (e_b - te) * tx, weight);
            te = e_b;
            j0 += cw;
        }
        col += 2 * wdt;
    }
    return st;
}

static glstark_status gles_round0(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, uint32_t n_cos, int d_points,
                                  const gs_buf *e, const gs_zc_weights *w, bb4_t *out)
{
    zc_ctx c;
    ctx_init(&c, eng);
    if (l_skip > 8)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles zerocheck round 0: l_skip %u is above 8 (skip domains of at most 256 points)", l_skip);
    const uint64_t N = (uint64_t)1 << l_skip, H = (uint64_t)1 << t->log_height;
    const uint64_t nx = lifted_rows(t, l_skip) / N;
    const uint64_t n_pts = (d_points ? N : 0) + (uint64_t)n_cos * N;
    if (n_pts == 0)
        return GLSTARK_OK;
    glstark_status st = r0_check(eng, t, e, nx);
    if (st)
        return st;
    /* the program first: the tile holds only the columns it reads */
    eval_plan ep;
    gs_buf *pv = NULL, *tab = NULL;
    gs_gl_program *lde = NULL;
    st = plan_compile(&c, &ep, t, w, 0, (uint32_t)n_pts);
    if (st)
        goto done;
    const uint32_t *col_map = ep.code.col_map;
    const uint64_t ncols = ep.code.n_cols, tcols = ncols ? ncols : 1;
    /* x per LDE tile */
    uint64_t per_x = tcols * n_pts * 4, lim = min_u64(c.maxb, c.scratch);
    if (per_x > c.maxb) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                          "gles zerocheck round 0: %" PRIu64 " columns x %" PRIu64
                          " points exceed this device's binding limit; use the cpu engine",
                          ncols, n_pts);
        goto done;
    }
    uint64_t TX = lim / per_x;
    if (TX == 0)
        TX = 1;
    if (TX > nx)
        TX = nx;
    st = plan_finish(&c, &ep, t, 0, TX * n_pts);
    if (!st)
        st = gs_buf_create(eng, TX * per_x, &pv);
    const size_t ent0 = N + (size_t)n_cos * N;
    if (!st)
        st = r0_table(&c, l_skip, n_cos, col_map, ncols, &tab);
    if (!st)
        st = prog_mode(&c, M_LDE, l_skip, &lde);
    if (st)
        goto done;
    set_u(lde, "gs_hmask", (uint32_t)(H - 1));
    set_u(lde, "gs_npts", (uint32_t)n_pts);
    set_u(lde, "gs_ncos", n_cos);
    set_u(lde, "gs_dpts", d_points ? 1 : 0);
    set_u(lde, "gs_ent0", (uint32_t)ent0);
    /* tile columns [0, n_sel): the selectors, table columns 0-2 (col_map ascends) */
    uint64_t n_sel = 0;
    while (n_sel < ncols && col_map[n_sel] < 3)
        n_sel++;
    for (uint64_t x0 = 0; !st && x0 < nx; x0 += TX) {
        uint64_t tx = min_u64(TX, nx - x0);
        uint64_t pvstride = tx * n_pts;
        set_u(lde, "gs_nx", (uint32_t)tx);
        set_u(lde, "gs_x0", (uint32_t)x0);
        set_u(lde, "gs_pvstride", (uint32_t)pvstride);
        st = bind_elems(&c, 1, pv, 0, tcols * pvstride, 4, NULL);
        if (!st)
            st = bind_elems(&c, 2, tab, 0, tab->size / 4, 4, NULL);
        /* selectors */
        if (!st && n_sel)
            st = bind_elems(&c, 0, tab, 0, tab->size / 4, 4, NULL);
        if (!st && n_sel) {
            set_u(lde, "gs_sel", 1);
            set_u(lde, "gs_tcol0", 0);
            set_u(lde, "gs_e0", 0);
            st = run_ids_weighted(&c, lde, n_sel * tx, gs_weight_lde(l_skip, n_cos, d_points, 1));
        }
        set_u(lde, "gs_sel", 0);
        if (!st)
            st = r0_lde_parts(&c, t, lde, col_map, ncols, n_sel, tx, gs_weight_lde(l_skip, n_cos, d_points, 0));
        if (st)
            break;
        /* the interpreter over the tile's items */
        plan_set(&ep, "gs_tile_base", (uint32_t)(x0 * n_pts));
        plan_set(&ep, "gs_pvstride", (uint32_t)pvstride);
        st = bind_elems(&c, 0, pv, 0, tcols * pvstride, 4, NULL);
        if (!st)
            st = eval_items(&c, &ep, x0 * n_pts, (x0 + tx) * n_pts, e);
    }
    if (!st)
        st = reduce_read(&c, &ep, out);
done:
    plan_free(&ep);
    gs_buf_destroy(pv);
    gs_buf_destroy(tab);
    return st;
}

/* ---- Z fold ---- */

/* fold_ple over the part columns: windows of whole trace columns that fit
 * one binding, and of folded columns that fit another, skipping to the
 * window of the next column the folded tables hold (map ascending, folded
 * columns [3, nf) are trace columns). */
static glstark_status fold_ple_parts(zc_ctx *c, const gs_zc_trace *t, gs_gl_program *p, const uint32_t *map,
                                     uint64_t nf, uint64_t nx, uint64_t weight, gs_buf *tables)
{
    const uint64_t H = (uint64_t)1 << t->log_height;
    glstark_status st = GLSTARK_OK;
    uint64_t te = 3, col = 3; /* the next folded column; part p's first table column */
    for (uint32_t q = 0; !st && q < t->n_parts; q++) {
        const uint64_t wdt = t->part_widths[q], end = col + 2 * wdt;
        while (!st && te < nf && map[te] < end) {
            const uint64_t j0 = (map[te] - col) / 2;
            uint64_t cw = gs_colwin_fit(&c->dev->caps, gs_zc_part_offset(t, q) + j0 * H, H, H, 4, wdt - j0, 0);
            uint64_t ct = gs_colwin_fit(&c->dev->caps, te * nx, nx, nx, 16, nf - te, 0);
            if (cw == 0 || ct == 0) {
                st = gs_error_set(&c->eng->err, GLSTARK_ERR_UNSUPPORTED,
                                  "gles zerocheck fold_ple: a column of 2^%u rows exceeds the binding limit",
                                  t->log_height);
                break;
            }
            uint64_t e_b = te;
            while (e_b < nf && e_b - te < ct && map[e_b] < col + 2 * (j0 + cw))
                e_b++;
            uint32_t pl = 0, tl = 0;
            st = bind_elems(c, 0, t->parts[q], gs_zc_part_offset(t, q) + j0 * H, cw * H, 4, &pl);
            if (!st)
                st = bind_elems(c, 1, tables, te * nx, (e_b - te) * nx, 16, &tl);
            if (st)
                break;
            set_u(p, "gs_plead", pl);
            set_u(p, "gs_tlead", tl);
            set_u(p, "gs_tcol0", (uint32_t)(col + 2 * j0));
            set_u(p, "gs_e0", (uint32_t)te);
            st = run_ids_weighted(c, p, (e_b - te) * nx, weight);
            te = e_b;
        }
        col = end;
    }
    return st;
}

static glstark_status gles_fold_ple(gs_engine *eng, const gs_zc_trace *t, uint32_t l_skip, const bb4_t *lw,
                                    gs_buf *tables)
{
    zc_ctx c;
    ctx_init(&c, eng);
    if (l_skip > 8)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "gles zerocheck fold_ple: l_skip %u is above 8",
                            l_skip);
    const uint64_t N = (uint64_t)1 << l_skip;
    const uint64_t nx = lifted_rows(t, l_skip) / N;
    uint32_t *map, nf;
    glstark_status st = gs_zc_folded_layout(t, &map, &nf, &eng->err);
    if (st)
        return st;
    if (tables->size < nf * nx * 16) {
        free(map);
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "zerocheck fold_ple: table buffer has %zu bytes, needs %" PRIu64, tables->size,
                            (uint64_t)nf * nx * 16);
    }
    gs_buf *lb = NULL, *mb = NULL;
    gs_gl_program *p = NULL;
    st = gs_buf_create(eng, N * 16, &lb);
    if (!st)
        st = gs_buf_write(lb, 0, lw, N * 16);
    if (!st)
        st = gs_buf_create(eng, (uint64_t)nf * 4, &mb);
    if (!st)
        st = gs_buf_write(mb, 0, map, (uint64_t)nf * 4);
    if (!st)
        st = prog_mode(&c, M_FOLD_PLE, l_skip, &p);
    if (!st)
        st = bind_elems(&c, 2, lb, 0, N, 16, NULL);
    if (!st)
        st = bind_elems(&c, 3, mb, 0, nf, 4, NULL);
    if (st)
        goto done;
    set_u(p, "gs_hmask", (uint32_t)(((uint64_t)1 << t->log_height) - 1));
    set_u(p, "gs_nx", (uint32_t)nx);
    /* selectors: folded columns 0-2 (every layout has them) */
    uint32_t tl = 0;
    st = bind_elems(&c, 0, lb, 0, N * 4, 4, NULL);
    set_u(p, "gs_sel", 1);
    for (uint64_t s0 = 0; !st && s0 < 3;) {
        uint64_t cw = gs_colwin_fit(&c.dev->caps, s0 * nx, nx, nx, 16, 3 - s0, 0);
        if (cw == 0) {
            st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                              "gles zerocheck fold_ple: a table column of %" PRIu64 " rows exceeds the binding limit",
                              nx);
            break;
        }
        st = bind_elems(&c, 1, tables, s0 * nx, cw * nx, 16, &tl);
        if (st)
            break;
        set_u(p, "gs_tcol0", (uint32_t)s0);
        set_u(p, "gs_tlead", tl);
        st = run_ids_weighted(&c, p, cw * nx, gs_weight_fold_ple(l_skip, 1));
        s0 += cw;
    }
    set_u(p, "gs_sel", 0);
    if (!st)
        st = fold_ple_parts(&c, t, p, map, nf, nx, gs_weight_fold_ple(l_skip, 0), tables);
done:
    gs_buf_destroy(lb);
    gs_buf_destroy(mb);
    free(map);
    return st;
}

/* ---- plans kept across the multilinear rounds ----
 * Every multilinear round of a batch runs the same DAG with the same
 * weights over half the rows of the round before. Making its plan anew
 * (the compile-cache lookup, sizing, and uploading the bytecode) took
 * 0.2-0.4 ms of host time per round on the H200 with the GPU idle, ~2.9 ms
 * of a keccakf-1024 proof. So mle_round keeps its plan until the caller
 * says the rounds are over (mle_rounds_done), found again by the trace's
 * address; it is used again only for the same DAG, the same number of keys,
 * no more items than it was sized for, and equal weights (compared with the
 * weight table in its bytecode). Off desktop-class devices one plan is
 * kept, to add no more than one work buffer to a board's memory between
 * rounds; desktop-class ones keep one per trace of a batch, up to
 * ZC_KEPT_MAX plans and twice the scratch cap in buffers. */
#define ZC_KEPT_MAX 32

typedef struct kept_plan {
    const gs_zc_trace *t; /* NULL: a free entry */
    const gs_cdag *dag;
    uint64_t items; /* the most items a call may have */
    uint64_t used;  /* the clock at its last use */
    eval_plan ep;
} kept_plan;

struct gs_zc_kept {
    kept_plan e[ZC_KEPT_MAX];
    uint64_t clock;
};

static void kept_drop(kept_plan *k)
{
    plan_free(&k->ep);
    k->t = NULL;
}

void gs_gles_zc_kept_free(gs_engine *eng)
{
    gs_gles_state *s = eng->impl;
    if (!s->zc_kept)
        return;
    for (int i = 0; i < ZC_KEPT_MAX; i++)
        if (s->zc_kept->e[i].t)
            kept_drop(&s->zc_kept->e[i]);
    free(s->zc_kept);
    s->zc_kept = NULL;
}

static void gles_mle_rounds_done(gs_engine *eng) { gs_gles_zc_kept_free(eng); }

/* The kept plan for a call on trace t with nkeys keys and `items` items,
 * with its uniforms set again (another trace's plan may share its
 * program); NULL if none fits. */
static kept_plan *kept_find(zc_ctx *c, const gs_zc_trace *t, const gs_zc_weights *w, uint32_t nkeys, uint64_t items)
{
    struct gs_zc_kept *kp = ((gs_gles_state *)c->eng->impl)->zc_kept;
    if (!kp)
        return NULL;
    for (int i = 0; i < ZC_KEPT_MAX; i++) {
        kept_plan *k = &kp->e[i];
        if (k->t != t)
            continue;
        if (k->dag != t->dag || k->ep.nkeys != nkeys || items > k->items ||
            !gs_zc_code_weights_match(t, w, &k->ep.code))
            return NULL; /* replaced when this call's plan is kept */
        k->used = ++kp->clock;
        for (unsigned u = 0; u < k->ep.nu; u++)
            set_u(k->ep.prog, k->ep.u[u].name, k->ep.u[u].v);
        return k;
    }
    return NULL;
}

static uint64_t plan_bytes(const eval_plan *e)
{
    return (e->aux ? e->aux->size : 0) + (e->work ? e->work->size : 0);
}

/* Keeps *e (made for trace t and at most `items` items) in place of t's
 * earlier plan, dropping the least recently used ones while the kept
 * buffers would pass twice the scratch cap or no entry is free; e is
 * emptied either way. */
static void kept_put(zc_ctx *c, const gs_zc_trace *t, uint64_t items, eval_plan *e)
{
    gs_gles_state *s = c->eng->impl;
    const uint64_t cap = 2 * c->scratch, need = plan_bytes(e);
    if (!s->zc_kept && need <= cap)
        s->zc_kept = calloc(1, sizeof *s->zc_kept);
    if (!s->zc_kept || need > cap) {
        plan_free(e); /* keeping is optional */
        return;
    }
    kept_plan *k = s->zc_kept->e;
    const int most = c->desktop ? ZC_KEPT_MAX : 1;
    for (int i = 0; i < ZC_KEPT_MAX; i++)
        if (k[i].t == t)
            kept_drop(&k[i]);
    for (;;) {
        uint64_t bytes = 0;
        int free_at = -1, oldest = -1;
        for (int i = 0; i < most; i++) {
            if (!k[i].t) {
                if (free_at < 0)
                    free_at = i;
                continue;
            }
            bytes += plan_bytes(&k[i].ep);
            if (oldest < 0 || k[i].used < k[oldest].used)
                oldest = i;
        }
        if (free_at >= 0 && bytes + need <= cap) {
            k += free_at;
            break;
        }
        kept_drop(&k[oldest]); /* some entry is live: none free, or bytes > 0 */
    }
    k->t = t;
    k->dag = t->dag;
    k->items = items;
    k->used = ++s->zc_kept->clock;
    k->ep = *e;
    memset(e, 0, sizeof *e);
}

/* ---- multilinear rounds ---- */

static glstark_status gles_mle_round(gs_engine *eng, const gs_zc_trace *t, const gs_buf *tables, size_t stride,
                                     size_t m, const gs_buf *eq, size_t n_x, const gs_zc_weights *w, bb4_t *out)
{
    zc_ctx c;
    ctx_init(&c, eng);
    const int single = m == 1;
    if (m == 0 || (m & (m - 1)) || m > stride || n_x == 0 || (single && n_x != 1) || (!single && !eq))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles zerocheck mle round: m %zu, stride %zu, n_x %zu (need m a power of two <= stride, "
                            "n_x >= 1, n_x 1 and no eq when m is 1)",
                            m, stride, n_x);
    const uint64_t rows = m; /* live rows per column */
    const uint64_t groups = single ? 1 : m / 2;
    const uint32_t nkeys = single ? 1 : (uint32_t)n_x;
    if (!single && eq->size < groups * 16)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles zerocheck mle round: the eq buffer needs %" PRIu64 " extension elements", groups);
    eval_plan own, *e = &own;
    memset(&own, 0, sizeof own);
    kept_plan *kp = single ? NULL : kept_find(&c, t, w, nkeys, groups * nkeys);
    glstark_status st = GLSTARK_OK;
    if (kp)
        e = &kp->ep;
    else
        st = plan_init(&c, &own, t, w, 1, groups * nkeys, nkeys);
    gs_buf *gt = NULL;
    gs_gl_program *gp = NULL;
    if (st)
        goto done;
    const uint64_t ncols = e->code.n_folded;
    if (tables->size < ((ncols - 1) * stride + rows) * 16) {
        st = gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                          "gles zerocheck mle round: table buffer has %zu bytes, too small for %" PRIu64
                          " columns of stride %zu",
                          tables->size, ncols, stride);
        goto done;
    }
    plan_set(e, "gs_interp", single ? 0 : 1);
    uint64_t span = (ncols - 1) * stride + rows;
    if (span * 16 <= c.maxb) {
        uint32_t lead = 0;
        st = bind_elems(&c, 0, tables, 0, span, 16, &lead);
        if (st)
            goto done;
        plan_set(e, "gs_tlead", lead);
        plan_set(e, "gs_tstride", (uint32_t)stride);
        plan_set(e, "gs_row_base", 0);
        st = eval_items(&c, e, 0, groups * nkeys, single ? NULL : eq);
    } else {
        /* gathered tiles of R rows (R/2 groups) of every column */
        uint64_t lim = (min_u64(c.maxb, c.scratch) - c.align) / 16 / ncols;
        uint64_t R = 1;
        while (R * 2 <= lim && R * 2 <= rows)
            R *= 2;
        if (R < (single ? 1u : 2u)) {
            st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                              "gles zerocheck mle round: %" PRIu64 " columns do not fit one binding even two rows at "
                              "a time; use the cpu engine",
                              ncols);
            goto done;
        }
        uint64_t gpt = single ? 1 : R / 2;
        gs_gl_log(c.dev, GLSTARK_LOG_DEBUG,
                  "gles zerocheck mle round: %" PRIu64 " columns exceed one binding; gathering %" PRIu64
                  " rows per tile",
                  ncols, R);
        st = gs_buf_create(eng, ncols * R * 16, &gt);
        if (!st)
            st = prog_mode(&c, M_GATHER, 0, &gp);
        for (uint64_t g0 = 0; !st && g0 < groups; g0 += gpt) {
            uint64_t r0 = single ? 0 : 2 * g0, nr = min_u64(R, rows - r0);
            set_u(gp, "gs_half", (uint32_t)R);
            set_u(gp, "gs_nx", (uint32_t)nr);
            set_u(gp, "gs_stride", (uint32_t)stride);
            set_u(gp, "gs_r0", 0);
            st = bind_elems(&c, 1, gt, 0, ncols * R, 16, NULL);
            for (uint64_t c0 = 0; !st && c0 < ncols;) {
                uint64_t cw = gs_colwin_fit(&c.dev->caps, c0 * stride + r0, stride, nr, 16, ncols - c0, 0);
                if (cw == 0) {
                    st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                                      "gles zerocheck mle round: %" PRIu64 " rows of one column do not fit a binding",
                                      nr);
                    break;
                }
                uint32_t lead = 0;
                st = bind_elems(&c, 0, tables, c0 * stride + r0, (cw - 1) * stride + nr, 16, &lead);
                if (st)
                    break;
                set_u(gp, "gs_tlead", lead);
                set_u(gp, "gs_tcol0", (uint32_t)c0);
                st = run_ids(&c, gp, cw * nr);
                c0 += cw;
            }
            if (st)
                break;
            st = bind_elems(&c, 0, gt, 0, ncols * R, 16, NULL);
            if (st)
                break;
            plan_set(e, "gs_tlead", 0);
            plan_set(e, "gs_tstride", (uint32_t)R);
            plan_set(e, "gs_row_base", (uint32_t)g0);
            uint64_t g1 = min_u64(groups, g0 + gpt);
            st = eval_items(&c, e, g0 * nkeys, g1 * nkeys, single ? NULL : eq);
        }
    }
    if (!st)
        st = reduce_read(&c, e, out);
    if (!st)
        for (size_t i = 3 * (size_t)nkeys; i < 3 * n_x; i++)
            out[i] = bb4_zero();
done:
    if (kp && st)
        kept_drop(kp); /* its accumulators may hold part of this call's sums */
    else if (!kp && !single && !st)
        kept_put(&c, t, groups * nkeys, &own);
    plan_free(&own);
    gs_buf_destroy(gt);
    return st;
}

static glstark_status gles_fold(gs_engine *eng, gs_buf *tables, size_t n_cols, size_t stride, size_t m, bb4_t r)
{
    zc_ctx c;
    ctx_init(&c, eng);
    if (m < 2 || n_cols == 0)
        return GLSTARK_OK;
    if (m > stride || tables->size < ((n_cols - 1) * stride + m) * 16)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "gles zerocheck fold: %zu columns of stride %zu, %zu rows do not fit %zu bytes", n_cols,
                            stride, m, tables->size);
    const uint64_t half = m / 2;
    /* off desktop-class devices the columns go through a scratch of at most
     * GS_CW_FOLD_SCRATCH_BYTES, as in gs_gles_fold_cols: the first fold's
     * half of every column beside the table was 44.7 MiB of the board
     * profile's multilinear rounds at keccakf-1024 */
    const uint64_t cap = c.desktop ? c.scratch : GS_CW_FOLD_SCRATCH_BYTES;
    uint64_t cw_max = gs_colwin_fit(&c.dev->caps, 0, half, half, 16, n_cols, cap);
    if (cw_max == 0)
        cw_max = 1;
    gs_buf *s = NULL;
    gs_gl_program *pf = NULL, *pc = NULL;
    glstark_status st = gs_buf_create(eng, cw_max * half * 16, &s);
    if (!st)
        st = prog_mode(&c, M_FOLD, 0, &pf);
    if (!st)
        st = prog_mode(&c, M_COPY, 0, &pc);
    if (st)
        goto done;
    for (int k = 0; k < 2; k++) {
        gs_gl_program *p = k ? pc : pf;
        set_u(p, "gs_half", (uint32_t)half);
        set_u(p, "gs_stride", (uint32_t)stride);
    }
    glProgramUniform4ui(gs_gl_program_name(pf), gs_gl_program_uniform(pf, "gs_r"), r.c[0], r.c[1], r.c[2], r.c[3]);
    for (uint64_t c0 = 0; !st && c0 < n_cols;) {
        uint64_t cw = gs_colwin_fit(&c.dev->caps, c0 * stride, stride, m, 16, n_cols - c0, 0);
        if (cw > cw_max)
            cw = cw_max;
        if (cw == 0) {
            st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                              "gles zerocheck fold: a column of %zu rows exceeds the binding limit", m);
            break;
        }
        uint32_t lead = 0;
        st = bind_elems(&c, 0, tables, c0 * stride, (cw - 1) * stride + m, 16, &lead);
        if (!st)
            st = bind_elems(&c, 1, s, 0, cw * half, 16, NULL);
        if (st)
            break;
        set_u(pf, "gs_tlead", lead);
        set_u(pc, "gs_tlead", lead);
        st = run_ids(&c, pf, cw * half);
        if (!st)
            st = run_ids(&c, pc, cw * half);
        c0 += cw;
    }
done:
    gs_buf_destroy(s);
    return st;
}

/* Round 0's program and the rounds', as plan_compile first asks for them. */
static void gles_compile_ahead(gs_engine *eng, const gs_zc_trace *traces, uint32_t n)
{
    zc_ctx c;
    ctx_init(&c, eng);
    const gs_zc_variant v[2] = {{groups_for(&c, 0), cols_for(0)}, {groups_for(&c, 1), cols_for(1)}};
    gs_zc_cache_compile_ahead(&((gs_gles_state *)eng->impl)->zc_cache, traces, n, v, 2);
}

static void gles_compile_wait(gs_engine *eng) { gs_zc_cache_wait(((gs_gles_state *)eng->impl)->zc_cache); }

const gs_zerocheck_ops gs_gles_zerocheck_ops = {
    .round0 = gles_round0,
    .fold_ple = gles_fold_ple,
    .mle_round = gles_mle_round,
    .fold = gles_fold,
    .mle_rounds_done = gles_mle_rounds_done,
    .compile_ahead = gles_compile_ahead,
    .compile_wait = gles_compile_wait,
};
