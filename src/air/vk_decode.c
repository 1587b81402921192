/* Reading a verifying key back from its postcard bytes (the inverse of
 * vk_codec.c), so a verifier can load OpenVM's or glstark's vk without the
 * AIR code. Every length, index and tag is checked: malformed input gives
 * GLSTARK_ERR_MALFORMED with the byte offset, never a crash. */
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "common/codec_io.h"

#define VK_WHAT "verifying key bytes"
#define VK_FORMAT "an OpenVM v2.0.1 verifying key (u32 version 3, u64 length, postcard MultiStarkVerifyingKey0)"

/* The reads below return their value (0 after a failure) and leave the
 * failure in the reader, which makes every later read fail at once (see
 * gs_reader.failed): the decoder reads a run of fields and checks
 * rd->failed where it must stop (before an allocation, at a loop). */

static uint64_t get_bounded(gs_reader *rd, uint64_t max, const char *what)
{
    uint64_t v = 0;
    gs_rd_varint(rd, &v, max, "%s", what);
    return v;
}

static uint64_t get_varint(gs_reader *rd, const char *what) { return get_bounded(rd, UINT64_MAX, what); }

static uint8_t get_u8(gs_reader *rd, const char *what)
{
    uint8_t b = 0;
    gs_rd_u8(rd, &b, "%s", what);
    return b;
}

static int get_bool(gs_reader *rd, const char *what)
{
    const size_t at = rd->pos;
    uint8_t b = get_u8(rd, what);
    if (b > 1)
        gs_rd_fail(rd, at, what, "%u is not a bool (0 or 1)", b);
    return b == 1;
}

/* a length that cannot exceed the remaining bytes (every element takes >= 1 byte) */
static size_t get_len(gs_reader *rd, const char *what)
{
    size_t n = 0;
    gs_rd_varint_len(rd, &n, 1, "%s", what);
    return n;
}

static bb_t get_field(gs_reader *rd, const char *what)
{
    const size_t at = rd->pos;
    uint64_t v = get_varint(rd, what);
    if (v >= BB_P) {
        gs_rd_fail(rd, at, what, "field element %llu is not below p = %u", (unsigned long long)v, (unsigned)BB_P);
        return 0;
    }
    return (bb_t)v; /* Montgomery form, as serialized */
}

static void get_symvar(gs_reader *rd, gs_symvar *v)
{
    memset(v, 0, sizeof *v);
    v->entry = (uint32_t)get_bounded(rd, GS_ENTRY_CHALLENGE, "variable entry tag");
    if (v->entry == GS_ENTRY_PREPROCESSED) {
        v->offset = (uint32_t)get_bounded(rd, 1, "variable offset");
    } else if (v->entry == GS_ENTRY_MAIN) {
        v->part_index = (uint32_t)get_bounded(rd, UINT32_MAX, "main part index");
        v->offset = (uint32_t)get_bounded(rd, 1, "variable offset");
    }
    v->index = (uint32_t)get_bounded(rd, UINT32_MAX, "variable index");
}

static void get_params(gs_reader *rd, gs_system_params *p)
{
    memset(p, 0, sizeof *p);
    p->l_skip = (size_t)get_bounded(rd, 64, "l_skip");
    p->n_stack = (size_t)get_bounded(rd, 64, "n_stack");
    p->w_stack = (size_t)get_bounded(rd, SIZE_MAX, "w_stack");
    p->log_blowup = (size_t)get_bounded(rd, 64, "log_blowup");
    const size_t at_k = rd->pos;
    p->whir.k = (size_t)get_bounded(rd, 64, "whir k");
    p->whir.num_rounds = (size_t)get_bounded(rd, GS_WHIR_MAX_ROUNDS, "whir round count");
    for (size_t i = 0; i < p->whir.num_rounds; i++)
        p->whir.num_queries[i] = (size_t)get_bounded(rd, SIZE_MAX, "whir num_queries");
    p->whir.mu_pow_bits = (size_t)get_bounded(rd, 64, "mu_pow_bits");
    p->whir.query_phase_pow_bits = (size_t)get_bounded(rd, 64, "query_phase_pow_bits");
    p->whir.folding_pow_bits = (size_t)get_bounded(rd, 64, "folding_pow_bits");
    p->whir.proximity.kind = (gs_whir_proximity_kind)get_bounded(rd, 2, "proximity tag");
    if (p->whir.proximity.kind == GS_PROXIMITY_SPLIT_UNIQUE_LIST) {
        p->whir.proximity.m = (size_t)get_varint(rd, "proximity m");
        p->whir.proximity.list_start_round = (size_t)get_varint(rd, "list_start_round");
    } else if (p->whir.proximity.kind == GS_PROXIMITY_LIST_DECODING) {
        p->whir.proximity.m = (size_t)get_varint(rd, "proximity m");
    }
    p->logup.max_interaction_count = (uint32_t)get_bounded(rd, UINT32_MAX, "max_interaction_count");
    p->logup.log_max_message_length = (uint32_t)get_bounded(rd, 31, "log_max_message_length");
    p->logup.pow_bits = (size_t)get_bounded(rd, 64, "logup pow_bits");
    p->max_constraint_degree = (size_t)get_bounded(rd, 255, "max_constraint_degree");
    if (!rd->failed && p->whir.k == 0)
        gs_rd_fail(rd, at_k, "whir k", "the folding factor is 0 (it must be at least 1)");
}

