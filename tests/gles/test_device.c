/* Device open through each headless path, forced-path failures, software
 * refusal, option and environment validation, caps and floor mode. */
#include "gles_test_util.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/device_internal.h"
#include "glstark/glstark.h"

/* Default options but the GLES engine: these tests mean GLES (the default
 * engine is auto, which takes the CPU engine on llvmpipe). */
static const glstark_device_options *gles_only(void)
{
    static glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    return &o;
}

/* The floor-mode run sets GLSTARK_LIMITS; tests that force a path must not
 * be steered by a developer's GLSTARK_PLATFORM/GLSTARK_DRM_NODE. */
static void clear_path_env(void)
{
    unsetenv("GLSTARK_PLATFORM");
    unsetenv("GLSTARK_DRM_NODE");
    unsetenv("GLSTARK_REQUIRE_HW");
}

static int have_dri(void)
{
    struct stat st;
    return stat("/dev/dri", &st) == 0;
}

static glstark_status open_platform(glstark_platform p, glstark_device **dev, char *msg, size_t n)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.platform = p;
    return glstark_device_create(&o, dev, msg, n);
}

static void check_opened(glstark_device *dev, glstark_platform want)
{
    cr_assert_eq(glstark_device_platform(dev), want);
    cr_assert(strlen(glstark_device_renderer(dev)) > 0);
    cr_assert(strstr(glstark_device_gl_version(dev), "OpenGL ES 3.") != NULL, "version '%s'",
              glstark_device_gl_version(dev));
    glstark_device_limits L;
    glstark_device_limits_init(&L);
    cr_assert_eq(glstark_device_limits_get(dev, &L), GLSTARK_OK);
    cr_assert_geq(L.max_invocations, 128);
    cr_assert_geq(L.max_group_count[0], 65535);
    cr_assert_geq(L.max_binding_bytes, 1u << 27);
    cr_assert_geq(L.max_storage_blocks, 4);
    cr_assert(L.binding_offset_align > 0 && L.binding_offset_align <= 256);
    cr_assert(L.local_size > 0 && L.local_size <= L.max_invocations);
    /* a software renderer's threads, else a core count or 1: never 0 */
    cr_assert(L.parallel_groups >= 1 && L.parallel_groups <= 64, "parallel_groups %u", L.parallel_groups);
    cr_log_info("%s: %s (%s), software=%d", glstark_device_platform_path(dev), glstark_device_renderer(dev),
                glstark_device_gl_version(dev), glstark_device_is_software(dev));
}

/* The dispatch budget's P (work groups side by side): llvmpipe's threads
 * as LP_NUM_THREADS sets them (criterion runs each test in its own
 * process, so the variable reaches this test's llvmpipe only). */
Test(gles_device, parallel_groups_follow_llvmpipe_threads)
{
    clear_path_env();
    setenv("LP_NUM_THREADS", "3", 1);
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = glstark_device_create(gles_only(), &dev, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_OK, "%s", msg);
    glstark_device_limits L;
    glstark_device_limits_init(&L);
    cr_assert_eq(glstark_device_limits_get(dev, &L), GLSTARK_OK);
    if (glstark_device_is_software(dev))
        cr_assert_eq(L.parallel_groups, 3u, "llvmpipe with 3 threads: %u", L.parallel_groups);
    else
        cr_assert_geq(L.parallel_groups, 1u);
    glstark_device_destroy(dev);
}

/* Where a GPU does not say, the engine measures P under a budget
 * (gs_gl_measure_parallel). llvmpipe on one thread is a device whose P is
 * known to be 1: the test knob makes the engine measure it anyway, and two
 * groups take twice one group's time there, so the measurement must say
 * 1, never more. Its syncs count as calibration syncs. */
/* The measurement is timing, so another process on the host can skew one
 * (a stall in the one-group runs makes several groups look side by side:
 * a CI run measured 4 while the host was busy). Every measurement must be
 * a power of two within the cap and count its syncs; one of three devices
 * must find the 1 that a single llvmpipe thread runs, which a probe that
 * always overcounts would not. */
Test(gles_device, measured_parallel_groups_on_one_thread)
{
    clear_path_env();
    setenv("LP_NUM_THREADS", "1", 1);
    gs_device_config cfg = tu_config();
    cfg.engine = GLSTARK_ENGINE_GLES;
    cfg.software_threads = 1;
    cfg.measure_parallel = 1;
    cfg.dispatch_ms = 50;
    unsigned got[3] = {0, 0, 0};
    for (int attempt = 0; attempt < 3; attempt++) {
        gs_engine *eng = tu_engine(&cfg);
        gs_gl_device *dev = gs_gles_device(eng);
        const unsigned p = dev->caps.parallel_groups;
        cr_assert(dev->caps.parallel_measured, "the knob asked for a measurement");
        cr_assert(p >= 1 && p <= 64 && (p & (p - 1)) == 0, "P measured as %u", p);
        cr_assert_geq(dev->calib_syncs, 2 * 4u, "the probe's finishes count as calibration syncs");
        const int software = dev->is_software;
        gs_engine_destroy(eng);
        if (!software)
            cr_skip_test("not llvmpipe: P measured as %u, nothing to hold it to", p);
        got[attempt] = p;
        if (p == 1)
            return;
        cr_log_warn("attempt %d: llvmpipe on one thread measured as %u groups side by side", attempt + 1, p);
    }
    cr_assert_fail("llvmpipe on one thread measured as %u, %u and %u groups side by side, never 1", got[0], got[1],
                   got[2]);
}

