/* The CPU constraint checker (checker.h). Rows wrap: the next row of the
 * last row is row 0, as in the protocol's rotation; selectors are
 * is_first_row = [i == 0], is_last_row = [i == H-1], is_transition =
 * [i != H-1]. LogUp is checked exactly: for every bus and message the counts
 * of all rows of all AIRs must sum to zero in the field. */
#include "air/checker.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lu_entry {
    size_t key_off; /* into pool */
    size_t key_len; /* message fields */
    uint16_t bus;
    bb_t net;
    size_t air, row, interaction;
} lu_entry;

typedef struct lu_table {
    bb_t *pool;
    size_t pool_len, pool_cap;
    lu_entry *e;
    size_t n, cap;
    uint32_t *slots; /* entry + 1 */
    size_t mask;
} lu_table;

static uint64_t lu_hash(uint16_t bus, const bb_t *m, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull ^ bus;
    for (size_t i = 0; i < len; i++) {
        h ^= m[i];
        h *= 0x100000001b3ull;
        h ^= h >> 31;
    }
    h ^= len;
    return h * 0x9e3779b97f4a7c15ull;
}

static int lu_rehash(lu_table *t, size_t nslots)
{
    uint32_t *s = calloc(nslots, sizeof *s);
    if (!s)
        return 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = (size_t)lu_hash(t->e[i].bus, t->pool + t->e[i].key_off, t->e[i].key_len) & (nslots - 1);
        while (s[j])
            j = (j + 1) & (nslots - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = s;
    t->mask = nslots - 1;
    return 1;
}

static int lu_add(lu_table *t, uint16_t bus, const bb_t *m, size_t len, bb_t count, size_t air,
                  size_t row, size_t inter)
{
    if (!t->slots || (t->n + 1) * 2 > t->mask + 1)
        if (!lu_rehash(t, t->slots ? (t->mask + 1) * 2 : 1024))
            return 0;
    size_t j = (size_t)lu_hash(bus, m, len) & t->mask;
    while (t->slots[j]) {
        lu_entry *e = &t->e[t->slots[j] - 1];
        if (e->bus == bus && e->key_len == len && !memcmp(t->pool + e->key_off, m, len * sizeof(bb_t))) {
            e->net = bb_add(e->net, count);
            return 1;
        }
        j = (j + 1) & t->mask;
    }
    if (t->pool_len + len > t->pool_cap) {
        size_t cap = t->pool_cap ? t->pool_cap : 1024;
        while (cap < t->pool_len + len)
            cap *= 2;
        bb_t *p = realloc(t->pool, cap * sizeof *p);
        if (!p)
            return 0;
        t->pool = p;
        t->pool_cap = cap;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        lu_entry *p = realloc(t->e, cap * sizeof *p);
        if (!p)
            return 0;
        t->e = p;
        t->cap = cap;
    }
    memcpy(t->pool + t->pool_len, m, len * sizeof(bb_t));
    lu_entry *e = &t->e[t->n];
    e->key_off = t->pool_len;
    e->key_len = len;
    e->bus = bus;
    e->net = count;
    e->air = air;
    e->row = row;
    e->interaction = inter;
    t->pool_len += len;
    t->slots[j] = (uint32_t)(++t->n);
    return 1;
}

static void lu_free(lu_table *t)
{
    free(t->pool);
    free(t->e);
    free(t->slots);
}

/* The trace of one AIR is one it can be checked on: height a power of
 * two, every main part and the public values given, the preprocessed trace
 * of the same height. */
static glstark_status check_trace_inputs(const glstark_air *air, size_t a, const gs_air_trace_view *tv,
                                         gs_error *err)
{
    size_t H = tv->height;
    if (H & (H - 1))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "check: AIR %zu '%s' trace height %zu is not a power of two", a, air->name, H);
    if (!tv->main_parts || (air->num_public_values && !tv->public_values))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "check: AIR %zu '%s' trace has no main data or public values", a, air->name);
    for (size_t p = 0; p < gs_air_num_main_parts(air); p++)
        if (!tv->main_parts[p])
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "check: AIR %zu '%s' main partition %zu is missing",
                                a, air->name, p);
    if (air->preprocessed_width && (!air->preprocessed_trace || air->preprocessed_height != H))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "check: AIR %zu '%s' preprocessed trace is missing or its height %zu "
                            "differs from the main trace height %zu",
                            a, air->name, air->preprocessed_height, H);
    return GLSTARK_OK;
}

