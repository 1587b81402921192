/* Device limits, read once after the context is current; floor mode; the
 * KHR_debug log hook; GL error and context-reset checks. */
#include "gles/gl_device.h"
#include "gles/dispatch_plan.h"

#include <stdio.h>
#include <string.h>

/* The OpenGL ES 3.1 minimums (OpenGL ES 3.1 specification, table 20.45ff). Floor mode uses these
 * so CI proves that every kernel fits the smallest conformant GPU. */
#define ES31_MIN_INVOCATIONS 128u
#define ES31_MIN_GROUP_SIZE_XY 128u
#define ES31_MIN_GROUP_SIZE_Z 64u
#define ES31_MIN_GROUP_COUNT 65535u
#define ES31_MIN_SHARED 16384u
#define ES31_MIN_BLOCK_SIZE (1ull << 27)
#define ES31_MIN_STORAGE_BLOCKS 4u
#define ES31_MAX_OFFSET_ALIGN 256u

/* The 1-D local size kernels use: large enough to keep GPUs busy, within
 * every limit (and a power of two so grids divide evenly). */
#define GS_PREFERRED_LOCAL_SIZE 256u

/* GL_ARM_shader_core_properties (Arm's Mali driver): shader cores in use. */
#define GS_GL_SHADER_CORE_ACTIVE_COUNT_ARM 0x96F1

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static uint32_t get_u32(GLenum e)
{
    GLint v = 0;
    glGetIntegerv(e, &v);
    return v > 0 ? (uint32_t)v : 0;
}

/* The shader cores Arm's driver runs compute work on, or 0 where the
 * device does not say (a driver that lists the extension but refuses the
 * query leaves no GL error behind). */
static uint32_t arm_active_cores(const gs_gl_device *dev)
{
    if (dev->is_software || !gs_gl_has_extension(dev, "GL_ARM_shader_core_properties"))
        return 0;
    uint32_t n = get_u32(GS_GL_SHADER_CORE_ACTIVE_COUNT_ARM);
    if (glGetError() != GL_NO_ERROR)
        return 0;
    return n;
}

static uint32_t get_u32_i(GLenum e, GLuint i)
{
    GLint v = 0;
    glGetIntegeri_v(e, i, &v);
    return v > 0 ? (uint32_t)v : 0;
}

static uint32_t pow2_floor(uint32_t x)
{
    uint32_t p = 1;
    while (p * 2 <= x && p < 0x80000000u)
        p *= 2;
    return p;
}

/* The field-multiply variant GLSTARK_FIELD_MUL=auto picks. */
static glstark_field_mul auto_field_mul(const gs_gl_device *dev)
{
    /* WIDE wherever a 32x32->64 multiply is a native instruction: SHIFT
     * measured slower on the H200 (2157 -> 1328 G mul/s, Poseidon2 1922 ->
     * 621 M perms/s: NVIDIA's wide multiply is one instruction, the shift
     * form about fourteen) and on llvmpipe (10-40%). SHIFT on V3D (Raspberry
     * Pi 4 and 5), whose Mesa driver lowers 32-bit multiplies and their high
     * half to 24-bit pieces (docs/design.md, 'Pitfalls we met on GLES
     * compute'): there it saves two of the
     * three emulated multiplies for a dozen simple operations (not measured
     * here: no Pi on hand). */
    return strstr(dev->renderer, "V3D") ? GLSTARK_FIELD_MUL_SHIFT : GLSTARK_FIELD_MUL_WIDE;
}

/* Subgroup reductions (glsl/group_sum.glsl) need subgroupShuffleXor in
 * compute shaders and power-of-two subgroups of at least 4 lanes. AUTO uses
 * them where offered, OFF never, ON insists. Floor mode has none
 * (subgroup_size 0). */