/* Without a budget nothing is measured: P stays what the renderer says. */
Test(gles_device, no_measurement_without_budget)
{
    clear_path_env();
    gs_device_config cfg = tu_config();
    cfg.engine = GLSTARK_ENGINE_GLES;
    cfg.measure_parallel = 1;
    cfg.dispatch_ms = 0;
    gs_engine *eng = tu_engine(&cfg);
    gs_gl_device *dev = gs_gles_device(eng);
    cr_assert(!dev->caps.parallel_measured);
    cr_assert_eq(dev->calib_syncs, 0u);
    gs_engine_destroy(eng);
}

Test(gles_device, opens_through_auto)
{
    clear_path_env();
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = glstark_device_create(gles_only(), &dev, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_OK, "%s", msg);
    check_opened(dev, glstark_device_platform(dev));
    cr_assert_neq(glstark_device_platform(dev), GLSTARK_PLATFORM_AUTO);
    glstark_device_destroy(dev);
}

Test(gles_device, opens_through_egl_device)
{
    clear_path_env();
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = open_platform(GLSTARK_PLATFORM_DEVICE, &dev, msg, sizeof msg);
    if (st == GLSTARK_ERR_NO_DEVICE && strstr(msg, "lacks EGL_EXT_platform_device"))
        cr_skip_test("EGL has no EGL_EXT_platform_device here: %s", msg);
    cr_assert_eq(st, GLSTARK_OK, "%s", msg);
    check_opened(dev, GLSTARK_PLATFORM_DEVICE);
    cr_assert(strncmp(glstark_device_platform_path(dev), "device #", 8) == 0);
    glstark_device_destroy(dev);
}

Test(gles_device, opens_through_surfaceless)
{
    clear_path_env();
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = open_platform(GLSTARK_PLATFORM_SURFACELESS, &dev, msg, sizeof msg);
    if (st == GLSTARK_ERR_NO_DEVICE && strstr(msg, "lacks EGL_MESA_platform_surfaceless"))
        cr_skip_test("EGL has no EGL_MESA_platform_surfaceless here (not Mesa): %s", msg);
    cr_assert_eq(st, GLSTARK_OK, "%s", msg);
    check_opened(dev, GLSTARK_PLATFORM_SURFACELESS);
    cr_assert_str_eq(glstark_device_platform_path(dev), "surfaceless");
    glstark_device_destroy(dev);
}

Test(gles_device, opens_through_gbm_or_explains)
{
    clear_path_env();
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = open_platform(GLSTARK_PLATFORM_GBM, &dev, msg, sizeof msg);
    if (!have_dri()) {
        /* The forced-path failure must say what was tried and why. */
        cr_assert_eq(st, GLSTARK_ERR_NO_DEVICE);
        cr_assert(strstr(msg, "platform gbm") != NULL, "%s", msg);
        cr_assert(strstr(msg, "gbm") && (strstr(msg, "/dev/dri") || strstr(msg, "libgbm")), "%s", msg);
        cr_assert(strstr(msg, "What to do") != NULL, "%s", msg);
        cr_assert(strstr(msg, "device #") == NULL, "a forced GBM open must not try other paths: %s", msg);
        cr_skip_test("no /dev/dri here: GBM path checked for its error message only");
    }
    if (st == GLSTARK_ERR_NO_DEVICE)
        cr_skip_test("/dev/dri exists but GBM did not open (permissions?): %s", msg);
    cr_assert_eq(st, GLSTARK_OK, "%s", msg);
    check_opened(dev, GLSTARK_PLATFORM_GBM);
    cr_assert(strncmp(glstark_device_platform_path(dev), "gbm /dev/dri/renderD", 20) == 0);
    glstark_device_destroy(dev);
}

/* Mesa's GBM accepts any file descriptor and falls back to its software
 * (kms_swrast) driver when the node is not a GPU, so /dev/null exercises the
 * whole GBM path (dlopen, gbm_create_device, EGL on GBM, context, software
 * detection) on machines without /dev/dri. Other GBM stacks may refuse it. */
Test(gles_device, gbm_path_on_a_non_gpu_node)
{
    clear_path_env();
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.platform = GLSTARK_PLATFORM_GBM;
    o.drm_node = "/dev/null";
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = glstark_device_create(&o, &dev, msg, sizeof msg);
    if (st == GLSTARK_ERR_NO_DEVICE) {
        cr_assert(strstr(msg, "gbm /dev/null") || strstr(msg, "libgbm"), "%s", msg);
        cr_skip_test("this GBM stack refuses /dev/null: %s", msg);
    }
    cr_assert_eq(st, GLSTARK_OK, "%s", msg);
    check_opened(dev, GLSTARK_PLATFORM_GBM);
    cr_assert_str_eq(glstark_device_platform_path(dev), "gbm /dev/null");
    cr_assert_eq(glstark_device_is_software(dev), 1, "renderer '%s' on /dev/null must be software",
                 glstark_device_renderer(dev));
    cr_assert_eq(glstark_device_self_check(dev, 7, 256), GLSTARK_OK, "%s", glstark_device_last_error(dev));
    glstark_device_destroy(dev);
    /* And the same node with software refused gives the documented error. */
    o.require_hw = 1;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_NO_DEVICE);
    cr_assert(strstr(msg, "gbm /dev/null") && strstr(msg, "software renderer"), "%s", msg);
}

