/* Plonky3 0.4.3 KeccakAir (p3-keccak-air): constraints built in the order and
 * tree shape of its eval (docs/protocol.md, 'The Keccak-f AIR'), and trace generation as
 * its generate_trace_rows. */
#include "airs/keccak.h"

#include <stdlib.h>
#include <string.h>

#include "util/parallel_for.h"
#include "glstark/airs.h"

static const uint64_t RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

/* R[x][y]: rho offset of lane A[x][y] */
static const unsigned R[5][5] = {
    {0, 36, 3, 41, 18}, {1, 44, 10, 45, 2}, {62, 6, 43, 15, 61},
    {28, 55, 25, 21, 56}, {27, 20, 39, 8, 14},
};

static uint64_t rotl(uint64_t v, unsigned n)
{
    n &= 63;
    return n ? (v << n) | (v >> (64 - n)) : v;
}

void gs_keccak_f1600(uint64_t lanes[25])
{
    uint64_t A[5][5], B[5][5], C[5], D[5];
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++)
            A[x][y] = lanes[x + 5 * y];
    for (int r = 0; r < 24; r++) {
        for (int x = 0; x < 5; x++)
            C[x] = A[x][0] ^ A[x][1] ^ A[x][2] ^ A[x][3] ^ A[x][4];
        for (int x = 0; x < 5; x++)
            D[x] = C[(x + 4) % 5] ^ rotl(C[(x + 1) % 5], 1);
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++)
                B[y][(2 * x + 3 * y) % 5] = rotl(A[x][y] ^ D[x], R[x][y]);
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++)
                A[x][y] = B[x][y] ^ (~B[(x + 1) % 5][y] & B[(x + 2) % 5][y]);
        A[0][0] ^= RC[r];
    }
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++)
            lanes[x + 5 * y] = A[x][y];
}

/* ---- column helpers (y-major arrays; see columns.rs) ---- */
static size_t c_step(int r) { return GS_KC_STEP + (size_t)r; }
static size_t c_pre(int y, int x, int l) { return GS_KC_PREIMAGE + (size_t)((y * 5 + x) * 4 + l); }
static size_t c_a(int y, int x, int l) { return GS_KC_A + (size_t)((y * 5 + x) * 4 + l); }
static size_t c_c(int x, int z) { return GS_KC_C + (size_t)(x * 64 + z); }
static size_t c_cp(int x, int z) { return GS_KC_C_PRIME + (size_t)(x * 64 + z); }
static size_t c_ap(int y, int x, int z) { return GS_KC_A_PRIME + (size_t)((y * 5 + x) * 64 + z); }
static size_t c_app(int y, int x, int l) { return GS_KC_A_PP + (size_t)((y * 5 + x) * 4 + l); }
static size_t c_app00bit(int z) { return GS_KC_A_PP_00_BITS + (size_t)z; }
static size_t c_appp00(int l) { return GS_KC_A_PPP_00 + (size_t)l; }
static size_t c_appp(int y, int x, int l) { return (x == 0 && y == 0) ? c_appp00(l) : c_app(y, x, l); }

/* KeccakCols::b(x, y, z): bit z of ROTL(A'[a][x], R[a][x]), a = (x + 3y) mod 5 */
static size_t c_b(int x, int y, int z)
{
    int a = (x + 3 * y) % 5;
    unsigned rot = R[a][x];
    return c_ap(x, a, (int)((z + 64 - (int)rot) % 64));
}

/* ---- symbolic helpers with Plonky3's tree shapes ---- */
typedef struct kb {
    glstark_air *air;
    glstark_expr zero, one, two;
} kb;

static glstark_expr L(kb *k, size_t col) { return glstark_air_main(k->air, col, 0); }
static glstark_expr N(kb *k, size_t col) { return glstark_air_main(k->air, col, 1); }
static glstark_expr add(kb *k, glstark_expr a, glstark_expr b) { return glstark_air_add(k->air, a, b); }
static glstark_expr sub(kb *k, glstark_expr a, glstark_expr b) { return glstark_air_sub(k->air, a, b); }
static glstark_expr mul(kb *k, glstark_expr a, glstark_expr b) { return glstark_air_mul(k->air, a, b); }
static glstark_expr dbl(kb *k, glstark_expr a) { return add(k, a, a); }
/* xor(a, b) = (a + b) - a * (b + b) */
static glstark_expr xor2(kb *k, glstark_expr a, glstark_expr b)
{
    return sub(k, add(k, a, b), mul(k, a, dbl(k, b)));
}
static glstark_expr xor3(kb *k, glstark_expr a, glstark_expr b, glstark_expr c)
{
    return xor2(k, xor2(k, a, b), c);
}
/* andn(a, b) = (1 - a) * b */
static glstark_expr andn(kb *k, glstark_expr a, glstark_expr b) { return mul(k, sub(k, k->one, a), b); }
static void assert_zero(kb *k, glstark_expr e) { glstark_air_assert_zero(k->air, e); }
static void assert_bool(kb *k, glstark_expr e) { assert_zero(k, mul(k, e, sub(k, e, k->one))); }

