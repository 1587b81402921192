/* The headless GLES runtime: an EGL display + ES 3.1/3.2 context made
 * current on the calling thread, the device's limits read once, a program
 * cache, dispatch and binding helpers, and timers.
 *
 * Everything here assumes the device's context is current on the calling
 * thread (gs_gl_device_open makes it current; gs_gl_device_make_current
 * moves it to another thread; gs_gl_device_take / _give borrow a thread
 * for one call of the public API). */
#ifndef GS_GLES_GL_DEVICE_H
#define GS_GLES_GL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>
#include <GLES2/gl2ext.h>

#include "engine/device_config.h"
#include "glstark/device.h"
#include "gles/dispatch_plan.h"
#include "util/error.h"

#define GS_GL_INFO_MAX 256

/* Limits and choices, after floor mode, the config and the test knobs. The
 * library's own struct: the public glstark_device_limits is filled from it
 * (api/device.c), so either can change without the other. */
typedef struct gs_gl_caps {
    uint32_t max_invocations;        /* MAX_COMPUTE_WORK_GROUP_INVOCATIONS */
    uint32_t max_group_size[3];      /* MAX_COMPUTE_WORK_GROUP_SIZE */
    uint32_t max_group_count[3];     /* MAX_COMPUTE_WORK_GROUP_COUNT */
    uint32_t max_shared_bytes;       /* MAX_COMPUTE_SHARED_MEMORY_SIZE */
    uint64_t max_binding_bytes;      /* MAX_SHADER_STORAGE_BLOCK_SIZE */
    uint32_t max_storage_blocks;     /* MAX_COMPUTE_SHADER_STORAGE_BLOCKS */
    uint32_t max_storage_bindings;   /* MAX_SHADER_STORAGE_BUFFER_BINDINGS */
    uint32_t binding_offset_align;   /* SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT */
    uint32_t subgroup_size;          /* 0 without GL_KHR_shader_subgroup */
    uint32_t local_size;             /* the 1-D work-group size kernels use */
    int timer_queries_valid;         /* GPU timer queries give real numbers */
    int persistent_map;              /* GL_EXT_buffer_storage */
    int robustness;                  /* context resets are detected */
    int floor_mode;                  /* limits were clamped to the ES 3.1 minimums */
    glstark_readback readback;       /* the readback path in use (never AUTO on a GLES device) */
    glstark_slot_memory slots;       /* GLOBAL or SHARED (SHARED: where a DAG's slots fit) */
    int desktop_class;               /* hardware with bindings of 1 GiB or more: bigger scratch and budgets */
    int fast_class;                  /* the GPU itself is desktop-class, whatever limits are simulated (floor
                                        mode, test knobs): the dispatch time budget follows the GPU's speed */
    unsigned interp_groups;          /* most groups the interpreter splits an evaluation into (1: never) */
    uint32_t parallel_groups;        /* work groups the device is known to run side by side: llvmpipe's threads,
                                        Mali's cores where its driver says; else 1 (gs_parallel_groups), until
                                        the GLES engine measures it (gs_gl_measure_parallel) */
    int parallel_reported;           /* parallel_groups came from the renderer or driver, not the default */
    int parallel_measured;           /* parallel_groups was measured (gs_gl_measure_parallel) */
    uint32_t dft_block_log;          /* DFT layers per shared-memory pass: blocks of 2^k words (from max_shared_bytes) */
    int upload_ring;                 /* host-to-GPU writes through the persistently mapped ring (GLSTARK_UPLOAD) */
    int upload_staged;               /* host-to-GPU writes through a staging buffer and a GPU copy (GLSTARK_UPLOAD) */
    int upload_packed;               /* the ring's canonical writes cross packed narrow (GLSTARK_UPLOAD) */
    glstark_buffer_pool buffer_pool; /* what happens to freed GPU buffers (GLSTARK_POOL) */
    int shader_copy;                 /* large buffer copies by a compute shader, not glCopyBufferSubData (GLSTARK_COPY) */
    int subgroup_reduce;             /* work-group sums through subgroup shuffles (GLSTARK_SUBGROUPS) */
    uint32_t subgroup_features;      /* GL_SUBGROUP_SUPPORTED_FEATURES_KHR in compute shaders (0: none) */
    glstark_field_mul field_mul;     /* WIDE or SHIFT (never AUTO on a GLES device) */
    int background_compile;          /* proofs may start their programs ahead of use on the driver's threads
                                        (GLSTARK_PRECOMPILE; under AUTO only when the driver's cache is cold) */
} gs_gl_caps;

