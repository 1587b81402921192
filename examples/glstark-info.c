/* glstark-info: which device glstark opens, what it can do, and whether
 * its field kernels agree with the C reference. Exit status 0 only when
 * a device opened and the self-check passed.
 *
 *   glstark-info [--cpu] [--require-hw] [--floor] [--platform gbm|device|surfaceless]
 *                [--node /dev/dri/renderDx] [--device K] [--seed N] [--n N]
 *   glstark-info --list
 *
 * --list prints the hardware GPUs glstark can open, one line each with the
 * index that glstark_device_options.device_index (glstark-prove --devices,
 * GLSTARK_DEVICE_INDEX) takes, and exits 0 when it found at least one.
 *
 * The GLSTARK_* environment variables apply as well (docs/tuning.md). */
#include <glstark/glstark.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void log_cb(void *user, glstark_log_level level, const char *msg)
{
    (void)user;
    if (level >= GLSTARK_LOG_WARN)
        fprintf(stderr, "glstark: %s\n", msg);
}

static int usage(void)
{
    fprintf(stderr, "usage: glstark-info [--engine auto|gles|cpu (auto)] [--cpu] [--require-hw] [--floor] [--platform gbm|device|surfaceless] "
                    "[--node /dev/dri/renderDx] [--device K] [--seed N] [--n N]\n"
                    "       glstark-info --list\n");
    return 2;
}

/* Opens device_index 0, 1, ... (hardware only) until one fails: the
 * indices glstark-prove --devices takes. */
