/* libFuzzer target: the AIR builder driven by data bytes, as an application
 * would drive it from a circuit description it read from a file.
 *
 * The bytes are a small program: a header giving the AIR's shape, then
 * builder calls (variables, constants, selectors, arithmetic on earlier
 * handles or on forged handles, constraints, interactions). The resulting
 * AIR goes through dag_stats, keygen (small test parameters), the verifying
 * key's encode -> decode -> encode round trip, and the constraint checker on
 * a pseudo-random trace. Every call may fail with a status; none may crash,
 * leak or hit undefined behaviour, and a key keygen made must decode and
 * re-encode to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "glstark/air.h"
#include "common/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct prog {
    const uint8_t *p;
    size_t n, pos;
} prog;

static uint8_t next8(prog *g) { return g->pos < g->n ? g->p[g->pos++] : 0; }

static uint32_t next32(prog *g)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)next8(g) << (8 * i);
    return v;
}

#define POOL 64
#define MAX_OPS 512
#define MAX_FIELDS 5

/* An operand: mostly an earlier handle, sometimes a forged one (invalid,
 * out of range, or from nowhere). */
static glstark_expr operand(prog *g, const glstark_expr *pool, size_t npool)
{
    uint8_t b = next8(g);
    if (b == 0xFF)
        return (glstark_expr){next32(g)};
    if (b == 0xFE)
        return GLSTARK_EXPR_INVALID;
    if (npool == 0)
        return (glstark_expr){b};
    return pool[b % npool];
}

