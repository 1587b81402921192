/* Helpers shared by the GLES tests: open an engine (environment overrides
 * such as GLSTARK_LIMITS=es31-min apply, so the floor-mode run of the same
 * binary exercises the ES 3.1 minimums), seeded random field elements. */
#ifndef GLES_TEST_UTIL_H
#define GLES_TEST_UTIL_H

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/gles/gles_engine.h"
#include "field/babybear.h"
#include "../util/splitmix.h"

/* Opens a GLES engine with opts (NULL = defaults) or fails the test with
 * the library's message: CI has llvmpipe, so no device is a failure. */
static inline gs_engine *tu_engine(const glstark_device_options *opts)
{
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    glstark_status st = gs_gles_engine_create(opts, &eng, &err);
    cr_assert_eq(st, GLSTARK_OK, "opening a GLES device failed: %s: %s", glstark_status_name(st), err.msg);
    return eng;
}

/* A GLES engine whose per-binding limit is lowered to max_binding bytes
 * (0: the device's own), to push kernels onto their chunked paths. */
static inline gs_engine *tu_engine_binding(uint64_t max_binding)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.max_binding_bytes = max_binding;
    return tu_engine(&o);
}

/* The CPU engine (two threads): the reference GLES results are held to. */
static inline gs_engine *tu_cpu_engine(void)
{
    gs_error err;
    gs_engine *eng = NULL;
    cr_assert_eq(gs_cpu_engine_create(2, &eng, &err), GLSTARK_OK, "%s", err.msg);
    return eng;
}

static inline void *tu_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    cr_assert_not_null(p, "out of host memory (%zu bytes)", bytes);
    return p;
}

#define TU_OK(eng, call)                                                                                  \
    do {                                                                                                  \
        glstark_status tu_st_ = (call);                                                                   \
        cr_assert_eq(tu_st_, GLSTARK_OK, "%s -> %s: %s", #call, glstark_status_name(tu_st_), (eng)->err.msg); \
    } while (0)

#endif
