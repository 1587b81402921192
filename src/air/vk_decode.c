/* Reading a verifying key back from its postcard bytes (the inverse of
 * vk_codec.c), so a verifier can load OpenVM's or glstark's vk without the
 * AIR code. Every length, index and tag is checked: malformed input gives
 * GLSTARK_ERR_MALFORMED with the byte offset, never a crash. */
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"

typedef struct rbuf {
    const uint8_t *p;
    size_t len, pos;
    gs_error *err;
    int bad;
} rbuf;

static int bad(rbuf *r, const char *what)
{
    if (!r->bad)
        gs_error_set(r->err, GLSTARK_ERR_MALFORMED,
                     "verifying key bytes: %s at byte %zu of %zu", what, r->pos, r->len);
    r->bad = 1;
    return 0;
}

static uint64_t get_varint(rbuf *r, const char *what)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->bad)
            return 0;
        if (r->pos >= r->len) {
            bad(r, what);
            return 0;
        }
        uint8_t b = r->p[r->pos++];
        if (shift == 63 && (b & 0xfe)) {
            bad(r, "varint overflow");
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    bad(r, "varint too long");
    return 0;
}

static uint64_t get_bounded(rbuf *r, uint64_t max, const char *what)
{
    uint64_t v = get_varint(r, what);
    if (!r->bad && v > max) {
        bad(r, what);
        return 0;
    }
    return v;
}

static uint8_t get_u8(rbuf *r, const char *what)
{
    if (r->bad)
        return 0;
    if (r->pos >= r->len) {
        bad(r, what);
        return 0;
    }
    return r->p[r->pos++];
}

static int get_bool(rbuf *r, const char *what)
{
    uint8_t b = get_u8(r, what);
    if (b > 1)
        bad(r, what);
    return b == 1;
}

/* a length that cannot exceed the remaining bytes (every element takes >= 1 byte) */
static size_t get_len(rbuf *r, const char *what)
{
    uint64_t n = get_varint(r, what);
    if (!r->bad && n > r->len - r->pos)
        bad(r, what);
    return r->bad ? 0 : (size_t)n;
}

static bb_t get_field(rbuf *r, const char *what)
{
    uint64_t v = get_varint(r, what);
    if (!r->bad && v >= BB_P)
        bad(r, "field element not below p");
    return (bb_t)v; /* Montgomery form, as serialized */
}

static void get_symvar(rbuf *r, gs_symvar *v)
{
    memset(v, 0, sizeof *v);
    v->entry = (uint32_t)get_bounded(r, GS_ENTRY_CHALLENGE, "variable entry tag");
    if (v->entry == GS_ENTRY_PREPROCESSED) {
        v->offset = (uint32_t)get_bounded(r, 1, "variable offset");
    } else if (v->entry == GS_ENTRY_MAIN) {
        v->part_index = (uint32_t)get_bounded(r, UINT32_MAX, "main part index");
        v->offset = (uint32_t)get_bounded(r, 1, "variable offset");
    }
    v->index = (uint32_t)get_bounded(r, UINT32_MAX, "variable index");
}

static void get_params(rbuf *r, gs_system_params *p)
{
    memset(p, 0, sizeof *p);
    p->l_skip = (size_t)get_bounded(r, 64, "l_skip");
    p->n_stack = (size_t)get_bounded(r, 64, "n_stack");
    p->w_stack = (size_t)get_bounded(r, SIZE_MAX, "w_stack");
    p->log_blowup = (size_t)get_bounded(r, 64, "log_blowup");
    p->whir.k = (size_t)get_bounded(r, 64, "whir k");
    p->whir.num_rounds = (size_t)get_bounded(r, GS_WHIR_MAX_ROUNDS, "whir round count");
    for (size_t i = 0; i < p->whir.num_rounds; i++)
        p->whir.num_queries[i] = (size_t)get_bounded(r, SIZE_MAX, "whir num_queries");
    p->whir.mu_pow_bits = (size_t)get_bounded(r, 64, "mu_pow_bits");
    p->whir.query_phase_pow_bits = (size_t)get_bounded(r, 64, "query_phase_pow_bits");
    p->whir.folding_pow_bits = (size_t)get_bounded(r, 64, "folding_pow_bits");
    p->whir.proximity.kind = (gs_whir_proximity_kind)get_bounded(r, 2, "proximity tag");
    if (p->whir.proximity.kind == GS_PROXIMITY_SPLIT_UNIQUE_LIST) {
        p->whir.proximity.m = (size_t)get_varint(r, "proximity m");
        p->whir.proximity.list_start_round = (size_t)get_varint(r, "list_start_round");
    } else if (p->whir.proximity.kind == GS_PROXIMITY_LIST_DECODING) {
        p->whir.proximity.m = (size_t)get_varint(r, "proximity m");
    }
    p->logup.max_interaction_count = (uint32_t)get_bounded(r, UINT32_MAX, "max_interaction_count");
    p->logup.log_max_message_length = (uint32_t)get_bounded(r, 31, "log_max_message_length");
    p->logup.pow_bits = (size_t)get_bounded(r, 64, "logup pow_bits");
    p->max_constraint_degree = (size_t)get_bounded(r, 255, "max_constraint_degree");
    if (!r->bad && p->whir.k == 0)
        bad(r, "whir k is 0");
}

