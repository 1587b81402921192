/* Keygen (OpenVM keygen/mod.rs): per-AIR verifying keys, the trace-height
 * linear constraints, and the pre-hash. */
#include "air/keygen.h"

#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"

glstark_status gs_dag_clone(const gs_dag *src, gs_dag *dst, gs_error *err)
{
    memset(dst, 0, sizeof *dst);
    dst->nodes = malloc((src->num_nodes ? src->num_nodes : 1) * sizeof(gs_dag_node));
    dst->constraint_idx = malloc((src->num_constraints ? src->num_constraints : 1) * sizeof(uint32_t));
    dst->interactions = calloc(src->num_interactions ? src->num_interactions : 1,
                               sizeof(gs_dag_interaction));
    if (!dst->nodes || !dst->constraint_idx || !dst->interactions)
        goto oom;
    memcpy(dst->nodes, src->nodes, src->num_nodes * sizeof(gs_dag_node));
    dst->num_nodes = src->num_nodes;
    memcpy(dst->constraint_idx, src->constraint_idx, src->num_constraints * sizeof(uint32_t));
    dst->num_constraints = src->num_constraints;
    for (size_t i = 0; i < src->num_interactions; i++) {
        gs_dag_interaction *d = &dst->interactions[i];
        *d = src->interactions[i];
        d->message = malloc((d->message_len ? d->message_len : 1) * sizeof(uint32_t));
        if (!d->message) {
            dst->num_interactions = i;
            goto oom;
        }
        memcpy(d->message, src->interactions[i].message, d->message_len * sizeof(uint32_t));
    }
    dst->num_interactions = src->num_interactions;
    return GLSTARK_OK;
oom:
    gs_dag_free(dst);
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "copying a constraint DAG: out of memory");
}

static void air_vk_free(gs_air_vk *v)
{
    free(v->cached_main_widths);
    free(v->unused_variables);
    gs_dag_free(&v->dag);
    memset(v, 0, sizeof *v);
}

void gs_multi_vk_free(gs_multi_vk *vk)
{
    if (!vk)
        return;
    for (size_t i = 0; i < vk->num_airs; i++)
        air_vk_free(&vk->per_air[i]);
    free(vk->per_air);
    for (size_t i = 0; i < vk->num_trace_height_constraints; i++)
        free(vk->trace_height_constraints[i].coefficients);
    free(vk->trace_height_constraints);
    memset(vk, 0, sizeof *vk);
}

void gs_multi_pk_free(gs_multi_pk *pk)
{
    if (!pk)
        return;
    gs_multi_vk_free(&pk->vk);
    free(pk->airs);
    memset(pk, 0, sizeof *pk);
}

/* find_unused_vars: preprocessed columns, then each main partition; per
 * column offset 0 then (if need_rot) offset 1. */
static glstark_status find_unused(const glstark_air *air, gs_air_vk *v, gs_error *err)
{
    size_t nparts = gs_air_num_main_parts(air);
    size_t prep_w = v->has_preprocessed_width ? v->preprocessed_width : 0;
    size_t total = prep_w;
    for (size_t p = 0; p < nparts; p++)
        total += gs_air_main_part_width(air, p);
    /* present[slot*2 + offset]; slots: preprocessed columns then main parts in order */
    unsigned char *present = calloc(total ? total * 2 : 1, 1);
    size_t *part_base = malloc((nparts + 1) * sizeof(size_t));
    v->unused_variables = malloc((total ? total * 2 : 1) * sizeof(gs_symvar));
    if (!present || !part_base || !v->unused_variables) {
        free(present);
        free(part_base);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "keygen: out of memory");
    }
    size_t base = prep_w;
    for (size_t p = 0; p < nparts; p++) {
        part_base[p] = base;
        base += gs_air_main_part_width(air, p);
    }
    for (size_t i = 0; i < v->dag.num_nodes; i++) {
        const gs_dag_node *n = &v->dag.nodes[i];
        if (n->kind != GS_NODE_VAR || n->var.offset > 1)
            continue;
        if (n->var.entry == GS_ENTRY_PREPROCESSED && n->var.index < prep_w)
            present[n->var.index * 2 + n->var.offset] = 1;
        else if (n->var.entry == GS_ENTRY_MAIN && n->var.part_index < nparts)
            present[(part_base[n->var.part_index] + n->var.index) * 2 + n->var.offset] = 1;
    }
    size_t k = 0;
    for (size_t c = 0; c < prep_w; c++)
        for (uint32_t off = 0; off < 2; off++)
            if (!present[c * 2 + off] && (off == 0 || v->need_rot)) {
                gs_symvar s = {GS_ENTRY_PREPROCESSED, 0, off, (uint32_t)c};
                v->unused_variables[k++] = s;
            }
    for (size_t p = 0; p < nparts; p++)
        for (size_t c = 0; c < gs_air_main_part_width(air, p); c++)
            for (uint32_t off = 0; off < 2; off++)
                if (!present[(part_base[p] + c) * 2 + off] && (off == 0 || v->need_rot)) {
                    gs_symvar s = {GS_ENTRY_MAIN, (uint32_t)p, off, (uint32_t)c};
                    v->unused_variables[k++] = s;
                }
    v->num_unused_variables = k;
    free(present);
    free(part_base);
    return GLSTARK_OK;
}