/* One AIR's column pointers (main parts, and the preprocessed trace copied
 * column-major), DAG node values of a row, and an interaction message. */
typedef struct air_scratch {
    const bb_t **cols;
    const bb_t *const **parts;
    bb_t *vals, *msg;
    bb_t *prep_cm;
    const bb_t **prep_cols;
} air_scratch;

static void scratch_free(air_scratch *sc)
{
    free(sc->cols);
    free(sc->parts);
    free(sc->vals);
    free(sc->msg);
    free(sc->prep_cm);
    free(sc->prep_cols);
}

static glstark_status scratch_setup(air_scratch *sc, const glstark_air *air, const gs_air_trace_view *tv,
                                    const gs_dag *dag, gs_error *err)
{
    const size_t H = tv->height, nparts = gs_air_num_main_parts(air);
    size_t total_cols = 0;
    for (size_t p = 0; p < nparts; p++)
        total_cols += gs_air_main_part_width(air, p);
    size_t max_msg = 0;
    for (size_t i = 0; i < dag->num_interactions; i++)
        if (dag->interactions[i].message_len > max_msg)
            max_msg = dag->interactions[i].message_len;
    sc->cols = malloc((total_cols ? total_cols : 1) * sizeof *sc->cols);
    sc->parts = malloc((nparts ? nparts : 1) * sizeof *sc->parts);
    sc->vals = malloc((dag->num_nodes ? dag->num_nodes : 1) * sizeof *sc->vals);
    sc->msg = malloc((max_msg ? max_msg : 1) * sizeof *sc->msg);
    if (!sc->cols || !sc->parts || !sc->vals || !sc->msg)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "check: out of memory");
    size_t k = 0;
    for (size_t p = 0; p < nparts; p++) {
        sc->parts[p] = sc->cols + k;
        for (size_t c = 0; c < gs_air_main_part_width(air, p); c++)
            sc->cols[k++] = tv->main_parts[p] + c * H;
    }
    if (air->preprocessed_width) {
        size_t w = air->preprocessed_width;
        sc->prep_cm = malloc(w * H * sizeof *sc->prep_cm);
        sc->prep_cols = malloc(w * sizeof *sc->prep_cols);
        if (!sc->prep_cm || !sc->prep_cols)
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "check: out of memory");
        for (size_t r = 0; r < H; r++)
            for (size_t c = 0; c < w; c++)
                sc->prep_cm[c * H + r] = air->preprocessed_trace[r * w + c];
        for (size_t c = 0; c < w; c++)
            sc->prep_cols[c] = sc->prep_cm + c * H;
    }
    return GLSTARK_OK;
}

/* Every row of AIR a: each constraint must be 0; each interaction with a
 * nonzero count goes into the bus table. */