static glstark_status choose_subgroups(const gs_gl_device *dev, gs_gl_caps *c, gs_error *err)
{
    const uint32_t need = GL_SUBGROUP_FEATURE_BASIC_BIT_KHR | GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR;
    const char *why = NULL;
    if (c->floor_mode)
        why = "floor mode (GLSTARK_LIMITS=es31-min) allows nothing beyond OpenGL ES 3.1";
    else if (!gs_gl_has_extension(dev, "GL_KHR_shader_subgroup"))
        why = "the driver does not offer GL_KHR_shader_subgroup";
    else if ((c->subgroup_features & need) != need)
        why = "the driver offers no subgroup shuffles in compute shaders";
    else if (c->subgroup_size < 4 || (c->subgroup_size & (c->subgroup_size - 1)))
        why = "its subgroup size is not a power of two of at least 4";
    c->subgroup_reduce = 0;
    if (dev->cfg.subgroups == GLSTARK_SUBGROUPS_OFF)
        return GLSTARK_OK;
    if (!why) {
        c->subgroup_reduce = 1;
        return GLSTARK_OK;
    }
    if (dev->cfg.subgroups == GLSTARK_SUBGROUPS_ON)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "subgroup kernels were required (GLSTARK_SUBGROUPS=on or the subgroups option) but %s on "
                            "'%s'; use auto or off",
                            why, dev->renderer);
    return GLSTARK_OK;
}

/* Background compiles need the driver's own compiler threads
 * (GL_KHR_parallel_shader_compile); without them a prefetch would only move
 * the same serial compiles earlier. Software renderers are left out unless
 * asked for (llvmpipe offers the extension but compiles on the calling
 * thread: 35 programs at every device open cost 0.04 s with Mesa's disk
 * cache, 0.8 s without, for no overlap). This says they are allowed; the
 * GLES engine starts them only where the driver's cache is cold
 * (gles_prepare), and the first prefetch starts the driver's threads
 * (gs_gl_program_prefetch). Floor
 * mode keeps them: they change when programs compile, not what a kernel
 * may use. */
static void choose_background_compile(const gs_gl_device *dev, gs_gl_caps *c)
{
    c->background_compile = 0;
    if (dev->cfg.precompile == GLSTARK_PRECOMPILE_OFF || !gs_gl_has_extension(dev, "GL_KHR_parallel_shader_compile"))
        return;
    if (dev->is_software && dev->cfg.precompile != GLSTARK_PRECOMPILE_ON)
        return;
    c->background_compile = eglGetProcAddress("glMaxShaderCompilerThreadsKHR") != NULL;
}

