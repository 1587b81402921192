/* glstark devices: which engine runs the prover and, for the GLES engine,
 * which GPU. A device is opened headless (no window, no display server):
 *
 *   1. GBM on each /dev/dri/renderD* node (libgbm is loaded at run time),
 *   2. EGL_EXT_platform_device (hardware devices before software ones),
 *   3. EGL_MESA_platform_surfaceless,
 *
 * with an OpenGL ES 3.2 context, else 3.1. When nothing opens, the error
 * message lists every path tried, why it failed and what to do.
 *
 * Environment variables override the options (so users can steer an
 * application without rebuilding it), e.g.:
 *   GLSTARK_ENGINE=auto|gles|cpu              which engine (default auto)
 *   GLSTARK_PLATFORM=gbm|device|surfaceless   try only that path
 *   GLSTARK_DRM_NODE=/dev/dri/renderD129      use only that render node
 *   GLSTARK_REQUIRE_HW=1                      refuse software renderers
 *   GLSTARK_LIMITS=es31-min                   use only ES 3.1 minimum limits
 * docs/tuning.md lists them all; the library reads them once, from one
 * table, when a device is created.
 *
 * Threads. A device may be used from any thread, and from several threads
 * at once: the calls that use its engine (glstark_prove and
 * glstark_prove_context with the device in their options,
 * glstark_device_self_check, glstark_device_release_memory) take turns on a
 * lock in the device. Such a call makes the device's GL context current on
 * the calling thread when it starts and, when it returns, makes current
 * again what was current there before (nothing, or the caller's own EGL
 * context), so no thread keeps the context between calls. Many threads can
 * therefore share one device per GPU: each does its host work (making
 * traces, verifying) while another proves, and the proofs run one at a
 * time, which on one GPU is faster than a context per thread (keccakf
 * --jobs). Several devices (one per GPU) may work at once.
 *   - Keep the threads that prove long-lived: a thread's first call on a
 *     device pays the GL driver's set-up for that thread. On NVIDIA 580 that
 *     was 26-28 ms before the proof began and ~10 ms more inside it, where
 *     threads that had proved before took turns for 0.2 ms
 *     (benches/bench_device_threads). A thread per proof pays it every time.
 *   - A call on a device from inside a call on the same device (from a
 *     progress or trace callback) returns GLSTARK_ERR_BUSY; it does not
 *     deadlock.
 *   - The getters, glstark_device_limits_get and glstark_device_engine*
 *     read what the device fixed when it opened: any thread, any time.
 *   - glstark_device_last_error is the device's last self-check failure,
 *     for one thread's use; a proof reports in its own result.message.
 *   - glstark_device_destroy waits for a call running on another thread,
 *     but no call may start on the device once destroy is called: destroy
 *     it after every thread using it is done. From inside a call on the
 *     device it does nothing. */
#ifndef GLSTARK_DEVICE_H
#define GLSTARK_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct glstark_device glstark_device;

typedef enum glstark_engine_kind {
    GLSTARK_ENGINE_GLES = 0, /* OpenGL ES 3.1 compute */
    GLSTARK_ENGINE_CPU = 1,  /* plain C reference engine, no GPU needed */
    /* The default: GLES on a hardware GPU; the CPU engine where only a
     * software renderer (llvmpipe) opens (the CPU engine is about 20x faster
     * there), where no GLES device opens at all (unless device_index or
     * drm_node asks for a particular GPU: then its failure is returned), or
     * in a build without GLES.
     * A device made with AUTO reports GLES or CPU (glstark_device_engine)
     * and why (glstark_device_engine_reason). Choose GLES to force it, even
     * on llvmpipe. */
    GLSTARK_ENGINE_AUTO = 2
} glstark_engine_kind;

typedef enum glstark_platform {
    GLSTARK_PLATFORM_AUTO = 0, /* try GBM, then EGL device, then surfaceless */
    GLSTARK_PLATFORM_GBM = 1,
    GLSTARK_PLATFORM_DEVICE = 2,
    GLSTARK_PLATFORM_SURFACELESS = 3,
    GLSTARK_PLATFORM_NONE = 4 /* reported by CPU devices */
} glstark_platform;

typedef enum glstark_log_level {
    GLSTARK_LOG_DEBUG = 0,
    GLSTARK_LOG_INFO = 1,
    GLSTARK_LOG_WARN = 2,
    GLSTARK_LOG_ERROR = 3
} glstark_log_level;

typedef void (*glstark_log_fn)(void *user, glstark_log_level level, const char *msg);

/* How the GLES engine reads results back to the host (each read is a host
 * sync). Drivers differ a lot here: on NVIDIA, mapping a device buffer for
 * reading costs ~2 ms, a fence wait on a persistently mapped buffer ~0.05 ms. */