Test(gles_device, forced_missing_drm_node_lists_the_path)
{
    clear_path_env();
    setenv("GLSTARK_DRM_NODE", "/dev/dri/renderD199", 1);
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = glstark_device_create(gles_only(), &dev, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_ERR_NO_DEVICE, "%s", msg);
    cr_assert_null(dev);
    cr_assert(strstr(msg, "/dev/dri/renderD199") != NULL, "%s", msg);
    cr_assert(strstr(msg, "surfaceless") != NULL, "every path should be listed: %s", msg);
}

Test(gles_device, software_refusal_is_reported)
{
    clear_path_env();
    glstark_device *dev = NULL;
    char msg[4096];
    cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    int sw = glstark_device_is_software(dev);
    glstark_device_destroy(dev);
    setenv("GLSTARK_REQUIRE_HW", "1", 1);
    dev = NULL;
    glstark_status st = glstark_device_create(gles_only(), &dev, msg, sizeof msg);
    if (!sw) {
        cr_assert_eq(st, GLSTARK_OK, "a hardware device opened before, so it must open now: %s", msg);
        cr_assert_eq(glstark_device_is_software(dev), 0);
        glstark_device_destroy(dev);
        cr_skip_test("the default device is hardware; refusal not exercised");
    }
    cr_assert_eq(st, GLSTARK_ERR_NO_DEVICE, "%s", msg);
    cr_assert(strstr(msg, "software") != NULL, "%s", msg);
    cr_assert(strstr(msg, "GLSTARK_REQUIRE_HW") != NULL, "%s", msg);
    cr_assert(strstr(msg, "hardware required") != NULL, "%s", msg);
}

Test(gles_device, require_hw_option_matches_env)
{
    clear_path_env();
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.require_hw = 1;
    o.platform = GLSTARK_PLATFORM_SURFACELESS;
    glstark_device *dev = NULL;
    char msg[4096];
    glstark_status st = glstark_device_create(&o, &dev, msg, sizeof msg);
    if (st == GLSTARK_OK) {
        cr_assert_eq(glstark_device_is_software(dev), 0);
        glstark_device_destroy(dev);
    } else {
        cr_assert_eq(st, GLSTARK_ERR_NO_DEVICE);
        cr_assert(strstr(msg, "surfaceless") != NULL, "%s", msg);
    }
}

Test(gles_device, bad_environment_values_are_errors)
{
    clear_path_env();
    char msg[4096];
    glstark_device *dev = NULL;
    /* each variable, a bad value, and what the message must also name (the
     * value, or the valid range) */
    static const struct {
        const char *var, *value, *also;
    } bad[] = {
        {"GLSTARK_PLATFORM", "wayland", "wayland"}, {"GLSTARK_LIMITS", "tiny", NULL},
        {"GLSTARK_DFT_BLOCK", "3", NULL},           {"GLSTARK_DFT_BLOCK", "12", NULL},
        {"GLSTARK_DFT_BLOCK", "eleven", NULL},      {"GLSTARK_FIELD_MUL", "fast", "fast"},
        {"GLSTARK_GROUPS", "257", "1..256"},        {"GLSTARK_POOL", "sometimes", "sometimes"},
        {"GLSTARK_SUBGROUPS", "maybe", "maybe"},    {"GLSTARK_PRECOMPILE", "later", "auto, off, on"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i].var, bad[i].value, 1);
        cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT, "%s=%s",
                     bad[i].var, bad[i].value);
        cr_assert(strstr(msg, bad[i].var) && (!bad[i].also || strstr(msg, bad[i].also)), "%s", msg);
        cr_assert_null(dev);
        unsetenv(bad[i].var);
    }
    /* Out-of-range values through the options struct. */
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.precompile = (glstark_precompile)3;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "precompile") != NULL, "%s", msg);
    cr_assert_null(dev);
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.subgroups = (glstark_subgroups)7;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "subgroups") != NULL, "%s", msg);
    cr_assert_null(dev);
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.interp_groups = 257;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "interp_groups") != NULL, "%s", msg);
    cr_assert_null(dev);
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.field_mul = (glstark_field_mul)3;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "field_mul") != NULL, "%s", msg);
    cr_assert_null(dev);
}

/* The field-multiply variant: AUTO follows the device class, the option and
 * the environment force either, and both give the C reference's results on
 * the field kernels (edge values included) and in a Poseidon2 permutation. */
Test(gles_device, field_mul_variants)
{
    clear_path_env();
    unsetenv("GLSTARK_FIELD_MUL");
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    gs_engine *eng = tu_engine_opts(&o);
    const gs_gl_device *d = gs_gles_device(eng);
    glstark_field_mul want = strstr(d->renderer, "V3D") ? GLSTARK_FIELD_MUL_SHIFT : GLSTARK_FIELD_MUL_WIDE;
    cr_assert_eq(d->caps.field_mul, want, "auto chose %d", (int)d->caps.field_mul);
    gs_engine_destroy(eng);
    for (int v = GLSTARK_FIELD_MUL_WIDE; v <= GLSTARK_FIELD_MUL_SHIFT; v++) {
        o.field_mul = (glstark_field_mul)v;
        glstark_device *dev = NULL;
        char msg[1024];
        cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
        glstark_device_limits L;
        glstark_device_limits_init(&L);
        cr_assert_eq(glstark_device_limits_get(dev, &L), GLSTARK_OK);
        cr_assert_eq(L.field_mul, (glstark_field_mul)v);
        /* random elements from a printed seed, plus 0, 1 and p-1 (the self-check mixes them in) */
        uint64_t seed = 0x5EED0000u + (uint64_t)v;
        cr_log_info("field_mul %s: self-check seed %llu", v == GLSTARK_FIELD_MUL_SHIFT ? "shift" : "wide",
                    (unsigned long long)seed);
        cr_assert_eq(glstark_device_self_check(dev, seed, 3000), GLSTARK_OK, "%s", glstark_device_last_error(dev));
        glstark_device_destroy(dev);
    }
    /* the environment wins over the option */
    setenv("GLSTARK_FIELD_MUL", "shift", 1);
    o.field_mul = GLSTARK_FIELD_MUL_WIDE;
    eng = tu_engine_opts(&o);
    cr_assert_eq(gs_gles_device(eng)->caps.field_mul, GLSTARK_FIELD_MUL_SHIFT);
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_FIELD_MUL");
}

