/* Reading the tests' data files whole (tests/data, GLSTARK_TEST_DATA).
 * Header-only: every test is its own executable. A missing or short file
 * fails the test with its path. The buffer has one byte past *n, set to 0,
 * so text files can be parsed as strings. */
#ifndef GS_TESTS_TEST_FILES_H
#define GS_TESTS_TEST_FILES_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint8_t *tf_read_path(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert_geq(len, 0, "cannot size %s", path);
    uint8_t *b = malloc((size_t)len + 1);
    cr_assert_not_null(b, "no memory for %s", path);
    cr_assert_eq(fread(b, 1, (size_t)len, f), (size_t)len, "short read of %s", path);
    b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* GLSTARK_TEST_DATA/<dir>/<name>; dir may be "". */
static inline uint8_t *tf_read(const char *dir, const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s%s", GLSTARK_TEST_DATA, dir, *dir ? "/" : "", name);
    return tf_read_path(path, n);
}

/* A text file under GLSTARK_TEST_DATA (rel may name a subfolder) as a
 * NUL-terminated string. */
static inline char *tf_read_text(const char *rel)
{
    size_t n;
    return (char *)tf_read("", rel, &n);
}

/* The next unsigned decimal integer at or after *p, skipping anything else,
 * with *p moved past it; -1 when none is left. */
static inline long long tf_next_num(char **p)
{
    char *s = *p;
    while (*s && (*s < '0' || *s > '9'))
        s++;
    if (!*s)
        return -1;
    long long v = strtoll(s, &s, 10);
    *p = s;
    return v;
}

#endif
