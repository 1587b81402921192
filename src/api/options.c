/* The options table and its resolver (see options.h). Built in every
 * configuration (with or without GLES), so a bad value is refused the same
 * way everywhere. */
#include "api/options.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Choices are stored as int into enum fields: the enums must be int-sized. */
_Static_assert(sizeof(glstark_engine_kind) == sizeof(int) && sizeof(glstark_platform) == sizeof(int) &&
                   sizeof(glstark_readback) == sizeof(int) && sizeof(glstark_slot_memory) == sizeof(int) &&
                   sizeof(glstark_subgroups) == sizeof(int) && sizeof(glstark_field_mul) == sizeof(int) &&
                   sizeof(glstark_precompile) == sizeof(int),
               "option enums must be int-sized");

#define C(w, v) {w, (int)(v)}
static const gs_option_choice engines[] = {C("auto", GLSTARK_ENGINE_AUTO), C("gles", GLSTARK_ENGINE_GLES),
                                           C("cpu", GLSTARK_ENGINE_CPU), {NULL, 0}};
static const gs_option_choice platforms[] = {C("gbm", GLSTARK_PLATFORM_GBM), C("device", GLSTARK_PLATFORM_DEVICE),
                                             C("surfaceless", GLSTARK_PLATFORM_SURFACELESS),
                                             C("auto", GLSTARK_PLATFORM_AUTO), {NULL, 0}};
static const gs_option_choice flags[] = {C("1", 1), C("0", 0), C("on", 1), C("off", 0), {NULL, 0}};
static const gs_option_choice profiles[] = {C("1", GS_PROFILE_FINISH), C("on", GS_PROFILE_FINISH),
                                            C("gpu", GS_PROFILE_GPU), C("0", GS_PROFILE_OFF), C("off", GS_PROFILE_OFF),
                                            {NULL, 0}};
static const gs_option_choice limits[] = {C("es31-min", 1), C("device", 0), {NULL, 0}};
static const gs_option_choice readbacks[] = {C("auto", GLSTARK_READBACK_AUTO), C("persistent", GLSTARK_READBACK_PERSISTENT),
                                             C("staging", GLSTARK_READBACK_STAGING), C("map", GLSTARK_READBACK_MAP),
                                             {NULL, 0}};
static const gs_option_choice uploads[] = {C("auto", GS_UPLOAD_CHOICE_AUTO), C("ring", GS_UPLOAD_CHOICE_RING),
                                           C("subdata", GS_UPLOAD_CHOICE_SUBDATA), C("staged", GS_UPLOAD_CHOICE_STAGED),
                                           C("packed", GS_UPLOAD_CHOICE_PACKED),
                                           {NULL, 0}};
static const gs_option_choice copies[] = {C("auto", GS_COPY_AUTO), C("shader", GS_COPY_SHADER), C("gl", GS_COPY_GL),
                                          {NULL, 0}};
static const gs_option_choice field_muls[] = {C("auto", GLSTARK_FIELD_MUL_AUTO), C("wide", GLSTARK_FIELD_MUL_WIDE),
                                              C("shift", GLSTARK_FIELD_MUL_SHIFT), {NULL, 0}};
static const gs_option_choice subgroups[] = {C("auto", GLSTARK_SUBGROUPS_AUTO), C("off", GLSTARK_SUBGROUPS_OFF),
                                             C("on", GLSTARK_SUBGROUPS_ON), {NULL, 0}};
static const gs_option_choice slots[] = {C("auto", GLSTARK_SLOTS_AUTO), C("global", GLSTARK_SLOTS_GLOBAL),
                                         C("shared", GLSTARK_SLOTS_SHARED), {NULL, 0}};