static glstark_status check_rows(const glstark_air *air, size_t a, const gs_air_trace_view *tv, const gs_dag *dag,
                                 air_scratch *sc, lu_table *lu, glstark_check_failure *failure, gs_error *err)
{
    const size_t H = tv->height;
    gs_dag_row_env env;
    memset(&env, 0, sizeof env);
    env.main_cols = sc->parts;
    env.num_main_parts = gs_air_num_main_parts(air);
    env.prep_cols = sc->prep_cols;
    env.public_values = tv->public_values;
    for (size_t r = 0; r < H; r++) {
        env.row = r;
        env.next_row = (r + 1) & (H - 1);
        env.is_first_row = r == 0 ? bb_one() : 0;
        env.is_last_row = r == H - 1 ? bb_one() : 0;
        env.is_transition = r != H - 1 ? bb_one() : 0;
        gs_dag_eval_row(dag, &env, sc->vals);
        for (size_t c = 0; c < dag->num_constraints; c++) {
            bb_t v = sc->vals[dag->constraint_idx[c]];
            if (v == 0)
                continue;
            if (failure) {
                failure->air = a;
                failure->constraint = c;
                failure->row = r;
                failure->bus = 0;
            }
            return gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                                "AIR %zu '%s': constraint %zu (DAG node %u) is %u, not 0, "
                                "on row %zu of %zu",
                                a, air->name, c, dag->constraint_idx[c], bb_to_canonical(v), r, H);
        }
        for (size_t i = 0; i < dag->num_interactions; i++) {
            const gs_dag_interaction *it = &dag->interactions[i];
            bb_t count = sc->vals[it->count];
            if (count == 0)
                continue;
            for (size_t j = 0; j < it->message_len; j++)
                sc->msg[j] = sc->vals[it->message[j]];
            if (!lu_add(lu, it->bus_index, sc->msg, it->message_len, count, a, r, i))
                return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "check: out of memory");
        }
    }
    return GLSTARK_OK;
}

/* Every (bus, message) must have net count 0 over all AIRs. */
static glstark_status check_buses(const lu_table *lu, glstark_check_failure *failure, gs_error *err)
{
    for (size_t i = 0; i < lu->n; i++) {
        const lu_entry *e = &lu->e[i];
        if (e->net == 0)
            continue;
        if (failure) {
            failure->air = e->air;
            failure->constraint = SIZE_MAX;
            failure->row = e->row;
            failure->bus = e->bus;
        }
        char m[256];
        size_t off = 0;
        for (size_t j = 0; j < e->key_len && off + 16 < sizeof m; j++)
            off += (size_t)snprintf(m + off, sizeof m - off, "%s%u", j ? ", " : "",
                                    bb_to_canonical(lu->pool[e->key_off + j]));
        return gs_error_set(err, GLSTARK_ERR_UNSATISFIED,
                            "LogUp: bus %u does not balance: message [%s] has net count %u, not 0 "
                            "(first sent by AIR %zu interaction %zu on row %zu)",
                            (unsigned)e->bus, m, bb_to_canonical(e->net), e->air, e->interaction, e->row);
    }
    return GLSTARK_OK;
}

glstark_status gs_check_constraints(glstark_air *const *airs, size_t num_airs,
                                    const gs_air_trace_view *traces,
                                    glstark_check_failure *failure, gs_error *err)
{
    if ((num_airs && (!airs || !traces)))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "check: NULL AIRs or traces");
    glstark_status st = GLSTARK_OK;
    lu_table lu;
    memset(&lu, 0, sizeof lu);
    for (size_t a = 0; a < num_airs && st == GLSTARK_OK; a++) {
        glstark_air *air = airs[a];
        const gs_air_trace_view *tv = &traces[a];
        if (!air) {
            st = gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "check: AIR %zu is NULL", a);
            break;
        }
        if (tv->height == 0)
            continue; /* absent */
        if ((st = check_trace_inputs(air, a, tv, err)))
            break;
        const gs_dag *dag = gs_air_dag(air, err);
        if (!dag) {
            st = err ? err->status : GLSTARK_ERR_INVALID_ARGUMENT;
            break;
        }
        air_scratch sc;
        memset(&sc, 0, sizeof sc);
        st = scratch_setup(&sc, air, tv, dag, err);
        if (!st)
            st = check_rows(air, a, tv, dag, &sc, &lu, failure, err);
        scratch_free(&sc);
    }
    if (st == GLSTARK_OK)
        st = check_buses(&lu, failure, err);
    lu_free(&lu);
    return st;
}

