/* Builds a 16-lane kernel template (see x16_select.h) for every vector set:
 *
 *   #define GS_X16_TEMPLATE "engine/cpu/zc_lanes_x16.inc"
 *   #include "field/x16_instantiate.h"
 *
 * includes the template once with AVX-512 and once with AVX2 selected on
 * x86-64 GCC/clang builds, once with Advanced SIMD on AArch64 ones (elsewhere
 * nothing: callers keep their plain C path). No include guard; it undefines GS_X16_TEMPLATE when done. */
#include "field/simd_isa.h"

#ifndef GS_X16_TEMPLATE
#error "define GS_X16_TEMPLATE (the template's path) before including field/x16_instantiate.h"
#endif

#ifdef GS_HAVE_X86_SIMD
#define GS_X16_USE_AVX512
#include "field/x16_select.h"
#include GS_X16_TEMPLATE
#undef GS_X16_USE_AVX512
#define GS_X16_USE_AVX2
#include "field/x16_select.h"
#include GS_X16_TEMPLATE
#undef GS_X16_USE_AVX2
#endif
#ifdef GS_HAVE_NEON_SIMD
#define GS_X16_USE_NEON
#include "field/x16_select.h"
#include GS_X16_TEMPLATE
#undef GS_X16_USE_NEON
#endif

#undef GS_X16_TEMPLATE
