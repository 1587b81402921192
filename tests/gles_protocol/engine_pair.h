/* Helpers shared by the GLES-vs-CPU family tests (whir, reduction): a GLES
 * engine and a CPU engine side by side with a printed seed, random field
 * elements with 0 / 1 / p-1 mixed in, poisoned buffers, and whole-buffer
 * comparison. */
#ifndef TESTS_GLES_PROTOCOL_ENGINE_PAIR_H
#define TESTS_GLES_PROTOCOL_ENGINE_PAIR_H

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>

#include "../gles/gles_test_util.h"

typedef struct pair {
    gs_engine *g, *c;
    uint64_t s;
} pair;

/* A GLES engine opened with the given options and a 2-thread CPU engine. */
static inline pair ep_open_pair_opts(const gs_device_config *o, uint64_t seed)
{
    pair p;
    p.g = tu_engine(o);
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &p.c, &err), GLSTARK_OK, "%s", err.msg);
    p.s = seed;
    cr_log_info("seed %llu, binding limit %llu", (unsigned long long)seed,
                (unsigned long long)(o ? o->max_binding_bytes : 0));
    return p;
}

/* max_binding: 0 = the device's per-binding limit, else a lower one */
static inline pair ep_open_pair(uint64_t max_binding, uint64_t seed)
{
    gs_device_config o = tu_config();
    o.max_binding_bytes = max_binding;
    return ep_open_pair_opts(&o, seed);
}

static inline void close_pair(pair *p)
{
    gs_engine_destroy(p->g);
    gs_engine_destroy(p->c);
}

/* A field element: mostly random, sometimes 0, 1 or p-1. */
static inline bb_t rnd(uint64_t *s)
{
    uint64_t r = splitmix64(s);
    switch (r & 15) {
    case 0: return 0;
    case 1: return bb_one();
    case 2: return bb_from_canonical(BB_P - 1);
    default: return bb_from_canonical((uint32_t)((r >> 8) % BB_P));
    }
}

static inline bb4_t rnd4(uint64_t *s)
{
    bb4_t r = {{rnd(s), rnd(s), rnd(s), rnd(s)}};
    return r;
}

static inline uint32_t *rnd_words(uint64_t *s, size_t n)
{
    uint32_t *w = tu_alloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++)
        w[i] = rnd(s);
    return w;
}

/* A buffer of `words` words: poison, then data over the first `dwords`. */
static inline gs_buf *mk(gs_engine *e, size_t words, const uint32_t *data, size_t dwords)
{
    gs_buf *b = NULL;
    TU_OK(e, gs_buf_create(e, words * 4, &b));
    TU_OK(e, gs_buf_fill_u32(b, 0, words, 0xDEADBEEFu));
    if (dwords)
        TU_OK(e, gs_buf_write(b, 0, data, dwords * 4));
    return b;
}

static inline void same(gs_buf *a, gs_buf *b, size_t words, const char *what)
{
    uint32_t *x = tu_alloc(words * 4 + 4), *y = tu_alloc(words * 4 + 4);
    TU_OK(a->engine, gs_buf_read(a, 0, x, words * 4));
    TU_OK(b->engine, gs_buf_read(b, 0, y, words * 4));
    for (size_t i = 0; i < words; i++)
        cr_assert_eq(x[i], y[i], "%s: word %zu (EF %zu) gles %08x cpu %08x", what, i, i / 4, x[i], y[i]);
    free(x);
    free(y);
}

#endif
