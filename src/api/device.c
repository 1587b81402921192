/* The public device handle: an engine (CPU or GLES) plus what the caller
 * may ask about it. */
#include "glstark/device.h"
#include "api/device_internal.h"
#include "api/device_testing.h"
#include "api/options.h"

#include <errno.h>
#include <pthread.h>
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
} gs_gl_device;
#endif

struct glstark_device {
    glstark_engine_kind kind; /* GLES or CPU: what was opened */
    gs_engine *eng;
    gs_gl_device *gl; /* NULL for CPU devices */
    gs_error err;
    char engine_reason[512]; /* glstark_device_engine_reason */
    /* Serialises the calls that use the engine (device.h, "Threads"): an
     * engine and its GL context do one thing at a time. Error-checking, so
     * a thread that asks again while it holds the device (a callback of its
     * own call) is told so instead of deadlocking. */
    pthread_mutex_t lock;
};

#if GLSTARK_HAVE_GLES
/* The hold's opaque EGL handles as the GL layer's struct. */
static void prev_to_current(const gs_device_hold *h, gs_gl_current *c)
{
    c->dpy = h->prev[0];
    c->draw = h->prev[1];
    c->read = h->prev[2];
    c->ctx = h->prev[3];
}
#endif

glstark_status gs_device_acquire(glstark_device *dev, const char *who, gs_device_hold *hold, gs_error *err)
{
    memset(hold, 0, sizeof *hold);
    hold->dev = dev;
    int rc = pthread_mutex_lock(&dev->lock);
    if (rc == EDEADLK)
        return gs_error_set(err, GLSTARK_ERR_BUSY,
                            "%s: this thread is inside a call on this device already (a progress or trace callback "
                            "called back into the device); make the call after the outer one returns, or use "
                            "another device",
                            who);
    if (rc)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "%s: locking the device failed (error %d)", who, rc);
    hold->locked = 1;
#if GLSTARK_HAVE_GLES
    if (dev->gl) {
        gs_gl_current prev;
        glstark_status st = gs_gl_device_take(dev->gl, &prev, err);
        if (st) {
            gs_error_prefix(err, "%s", who);
            return st; /* still locked: the caller may record the error, then releases */
        }
        hold->prev[0] = prev.dpy;
        hold->prev[1] = prev.draw;
        hold->prev[2] = prev.read;
        hold->prev[3] = prev.ctx;
        hold->current = 1;
    }
#endif
    return GLSTARK_OK;
}

void gs_device_release(gs_device_hold *hold)
{
    if (!hold->locked)
        return;
#if GLSTARK_HAVE_GLES
    if (hold->current) {
        gs_gl_current prev;
        prev_to_current(hold, &prev);
        gs_gl_device_give(hold->dev->gl, &prev);
    }
#endif
    hold->locked = hold->current = 0;
    pthread_mutex_unlock(&hold->dev->lock);
}

/* The lock of a new device; 0 on success. */
static int lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a))
        return -1;
    int rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    if (!rc)
        rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

void glstark_device_options_init(glstark_device_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->engine = GLSTARK_ENGINE_AUTO;
    opts->platform = GLSTARK_PLATFORM_AUTO;
}

static glstark_status open_cpu(glstark_device *d, const gs_device_config *cfg)
{
    glstark_status st = gs_cpu_engine_create(cfg->cpu_threads, &d->eng, &d->err);
    if (!st) {
        d->kind = GLSTARK_ENGINE_CPU;
        d->eng->bytes_cap = (size_t)cfg->device_memory_cap;
    }
    return st;
}

#if GLSTARK_HAVE_GLES
static glstark_status open_gles(glstark_device *d, const gs_device_config *cfg, gs_error *err)
{
    glstark_status st = gs_gles_engine_create(cfg, &d->eng, err);
    if (!st) {
        d->kind = GLSTARK_ENGINE_GLES;
        d->gl = gs_gles_device(d->eng);
    }
    return st;
}

/* The first line of a message (the GLES open's reasons run to many). */
static void first_line(char *dst, size_t n, const char *msg)
{
    size_t k = strcspn(msg, "\n");
    if (k >= n)
        k = n - 1;
    memcpy(dst, msg, k);
    dst[k] = '\0';
}
#endif

/* GLSTARK_ENGINE_AUTO: GLES on hardware; the CPU engine where only a
 * software renderer opens (about 20x faster than llvmpipe: keccakf-1024 on
 * 2 cores, 3.2 s against 60 s), where no GLES device opens, or without GLES. */