static int rc_bit(int r, int z) { return (int)((RC[r] >> z) & 1); }

glstark_status glstark_keccak_air(glstark_air **out)
{
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    glstark_air *air = NULL;
    glstark_status st = glstark_air_create("KeccakAir", GS_KC_WIDTH, 0, &air);
    if (st)
        return st;
    kb K = {air, {0}, {0}, {0}};
    kb *k = &K;
    k->zero = glstark_air_const(air, 0);
    k->one = glstark_air_const(air, 1);
    k->two = glstark_air_const(air, 2);
    glstark_expr first = glstark_air_is_first_row(air);
    glstark_expr trans = glstark_air_is_transition(air);

    /* round flags (round_flags.rs) */
    assert_zero(k, mul(k, first, sub(k, L(k, c_step(0)), k->one)));
    for (int i = 1; i < 24; i++)
        assert_zero(k, mul(k, first, L(k, c_step(i))));
    for (int i = 0; i < 24; i++)
        assert_zero(k, mul(k, trans, sub(k, L(k, c_step(i)), N(k, c_step((i + 1) % 24)))));

    glstark_expr first_step = L(k, c_step(0));
    glstark_expr not_final = sub(k, k->one, L(k, c_step(23)));
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++)
            for (int l = 0; l < 4; l++)
                assert_zero(k, mul(k, first_step, sub(k, L(k, c_pre(y, x, l)), L(k, c_a(y, x, l)))));
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++)
            for (int l = 0; l < 4; l++)
                assert_zero(k, mul(k, not_final,
                                   mul(k, trans, sub(k, L(k, c_pre(y, x, l)), N(k, c_pre(y, x, l))))));
    assert_bool(k, L(k, GS_KC_EXPORT));
    assert_zero(k, mul(k, not_final, L(k, GS_KC_EXPORT)));

    /* theta: C booleans and C' */
    for (int x = 0; x < 5; x++) {
        for (int z = 0; z < 64; z++)
            assert_bool(k, L(k, c_c(x, z)));
        for (int z = 0; z < 64; z++) {
            glstark_expr xr = xor3(k, L(k, c_c(x, z)), L(k, c_c((x + 4) % 5, z)),
                                   L(k, c_c((x + 1) % 5, (z + 63) % 64)));
            assert_zero(k, sub(k, L(k, c_cp(x, z)), xr));
        }
    }
    /* A' booleans and A limbs = recomposed A' ^ C ^ C' */
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            for (int z = 0; z < 64; z++)
                assert_bool(k, L(k, c_ap(y, x, z)));
            for (int l = 0; l < 4; l++) {
                glstark_expr acc = k->zero;
                for (int z = 16 * l + 15; z >= 16 * l; z--)
                    acc = add(k, dbl(k, acc), xor3(k, L(k, c_ap(y, x, z)), L(k, c_c(x, z)), L(k, c_cp(x, z))));
                assert_zero(k, sub(k, acc, L(k, c_a(y, x, l))));
            }
        }
    /* column parity: diff (diff - 2) (diff - 4) */
    for (int x = 0; x < 5; x++) {
        glstark_expr four = dbl(k, k->two);
        for (int z = 0; z < 64; z++) {
            glstark_expr s = L(k, c_ap(0, x, z));
            for (int y = 1; y < 5; y++)
                s = add(k, s, L(k, c_ap(y, x, z)));
            glstark_expr diff = sub(k, s, L(k, c_cp(x, z)));
            assert_zero(k, mul(k, mul(k, diff, sub(k, diff, k->two)), sub(k, diff, four)));
        }
    }
    /* rho, pi, chi */
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++)
            for (int l = 0; l < 4; l++) {
                glstark_expr acc = k->zero;
                for (int z = 16 * l + 15; z >= 16 * l; z--) {
                    glstark_expr bit = xor2(k, andn(k, L(k, c_b((x + 1) % 5, y, z)), L(k, c_b((x + 2) % 5, y, z))),
                                            L(k, c_b(x, y, z)));
                    acc = add(k, dbl(k, acc), bit);
                }
                assert_zero(k, sub(k, acc, L(k, c_app(y, x, l))));
            }
    /* iota */
    for (int z = 0; z < 64; z++)
        assert_bool(k, L(k, c_app00bit(z)));
    for (int l = 0; l < 4; l++) {
        glstark_expr acc = k->zero;
        for (int z = 16 * l + 15; z >= 16 * l; z--)
            acc = add(k, dbl(k, acc), L(k, c_app00bit(z)));
        assert_zero(k, sub(k, acc, L(k, c_app(0, 0, l))));
    }
    for (int l = 0; l < 4; l++) {
        glstark_expr acc = k->zero;
        for (int z = 16 * l + 15; z >= 16 * l; z--) {
            glstark_expr rc = k->zero;
            for (int r = 0; r < 24; r++)
                rc = add(k, rc, mul(k, L(k, c_step(r)), glstark_air_const(air, (uint32_t)rc_bit(r, z))));
            acc = add(k, dbl(k, acc), xor2(k, rc, L(k, c_app00bit(z))));
        }
        assert_zero(k, sub(k, acc, L(k, c_appp00(l))));
    }
    /* round chaining: x outer, y inner */
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++)
            for (int l = 0; l < 4; l++)
                assert_zero(k, mul(k, trans, mul(k, not_final, sub(k, L(k, c_appp(y, x, l)), N(k, c_a(y, x, l))))));

    st = glstark_air_status(air);
    if (st) {
        glstark_air_destroy(air);
        return st;
    }
    *out = air;
    return GLSTARK_OK;
}