/* Subgroup reductions: AUTO takes them exactly where the driver offers
 * subgroup arithmetic in compute shaders (and not in floor mode), OFF never,
 * ON insists and otherwise fails with a message that says why. */
Test(gles_device, subgroup_choice)
{
    clear_path_env();
    unsetenv("GLSTARK_SUBGROUPS");
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    gs_engine *eng = tu_engine_opts(&o);
    const gs_gl_device *d = gs_gles_device(eng);
    const uint32_t need = GL_SUBGROUP_FEATURE_BASIC_BIT_KHR | GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR;
    const uint32_t size = d->hw_caps.subgroup_size;
    int expect = !d->caps.floor_mode && gs_gl_has_extension(d, "GL_KHR_shader_subgroup") &&
                 (d->hw_caps.subgroup_features & need) == need && size >= 4 && (size & (size - 1)) == 0;
    cr_assert_eq(d->caps.subgroup_reduce, expect, "auto chose %d, the device's report says %d",
                 d->caps.subgroup_reduce, expect);
    cr_log_info("subgroup size %u, features 0x%x: subgroup reductions %s", d->hw_caps.subgroup_size,
                d->hw_caps.subgroup_features, expect ? "on" : "off");
    gs_engine_destroy(eng);

    o.subgroups = GLSTARK_SUBGROUPS_OFF;
    eng = tu_engine_opts(&o);
    cr_assert_eq(gs_gles_device(eng)->caps.subgroup_reduce, 0);
    gs_engine_destroy(eng);

    o.subgroups = GLSTARK_SUBGROUPS_ON;
    glstark_device *dev = NULL;
    char msg[2048];
    glstark_status st = glstark_device_create(&o, &dev, msg, sizeof msg);
    if (expect) {
        cr_assert_eq(st, GLSTARK_OK, "%s", msg);
        glstark_device_limits L;
        glstark_device_limits_init(&L);
        cr_assert_eq(glstark_device_limits_get(dev, &L), GLSTARK_OK);
        cr_assert_eq(L.subgroup_reduce, 1);
        glstark_device_destroy(dev);
    } else {
        cr_assert_eq(st, GLSTARK_ERR_UNSUPPORTED, "%s", msg);
        cr_assert(strstr(msg, "GLSTARK_SUBGROUPS") != NULL, "%s", msg);
        cr_assert_null(dev);
    }

    /* floor mode never uses them */
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.limits_floor = 1;
    eng = tu_engine_opts(&o);
    cr_assert_eq(gs_gles_device(eng)->caps.subgroup_reduce, 0);
    gs_engine_destroy(eng);
}

Test(gles_device, options_size_is_checked)
{
    clear_path_env();
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.size = 3;
    char msg[1024];
    glstark_device *dev = NULL;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "size") != NULL, "%s", msg);
    /* An older, shorter struct (only up to `engine`) still works. */
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_CPU;
    o.size = offsetof(glstark_device_options, engine) + sizeof o.engine;
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_CPU);
    glstark_device_destroy(dev);
}

Test(gles_device, floor_mode_clamps_to_es31_minimums)
{
    clear_path_env();
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.limits_floor = 1;
    gs_engine *eng = tu_engine_opts(&o);
    const gs_gl_device *dev = gs_gles_device(eng);
    const gs_gl_caps *c = &dev->caps;
    cr_assert_eq(c->floor_mode, 1);
    cr_assert_eq(c->max_invocations, 128);
    cr_assert_leq(c->max_shared_bytes, 16384);
    cr_assert_leq(c->max_binding_bytes, 1u << 27);
    cr_assert_eq(c->max_storage_blocks, 4);
    cr_assert_leq(c->max_group_count[0], 65535);
    cr_assert_geq(c->binding_offset_align, 256);
    cr_assert_leq(c->local_size, 128);
    cr_assert_eq(c->subgroup_size, 0);
    /* The driver's own numbers are kept apart. */
    cr_assert_geq(dev->hw_caps.max_invocations, 128);
    gs_engine_destroy(eng);
}

Test(gles_device, env_floor_mode_applies)
{
    clear_path_env();
    setenv("GLSTARK_LIMITS", "es31-min", 1);
    gs_engine *eng = tu_engine(NULL);
    cr_assert_eq(gs_gles_device(eng)->caps.floor_mode, 1);
    cr_assert_eq(gs_gles_device(eng)->caps.max_invocations, 128);
    gs_engine_destroy(eng);
}