typedef enum glstark_readback {
    GLSTARK_READBACK_AUTO = 0,       /* PERSISTENT where GL_EXT_buffer_storage exists, else STAGING */
    GLSTARK_READBACK_PERSISTENT = 1, /* copy into a persistently mapped buffer, wait on a fence */
    GLSTARK_READBACK_STAGING = 2,    /* copy into a small read buffer, map that */
    GLSTARK_READBACK_MAP = 3         /* map the buffer that holds the data */
} glstark_readback;

/* Where the GLES constraint interpreter (round 0 and the multilinear rounds
 * of the batch sumcheck) keeps each evaluation's intermediates. */
typedef enum glstark_slot_memory {
    GLSTARK_SLOTS_AUTO = 0,   /* GLOBAL (SHARED measured slower on NVIDIA; other GPUs may differ) */
    GLSTARK_SLOTS_GLOBAL = 1, /* a storage buffer (any size) */
    GLSTARK_SLOTS_SHARED = 2  /* shared memory (falls back to GLOBAL for a DAG too wide to fit) */
} glstark_slot_memory;

/* Whether GLES kernels may use GL_KHR_shader_subgroup (beyond the ES 3.1
 * floor). Today: work-group sums of field elements (the WHIR and GKR
 * sumcheck reductions) through subgroup shuffles instead of a shared-memory tree. */
typedef enum glstark_subgroups {
    GLSTARK_SUBGROUPS_AUTO = 0, /* where the device offers subgroup shuffles in compute shaders */
    GLSTARK_SUBGROUPS_OFF = 1,  /* never: shared-memory trees only */
    GLSTARK_SUBGROUPS_ON = 2    /* required: opening a device without them fails */
} glstark_subgroups;

/* How GLES kernels multiply in the field (Montgomery form). Results are
 * identical; speed differs by GPU. */
typedef enum glstark_field_mul {
    GLSTARK_FIELD_MUL_AUTO = 0,  /* SHIFT on V3D (Raspberry Pi), whose driver emulates multiplies; else WIDE */
    GLSTARK_FIELD_MUL_WIDE = 1,  /* a wide multiply for a*b and two for the reduction */
    GLSTARK_FIELD_MUL_SHIFT = 2  /* a wide multiply for a*b, the reduction by shifts and adds */
} glstark_field_mul;

/* glstark_device_options.precompile: when a GLES device compiles its GPU
 * programs (GLSTARK_PRECOMPILE=auto|off|on overrides it). Ahead of use, a
 * proof starts every program it runs when it begins, and the driver compiles
 * them on its own threads (GL_KHR_parallel_shader_compile): a driver whose
 * shader cache is empty compiles them side by side instead of one at a time
 * as the proof reaches each kernel. */
typedef enum glstark_precompile {
    GLSTARK_PRECOMPILE_AUTO = 0, /* ahead of use on hardware drivers offering the extension, when the driver's
                                    cache is cold (the first program took 20 ms or more to build) */
    GLSTARK_PRECOMPILE_OFF = 1,  /* each program compiles when a kernel first needs it */
    GLSTARK_PRECOMPILE_ON = 2    /* ahead of use wherever the extension is offered, cache or not, software
                                    renderers too (llvmpipe compiles on the calling thread: for tests) */
} glstark_precompile;

/* Options carry their own size so the struct can grow: set
 * `size = sizeof(glstark_device_options)` (glstark_device_options_init does);
 * the library reads only the first `size` bytes, new fields go at the end. */
typedef struct glstark_device_options {
    size_t size;
    glstark_engine_kind engine; /* GLSTARK_ENGINE_AUTO unless set (GLSTARK_ENGINE overrides it) */
    glstark_platform platform; /* AUTO unless you must force a path */
    const char *drm_node;      /* e.g. "/dev/dri/renderD129"; NULL = every node */
    int require_hw;            /* nonzero: refuse software renderers (llvmpipe, ...) */
    int limits_floor;          /* nonzero: use only the ES 3.1 minimum limits */
    /* Unused; keeps the later fields where they were (these held test knobs,
     * which are now internal to the library's tests). */
    uint64_t reserved0[2];
    uint32_t reserved1;
    /* Library log (KHR_debug messages in debug builds, notes on fallbacks). */
    glstark_log_fn log;
    void *log_user;
    /* CPU engine worker threads, 0 = one per core. */
    unsigned cpu_threads;
    /* GLES readback path (GLSTARK_READBACK overrides it). */
    glstark_readback readback;
    /* Interpreter intermediates (GLSTARK_SLOTS overrides it). */
    glstark_slot_memory slots;
    /* Split each constraint-DAG evaluation of the GLES interpreter into this
     * many programs run by separate lanes (1..256; 0 = automatic: on
     * desktop-class GPUs 256 for the multilinear rounds and 16 for round 0,
     * else 1). GLSTARK_GROUPS overrides. */
    unsigned interp_groups;
    /* Unused (held a test knob, now GLSTARK_DFT_BLOCK only). */
    unsigned reserved2;
    /* Subgroup kernel variants (GLSTARK_SUBGROUPS overrides it). */
    glstark_subgroups subgroups;
    /* Field-multiply variant (GLSTARK_FIELD_MUL overrides it). */
    glstark_field_mul field_mul;
    /* Program compiles ahead of use (GLSTARK_PRECOMPILE overrides it). */
    glstark_precompile precompile;
    /* Which GPU of the host to open, for one context per GPU: 0 (default)
     * the first that opens, as before; k > 0 the k-th hardware device
     * counting from 0 in the order glstark tries them (DRM render nodes by
     * name through GBM, else EGL devices), never a software renderer.
     * `glstark-info --list` prints the indices. GLSTARK_DEVICE_INDEX
     * overrides it. */
    unsigned device_index;
} glstark_device_options;