static int list_devices(const glstark_device_options *base)
{
    enum { MAX_LISTED = 64 };
    unsigned found = 0;
    char msg[4096];
    for (unsigned k = 0; k < MAX_LISTED; k++) {
        glstark_device_options o = *base;
        o.engine = GLSTARK_ENGINE_GLES;
        o.require_hw = 1;
        o.device_index = k;
        glstark_device *dev = NULL;
        if (glstark_device_create(&o, &dev, msg, sizeof msg) != GLSTARK_OK)
            break;
        printf("%u: %s (%s, %s)\n", k, glstark_device_renderer(dev), glstark_device_platform_path(dev),
               glstark_device_gl_version(dev));
        glstark_device_destroy(dev);
        found++;
    }
    if (!found) {
        printf("no hardware GPU opened; index 0 (the default) then means the first device that opens, a software "
               "renderer included\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.log = log_cb;
    uint64_t seed = (uint64_t)time(NULL);
    size_t n = 4096;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--cpu")) o.engine = GLSTARK_ENGINE_CPU;
        else if (!strcmp(a, "--engine") && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(v, "auto")) o.engine = GLSTARK_ENGINE_AUTO;
            else if (!strcmp(v, "gles")) o.engine = GLSTARK_ENGINE_GLES;
            else if (!strcmp(v, "cpu")) o.engine = GLSTARK_ENGINE_CPU;
            else return usage();
        }
        else if (!strcmp(a, "--list")) list = 1;
        else if (!strcmp(a, "--device") && i + 1 < argc) o.device_index = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--require-hw")) o.require_hw = 1;
        else if (!strcmp(a, "--floor")) o.limits_floor = 1;
        else if (!strcmp(a, "--platform") && i + 1 < argc) {
            const char *p = argv[++i];
            if (!strcmp(p, "gbm")) o.platform = GLSTARK_PLATFORM_GBM;
            else if (!strcmp(p, "device")) o.platform = GLSTARK_PLATFORM_DEVICE;
            else if (!strcmp(p, "surfaceless")) o.platform = GLSTARK_PLATFORM_SURFACELESS;
            else return usage();
        } else if (!strcmp(a, "--node") && i + 1 < argc) o.drm_node = argv[++i];
        else if (!strcmp(a, "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--n") && i + 1 < argc) n = (size_t)strtoull(argv[++i], NULL, 0);
        else return usage();
    }

    if (list)
        return list_devices(&o);
    char msg[4096];
    glstark_device *dev = NULL;
    glstark_status st = glstark_device_create(&o, &dev, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "glstark-info: %s: %s\n", glstark_status_name(st), msg);
        return 1;
    }
    glstark_device_limits L;
    glstark_device_limits_init(&L);
    glstark_device_limits_get(dev, &L);
    printf("glstark:           %s\n", glstark_version());
    printf("engine:            %s\n", glstark_device_engine(dev) == GLSTARK_ENGINE_CPU ? "cpu" : "gles");
    printf("engine choice:     %s\n", glstark_device_engine_reason(dev));
    printf("CPU vector set:    %s (the CPU engine and the GLES engine's CPU fallback; GLSTARK_CPU_SIMD caps it)\n",
           glstark_cpu_vector_set());
    printf("platform:          %s\n", glstark_platform_name(glstark_device_platform(dev)));
    printf("platform path:     %s\n", glstark_device_platform_path(dev));
    printf("EGL vendor:        %s\n", glstark_device_egl_vendor(dev));
    printf("EGL version:       %s\n", glstark_device_egl_version(dev));
    printf("GL vendor:         %s\n", glstark_device_gl_vendor(dev));
    printf("renderer:          %s\n", glstark_device_renderer(dev));
    printf("GL version:        %s\n", glstark_device_gl_version(dev));
    printf("GLSL version:      %s\n", glstark_device_glsl_version(dev));
    printf("software renderer: %s\n", glstark_device_is_software(dev) ? "yes" : "no");
    printf("extensions:        %s\n", glstark_device_extensions(dev));
    if (glstark_device_engine(dev) == GLSTARK_ENGINE_GLES) {
        printf("limits%s:\n", L.floor_mode ? " (floor mode: ES 3.1 minimums)" : "");
        printf("  max invocations          %u\n", L.max_invocations);
        printf("  max group size           %u x %u x %u\n", L.max_group_size[0], L.max_group_size[1],
               L.max_group_size[2]);
        printf("  max group count          %u x %u x %u\n", L.max_group_count[0], L.max_group_count[1],
               L.max_group_count[2]);
        printf("  max shared memory        %u bytes\n", L.max_shared_bytes);
        printf("  max SSBO binding         %" PRIu64 " bytes\n", L.max_binding_bytes);
        printf("  compute storage blocks   %u\n", L.max_storage_blocks);
        printf("  storage bindings         %u\n", L.max_storage_bindings);
        printf("  SSBO offset alignment    %u\n", L.binding_offset_align);
        printf("  subgroup size            %u\n", L.subgroup_size);
        printf("  field multiply           %s\n", L.field_mul == GLSTARK_FIELD_MUL_SHIFT
                                                       ? "shift (one wide multiply, the reduction by shifts and adds)"
                                                       : "wide (three multiplies per product)");
        printf("  work-group sums          %s\n", L.subgroup_reduce ? "subgroup shuffles (GLSTARK_SUBGROUPS=off: shared-memory tree)"
                                                                     : "shared-memory tree");
        printf("  program compiles         %s\n",
               L.background_compile ? "started when a proof begins, on the driver's threads, if its cache is cold "
                                      "(GLSTARK_PRECOMPILE)"
                                    : "at first use (GLSTARK_PRECOMPILE)");
        printf("  kernel local size        %u\n", L.local_size);
        printf("  groups side by side      %u%s\n", L.parallel_groups,
               L.parallel_groups > 1 ? " (the dispatch budget plans in rounds of that many work groups)"
                                     : " (as the dispatch budget assumes where a GPU does not report its cores)");
        printf("  GPU timer queries valid  %s\n", L.timer_queries_valid ? "yes" : "no");
        printf("  persistent maps          %s\n", L.persistent_map ? "yes" : "no");
        printf("  interpreter slots        %s\n", L.slots == GLSTARK_SLOTS_SHARED ? "shared memory where they fit (GLSTARK_SLOTS=shared)"
                                                                                : "work buffer (global memory)");
        printf("  desktop class            %s\n", L.desktop_class ? "yes" : "no");
        printf("  main codeword (AUTO)     committed a column group at a time, encoded again for the queries "
               "(the CPU engine keeps it)\n");
        printf("  interpreter groups       up to %u%s\n", L.interp_groups,
               L.interp_groups > 1 ? " (where a round has few items)" : "");
        printf("  readback path            %s\n", L.readback == GLSTARK_READBACK_PERSISTENT ? "persistent (fence wait)"
                                                   : L.readback == GLSTARK_READBACK_STAGING ? "staging (map per read)"
                                                                                           : "map the source");
        printf("  large buffer copies      %s\n", L.shader_copy ? "compute shader" : "glCopyBufferSubData");
        printf("  upload path              %s\n",
               L.upload_ring && L.upload_packed ? "ring, trace values packed to 1, 8 or 16 bits where they fit"
               : L.upload_ring                  ? "ring (persistently mapped slots, host threads)"
               : L.upload_staged                ? "staged (a staging buffer and a GPU copy per piece)"
                                                : "glBufferSubData");
        printf("  buffer pool              %s\n",
               L.buffer_pool == GLSTARK_BUFFER_POOL_REUSE
                   ? "reuse (a request that would grow the footprint takes a larger kept buffer; GLSTARK_POOL)"
               : L.buffer_pool == GLSTARK_BUFFER_POOL_BOUNDED
                   ? "bounded (kept buffers never above the largest footprint so far; GLSTARK_POOL)"
                   : "off (GLSTARK_POOL)");
        printf("  DFT                      tiled bit reversal, shared-memory pass of 2^%u words, radix-16 register "
               "passes\n",
               L.dft_block_log);
        printf("  reset detection          %s\n", L.robustness ? "yes" : "no");
    }
    printf("self-check (seed %" PRIu64 ", %zu elements per op): ", seed, n);
    fflush(stdout);
    st = glstark_device_self_check(dev, seed, n);
    if (st) {
        printf("FAILED\n");
        fprintf(stderr, "glstark-info: %s: %s\n", glstark_status_name(st), glstark_device_last_error(dev));
        glstark_device_destroy(dev);
        return 1;
    }
    printf(glstark_device_engine(dev) == GLSTARK_ENGINE_CPU ? "skipped (CPU engine is the reference)\n" : "ok\n");
    glstark_device_destroy(dev);
    return 0;
}