typedef struct gs_gl_program gs_gl_program;

typedef struct gs_gl_device {
    gs_device_config cfg; /* resolved by api/options.c */

    /* EGL objects and what made them. */
    EGLDisplay dpy;
    EGLContext ctx;
    int terminate_display; /* only displays we own exclusively are terminated */
    void *gbm_lib;         /* dlopen handle of libgbm, or NULL */
    void *gbm_dev;         /* struct gbm_device *, or NULL */
    int drm_fd;
    glstark_platform platform;
    char platform_path[GS_GL_INFO_MAX];

    /* What the driver says about itself. */
    char egl_vendor[GS_GL_INFO_MAX];
    char egl_version[GS_GL_INFO_MAX];
    char gl_vendor[GS_GL_INFO_MAX];
    char renderer[GS_GL_INFO_MAX];
    char gl_version[GS_GL_INFO_MAX];
    char glsl_version[GS_GL_INFO_MAX];
    char extensions[1024]; /* the relevant ones present, space separated */
    int gl_major, gl_minor;
    int is_software;
    unsigned hw_skipped; /* hardware devices passed over on the way to cfg.device_index */

    gs_gl_caps caps;      /* what the library uses */
    gs_gl_caps hw_caps;   /* what the driver reported */

    /* Extension entry points, bound only when advertised. */
    PFNGLGETGRAPHICSRESETSTATUSKHRPROC GetGraphicsResetStatus;
    PFNGLGENQUERIESEXTPROC GenQueries;
    PFNGLDELETEQUERIESEXTPROC DeleteQueries;
    PFNGLBEGINQUERYEXTPROC BeginQuery;
    PFNGLENDQUERYEXTPROC EndQuery;
    PFNGLGETQUERYOBJECTUI64VEXTPROC GetQueryObjectui64v;
    PFNGLGETQUERYOBJECTUIVEXTPROC GetQueryObjectuiv;
    PFNGLQUERYCOUNTEREXTPROC QueryCounter;
    PFNGLBUFFERSTORAGEEXTPROC BufferStorage;
    int has_debug;

    /* Pending shader writes not yet made visible by a barrier (GL bits). */
    GLbitfield pending_barrier;
    int context_lost;

    /* Program cache: a small list, programs are few by design. */
    gs_gl_program *programs;
    int compile_threads_on; /* glMaxShaderCompilerThreadsKHR was called (first prefetch) */
    /* While set, a prefetch builds its program at once on the calling
     * thread (from the driver's cache where it holds it) instead of starting
     * a background compile: the GLES engine sets it while the GPU runs work
     * the host would otherwise only wait for (gles_engine.c, load_while_busy). */
    int prefetch_builds_now;
    /* Programs made ready since the device opened (compiled, or taken from
     * the driver's cache, or waited for after a background start) and the
     * host time spent on programs (background starts included): what a
     * first run on a machine pays. */
    uint64_t programs_built;
    uint64_t program_build_ns;
    /* Programs built at first use that no prefetch had started, once this
     * device had started background compiles: a kernel missing from the
     * engine's lists (the tests hold it at 0 for whole proofs). */
    uint64_t programs_unplanned;

    /* Host syncs made by the runtime itself: glFinish and timer-query reads
     * (spans and the kernel profile) and the upload ring's waits. A proof's
     * count (gs_engine.host_syncs) takes the ring's waits (the GLES engine
     * adds them after each buffer write) and the engine's own readbacks and
     * finishes; the timers' syncs only exist when something times. */
    uint64_t host_syncs;

    /* Kernel profile (profile.c), NULL unless GLSTARK_PROFILE is set. */
    struct gs_gl_profile *prof;

    /* Dispatch time budget (GLSTARK_DISPATCH_MS, set by the GLES engine;
     * 0: none): gs_gl_dispatch_1d* cut a grid into dispatches that each run
     * about this long at the program's measured rate (dispatch_plan.h).
     * Calibration times the first chunks of each program with glFinish;
     * those syncs are counted here, not in host_syncs. */
    uint64_t dispatch_budget_ns;
    uint64_t calib_syncs;
    uint64_t calib_chunks; /* dispatches timed to calibrate */
    uint64_t budget_splits; /* dispatches added by the budget (beyond the group-count limit's) */
} gs_gl_device;