/* glstark_device_limits.buffer_pool: what a GLES device does with the GPU
 * buffers a proof frees (GLSTARK_POOL=0|bounded|reuse overrides the choice). */
typedef enum glstark_buffer_pool {
    /* deleted at once; every request allocates. The default where GPU
     * memory is the host's (devices that are not desktop-class: software
     * renderers, boards, phones), where kept buffers are memory the host
     * cannot use */
    GLSTARK_BUFFER_POOL_OFF = 0,
    /* kept for requests they fit within a quarter; the pool never makes the
     * device hold more than the largest footprint so far (a request it cannot
     * fit releases kept buffers first) */
    GLSTARK_BUFFER_POOL_BOUNDED = 1,
    /* as BOUNDED, but a request that would grow the footprint first takes
     * the smallest larger kept buffer (up to 64 times its size, or any up
     * to 256 MiB), and kept buffers are released only past half again the
     * largest live footprint: a repeated proof of the same shape allocates
     * (almost) nothing new, for a larger footprint (keccakf-1024 on the
     * H100: 1314 against 800 MiB, warm proofs 0.18 against 0.33 s). The
     * default on desktop-class GPUs; BOUNDED under device_memory_cap */
    GLSTARK_BUFFER_POOL_REUSE = 2,
} glstark_buffer_pool;

/* Device limits and choices the library uses (after floor mode, the
 * environment and the library's test knobs). The struct carries its own size
 * so it can grow: glstark_device_limits_init sets `size`, and
 * glstark_device_limits_get writes only the first `size` bytes. */
typedef struct glstark_device_limits {
    size_t size;                     /* sizeof(glstark_device_limits) */
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
    unsigned interp_groups;          /* most groups the interpreter splits an evaluation into (1: never) */
    uint32_t dft_block_log;          /* DFT layers per shared-memory pass: blocks of 2^k words (from max_shared_bytes) */
    int upload_ring;                 /* host-to-GPU writes through the persistently mapped ring (GLSTARK_UPLOAD) */
    glstark_buffer_pool buffer_pool; /* what happens to freed GPU buffers (GLSTARK_POOL) */
    int shader_copy;                 /* large buffer copies by a compute shader, not glCopyBufferSubData (GLSTARK_COPY) */
    int subgroup_reduce;             /* work-group sums through subgroup shuffles (GLSTARK_SUBGROUPS) */
    uint32_t subgroup_features;      /* GL_SUBGROUP_SUPPORTED_FEATURES_KHR in compute shaders (0: none) */
    glstark_field_mul field_mul;     /* WIDE or SHIFT (never AUTO on a GLES device) */
    int background_compile;          /* proofs may start their programs ahead of use on the driver's threads
                                        (GLSTARK_PRECOMPILE; under AUTO only when the driver's cache is cold) */
    uint32_t parallel_groups;        /* work groups the dispatch budget takes to run side by side: a software
                                        renderer's threads, Mali's shader cores where its driver reports them,
                                        else, under a time budget, measured when the device opens (a power of
                                        two, a floor on the GPU's concurrency), else 1 */
    int upload_staged;               /* host-to-GPU writes through a staging buffer and a GPU copy (GLSTARK_UPLOAD: the
                                        path of hardware GPUs without the ring; 0 with the ring or glBufferSubData) */
    int upload_packed;               /* with the ring: trace values cross packed to 1, 8 or 16 bits where they fit and
                                        are widened on the GPU (GLSTARK_UPLOAD=packed; the default on desktop-class
                                        GPUs, whose memory is behind a bus) */
} glstark_device_limits;