Test(gles_device, test_knobs_lower_limits)
{
    clear_path_env();
    gs_device_config o = tu_config();
    o.max_binding_bytes = 100000; /* not a multiple of the alignment on purpose */
    o.max_group_count = 7;
    o.device_memory_cap = 1 << 20;
    gs_engine *eng = tu_engine(&o);
    const gs_gl_caps *c = &gs_gles_device(eng)->caps;
    cr_assert_leq(c->max_binding_bytes, 100000);
    cr_assert_eq(c->max_binding_bytes % c->binding_offset_align, 0);
    cr_assert_eq(c->max_group_count[0], 7);
    cr_assert_eq(eng->bytes_cap, 1 << 20);
    gs_engine_destroy(eng);
    /* The DFT block only goes down: 2^6 applies, 2^11 never exceeds the device's choice. */
    o = tu_config();
    o.dft_block_log = 6;
    eng = tu_engine(&o);
    cr_assert_eq(gs_gles_device(eng)->caps.dft_block_log, 6);
    gs_engine_destroy(eng);
    o = tu_config();
    eng = tu_engine(&o);
    uint32_t own = gs_gles_device(eng)->caps.dft_block_log;
    gs_engine_destroy(eng);
    o.dft_block_log = 11;
    eng = tu_engine(&o);
    cr_assert_eq(gs_gles_device(eng)->caps.dft_block_log, own < 11 ? own : 11);
    gs_engine_destroy(eng);
}

Test(gles_device, whole_token_extension_matching)
{
    const char *list = "EGL_KHR_platform_gbm_extra EGL_MESA_platform_surfaceless EGL_EXT_platform_base";
    cr_assert(gs_gl_has_token(list, "EGL_MESA_platform_surfaceless"));
    cr_assert(gs_gl_has_token(list, "EGL_EXT_platform_base"));
    cr_assert(!gs_gl_has_token(list, "EGL_KHR_platform_gbm"), "a prefix of a longer name must not match");
    cr_assert(!gs_gl_has_token(list, "platform_base"), "a suffix must not match");
    cr_assert(!gs_gl_has_token(list, ""));
    cr_assert(!gs_gl_has_token(NULL, "x"));
}

Test(gles_device, info_strings_and_cpu_device)
{
    clear_path_env();
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_CPU;
    glstark_device *dev = NULL;
    char msg[256];
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_device_platform(dev), GLSTARK_PLATFORM_NONE);
    cr_assert_str_eq(glstark_device_platform_path(dev), "cpu");
    cr_assert_eq(glstark_device_self_check(dev, 1, 16), GLSTARK_OK);
    glstark_device_limits L;
    glstark_device_limits_init(&L);
    cr_assert_eq(glstark_device_limits_get(dev, &L), GLSTARK_OK);
    cr_assert_eq(L.max_invocations, 0);
    glstark_device_destroy(dev);
}

/* The identification getters of a GLES device, what a failure leaves for
 * glstark_device_last_error, and every getter on NULL (no crash). */
Test(gles_device, info_getters_last_error_and_null)
{
    clear_path_env();
    glstark_device *dev = NULL;
    char msg[4096];
    cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert(strlen(glstark_device_egl_vendor(dev)) > 0);
    cr_assert(strlen(glstark_device_gl_vendor(dev)) > 0);
    const char *ev = glstark_device_egl_version(dev);
    cr_assert(ev[0] == '1' && ev[1] == '.', "EGL version '%s'", ev);
    cr_assert(strstr(glstark_device_glsl_version(dev), "OpenGL ES GLSL ES 3.") != NULL, "GLSL version '%s'",
              glstark_device_glsl_version(dev));
    /* every listed extension is a GL_ or EGL_ name */
    char ext[4096];
    snprintf(ext, sizeof ext, "%s", glstark_device_extensions(dev));
    for (char *save = NULL, *t = strtok_r(ext, " ", &save); t; t = strtok_r(NULL, " ", &save))
        cr_assert(strncmp(t, "GL_", 3) == 0 || strncmp(t, "EGL_", 4) == 0, "extension token '%s'", t);
    const char *pn = glstark_platform_name(glstark_device_platform(dev));
    cr_assert(!strcmp(pn, "gbm") || !strcmp(pn, "device") || !strcmp(pn, "surfaceless"), "platform %s", pn);
    cr_assert_str_eq(glstark_device_last_error(dev), "");
    /* a failure stays readable: the self-check on a context the driver reset */
    gs_gles_device(gs_device_engine_of(dev))->context_lost = 1;
    cr_assert_eq(glstark_device_self_check(dev, 1, 64), GLSTARK_ERR_CONTEXT_LOST);
    cr_assert(strstr(glstark_device_last_error(dev), "open a new one") != NULL, "%s", glstark_device_last_error(dev));
    glstark_device_destroy(dev);

    /* every platform has a name of its own; an unknown value says so */
    const glstark_platform all[] = {GLSTARK_PLATFORM_AUTO, GLSTARK_PLATFORM_GBM, GLSTARK_PLATFORM_DEVICE,
                                    GLSTARK_PLATFORM_SURFACELESS, GLSTARK_PLATFORM_NONE};
    for (size_t i = 0; i < 5; i++)
        for (size_t j = i + 1; j < 5; j++)
            cr_assert_str_neq(glstark_platform_name(all[i]), glstark_platform_name(all[j]));
    cr_assert_str_eq(glstark_platform_name((glstark_platform)77), "unknown");

    /* NULL: documented neutral values, no crash */
    cr_assert_str_eq(glstark_device_last_error(NULL), "no device");
    cr_assert_str_eq(glstark_device_renderer(NULL), "");
    cr_assert_str_eq(glstark_device_platform_path(NULL), "");
    cr_assert_str_eq(glstark_device_extensions(NULL), "");
    cr_assert_str_eq(glstark_device_gl_version(NULL), "");
    cr_assert_eq(glstark_device_platform(NULL), GLSTARK_PLATFORM_NONE);
    cr_assert_eq(glstark_device_engine(NULL), GLSTARK_ENGINE_CPU);
    cr_assert_eq(glstark_device_is_software(NULL), 0);
    glstark_device_limits L;
    glstark_device_limits_init(&L);
    cr_assert_eq(glstark_device_limits_get(NULL, &L), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_device_self_check(NULL, 1, 8), GLSTARK_ERR_INVALID_ARGUMENT);
    glstark_device_release_memory(NULL);
    glstark_device_destroy(NULL);
}

