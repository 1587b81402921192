/* Lane interpreter of compiled constraint programs (zc_lanes.h). */
#include "engine/cpu/zc_lanes.h"

#include "engine/cpu/kernels.h"

#include <stdlib.h>
#include <string.h>

#define L GS_ZC_LANES

static const bb_t *operand(const gs_zc_lanes *lp, const bb_t *cols, uint32_t op)
{
    size_t i = GS_ZC_OPND_INDEX(op);
    switch (GS_ZC_OPND_KIND(op)) {
    case GS_ZC_OPND_SLOT: return lp->work + i * GS_ZC_BLOCK;
    case GS_ZC_OPND_COL: return cols + i * GS_ZC_BLOCK;
    default: return lp->consts + i * GS_ZC_BLOCK;
    }
}

static bb4_t weight(const gs_zc_code *c, uint32_t w)
{
    bb4_t r;
    memcpy(&r, c->aux + 4 * ((size_t)c->w_off + w), sizeof r);
    return r;
}

#define lane_get gs_zc_lane_get
#define lane_put gs_zc_lane_put

static void run_portable(gs_zc_lanes *lp, const bb_t *cols, bb_t acc[3][GS_ZC_BLOCK])
{
    const gs_zc_code *c = lp->code;
    const uint32_t *g = c->aux + 4 * (size_t)c->grp_off;
    for (int j = 0; j < L; j++) {
        lane_put(acc[0], j, bb4_zero());
        lane_put(acc[1], j, bb4_zero());
        lane_put(acc[2], j, weight(c, 0)); /* the denominators' constant part */
    }
    for (uint32_t pc = g[0]; pc < g[1]; pc++) {
        const uint32_t *ins = c->aux + 4 * (size_t)pc;
        uint32_t op = ins[0], dst = ins[1], a = ins[2], b = ins[3];
        const bb_t *x = operand(lp, cols, a);
        if (op == GS_ZC_OP_ACC) {
            bb4_t w = weight(c, b);
            for (int j = 0; j < L; j++)
                lane_put(acc[dst], j, bb4_add(lane_get(acc[dst], j), bb4_mul(w, lane_get(x, j))));
            continue;
        }
        bb_t *r = lp->work + (size_t)dst * GS_ZC_BLOCK;
        if (op == GS_ZC_OP_NEG) {
            for (int j = 0; j < L; j++)
                lane_put(r, j, bb4_neg(lane_get(x, j)));
            continue;
        }
        const bb_t *y = operand(lp, cols, b);
        int xc = GS_ZC_OPND_KIND(a) == GS_ZC_OPND_CONST, yc = GS_ZC_OPND_KIND(b) == GS_ZC_OPND_CONST;
        for (int j = 0; j < L; j++) {
            bb4_t u = lane_get(x, j), v = lane_get(y, j), o;
            switch (op) {
            case GS_ZC_OP_ADD: o = bb4_add(u, v); break;
            case GS_ZC_OP_SUB: o = bb4_sub(u, v); break;
            default: o = yc ? bb4_mul_base(u, v.c[0]) : xc ? bb4_mul_base(v, u.c[0]) : bb4_mul(u, v); break;
            }
            lane_put(r, j, o);
        }
    }
}

/* Base-field operands: slots are GS_ZC_LANES words apart, columns col_stride. */
static const bb_t *operand_base(const gs_zc_lanes *lp, const bb_t *cols, size_t col_stride, uint32_t op)
{
    size_t i = GS_ZC_OPND_INDEX(op);
    switch (GS_ZC_OPND_KIND(op)) {
    case GS_ZC_OPND_SLOT: return lp->work + i * L;
    case GS_ZC_OPND_COL: return cols + i * col_stride;
    default: return lp->consts + i * GS_ZC_BLOCK; /* its first L words: the constant in every lane */
    }
}

static void run_base_portable(gs_zc_lanes *lp, const bb_t *cols, size_t col_stride, bb_t acc[3][GS_ZC_BLOCK])
{
    const gs_zc_code *c = lp->code;
    const uint32_t *g = c->aux + 4 * (size_t)c->grp_off;
    for (int j = 0; j < L; j++) {
        lane_put(acc[0], j, bb4_zero());
        lane_put(acc[1], j, bb4_zero());
        lane_put(acc[2], j, weight(c, 0));
    }
    for (uint32_t pc = g[0]; pc < g[1]; pc++) {
        const uint32_t *ins = c->aux + 4 * (size_t)pc;
        uint32_t op = ins[0], dst = ins[1], a = ins[2], b = ins[3];
        const bb_t *x = operand_base(lp, cols, col_stride, a);
        if (op == GS_ZC_OP_ACC) {
            bb4_t w = weight(c, b);
            for (int k = 0; k < 4; k++)
                for (int j = 0; j < L; j++)
                    acc[dst][k * L + j] = bb_add(acc[dst][k * L + j], bb_mul(w.c[k], x[j]));
            continue;
        }
        bb_t *r = lp->work + (size_t)dst * L;
        if (op == GS_ZC_OP_NEG) {
            for (int j = 0; j < L; j++)
                r[j] = bb_neg(x[j]);
            continue;
        }
        const bb_t *y = operand_base(lp, cols, col_stride, b);
        switch (op) {
        case GS_ZC_OP_ADD:
            for (int j = 0; j < L; j++)
                r[j] = bb_add(x[j], y[j]);
            break;
        case GS_ZC_OP_SUB:
            for (int j = 0; j < L; j++)
                r[j] = bb_sub(x[j], y[j]);
            break;
        default:
            for (int j = 0; j < L; j++)
                r[j] = bb_mul(x[j], y[j]);
            break;
        }
    }
}

#define GS_X16_TEMPLATE "engine/cpu/zc_lanes_x16.inc"
#include "field/x16_instantiate.h"

void gs_zc_lanes_run_base(gs_zc_lanes *lp, const bb_t *cols, size_t col_stride, bb_t acc[3][GS_ZC_BLOCK])
{
    if (lp->k->zc_run_base)
        lp->k->zc_run_base(lp, cols, col_stride, acc);
    else
        run_base_portable(lp, cols, col_stride, acc);
}

void gs_zc_lanes_free(gs_zc_lanes *lp)
{
    free(lp->work);
    free(lp->consts);
    memset(lp, 0, sizeof *lp);
}

int gs_zc_lanes_init(gs_zc_lanes *lp, const gs_zc_code *code, const gs_cpu_kernels *k)
{
    memset(lp, 0, sizeof *lp);
    if (!k)
        return -1;
    lp->code = code;
    lp->k = k;
    lp->n_consts = 4 * (code->w_off - code->const_off); /* the padded constant area */
    lp->work = malloc(((size_t)code->n_slots + 1) * GS_ZC_BLOCK * sizeof(bb_t));
    lp->consts = calloc(((size_t)lp->n_consts + 1) * GS_ZC_BLOCK, sizeof(bb_t));
    if (!lp->work || !lp->consts) {
        gs_zc_lanes_free(lp);
        return -1;
    }
    const uint32_t *cv = code->aux + 4 * (size_t)code->const_off;
    for (uint32_t i = 0; i < lp->n_consts; i++)
        for (int j = 0; j < L; j++)
            lp->consts[(size_t)i * GS_ZC_BLOCK + j] = cv[i]; /* components 1..3 stay 0 */
    return 0;
}

void gs_zc_lanes_run(gs_zc_lanes *lp, const bb_t *cols, bb_t acc[3][GS_ZC_BLOCK])
{
    if (lp->k->zc_run)
        lp->k->zc_run(lp, cols, acc);
    else
        run_portable(lp, cols, acc);
}
