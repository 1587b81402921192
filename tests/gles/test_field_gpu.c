/* GPU field kernels (glsl/babybear.glsl, glsl/ext4.glsl through
 * glsl/field_test.comp) against the C reference on 2^20 fresh random
 * elements (seeds printed) plus edge values, outputs poisoned first;
 * inverse identities computed entirely on the GPU. */
#include "gles_test_util.h"

#include <string.h>
#include <time.h>

#include "field/field_batch.h"

#define N_RANDOM (1u << 20)

/* Canonical edge values: 0, 1, small, p-1 and its neighbours, halves, powers
 * of two around the modulus' shape. */
static const uint32_t edges[] = {0,          1,          2,          3,          BB_P - 1,  BB_P - 2,
                                 BB_P - 3,   BB_P - 100, BB_P / 2,   BB_P / 2 + 1, 1u << 27, (1u << 27) - 1,
                                 (1u << 27) + 1, 1u << 30, 0x77FFFFFFu, 0x7FFFFFFu};
#define N_EDGES (sizeof edges / sizeof edges[0])

static uint64_t fresh_seed(void)
{
    /* Fresh per run so every CI run covers new inputs; printed so a failure can be replayed
     * with GLSTARK_TEST_SEED. */
    const char *env = getenv("GLSTARK_TEST_SEED");
    if (env && *env)
        return strtoull(env, NULL, 0);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
}

/* Fills words: the first N_EDGES^2 elements pair every edge with every edge
 * (a takes edge i, b edge j), the rest random canonical values. Montgomery. */
static void make_inputs(uint32_t *a, uint32_t *b, size_t words_a, size_t words_b, unsigned wa, unsigned wb,
                        uint64_t *rng)
{
    for (size_t w = 0; w < words_a; w++) {
        size_t e = w / wa;
        uint32_t v = e < N_EDGES * N_EDGES ? edges[(e / N_EDGES + w % wa) % N_EDGES] : (uint32_t)(splitmix64(rng) % BB_P);
        a[w] = bb_from_canonical(v);
    }
    for (size_t w = 0; w < words_b; w++) {
        size_t e = w / wb;
        uint32_t v = e < N_EDGES * N_EDGES ? edges[(e % N_EDGES + w % wb) % N_EDGES] : (uint32_t)(splitmix64(rng) % BB_P);
        b[w] = bb_from_canonical(v);
    }
}

typedef struct fixture {
    gs_engine *eng;
    gs_buf *a, *b, *o;
    uint32_t *ha, *hb, *want, *got;
} fixture;

static void fx_open(fixture *f)
{
    f->eng = tu_engine(NULL);
    size_t bytes = (size_t)N_RANDOM * 16;
    TU_OK(f->eng, gs_buf_create(f->eng, bytes, &f->a));
    TU_OK(f->eng, gs_buf_create(f->eng, bytes, &f->b));
    TU_OK(f->eng, gs_buf_create(f->eng, bytes, &f->o));
    f->ha = tu_alloc(bytes);
    f->hb = tu_alloc(bytes);
    f->want = tu_alloc(bytes);
    f->got = tu_alloc(bytes);
}

static void fx_close(fixture *f)
{
    gs_buf_destroy(f->a);
    gs_buf_destroy(f->b);
    gs_buf_destroy(f->o);
    gs_engine_destroy(f->eng);
    free(f->ha);
    free(f->hb);
    free(f->want);
    free(f->got);
}

static void check_op(fixture *f, int op, size_t n, uint32_t param, uint64_t seed)
{
    unsigned wa = gs_field_op_words_a(op), wb = gs_field_op_words_b(op);
    uint64_t rng = seed;
    make_inputs(f->ha, f->hb, n * wa, n * wb, wa, wb, &rng);
    TU_OK(f->eng, gs_buf_write(f->a, 0, f->ha, n * wa * 4));
    TU_OK(f->eng, gs_buf_write(f->b, 0, f->hb, n * wb * 4));
    TU_OK(f->eng, gs_buf_fill_u32(f->o, 0, n * wa, 0xDEADBEEFu)); /* poison */
    TU_OK(f->eng, gs_gles_field_op(f->eng, op, f->a, f->b, f->o, n, param));
    TU_OK(f->eng, gs_buf_read(f->o, 0, f->got, n * wa * 4));
    gs_field_batch_cpu(op, f->ha, f->hb, f->want, n, param);
    for (size_t i = 0; i < n * wa; i++) {
        if (f->got[i] != f->want[i])
            cr_assert_fail("%s (seed %llu, param %u): element %zu word %u: gpu 0x%08x cpu 0x%08x "
                           "(a word 0x%08x, b word 0x%08x)",
                           gs_field_op_name(op), (unsigned long long)seed, param, i / wa, (unsigned)(i % wa),
                           f->got[i], f->want[i], f->ha[i], f->hb[i / wa * wb + (wb == 4 ? i % 4 : 0)]);
    }
}