Test(gles_device, self_check_passes)
{
    clear_path_env();
    glstark_device *dev = NULL;
    char msg[4096];
    cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    uint64_t seed = 0x5eed0001;
    cr_log_info("self-check seed %llu", (unsigned long long)seed);
    glstark_status st = glstark_device_self_check(dev, seed, 3000);
    cr_assert_eq(st, GLSTARK_OK, "%s", glstark_device_last_error(dev));
    glstark_device_destroy(dev);
}

Test(gles_device, two_devices_in_one_process)
{
    clear_path_env();
    gs_engine *a = tu_engine(NULL);
    gs_engine *b = tu_engine(NULL);
    gs_gl_device *da = gs_gles_device(a), *db = gs_gles_device(b);
    /* b is current now; switch back to a and use it, then b again. */
    gs_error err;
    gs_error_clear(&err);
    cr_assert_eq(gs_gl_device_make_current(da, &err), GLSTARK_OK, "%s", err.msg);
    gs_buf *buf;
    TU_OK(a, gs_buf_create(a, 64, &buf));
    uint32_t v[16], w[16];
    for (int i = 0; i < 16; i++)
        v[i] = (uint32_t)i * 3u;
    TU_OK(a, gs_buf_write(buf, 0, v, sizeof v));
    TU_OK(a, gs_buf_read(buf, 0, w, sizeof w));
    cr_assert_arr_eq(v, w, sizeof v);
    gs_buf_destroy(buf);
    gs_engine_destroy(a);
    cr_assert_eq(gs_gl_device_make_current(db, &err), GLSTARK_OK, "%s", err.msg);
    TU_OK(b, gs_buf_create(b, 64, &buf));
    TU_OK(b, gs_buf_write(buf, 0, v, sizeof v));
    TU_OK(b, gs_buf_read(buf, 0, w, sizeof w));
    cr_assert_arr_eq(v, w, sizeof v);
    gs_buf_destroy(buf);
    gs_engine_destroy(b);
}

/* A public call borrows the calling thread only for its own length: a
 * context the caller had current (here an engine's) is current again after
 * glstark_device_create, a self-check and destroy, and no public device's
 * context is left current on the thread (device.h, "Threads"). */
Test(gles_device, public_calls_put_back_the_callers_context)
{
    clear_path_env();
    gs_engine *own = tu_engine(NULL);
    const EGLContext mine = gs_gles_device(own)->ctx;
    cr_assert_eq(eglGetCurrentContext(), mine);
    glstark_device *dev = NULL;
    char msg[4096];
    cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(eglGetCurrentContext(), mine, "glstark_device_create left its own context current");
    cr_assert_eq(glstark_device_self_check(dev, 3, 64), GLSTARK_OK, "%s", glstark_device_last_error(dev));
    cr_assert_eq(eglGetCurrentContext(), mine, "the self-check did not put the caller's context back");
    glstark_device_release_memory(dev);
    cr_assert_eq(eglGetCurrentContext(), mine, "release_memory did not put the caller's context back");
    /* the caller's engine still works on its context */
    gs_buf *buf;
    uint32_t v[4] = {1, 2, 3, 4}, w[4] = {0};
    TU_OK(own, gs_buf_create(own, sizeof v, &buf));
    TU_OK(own, gs_buf_write(buf, 0, v, sizeof v));
    TU_OK(own, gs_buf_read(buf, 0, w, sizeof w));
    cr_assert_arr_eq(v, w, sizeof v);
    gs_buf_destroy(buf);
    gs_engine_destroy(own);
    /* with nothing current (the engine's destroy released its context), a
     * call leaves nothing current */
    cr_assert_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);
    cr_assert_eq(glstark_device_self_check(dev, 4, 64), GLSTARK_OK, "%s", glstark_device_last_error(dev));
    cr_assert_eq(eglGetCurrentContext(), EGL_NO_CONTEXT, "a self-check kept the device's context current");
    glstark_device_destroy(dev);
}

typedef struct log_capture {
    int count;
    char last[512];
} log_capture;

static void capture_log(void *user, glstark_log_level level, const char *msg)
{
    log_capture *c = user;
    if (level >= GLSTARK_LOG_WARN) {
        c->count++;
        snprintf(c->last, sizeof c->last, "%s", msg);
    }
}

/* A GL error becomes GLSTARK_ERR_GPU with the GL code, and in debug builds
 * the driver's KHR_debug message reaches the library log. */
