#include "protocol/cdag_vk.h"

#include <stdlib.h>
#include <string.h>

void gs_cdag_vk_free(gs_cdag_vk *o)
{
    free(o->nodes);
    free(o->constraint_idx);
    free(o->interactions);
    free(o->messages);
    memset(o, 0, sizeof(*o));
}

glstark_status gs_cdag_from_air_vk(const gs_air_vk *vk, gs_cdag_vk *out, gs_error *err)
{
    memset(out, 0, sizeof(*out));
    const gs_dag *d = &vk->dag;
    if (d->num_nodes > UINT32_MAX || d->num_constraints > UINT32_MAX || d->num_interactions > UINT32_MAX)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "constraint DAG: too many nodes");
    size_t n_msg = 0;
    for (size_t k = 0; k < d->num_interactions; k++)
        n_msg += d->interactions[k].message_len;
    out->nodes = calloc(d->num_nodes + 1, sizeof(gs_cnode));
    out->constraint_idx = calloc(d->num_constraints + 1, sizeof(uint32_t));
    out->interactions = calloc(d->num_interactions + 1, sizeof(gs_cinteraction));
    out->messages = calloc(n_msg + 1, sizeof(uint32_t));
    if (!out->nodes || !out->constraint_idx || !out->interactions || !out->messages) {
        gs_cdag_vk_free(out);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint DAG: allocation failed");
    }
    for (size_t i = 0; i < d->num_nodes; i++) {
        const gs_dag_node *s = &d->nodes[i];
        gs_cnode *n = &out->nodes[i];
        switch (s->kind) {
        case GS_NODE_VAR:
            n->a = s->var.index;
            n->offset = (uint8_t)s->var.offset;
            if (s->var.offset > 1) {
                gs_cdag_vk_free(out);
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "constraint DAG: node %zu has row offset %u (> 1)",
                                    i, s->var.offset);
            }
            if (s->var.entry == GS_ENTRY_PREPROCESSED)
                n->kind = GS_CN_VAR_PREP;
            else if (s->var.entry == GS_ENTRY_MAIN) {
                n->kind = GS_CN_VAR_MAIN;
                n->part = (uint16_t)s->var.part_index;
            } else if (s->var.entry == GS_ENTRY_PUBLIC)
                n->kind = GS_CN_PUBLIC;
            else {
                gs_cdag_vk_free(out);
                return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                                    "constraint DAG: node %zu is a Challenge variable, which the SWIRL prover does not support",
                                    i);
            }
            break;
        case GS_NODE_IS_FIRST_ROW: n->kind = GS_CN_IS_FIRST; break;
        case GS_NODE_IS_LAST_ROW: n->kind = GS_CN_IS_LAST; break;
        case GS_NODE_IS_TRANSITION: n->kind = GS_CN_IS_TRANSITION; break;
        case GS_NODE_CONST:
            n->kind = GS_CN_CONST;
            n->value = s->constant;
            break;
        case GS_NODE_ADD:
        case GS_NODE_SUB:
        case GS_NODE_MUL:
            n->kind = s->kind == GS_NODE_ADD ? GS_CN_ADD : s->kind == GS_NODE_SUB ? GS_CN_SUB : GS_CN_MUL;
            n->a = s->left;
            n->b = s->right;
            break;
        case GS_NODE_NEG:
            n->kind = GS_CN_NEG;
            n->a = s->left;
            break;
        default:
            gs_cdag_vk_free(out);
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "constraint DAG: node %zu has unknown kind %u", i, s->kind);
        }
    }
    for (size_t i = 0; i < d->num_constraints; i++)
        out->constraint_idx[i] = d->constraint_idx[i];
    size_t m = 0;
    for (size_t k = 0; k < d->num_interactions; k++) {
        const gs_dag_interaction *s = &d->interactions[k];
        gs_cinteraction *it = &out->interactions[k];
        it->message = out->messages + m;
        it->message_len = (uint32_t)s->message_len;
        for (size_t j = 0; j < s->message_len; j++)
            out->messages[m++] = s->message[j];
        it->count = s->count;
        it->bus_index = s->bus_index;
    }
    gs_cdag *g = &out->dag;
    g->nodes = out->nodes;
    g->n_nodes = (uint32_t)d->num_nodes;
    g->constraint_idx = out->constraint_idx;
    g->n_constraints = (uint32_t)d->num_constraints;
    g->interactions = out->interactions;
    g->n_interactions = (uint32_t)d->num_interactions;
    g->max_degree = vk->max_constraint_degree;
    g->need_rot = vk->need_rot;
    g->has_preprocessed = vk->has_preprocessed_width;
    g->n_cached = (uint32_t)vk->num_cached_mains;
    /* the kernels index columns without bounds checks: check once here */
    uint32_t widths[66];
    uint32_t n_parts = 1 + (g->has_preprocessed ? 1 : 0) + g->n_cached;
    if (n_parts > 66) {
        gs_cdag_vk_free(out);
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED, "constraint DAG: %u trace parts; at most 66 supported", n_parts);
    }
    widths[0] = (uint32_t)vk->common_main_width;
    if (g->has_preprocessed)
        widths[1] = (uint32_t)vk->preprocessed_width;
    for (uint32_t c = 0; c < g->n_cached; c++)
        widths[1 + (g->has_preprocessed ? 1 : 0) + c] = (uint32_t)vk->cached_main_widths[c];
    if (gs_cdag_check(g, widths, n_parts, (uint32_t)vk->num_public_values)) {
        gs_cdag_vk_free(out);
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "constraint DAG: a node references a missing column, public value or later node");
    }
    return GLSTARK_OK;
}
