/* Helpers for the hostile-input tests: exact-size file reads (so that any
 * over-read past a truncated input lands outside the allocation, where ASan
 * and valgrind see it) and a seeded splitmix64. */
#ifndef HOSTILE_UTIL_H
#define HOSTILE_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/splitmix.h"

static inline uint8_t *hu_read(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GLSTARK_TEST_DATA, rel);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n, "short read of %s", path);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* A malloc'd copy of exactly n bytes (1 byte allocated when n = 0). */
static inline uint8_t *hu_copy(const uint8_t *src, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    cr_assert_not_null(c);
    memcpy(c, src, n);
    return c;
}

static inline void hu_put_u32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

#endif