Test(gles_device, gl_errors_and_debug_log)
{
    clear_path_env();
    log_capture cap = {0, ""};
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.log = capture_log;
    o.log_user = &cap;
    gs_engine *eng = tu_engine_opts(&o);
    gs_gl_device *dev = gs_gles_device(eng);
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, 256, &b));
    /* Offset 3 violates every SSBO offset alignment: GL_INVALID_VALUE. */
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, b->gl_name, 3, 16);
    gs_error err;
    gs_error_clear(&err);
    cr_assert_eq(gs_gl_check(dev, &err, "misaligned bind"), GLSTARK_ERR_GPU);
    cr_assert(strstr(err.msg, "misaligned bind") && strstr(err.msg, "0x0501"), "%s", err.msg);
    cr_assert_eq(gs_gl_check(dev, &err, "after"), GLSTARK_OK, "errors are drained once reported");
#if defined(GLSTARK_DEBUG_BUILD)
    if (dev->has_debug) {
        cr_assert_geq(cap.count, 1, "KHR_debug message expected in the log");
        cr_log_info("debug log: %s", cap.last);
    }
#endif
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
}

/* Once a reset was seen, every later check reports the lost context. */
Test(gles_device, lost_context_is_an_error_not_a_crash)
{
    clear_path_env();
    gs_engine *eng = tu_engine(NULL);
    gs_gl_device *dev = gs_gles_device(eng);
    cr_assert_eq(gs_gl_check(dev, &eng->err, "healthy"), GLSTARK_OK);
    dev->context_lost = 1; /* what gs_gl_check records when the driver reports a reset */
    gs_buf *b = NULL;
    cr_assert_eq(gs_buf_create(eng, 64, &b), GLSTARK_ERR_CONTEXT_LOST);
    cr_assert(strstr(eng->err.msg, "open a new one") != NULL, "%s", eng->err.msg);
    cr_assert_eq(gs_engine_finish(eng), GLSTARK_ERR_CONTEXT_LOST);
    gs_engine_destroy(eng);
}

/* GLSTARK_PROFILE=1: when the device closes, the log gets a table with a row
 * per kernel variant and per buffer operation that ran, calls counted. */
typedef struct profile_capture {
    char text[8192];
    size_t len;
} profile_capture;

/* info lines and warnings: the table, and a fallback's warning */
static void capture_profile(void *user, glstark_log_level level, const char *msg)
{
    profile_capture *c = user;
    if (level < GLSTARK_LOG_INFO || c->len + strlen(msg) + 2 > sizeof c->text)
        return;
    c->len += (size_t)snprintf(c->text + c->len, sizeof c->text - c->len, "%s\n", msg);
}

/* A GLES engine with GLSTARK_PROFILE=mode whose log lands in cap. */
static gs_engine *profiled_engine(const char *mode, profile_capture *cap)
{
    clear_path_env();
    setenv("GLSTARK_PROFILE", mode, 1);
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.log = capture_profile;
    o.log_user = cap;
    return tu_engine_opts(&o);
}

Test(gles_device, profile_table_on_close)
{
    profile_capture cap = {"", 0};
    gs_engine *eng = profiled_engine("1", &cap);
    cr_assert_not_null(gs_gles_device(eng)->prof, "GLSTARK_PROFILE=1 turns the profile on");
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, 4096, &b));
    uint32_t v[1024] = {0};
    TU_OK(eng, gs_buf_write(b, 0, v, sizeof v));
    for (int i = 0; i < 3; i++)
        TU_OK(eng, gs_buf_fill_u32(b, 0, 1024, (uint32_t)i));
    TU_OK(eng, gs_buf_read(b, 0, v, sizeof v));
    cr_assert_eq(v[1023], 2u);
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_PROFILE");
    cr_log_info("%s", cap.text);
    cr_assert(strstr(cap.text, "GLSTARK_PROFILE:") != NULL, "no profile table in the log:\n%s", cap.text);
    /* The kernel's row reads "<ms> ms <pct>% <calls> calls <units> units
     * fill.comp": at least the 3 fills. Its program's build has a row of
     * its own, "... units program build: fill.comp", one call. */
    const char *fill = strstr(cap.text, "units  fill.comp\n");
    cr_assert(fill != NULL, "no fill.comp row:\n%s", cap.text);
    const char *line = fill;
    while (line > cap.text && line[-1] != '\n')
        line--;
    double ms = 0, pct = 0;
    unsigned long long calls = 0;
    cr_assert_eq(sscanf(line, " %lf ms %lf%% %llu calls", &ms, &pct, &calls), 3, "row: %.120s", line);
    cr_assert_geq(calls, 3ull, "fill.comp calls %llu", calls);
    const char *build = strstr(cap.text, "units  program build: fill.comp\n");
    cr_assert(build != NULL, "no row for fill.comp's program build:\n%s", cap.text);
    line = build;
    while (line > cap.text && line[-1] != '\n')
        line--;
    cr_assert_eq(sscanf(line, " %lf ms %lf%% %llu calls", &ms, &pct, &calls), 3, "row: %.120s", line);
    cr_assert_eq(calls, 1ull, "fill.comp built %llu times", calls);
    cr_assert(strstr(cap.text, "buffer read") != NULL, "no buffer read row:\n%s", cap.text);
    cr_assert(strstr(cap.text, "buffer create") != NULL, "no buffer create row:\n%s", cap.text);
    cr_assert(strstr(cap.text, "buffer write") != NULL, "no buffer write row:\n%s", cap.text);
    /* and the longest single dispatch per kernel, one line each */
    const char *lg = strstr(cap.text, "GLSTARK_PROFILE longest ");
    cr_assert(lg != NULL, "no longest-dispatch lines:\n%s", cap.text);
    unsigned long long nd = 0;
    cr_assert_eq(sscanf(lg, "GLSTARK_PROFILE longest %lf ms %llu dispatches", &ms, &nd), 2, "line: %.120s", lg);
    cr_assert(ms >= 0 && nd >= 1, "line: %.120s", lg);
    cr_assert(strstr(cap.text, "ms first  fill.comp\n") != NULL, "no longest line for fill.comp:\n%s", cap.text);
}