/* Opens a headless device per cfg (resolved: the GL layer reads no
 * environment). On failure the message lists every path tried. */
glstark_status gs_gl_device_open(const gs_device_config *cfg, gs_gl_device **out, gs_error *err);
void gs_gl_device_close(gs_gl_device *dev);
glstark_status gs_gl_device_make_current(gs_gl_device *dev, gs_error *err);

/* What was current on a thread (display, surfaces, context), so a call that
 * borrows the thread for a device's context can put it back. */
typedef struct gs_gl_current {
    EGLDisplay dpy;
    EGLSurface draw, read;
    EGLContext ctx;
} gs_gl_current;
void gs_gl_current_save(gs_gl_current *cur);
/* Makes a saved context current again (nothing when none was). */
void gs_gl_current_restore(const gs_gl_current *cur);
/* Makes dev's context current on the calling thread for one call, saving
 * what was current in *prev; gs_gl_device_give puts *prev back (releases
 * the context when nothing was current), so another thread may take it.
 * The caller orders takes and gives (the public device's lock). */
glstark_status gs_gl_device_take(gs_gl_device *dev, gs_gl_current *prev, gs_error *err);
void gs_gl_device_give(gs_gl_device *dev, const gs_gl_current *prev);

/* Whole-token match in a space-separated extension string. */
int gs_gl_has_token(const char *list, const char *name);
int gs_gl_has_extension(const gs_gl_device *dev, const char *name);

/* caps.c: reads limits into dev->hw_caps and dev->caps (floor mode, knobs). */
glstark_status gs_gl_caps_read(gs_gl_device *dev, gs_error *err);
/* Registers the KHR_debug callback (debug builds, when a log is set). */
void gs_gl_debug_setup(gs_gl_device *dev);

/* Checks glGetError and the reset status after `what`; maps a lost context
 * to GLSTARK_ERR_CONTEXT_LOST and other errors to GLSTARK_ERR_GPU. */
glstark_status gs_gl_check(gs_gl_device *dev, gs_error *err, const char *what);

/* ---- programs (program.c) ---- */

/* Builds (or finds in the cache) the program for glsl/<kernel> (e.g.
 * "field_test.comp") with extra `defines` ("NAME VALUE\n" lines, may be
 * NULL). Compile/link failures return GLSTARK_ERR_SHADER with the driver log
 * mapped to glsl/ file names and lines. */
glstark_status gs_gl_program_get(gs_gl_device *dev, const char *kernel, const char *defines, gs_gl_program **out,
                                 gs_error *err);
/* Same, with the kernel text supplied by the caller under the name `kernel`
 * (it may #include embedded files); used by tests for broken shaders. */
glstark_status gs_gl_program_build(gs_gl_device *dev, const char *kernel, const char *kernel_text,
                                   const char *defines, gs_gl_program **out, gs_error *err);
/* Starts compiling glsl/<kernel> with `defines` on the driver's threads
 * where the device compiles in the background (caps.background_compile;
 * elsewhere it does nothing), so that the gs_gl_program_get that needs it
 * later only waits for what is left. A compile or link failure is reported
 * by that gs_gl_program_get, not here; a prefetched program nobody asks for
 * costs only its compile. Fails only for host memory or a lost context.
 * With dev->prefetch_builds_now set it is gs_gl_program_get instead (the
 * build's failure returned here), background compiles or not. */
glstark_status gs_gl_program_prefetch(gs_gl_device *dev, const char *kernel, const char *defines, gs_error *err);
GLuint gs_gl_program_name(const gs_gl_program *p);
/* Whether the cache holds a program of glsl/<kernel> whose defines begin
 * with `defines_prefix` (built or started): tests ask which variant ran. */