static void run_ops(const int *ops, size_t nops, size_t n)
{
    fixture f;
    fx_open(&f);
    uint64_t seed = fresh_seed();
    for (size_t k = 0; k < nops; k++) {
        uint64_t s = seed + k;
        cr_log_info("%s: seed %llu, %zu elements", gs_field_op_name(ops[k]), (unsigned long long)s, n);
        uint32_t param = ops[k] == GS_FOP_POW || ops[k] == GS_FOP4_POW ? (uint32_t)(s % 0xFFFFFFFFu) | 1u
                         : ops[k] == GS_FOP_MUL_CHAIN || ops[k] == GS_FOP4_MUL_CHAIN || ops[k] == GS_FOP_BUTTERFLY_CHAIN ? 3u
                                                                                      : 0u;
        check_op(&f, ops[k], n, param, s);
    }
    fx_close(&f);
}

Test(gles_field, base_ops_match_cpu, .timeout = 300)
{
    const int ops[] = {GS_FOP_ADD, GS_FOP_SUB, GS_FOP_MUL, GS_FOP_NEG, GS_FOP_SQUARE, GS_FOP_TO_CANONICAL,
                       GS_FOP_FROM_CANONICAL, GS_FOP_MUL_CHAIN, GS_FOP_BUTTERFLY_CHAIN};
    run_ops(ops, sizeof ops / sizeof ops[0], N_RANDOM);
}

Test(gles_field, base_inverse_and_pow_match_cpu, .timeout = 300)
{
    const int ops[] = {GS_FOP_INV, GS_FOP_POW};
    run_ops(ops, sizeof ops / sizeof ops[0], N_RANDOM);
}

Test(gles_field, ext_ops_match_cpu, .timeout = 300)
{
    const int ops[] = {GS_FOP4_ADD, GS_FOP4_SUB, GS_FOP4_MUL, GS_FOP4_NEG, GS_FOP4_SQUARE, GS_FOP4_MUL_BASE,
                       GS_FOP4_MUL_CHAIN};
    run_ops(ops, sizeof ops / sizeof ops[0], N_RANDOM);
}

Test(gles_field, ext_inverse_and_pow_match_cpu, .timeout = 300)
{
    const int ops[] = {GS_FOP4_INV, GS_FOP4_POW};
    run_ops(ops, sizeof ops / sizeof ops[0], N_RANDOM);
}

/* a * a^-1 = 1 and (a^-1)^-1 = a for every nonzero a, 0^-1 = 0, computed
 * on the GPU only, checked on the host against the constant one. */
static void inverse_identities(int inv_op, int mul_op, unsigned w)
{
    fixture f;
    fx_open(&f);
    const size_t n = 1 << 16;
    uint64_t seed = fresh_seed();
    cr_log_info("%s identities: seed %llu", gs_field_op_name(inv_op), (unsigned long long)seed);
    uint64_t rng = seed;
    make_inputs(f.ha, f.hb, n * w, n * w, w, w, &rng);
    for (unsigned k = 0; k < w; k++)
        f.ha[k] = 0; /* element 0 is zero */
    gs_buf *inv = f.b, *prod = f.o;
    TU_OK(f.eng, gs_buf_write(f.a, 0, f.ha, n * w * 4));
    TU_OK(f.eng, gs_buf_fill_u32(inv, 0, n * w, 0xDEADBEEFu));
    TU_OK(f.eng, gs_buf_fill_u32(prod, 0, n * w, 0xDEADBEEFu));
    TU_OK(f.eng, gs_gles_field_op(f.eng, inv_op, f.a, NULL, inv, n, 0));
    TU_OK(f.eng, gs_gles_field_op(f.eng, mul_op, f.a, inv, prod, n, 0));
    TU_OK(f.eng, gs_buf_read(prod, 0, f.got, n * w * 4));
    for (size_t i = 0; i < n; i++) {
        int zero = 1;
        for (unsigned k = 0; k < w; k++)
            zero &= f.ha[i * w + k] == 0;
        for (unsigned k = 0; k < w; k++) {
            uint32_t want = zero ? 0 : (k == 0 ? bb_one() : 0);
            cr_assert_eq(f.got[i * w + k], want, "a * a^-1 at element %zu word %u (seed %llu)", i, k,
                         (unsigned long long)seed);
        }
    }
    /* (a^-1)^-1 = a, reusing prod for the double inverse. */
    TU_OK(f.eng, gs_buf_fill_u32(prod, 0, n * w, 0xDEADBEEFu));
    TU_OK(f.eng, gs_gles_field_op(f.eng, inv_op, inv, NULL, prod, n, 0));
    TU_OK(f.eng, gs_buf_read(prod, 0, f.got, n * w * 4));
    cr_assert_arr_eq(f.got, f.ha, n * w * 4, "(a^-1)^-1 != a (seed %llu)", (unsigned long long)seed);
    fx_close(&f);
}

Test(gles_field, base_inverse_identities, .timeout = 120) { inverse_identities(GS_FOP_INV, GS_FOP_MUL, 1); }

Test(gles_field, ext_inverse_identities, .timeout = 120) { inverse_identities(GS_FOP4_INV, GS_FOP4_MUL, 4); }
