/* The CPU constraint checker on the built-in AIRs: generated traces are
 * accepted (and equal OpenVM's where the vectors hold them), tampered
 * traces are rejected naming the right AIR, constraint and row. */
#include <criterion/criterion.h>

#include "air/air_internal.h"
#include "airs/keccak.h"
#include "glstark/airs.h"
#include "test_util.h"

static glstark_status check1(glstark_air *air, size_t height, const uint32_t *trace,
                             const uint32_t *pv, size_t npv, glstark_check_failure *f, char *msg,
                             size_t msg_len)
{
    glstark_air_trace t;
    memset(&t, 0, sizeof t);
    t.height = height;
    t.common_main.values = trace;
    t.common_main.width = air->common_main_width;
    t.public_values = pv;
    t.num_public_values = npv;
    return glstark_check_constraints(&air, 1, &t, f, msg, msg_len);
}

/* ---------------- Fibonacci ---------------- */

Test(checker, fib_traces_match_openvm)
{
    static const struct { const char *file; size_t h; } cases[] = {
        {"fib-small_n2.json", 4}, {"fib-small_n4.json", 16}, {"fib-small_n10.json", 1024}};
    for (size_t c = 0; c < 3; c++) {
        size_t len;
        char *json = (char *)tu_read_file(cases[c].file, &len);
        cr_assert_not_null(json, "missing %s", cases[c].file);
        size_t h = cases[c].h;
        uint64_t *rows = malloc(2 * h * sizeof *rows);
        uint64_t pv_expect[3];
        cr_assert_eq(tu_json_uints(json, "trace_rows", rows, 2 * h), 2 * h);
        cr_assert_eq(tu_json_uints(json, "public_values", pv_expect, 3), 3);
        uint32_t *trace = malloc(2 * h * sizeof *trace), pv[3];
        cr_assert_eq(glstark_fibonacci_trace(0, 1, h, trace, pv), GLSTARK_OK);
        for (size_t r = 0; r < h; r++) {
            cr_assert_eq(trace[r], rows[2 * r], "%s row %zu", cases[c].file, r);
            cr_assert_eq(trace[h + r], rows[2 * r + 1], "%s row %zu", cases[c].file, r);
        }
        for (int i = 0; i < 3; i++)
            cr_assert_eq(pv[i], pv_expect[i]);
        free(rows);
        free(trace);
        free(json);
    }
}

Test(checker, fib_accepts_all_sizes)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    for (size_t h = 1; h <= 4096; h <<= 1) {
        uint32_t *trace = malloc(2 * h * sizeof *trace), pv[3];
        cr_assert_eq(glstark_fibonacci_trace(7, 11, h, trace, pv), GLSTARK_OK);
        char msg[512];
        cr_assert_eq(check1(air, h, trace, pv, 3, NULL, msg, sizeof msg), GLSTARK_OK, "h=%zu: %s", h, msg);
        free(trace);
    }
    glstark_air_destroy(air);
}