glstark_status gs_gl_caps_read(gs_gl_device *dev, gs_error *err)
{
    gs_gl_caps c;
    memset(&c, 0, sizeof c);
    c.robustness = dev->caps.robustness;
    while (glGetError() != GL_NO_ERROR) {
    }
    c.max_invocations = get_u32(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
    for (GLuint i = 0; i < 3; i++) {
        c.max_group_size[i] = get_u32_i(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i);
        c.max_group_count[i] = get_u32_i(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i);
    }
    c.max_shared_bytes = get_u32(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE);
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    c.max_binding_bytes = block > 0 ? (uint64_t)block : 0;
    c.max_storage_blocks = get_u32(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS);
    c.max_storage_bindings = get_u32(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS);
    c.binding_offset_align = get_u32(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT);
    if (gs_gl_has_extension(dev, "GL_KHR_shader_subgroup")) {
        c.subgroup_size = get_u32(GL_SUBGROUP_SIZE_KHR);
        if (get_u32(GL_SUBGROUP_SUPPORTED_STAGES_KHR) & GL_COMPUTE_SHADER_BIT)
            c.subgroup_features = get_u32(GL_SUBGROUP_SUPPORTED_FEATURES_KHR);
    }
    c.persistent_map = gs_gl_has_extension(dev, "GL_EXT_buffer_storage");
    /* AUTO: the work buffer. Shared-memory slots (a few lanes per work group
     * for Keccak's 644 live slots) measured slower on the H200: round 0 of
     * keccakf-1024 446 ms against 130 ms, the multilinear rounds 381 against
     * 311 ms (docs/performance.md); no other GPU was measured. */
    c.slots = dev->cfg.slots == GLSTARK_SLOTS_SHARED ? GLSTARK_SLOTS_SHARED : GLSTARK_SLOTS_GLOBAL;
    /* llvmpipe advertises timer queries but returns ~1 ns for real work
     * (docs/design.md, 'Pitfalls we met on GLES compute'), so software renderers never use them. */
    if (dev->GenQueries && dev->GetQueryObjectui64v && !dev->is_software) {
        PFNGLGETQUERYIVEXTPROC get_queryiv = (PFNGLGETQUERYIVEXTPROC)eglGetProcAddress("glGetQueryivEXT");
        GLint bits = 0;
        if (get_queryiv)
            get_queryiv(GL_TIME_ELAPSED_EXT, GL_QUERY_COUNTER_BITS_EXT, &bits);
        c.timer_queries_valid = bits > 0;
    }
    GLenum e = glGetError();
    if (e != GL_NO_ERROR)
        return gs_error_set(err, GLSTARK_ERR_GPU, "reading device limits on '%s' raised GL error 0x%04x", dev->renderer,
                            (unsigned)e);
    if (c.max_invocations < ES31_MIN_INVOCATIONS || c.max_storage_blocks < ES31_MIN_STORAGE_BLOCKS ||
        c.binding_offset_align == 0 || c.max_group_count[0] == 0)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "'%s' reports compute limits below OpenGL ES 3.1 (invocations %u, storage blocks %u); "
                            "update the driver or choose another device (GLSTARK_DRM_NODE)",
                            dev->renderer, c.max_invocations, c.max_storage_blocks);
    dev->hw_caps = c;

    if (dev->cfg.limits_floor) {
        c.floor_mode = 1;
        c.max_invocations = ES31_MIN_INVOCATIONS;
        c.max_group_size[0] = min_u32(c.max_group_size[0], ES31_MIN_GROUP_SIZE_XY);
        c.max_group_size[1] = min_u32(c.max_group_size[1], ES31_MIN_GROUP_SIZE_XY);
        c.max_group_size[2] = min_u32(c.max_group_size[2], ES31_MIN_GROUP_SIZE_Z);
        for (int i = 0; i < 3; i++)
            c.max_group_count[i] = min_u32(c.max_group_count[i], ES31_MIN_GROUP_COUNT);
        c.max_shared_bytes = min_u32(c.max_shared_bytes, ES31_MIN_SHARED);
        if (c.max_binding_bytes > ES31_MIN_BLOCK_SIZE)
            c.max_binding_bytes = ES31_MIN_BLOCK_SIZE;
        c.max_storage_blocks = ES31_MIN_STORAGE_BLOCKS;
        /* The largest alignment a conformant driver may demand. */
        if (c.binding_offset_align < ES31_MAX_OFFSET_ALIGN)
            c.binding_offset_align = ES31_MAX_OFFSET_ALIGN;
        c.subgroup_size = 0;
        c.subgroup_features = 0;
    }
    if (dev->cfg.max_binding_bytes && dev->cfg.max_binding_bytes < c.max_binding_bytes) {
        /* Keep the knob a multiple of the alignment so chunks stay aligned. */
        uint64_t v = dev->cfg.max_binding_bytes - dev->cfg.max_binding_bytes % c.binding_offset_align;
        if (v < c.binding_offset_align)
            v = c.binding_offset_align;
        c.max_binding_bytes = v;
    }
    if (dev->cfg.max_group_count)
        for (int i = 0; i < 3; i++)
            c.max_group_count[i] = min_u32(c.max_group_count[i], dev->cfg.max_group_count);
    c.local_size = pow2_floor(min_u32(GS_PREFERRED_LOCAL_SIZE, min_u32(c.max_invocations, c.max_group_size[0])));
    /* Desktop-class: hardware offering bindings of 1 GiB or more (an H200
     * offers 2 GiB; floor mode caps the binding at 128 MiB and so is never
     * desktop-class). Such devices get larger interpreter scratch and
     * budgets and split every constraint evaluation into groups (128 in the
     * multilinear rounds, 16 in round 0: src/engine/gles/zerocheck_gles.c). */
    c.desktop_class = !dev->is_software && c.max_binding_bytes >= ((uint64_t)1 << 30);
    /* the same rule on the limits the driver reported: floor mode on an
     * H200 runs the small limits of a board, not its speed, and a time
     * budget there only adds latency-bound dispatches (keccakf-1024 with
     * the floor: 11 s against 1.9 s without the budget) */
    c.fast_class = !dev->is_software && dev->hw_caps.max_binding_bytes >= ((uint64_t)1 << 30);
    /* llvmpipe runs each work group on one of its threads; Arm's driver
     * reports its shader cores; other GPUs' cores are not in GLES, so 1
     * there (their rate then stands for one group) */
    c.parallel_groups = gs_parallel_groups(dev->is_software, dev->cfg.software_threads, arm_active_cores(dev));
    c.parallel_reported = dev->is_software || arm_active_cores(dev) > 0;
    c.interp_groups = dev->cfg.interp_groups ? dev->cfg.interp_groups : c.desktop_class ? 256 : 1;
    c.field_mul = dev->cfg.field_mul != GLSTARK_FIELD_MUL_AUTO ? dev->cfg.field_mul : auto_field_mul(dev);
    /* DFT blocks: the largest power of two of words that fits shared memory,
     * at most 2^11 (8 KiB; the 16 KiB floor allows 2^12, but 2^12 measured
     * slower on the H200: 2^22 x 42 in 4.17 against 3.83 ms). The test knob
     * may lower it (to 2^4), so many register passes run on any GPU. */
    c.dft_block_log = 1;
    while (c.dft_block_log < 11 && (4u << (c.dft_block_log + 1)) <= c.max_shared_bytes)
        c.dft_block_log++;
    if (dev->cfg.dft_block_log && dev->cfg.dft_block_log < c.dft_block_log)
        c.dft_block_log = dev->cfg.dft_block_log;
    glstark_status st = choose_subgroups(dev, &c, err);
    if (st)
        return st;
    choose_background_compile(dev, &c);
    dev->caps = c;
    return GLSTARK_OK;
}

