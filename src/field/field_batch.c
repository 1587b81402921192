#include "field/field_batch.h"

#include <string.h>

int gs_field_op_valid(int op) { return (op >= 0 && op <= 10) || (op >= 16 && op <= 24); }

int gs_field_op_uses_b(int op)
{
    switch (op) {
    case GS_FOP_ADD: case GS_FOP_SUB: case GS_FOP_MUL: case GS_FOP_MUL_CHAIN: case GS_FOP_BUTTERFLY_CHAIN:
    case GS_FOP4_ADD: case GS_FOP4_SUB: case GS_FOP4_MUL: case GS_FOP4_MUL_CHAIN: case GS_FOP4_MUL_BASE:
        return 1;
    default:
        return 0;
    }
}

unsigned gs_field_op_words_a(int op) { return op >= 16 ? 4 : 1; }

unsigned gs_field_op_words_b(int op) { return op >= 16 && op != GS_FOP4_MUL_BASE ? 4 : 1; }

const char *gs_field_op_name(int op)
{
    switch (op) {
    case GS_FOP_ADD: return "add";
    case GS_FOP_SUB: return "sub";
    case GS_FOP_MUL: return "mul";
    case GS_FOP_NEG: return "neg";
    case GS_FOP_SQUARE: return "square";
    case GS_FOP_INV: return "inv";
    case GS_FOP_POW: return "pow";
    case GS_FOP_MUL_CHAIN: return "mul_chain";
    case GS_FOP_TO_CANONICAL: return "to_canonical";
    case GS_FOP_FROM_CANONICAL: return "from_canonical";
    case GS_FOP_BUTTERFLY_CHAIN: return "butterfly_chain";
    case GS_FOP4_ADD: return "ext4_add";
    case GS_FOP4_SUB: return "ext4_sub";
    case GS_FOP4_MUL: return "ext4_mul";
    case GS_FOP4_NEG: return "ext4_neg";
    case GS_FOP4_SQUARE: return "ext4_square";
    case GS_FOP4_INV: return "ext4_inv";
    case GS_FOP4_POW: return "ext4_pow";
    case GS_FOP4_MUL_CHAIN: return "ext4_mul_chain";
    case GS_FOP4_MUL_BASE: return "ext4_mul_base";
    }
    return "unknown";
}

static bb4_t ld4(const uint32_t *p, size_t i)
{
    bb4_t r;
    memcpy(r.c, p + 4 * i, sizeof r.c);
    return r;
}

static void st4(uint32_t *p, size_t i, bb4_t v) { memcpy(p + 4 * i, v.c, sizeof v.c); }

void gs_field_batch_cpu(int op, const uint32_t *a, const uint32_t *b, uint32_t *out, size_t n, uint32_t param)
{
    for (size_t i = 0; i < n; i++) {
        switch (op) {
        case GS_FOP_ADD: out[i] = bb_add(a[i], b[i]); break;
        case GS_FOP_SUB: out[i] = bb_sub(a[i], b[i]); break;
        case GS_FOP_MUL: out[i] = bb_mul(a[i], b[i]); break;
        case GS_FOP_NEG: out[i] = bb_neg(a[i]); break;
        case GS_FOP_SQUARE: out[i] = bb_square(a[i]); break;
        case GS_FOP_INV: out[i] = bb_inv(a[i]); break;
        case GS_FOP_POW: out[i] = bb_pow(a[i], param); break;
        case GS_FOP_MUL_CHAIN: {
            bb_t x = a[i];
            for (uint32_t k = 0; k < param; k++)
                x = bb_mul(x, b[i]);
            out[i] = x;
            break;
        }
        case GS_FOP_BUTTERFLY_CHAIN: {
            bb_t w[4] = {b[i], bb_add(b[i], a[i]), bb_sub(b[i], a[i]), a[i]};
            bb_t sum = 0;
            for (int j = 0; j < 4; j++) {
                bb_t x = a[i], y = b[i];
                for (uint32_t k = 0; k < param; k++) {
                    bb_t t = bb_mul(y, w[j]);
                    y = bb_sub(x, t);
                    x = bb_add(x, t);
                }
                sum = bb_add(sum, x);
            }
            out[i] = sum;
            break;
        }
        case GS_FOP_TO_CANONICAL: out[i] = bb_to_canonical(a[i]); break;
        case GS_FOP_FROM_CANONICAL: out[i] = bb_from_canonical(a[i]); break;
        case GS_FOP4_ADD: st4(out, i, bb4_add(ld4(a, i), ld4(b, i))); break;
        case GS_FOP4_SUB: st4(out, i, bb4_sub(ld4(a, i), ld4(b, i))); break;
        case GS_FOP4_MUL: st4(out, i, bb4_mul(ld4(a, i), ld4(b, i))); break;
        case GS_FOP4_NEG: st4(out, i, bb4_neg(ld4(a, i))); break;
        case GS_FOP4_SQUARE: st4(out, i, bb4_square(ld4(a, i))); break;
        case GS_FOP4_INV: st4(out, i, bb4_inv(ld4(a, i))); break;
        case GS_FOP4_POW: st4(out, i, bb4_pow(ld4(a, i), param)); break;
        case GS_FOP4_MUL_CHAIN: {
            bb4_t x = ld4(a, i), y = ld4(b, i);
            for (uint32_t k = 0; k < param; k++)
                x = bb4_mul(x, y);
            st4(out, i, x);
            break;
        }
        case GS_FOP4_MUL_BASE: st4(out, i, bb4_mul_base(ld4(a, i), b[i])); break;
        default: break;
        }
    }
}
