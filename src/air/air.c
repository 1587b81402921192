/* The AIR builder API (include/glstark/air.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"

static glstark_status fail(glstark_air *air, glstark_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static glstark_status fail(glstark_air *air, glstark_status st, const char *fmt, ...)
{
    if (air->err.status != GLSTARK_OK)
        return air->err.status; /* keep the first error */
    air->err.status = st;
    int n = snprintf(air->err.msg, sizeof air->err.msg, "AIR '%s': ", air->name);
    if (n < 0 || (size_t)n >= sizeof air->err.msg)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(air->err.msg + n, sizeof air->err.msg - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

glstark_status glstark_air_create_shaped(const char *name, const glstark_air_shape *shape,
                                         glstark_air **out)
{
    if (!out || !shape)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    size_t main_width = shape->common_main_width;
    if (shape->num_cached_mains && !shape->cached_main_widths)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < shape->num_cached_mains; i++) {
        if (shape->cached_main_widths[i] == 0)
            return GLSTARK_ERR_INVALID_ARGUMENT;
        main_width += shape->cached_main_widths[i];
    }
    /* OpenVM's keygen rejects AIRs without main columns (AirWidthZero) */
    if (main_width == 0 || main_width > UINT32_MAX || shape->preprocessed_width > UINT32_MAX ||
        shape->num_public_values > UINT32_MAX || shape->num_cached_mains > 1024)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    glstark_air *air = calloc(1, sizeof *air);
    if (!air)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    snprintf(air->name, sizeof air->name, "%s", name ? name : "air");
    air->common_main_width = shape->common_main_width;
    air->num_cached_mains = shape->num_cached_mains;
    if (shape->num_cached_mains) {
        air->cached_main_widths = malloc(shape->num_cached_mains * sizeof(size_t));
        if (!air->cached_main_widths) {
            free(air);
            return GLSTARK_ERR_OUT_OF_MEMORY;
        }
        memcpy(air->cached_main_widths, shape->cached_main_widths,
               shape->num_cached_mains * sizeof(size_t));
    }
    air->preprocessed_width = shape->preprocessed_width;
    air->num_public_values = shape->num_public_values;
    *out = air;
    return GLSTARK_OK;
}

glstark_status glstark_air_create(const char *name, size_t main_width, size_t num_public_values,
                                  glstark_air **out)
{
    glstark_air_shape s = {main_width, 0, NULL, 0, num_public_values};
    return glstark_air_create_shaped(name, &s, out);
}

void glstark_air_destroy(glstark_air *air)
{
    if (!air)
        return;
    for (size_t i = 0; i < air->num_interactions; i++)
        free(air->interactions[i].fields);
    free(air->interactions);
    free(air->constraints);
    free(air->exprs);
    free(air->cached_main_widths);
    free(air->preprocessed_trace);
    gs_dag_free(&air->dag);
    free(air);
}

glstark_status glstark_air_set_preprocessed_trace(glstark_air *air, size_t height,
                                                  const uint32_t *rows)
{
    if (!air)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (air->err.status)
        return air->err.status;
    if (air->preprocessed_width == 0)
        return fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
                    "set_preprocessed_trace: the AIR was created with no preprocessed columns");
    if (!rows || height == 0 || (height & (height - 1)))
        return fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
                    "set_preprocessed_trace: height %zu is not a power of two (or rows is NULL)",
                    height);
    size_t n = height * air->preprocessed_width;
    for (size_t i = 0; i < n; i++)
        if (rows[i] >= BB_P)
            return fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
                        "set_preprocessed_trace: value %u (row %zu, column %zu) is not below p = %u", rows[i],
                        i / air->preprocessed_width, i % air->preprocessed_width, (unsigned)BB_P);
    bb_t *t = malloc(n * sizeof(bb_t));
    if (!t)
        return fail(air, GLSTARK_ERR_OUT_OF_MEMORY, "set_preprocessed_trace: out of memory");
    for (size_t i = 0; i < n; i++)
        t[i] = bb_from_canonical(rows[i]);
    free(air->preprocessed_trace);
    air->preprocessed_trace = t;
    air->preprocessed_height = height;
    return GLSTARK_OK;
}

