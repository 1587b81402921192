/* The proof report shared by the keccakf demo and glstark-prove: the device
 * line, the span tree, the JSON spellings, and the device flags both take
 * (--platform, --drm-node, --require-hw, --limits-floor, --threads).
 * Public API only. */
#ifndef GLSTARK_EXAMPLE_PROVE_REPORT_H
#define GLSTARK_EXAMPLE_PROVE_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glstark/glstark.h"

static inline double ex_span_seconds(const glstark_span *s) { return s->end >= s->start ? s->end - s->start : 0.0; }

/* The span tree with OpenVM's names, a line per span. */
static inline void ex_print_span_tree(const glstark_prove_stats *st)
{
    if (st->num_spans == 0) {
        printf("spans: not recorded (--no-spans: no engine finishes to time them)\n");
        return;
    }
    printf("spans (wall clock, each ended after the engines finished; OpenVM's names):\n");
    for (size_t i = 0; i < st->num_spans; i++) {
        const glstark_span *s = &st->spans[i];
        printf("  %*s%-*s %10.3f ms %5llu syncs%s%s\n", (int)s->depth * 2, "", 36 - (int)s->depth * 2, s->name,
               ex_span_seconds(s) * 1e3, (unsigned long long)s->host_syncs, s->engine[0] ? "  " : "", s->engine);
    }
    if (st->spans_dropped)
        printf("  (%zu more spans not recorded)\n", st->spans_dropped);
}

/* A JSON string (quotes, backslashes and control characters escaped). */
static inline void ex_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The spans as a JSON array, each line indented by `indent` spaces. */
static inline void ex_json_spans(FILE *f, const glstark_prove_stats *st, int indent)
{
    fprintf(f, "[\n");
    for (size_t i = 0; i < st->num_spans; i++) {
        const glstark_span *s = &st->spans[i];
        fprintf(f, "%*s{\"name\": ", indent + 2, "");
        ex_json_str(f, s->name);
        fprintf(f, ", \"parent\": %d, \"depth\": %u, \"start\": %.6f, \"seconds\": %.6f, \"host_syncs\": %llu, \"engine\": ",
                s->parent, s->depth, s->start, ex_span_seconds(s), (unsigned long long)s->host_syncs);
        ex_json_str(f, s->engine);
        fprintf(f, "}%s\n", i + 1 < st->num_spans ? "," : "");
    }
    fprintf(f, "%*s]", indent, "");
}

/* What a device is, for the report: engine, renderer, platform, GL version,
 * whether it is a software renderer, the readback path and the kernel
 * variants chosen for it. */
typedef struct ex_device_info {
    char engine[8], renderer[256], platform[256], gl_version[256];
    int software;
    const char *readback;
    char kernels[256];
    char engine_reason[512]; /* glstark_device_engine_reason */
} ex_device_info;

static inline void ex_device_describe(glstark_device *dev, ex_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->engine, sizeof d->engine, "%s", glstark_device_engine(dev) == GLSTARK_ENGINE_CPU ? "cpu" : "gles");
    snprintf(d->renderer, sizeof d->renderer, "%s", glstark_device_renderer(dev));
    snprintf(d->engine_reason, sizeof d->engine_reason, "%s", glstark_device_engine_reason(dev));
    snprintf(d->platform, sizeof d->platform, "%s", glstark_device_platform_path(dev));
    snprintf(d->gl_version, sizeof d->gl_version, "%s", glstark_device_gl_version(dev));
    d->software = glstark_device_is_software(dev);
    glstark_device_limits lim;
    glstark_device_limits_init(&lim);
    glstark_device_limits_get(dev, &lim);
    d->readback = glstark_device_engine(dev) == GLSTARK_ENGINE_CPU  ? "none"
                  : lim.readback == GLSTARK_READBACK_PERSISTENT ? "persistent"
                  : lim.readback == GLSTARK_READBACK_STAGING    ? "staging"
                                                                : "map";
    snprintf(d->kernels, sizeof d->kernels,
             "field mul %s, interpreter slots %s, groups up to %u, upload %s, copy %s, pool %s, DFT blocks 2^%u, "
             "group sums %s, programs %s",
             lim.field_mul == GLSTARK_FIELD_MUL_SHIFT ? "shift" : "wide",
             lim.slots == GLSTARK_SLOTS_SHARED ? "shared" : "global", lim.interp_groups ? lim.interp_groups : 1,
             lim.upload_ring && lim.upload_packed ? "ring packed"
             : lim.upload_ring                    ? "ring"
             : lim.upload_staged                  ? "staged"
                                                  : "subdata",
             lim.shader_copy ? "shader" : "gl",
             lim.buffer_pool == GLSTARK_BUFFER_POOL_REUSE     ? "reuse"
             : lim.buffer_pool == GLSTARK_BUFFER_POOL_BOUNDED ? "bounded"
                                                              : "off",
             lim.dft_block_log, lim.subgroup_reduce ? "subgroup" : "shared",
             lim.background_compile ? "ahead if cold" : "at first use");
}