static glstark_status air_keygen(const gs_system_params *params, glstark_air *air, size_t air_idx,
                                 const gs_keygen_options *opts, gs_air_vk *v, gs_error *err)
{
    memset(v, 0, sizeof *v);
    const gs_dag *dag = gs_air_dag(air, err);
    if (!dag) {
        gs_error_prefix(err, " (keygen of AIR %zu)", air_idx);
        return err ? err->status : GLSTARK_ERR_INVALID_ARGUMENT;
    }
    size_t main_width = air->common_main_width;
    for (size_t i = 0; i < air->num_cached_mains; i++)
        main_width += air->cached_main_widths[i];
    if (main_width == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "keygen: AIR %zu '%s' has zero main trace width", air_idx, air->name);
    if (air->num_constraints == 0 && air->num_interactions == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "keygen: AIR %zu '%s' is empty: it must have at least one constraint "
                            "or interaction",
                            air_idx, air->name);
    size_t max_msg = (size_t)1 << params->logup.log_max_message_length;
    for (size_t i = 0; i < air->num_interactions; i++) {
        if (air->interactions[i].num_fields == 0)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "keygen: AIR %zu '%s' interaction %zu has a zero-length message",
                                air_idx, air->name, i);
        if (air->interactions[i].num_fields + 1 > max_msg)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "keygen: AIR %zu '%s' interaction %zu has %zu message fields; with "
                                "the bus that is more than the maximum %zu",
                                air_idx, air->name, i, air->interactions[i].num_fields, max_msg);
    }
    size_t degree = gs_air_max_degree(air);
    if (degree > params->max_constraint_degree || degree > 255)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "keygen: AIR %zu '%s' has constraint degree %zu, above the maximum %zu "
                            "of the parameters",
                            air_idx, air->name, degree, params->max_constraint_degree);
    if (air->preprocessed_width) {
        if (!air->preprocessed_trace)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "keygen: AIR %zu '%s' declares %zu preprocessed columns but no "
                                "preprocessed trace was set",
                                air_idx, air->name, air->preprocessed_width);
        if (!opts || !opts->prep_commit)
            return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                                "keygen: AIR %zu '%s' has a preprocessed trace, which must be "
                                "committed at keygen; pass a commit function in the options",
                                air_idx, air->name);
        glstark_status st = opts->prep_commit(opts->prep_commit_ctx, params, air->preprocessed_trace,
                                              air->preprocessed_height, air->preprocessed_width,
                                              &v->preprocessed_data, err);
        if (st) {
            gs_error_prefix(err, "keygen: AIR %zu '%s'", air_idx, air->name);
            return st;
        }
        v->has_preprocessed_data = 1;
        v->has_preprocessed_width = 1;
        v->preprocessed_width = air->preprocessed_width;
    }
    v->num_cached_mains = air->num_cached_mains;
    if (air->num_cached_mains) {
        v->cached_main_widths = malloc(air->num_cached_mains * sizeof(size_t));
        if (!v->cached_main_widths)
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "keygen: out of memory");
        memcpy(v->cached_main_widths, air->cached_main_widths, air->num_cached_mains * sizeof(size_t));
    }
    v->common_main_width = air->common_main_width;
    v->num_public_values = air->num_public_values;
    glstark_status st = gs_dag_clone(dag, &v->dag, err);
    if (st)
        return st;
    v->need_rot = gs_dag_max_rotation(&v->dag) == 1;
    v->max_constraint_degree = (uint8_t)degree;
    /* the options' list, where given, else the AIR's own flag */
    v->is_required = opts && opts->is_required ? opts->is_required[air_idx] != 0 : air->is_required;
    return find_unused(air, v, err);
}

static int implied_by(const gs_linear_constraint *c, const gs_linear_constraint *k, size_t n)
{
    if (c->threshold < k->threshold)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (c->coefficients[i] > k->coefficients[i])
            return 0;
    return 1;
}

/* generate_pk's trace-height constraints: per bus (ascending) the sum of
 * count weights < p, then #interactions < max_interaction_count; keep
 * only those not implied by another. */