glstark_status glstark_air_set_required(glstark_air *air, int required)
{
    if (!air)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (air->err.status)
        return air->err.status;
    air->is_required = required != 0;
    return GLSTARK_OK;
}

static glstark_expr push_expr(glstark_air *air, const gs_expr_node *n)
{
    if (air->num_exprs == air->cap_exprs) {
        size_t cap = air->cap_exprs ? air->cap_exprs * 2 : 256;
        if (cap >= UINT32_MAX) {
            fail(air, GLSTARK_ERR_OUT_OF_MEMORY, "more than 2^32 expression nodes");
            return GLSTARK_EXPR_INVALID;
        }
        gs_expr_node *e = realloc(air->exprs, cap * sizeof *e);
        if (!e) {
            fail(air, GLSTARK_ERR_OUT_OF_MEMORY, "out of memory growing the expression arena");
            return GLSTARK_EXPR_INVALID;
        }
        air->exprs = e;
        air->cap_exprs = cap;
    }
    air->exprs[air->num_exprs++] = *n;
    return (glstark_expr){(uint32_t)air->num_exprs};
}

static int valid_expr(glstark_air *air, glstark_expr e, const char *what)
{
    if (e.id == 0 || e.id > air->num_exprs) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
             "%s: invalid expression handle %u (the AIR has %zu expressions; a handle from "
             "another AIR or from a failed call?)",
             what, e.id, air->num_exprs);
        return 0;
    }
    return 1;
}

static glstark_expr make_var(glstark_air *air, uint32_t entry, uint32_t part, uint32_t offset,
                             uint32_t index)
{
    gs_expr_node n;
    memset(&n, 0, sizeof n);
    n.kind = GS_NODE_VAR;
    n.var.entry = entry;
    n.var.part_index = part;
    n.var.offset = offset;
    n.var.index = index;
    n.dm = (entry == GS_ENTRY_MAIN || entry == GS_ENTRY_PREPROCESSED) ? 1 : 0;
    return push_expr(air, &n);
}

glstark_expr glstark_air_main(glstark_air *air, size_t column, int next)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    if (air->common_main_width == 0) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT, "main: the AIR has no common main trace");
        return GLSTARK_EXPR_INVALID;
    }
    if (column >= air->common_main_width || (next != 0 && next != 1)) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
             "main column %zu (next=%d) is out of range: the common main has %zu columns and "
             "next must be 0 or 1",
             column, next, air->common_main_width);
        return GLSTARK_EXPR_INVALID;
    }
    return make_var(air, GS_ENTRY_MAIN, (uint32_t)air->num_cached_mains, (uint32_t)next,
                    (uint32_t)column);
}

glstark_expr glstark_air_cached_main(glstark_air *air, size_t partition, size_t column, int next)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    if (partition >= air->num_cached_mains) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
             "cached main partition %zu is out of range (the AIR has %zu)", partition,
             air->num_cached_mains);
        return GLSTARK_EXPR_INVALID;
    }
    if (column >= air->cached_main_widths[partition] || (next != 0 && next != 1)) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
             "cached main %zu column %zu (next=%d) is out of range: it has %zu columns",
             partition, column, next, air->cached_main_widths[partition]);
        return GLSTARK_EXPR_INVALID;
    }
    return make_var(air, GS_ENTRY_MAIN, (uint32_t)partition, (uint32_t)next, (uint32_t)column);
}

glstark_expr glstark_air_preprocessed(glstark_air *air, size_t column, int next)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    if (column >= air->preprocessed_width || (next != 0 && next != 1)) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
             "preprocessed column %zu (next=%d) is out of range: the AIR has %zu preprocessed "
             "columns",
             column, next, air->preprocessed_width);
        return GLSTARK_EXPR_INVALID;
    }
    return make_var(air, GS_ENTRY_PREPROCESSED, 0, (uint32_t)next, (uint32_t)column);
}

glstark_expr glstark_air_public_value(glstark_air *air, size_t index)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    if (index >= air->num_public_values) {
        fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
             "public value %zu is out of range: the AIR has %zu public values", index,
             air->num_public_values);
        return GLSTARK_EXPR_INVALID;
    }
    return make_var(air, GS_ENTRY_PUBLIC, 0, 0, (uint32_t)index);
}