static void get_node(gs_reader *rd, gs_dag_node *n, size_t self)
{
    const size_t at = rd->pos;
    memset(n, 0, sizeof *n);
    n->kind = (uint32_t)get_bounded(rd, GS_NODE_MUL, "node tag");
    switch (n->kind) {
    case GS_NODE_VAR:
        get_symvar(rd, &n->var);
        break;
    case GS_NODE_CONST:
        n->constant = get_field(rd, "constant");
        break;
    case GS_NODE_ADD:
    case GS_NODE_SUB:
    case GS_NODE_MUL:
        n->left = (uint32_t)get_bounded(rd, UINT32_MAX, "left index");
        n->right = (uint32_t)get_bounded(rd, UINT32_MAX, "right index");
        n->dm = (uint32_t)get_bounded(rd, UINT32_MAX, "degree_multiple");
        if (!rd->failed && (n->left >= self || n->right >= self))
            gs_rd_fail(rd, at, "node", "node %zu's children %u and %u are not both before it (nodes are in "
                       "topological order)", self, n->left, n->right);
        break;
    case GS_NODE_NEG:
        n->left = (uint32_t)get_bounded(rd, UINT32_MAX, "child index");
        n->dm = (uint32_t)get_bounded(rd, UINT32_MAX, "degree_multiple");
        if (!rd->failed && n->left >= self)
            gs_rd_fail(rd, at, "node", "node %zu's child %u is not before it (nodes are in topological order)",
                       self, n->left);
        break;
    default:
        break;
    }
}

static void get_interaction(gs_reader *rd, gs_dag_interaction *it, size_t nn)
{
    it->message_len = get_len(rd, "message length");
    if (rd->failed)
        return;
    it->message = gs_rd_calloc(rd, it->message_len, sizeof(uint32_t), "an interaction's message");
    if (!it->message)
        return;
    for (size_t j = 0; j < it->message_len; j++)
        it->message[j] = (uint32_t)get_bounded(rd, nn ? nn - 1 : 0, "message node index");
    const size_t at = rd->pos;
    it->count = (uint32_t)get_bounded(rd, nn ? nn - 1 : 0, "count node index");
    if (!rd->failed && nn == 0)
        gs_rd_fail(rd, at, "count node index", "an interaction in an AIR without DAG nodes");
    it->bus_index = (uint16_t)get_bounded(rd, UINT16_MAX, "bus index");
    it->count_weight = (uint32_t)get_bounded(rd, UINT32_MAX, "count_weight");
}

/* The DAG: nodes, constraint indices, interactions. */
static void get_dag(gs_reader *rd, gs_dag *dag)
{
    size_t nn = get_len(rd, "node count");
    if (rd->failed || !(dag->nodes = gs_rd_calloc(rd, nn, sizeof(gs_dag_node), "DAG nodes")))
        return;
    for (size_t i = 0; i < nn && !rd->failed; i++) {
        get_node(rd, &dag->nodes[i], i);
        dag->num_nodes = i + 1;
    }
    size_t nc = get_len(rd, "constraint count");
    if (rd->failed || !(dag->constraint_idx = gs_rd_calloc(rd, nc, sizeof(uint32_t), "constraint indices")))
        return;
    for (size_t i = 0; i < nc && !rd->failed; i++) {
        const size_t at = rd->pos;
        dag->constraint_idx[i] = (uint32_t)get_bounded(rd, nn ? nn - 1 : 0, "constraint index");
        if (!rd->failed && nn == 0)
            gs_rd_fail(rd, at, "constraint index", "a constraint in an AIR without DAG nodes");
        dag->num_constraints = i + 1;
    }
    size_t ni = get_len(rd, "interaction count");
    if (rd->failed || !(dag->interactions = gs_rd_calloc(rd, ni, sizeof(gs_dag_interaction), "interactions")))
        return;
    for (size_t i = 0; i < ni && !rd->failed; i++) {
        dag->num_interactions = i + 1;
        get_interaction(rd, &dag->interactions[i], nn);
    }
}

