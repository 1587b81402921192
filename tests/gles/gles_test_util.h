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

#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "field/babybear.h"
#include "../util/splitmix.h"

/* The defaults and the environment, resolved (the test then sets knobs
 * such as max_binding_bytes, which are not public options). */
static inline gs_device_config tu_config(void)
{
    gs_device_config c;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_test_config(&c, &err);
    cr_assert_eq(st, GLSTARK_OK, "resolving the device options failed: %s", err.msg);
    return c;
}

/* Opens a GLES engine with cfg (NULL = tu_config()) or fails the test with
 * the library's message: CI has llvmpipe, so no device is a failure. */
static inline gs_engine *tu_engine(const gs_device_config *cfg)
{
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    gs_device_config dflt;
    if (!cfg) {
        dflt = tu_config();
        cfg = &dflt;
    }
    glstark_status st = gs_gles_engine_create(cfg, &eng, &err);
    cr_assert_eq(st, GLSTARK_OK, "opening a GLES device failed: %s: %s", glstark_status_name(st), err.msg);
    return eng;
}

/* A GLES engine from public options: the environment overrides them, as
 * for glstark_device_create. */
static inline gs_engine *tu_engine_opts(const glstark_device_options *opts)
{
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    glstark_status st = gs_gles_engine_create_opts(opts, &eng, &err);
    cr_assert_eq(st, GLSTARK_OK, "opening a GLES device failed: %s: %s", glstark_status_name(st), err.msg);
    return eng;
}

/* A GLES engine whose per-binding limit is lowered to max_binding bytes
 * (0: the device's own), to push kernels onto their chunked paths. */
static inline gs_engine *tu_engine_binding(uint64_t max_binding)
{
    gs_device_config o = tu_config();
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
