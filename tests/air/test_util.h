/* Small helpers for the air tests: reading vector files and integer lists
 * out of the reference json files, and a seeded splitmix64. */
#ifndef TEST_AIR_UTIL_H
#define TEST_AIR_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/splitmix.h"

static inline uint8_t *tu_read_file(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GLSTARK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = (size_t)n;
    }
    return buf;
}

/* The unsigned integers inside the json value that follows "key": (an array,
 * possibly nested), in order; returns how many were stored (at most max). */
static inline size_t tu_json_uints(const char *json, const char *key, uint64_t *out, size_t max)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p)
        return 0;
    p = strchr(p + strlen(pat), '[');
    if (!p)
        return 0;
    int depth = 0;
    size_t n = 0;
    for (; *p; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']') {
            if (--depth == 0)
                break;
        } else if (*p >= '0' && *p <= '9') {
            char *end;
            uint64_t v = strtoull(p, &end, 10);
            if (n < max)
                out[n] = v;
            n++;
            p = end - 1;
        }
    }
    return n < max ? n : max;
}

#endif
