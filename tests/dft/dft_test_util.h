/* Helpers shared by the dft tests: a seeded generator and naive O(n^2)
 * reference transforms written straight from the definitions in
 * src/engine/dft_ops.h (no shared code with the engine). */
#ifndef GS_TESTS_DFT_TEST_UTIL_H
#define GS_TESTS_DFT_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dft_ops.h"
#include "field/babybear.h"
#include "../util/splitmix.h"

/* Uniform field element, with the edge values 0, 1, p-1 mixed in. */
static inline bb_t t_rand_bb(uint64_t *s)
{
    uint64_t r = splitmix64(s);
    switch (r & 31) {
    case 0: return 0;
    case 1: return bb_one();
    case 2: return bb_from_canonical(BB_P - 1);
    default: return bb_from_canonical((uint32_t)((r >> 8) % BB_P));
    }
}

/* out[i] = scale * sum_j in[j] * w^(i*j) with w = g_k or its inverse. */
static inline void t_naive_dft(const bb_t *in, bb_t *out, unsigned k, int inverse)
{
    size_t n = (size_t)1 << k;
    bb_t w = bb_two_adic_generator(k);
    if (inverse)
        w = bb_inv(w);
    bb_t *pw = malloc(n * sizeof *pw);
    pw[0] = bb_one();
    for (size_t i = 1; i < n; i++)
        pw[i] = bb_mul(pw[i - 1], w);
    bb_t scale = inverse ? bb_inv(bb_from_canonical((uint32_t)n)) : bb_one();
    for (size_t i = 0; i < n; i++) {
        bb_t acc = 0;
        for (size_t j = 0; j < n; j++)
            acc = bb_add(acc, bb_mul(in[j], pw[(i * j) & (n - 1)]));
        out[i] = bb_mul(acc, scale);
    }
    free(pw);
}

/* eval_to_coeff_rs_message by definition: per 2^l block, naive inverse DFT,
 * then msg[t] = sum over subsets a of t of c[a]. */
static inline void t_naive_rs_message(const bb_t *in, bb_t *out, size_t len, unsigned l)
{
    size_t B = (size_t)1 << l;
    bb_t *c = malloc(B * sizeof *c);
    for (size_t s = 0; s < len; s += B) {
        t_naive_dft(in + s, c, l, 1);
        for (size_t t = 0; t < B; t++) {
            bb_t acc = 0;
            for (size_t a = 0; a < B; a++)
                if ((a & t) == a)
                    acc = bb_add(acc, c[a]);
            out[s + t] = acc;
        }
    }
    free(c);
}

/* Creates a buffer of n elements on eng holding data (or poison if NULL). */
static inline gs_buf *t_buf(gs_engine *eng, const bb_t *data, size_t n)
{
    gs_buf *b = NULL;
    if (gs_buf_create(eng, n * sizeof(bb_t), &b) != GLSTARK_OK)
        return NULL;
    if (data)
        gs_buf_write(b, 0, data, n * sizeof(bb_t));
    else
        gs_buf_fill_u32(b, 0, n, 0xDEADBEEFu);
    return b;
}

#endif