int gs_gl_program_cached(const gs_gl_device *dev, const char *kernel, const char *defines_prefix);
/* "kernel: DEFINE VALUE ..." on one line, for reports. */
void gs_gl_program_label(const gs_gl_program *p, char *out, size_t n);
/* The program's measured dispatch rate on this device (dispatch_plan.h);
 * state kept with the program for the device's lifetime. */
gs_dispatch_rate *gs_gl_program_rate(const gs_gl_program *p);
/* Uniform location by name, -1 when the program does not use it. */
GLint gs_gl_program_uniform(const gs_gl_program *p, const char *name);
void gs_gl_programs_free(gs_gl_device *dev);

/* The full source the runtime would compile for (kernel, defines): prelude,
 * includes, kernel, with #line directives. Caller frees. Used by the
 * glslangValidator test. */
glstark_status gs_gl_program_source(const gs_gl_caps *caps, const char *kernel, const char *defines, char **out,
                                    gs_error *err);
/* Maps a driver log's "<string>:<line>" references to glsl/ names. Caller frees. */
char *gs_gl_map_log(const char *log);

/* ---- binding and dispatch (dispatch.c) ---- */

/* Binds bytes [offset, offset+size) of buffer `name` to SSBO `binding`,
 * checking the offset alignment and the per-binding size limit. */
glstark_status gs_gl_bind_range(gs_gl_device *dev, GLuint binding, GLuint name, uint64_t offset, uint64_t size,
                                gs_error *err);

/* Largest element count per binding for elements of elem_bytes, such that
 * chunk offsets k*count*elem_bytes keep the binding offset alignment. */
uint64_t gs_gl_chunk_elems(const gs_gl_device *dev, uint32_t elem_bytes);

/* Dispatches a logical 1-D grid of `count` invocations of the bound program
 * (local size caps.local_size in x). Above the group-count limit the grid is
 * folded into 2-D, and beyond a full 2-D grid it is issued as several
 * dispatches. Kernels include glsl/grid.glsl, take id = gs_linear_id() and
 * skip id >= gs_count (uniforms set here). Inserts the barrier that makes
 * earlier dispatches' SSBO writes visible. count 0 does nothing. */
glstark_status gs_gl_dispatch_1d(gs_gl_device *dev, const gs_gl_program *prog, uint64_t count, gs_error *err);
/* The same for a program declared with local_size_x = `local` (a power of
 * two <= caps.local_size), e.g. one sized by its shared memory. */
glstark_status gs_gl_dispatch_1d_local(gs_gl_device *dev, const gs_gl_program *prog, uint64_t count, uint32_t local,
                                       gs_error *err);
/* The same where one invocation costs `weight` units (>= 1) of the
 * program's rate, e.g. the interpreted instructions of a constraint-DAG
 * lane: the time budget then plans fewer invocations per dispatch.
 *
 * Under a time budget (dev->dispatch_budget_ns) the grid is issued as
 * dispatches of whole work groups starting at gs_base, each planned to run
 * within the budget (gs_dispatch_next); every kernel here takes its id from
 * gs_linear_id() and its work group from id / local size, so the split
 * changes no result. */
glstark_status gs_gl_dispatch_1d_weighted(gs_gl_device *dev, const gs_gl_program *prog, uint64_t count, uint32_t local,
                                          uint64_t weight, gs_error *err);
/* Grid chosen for count (exposed for tests): groups in x and y. */
void gs_gl_grid_for(const gs_gl_caps *caps, uint64_t count, uint32_t *gx, uint32_t *gy);

/* Makes shader writes visible to the operations in `bits` before they run. */
void gs_gl_barrier_for(gs_gl_device *dev, GLbitfield bits);

/* glFinish + reset check; counts a host sync. */
glstark_status gs_gl_finish(gs_gl_device *dev, gs_error *err);

/* Waits until fence f has signaled, a second at a time so that a lost
 * context is noticed instead of waiting forever; `who` prefixes the error
 * messages. Does not delete f nor count a host sync (callers decide). */
glstark_status gs_gl_wait_sync(gs_gl_device *dev, GLsync f, const char *who, gs_error *err);

/* A new buffer of `size` bytes with immutable storage (GL_EXT_buffer_storage)
 * mapped persistently and coherently for `access` (GL_MAP_READ_BIT or
 * GL_MAP_WRITE_BIT), left bound to `target`: its name in *name and its
 * mapping returned. NULL if the driver refuses; then GL errors are cleared
 * and nothing is left behind (*name 0). The upload ring and the readback
 * staging buffer use it. */
