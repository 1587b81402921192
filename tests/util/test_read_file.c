/* gs_read_file's size limit (the body of glstark_read_file): files at, below
 * and above the limit, around the growth steps, an endless device, and the
 * public call's limit on /dev/zero refused without reading it whole. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glstark/prove.h"
#include "util/read_file.h"

/* A temporary file of n bytes, byte i = i * 7 + 3, its name written to path
 * (at least 32 bytes). */
static void make_file(char *path, size_t n)
{
    strcpy(path, "/tmp/glstark-read-file-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "wb");
    cr_assert(f != NULL);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(fputc((int)((i * 7 + 3) & 0xFF), f), (int)((i * 7 + 3) & 0xFF));
    cr_assert_eq(fclose(f), 0);
}

static void expect_read(size_t size, size_t max)
{
    char path[64], msg[512];
    make_file(path, size);
    uint8_t *b = (uint8_t *)msg; /* must come back NULL on failure */
    size_t n = 12345;
    glstark_status st = gs_read_file(path, max, &b, &n, msg, sizeof msg);
    if (size <= max) {
        cr_assert_eq(st, GLSTARK_OK, "size %zu, max %zu: %s", size, max, msg);
        cr_assert_eq(n, size);
        for (size_t i = 0; i < size; i++)
            cr_assert_eq(b[i], (uint8_t)((i * 7 + 3) & 0xFF), "size %zu byte %zu", size, i);
        free(b);
    } else {
        cr_assert_eq(st, GLSTARK_ERR_IO, "size %zu, max %zu", size, max);
        cr_assert(b == NULL && n == 0);
        cr_assert(strstr(msg, "more than") != NULL && strstr(msg, path) != NULL, "%s", msg);
    }
    unlink(path);
}

Test(read_file, sizes_around_the_limit_and_the_growth_steps)
{
    static const size_t maxes[] = {0, 1, 100, 65535, 65536, 65537, 200000};
    for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
        size_t max = maxes[m];
        size_t sizes[] = {0, 1, max > 0 ? max - 1 : 0, max, max + 1, max + 2, 2 * max + 5, 65536, 131072, 131073};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            expect_read(sizes[s], max);
    }
}

Test(read_file, endless_device_refused)
{
    char msg[512];
    uint8_t *b = NULL;
    size_t n = 0;
    cr_assert_eq(gs_read_file("/dev/zero", (size_t)1 << 20, &b, &n, msg, sizeof msg), GLSTARK_ERR_IO);
    cr_assert(b == NULL && n == 0);
    cr_assert(strstr(msg, "/dev/zero") != NULL && strstr(msg, "more than 1048576 bytes") != NULL, "%s", msg);
    cr_assert_eq(gs_read_file("/nonexistent/x", 10, &b, &n, msg, sizeof msg), GLSTARK_ERR_IO);
    cr_assert(strstr(msg, "cannot open /nonexistent/x") != NULL, "%s", msg);
}

/* The public call: /dev/zero is refused at GLSTARK_READ_FILE_MAX (1 GiB read,
 * then freed), with the limit in the message. */
Test(read_file, public_call_limit, .timeout = 120)
{
    char msg[512];
    uint8_t *b = (uint8_t *)msg;
    size_t n = 1;
    cr_assert_eq(glstark_read_file("/dev/zero", &b, &n, msg, sizeof msg), GLSTARK_ERR_IO);
    cr_assert(b == NULL && n == 0);
    char want[64];
    snprintf(want, sizeof want, "more than %zu bytes", (size_t)GLSTARK_READ_FILE_MAX);
    cr_assert(strstr(msg, want) != NULL, "%s", msg);
}