static const gs_option_choice pools[] = {C("auto", GS_POOL_AUTO), C("1", GS_POOL_AUTO),
                                         C("reuse", GLSTARK_BUFFER_POOL_REUSE), C("bounded", GLSTARK_BUFFER_POOL_BOUNDED),
                                         C("0", GLSTARK_BUFFER_POOL_OFF), C("off", GLSTARK_BUFFER_POOL_OFF), {NULL, 0}};
static const gs_option_choice precompiles[] = {C("auto", GLSTARK_PRECOMPILE_AUTO), C("off", GLSTARK_PRECOMPILE_OFF),
                                               C("on", GLSTARK_PRECOMPILE_ON), {NULL, 0}};
#undef C

#define AT(f) offsetof(gs_device_config, f)
/* name, field, values, default, help, kind, offset, choices, lo, hi */
static const gs_option_row table[] = {
    {"GLSTARK_ENGINE", "engine", "auto, gles, cpu",
     "auto: GLES on a hardware GPU, the CPU engine where only a software renderer opens or the build has no GLES",
     "which engine proves", GS_OPT_CHOICE, AT(engine), engines, 0, 0},
    {"GLSTARK_PLATFORM", "platform", "gbm, device, surfaceless, auto", "auto", "try only this headless path",
     GS_OPT_CHOICE, AT(platform), platforms, 0, 0},
    {"GLSTARK_DRM_NODE", "drm_node", "/dev/dri/renderDN", "every node", "use only this render node", GS_OPT_PATH,
     AT(drm_node), NULL, 0, 0},
    {"GLSTARK_DEVICE_INDEX", "device_index", "0..255", "0", "open the k-th hardware GPU of the host", GS_OPT_UINT,
     AT(device_index), NULL, 1, 255},
    {"GLSTARK_REQUIRE_HW", "require_hw", "1, 0", "0", "refuse software renderers", GS_OPT_CHOICE, AT(require_hw), flags,
     0, 0},
    {"GLSTARK_LIMITS", "limits_floor", "es31-min, device", "device", "es31-min: use only the ES 3.1 minimum limits",
     GS_OPT_CHOICE, AT(limits_floor), limits, 0, 0},
    {"GLSTARK_READBACK", "readback", "auto, persistent, staging, map", "auto", "how results reach the host",
     GS_OPT_CHOICE, AT(readback), readbacks, 0, 0},
    {"GLSTARK_UPLOAD", NULL, "auto, packed, ring, subdata, staged", "auto", "how traces reach the GPU", GS_OPT_CHOICE, AT(upload),
     uploads, 0, 0},
    {"GLSTARK_COPY", NULL, "auto, shader, gl", "auto", "large buffer copies by a compute shader or glCopyBufferSubData",
     GS_OPT_CHOICE, AT(copy), copies, 0, 0},
    {"GLSTARK_FIELD_MUL", "field_mul", "auto, wide, shift", "auto", "the field multiply in every kernel",
     GS_OPT_CHOICE, AT(field_mul), field_muls, 0, 0},
    {"GLSTARK_SUBGROUPS", "subgroups", "auto, off, on", "auto", "work-group sums through subgroup shuffles",
     GS_OPT_CHOICE, AT(subgroups), subgroups, 0, 0},
    {"GLSTARK_SLOTS", "slots", "auto, global, shared", "auto", "where the GLES interpreter keeps its intermediates",
     GS_OPT_CHOICE, AT(slots), slots, 0, 0},
    {"GLSTARK_GROUPS", "interp_groups", "0 (automatic) or 1..256", "0", "programs per constraint-DAG evaluation",
     GS_OPT_UINT, AT(interp_groups), NULL, 1, 256},
    {"GLSTARK_DFT_BLOCK", NULL, "0 (automatic) or a log2 block size 4..11", "0",
     "test knob: a smaller block for the DFT's shared-memory pass", GS_OPT_UINT, AT(dft_block_log), NULL, 4, 11},
    {"GLSTARK_POOL", NULL, "auto, reuse, bounded, 0 (off)", "auto", "what happens to the GPU buffers a proof frees",
     GS_OPT_CHOICE, AT(pool), pools, 0, 0},
    {"GLSTARK_PRECOMPILE", "precompile", "auto, off, on", "auto", "when the GLES engine compiles its programs",
     GS_OPT_CHOICE, AT(precompile), precompiles, 0, 0},
    {"GLSTARK_PROFILE", NULL, "1, gpu, 0", "0", "print GPU time per kernel at device close", GS_OPT_CHOICE,
     AT(profile), profiles, 0, 0},
    {"GLSTARK_DISPATCH_MS", NULL, "auto, 0 (off), 1..60000", "auto", "a time budget per GLES dispatch, in ms",
     GS_OPT_MS, AT(dispatch_ms), NULL, 1, 60000},
    {"GLSTARK_POOL_POISON", NULL, "1, 0", "0", "fill every buffer the engine hands out with 0xDEADBEEF",
     GS_OPT_CHOICE, AT(pool_poison), flags, 0, 0},
    {"GLSTARK_CPU_SIMD", NULL, "auto, avx512, avx2, neon, none", "auto", "the widest vector set the CPU engine uses",
     GS_OPT_RAW, GS_OPT_NO_FIELD, NULL, 0, 0},
};
#undef AT

