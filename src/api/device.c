/* The public device handle: an engine (CPU or GLES) plus what the caller
 * may ask about it. */
#include "glstark/device.h"
#include "api/device_internal.h"
#include "api/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpu/cpu_engine.h"
#include "engine/engine.h"
#include "field/field_batch.h"

/* GLSTARK_HAVE_GLES (meson option gles): 0 in a build without EGL/GLES,
 * which has the CPU engine and the verifier only. */
#if GLSTARK_HAVE_GLES
#include "engine/gles/gles_engine.h"
#else
/* What the getters below read of a GLES device; never made here (every
 * device's gl stays NULL), so they answer as for a CPU device. */
typedef struct gs_gl_device {
    glstark_platform platform;
    char platform_path[1], egl_vendor[1], egl_version[1], gl_vendor[1], renderer[1], gl_version[1],
        glsl_version[1], extensions[1];
    int is_software;
    glstark_device_limits caps;
} gs_gl_device;
#endif

struct glstark_device {
    glstark_engine_kind kind;
    gs_engine *eng;
    gs_gl_device *gl; /* NULL for CPU devices */
    gs_error err;
};

void glstark_device_options_init(glstark_device_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->engine = GLSTARK_ENGINE_GLES;
    opts->platform = GLSTARK_PLATFORM_AUTO;
}

glstark_status glstark_device_create(const glstark_device_options *opts, glstark_device **out, char *msg,
                                     size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    glstark_device *d = calloc(1, sizeof *d);
    if (!d) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "glstark_device_create: out of host memory");
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    glstark_device_options o;
    glstark_status st = gs_device_options_resolve(opts, &o, &d->err);
    if (!st) {
        d->kind = o.engine;
        if (o.engine == GLSTARK_ENGINE_CPU) {
            st = gs_cpu_engine_create(o.cpu_threads, &d->eng, &d->err);
            if (!st)
                d->eng->bytes_cap = (size_t)o.device_memory_cap;
        } else if (o.engine == GLSTARK_ENGINE_GLES) {
#if GLSTARK_HAVE_GLES
            st = gs_gles_engine_create(&o, &d->eng, &d->err);
            if (!st)
                d->gl = gs_gles_device(d->eng);
#else
            st = gs_error_set(&d->err, GLSTARK_ERR_UNSUPPORTED,
                              "glstark_device_create: this build of glstark has no GLES engine (configured with "
                              "-Dgles=disabled, or EGL/GLES/GBM were not found); use GLSTARK_ENGINE_CPU, or rebuild "
                              "with -Dgles=enabled on a system with libegl-dev, libgles-dev and libgbm-dev");
#endif
        } else {
            st = gs_error_set(&d->err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "glstark_device_create: engine %d is neither GLSTARK_ENGINE_GLES nor GLSTARK_ENGINE_CPU",
                              (int)o.engine);
        }
    }
    if (st) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "%s", d->err.msg);
        free(d);
        return st;
    }
    *out = d;
    return GLSTARK_OK;
}

void glstark_device_destroy(glstark_device *dev)
{
    if (!dev)
        return;
    gs_engine_destroy(dev->eng);
    free(dev);
}

void glstark_device_release_memory(glstark_device *dev)
{
#if GLSTARK_HAVE_GLES
    if (dev && dev->kind == GLSTARK_ENGINE_GLES && dev->eng)
        gs_gles_pool_release(dev->eng);
#else
    (void)dev; /* CPU engines hold no pool */
#endif
}

const char *glstark_device_last_error(const glstark_device *dev)
{
    if (!dev)
        return "no device";
    if (dev->err.status)
        return dev->err.msg;
    return dev->eng && dev->eng->err.status ? dev->eng->err.msg : "";
}

/* The getters take NULL (a failed create leaves *out NULL, and a caller
 * may print before checking): strings are then "", the platform NONE. */
glstark_engine_kind glstark_device_engine(const glstark_device *dev) { return dev ? dev->kind : GLSTARK_ENGINE_CPU; }

glstark_platform glstark_device_platform(const glstark_device *dev)
{
    return dev && dev->gl ? dev->gl->platform : GLSTARK_PLATFORM_NONE;
}

/* A GL string of a GLES device; cpu_value for a CPU device, "" for NULL. */
#define GL_STRING(field, cpu_value) (!dev ? "" : dev->gl ? dev->gl->field : (cpu_value))

const char *glstark_device_platform_path(const glstark_device *dev) { return GL_STRING(platform_path, "cpu"); }
const char *glstark_device_egl_vendor(const glstark_device *dev) { return GL_STRING(egl_vendor, ""); }
const char *glstark_device_egl_version(const glstark_device *dev) { return GL_STRING(egl_version, ""); }
const char *glstark_device_gl_vendor(const glstark_device *dev) { return GL_STRING(gl_vendor, ""); }
const char *glstark_device_renderer(const glstark_device *dev) { return GL_STRING(renderer, "glstark CPU engine"); }
const char *glstark_device_gl_version(const glstark_device *dev) { return GL_STRING(gl_version, ""); }
const char *glstark_device_glsl_version(const glstark_device *dev) { return GL_STRING(glsl_version, ""); }
const char *glstark_device_extensions(const glstark_device *dev) { return GL_STRING(extensions, ""); }
int glstark_device_is_software(const glstark_device *dev) { return dev ? (dev->gl ? dev->gl->is_software : 1) : 0; }

#undef GL_STRING