glstark_status glstark_check_constraints(glstark_air *const *airs, size_t num_airs,
                                         const glstark_air_trace *traces,
                                         glstark_check_failure *failure, char *msg, size_t msg_len)
{
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = GLSTARK_OK;
    gs_air_trace_view *views = NULL;
    bb_t **bufs = NULL; /* per AIR: converted main parts, in one allocation */
    const bb_t ***partptrs = NULL;
    bb_t **pubs = NULL;
    if (num_airs && (!airs || !traces)) {
        st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT, "check: NULL AIRs or traces");
        goto out;
    }
    views = calloc(num_airs ? num_airs : 1, sizeof *views);
    bufs = calloc(num_airs ? num_airs : 1, sizeof *bufs);
    partptrs = calloc(num_airs ? num_airs : 1, sizeof *partptrs);
    pubs = calloc(num_airs ? num_airs : 1, sizeof *pubs);
    if (!views || !bufs || !partptrs || !pubs) {
        st = gs_error_set(&err, GLSTARK_ERR_OUT_OF_MEMORY, "check: out of memory");
        goto out;
    }
    for (size_t a = 0; a < num_airs; a++) {
        const glstark_air *air = airs[a];
        const glstark_air_trace *t = &traces[a];
        if (!air) {
            st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT, "check: AIR %zu is NULL", a);
            goto out;
        }
        views[a].height = t->height;
        if (t->height == 0)
            continue;
        size_t H = t->height;
        if (H & (H - 1)) {
            st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "check: AIR %zu '%s' trace height %zu is not a power of two", a, air->name, H);
            goto out;
        }
        if (t->num_public_values != air->num_public_values ||
            (air->num_public_values && !t->public_values)) {
            st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "check: AIR %zu '%s' expects %zu public values, the trace gives %zu", a,
                              air->name, air->num_public_values, t->num_public_values);
            goto out;
        }
        if (t->common_main.width != air->common_main_width ||
            (air->common_main_width && !t->common_main.values)) {
            st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "check: AIR %zu '%s' has %zu common main columns, the trace has %zu", a,
                              air->name, air->common_main_width, t->common_main.width);
            goto out;
        }
        size_t total = air->common_main_width;
        for (size_t p = 0; p < air->num_cached_mains; p++) {
            if (!t->cached_mains || t->cached_mains[p].width != air->cached_main_widths[p] ||
                !t->cached_mains[p].values) {
                st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT,
                                  "check: AIR %zu '%s' cached main %zu has the wrong width or no data",
                                  a, air->name, p);
                goto out;
            }
            total += air->cached_main_widths[p];
        }
        if (total > SIZE_MAX / sizeof(bb_t) / H) {
            st = gs_error_set(&err, GLSTARK_ERR_INVALID_ARGUMENT, "check: trace too large");
            goto out;
        }
        size_t nparts = gs_air_num_main_parts(air);
        bufs[a] = malloc(total * H * sizeof(bb_t));
        partptrs[a] = malloc((nparts ? nparts : 1) * sizeof(bb_t *));
        pubs[a] = malloc((air->num_public_values ? air->num_public_values : 1) * sizeof(bb_t));
        if (!bufs[a] || !partptrs[a] || !pubs[a]) {
            st = gs_error_set(&err, GLSTARK_ERR_OUT_OF_MEMORY, "check: out of memory");
            goto out;
        }
        size_t off = 0;
        for (size_t p = 0; p < nparts; p++) {
            const glstark_trace_part *src = p < air->num_cached_mains ? &t->cached_mains[p] : &t->common_main;
            size_t n = src->width * H;
            for (size_t i = 0; i < n; i++)
                bufs[a][off + i] = bb_from_canonical(src->values[i]);
            partptrs[a][p] = bufs[a] + off;
            off += n;
        }
        for (size_t i = 0; i < air->num_public_values; i++)
            pubs[a][i] = bb_from_canonical(t->public_values[i]);
        views[a].main_parts = (const bb_t *const *)partptrs[a];
        views[a].public_values = pubs[a];
    }
    st = gs_check_constraints(airs, num_airs, views, failure, &err);
out:
    if (msg && msg_len) {
        snprintf(msg, msg_len, "%s", st ? err.msg : "");
    }
    if (bufs)
        for (size_t a = 0; a < num_airs; a++) {
            free(bufs[a]);
            free((void *)partptrs[a]);
            free(pubs[a]);
        }
    free(views);
    free(bufs);
    free((void *)partptrs);
    free(pubs);
    return st;
}