glstark_expr glstark_air_const(glstark_air *air, uint32_t value)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    gs_expr_node n;
    memset(&n, 0, sizeof n);
    n.kind = GS_NODE_CONST;
    n.constant = bb_from_canonical(value);
    return push_expr(air, &n);
}

static glstark_expr selector(glstark_air *air, uint32_t kind)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    gs_expr_node n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.dm = 1;
    return push_expr(air, &n);
}

glstark_expr glstark_air_is_first_row(glstark_air *air) { return selector(air, GS_NODE_IS_FIRST_ROW); }
glstark_expr glstark_air_is_last_row(glstark_air *air) { return selector(air, GS_NODE_IS_LAST_ROW); }
glstark_expr glstark_air_is_transition(glstark_air *air) { return selector(air, GS_NODE_IS_TRANSITION); }

static glstark_expr binary(glstark_air *air, uint32_t kind, glstark_expr a, glstark_expr b,
                           const char *what)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    if (!valid_expr(air, a, what) || !valid_expr(air, b, what))
        return GLSTARK_EXPR_INVALID;
    uint32_t da = air->exprs[a.id - 1].dm, db = air->exprs[b.id - 1].dm;
    gs_expr_node n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.a = a.id;
    n.b = b.id;
    if (kind == GS_NODE_MUL) {
        if (da > UINT32_MAX - db) {
            fail(air, GLSTARK_ERR_INVALID_ARGUMENT, "%s: degree overflow", what);
            return GLSTARK_EXPR_INVALID;
        }
        n.dm = da + db;
    } else {
        n.dm = da > db ? da : db;
    }
    return push_expr(air, &n);
}

glstark_expr glstark_air_add(glstark_air *air, glstark_expr a, glstark_expr b)
{
    return binary(air, GS_NODE_ADD, a, b, "add");
}

glstark_expr glstark_air_sub(glstark_air *air, glstark_expr a, glstark_expr b)
{
    return binary(air, GS_NODE_SUB, a, b, "sub");
}

glstark_expr glstark_air_mul(glstark_air *air, glstark_expr a, glstark_expr b)
{
    return binary(air, GS_NODE_MUL, a, b, "mul");
}

glstark_expr glstark_air_neg(glstark_air *air, glstark_expr a)
{
    if (!air || air->err.status)
        return GLSTARK_EXPR_INVALID;
    if (!valid_expr(air, a, "neg"))
        return GLSTARK_EXPR_INVALID;
    gs_expr_node n;
    memset(&n, 0, sizeof n);
    n.kind = GS_NODE_NEG;
    n.a = a.id;
    n.dm = air->exprs[a.id - 1].dm;
    return push_expr(air, &n);
}

static glstark_status invalidate_dag(glstark_air *air)
{
    if (air->dag_built) {
        gs_dag_free(&air->dag);
        air->dag_built = 0;
    }
    return GLSTARK_OK;
}

glstark_status glstark_air_assert_zero(glstark_air *air, glstark_expr e)
{
    if (!air)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (air->err.status)
        return air->err.status;
    if (!valid_expr(air, e, "assert_zero"))
        return air->err.status;
    if (air->num_constraints == air->cap_constraints) {
        size_t cap = air->cap_constraints ? air->cap_constraints * 2 : 64;
        uint32_t *c = realloc(air->constraints, cap * sizeof *c);
        if (!c)
            return fail(air, GLSTARK_ERR_OUT_OF_MEMORY, "assert_zero: out of memory");
        air->constraints = c;
        air->cap_constraints = cap;
    }
    air->constraints[air->num_constraints++] = e.id;
    return invalidate_dag(air);
}

glstark_status glstark_air_assert_eq(glstark_air *air, glstark_expr a, glstark_expr b)
{
    return glstark_air_assert_zero(air, glstark_air_sub(air, a, b));
}

glstark_status glstark_air_assert_one(glstark_air *air, glstark_expr e)
{
    return glstark_air_assert_zero(air, glstark_air_sub(air, e, glstark_air_const(air, 1)));
}

glstark_status glstark_air_assert_bool(glstark_air *air, glstark_expr e)
{
    /* Plonky3 bool_check: x * (x - 1) */
    glstark_expr m1 = glstark_air_sub(air, e, glstark_air_const(air, 1));
    return glstark_air_assert_zero(air, glstark_air_mul(air, e, m1));
}

