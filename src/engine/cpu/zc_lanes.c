/* Lane interpreter of compiled constraint programs (zc_lanes.h). */
#include "engine/cpu/zc_lanes.h"

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

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GLSTARK_NO_SIMD)
#include "field/babybear_avx512.h"
#define HAVE_AVX512_PATH 1

typedef struct v4 {
    __m512i c[4];
} v4;

BB16_FN v4 v4_load(const bb_t *blk)
{
    v4 r;
    for (int k = 0; k < 4; k++)
        r.c[k] = _mm512_loadu_si512(blk + k * L);
    return r;
}

BB16_FN void v4_store(bb_t *blk, v4 v)
{
    for (int k = 0; k < 4; k++)
        _mm512_storeu_si512(blk + k * L, v.c[k]);
}

BB16_FN v4 v4_bcast(bb4_t w)
{
    v4 r;
    for (int k = 0; k < 4; k++)
        r.c[k] = _mm512_set1_epi32((int)w.c[k]);
    return r;
}

BB16_FN v4 v4_add(v4 a, v4 b)
{
    for (int k = 0; k < 4; k++)
        a.c[k] = bb16_add(a.c[k], b.c[k]);
    return a;
}

BB16_FN v4 v4_sub(v4 a, v4 b)
{
    for (int k = 0; k < 4; k++)
        a.c[k] = bb16_sub(a.c[k], b.c[k]);
    return a;
}

BB16_FN v4 v4_mul_base(v4 a, __m512i s)
{
    for (int k = 0; k < 4; k++)
        a.c[k] = bb16_mul(a.c[k], s);
    return a;
}

/* The schoolbook product with X^4 = 11, as bb4_mul. */
BB16_FN v4 v4_mul(v4 a, v4 b)
{
    const __m512i w = _mm512_set1_epi32(0x37FFFFE9); /* Montgomery form of 11 */
    v4 r;
    __m512i t0 = bb16_add(bb16_add(bb16_mul(a.c[1], b.c[3]), bb16_mul(a.c[2], b.c[2])), bb16_mul(a.c[3], b.c[1]));
    r.c[0] = bb16_add(bb16_mul(a.c[0], b.c[0]), bb16_mul(w, t0));
    __m512i t1 = bb16_add(bb16_mul(a.c[2], b.c[3]), bb16_mul(a.c[3], b.c[2]));
    r.c[1] = bb16_add(bb16_add(bb16_mul(a.c[0], b.c[1]), bb16_mul(a.c[1], b.c[0])), bb16_mul(w, t1));
    r.c[2] = bb16_add(bb16_add(bb16_add(bb16_mul(a.c[0], b.c[2]), bb16_mul(a.c[1], b.c[1])), bb16_mul(a.c[2], b.c[0])),
                      bb16_mul(w, bb16_mul(a.c[3], b.c[3])));
    r.c[3] = bb16_add(bb16_add(bb16_mul(a.c[0], b.c[3]), bb16_mul(a.c[1], b.c[2])),
                      bb16_add(bb16_mul(a.c[2], b.c[1]), bb16_mul(a.c[3], b.c[0])));
    return r;
}