static glstark_status fake_commit(void *ctx, const gs_system_params *params, const bb_t *rows, size_t height,
                                  size_t width, gs_prep_vdata *out, gs_error *err)
{
    (void)ctx;
    (void)rows;
    (void)err;
    for (int i = 0; i < GS_VK_DIGEST_LEN; i++)
        out->commit[i] = bb_from_canonical((uint32_t)i);
    int lg = 0;
    while (((size_t)1 << lg) < height)
        lg++;
    out->hypercube_dim = (int64_t)lg - (int64_t)params->l_skip;
    out->stacking_width = width;
    return GLSTARK_OK;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* keygen, vk round trip; aborts on a property violation. */
static void keygen_and_roundtrip(glstark_air *air)
{
    gs_system_params params;
    gs_default_test_params_small(&params);
    gs_keygen_options opts = {NULL, fake_commit, NULL};
    gs_multi_pk pk;
    gs_error err;
    gs_error_clear(&err);
    glstark_air *airs[1] = {air};
    if (gs_keygen(&params, airs, 1, &opts, &pk, &err) != GLSTARK_OK)
        return;
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t l1 = 0, l2 = 0;
    if (gs_vk_prevk_bytes(&pk.vk, &b1, &l1, &err) != GLSTARK_OK)
        abort();
    gs_multi_vk back;
    if (gs_vk_from_prevk_bytes(b1, l1, &back, &err) != GLSTARK_OK)
        abort();
    if (gs_vk_prevk_bytes(&back, &b2, &l2, &err) != GLSTARK_OK || l1 != l2 || memcmp(b1, b2, l1) != 0)
        abort();
    free(b1);
    free(b2);
    gs_multi_vk_free(&back);
    gs_multi_pk_free(&pk);
}

/* The checker on a random trace of 4 rows (the seed comes from the input). */
static void check_random_trace(glstark_air *air, const glstark_air_shape *s, uint64_t seed)
{
    const size_t h = 4;
    size_t total = s->common_main_width * h + s->num_public_values;
    for (size_t i = 0; i < s->num_cached_mains; i++)
        total += s->cached_main_widths[i] * h;
    uint32_t *vals = malloc((total ? total : 1) * sizeof *vals);
    if (!vals)
        return;
    for (size_t i = 0; i < total; i++)
        vals[i] = (uint32_t)(splitmix(&seed) % 3); /* small values: some constraints hold */
    glstark_trace_part cached[2];
    size_t at = 0;
    glstark_air_trace t;
    memset(&t, 0, sizeof t);
    t.height = h;
    t.common_main.values = vals;
    t.common_main.width = s->common_main_width;
    at += s->common_main_width * h;
    for (size_t i = 0; i < s->num_cached_mains; i++) {
        cached[i].values = vals + at;
        cached[i].width = s->cached_main_widths[i];
        at += s->cached_main_widths[i] * h;
    }
    t.cached_mains = s->num_cached_mains ? cached : NULL;
    t.public_values = vals + at;
    t.num_public_values = s->num_public_values;
    glstark_check_failure f;
    char msg[256];
    glstark_air *airs[1] = {air};
    (void)glstark_check_constraints(airs, 1, &t, &f, msg, sizeof msg);
    free(vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prog g = {data, size, 0};
    size_t cached_w[2];
    glstark_air_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.common_main_width = next8(&g) % 9; /* 0 is invalid on purpose */
    shape.num_cached_mains = next8(&g) % 3;
    for (size_t i = 0; i < shape.num_cached_mains; i++)
        cached_w[i] = next8(&g) % 4;
    shape.cached_main_widths = cached_w;
    shape.preprocessed_width = next8(&g) % 3;
    shape.num_public_values = next8(&g) % 4;

    glstark_air *air = NULL;
    if (glstark_air_create_shaped("fuzz", &shape, &air) != GLSTARK_OK)
        return 0;
    if (shape.preprocessed_width) {
        uint8_t lh = next8(&g) % 4;
        size_t h = (size_t)1 << lh;
        uint32_t rows[8 * 2];
        /* reduced below p unless the first value is odd: then values of
         * p and above reach the builder, which must refuse them */
        for (size_t i = 0; i < h * shape.preprocessed_width; i++)
            rows[i] = next32(&g);
        if (!(rows[0] & 1))
            for (size_t i = 0; i < h * shape.preprocessed_width; i++)
                rows[i] %= 2013265921u;
        (void)glstark_air_set_preprocessed_trace(air, h, rows);
    }
    (void)glstark_air_set_required(air, next8(&g) & 1);

    glstark_expr pool[POOL];
    size_t npool = 0, ops = 0;
    while (g.pos < g.n && ops++ < MAX_OPS) {
        uint8_t op = next8(&g) % 17;
        glstark_expr e = GLSTARK_EXPR_INVALID, a, b;
        switch (op) {
        case 0: e = glstark_air_main(air, next8(&g) % 10, next8(&g) % 3); break;
        case 1: { uint8_t part = next8(&g) % 3, col = next8(&g) % 5; e = glstark_air_cached_main(air, part, col, next8(&g) & 1); break; }
        case 2: { uint8_t col = next8(&g) % 4; e = glstark_air_preprocessed(air, col, next8(&g) & 1); break; }
        case 3: e = glstark_air_public_value(air, next8(&g) % 5); break;
        case 4: e = glstark_air_const(air, next32(&g)); break;
        case 5: e = glstark_air_is_first_row(air); break;
        case 6: e = glstark_air_is_last_row(air); break;
        case 7: e = glstark_air_is_transition(air); break;
        case 8: a = operand(&g, pool, npool); b = operand(&g, pool, npool); e = glstark_air_add(air, a, b); break;
        case 9: a = operand(&g, pool, npool); b = operand(&g, pool, npool); e = glstark_air_sub(air, a, b); break;
        case 10: a = operand(&g, pool, npool); b = operand(&g, pool, npool); e = glstark_air_mul(air, a, b); break;
        case 11: e = glstark_air_neg(air, operand(&g, pool, npool)); break;
        case 12: (void)glstark_air_assert_zero(air, operand(&g, pool, npool)); break;
        case 13: a = operand(&g, pool, npool); b = operand(&g, pool, npool); (void)glstark_air_assert_eq(air, a, b); break;
        case 14: (void)glstark_air_assert_one(air, operand(&g, pool, npool)); break;
        case 15: (void)glstark_air_assert_bool(air, operand(&g, pool, npool)); break;
        case 16: {
            uint16_t bus = (uint16_t)(next8(&g) | next8(&g) << 8);
            size_t nf = next8(&g) % (MAX_FIELDS + 1); /* 0 is invalid on purpose */
            glstark_expr f[MAX_FIELDS];
            for (size_t i = 0; i < nf; i++)
                f[i] = operand(&g, pool, npool);
            glstark_expr cnt = operand(&g, pool, npool);
            (void)glstark_air_push_interaction(air, bus, f, nf, cnt, next8(&g) % 3);
            break;
        }
        }
        if (e.id != 0) {
            if (npool < POOL)
                pool[npool++] = e;
            else
                pool[e.id % POOL] = e;
        }
    }
    (void)glstark_air_status(air);
    (void)glstark_air_error_message(air);
    size_t nn, nc, ni, md;
    if (glstark_air_dag_stats(air, &nn, &nc, &ni, &md) == GLSTARK_OK) {
        keygen_and_roundtrip(air);
        uint64_t seed = 0;
        for (size_t i = 0; i < size; i++)
            seed = seed * 31 + data[i];
        check_random_trace(air, &shape, seed);
    }
    glstark_air_destroy(air);
    return 0;
}
