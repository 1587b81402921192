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

/* op (GS_ZC_OP_ADD, _SUB or _MUL) on extension elements; uc / vc: the
 * operand is a base-field constant (a cheaper product). */
static bb4_t ext_op(uint32_t op, bb4_t u, bb4_t v, int uc, int vc)
{
    switch (op) {
    case GS_ZC_OP_ADD: return bb4_add(u, v);
    case GS_ZC_OP_SUB: return bb4_sub(u, v);
    default: return vc ? bb4_mul_base(u, v.c[0]) : uc ? bb4_mul_base(v, u.c[0]) : bb4_mul(u, v);
    }
}

/* A fused second operation (GS_ZC_OP2_ADD .. _MUL) on the first's result t. */
static bb4_t ext_op2(uint32_t op2, bb4_t t, bb4_t c, int cc)
{
    switch (op2) {
    case GS_ZC_OP2_ADD: return bb4_add(t, c);
    case GS_ZC_OP2_SUB: return bb4_sub(t, c);
    case GS_ZC_OP2_RSUB: return bb4_sub(c, t);
    default: return ext_op(GS_ZC_OP_MUL, t, c, 0, cc);
    }
}

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
        uint32_t op = GS_ZC_INS_OP(ins[0]), op2 = GS_ZC_INS_OP2(ins[0]), dst = ins[1], a = ins[2], b = ins[3];
        const bb_t *x = operand(lp, cols, a);
        if (op == GS_ZC_OP_ACC) {
            bb4_t w = weight(c, b);
            for (int j = 0; j < L; j++)
                lane_put(acc[dst], j, bb4_add(lane_get(acc[dst], j), bb4_mul(w, lane_get(x, j))));
            continue;
        }
        const bb_t *y = op == GS_ZC_OP_NEG ? x : operand(lp, cols, b);
        int xc = GS_ZC_OPND_KIND(a) == GS_ZC_OPND_CONST, yc = GS_ZC_OPND_KIND(b) == GS_ZC_OPND_CONST;
        uint32_t cw = GS_ZC_INS_C(ins[0]);
        int fused_value = op2 != GS_ZC_OP2_NONE && op2 != GS_ZC_OP2_ACC;
        const bb_t *z = fused_value ? operand(lp, cols, cw) : NULL;
        int zc = GS_ZC_OPND_KIND(cw) == GS_ZC_OPND_CONST;
        bb4_t w = op2 == GS_ZC_OP2_ACC ? weight(c, GS_ZC_OPND_INDEX(cw)) : bb4_zero();
        bb_t *r = lp->work + (size_t)dst * GS_ZC_BLOCK;
        /* lane by lane: the result's slot may be an operand's (each lane reads its operands first) */
        for (int j = 0; j < L; j++) {
            bb4_t u = lane_get(x, j);
            bb4_t o = op == GS_ZC_OP_NEG ? bb4_neg(u) : ext_op(op, u, lane_get(y, j), xc, yc);
            if (op2 == GS_ZC_OP2_ACC)
                lane_put(acc[dst], j, bb4_add(lane_get(acc[dst], j), bb4_mul(w, o)));
            else
                lane_put(r, j, fused_value ? ext_op2(op2, o, lane_get(z, j), zc) : o);
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

static bb_t base_op(uint32_t op, bb_t u, bb_t v)
{
    return op == GS_ZC_OP_ADD ? bb_add(u, v) : op == GS_ZC_OP_SUB ? bb_sub(u, v) : bb_mul(u, v);
}

static bb_t base_op2(uint32_t op2, bb_t t, bb_t c)
{
    switch (op2) {
    case GS_ZC_OP2_ADD: return bb_add(t, c);
    case GS_ZC_OP2_SUB: return bb_sub(t, c);
    case GS_ZC_OP2_RSUB: return bb_sub(c, t);
    default: return bb_mul(t, c);
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
        uint32_t op = GS_ZC_INS_OP(ins[0]), op2 = GS_ZC_INS_OP2(ins[0]), dst = ins[1], a = ins[2], b = ins[3];
        const bb_t *x = operand_base(lp, cols, col_stride, a);
        const bb_t *v = x; /* the values an accumulate adds, with weight w_index */
        uint32_t w_index = b;
        bb_t t[L];
        if (op != GS_ZC_OP_ACC) {
            const bb_t *y = op == GS_ZC_OP_NEG ? x : operand_base(lp, cols, col_stride, b);
            for (int j = 0; j < L; j++)
                t[j] = op == GS_ZC_OP_NEG ? bb_neg(x[j]) : base_op(op, x[j], y[j]);
            const uint32_t cw = GS_ZC_INS_C(ins[0]);
            if (op2 != GS_ZC_OP2_ACC) {
                if (op2 != GS_ZC_OP2_NONE) {
                    const bb_t *z = operand_base(lp, cols, col_stride, cw);
                    for (int j = 0; j < L; j++)
                        t[j] = base_op2(op2, t[j], z[j]);
                }
                memcpy(lp->work + (size_t)dst * L, t, sizeof t); /* after every read: dst may be an operand's slot */
                continue;
            }
            v = t, w_index = GS_ZC_OPND_INDEX(cw);
        }
        bb4_t w = weight(c, w_index);
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < L; j++)
                acc[dst][k * L + j] = bb_add(acc[dst][k * L + j], bb_mul(w.c[k], v[j]));
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