static glstark_status open_auto(glstark_device *d, const gs_device_config *cfg)
{
#if GLSTARK_HAVE_GLES
    gs_error gerr;
    gs_error_clear(&gerr);
    glstark_status st = open_gles(d, cfg, &gerr);
    if (!st && !d->gl->is_software) {
        snprintf(d->engine_reason, sizeof d->engine_reason, "auto: a hardware GPU opened (%s)", d->gl->renderer);
        return GLSTARK_OK;
    }
    if (!st) {
        char renderer[GS_GL_INFO_MAX];
        snprintf(renderer, sizeof renderer, "%s", d->gl->renderer);
        gs_engine_destroy(d->eng);
        d->eng = NULL;
        d->gl = NULL;
        snprintf(d->engine_reason, sizeof d->engine_reason,
                 "auto: only a software renderer (%.200s) opened; the CPU engine is faster there "
                 "(--engine gles or GLSTARK_ENGINE=gles forces it)",
                 renderer);
    } else if (cfg->device_index > 0 || cfg->drm_node) {
        /* a particular GPU was asked for: its failure is the answer */
        d->err = gerr;
        return st;
    } else {
        char why[200];
        first_line(why, sizeof why, gerr.msg);
        snprintf(d->engine_reason, sizeof d->engine_reason, "auto: no GLES device opened (%s: %s); the CPU engine",
                 glstark_status_name(st), why);
    }
    return open_cpu(d, cfg);
#else
    snprintf(d->engine_reason, sizeof d->engine_reason,
             "auto: this build has no GLES engine (-Dgles=disabled); the CPU engine");
    return open_cpu(d, cfg);
#endif
}

glstark_status gs_device_create_config(const gs_device_config *cfg, glstark_device **out, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!out || !cfg)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    glstark_device *d = calloc(1, sizeof *d);
    if (!d) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "glstark_device_create: out of host memory");
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    if (lock_init(&d->lock)) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "glstark_device_create: cannot make the device's lock (out of resources)");
        free(d);
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
#if GLSTARK_HAVE_GLES
    /* opening makes the new context current here; the caller's own
     * context, if any, comes back at the end */
    gs_gl_current before;
    gs_gl_current_save(&before);
#endif
    const char *asked = cfg->engine_from_env ? cfg->engine_from_env : "options";
    glstark_status st;
    if (cfg->engine == GLSTARK_ENGINE_CPU) {
        snprintf(d->engine_reason, sizeof d->engine_reason, "cpu: asked for (%s)", asked);
        st = open_cpu(d, cfg);
    } else if (cfg->engine == GLSTARK_ENGINE_GLES) {
        snprintf(d->engine_reason, sizeof d->engine_reason, "gles: asked for (%s)", asked);
#if GLSTARK_HAVE_GLES
        st = open_gles(d, cfg, &d->err);
#else
        st = gs_error_set(&d->err, GLSTARK_ERR_UNSUPPORTED,
                          "glstark_device_create: this build of glstark has no GLES engine (configured with "
                          "-Dgles=disabled, or EGL/GLES/GBM were not found); use GLSTARK_ENGINE_CPU or "
                          "GLSTARK_ENGINE_AUTO, or rebuild with -Dgles=enabled on a system with libegl-dev, "
                          "libgles-dev and libgbm-dev");
#endif
    } else if (cfg->engine == GLSTARK_ENGINE_AUTO) {
        st = open_auto(d, cfg);
    } else {
        st = gs_error_set(&d->err, GLSTARK_ERR_INVALID_ARGUMENT,
                          "glstark_device_create: engine %d is not GLSTARK_ENGINE_AUTO, GLSTARK_ENGINE_GLES or "
                          "GLSTARK_ENGINE_CPU",
                          (int)cfg->engine);
    }
#if GLSTARK_HAVE_GLES
    /* the device is nobody's until a call takes it (device.h, "Threads") */
    if (!st && d->gl)
        gs_gl_device_give(d->gl, &before);
    else
        gs_gl_current_restore(&before);
#endif
    if (st) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "%s", d->err.msg);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return st;
    }
    if (cfg->log) {
        char line[600];
        snprintf(line, sizeof line, "engine %s", d->engine_reason);
        cfg->log(cfg->log_user, GLSTARK_LOG_INFO, line);
    }
    *out = d;
    return GLSTARK_OK;
}

glstark_status glstark_device_create(const glstark_device_options *opts, glstark_device **out, char *msg,
                                     size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    gs_device_config cfg;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_device_config_resolve(opts, &cfg, &err);
    if (st) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "%s", err.msg);
        return st;
    }
    return gs_device_create_config(&cfg, out, msg, msg_size);
}

void glstark_device_destroy(glstark_device *dev)
{
    if (!dev)
        return;
    /* waits for a call still running on another thread; from inside a call
     * on this device (a callback) it must not free what that call uses */
    if (pthread_mutex_lock(&dev->lock) == EDEADLK)
        return;
#if GLSTARK_HAVE_GLES
    gs_gl_current before;
    gs_gl_current_save(&before);
#endif
    gs_engine_destroy(dev->eng); /* a GLES engine takes its context to free its objects */
#if GLSTARK_HAVE_GLES
    gs_gl_current_restore(&before);
#endif
    pthread_mutex_unlock(&dev->lock);
    pthread_mutex_destroy(&dev->lock);
    free(dev);
}