const gs_option_row *gs_options_table(size_t *count)
{
    *count = sizeof table / sizeof table[0];
    return table;
}

const char *gs_option_getenv(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name))
            continue;
        const char *v = getenv(name);
        return v && *v ? v : NULL;
    }
    return NULL;
}

void gs_device_config_defaults(gs_device_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->engine = GLSTARK_ENGINE_AUTO;
    cfg->platform = GLSTARK_PLATFORM_AUTO;
    cfg->pool = GS_POOL_AUTO;
    cfg->dispatch_ms = -1;
}

/* One row's variable, if set, into the config. */
static glstark_status apply_row(const gs_option_row *r, gs_device_config *cfg, gs_error *err)
{
    if (r->kind == GS_OPT_RAW)
        return GLSTARK_OK;
    const char *v = gs_option_getenv(r->name);
    if (!v)
        return GLSTARK_OK;
    char *at = (char *)cfg + r->offset;
    if (r->kind == GS_OPT_PATH) {
        memcpy(at, &v, sizeof v);
        return GLSTARK_OK;
    }
    if (r->kind == GS_OPT_MS) {
        char *end = NULL;
        long n = strcasecmp(v, "auto") == 0 ? -1 : strcasecmp(v, "off") == 0 ? 0 : strtol(v, &end, 10);
        if ((end && (*end || end == v)) || n < -1 || n > (long)r->hi || (end && n < 0))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "%s='%s' is not %s; fix or unset it", r->name, v,
                                r->values);
        int ms = (int)n;
        memcpy(at, &ms, sizeof ms);
        return GLSTARK_OK;
    }
    if (r->kind == GS_OPT_UINT) {
        char *end = NULL;
        unsigned long n = strtoul(v, &end, 10);
        if (!end || *end || *v == '-' || (n != 0 && (n < r->lo || n > r->hi)))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "%s='%s' is not %s; fix or unset it", r->name, v,
                                r->values);
        unsigned u = (unsigned)n;
        memcpy(at, &u, sizeof u);
        return GLSTARK_OK;
    }
    for (const gs_option_choice *c = r->choices; c->word; c++) {
        if (!strcasecmp(v, c->word)) {
            memcpy(at, &c->value, sizeof c->value);
            if (r->offset == offsetof(gs_device_config, engine))
                cfg->engine_from_env = r->name;
            return GLSTARK_OK;
        }
    }
    return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "%s='%s' is not one of %s; fix or unset it", r->name, v,
                        r->values);
}