__attribute__((target("avx512f"))) static void run_avx512(gs_zc_lanes *lp, const bb_t *cols, bb_t acc[3][GS_ZC_BLOCK])
{
    const gs_zc_code *c = lp->code;
    const uint32_t *g = c->aux + 4 * (size_t)c->grp_off;
    v4 ac[3] = {v4_bcast(bb4_zero()), v4_bcast(bb4_zero()), v4_bcast(weight(c, 0))};
    for (uint32_t pc = g[0]; pc < g[1]; pc++) {
        const uint32_t *ins = c->aux + 4 * (size_t)pc;
        uint32_t op = ins[0], dst = ins[1], a = ins[2], b = ins[3];
        const bb_t *x = operand(lp, cols, a);
        if (op == GS_ZC_OP_ACC) {
            ac[dst] = v4_add(ac[dst], v4_mul(v4_bcast(weight(c, b)), v4_load(x)));
            continue;
        }
        bb_t *r = lp->work + (size_t)dst * GS_ZC_BLOCK;
        if (op == GS_ZC_OP_NEG) {
            v4_store(r, v4_sub(v4_bcast(bb4_zero()), v4_load(x)));
            continue;
        }
        const bb_t *y = operand(lp, cols, b);
        v4 o;
        switch (op) {
        case GS_ZC_OP_ADD: o = v4_add(v4_load(x), v4_load(y)); break;
        case GS_ZC_OP_SUB: o = v4_sub(v4_load(x), v4_load(y)); break;
        default:
            if (GS_ZC_OPND_KIND(b) == GS_ZC_OPND_CONST)
                o = v4_mul_base(v4_load(x), _mm512_loadu_si512(y));
            else if (GS_ZC_OPND_KIND(a) == GS_ZC_OPND_CONST)
                o = v4_mul_base(v4_load(y), _mm512_loadu_si512(x));
            else
                o = v4_mul(v4_load(x), v4_load(y));
            break;
        }
        v4_store(r, o);
    }
    for (int i = 0; i < 3; i++)
        v4_store(acc[i], ac[i]);
}

__attribute__((target("avx512f"))) static void run_base_avx512(gs_zc_lanes *lp, const bb_t *cols, size_t col_stride,
                                                              bb_t acc[3][GS_ZC_BLOCK])
{
    const gs_zc_code *c = lp->code;
    const uint32_t *g = c->aux + 4 * (size_t)c->grp_off;
    v4 ac[3] = {v4_bcast(bb4_zero()), v4_bcast(bb4_zero()), v4_bcast(weight(c, 0))};
    const __m512i zero = _mm512_setzero_si512();
    for (uint32_t pc = g[0]; pc < g[1]; pc++) {
        const uint32_t *ins = c->aux + 4 * (size_t)pc;
        uint32_t op = ins[0], dst = ins[1], a = ins[2], b = ins[3];
        __m512i x = _mm512_loadu_si512(operand_base(lp, cols, col_stride, a));
        if (op == GS_ZC_OP_ACC) {
            bb4_t w = weight(c, b);
            for (int k = 0; k < 4; k++)
                ac[dst].c[k] = bb16_add(ac[dst].c[k], bb16_mul(x, _mm512_set1_epi32((int)w.c[k])));
            continue;
        }
        bb_t *r = lp->work + (size_t)dst * L;
        if (op == GS_ZC_OP_NEG) {
            _mm512_storeu_si512(r, bb16_sub(zero, x));
            continue;
        }
        __m512i y = _mm512_loadu_si512(operand_base(lp, cols, col_stride, b));
        __m512i o = op == GS_ZC_OP_ADD ? bb16_add(x, y) : op == GS_ZC_OP_SUB ? bb16_sub(x, y) : bb16_mul(x, y);
        _mm512_storeu_si512(r, o);
    }
    for (int i = 0; i < 3; i++)
        v4_store(acc[i], ac[i]);
}
#endif

void gs_zc_lanes_run_base(gs_zc_lanes *lp, const bb_t *cols, size_t col_stride, bb_t acc[3][GS_ZC_BLOCK])
{
#ifdef HAVE_AVX512_PATH
    if (lp->vector) {
        run_base_avx512(lp, cols, col_stride, acc);
        return;
    }
#endif
    run_base_portable(lp, cols, col_stride, acc);
}

int gs_zc_lanes_vector_available(void)
{
#ifdef HAVE_AVX512_PATH
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

void gs_zc_lanes_free(gs_zc_lanes *lp)
{
    free(lp->work);
    free(lp->consts);
    memset(lp, 0, sizeof *lp);
}

int gs_zc_lanes_init(gs_zc_lanes *lp, const gs_zc_code *code, int vector)
{
    memset(lp, 0, sizeof *lp);
    if (vector && !gs_zc_lanes_vector_available())
        return -1;
    lp->code = code;
    lp->vector = vector;
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
#ifdef HAVE_AVX512_PATH
    if (lp->vector) {
        run_avx512(lp, cols, acc);
        return;
    }
#endif
    run_portable(lp, cols, acc);
}