Test(checker, fib_names_failures)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    const size_t h = 16;
    uint32_t trace[32], pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, trace, pv), GLSTARK_OK);
    glstark_check_failure f;
    char msg[512];
    /* wrong f_n: only the last-row constraint (number 4) fails, on row 15 */
    pv[2] += 1;
    cr_assert_eq(check1(air, h, trace, pv, 3, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert_eq(f.air, 0);
    cr_assert_eq(f.constraint, 4);
    cr_assert_eq(f.row, 15);
    cr_assert(strstr(msg, "constraint 4") && strstr(msg, "row 15"), "%s", msg);
    pv[2] -= 1;
    /* right cell of row 5 changed: row 4's transition b' = a + b (constraint 3) fails first */
    trace[h + 5] += 1;
    cr_assert_eq(check1(air, h, trace, pv, 3, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert_eq(f.constraint, 3);
    cr_assert_eq(f.row, 4);
    trace[h + 5] -= 1;
    /* left cell of row 0: first-row constraint 0 */
    trace[0] = 5;
    cr_assert_eq(check1(air, h, trace, pv, 3, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert_eq(f.constraint, 0);
    cr_assert_eq(f.row, 0);
    glstark_air_destroy(air);
}

Test(checker, fib_random_single_cell_corruptions)
{
    glstark_air *air;
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    const size_t h = 64;
    uint32_t trace[128], pv[3];
    cr_assert_eq(glstark_fibonacci_trace(3, 4, h, trace, pv), GLSTARK_OK);
    uint64_t seed = 0xF1B0001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int it = 0; it < 200; it++) {
        size_t cell = splitmix64(&seed) % (2 * h);
        uint32_t delta = 1 + (uint32_t)(splitmix64(&seed) % (BB_P - 1));
        uint32_t old = trace[cell];
        trace[cell] = (uint32_t)(((uint64_t)old + delta) % BB_P);
        cr_assert_eq(check1(air, h, trace, pv, 3, NULL, NULL, 0), GLSTARK_ERR_UNSATISFIED,
                     "seed 0xF1B0001 iteration %d: corrupting cell %zu not detected", it, cell);
        trace[cell] = old;
    }
    glstark_air_destroy(air);
}

/* ---------------- LogUp fixture ---------------- */

static glstark_status check_fixture(glstark_air **airs, const uint32_t *s, const uint32_t *r,
                                    glstark_check_failure *f, char *msg, size_t len)
{
    glstark_air_trace t[2];
    memset(t, 0, sizeof t);
    t[0].height = 4;
    t[0].common_main.values = s;
    t[0].common_main.width = 2;
    t[1].height = 8;
    t[1].common_main.values = r;
    t[1].common_main.width = 2;
    return glstark_check_constraints(airs, 2, t, f, msg, len);
}

Test(checker, interactions_fixture)
{
    glstark_air *airs[2];
    cr_assert_eq(glstark_interactions_fixture_airs(airs), GLSTARK_OK);
    uint32_t s[8], r[16];
    glstark_interactions_fixture_traces(s, r);
    /* the traces equal the column-major traces in OpenVM's json */
    size_t len;
    char *json = (char *)tu_read_file("interactions-small.json", &len);
    cr_assert_not_null(json);
    uint64_t all[24];
    cr_assert_eq(tu_json_uints(json, "traces_col_major", all, 24), 24);
    /* layout: air 0 ("air":0,"width":2) columns, then air 1 — numbers include
     * the air index and width: [0, 2, 8 values, 1, 2, 16 values] */
    cr_assert_eq(all[0], 0);
    cr_assert_eq(all[1], 2);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(s[i], all[2 + i]);
    free(json);
    uint64_t all2[40];
    json = (char *)tu_read_file("interactions-small.json", &len);
    cr_assert_eq(tu_json_uints(json, "traces_col_major", all2, 40), 28);
    cr_assert_eq(all2[10], 1);
    cr_assert_eq(all2[11], 2);
    for (int i = 0; i < 16; i++)
        cr_assert_eq(r[i], all2[12 + i]);
    free(json);

    char msg[512];
    glstark_check_failure f;
    cr_assert_eq(check_fixture(airs, s, r, &f, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    /* receiver row 0 receives field 6 instead of 5: message [5] no longer
     * balances; it was first sent by AIR 0 on row 1 */
    r[8 + 0] = 6;
    cr_assert_eq(check_fixture(airs, s, r, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert_eq(f.constraint, SIZE_MAX);
    cr_assert_eq(f.bus, 0);
    cr_assert_eq(f.air, 0);
    cr_assert_eq(f.row, 1);
    cr_assert(strstr(msg, "bus 0") && strstr(msg, "[5]"), "%s", msg);
    r[8] = 5;
    /* a count changed on the sender */
    s[2] = 8;
    cr_assert_eq(check_fixture(airs, s, r, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert(strstr(msg, "[4]"), "%s", msg);
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
}

/* ---------------- Keccak ---------------- */

static size_t read_seed42_inputs(uint64_t (*inputs)[25], size_t max)
{
    size_t len;
    char *txt = (char *)tu_read_file("keccak_inputs_seed42_n16.txt", &len);
    cr_assert_not_null(txt);
    size_t n = 0;
    char *p = txt;
    while (n < max * 25 && *p) {
        while (*p && (*p < '0' || *p > '9'))
            p++;
        if (!*p)
            break;
        char *end;
        inputs[n / 25][n % 25] = strtoull(p, &end, 10);
        n++;
        p = end;
    }
    free(txt);
    return n / 25;
}

static uint64_t out_lane(const uint32_t *trace, size_t h, size_t row, int x, int y)
{
    uint64_t v = 0;
    for (int l = 0; l < 4; l++) {
        size_t col = (x == 0 && y == 0) ? GS_KC_A_PPP_00 + (size_t)l : GS_KC_A_PP + (size_t)((y * 5 + x) * 4 + l);
        v |= (uint64_t)trace[col * h + row] << (16 * l);
    }
    return v;
}

Test(checker, keccak_f_reference_sha3_empty)
{
    /* SHA3-256("") with the plain permutation: pad 0x06 ... 0x80 in a 136-byte block */
    uint64_t st[25] = {0};
    st[0] ^= 0x06;
    st[16] ^= 0x8000000000000000ull;
    gs_keccak_f1600(st);
    static const uint8_t expect[32] = {0xa7, 0xff, 0xc6, 0xf8, 0xbf, 0x1e, 0xd7, 0x66, 0x51, 0xc1, 0x47,
                                       0x56, 0xa0, 0x61, 0xd6, 0x62, 0xf5, 0x80, 0xff, 0x4d, 0xe4, 0x3b,
                                       0x49, 0xfa, 0x82, 0xd8, 0x0a, 0x4b, 0x80, 0xf8, 0x43, 0x4a};
    for (int i = 0; i < 32; i++)
        cr_assert_eq((uint8_t)(st[i / 8] >> (8 * (i % 8))), expect[i], "byte %d", i);
}

Test(checker, keccak_zero_state_kat)
{
    static const uint64_t kat[25] = {
        0xF1258F7940E1DDE7ull, 0x84D5CCF933C0478Aull, 0xD598261EA65AA9EEull, 0xBD1547306F80494Dull,
        0x8B284E056253D057ull, 0xFF97A42D7F8E6FD4ull, 0x90FEE5A0A44647C4ull, 0x8C5BDA0CD6192E76ull,
        0xAD30A6F71B19059Cull, 0x30935AB7D08FFC64ull, 0xEB5AA93F2317D635ull, 0xA9A6E6260D712103ull,
        0x81A57C16DBCF555Full, 0x43B831CD0347C826ull, 0x01F22F1A11A5569Full, 0x05E5635A21D9AE61ull,
        0x64BEFEF28CC970F2ull, 0x613670957BC46611ull, 0xB87C5A554FD00ECBull, 0x8C3EE88A1CCF32C8ull,
        0x940C7922AE3A2614ull, 0x1841F924A2C509E4ull, 0x16F53526E70465C2ull, 0x75F644E97F30A13Bull,
        0xEAF1FF7B5CECA249ull};
    uint64_t in[1][25] = {{0}};
    size_t h = glstark_keccak_trace_height(1);
    cr_assert_eq(h, 32);
    uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t);
    cr_assert_eq(glstark_keccak_trace(in, 1, t), GLSTARK_OK);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++)
            cr_assert_eq(out_lane(t, h, 23, x, y), kat[x + 5 * y], "lane %d", x + 5 * y);
    /* row 0 of the zero state has exactly two nonzero cells */
    size_t nz = 0;
    for (size_t c = 0; c < GLSTARK_KECCAK_WIDTH; c++)
        nz += t[c * h] != 0;
    cr_assert_eq(nz, 2);
    uint64_t st[25] = {0};
    gs_keccak_f1600(st);
    for (int i = 0; i < 25; i++)
        cr_assert_eq(st[i], kat[i]);
    free(t);
}

Test(checker, keccak_accepts_and_outputs_match)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    uint64_t inputs[2][25];
    cr_assert_eq(read_seed42_inputs(inputs, 2), 2);
    for (size_t n = 1; n <= 2; n++) {
        size_t h = glstark_keccak_trace_height(n);
        uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t);
        cr_assert_eq(glstark_keccak_trace(inputs, n, t), GLSTARK_OK);
        char msg[512];
        cr_assert_eq(check1(air, h, t, NULL, 0, NULL, msg, sizeof msg), GLSTARK_OK, "n=%zu: %s", n, msg);
        for (size_t k = 0; k < n; k++) {
            uint64_t st[25];
            memcpy(st, inputs[k], sizeof st);
            gs_keccak_f1600(st);
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 5; x++)
                    cr_assert_eq(out_lane(t, h, 24 * k + 23, x, y), st[x + 5 * y]);
        }
        free(t);
    }
    glstark_air_destroy(air);
}

Test(checker, keccak_names_failures)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    uint64_t inputs[1][25];
    cr_assert_eq(read_seed42_inputs(inputs, 1), 1);
    size_t h = 32;
    uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t);
    cr_assert_eq(glstark_keccak_trace(inputs, 1, t), GLSTARK_OK);
    glstark_check_failure f;
    char msg[512];
    /* constraint numbers of Plonky3's KeccakAir eval order (docs/protocol.md, 'The Keccak-f AIR') */
    struct { size_t col, row; uint32_t value; size_t constraint, fail_row; } cases[] = {
        {GS_KC_STEP + 0, 0, 0, 0, 0},          /* step_flags[0] on row 0 */
        {GS_KC_EXPORT, 5, 1, 249, 5},          /* export on a non-final row */
        {GS_KC_EXPORT, 5, 2, 248, 5},          /* export not boolean */
        {GS_KC_C + 0, 5, 2, 250, 5},           /* c[0][0] not boolean */
        {GS_KC_A_PP_00_BITS + 3, 7, 7, 3010 + 3, 7}, /* a''[0][0] bit 3 not boolean */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t *cell = &t[cases[i].col * h + cases[i].row];
        uint32_t old = *cell;
        *cell = cases[i].value == old ? old ^ 1 : cases[i].value;
        cr_assert_eq(check1(air, h, t, NULL, 0, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED, "case %zu", i);
        cr_assert_eq(f.constraint, cases[i].constraint, "case %zu: %s", i, msg);
        cr_assert_eq(f.row, cases[i].fail_row, "case %zu: %s", i, msg);
        *cell = old;
    }
    /* flipping a c bit keeps it boolean: the C' relation of x = 0, z = 0 (250 + 64) fails */
    t[(GS_KC_C + 0) * h + 5] ^= 1;
    cr_assert_eq(check1(air, h, t, NULL, 0, &f, msg, sizeof msg), GLSTARK_ERR_UNSATISFIED);
    cr_assert_eq(f.constraint, 314, "%s", msg);
    cr_assert_eq(f.row, 5);
    free(t);
    glstark_air_destroy(air);
}

Test(checker, keccak_random_single_cell_corruptions)
{
    glstark_air *air;
    cr_assert_eq(glstark_keccak_air(&air), GLSTARK_OK);
    uint64_t inputs[1][25];
    cr_assert_eq(read_seed42_inputs(inputs, 1), 1);
    size_t h = 32;
    uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t);
    cr_assert_eq(glstark_keccak_trace(inputs, 1, t), GLSTARK_OK);
    uint64_t seed = 42424242;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (int it = 0; it < 60; it++) {
        size_t col;
        do /* export may legally be 1 on a final-step row: leave it out */
            col = splitmix64(&seed) % GLSTARK_KECCAK_WIDTH;
        while (col == GS_KC_EXPORT);
        size_t row = splitmix64(&seed) % h;
        uint32_t delta = 1 + (uint32_t)(splitmix64(&seed) % (BB_P - 1));
        uint32_t *cell = &t[col * h + row];
        uint32_t old = *cell;
        *cell = (uint32_t)(((uint64_t)old + delta) % BB_P);
        glstark_check_failure f;
        cr_assert_eq(check1(air, h, t, NULL, 0, &f, NULL, 0), GLSTARK_ERR_UNSATISFIED,
                     "seed 42424242 iteration %d: cell (col %zu, row %zu) + %u not detected", it, col, row, delta);
        /* a cell only enters constraints of its own row and the row before */
        cr_assert(f.row == row || f.row + 1 == row, "iteration %d: failure on row %zu for cell row %zu", it, f.row, row);
        *cell = old;
    }
    free(t);
    glstark_air_destroy(air);
}

/* Row-major canonical LE bytes of the trace against the digests of the
 * independent model (docs/protocol.md, 'Test vectors'). */
#include "sha256_test.h"

static void trace_digest(const uint64_t (*in)[25], size_t n, size_t rows, char hex[65])
{
    size_t h = glstark_keccak_trace_height(n);
    uint32_t *t = malloc(h * GLSTARK_KECCAK_WIDTH * sizeof *t);
    cr_assert_eq(glstark_keccak_trace(in, n, t), GLSTARK_OK);
    tsha256 s;
    tsha256_init(&s);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < GLSTARK_KECCAK_WIDTH; c++) {
            uint32_t v = t[c * h + r];
            uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
            tsha256_update(&s, b, 4);
        }
    tsha256_hex(&s, hex);
    free(t);
}

Test(checker, keccak_trace_digests)
{
    char hex[65];
    tsha256 s;
    tsha256_init(&s);
    tsha256_update(&s, "abc", 3);
    tsha256_hex(&s, hex);
    cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    uint64_t in[1][25];
    for (int i = 0; i < 25; i++)
        in[0][i] = (uint64_t)i * 0x0123456789ABCDEFull; /* Plonky3's unit-test input */
    trace_digest(in, 1, 24, hex);
    cr_assert_str_eq(hex, "c5fa1cc8514ef96d4f7fd2ce0917e89dbce99a0a0315c67d7c1f84810d44ade3");
    trace_digest(in, 1, 32, hex);
    cr_assert_str_eq(hex, "fe93c3e6caf9c4ea8faaaa122563c47031bba77879ef7062add211d57a45144a");
    memset(in, 0, sizeof in);
    trace_digest(in, 1, 24, hex);
    cr_assert_str_eq(hex, "3bbc3ffc1c554691d88c3385f73d190755385cd04be20ef24e6dfd2da897528b");
}