glstark_status glstark_air_push_interaction(glstark_air *air, uint16_t bus_index,
                                            const glstark_expr *fields, size_t num_fields,
                                            glstark_expr count, uint32_t count_weight)
{
    if (!air)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (air->err.status)
        return air->err.status;
    if (num_fields == 0 || !fields)
        return fail(air, GLSTARK_ERR_INVALID_ARGUMENT,
                    "interaction %zu on bus %u has no message fields; OpenVM requires at least one",
                    air->num_interactions, (unsigned)bus_index);
    for (size_t i = 0; i < num_fields; i++)
        if (!valid_expr(air, fields[i], "push_interaction (message field)"))
            return air->err.status;
    if (!valid_expr(air, count, "push_interaction (count)"))
        return air->err.status;
    if (air->num_interactions == air->cap_interactions) {
        size_t cap = air->cap_interactions ? air->cap_interactions * 2 : 8;
        gs_air_interaction *p = realloc(air->interactions, cap * sizeof *p);
        if (!p)
            return fail(air, GLSTARK_ERR_OUT_OF_MEMORY, "push_interaction: out of memory");
        air->interactions = p;
        air->cap_interactions = cap;
    }
    gs_air_interaction *it = &air->interactions[air->num_interactions];
    it->fields = malloc(num_fields * sizeof(uint32_t));
    if (!it->fields)
        return fail(air, GLSTARK_ERR_OUT_OF_MEMORY, "push_interaction: out of memory");
    for (size_t i = 0; i < num_fields; i++)
        it->fields[i] = fields[i].id;
    it->num_fields = num_fields;
    it->count = count.id;
    it->bus_index = bus_index;
    it->count_weight = count_weight;
    air->num_interactions++;
    return invalidate_dag(air);
}

glstark_status glstark_air_status(const glstark_air *air)
{
    return air ? air->err.status : GLSTARK_ERR_INVALID_ARGUMENT;
}

const char *glstark_air_error_message(const glstark_air *air)
{
    return air ? air->err.msg : "NULL AIR";
}

const gs_dag *gs_air_dag(glstark_air *air, gs_error *err)
{
    if (air->err.status) {
        gs_error_set(err, air->err.status, "%s", air->err.msg);
        return NULL;
    }
    if (!air->dag_built) {
        if (gs_dag_build(air, &air->dag, err) != GLSTARK_OK)
            return NULL;
        air->dag_built = 1;
    }
    return &air->dag;
}

size_t gs_air_max_degree(const glstark_air *air)
{
    size_t d = 0;
    for (size_t i = 0; i < air->num_constraints; i++) {
        size_t x = air->exprs[air->constraints[i] - 1].dm;
        d = x > d ? x : d;
    }
    for (size_t i = 0; i < air->num_interactions; i++) {
        const gs_air_interaction *it = &air->interactions[i];
        size_t x = air->exprs[it->count - 1].dm;
        d = x > d ? x : d;
        for (size_t j = 0; j < it->num_fields; j++) {
            x = air->exprs[it->fields[j] - 1].dm;
            d = x > d ? x : d;
        }
    }
    return d;
}

size_t gs_air_num_main_parts(const glstark_air *air)
{
    return air->num_cached_mains + (air->common_main_width ? 1 : 0);
}

size_t gs_air_main_part_width(const glstark_air *air, size_t part)
{
    return part < air->num_cached_mains ? air->cached_main_widths[part] : air->common_main_width;
}

glstark_status glstark_air_dag_stats(glstark_air *air, size_t *num_nodes, size_t *num_constraints,
                                     size_t *num_interactions, size_t *max_degree)
{
    if (!air)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    gs_error e;
    gs_error_clear(&e);
    const gs_dag *d = gs_air_dag(air, &e);
    if (!d)
        return e.status;
    if (num_nodes)
        *num_nodes = d->num_nodes;
    if (num_constraints)
        *num_constraints = d->num_constraints;
    if (num_interactions)
        *num_interactions = d->num_interactions;
    if (max_degree)
        *max_degree = gs_air_max_degree(air);
    return GLSTARK_OK;
}