/* The public options' fields into the config (the environment comes after). */
static void from_options(const glstark_device_options *o, gs_device_config *cfg)
{
    cfg->engine = o->engine;
    cfg->platform = o->platform;
    cfg->drm_node = o->drm_node;
    cfg->require_hw = o->require_hw;
    cfg->limits_floor = o->limits_floor;
    cfg->log = o->log;
    cfg->log_user = o->log_user;
    cfg->cpu_threads = o->cpu_threads;
    cfg->readback = o->readback;
    cfg->slots = o->slots;
    cfg->interp_groups = o->interp_groups;
    cfg->subgroups = o->subgroups;
    cfg->field_mul = o->field_mul;
    cfg->precompile = o->precompile;
    cfg->device_index = o->device_index;
}

/* llvmpipe's thread count as Mesa chooses it (gs_device_config.software_threads). */
static unsigned software_threads(void)
{
    const char *v = getenv("LP_NUM_THREADS");
    long n = -1;
    if (v && *v) {
        char *end = NULL;
        n = strtol(v, &end, 10);
        if (*end || n < 0)
            n = -1;
    }
    if (n < 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    /* 0 threads: llvmpipe renders on the calling thread */
    return n < 1 ? 1u : n > 16 ? 16u : (unsigned)n;
}

glstark_status gs_device_config_resolve(const glstark_device_options *in, gs_device_config *out, gs_error *err)
{
    glstark_status st;
    glstark_device_options o;
    glstark_device_options_init(&o);
    if (in) {
        if (in->size < offsetof(glstark_device_options, engine) + sizeof in->engine || in->size > 4096)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "device options: size field is %zu; set it with glstark_device_options_init()",
                                in->size);
        /* Copy only the fields the caller's struct has. */
        size_t n = in->size < sizeof o ? in->size : sizeof o;
        memcpy(&o, in, n);
        o.size = sizeof o;
    }
    gs_device_config c;
    gs_device_config_defaults(&c);
    from_options(&o, &c);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if ((st = apply_row(&table[i], &c, err)))
            return st;
    if ((unsigned)c.engine > GLSTARK_ENGINE_AUTO)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "device options: engine %d is not GLSTARK_ENGINE_AUTO, GLSTARK_ENGINE_GLES or "
                            "GLSTARK_ENGINE_CPU",
                            (int)c.engine);
    if (c.device_index > 255)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: device_index %u is above 255",
                            c.device_index);
    if (c.interp_groups > 256)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: interp_groups %u is above 256",
                            c.interp_groups);
    if ((unsigned)c.slots > GLSTARK_SLOTS_SHARED)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: slots %d is not a valid choice",
                            (int)c.slots);
    if ((unsigned)c.field_mul > GLSTARK_FIELD_MUL_SHIFT)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: field_mul %d is not a valid choice",
                            (int)c.field_mul);
    if ((unsigned)c.precompile > GLSTARK_PRECOMPILE_ON)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: precompile %d is not a valid choice",
                            (int)c.precompile);
    if ((unsigned)c.subgroups > GLSTARK_SUBGROUPS_ON)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: subgroups %d is not a valid choice",
                            (int)c.subgroups);
    if ((unsigned)c.readback > GLSTARK_READBACK_MAP)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: readback %d is not a valid choice",
                            (int)c.readback);
    if ((unsigned)c.platform > GLSTARK_PLATFORM_SURFACELESS)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: platform %d is not a valid choice",
                            (int)c.platform);
    c.software_threads = software_threads();
    *out = c;
    return GLSTARK_OK;
}

const char *glstark_platform_name(glstark_platform p)
{
    switch (p) {
    case GLSTARK_PLATFORM_AUTO: return "auto";
    case GLSTARK_PLATFORM_GBM: return "gbm";
    case GLSTARK_PLATFORM_DEVICE: return "device";
    case GLSTARK_PLATFORM_SURFACELESS: return "surfaceless";
    case GLSTARK_PLATFORM_NONE: return "none";
    }
    return "unknown";
}
