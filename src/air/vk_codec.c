/* The verifying key in postcard (serde) bytes, as postcard 1.x writes
 * MultiStarkVerifyingKey0 (docs/protocol.md, 'Codecs and the
 * verifying key'): integers as LEB128
 * varints (isize zigzag first), u8/bool as one raw byte, Option as a 0/1 tag,
 * Vec as varint length then elements, enums as varint variant index then
 * fields. BabyBear is written as p3 0.4.3 serializes it: the varint of its
 * MONTGOMERY value (which is exactly how bb_t holds it). */
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "hash/poseidon2.h"
#include "util/bytebuf.h"

typedef gs_bytebuf wbuf;

static void put_u8(wbuf *w, uint8_t v) { gs_bytebuf_put(w, &v, 1); }

static void put_varint(wbuf *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        uint8_t x = v & 0x7f;
        v >>= 7;
        b[n++] = v ? (uint8_t)(x | 0x80) : x;
    } while (v);
    gs_bytebuf_put(w, b, n);
}

static void put_zigzag(wbuf *w, int64_t v)
{
    put_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_field(wbuf *w, bb_t mont) { put_varint(w, mont); }

static void put_symvar(wbuf *w, const gs_symvar *v)
{
    put_varint(w, v->entry);
    if (v->entry == GS_ENTRY_PREPROCESSED) {
        put_varint(w, v->offset);
    } else if (v->entry == GS_ENTRY_MAIN) {
        put_varint(w, v->part_index);
        put_varint(w, v->offset);
    }
    put_varint(w, v->index);
    /* PhantomData: nothing */
}

static void put_params(wbuf *w, const gs_system_params *p)
{
    put_varint(w, p->l_skip);
    put_varint(w, p->n_stack);
    put_varint(w, p->w_stack);
    put_varint(w, p->log_blowup);
    put_varint(w, p->whir.k);
    put_varint(w, p->whir.num_rounds);
    for (size_t r = 0; r < p->whir.num_rounds; r++)
        put_varint(w, p->whir.num_queries[r]);
    put_varint(w, p->whir.mu_pow_bits);
    put_varint(w, p->whir.query_phase_pow_bits);
    put_varint(w, p->whir.folding_pow_bits);
    put_varint(w, (uint64_t)p->whir.proximity.kind);
    switch (p->whir.proximity.kind) {
    case GS_PROXIMITY_SPLIT_UNIQUE_LIST:
        put_varint(w, p->whir.proximity.m);
        put_varint(w, p->whir.proximity.list_start_round);
        break;
    case GS_PROXIMITY_LIST_DECODING:
        put_varint(w, p->whir.proximity.m);
        break;
    default:
        break;
    }
    put_varint(w, p->logup.max_interaction_count);
    put_varint(w, p->logup.log_max_message_length);
    put_varint(w, p->logup.pow_bits);
    put_varint(w, p->max_constraint_degree);
}

static void put_node(wbuf *w, const gs_dag_node *n)
{
    put_varint(w, n->kind);
    switch (n->kind) {
    case GS_NODE_VAR:
        put_symvar(w, &n->var);
        break;
    case GS_NODE_CONST:
        put_field(w, n->constant);
        break;
    case GS_NODE_ADD:
    case GS_NODE_SUB:
    case GS_NODE_MUL:
        put_varint(w, n->left);
        put_varint(w, n->right);
        put_varint(w, n->dm);
        break;
    case GS_NODE_NEG:
        put_varint(w, n->left);
        put_varint(w, n->dm);
        break;
    default:
        break;
    }
}

static void put_air_vk(wbuf *w, const gs_air_vk *v)
{
    if (v->has_preprocessed_data) {
        put_u8(w, 1);
        for (int i = 0; i < GS_VK_DIGEST_LEN; i++)
            put_field(w, v->preprocessed_data.commit[i]);
        put_zigzag(w, v->preprocessed_data.hypercube_dim);
        put_varint(w, v->preprocessed_data.stacking_width);
    } else {
        put_u8(w, 0);
    }
    /* StarkVerifyingParams { width: TraceWidth, num_public_values, need_rot } */
    if (v->has_preprocessed_width) {
        put_u8(w, 1);
        put_varint(w, v->preprocessed_width);
    } else {
        put_u8(w, 0);
    }
    put_varint(w, v->num_cached_mains);
    for (size_t i = 0; i < v->num_cached_mains; i++)
        put_varint(w, v->cached_main_widths[i]);
    put_varint(w, v->common_main_width);
    put_varint(w, v->num_public_values);
    put_u8(w, v->need_rot ? 1 : 0);
    /* SymbolicConstraintsDag */
    put_varint(w, v->dag.num_nodes);
    for (size_t i = 0; i < v->dag.num_nodes; i++)
        put_node(w, &v->dag.nodes[i]);
    put_varint(w, v->dag.num_constraints);
    for (size_t i = 0; i < v->dag.num_constraints; i++)
        put_varint(w, v->dag.constraint_idx[i]);
    put_varint(w, v->dag.num_interactions);
    for (size_t i = 0; i < v->dag.num_interactions; i++) {
        const gs_dag_interaction *it = &v->dag.interactions[i];
        put_varint(w, it->message_len);
        for (size_t j = 0; j < it->message_len; j++)
            put_varint(w, it->message[j]);
        put_varint(w, it->count);
        put_varint(w, it->bus_index);
        put_varint(w, it->count_weight);
    }
    put_u8(w, v->max_constraint_degree);
    put_u8(w, v->is_required ? 1 : 0);
    put_varint(w, v->num_unused_variables);
    for (size_t i = 0; i < v->num_unused_variables; i++)
        put_symvar(w, &v->unused_variables[i]);
}

glstark_status gs_vk_prevk_bytes(const gs_multi_vk *vk, uint8_t **bytes, size_t *len,
                                 gs_error *err)
{
    if (!vk || !bytes || !len)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "vk encoding: NULL argument");
    wbuf w = {0};
    uint8_t hdr[12] = {0};
    gs_bytebuf_put(&w, hdr, sizeof hdr); /* filled below once the length is known */
    put_params(&w, &vk->params);
    put_varint(&w, vk->num_airs);
    for (size_t a = 0; a < vk->num_airs; a++)
        put_air_vk(&w, &vk->per_air[a]);
    put_varint(&w, vk->num_trace_height_constraints);
    for (size_t c = 0; c < vk->num_trace_height_constraints; c++) {
        put_varint(&w, vk->num_airs);
        for (size_t a = 0; a < vk->num_airs; a++)
            put_varint(&w, vk->trace_height_constraints[c].coefficients[a]);
        put_varint(&w, vk->trace_height_constraints[c].threshold);
    }
    if (w.oom) {
        free(w.p);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "vk encoding: out of memory");
    }
    /* CODEC_VERSION = 3 as u32 LE, then the postcard length as u64 LE */
    uint64_t n = w.len - 12;
    w.p[0] = 3;
    w.p[1] = w.p[2] = w.p[3] = 0;
    for (int i = 0; i < 8; i++)
        w.p[4 + i] = (uint8_t)(n >> (8 * i));
    *bytes = w.p;
    *len = w.len;
    return GLSTARK_OK;
}

/* The pre-hash (keygen/mod.rs): the Poseidon2 sponge (hash_slice, the Merkle
 * leaf hasher) over the pre-hash input bytes, one field element per byte. */
glstark_status gs_vk_compute_pre_hash(gs_multi_vk *vk, gs_error *err)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    glstark_status st = gs_vk_prevk_bytes(vk, &bytes, &len, err);
    if (st)
        return st;
    bb_t *elems = malloc((len ? len : 1) * sizeof *elems);
    if (!elems) {
        free(bytes);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "vk pre-hash: out of memory");
    }
    for (size_t i = 0; i < len; i++)
        elems[i] = bb_from_canonical(bytes[i]);
    gs_poseidon2_hash(elems, len, vk->pre_hash);
    vk->has_pre_hash = 1;
    free(elems);
    free(bytes);
    return GLSTARK_OK;
}