static glstark_status trace_height_constraints(const gs_system_params *params, gs_multi_vk *vk,
                                               gs_error *err)
{
    size_t n = vk->num_airs;
    /* distinct buses, sorted */
    size_t nb = 0, cap = 0;
    uint16_t *buses = NULL;
    for (size_t a = 0; a < n; a++)
        for (size_t i = 0; i < vk->per_air[a].dag.num_interactions; i++) {
            uint16_t b = vk->per_air[a].dag.interactions[i].bus_index;
            size_t j = 0;
            while (j < nb && buses[j] < b)
                j++;
            if (j < nb && buses[j] == b)
                continue;
            if (nb == cap) {
                cap = cap ? cap * 2 : 8;
                uint16_t *p = realloc(buses, cap * sizeof *p);
                if (!p) {
                    free(buses);
                    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "keygen: out of memory");
                }
                buses = p;
            }
            memmove(buses + j + 1, buses + j, (nb - j) * sizeof *buses);
            buses[j] = b;
            nb++;
        }
    size_t total = nb + 1;
    gs_linear_constraint *all = calloc(total, sizeof *all);
    vk->trace_height_constraints = calloc(total, sizeof *all);
    if (!all || !vk->trace_height_constraints)
        goto oom;
    for (size_t c = 0; c < total; c++) {
        all[c].coefficients = calloc(n ? n : 1, sizeof(uint32_t));
        if (!all[c].coefficients)
            goto oom;
    }
    for (size_t c = 0; c < nb; c++) {
        all[c].threshold = BB_P;
        for (size_t a = 0; a < n; a++)
            for (size_t i = 0; i < vk->per_air[a].dag.num_interactions; i++)
                if (vk->per_air[a].dag.interactions[i].bus_index == buses[c])
                    all[c].coefficients[a] += vk->per_air[a].dag.interactions[i].count_weight;
    }
    all[nb].threshold = params->logup.max_interaction_count;
    for (size_t a = 0; a < n; a++)
        all[nb].coefficients[a] = (uint32_t)vk->per_air[a].dag.num_interactions;
    size_t kept = 0;
    for (size_t c = 0; c < total; c++) {
        int skip = 0;
        for (size_t k = 0; k < kept && !skip; k++)
            if (implied_by(&all[c], &vk->trace_height_constraints[k], n))
                skip = 1;
        if (skip)
            continue;
        size_t w = 0;
        for (size_t k = 0; k < kept; k++) {
            if (implied_by(&vk->trace_height_constraints[k], &all[c], n))
                free(vk->trace_height_constraints[k].coefficients);
            else
                vk->trace_height_constraints[w++] = vk->trace_height_constraints[k];
        }
        kept = w;
        vk->trace_height_constraints[kept++] = all[c];
        all[c].coefficients = NULL;
    }
    vk->num_trace_height_constraints = kept;
    for (size_t c = 0; c < total; c++)
        free(all[c].coefficients);
    free(all);
    free(buses);
    return GLSTARK_OK;
oom:
    if (all)
        for (size_t c = 0; c < total; c++)
            free(all[c].coefficients);
    free(all);
    free(buses);
    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "keygen: out of memory");
}

glstark_status gs_keygen(const gs_system_params *params, glstark_air *const *airs,
                         size_t num_airs, const gs_keygen_options *opts, gs_multi_pk *out,
                         gs_error *err)
{
    if (!out || !params || (num_airs && !airs))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "keygen: NULL argument");
    memset(out, 0, sizeof *out);
    if (num_airs == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "keygen: no AIRs given");
    for (size_t i = 0; i < num_airs; i++)
        if (!airs[i])
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "keygen: AIR %zu is NULL", i);
    gs_multi_vk *vk = &out->vk;
    vk->params = *params;
    vk->per_air = calloc(num_airs, sizeof *vk->per_air);
    out->airs = malloc(num_airs * sizeof *out->airs);
    if (!vk->per_air || !out->airs) {
        gs_multi_pk_free(out);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "keygen: out of memory");
    }
    glstark_status st = GLSTARK_OK;
    for (size_t i = 0; i < num_airs; i++) {
        out->airs[i] = airs[i];
        st = air_keygen(params, airs[i], i, opts, &vk->per_air[i], err);
        vk->num_airs = i + 1;
        if (st)
            goto fail;
    }
    out->num_airs = num_airs;
    st = trace_height_constraints(params, vk, err);
    if (st)
        goto fail;
    st = gs_vk_compute_pre_hash(vk, err);
    if (st)
        goto fail;
    return GLSTARK_OK;
fail:
    gs_multi_pk_free(out);
    return st;
}