void glstark_device_release_memory(glstark_device *dev)
{
#if GLSTARK_HAVE_GLES
    if (!dev || dev->kind != GLSTARK_ENGINE_GLES || !dev->eng)
        return;
    gs_device_hold h;
    gs_error err;
    gs_error_clear(&err);
    if (!gs_device_acquire(dev, "glstark_device_release_memory", &h, &err))
        gs_gles_pool_release(dev->eng);
    gs_device_release(&h);
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

const char *glstark_device_engine_reason(const glstark_device *dev) { return dev ? dev->engine_reason : ""; }

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

void glstark_device_limits_init(glstark_device_limits *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
}

#if GLSTARK_HAVE_GLES
/* The internal caps into the public struct: each field by name, so the two
 * may differ. */
static void limits_from_caps(const gs_gl_caps *c, glstark_device_limits *L)
{
    L->max_invocations = c->max_invocations;
    for (int i = 0; i < 3; i++) {
        L->max_group_size[i] = c->max_group_size[i];
        L->max_group_count[i] = c->max_group_count[i];
    }
    L->max_shared_bytes = c->max_shared_bytes;
    L->max_binding_bytes = c->max_binding_bytes;
    L->max_storage_blocks = c->max_storage_blocks;
    L->max_storage_bindings = c->max_storage_bindings;
    L->binding_offset_align = c->binding_offset_align;
    L->subgroup_size = c->subgroup_size;
    L->local_size = c->local_size;
    L->timer_queries_valid = c->timer_queries_valid;
    L->persistent_map = c->persistent_map;
    L->robustness = c->robustness;
    L->floor_mode = c->floor_mode;
    L->readback = c->readback;
    L->slots = c->slots;
    L->desktop_class = c->desktop_class;
    L->interp_groups = c->interp_groups;
    L->dft_block_log = c->dft_block_log;
    L->upload_ring = c->upload_ring;
    L->buffer_pool = c->buffer_pool;
    L->shader_copy = c->shader_copy;
    L->subgroup_reduce = c->subgroup_reduce;
    L->subgroup_features = c->subgroup_features;
    L->field_mul = c->field_mul;
    L->background_compile = c->background_compile;
    L->parallel_groups = c->parallel_groups;
    L->upload_staged = c->upload_staged;
    L->upload_packed = c->upload_packed;
}
#endif

glstark_status glstark_device_limits_get(const glstark_device *dev, glstark_device_limits *out)
{
    if (!dev || !out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    size_t n = out->size;
    if (n < sizeof out->size || n > 4096)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    glstark_device_limits L;
    glstark_device_limits_init(&L);
#if GLSTARK_HAVE_GLES
    if (dev->gl)
        limits_from_caps(&dev->gl->caps, &L);
#endif
    /* a newer caller's struct: the fields this library does not know are 0 */
    if (n > sizeof L)
        memset((char *)out + sizeof L, 0, n - sizeof L);
    memcpy(out, &L, n < sizeof L ? n : sizeof L);
    out->size = n;
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

static glstark_status self_check_held(glstark_device *dev, uint64_t seed, size_t n);

glstark_status glstark_device_self_check(glstark_device *dev, uint64_t seed, size_t n)
{
    if (!dev)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    gs_device_hold h;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_device_acquire(dev, "glstark_device_self_check", &h, &err);
    if (st == GLSTARK_ERR_BUSY)
        return st; /* the outer call owns dev->err */
    gs_error_clear(&dev->err);
    if (st)
        dev->err = err;
    else
        st = self_check_held(dev, seed, n);
    gs_device_release(&h);
    return st;
}

/* The self-check with the device held. */
static glstark_status self_check_held(glstark_device *dev, uint64_t seed, size_t n)
{
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

glstark_status gs_test_config(gs_device_config *out, gs_error *err) { return gs_device_config_resolve(NULL, out, err); }

#if GLSTARK_HAVE_GLES
glstark_status gs_gles_engine_create_opts(const glstark_device_options *opts, gs_engine **out, gs_error *err)
{
    *out = NULL;
    gs_device_config cfg;
    glstark_status st = gs_device_config_resolve(opts, &cfg, err);
    return st ? st : gs_gles_engine_create(&cfg, out, err);
}
#endif

gs_engine *gs_device_engine_of(glstark_device *dev) { return dev ? dev->eng : NULL; }

const char *glstark_cpu_vector_set(void)
{
    gs_simd_isa isa;
    gs_error err;
    if (gs_cpu_simd_choice(gs_option_getenv("GLSTARK_CPU_SIMD"), &isa, &err))
        return "invalid GLSTARK_CPU_SIMD";
    return gs_simd_name(isa);
}
