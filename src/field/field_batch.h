/* Elementwise field operations over arrays, numbered as glsl/field_test.comp
 * numbers them: the CPU reference for the GPU field kernels (tests,
 * glstark-info's self-check, the benchmark). Base-field ops take one bb_t per
 * element, extension ops four (bb4_t layout). */
#ifndef GS_FIELD_FIELD_BATCH_H
#define GS_FIELD_FIELD_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "field/ext4.h"

typedef enum gs_field_op {
    GS_FOP_ADD = 0,
    GS_FOP_SUB = 1,
    GS_FOP_MUL = 2,
    GS_FOP_NEG = 3,
    GS_FOP_SQUARE = 4,
    GS_FOP_INV = 5,
    GS_FOP_POW = 6,       /* a^param */
    GS_FOP_MUL_CHAIN = 7, /* a * b^param, by param sequential multiplies */
    GS_FOP_TO_CANONICAL = 8,
    GS_FOP_FROM_CANONICAL = 9,
    GS_FOP_BUTTERFLY_CHAIN = 10, /* the DFT's arithmetic without its memory: four chains j of param DIT
                                  * butterflies (x, y) <- (x + w_j y, x - w_j y) from (a, b), with
                                  * w = (b, b + a, b - a, a); out = the sum of the four x */
    GS_FOP4_ADD = 16,
    GS_FOP4_SUB = 17,
    GS_FOP4_MUL = 18,
    GS_FOP4_NEG = 19,
    GS_FOP4_SQUARE = 20,
    GS_FOP4_INV = 21,
    GS_FOP4_POW = 22,
    GS_FOP4_MUL_CHAIN = 23,
    GS_FOP4_MUL_BASE = 24 /* a (extension) times b (base, one bb_t per element) */
} gs_field_op;

/* Whether op reads b, how many u32 words one element of a, b and out has. */
int gs_field_op_valid(int op);
int gs_field_op_uses_b(int op);
unsigned gs_field_op_words_a(int op);
unsigned gs_field_op_words_b(int op);
const char *gs_field_op_name(int op);

/* out[i] = op(a[i], b[i]) for n elements. b may be NULL for unary ops. */
void gs_field_batch_cpu(int op, const uint32_t *a, const uint32_t *b, uint32_t *out, size_t n, uint32_t param);

#endif