void *gs_gl_map_persistent(gs_gl_device *dev, GLenum target, size_t size, GLbitfield access, GLuint *name);

/* Unmaps (if map) and deletes a buffer made by gs_gl_map_persistent. */
void gs_gl_unmap_delete(GLenum target, GLuint name, const void *map);

/* ---- work groups side by side (parallel_probe.c) ---- */

/* Times one work group of a fixed integer chain (glsl/parallel_probe.comp),
 * then 2, 4, .. groups of it, and sets *out to the groups the device ran in
 * about the time of one (gs_parallel_from_times). One group takes about
 * 2 ms, and no probe dispatch passes half of budget_ns (0: no bound but
 * that). Its glFinish calls count as calibration syncs. */
glstark_status gs_gl_measure_parallel(gs_gl_device *dev, uint64_t budget_ns, uint32_t *out, gs_error *err);

/* ---- timers (timer.c) ---- */

/* A span: GPU time-elapsed query where the device gives valid numbers, else
 * glFinish + CLOCK_MONOTONIC (which costs host syncs). */
typedef struct gs_gl_span {
    const char *name;
    int gpu;          /* timed with a query */
    GLuint query;
    uint64_t t0_ns;
} gs_gl_span;

glstark_status gs_gl_span_begin(gs_gl_device *dev, gs_gl_span *s, const char *name, gs_error *err);
/* Ends the span and returns its duration in nanoseconds (waits for it). */
glstark_status gs_gl_span_end(gs_gl_device *dev, gs_gl_span *s, uint64_t *ns, gs_error *err);
uint64_t gs_monotonic_ns(void);
/* CPU time of the whole process (every thread), 0 where the clock is
 * missing. On a software renderer (llvmpipe) a dispatch's share is the
 * device's work, whatever else runs on the host; on a GPU it is near 0. */
uint64_t gs_process_cpu_ns(void);

/* ---- kernel profile (profile.c), GLSTARK_PROFILE=1 or gpu ---- */

glstark_status gs_gl_profile_enable(gs_gl_device *dev, gs_error *err);
/* Around one operation when dev->prof is set: glFinish, clock, operation,
 * glFinish, clock (GLSTARK_PROFILE=1), or a GPU timestamp before and after
 * it (gpu); `units` (elements, bytes) are summed per key. */
void gs_gl_profile_begin(gs_gl_device *dev);
/* Whether the profile brackets operations with glFinish (GLSTARK_PROFILE=1,
 * or gpu where the timers fall back), so a dispatch may time itself too. */
int gs_gl_profile_finishes(const gs_gl_device *dev);
void gs_gl_profile_end(gs_gl_device *dev, const char *key, uint64_t units);
/* The same for an operation issued as `dispatches` dispatches, the longest
 * of which took longest_ns, not counting the program's first dispatch on
 * the device (first_ns when this call made it, else 0), which on llvmpipe
 * includes the shader's compile (profile_end records the whole as one).
 * longest_cpu_ns: the most process CPU time one of those dispatches took
 * (gs_process_cpu_ns). */
void gs_gl_profile_end_split(gs_gl_device *dev, const char *key, uint64_t units, uint64_t dispatches,
                             uint64_t longest_ns, uint64_t longest_cpu_ns, uint64_t first_ns);
/* GPU timestamps of n profiled operations in issue order, operation i from
 * start[i] to end[i]: busy[i] = its GPU time not already covered by an
 * earlier operation (stamps of neighbours may overlap without a finish, so
 * the busy times add up to the union), idle[i] = how long the GPU sat idle
 * after every earlier operation ended and before operation i started (0
 * for the first). */
void gs_gl_profile_timeline(const uint64_t *start, const uint64_t *end, size_t n, uint64_t *busy, uint64_t *idle);
/* Logs the table, largest first (log callback, else stderr). */
void gs_gl_profile_report(gs_gl_device *dev);
void gs_gl_profile_free(gs_gl_device *dev);

/* Logs through the options' callback, if any. */
void gs_gl_log(const gs_gl_device *dev, glstark_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
