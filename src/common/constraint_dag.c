/* Straight-line evaluation of a constraint DAG (node order = evaluation order). */
#include "common/constraint_dag.h"

void gs_cdag_eval_base(const gs_cdag *d, const gs_cdag_env_base *env, bb_t *out)
{
    size_t stride = env->stride ? env->stride : 1;
    for (uint32_t i = 0; i < d->n_nodes; i++) {
        const gs_cnode *n = &d->nodes[i];
        bb_t v = 0;
        switch (n->kind) {
        case GS_CN_VAR_PREP:
        case GS_CN_VAR_MAIN:
            v = env->cols[gs_cdag_part_of(d, n)][(2 * (size_t)n->a + n->offset) * stride];
            break;
        case GS_CN_PUBLIC: v = env->publics[n->a]; break;
        case GS_CN_IS_FIRST: v = env->sel[0]; break;
        case GS_CN_IS_LAST: v = env->sel[1]; break;
        case GS_CN_IS_TRANSITION: v = env->sel[2]; break;
        case GS_CN_CONST: v = n->value; break;
        case GS_CN_ADD: v = bb_add(out[n->a], out[n->b]); break;
        case GS_CN_SUB: v = bb_sub(out[n->a], out[n->b]); break;
        case GS_CN_NEG: v = bb_neg(out[n->a]); break;
        case GS_CN_MUL: v = bb_mul(out[n->a], out[n->b]); break;
        default: break;
        }
        out[i] = v;
    }
}

void gs_cdag_eval_ext(const gs_cdag *d, const gs_cdag_env_ext *env, bb4_t *out)
{
    for (uint32_t i = 0; i < d->n_nodes; i++) {
        const gs_cnode *n = &d->nodes[i];
        bb4_t v = bb4_zero();
        switch (n->kind) {
        case GS_CN_VAR_PREP:
        case GS_CN_VAR_MAIN:
            v = env->cols[gs_cdag_part_of(d, n)][2 * (size_t)n->a + n->offset];
            break;
        case GS_CN_PUBLIC: v = bb4_from_base(env->publics[n->a]); break;
        case GS_CN_IS_FIRST: v = env->sel[0]; break;
        case GS_CN_IS_LAST: v = env->sel[1]; break;
        case GS_CN_IS_TRANSITION: v = env->sel[2]; break;
        case GS_CN_CONST: v = bb4_from_base(n->value); break;
        case GS_CN_ADD: v = bb4_add(out[n->a], out[n->b]); break;
        case GS_CN_SUB: v = bb4_sub(out[n->a], out[n->b]); break;
        case GS_CN_NEG: v = bb4_neg(out[n->a]); break;
        case GS_CN_MUL: v = bb4_mul(out[n->a], out[n->b]); break;
        default: break;
        }
        out[i] = v;
    }
}

int gs_cdag_check(const gs_cdag *d, const uint32_t *part_widths, uint32_t n_parts, uint32_t n_publics)
{
    for (uint32_t i = 0; i < d->n_nodes; i++) {
        const gs_cnode *n = &d->nodes[i];
        switch (n->kind) {
        case GS_CN_VAR_PREP:
        case GS_CN_VAR_MAIN: {
            int p = gs_cdag_part_of(d, n);
            if (p < 0 || (uint32_t)p >= n_parts || n->a >= part_widths[p] || n->offset > 1)
                return -1;
            break;
        }
        case GS_CN_PUBLIC:
            if (n->a >= n_publics)
                return -1;
            break;
        case GS_CN_ADD:
        case GS_CN_SUB:
        case GS_CN_MUL:
            if (n->a >= i || n->b >= i)
                return -1;
            break;
        case GS_CN_NEG:
            if (n->a >= i)
                return -1;
            break;
        case GS_CN_IS_FIRST:
        case GS_CN_IS_LAST:
        case GS_CN_IS_TRANSITION:
        case GS_CN_CONST:
            break;
        default:
            return -1;
        }
    }
    for (uint32_t i = 0; i < d->n_constraints; i++)
        if (d->constraint_idx[i] >= d->n_nodes)
            return -1;
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        const gs_cinteraction *it = &d->interactions[k];
        if (it->count >= d->n_nodes)
            return -1;
        for (uint32_t j = 0; j < it->message_len; j++)
            if (it->message[j] >= d->n_nodes)
                return -1;
    }
    return 0;
}