static void get_node(rbuf *r, gs_dag_node *n, size_t self)
{
    memset(n, 0, sizeof *n);
    n->kind = (uint32_t)get_bounded(r, GS_NODE_MUL, "node tag");
    switch (n->kind) {
    case GS_NODE_VAR:
        get_symvar(r, &n->var);
        break;
    case GS_NODE_CONST:
        n->constant = get_field(r, "constant");
        break;
    case GS_NODE_ADD:
    case GS_NODE_SUB:
    case GS_NODE_MUL:
        n->left = (uint32_t)get_bounded(r, UINT32_MAX, "left index");
        n->right = (uint32_t)get_bounded(r, UINT32_MAX, "right index");
        n->dm = (uint32_t)get_bounded(r, UINT32_MAX, "degree_multiple");
        if (!r->bad && (n->left >= self || n->right >= self))
            bad(r, "node child not before its parent");
        break;
    case GS_NODE_NEG:
        n->left = (uint32_t)get_bounded(r, UINT32_MAX, "child index");
        n->dm = (uint32_t)get_bounded(r, UINT32_MAX, "degree_multiple");
        if (!r->bad && n->left >= self)
            bad(r, "node child not before its parent");
        break;
    default:
        break;
    }
}

static void get_air_vk(rbuf *r, gs_air_vk *v)
{
    memset(v, 0, sizeof *v);
    v->has_preprocessed_data = get_bool(r, "preprocessed_data tag");
    if (v->has_preprocessed_data) {
        for (int i = 0; i < GS_VK_DIGEST_LEN; i++)
            v->preprocessed_data.commit[i] = get_field(r, "preprocessed commit");
        uint64_t z = get_varint(r, "hypercube_dim");
        v->preprocessed_data.hypercube_dim = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
        v->preprocessed_data.stacking_width = (size_t)get_bounded(r, SIZE_MAX, "stacking_width");
    }
    v->has_preprocessed_width = get_bool(r, "preprocessed width tag");
    if (v->has_preprocessed_width)
        v->preprocessed_width = (size_t)get_bounded(r, UINT32_MAX, "preprocessed width");
    v->num_cached_mains = get_len(r, "cached_mains length");
    if (r->bad)
        return;
    if (v->num_cached_mains) {
        v->cached_main_widths = calloc(v->num_cached_mains, sizeof(size_t));
        if (!v->cached_main_widths) {
            bad(r, "out of memory");
            return;
        }
    }
    for (size_t i = 0; i < v->num_cached_mains; i++)
        v->cached_main_widths[i] = (size_t)get_bounded(r, UINT32_MAX, "cached main width");
    v->common_main_width = (size_t)get_bounded(r, UINT32_MAX, "common main width");
    v->num_public_values = (size_t)get_bounded(r, UINT32_MAX, "num_public_values");
    v->need_rot = get_bool(r, "need_rot");
    size_t nn = get_len(r, "node count");
    if (r->bad)
        return;
    v->dag.nodes = malloc((nn ? nn : 1) * sizeof(gs_dag_node));
    if (!v->dag.nodes) {
        bad(r, "out of memory");
        return;
    }
    for (size_t i = 0; i < nn && !r->bad; i++) {
        get_node(r, &v->dag.nodes[i], i);
        v->dag.num_nodes = i + 1;
    }
    size_t nc = get_len(r, "constraint count");
    if (r->bad)
        return;
    v->dag.constraint_idx = malloc((nc ? nc : 1) * sizeof(uint32_t));
    if (!v->dag.constraint_idx) {
        bad(r, "out of memory");
        return;
    }
    for (size_t i = 0; i < nc && !r->bad; i++) {
        v->dag.constraint_idx[i] = (uint32_t)get_bounded(r, nn ? nn - 1 : 0, "constraint index");
        if (!r->bad && nn == 0)
            bad(r, "constraint index without nodes");
        v->dag.num_constraints = i + 1;
    }
    size_t ni = get_len(r, "interaction count");
    if (r->bad)
        return;
    v->dag.interactions = calloc(ni ? ni : 1, sizeof(gs_dag_interaction));
    if (!v->dag.interactions) {
        bad(r, "out of memory");
        return;
    }
    for (size_t i = 0; i < ni && !r->bad; i++) {
        gs_dag_interaction *it = &v->dag.interactions[i];
        v->dag.num_interactions = i + 1;
        it->message_len = get_len(r, "message length");
        if (r->bad)
            return;
        it->message = malloc((it->message_len ? it->message_len : 1) * sizeof(uint32_t));
        if (!it->message) {
            bad(r, "out of memory");
            return;
        }
        for (size_t j = 0; j < it->message_len; j++)
            it->message[j] = (uint32_t)get_bounded(r, nn ? nn - 1 : 0, "message node index");
        it->count = (uint32_t)get_bounded(r, nn ? nn - 1 : 0, "count node index");
        if (!r->bad && nn == 0)
            bad(r, "interaction without nodes");
        it->bus_index = (uint16_t)get_bounded(r, UINT16_MAX, "bus index");
        it->count_weight = (uint32_t)get_bounded(r, UINT32_MAX, "count_weight");
    }
    v->max_constraint_degree = get_u8(r, "max_constraint_degree");
    v->is_required = get_bool(r, "is_required");
    size_t nu = get_len(r, "unused variable count");
    if (r->bad)
        return;
    v->unused_variables = malloc((nu ? nu : 1) * sizeof(gs_symvar));
    if (!v->unused_variables) {
        bad(r, "out of memory");
        return;
    }
    for (size_t i = 0; i < nu && !r->bad; i++) {
        get_symvar(r, &v->unused_variables[i]);
        v->num_unused_variables = i + 1;
    }
}