#if defined(GLSTARK_DEBUG_BUILD)
static void GL_APIENTRY debug_cb(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                 const GLchar *message, const void *user)
{
    (void)source;
    (void)length;
    const gs_gl_device *dev = user;
    glstark_log_level lvl = GLSTARK_LOG_DEBUG;
    if (severity == GL_DEBUG_SEVERITY_HIGH_KHR || type == GL_DEBUG_TYPE_ERROR_KHR)
        lvl = GLSTARK_LOG_ERROR;
    else if (severity == GL_DEBUG_SEVERITY_MEDIUM_KHR)
        lvl = GLSTARK_LOG_WARN;
    else if (severity == GL_DEBUG_SEVERITY_LOW_KHR)
        lvl = GLSTARK_LOG_INFO;
    gs_gl_log(dev, lvl, "GL debug (id %u): %s", id, message);
}
#endif

void gs_gl_debug_setup(gs_gl_device *dev)
{
#if defined(GLSTARK_DEBUG_BUILD)
    if (!dev->cfg.log || !gs_gl_has_extension(dev, "GL_KHR_debug"))
        return;
    PFNGLDEBUGMESSAGECALLBACKKHRPROC cb =
        (PFNGLDEBUGMESSAGECALLBACKKHRPROC)eglGetProcAddress("glDebugMessageCallbackKHR");
    if (!cb)
        return;
    /* The device struct outlives the context, so it is a valid user pointer. */
    cb(debug_cb, dev);
    glEnable(GL_DEBUG_OUTPUT_KHR);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR);
    dev->has_debug = 1;
#else
    (void)dev;
#endif
}

glstark_status gs_gl_check(gs_gl_device *dev, gs_error *err, const char *what)
{
    if (dev->context_lost)
        return gs_error_set(err, GLSTARK_ERR_CONTEXT_LOST,
                            "%s: the GPU context was lost earlier; destroy this device and open a new one", what);
    if (dev->GetGraphicsResetStatus) {
        GLenum r = dev->GetGraphicsResetStatus();
        if (r != GL_NO_ERROR) {
            dev->context_lost = 1;
            const char *who = r == GL_GUILTY_CONTEXT_RESET_KHR     ? "caused by this context (a kernel ran too long?)"
                              : r == GL_INNOCENT_CONTEXT_RESET_KHR ? "caused by another context"
                                                                   : "cause unknown";
            return gs_error_set(err, GLSTARK_ERR_CONTEXT_LOST,
                                "%s: the GPU reset the context (%s); destroy this device and open a new one, and "
                                "split long kernels into smaller dispatches",
                                what, who);
        }
    }
    GLenum e = glGetError();
    if (e == GL_NO_ERROR)
        return GLSTARK_OK;
    while (glGetError() != GL_NO_ERROR) {
    }
    if (e == GL_CONTEXT_LOST_KHR) {
        dev->context_lost = 1;
        return gs_error_set(err, GLSTARK_ERR_CONTEXT_LOST,
                            "%s: GL_CONTEXT_LOST; destroy this device and open a new one", what);
    }
    if (e == GL_OUT_OF_MEMORY)
        return gs_error_set(err, GLSTARK_ERR_DEVICE_MEMORY,
                            "%s: GL_OUT_OF_MEMORY on '%s'; free buffers or prove a smaller statement", what,
                            dev->renderer);
    return gs_error_set(err, GLSTARK_ERR_GPU, "%s: GL error 0x%04x on '%s'", what, (unsigned)e, dev->renderer);
}
