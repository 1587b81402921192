/* vk DAG -> kernel DAG (see air_cdag.h). */
#include "common/air_cdag.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void gs_cdag_owned_free(gs_cdag_owned *o)
{
    if (!o)
        return;
    free(o->nodes);
    free(o->constraint_idx);
    free(o->interactions);
    free(o->messages);
    memset(o, 0, sizeof *o);
}

glstark_status gs_cdag_from_vk(const gs_air_vk *av, gs_cdag_owned *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    const gs_dag *d = &av->dag;
    if (d->num_nodes > UINT32_MAX || d->num_constraints > UINT32_MAX || d->num_interactions > UINT32_MAX)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "constraint DAG: %zu nodes, %zu constraints, %zu interactions; at most 2^32 - 1 each",
                            d->num_nodes, d->num_constraints, d->num_interactions);
    size_t nmsg = 0;
    for (size_t i = 0; i < d->num_interactions; i++)
        nmsg += d->interactions[i].message_len;
    out->nodes = calloc(d->num_nodes ? d->num_nodes : 1, sizeof(gs_cnode));
    out->constraint_idx = calloc(d->num_constraints ? d->num_constraints : 1, sizeof(uint32_t));
    out->interactions = calloc(d->num_interactions ? d->num_interactions : 1, sizeof(gs_cinteraction));
    out->messages = calloc(nmsg ? nmsg : 1, sizeof(uint32_t));
    if (!out->nodes || !out->constraint_idx || !out->interactions || !out->messages) {
        gs_cdag_owned_free(out);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint DAG: out of host memory");
    }
    for (size_t i = 0; i < d->num_nodes; i++) {
        const gs_dag_node *n = &d->nodes[i];
        gs_cnode *c = &out->nodes[i];
        switch (n->kind) {
        case GS_NODE_VAR:
            switch (n->var.entry) {
            case GS_ENTRY_PREPROCESSED: c->kind = GS_CN_VAR_PREP; break;
            case GS_ENTRY_MAIN:
                if (n->var.part_index > UINT16_MAX) { /* gs_cnode keeps 16 bits */
                    gs_cdag_owned_free(out);
                    return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                        "constraint DAG: node %zu has main part %u (no such part)", i,
                                        (unsigned)n->var.part_index);
                }
                c->kind = GS_CN_VAR_MAIN;
                c->part = (uint16_t)n->var.part_index;
                break;
            case GS_ENTRY_PUBLIC: c->kind = GS_CN_PUBLIC; break;
            default:
                gs_cdag_owned_free(out);
                return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                                    "constraint DAG: node %zu is a Challenge variable, which SWIRL does not support "
                                    "(OpenVM: ChallengeNotSupported)",
                                    i);
            }
            if (n->var.offset > 1) { /* the kernels read rows r and r + 1 only */
                gs_cdag_owned_free(out);
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "constraint DAG: node %zu has row offset %u (> 1)", i, (unsigned)n->var.offset);
            }
            c->offset = (uint8_t)n->var.offset;
            c->a = n->var.index;
            break;
        case GS_NODE_IS_FIRST_ROW: c->kind = GS_CN_IS_FIRST; break;
        case GS_NODE_IS_LAST_ROW: c->kind = GS_CN_IS_LAST; break;
        case GS_NODE_IS_TRANSITION: c->kind = GS_CN_IS_TRANSITION; break;
        case GS_NODE_CONST:
            c->kind = GS_CN_CONST;
            c->value = n->constant;
            break;
        case GS_NODE_ADD: c->kind = GS_CN_ADD; break;
        case GS_NODE_SUB: c->kind = GS_CN_SUB; break;
        case GS_NODE_NEG: c->kind = GS_CN_NEG; break;
        case GS_NODE_MUL: c->kind = GS_CN_MUL; break;
        default:
            gs_cdag_owned_free(out);
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "constraint DAG: node %zu has unknown kind %u", i,
                                n->kind);
        }
        if (n->kind >= GS_NODE_ADD) {
            c->a = n->left;
            c->b = n->kind == GS_NODE_NEG ? 0 : n->right;
        }
    }
    for (size_t i = 0; i < d->num_constraints; i++)
        out->constraint_idx[i] = d->constraint_idx[i];
    size_t m = 0;
    for (size_t i = 0; i < d->num_interactions; i++) {
        const gs_dag_interaction *it = &d->interactions[i];
        memcpy(out->messages + m, it->message, it->message_len * sizeof(uint32_t));
        out->interactions[i] = (gs_cinteraction){out->messages + m, (uint32_t)it->message_len, it->count,
                                                 it->bus_index};
        m += it->message_len;
    }
    out->dag = (gs_cdag){out->nodes,
                         (uint32_t)d->num_nodes,
                         out->constraint_idx,
                         (uint32_t)d->num_constraints,
                         out->interactions,
                         (uint32_t)d->num_interactions,
                         av->max_constraint_degree,
                         av->need_rot != 0,
                         av->has_preprocessed_data != 0,
                         (uint32_t)av->num_cached_mains};
    /* The kernels index columns, public values and earlier nodes without
     * bounds checks: check every reference against the key once, here.
     * Parts: common main, the preprocessed trace (when present), then the
     * cached mains (common/constraint_dag.h, gs_cdag_part_of). */
    size_t n_parts = 1 + (av->has_preprocessed_data ? 1 : 0) + av->num_cached_mains;
    uint32_t *widths = n_parts <= UINT32_MAX ? malloc(n_parts * sizeof(uint32_t)) : NULL;
    if (!widths) {
        gs_cdag_owned_free(out);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint DAG: out of host memory (%zu trace parts)",
                            n_parts);
    }
    size_t p = 0;
    widths[p++] = (uint32_t)av->common_main_width;
    if (av->has_preprocessed_data)
        widths[p++] = av->has_preprocessed_width ? (uint32_t)av->preprocessed_width : 0;
    for (size_t c = 0; c < av->num_cached_mains; c++)
        widths[p++] = (uint32_t)av->cached_main_widths[c];
    int bad = gs_cdag_check(&out->dag, widths, (uint32_t)n_parts, (uint32_t)av->num_public_values);
    free(widths);
    if (bad) {
        gs_cdag_owned_free(out);
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "constraint DAG: a node references a missing column, public value or later node");
    }
    return GLSTARK_OK;
}