glstark_status gs_vk_from_postcard(const uint8_t *bytes, size_t len, gs_multi_vk *out,
                                   gs_error *err)
{
    if (!out || (!bytes && len))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "vk decoding: NULL argument");
    memset(out, 0, sizeof *out);
    rbuf r = {bytes, len, 0, err, 0};
    get_params(&r, &out->params);
    size_t na = get_len(&r, "AIR count");
    if (!r.bad) {
        out->per_air = calloc(na ? na : 1, sizeof(gs_air_vk));
        if (!out->per_air)
            bad(&r, "out of memory");
    }
    for (size_t a = 0; a < na && !r.bad; a++) {
        out->num_airs = a + 1;
        get_air_vk(&r, &out->per_air[a]);
    }
    size_t nt = get_len(&r, "trace height constraint count");
    if (!r.bad) {
        out->trace_height_constraints = calloc(nt ? nt : 1, sizeof(gs_linear_constraint));
        if (!out->trace_height_constraints)
            bad(&r, "out of memory");
    }
    for (size_t c = 0; c < nt && !r.bad; c++) {
        gs_linear_constraint *lc = &out->trace_height_constraints[c];
        out->num_trace_height_constraints = c + 1;
        size_t nco = get_len(&r, "coefficient count");
        if (!r.bad && nco != na)
            bad(&r, "coefficient count differs from the AIR count");
        if (r.bad)
            break;
        lc->coefficients = calloc(na ? na : 1, sizeof(uint32_t));
        if (!lc->coefficients) {
            bad(&r, "out of memory");
            break;
        }
        for (size_t a = 0; a < na; a++)
            lc->coefficients[a] = (uint32_t)get_bounded(&r, UINT32_MAX, "coefficient");
        lc->threshold = (uint32_t)get_bounded(&r, UINT32_MAX, "threshold");
    }
    if (!r.bad && r.pos != len)
        bad(&r, "trailing bytes after the verifying key");
    if (r.bad) {
        gs_multi_vk_free(out);
        return GLSTARK_ERR_MALFORMED;
    }
    return GLSTARK_OK;
}

glstark_status gs_vk_from_prevk_bytes(const uint8_t *bytes, size_t len, gs_multi_vk *out,
                                      gs_error *err)
{
    if (!bytes || len < 12)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                            "verifying key: %zu bytes, shorter than the 12-byte header", len);
    uint32_t ver = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    if (ver != 3)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                            "verifying key: codec version %u, expected 3", ver);
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)bytes[4 + i] << (8 * i);
    if (n != len - 12)
        return gs_error_set(err, GLSTARK_ERR_MALFORMED,
                            "verifying key: header says %llu postcard bytes, %zu follow",
                            (unsigned long long)n, len - 12);
    return gs_vk_from_postcard(bytes + 12, len - 12, out, err);
}