size_t glstark_keccak_trace_height(size_t num_permutations)
{
    size_t rows = 24 * num_permutations, h = 1;
    while (h < rows)
        h <<= 1;
    return h;
}

/* The nrows (<= 24) rows of one permutation of `input`, row-major into t
 * (24 x width); the caller transposes, so that the column-major trace is
 * written in runs of 24 instead of one strided cell at a time. Every cell is
 * a bit or a 16-bit limb, so its canonical word is the integer itself; with
 * mont set the cells are in Montgomery form instead. */
/* Limb l (16 bits) of v as a trace cell. */
static inline uint32_t limb_cell(uint64_t v, int l, int mont)
{
    uint32_t x = (uint32_t)((v >> (16 * l)) & 0xFFFF);
    return mont ? bb_from_canonical(x) : x;
}

static void perm_rows(const uint64_t input[25], size_t nrows, int mont, bb_t *t)
{
    const bb_t one = mont ? bb_one() : 1;
    uint64_t S[5][5];
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++)
            S[x][y] = input[x + 5 * y];
#define CELL(col, row) t[(row) * (size_t)GS_KC_WIDTH + (size_t)(col)]
#define LIMB(v, l) limb_cell((v), (l), mont)
#define BIT(v, z) ((((v) >> (z)) & 1) ? one : 0)
    for (size_t r = 0; r < nrows; r++) {
        size_t row = r;
        for (int i = 0; i < 24; i++)
            CELL(c_step(i), row) = (size_t)i == r ? one : 0;
        CELL(GS_KC_EXPORT, row) = 0;
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 5; x++)
                for (int l = 0; l < 4; l++) {
                    CELL(c_pre(y, x, l), row) = LIMB(input[x + 5 * y], l);
                    CELL(c_a(y, x, l), row) = LIMB(S[x][y], l);
                }
        uint64_t C[5], Cp[5];
        for (int x = 0; x < 5; x++)
            C[x] = S[x][0] ^ S[x][1] ^ S[x][2] ^ S[x][3] ^ S[x][4];
        for (int x = 0; x < 5; x++)
            Cp[x] = C[x] ^ C[(x + 4) % 5] ^ rotl(C[(x + 1) % 5], 1);
        for (int x = 0; x < 5; x++)
            for (int z = 0; z < 64; z++) {
                CELL(c_c(x, z), row) = BIT(C[x], z);
                CELL(c_cp(x, z), row) = BIT(Cp[x], z);
            }
        uint64_t Ap[5][5];
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++) {
                Ap[x][y] = S[x][y] ^ C[x] ^ Cp[x];
                for (int z = 0; z < 64; z++)
                    CELL(c_ap(y, x, z), row) = BIT(Ap[x][y], z);
            }
        uint64_t B[5][5];
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                int a = (i + 3 * j) % 5;
                B[i][j] = rotl(Ap[a][i], R[a][i]);
            }
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                S[i][j] = B[i][j] ^ (~B[(i + 1) % 5][j] & B[(i + 2) % 5][j]);
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++)
                for (int l = 0; l < 4; l++)
                    CELL(c_app(y, x, l), row) = LIMB(S[x][y], l);
        for (int z = 0; z < 64; z++)
            CELL(c_app00bit(z), row) = BIT(S[0][0], z);
        S[0][0] ^= RC[r];
        for (int l = 0; l < 4; l++)
            CELL(c_appp00(l), row) = LIMB(S[0][0], l);
    }
