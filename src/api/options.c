/* The device options after the environment: the caller's struct (or the
 * defaults), then the GLSTARK_* variables that override it, checked. Built
 * in every configuration (with or without GLES), so a bad value is refused
 * the same way everywhere. */
#include "api/options.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* If `var` is set, *pick = the index of its value in names (any case);
 * a value not in the list is an error that lists them. */
static glstark_status env_choice(const char *var, const char *const *names, int count, int *pick, gs_error *err)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return GLSTARK_OK;
    char list[160] = "";
    for (int i = 0; i < count; i++) {
        if (!strcasecmp(v, names[i])) {
            *pick = i;
            return GLSTARK_OK;
        }
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
    }
    return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "%s='%s' is not one of %s; fix or unset it", var, v, list);
}

glstark_status gs_device_options_resolve(const glstark_device_options *in, glstark_device_options *out, gs_error *err)
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
    const char *v = getenv("GLSTARK_PLATFORM");
    if (v && *v) {
        if (!strcasecmp(v, "gbm")) o.platform = GLSTARK_PLATFORM_GBM;
        else if (!strcasecmp(v, "device")) o.platform = GLSTARK_PLATFORM_DEVICE;
        else if (!strcasecmp(v, "surfaceless")) o.platform = GLSTARK_PLATFORM_SURFACELESS;
        else if (!strcasecmp(v, "auto")) o.platform = GLSTARK_PLATFORM_AUTO;
        else
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "GLSTARK_PLATFORM='%s' is not one of gbm, device, surfaceless, auto; fix or unset it", v);
    }
    v = getenv("GLSTARK_DRM_NODE");
    if (v && *v)
        o.drm_node = v;
    v = getenv("GLSTARK_REQUIRE_HW");
    if (v && *v)
        o.require_hw = strcmp(v, "0") != 0;
    v = getenv("GLSTARK_LIMITS");
    if (v && *v) {
        if (!strcasecmp(v, "es31-min")) o.limits_floor = 1;
        else if (!strcasecmp(v, "device")) o.limits_floor = 0;
        else
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "GLSTARK_LIMITS='%s' is not one of es31-min, device; fix or unset it", v);
    }
    /* enum-valued variables: the value's index in the list is the enum value */
    static const char *const readbacks[] = {"auto", "persistent", "staging", "map"};
    static const char *const slots[] = {"auto", "global", "shared"};
    static const char *const subgroups[] = {"auto", "off", "on"};
    static const char *const field_muls[] = {"auto", "wide", "shift"};
    static const char *const precompiles[] = {"auto", "off", "on"};
    int pick = (int)o.readback;
    if ((st = env_choice("GLSTARK_READBACK", readbacks, 4, &pick, err)))
        return st;
    o.readback = (glstark_readback)pick;
    pick = (int)o.slots;
    if ((st = env_choice("GLSTARK_SLOTS", slots, 3, &pick, err)))
        return st;
    o.slots = (glstark_slot_memory)pick;
    pick = (int)o.subgroups;
    if ((st = env_choice("GLSTARK_SUBGROUPS", subgroups, 3, &pick, err)))
        return st;
    o.subgroups = (glstark_subgroups)pick;
    pick = (int)o.field_mul;
    if ((st = env_choice("GLSTARK_FIELD_MUL", field_muls, 3, &pick, err)))
        return st;
    o.field_mul = (glstark_field_mul)pick;
    pick = (int)o.precompile;
    if ((st = env_choice("GLSTARK_PRECOMPILE", precompiles, 3, &pick, err)))
        return st;
    o.precompile = (glstark_precompile)pick;
    v = getenv("GLSTARK_GROUPS");
    if (v && *v) {
        char *end = NULL;
        unsigned long g = strtoul(v, &end, 10);
        if (!end || *end || g > 128)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "GLSTARK_GROUPS='%s' is not 0 (automatic) or a number of groups 1..128; fix or unset it",
                                v);
        o.interp_groups = (unsigned)g;
    }
    v = getenv("GLSTARK_DEVICE_INDEX");
    if (v && *v) {
        char *end = NULL;
        unsigned long k = strtoul(v, &end, 10);
        if (!end || *end || k > 255)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "GLSTARK_DEVICE_INDEX='%s' is not a device index 0..255 (glstark-info --list prints "
                                "them); fix or unset it",
                                v);
        o.device_index = (unsigned)k;
    }
    if (o.device_index > 255)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: device_index %u is above 255",
                            o.device_index);
    v = getenv("GLSTARK_DFT_BLOCK");
    if (v && *v) {
        char *end = NULL;
        unsigned long b = strtoul(v, &end, 10);
        if (!end || *end || (b != 0 && (b < 4 || b > 11)))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "GLSTARK_DFT_BLOCK='%s' is not 0 (automatic) or a log2 block size 4..11; fix or unset it",
                                v);
        o.dft_block_log = (unsigned)b;
    }
    if (o.dft_block_log != 0 && (o.dft_block_log < 4 || o.dft_block_log > 11))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "device options: dft_block_log %u is not 0 (automatic) or 4..11", o.dft_block_log);
    if (o.interp_groups > 128)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: interp_groups %u is above 128",
                            o.interp_groups);
    if ((unsigned)o.slots > GLSTARK_SLOTS_SHARED)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: slots %d is not a valid choice",
                            (int)o.slots);
    if ((unsigned)o.field_mul > GLSTARK_FIELD_MUL_SHIFT)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: field_mul %d is not a valid choice",
                            (int)o.field_mul);
    if ((unsigned)o.precompile > GLSTARK_PRECOMPILE_ON)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: precompile %d is not a valid choice",
                            (int)o.precompile);
    if ((unsigned)o.subgroups > GLSTARK_SUBGROUPS_ON)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: subgroups %d is not a valid choice",
                            (int)o.subgroups);
    if ((unsigned)o.readback > GLSTARK_READBACK_MAP)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: readback %d is not a valid choice",
                            (int)o.readback);
    if (o.platform > GLSTARK_PLATFORM_SURFACELESS)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "device options: platform %d is not a valid choice",
                            (int)o.platform);
    *out = o;
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
