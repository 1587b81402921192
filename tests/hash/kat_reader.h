/* Tiny reader for the line-oriented KAT text files in tests/data
 * (tools/kat_json_to_txt.py, poseidon2_babybear16_constants.txt):
 * a line is a keyword followed by unsigned decimal integers. */
#ifndef GS_TEST_KAT_READER_H
#define GS_TEST_KAT_READER_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KAT_MAX_VALS 256

typedef struct kat_line {
    char key[64];
    uint32_t v[KAT_MAX_VALS];
    size_t n;
} kat_line;

static inline FILE *kat_open(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GLSTARK_TEST_DATA, name);
    FILE *f = fopen(path, "r");
    cr_assert(f != NULL, "cannot open test data %s", path);
    return f;
}

/* Next non-comment, non-blank line; returns 0 at end of file. */
static inline int kat_next(FILE *f, kat_line *l)
{
    char buf[8192];
    while (fgets(buf, sizeof buf, f)) {
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == 0)
            continue;
        char *save = NULL;
        char *tok = strtok_r(p, " \t\r\n", &save);
        snprintf(l->key, sizeof l->key, "%s", tok);
        l->n = 0;
        while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
            cr_assert(l->n < KAT_MAX_VALS, "too many values on a '%s' line", l->key);
            char *end = NULL;
            unsigned long long x = strtoull(tok, &end, 10);
            cr_assert(end && *end == 0 && x <= 0xFFFFFFFFull, "bad number '%s' on a '%s' line", tok, l->key);
            l->v[l->n++] = (uint32_t)x;
        }
        return 1;
    }
    return 0;
}

#endif
