/* A CPU engine for the dft tests: `threads` as given; scalar = 1 switches
 * off the vector butterflies so the scalar code is tested on machines that
 * have them. */
#ifndef GS_TESTS_DFT_CPU_TEST_ENGINE_H
#define GS_TESTS_DFT_CPU_TEST_ENGINE_H

#include <criterion/criterion.h>

#include "engine/cpu/cpu_engine.h"

static inline gs_engine *mk_engine_s(unsigned threads, int scalar)
{
    gs_engine *eng = NULL;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(threads, &eng, &err), GLSTARK_OK, "engine: %s", err.msg);
    ((gs_cpu_state *)eng->impl)->kernels = gs_cpu_kernels_of(scalar ? GS_SIMD_NONE : gs_simd_best());
    return eng;
}

static inline gs_engine *mk_engine(unsigned threads) { return mk_engine_s(threads, 0); }

#endif
