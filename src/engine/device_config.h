/* A device's configuration after every option and GLSTARK_* variable has
 * been resolved and checked (src/api/options.c walks one table to fill it).
 * The engines and the GL layer read only this plain struct: they never call
 * getenv or the public options API. Tests fill it directly to set the test
 * knobs, which are not part of the public glstark_device_options (see
 * src/api/device_testing.h). */
#ifndef GS_ENGINE_DEVICE_CONFIG_H
#define GS_ENGINE_DEVICE_CONFIG_H

#include <stdint.h>

#include "glstark/device.h"

/* GLSTARK_UPLOAD */
typedef enum gs_upload_choice {
    GS_UPLOAD_CHOICE_AUTO = 0,
    GS_UPLOAD_CHOICE_RING = 1,
    GS_UPLOAD_CHOICE_SUBDATA = 2,
    GS_UPLOAD_CHOICE_STAGED = 3,
    GS_UPLOAD_CHOICE_PACKED = 4
} gs_upload_choice;
/* GLSTARK_COPY */
typedef enum gs_copy_choice { GS_COPY_AUTO = 0, GS_COPY_SHADER = 1, GS_COPY_GL = 2 } gs_copy_choice;
/* GLSTARK_PROFILE: off; each operation bracketed by glFinish; or GPU
 * timestamps around each operation, with no finish (src/gles/profile.c) */
typedef enum gs_profile_choice { GS_PROFILE_OFF = 0, GS_PROFILE_FINISH = 1, GS_PROFILE_GPU = 2 } gs_profile_choice;
/* GLSTARK_POOL: GS_POOL_AUTO, else a glstark_buffer_pool value */
#define GS_POOL_AUTO (-1)

typedef struct gs_device_config {
    /* The public options (glstark_device_options), after the environment. */
    glstark_engine_kind engine; /* AUTO, GLES or CPU as asked; the device records what it chose */
    glstark_platform platform;
    const char *drm_node;
    int require_hw;
    int limits_floor;
    glstark_log_fn log;
    void *log_user;
    unsigned cpu_threads;
    glstark_readback readback;
    glstark_slot_memory slots;
    unsigned interp_groups;
    glstark_subgroups subgroups;
    glstark_field_mul field_mul;
    glstark_precompile precompile;
    unsigned device_index;
    /* Set only by the environment. */
    int upload;      /* gs_upload_choice (GLSTARK_UPLOAD) */
    int copy;        /* gs_copy_choice (GLSTARK_COPY) */
    int pool;        /* GS_POOL_AUTO or a glstark_buffer_pool (GLSTARK_POOL) */
    int pool_poison; /* fill handed-out GPU buffers with 0xDEADBEEF (GLSTARK_POOL_POISON) */
    int profile;     /* gs_profile_choice: kernel profile at close (GLSTARK_PROFILE) */
    int dispatch_ms; /* time budget per GLES dispatch: -1 the device's default, 0 none (GLSTARK_DISPATCH_MS) */
    /* Mesa's software renderer's threads (its LP_NUM_THREADS, else the
     * host's online cores, at most 16; 0 where not resolved: one): how many
     * work groups llvmpipe runs side by side (caps.parallel_groups). Read
     * by the options layer so that the GL layer never calls getenv. */
    unsigned software_threads;
    /* Test knobs (0 = off): a smaller per-binding limit than the device's,
     * so range binding and chunking run even on a big GPU; a cap on device
     * bytes allocated; a smaller work-group count limit, so 2-D folding runs
     * with small grids; a smaller DFT shared-memory block (log2, 4..11; also
     * GLSTARK_DFT_BLOCK), so many register passes run on any GPU. */
    uint64_t max_binding_bytes;
    uint64_t device_memory_cap;
    uint32_t max_group_count;
    unsigned dft_block_log;
    /* Test knob: measure the work groups run side by side
     * (gs_gl_measure_parallel) even where the renderer reports them, to
     * check the measurement against a known count. */
    int measure_parallel;
    /* Which GLSTARK_* variable set `engine` (NULL: the options or the default). */
    const char *engine_from_env;
} gs_device_config;

#endif
