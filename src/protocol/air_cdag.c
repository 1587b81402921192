/* vk DAG -> kernel DAG (see air_cdag.h). */
#include "protocol/air_cdag.h"

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
    return GLSTARK_OK;
}
