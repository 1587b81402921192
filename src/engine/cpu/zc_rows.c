#include "engine/cpu/zc_rows.h"

#include <stdlib.h>

int gs_cpu_rowbuf_init(gs_cpu_rowbuf *rb, const gs_zc_trace *t)
{
    size_t total = 0;
    for (uint32_t p = 0; p < t->n_parts; p++)
        total += 2 * (size_t)t->part_widths[p];
    rb->vals = calloc(total ? total : 1, sizeof(bb_t));
    rb->cols = calloc(t->n_parts ? t->n_parts : 1, sizeof(*rb->cols));
    rb->nodes = calloc(t->dag->n_nodes ? t->dag->n_nodes : 1, sizeof(bb_t));
    if (!rb->vals || !rb->cols || !rb->nodes) {
        gs_cpu_rowbuf_free(rb);
        return -1;
    }
    size_t off = 0;
    for (uint32_t p = 0; p < t->n_parts; p++) {
        rb->cols[p] = rb->vals + off;
        off += 2 * (size_t)t->part_widths[p];
    }
    return 0;
}

void gs_cpu_rowbuf_free(gs_cpu_rowbuf *rb)
{
    free(rb->vals);
    free(rb->cols);
    free(rb->nodes);
    rb->vals = NULL;
    rb->cols = NULL;
    rb->nodes = NULL;
}

void gs_cpu_eval_row(const gs_zc_trace *t, gs_cpu_rowbuf *rb, size_t i)
{
    size_t h = (size_t)1 << t->log_height;
    size_t r = i & (h - 1), nx = (r + 1) & (h - 1);
    size_t off = 0;
    for (uint32_t p = 0; p < t->n_parts; p++) {
        const bb_t *m = (const bb_t *)t->parts[p]->host + gs_zc_part_offset(t, p);
        for (uint32_t c = 0; c < t->part_widths[p]; c++) {
            rb->vals[off + 2 * c] = m[(size_t)c * h + r];
            rb->vals[off + 2 * c + 1] = m[(size_t)c * h + nx];
        }
        off += 2 * (size_t)t->part_widths[p];
    }
    gs_cdag_env_base env;
    env.cols = rb->cols;
    env.sel[0] = r == 0 ? bb_one() : 0;
    env.sel[1] = r == h - 1 ? bb_one() : 0;
    env.sel[2] = r == h - 1 ? 0 : bb_one();
    env.publics = t->publics;
    env.stride = 1;
    gs_cdag_eval_base(t->dag, &env, rb->nodes);
}

bb4_t gs_cpu_interaction_denominator(const gs_cdag *d, uint32_t k, const bb_t *nodes, bb4_t beta)
{
    const gs_cinteraction *it = &d->interactions[k];
    bb4_t acc = bb4_zero(), pw = bb4_one();
    for (uint32_t j = 0; j < it->message_len; j++) {
        acc = bb4_add(acc, bb4_mul_base(pw, nodes[it->message[j]]));
        pw = bb4_mul(pw, beta);
    }
    return bb4_add(acc, bb4_mul_base(pw, bb_from_u32((uint32_t)it->bus_index + 1)));
}