glstark_status glstark_device_limits_get(const glstark_device *dev, glstark_device_limits *out)
{
    if (!dev || !out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (dev->gl)
        *out = dev->gl->caps;
    return GLSTARK_OK;
}

/* ---- self-check: GPU field kernels against the C reference ---- */
#if GLSTARK_HAVE_GLES

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random Montgomery elements with the edges 0, 1, p-1 and p-2 at the front. */
static void random_elems(uint32_t *v, size_t words, uint64_t *rng)
{
    static const uint32_t edges[] = {0, 1, BB_P - 1, BB_P - 2, 2, BB_P / 2};
    for (size_t i = 0; i < words; i++) {
        uint32_t c = i < sizeof edges / sizeof edges[0] ? edges[i] : (uint32_t)(splitmix64(rng) % BB_P);
        v[i] = bb_from_canonical(c);
    }
}

static glstark_status self_check_op(glstark_device *dev, int op, size_t n, uint64_t *rng, gs_buf *ga, gs_buf *gb,
                                    gs_buf *go, uint32_t *a, uint32_t *b, uint32_t *want, uint32_t *got)
{
    gs_engine *eng = dev->eng;
    size_t wa = gs_field_op_words_a(op), wb = gs_field_op_words_b(op);
    random_elems(a, n * wa, rng);
    random_elems(b, n * wb, rng);
    uint32_t param = (uint32_t)(splitmix64(rng) & 0xFFFF);
    if (op == GS_FOP_MUL_CHAIN || op == GS_FOP4_MUL_CHAIN)
        param = 5;
    gs_field_batch_cpu(op, a, b, want, n, param);
    glstark_status st = gs_buf_write(ga, 0, a, n * wa * 4);
    if (!st)
        st = gs_buf_write(gb, 0, b, n * wb * 4);
    if (!st) /* poison: unwritten outputs cannot pass */
        st = gs_buf_fill_u32(go, 0, n * wa, 0xDEADBEEFu);
    if (!st)
        st = gs_gles_field_op(eng, op, ga, gb, go, n, param);
    if (!st)
        st = gs_buf_read(go, 0, got, n * wa * 4);
    if (st) {
        gs_error_prefix(&eng->err, "self-check of %s", gs_field_op_name(op));
        return st;
    }
    for (size_t i = 0; i < n * wa; i++) {
        if (got[i] != want[i])
            return gs_error_set(&dev->err, GLSTARK_ERR_MISMATCH,
                                "self-check: GPU %s differs from the C reference at element %zu word %zu: gpu 0x%08x, "
                                "cpu 0x%08x (inputs a=0x%08x b=0x%08x, param %u). The driver computes integer "
                                "arithmetic wrongly: report the renderer '%s' and use another device or the CPU engine",
                                gs_field_op_name(op), i / wa, i % wa, got[i], want[i], a[i], b[i / wa * wb], param,
                                dev->gl->renderer);
    }
    return GLSTARK_OK;
}

glstark_status glstark_device_self_check(glstark_device *dev, uint64_t seed, size_t n)
{
    if (!dev)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    gs_error_clear(&dev->err);
    if (!dev->gl)
        return GLSTARK_OK;
    if (n < 8)
        n = 8;
    static const int ops[] = {GS_FOP_ADD,  GS_FOP_SUB,  GS_FOP_MUL,    GS_FOP_NEG,    GS_FOP_SQUARE,
                              GS_FOP_INV,  GS_FOP_POW,  GS_FOP_MUL_CHAIN, GS_FOP_TO_CANONICAL, GS_FOP_FROM_CANONICAL,
                              GS_FOP4_ADD, GS_FOP4_SUB, GS_FOP4_MUL,   GS_FOP4_NEG,   GS_FOP4_SQUARE,
                              GS_FOP4_INV, GS_FOP4_POW, GS_FOP4_MUL_CHAIN, GS_FOP4_MUL_BASE};
    size_t words = 4 * n;
    uint32_t *a = malloc(words * 4), *b = malloc(words * 4), *want = malloc(words * 4), *got = malloc(words * 4);
    gs_buf *ga = NULL, *gb = NULL, *go = NULL;
    glstark_status st = GLSTARK_OK;
    if (!a || !b || !want || !got)
        st = gs_error_set(&dev->err, GLSTARK_ERR_OUT_OF_MEMORY, "self-check: out of host memory");
    if (!st)
        st = gs_buf_create(dev->eng, words * 4, &ga);
    if (!st)
        st = gs_buf_create(dev->eng, words * 4, &gb);
    if (!st)
        st = gs_buf_create(dev->eng, words * 4, &go);
    uint64_t rng = seed;
    for (size_t k = 0; !st && k < sizeof ops / sizeof ops[0]; k++)
        st = self_check_op(dev, ops[k], n, &rng, ga, gb, go, a, b, want, got);
    gs_buf_destroy(ga);
    gs_buf_destroy(gb);
    gs_buf_destroy(go);
    free(a);
    free(b);
    free(want);
    free(got);
    if (st && !dev->err.status)
        gs_error_set(&dev->err, st, "%s", dev->eng->err.msg);
    return st;
}
#else
/* Nothing to check: a build without GLES has CPU devices only. */
glstark_status glstark_device_self_check(glstark_device *dev, uint64_t seed, size_t n)
{
    (void)seed;
    (void)n;
    if (!dev)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    gs_error_clear(&dev->err);
    return GLSTARK_OK;
}
#endif

gs_engine *gs_device_engine_of(glstark_device *dev) { return dev ? dev->eng : NULL; }

const char *glstark_cpu_vector_set(void)
{
    gs_simd_isa isa;
    gs_error err;
    if (gs_cpu_simd_choice(getenv("GLSTARK_CPU_SIMD"), &isa, &err))
        return "invalid GLSTARK_CPU_SIMD";
    return gs_simd_name(isa);
}