static void get_air_vk(gs_reader *rd, gs_air_vk *v)
{
    memset(v, 0, sizeof *v);
    v->has_preprocessed_data = get_bool(rd, "preprocessed_data tag");
    if (v->has_preprocessed_data) {
        for (int i = 0; i < GS_VK_DIGEST_LEN; i++)
            v->preprocessed_data.commit[i] = get_field(rd, "preprocessed commit");
        uint64_t z = get_varint(rd, "hypercube_dim");
        v->preprocessed_data.hypercube_dim = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
        v->preprocessed_data.stacking_width = (size_t)get_bounded(rd, SIZE_MAX, "stacking_width");
    }
    v->has_preprocessed_width = get_bool(rd, "preprocessed width tag");
    if (v->has_preprocessed_width)
        v->preprocessed_width = (size_t)get_bounded(rd, UINT32_MAX, "preprocessed width");
    v->num_cached_mains = get_len(rd, "cached_mains length");
    if (rd->failed)
        return;
    if (v->num_cached_mains &&
        !(v->cached_main_widths = gs_rd_calloc(rd, v->num_cached_mains, sizeof(size_t), "cached main widths")))
        return;
    for (size_t i = 0; i < v->num_cached_mains; i++)
        v->cached_main_widths[i] = (size_t)get_bounded(rd, UINT32_MAX, "cached main width");
    v->common_main_width = (size_t)get_bounded(rd, UINT32_MAX, "common main width");
    v->num_public_values = (size_t)get_bounded(rd, UINT32_MAX, "num_public_values");
    v->need_rot = get_bool(rd, "need_rot");
    get_dag(rd, &v->dag);
    v->max_constraint_degree = get_u8(rd, "max_constraint_degree");
    v->is_required = get_bool(rd, "is_required");
    size_t nu = get_len(rd, "unused variable count");
    if (rd->failed || !(v->unused_variables = gs_rd_calloc(rd, nu, sizeof(gs_symvar), "unused variables")))
        return;
    for (size_t i = 0; i < nu && !rd->failed; i++) {
        get_symvar(rd, &v->unused_variables[i]);
        v->num_unused_variables = i + 1;
    }
}

/* MultiStarkVerifyingKey0 from rd->pos to the end of the bytes. */
static glstark_status get_multi_vk(gs_reader *rd, gs_multi_vk *out)
{
    get_params(rd, &out->params);
    size_t na = get_len(rd, "AIR count");
    if (!rd->failed)
        out->per_air = gs_rd_calloc(rd, na, sizeof(gs_air_vk), "AIR keys");
    for (size_t a = 0; a < na && !rd->failed; a++) {
        out->num_airs = a + 1;
        get_air_vk(rd, &out->per_air[a]);
    }
    size_t nt = get_len(rd, "trace height constraint count");
    if (!rd->failed)
        out->trace_height_constraints = gs_rd_calloc(rd, nt, sizeof(gs_linear_constraint), "trace height constraints");
    for (size_t c = 0; c < nt && !rd->failed; c++) {
        gs_linear_constraint *lc = &out->trace_height_constraints[c];
        out->num_trace_height_constraints = c + 1;
        const size_t at = rd->pos;
        size_t nco = get_len(rd, "coefficient count");
        if (!rd->failed && nco != na)
            gs_rd_fail(rd, at, "coefficient count", "%zu coefficients but %zu AIRs (one per AIR)", nco, na);
        if (rd->failed || !(lc->coefficients = gs_rd_calloc(rd, na, sizeof(uint32_t), "coefficients")))
            break;
        for (size_t a = 0; a < na; a++)
            lc->coefficients[a] = (uint32_t)get_bounded(rd, UINT32_MAX, "coefficient");
        lc->threshold = (uint32_t)get_bounded(rd, UINT32_MAX, "threshold");
    }
    if (!rd->failed && gs_reader_remaining(rd))
        gs_rd_fail(rd, rd->pos, "end of the key", "%zu trailing bytes after the verifying key",
                   gs_reader_remaining(rd));
    if (rd->failed)
        gs_multi_vk_free(out);
    return rd->failed;
}

glstark_status gs_vk_from_postcard(const uint8_t *bytes, size_t len, gs_multi_vk *out,
                                   gs_error *err)
{
    if (!out || (!bytes && len))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "vk decoding: NULL argument");
    memset(out, 0, sizeof *out);
    gs_reader rd;
    gs_reader_init_format(&rd, bytes, len, VK_WHAT, "postcard MultiStarkVerifyingKey0 of OpenVM v2.0.1", err);
    return get_multi_vk(&rd, out);
}

glstark_status gs_vk_from_prevk_bytes(const uint8_t *bytes, size_t len, gs_multi_vk *out,
                                      gs_error *err)
{
    if (!out)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "vk decoding: NULL argument");
    memset(out, 0, sizeof *out);
    gs_reader rd;
    gs_reader_init_format(&rd, bytes, bytes ? len : 0, VK_WHAT, VK_FORMAT, err);
    uint32_t ver = 0;
    uint64_t n = 0;
    glstark_status st;
    if ((st = gs_rd_u32(&rd, &ver, "codec version")))
        return st;
    if (ver != 3)
        return gs_rd_fail(&rd, 0, "codec version", "version %u, expected 3", ver);
    if ((st = gs_rd_u64(&rd, &n, "postcard length")))
        return st;
    if (n != gs_reader_remaining(&rd))
        return gs_rd_fail(&rd, 4, "postcard length", "the header says %llu postcard bytes but %zu follow",
                          (unsigned long long)n, gs_reader_remaining(&rd));
    /* offsets in messages count from the start of the header */
    return get_multi_vk(&rd, out);
}