/* The default engine (auto): GLES on a hardware GPU, the CPU engine where
 * only a software renderer opens; the device says which and why. An explicit
 * engine says it was asked for, by the options or by GLSTARK_ENGINE. */
Test(gles_device, auto_engine_choice)
{
    clear_path_env();
    unsetenv("GLSTARK_ENGINE");
    char msg[4096];
    glstark_device *dev = NULL;
    cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    int sw = glstark_device_is_software(dev);
    cr_assert_str_eq(glstark_device_engine_reason(dev), "gles: asked for (options)");
    glstark_device_destroy(dev);
    cr_assert_eq(glstark_device_create(NULL, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    const char *why = glstark_device_engine_reason(dev);
    cr_log_info("auto: %s", why);
    if (sw) {
        cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_CPU);
        cr_assert(strstr(why, "auto: only a software renderer"), "%s", why);
    } else {
        cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_GLES);
        cr_assert(strstr(why, "auto: a hardware GPU"), "%s", why);
    }
    glstark_device_destroy(dev);
    setenv("GLSTARK_ENGINE", "cpu", 1);
    cr_assert_eq(glstark_device_create(gles_only(), &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_CPU);
    cr_assert_str_eq(glstark_device_engine_reason(dev), "cpu: asked for (GLSTARK_ENGINE)");
    glstark_device_destroy(dev);
    setenv("GLSTARK_ENGINE", "fast", 1);
    cr_assert_eq(glstark_device_create(NULL, &dev, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(msg, "GLSTARK_ENGINE") && strstr(msg, "auto, gles, cpu"), "%s", msg);
    unsetenv("GLSTARK_ENGINE");
}

/* GLSTARK_PROFILE=gpu: GPU timestamps around each operation and no finish.
 * Where the driver's timers give real numbers, the table has each kernel's
 * GPU time, the GPU's idle time before it and the calling thread's time;
 * where they do not (llvmpipe), a warning says so and the table is the
 * glFinish one. */
Test(gles_device, profile_gpu_timestamps_or_fallback)
{
    profile_capture cap = {"", 0};
    gs_engine *eng = profiled_engine("gpu", &cap);
    gs_gl_device *dev = gs_gles_device(eng);
    cr_assert_not_null(dev->prof, "GLSTARK_PROFILE=gpu turns the profile on");
    const int timers = dev->caps.timer_queries_valid && dev->QueryCounter != NULL;
    cr_assert_eq(gs_gl_profile_finishes(dev), !timers, "glFinish brackets exactly where the timers are unusable");
    gs_buf *b;
    TU_OK(eng, gs_buf_create(eng, (size_t)4 << 20, &b));
    for (int i = 0; i < 5; i++)
        TU_OK(eng, gs_buf_fill_u32(b, 0, (size_t)1 << 20, (uint32_t)i));
    uint32_t v[4];
    TU_OK(eng, gs_buf_read(b, ((size_t)1 << 20) * 4 - sizeof v, v, sizeof v));
    cr_assert_eq(v[3], 4u, "the fills ran in order under the profile");
    gs_buf_destroy(b);
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_PROFILE");
    cr_log_info("%s", cap.text);
    const char *fill = strstr(cap.text, "units  fill.comp\n");
    cr_assert(fill != NULL, "no fill.comp row:\n%s", cap.text);
    const char *line = fill;
    while (line > cap.text && line[-1] != '\n')
        line--;
    double ms = -1, pct = -1, idle = -1, host = -1;
    unsigned long long calls = 0;
    if (timers) {
        cr_assert(strstr(cap.text, "(GPU timestamps, no glFinish") != NULL, "not the timestamp table:\n%s", cap.text);
        cr_assert_eq(sscanf(line, " %lf ms %lf%% %lf ms idle %lf ms host %llu calls", &ms, &pct, &idle, &host, &calls),
                     5, "row: %.160s", line);
        /* 5 fills of 4 MiB take some GPU time; none of the times is negative */
        cr_assert(ms > 0 && idle >= 0 && host >= 0, "row: %.160s", line);
        cr_assert(strstr(cap.text, "GLSTARK_PROFILE longest ") == NULL, "no per-dispatch timing in this mode");
    } else {
        cr_assert(strstr(cap.text, "timer queries give no real numbers") != NULL, "no fallback warning:\n%s",
                  cap.text);
        cr_assert(strstr(cap.text, "(each bracketed by glFinish)") != NULL, "not the glFinish table:\n%s", cap.text);
        cr_assert_eq(sscanf(line, " %lf ms %lf%% %llu calls", &ms, &pct, &calls), 3, "row: %.160s", line);
    }
    cr_assert_geq(calls, 5ull, "fill.comp calls %llu", calls);
}
