/* StdRng against recorded Rust rand 0.9 output (tests/data/stdrng_vectors_rust.txt)
 * and the keccak inputs OpenVM's example drew for seed 42. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/stdrng.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

Test(stdrng, recorded_rust_calls)
{
    FILE *f = fopen(GLSTARK_TEST_DATA "/stdrng_vectors_rust.txt", "r");
    cr_assert_not_null(f, "cannot open stdrng_vectors_rust.txt");
    char line[4096];
    gs_stdrng rng;
    int have_seed = 0;
    unsigned long long cur_seed = 0;
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char op[32], val[2048];
        unsigned long long seed;
        if (sscanf(line, "%llu %31s %2047s", &seed, op, val) != 3)
            continue;
        if (!have_seed || seed != cur_seed) {
            gs_stdrng_seed_from_u64(&rng, seed);
            cur_seed = seed;
            have_seed = 1;
        }
        if (strcmp(op, "u32") == 0) {
            uint32_t got = gs_stdrng_next_u32(&rng);
            cr_assert_eq(got, (uint32_t)strtoul(val, NULL, 10), "seed %llu call %d: u32", seed, checked);
        } else if (strcmp(op, "u64") == 0) {
            uint64_t got = gs_stdrng_next_u64(&rng);
            cr_assert_eq(got, (uint64_t)strtoull(val, NULL, 10), "seed %llu call %d: u64", seed, checked);
        } else {
            cr_assert(strncmp(op, "bytes", 5) == 0, "unknown op %s", op);
            size_t n = strtoul(op + 5, NULL, 10);
            cr_assert_eq(strlen(val), 2 * n);
            uint8_t buf[1024];
            cr_assert(n <= sizeof buf);
            gs_stdrng_fill_bytes(&rng, buf, n);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(buf[i], (uint8_t)(hexval(val[2 * i]) * 16 + hexval(val[2 * i + 1])),
                             "seed %llu call %d byte %zu", seed, checked, i);
        }
        checked++;
    }
    fclose(f);
    cr_assert_eq(checked, 500, "expected 500 recorded calls, checked %d", checked);
}

Test(stdrng, keccak_inputs_seed42)
{
    FILE *f = fopen(GLSTARK_TEST_DATA "/keccak_inputs_seed42_n16.txt", "r");
    cr_assert_not_null(f);
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, 42);
    int n = 0;
    unsigned long long want;
    while (fscanf(f, "%llu", &want) == 1) {
        uint64_t got = gs_stdrng_next_u64(&rng);
        cr_assert_eq(got, (uint64_t)want, "value %d", n);
        n++;
    }
    fclose(f);
    cr_assert_eq(n, 16 * 25);
}