#undef CELL
#undef LIMB
#undef BIT
}

typedef struct trace_job {
    const uint64_t (*inputs)[25];
    size_t num_permutations, height;
    int mont;
    uint32_t *trace;
    unsigned char oom[GS_PARALLEL_MAX]; /* per worker */
} trace_job;

/* Permutations [k0, k1) of the trace (the last may be cut by the height). */
static void trace_range(void *ctx, size_t k0, size_t k1, unsigned worker)
{
    trace_job *j = ctx;
    static const uint64_t zero[25] = {0};
    bb_t *rows = malloc(24 * (size_t)GS_KC_WIDTH * sizeof *rows);
    if (!rows) {
        j->oom[worker] = 1;
        return;
    }
    for (size_t k = k0; k < k1; k++) {
        size_t row = 24 * k, n = j->height - row < 24 ? j->height - row : 24;
        perm_rows(k < j->num_permutations ? j->inputs[k] : zero, n, j->mont, rows);
        for (size_t c = 0; c < GS_KC_WIDTH; c++) {
            uint32_t *dst = j->trace + c * j->height + row;
            for (size_t r = 0; r < n; r++)
                dst[r] = rows[r * GS_KC_WIDTH + c];
        }
    }
    free(rows);
}

/* The whole trace, permutations split over the cores online: each worker
 * writes its own rows of every column. */
static glstark_status fill_trace(const uint64_t (*inputs)[25], size_t num_permutations, int mont, uint32_t *trace)
{
    if (!trace || (num_permutations && !inputs) || num_permutations > (SIZE_MAX / 48))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    size_t height = glstark_keccak_trace_height(num_permutations);
    size_t nperm = (height + 23) / 24; /* with the padding permutations */
    trace_job j = {inputs, num_permutations, height, mont, trace, {0}};
    const unsigned threads = gs_threads_for(nperm, 8, 256); /* a few permutations per thread at least */
    gs_parallel_for(threads, nperm, trace_range, &j);
    for (unsigned t = 0; t < threads; t++)
        if (j.oom[t])
            return GLSTARK_ERR_OUT_OF_MEMORY;
    return GLSTARK_OK;
}

glstark_status gs_keccak_trace_mont(const uint64_t (*inputs)[25], size_t num_permutations,
                                    bb_t *trace)
{
    return fill_trace(inputs, num_permutations, 1, trace);
}

glstark_status glstark_keccak_trace_rows(const uint64_t (*inputs)[25], size_t num_permutations, size_t row_begin,
                                         size_t num_rows, uint32_t *block)
{
    if ((num_rows && !block) || (num_permutations && !inputs) || num_permutations > (SIZE_MAX / 48))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    size_t height = glstark_keccak_trace_height(num_permutations);
    if (row_begin > height || num_rows > height - row_begin)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    static const uint64_t zero[25] = {0};
    bb_t *rows = malloc(24 * (size_t)GS_KC_WIDTH * sizeof *rows);
    if (!rows)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    /* every permutation that has a row in the range, its rows copied out */
    for (size_t k = row_begin / 24; k * 24 < row_begin + num_rows; k++) {
        size_t first = k * 24, n = height - first < 24 ? height - first : 24;
        perm_rows(k < num_permutations ? inputs[k] : zero, n, 0, rows);
        size_t lo = first > row_begin ? first : row_begin;
        size_t hi = first + n < row_begin + num_rows ? first + n : row_begin + num_rows;
        for (size_t c = 0; c < GS_KC_WIDTH; c++) {
            uint32_t *dst = block + c * num_rows;
            for (size_t r = lo; r < hi; r++)
                dst[r - row_begin] = rows[(r - first) * GS_KC_WIDTH + c];
        }
    }
    free(rows);
    return GLSTARK_OK;
}

glstark_status glstark_keccak_trace(const uint64_t (*inputs)[25], size_t num_permutations,
                                    uint32_t *trace)
{
    return fill_trace(inputs, num_permutations, 0, trace);
}