/* "device: gles engine on NVIDIA H200 (...)" */
static inline void ex_print_device(const ex_device_info *d)
{
    printf("device: %s engine", d->engine);
    if (!strcmp(d->engine, "gles"))
        printf(" on %s (%s, %s, %s, readback: %s, %s)", d->renderer, d->platform, d->gl_version,
               d->software ? "SOFTWARE renderer: runs on the CPU" : "hardware", d->readback, d->kernels);
    else
        printf(" (no GPU; vector set %s)", glstark_cpu_vector_set());
    printf("\nengine choice: %s\n", d->engine_reason);
}

/* The device as a JSON object. */
static inline void ex_json_device(FILE *f, const ex_device_info *d)
{
    fprintf(f, "{\"engine\": ");
    ex_json_str(f, d->engine);
    fprintf(f, ", \"renderer\": ");
    ex_json_str(f, d->renderer);
    fprintf(f, ", \"platform\": ");
    ex_json_str(f, d->platform);
    fprintf(f, ", \"readback\": ");
    ex_json_str(f, d->readback ? d->readback : "");
    fprintf(f, ", \"gl_version\": ");
    ex_json_str(f, d->gl_version);
    fprintf(f, ", \"software\": %s, \"cpu_vector_set\": ", d->software ? "true" : "false");
    ex_json_str(f, glstark_cpu_vector_set());
    fprintf(f, "}");
}

/* The device flags without a value (--require-hw, --limits-floor): 1 if
 * `a` was one of them. */
static inline int ex_device_switch(const char *a, glstark_device_options *o)
{
    if (!strcmp(a, "--require-hw"))
        return o->require_hw = 1;
    if (!strcmp(a, "--limits-floor"))
        return o->limits_floor = 1;
    return 0;
}

/* The device flags with a value (--engine, --platform, --drm-node,
 * --threads): 1 if `a` was one and v was good, -1 if v was bad (said on
 * stderr), 0 if `a` is none of them. */
static inline int ex_device_option(const char *a, const char *v, glstark_device_options *o)
{
    if (!strcmp(a, "--engine")) {
        if (!strcmp(v, "cpu"))
            o->engine = GLSTARK_ENGINE_CPU;
        else if (!strcmp(v, "gles"))
            o->engine = GLSTARK_ENGINE_GLES;
        else if (!strcmp(v, "auto"))
            o->engine = GLSTARK_ENGINE_AUTO;
        else {
            fprintf(stderr, "error: --engine must be auto, gles or cpu, not '%s'\n", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--drm-node")) {
        o->drm_node = v;
        return 1;
    }
    if (!strcmp(a, "--threads")) {
        char *end = NULL;
        unsigned long t = strtoul(v, &end, 10);
        if (!*v || *end || t > 1024) {
            fprintf(stderr, "error: --threads needs a number of threads (0 = one per core), got '%s'\n", v);
            return -1;
        }
        o->cpu_threads = (unsigned)t;
        return 1;
    }
    if (!strcmp(a, "--platform")) {
        static const struct {
            const char *n;
            glstark_platform p;
        } pl[] = {{"auto", GLSTARK_PLATFORM_AUTO},
                  {"gbm", GLSTARK_PLATFORM_GBM},
                  {"device", GLSTARK_PLATFORM_DEVICE},
                  {"surfaceless", GLSTARK_PLATFORM_SURFACELESS}};
        for (size_t k = 0; k < sizeof pl / sizeof pl[0]; k++)
            if (!strcmp(pl[k].n, v)) {
                o->platform = pl[k].p;
                return 1;
            }
        fprintf(stderr, "error: --platform must be auto, gbm, device or surfaceless, not '%s'\n", v);
        return -1;
    }
    return 0;
}

#endif