/* Fills defaults: the automatic engine and platform, every choice automatic. */
GLSTARK_API void glstark_device_options_init(glstark_device_options *opts);

/* Opens a device. opts may be NULL for defaults. On failure *out is NULL
 * and, if msg is not NULL, up to msg_size bytes of the explanation are
 * copied there (the device does not exist yet to ask). A library built
 * without the GLES engine (meson -Dgles=disabled) has CPU devices only: a
 * GLES device asked for explicitly is refused with GLSTARK_ERR_UNSUPPORTED;
 * the default (GLSTARK_ENGINE_AUTO) opens the CPU engine there. */
GLSTARK_API glstark_status glstark_device_create(const glstark_device_options *opts, glstark_device **out,
                                                 char *msg, size_t msg_size);
GLSTARK_API void glstark_device_destroy(glstark_device *dev);

/* A GLES device keeps the GPU buffers a proof frees for the next request
 * they fit (within a proof and across proofs: new GPU memory is slow to
 * touch first), holding no more than the largest footprint so far. This
 * hands those kept buffers back to the driver, e.g. after the last proof for
 * a while. Set GLSTARK_POOL=0 to never keep any. No-op on CPU devices. */
GLSTARK_API void glstark_device_release_memory(glstark_device *dev);

/* What failed last on this device ("" when nothing has). */
GLSTARK_API const char *glstark_device_last_error(const glstark_device *dev);

/* The getters below accept NULL: strings are then "", the platform
 * GLSTARK_PLATFORM_NONE, the engine GLSTARK_ENGINE_CPU, is_software 0. A CPU
 * device's GL strings are "" (its renderer "glstark CPU engine", its
 * platform path "cpu"), and it counts as software. */
GLSTARK_API glstark_engine_kind glstark_device_engine(const glstark_device *dev);
/* Which engine the device runs and why, one line, e.g. "gles: asked for
 * (options)", "cpu: GLSTARK_ENGINE=cpu", "auto: only a software renderer
 * (llvmpipe) opened; the CPU engine is faster there". A string owned by
 * the device; "" for NULL. */
GLSTARK_API const char *glstark_device_engine_reason(const glstark_device *dev);
GLSTARK_API glstark_platform glstark_device_platform(const glstark_device *dev);
/* "gbm /dev/dri/renderD128", "device #0 (EGL_EXT_device_drm ...)", "surfaceless", "cpu" */
GLSTARK_API const char *glstark_device_platform_path(const glstark_device *dev);
GLSTARK_API const char *glstark_device_egl_vendor(const glstark_device *dev);
GLSTARK_API const char *glstark_device_egl_version(const glstark_device *dev);
GLSTARK_API const char *glstark_device_gl_vendor(const glstark_device *dev);
GLSTARK_API const char *glstark_device_renderer(const glstark_device *dev);
GLSTARK_API const char *glstark_device_gl_version(const glstark_device *dev);
GLSTARK_API const char *glstark_device_glsl_version(const glstark_device *dev);
/* Space-separated GL and EGL extensions that glstark looks at and the device has. */
GLSTARK_API const char *glstark_device_extensions(const glstark_device *dev);
GLSTARK_API int glstark_device_is_software(const glstark_device *dev);
/* Sets out->size = sizeof(glstark_device_limits) and zeroes the rest. */
GLSTARK_API void glstark_device_limits_init(glstark_device_limits *out);
/* Fills the first out->size bytes (set it with glstark_device_limits_init;
 * GLSTARK_ERR_INVALID_ARGUMENT when it is smaller than the size field or
 * above 4096). Zeroed, but for `size`, for CPU devices. */
GLSTARK_API glstark_status glstark_device_limits_get(const glstark_device *dev, glstark_device_limits *out);

/* Runs the field kernels (BabyBear and its degree-4 extension: add, sub,
 * mul, square, neg, inverse) on n random elements from `seed` and compares
 * them with the C reference. GLSTARK_ERR_MISMATCH names the first
 * differing element. For CPU devices it checks nothing and returns OK. */
GLSTARK_API glstark_status glstark_device_self_check(glstark_device *dev, uint64_t seed, size_t n);

GLSTARK_API const char *glstark_platform_name(glstark_platform p);

/* The vector instruction set the CPU engine's kernels use on this machine
 * (the CPU engine proper and the GLES engine's CPU fallback): "avx512",
 * "avx2" or "none" (plain C: ARM, older x86, or GLSTARK_CPU_SIMD=none),
 * after GLSTARK_CPU_SIMD caps it; "invalid GLSTARK_CPU_SIMD" when that
 * variable names a set the CPU lacks or no set (creating a CPU engine then
 * fails with the reason). A static string. */
GLSTARK_API const char *glstark_cpu_vector_set(void);

#ifdef __cplusplus
}
#endif
#endif
