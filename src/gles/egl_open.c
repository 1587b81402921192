/* Headless device open: GBM render nodes, then EGL devices (hardware before
 * software), then Mesa surfaceless; an ES 3.2 context else 3.1, made current
 * without a surface. Every attempt appends a line to a report so that, when
 * nothing opens, the caller learns what was tried and why each path failed. */
#include "gles/gl_device.h"


#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gbm.h>

/* The ES 3.1 / 3.2 context versions we ask for, best first. */
static const int context_minor[] = {2, 1};

typedef struct attempt_log {
    char text[GS_ERROR_MSG_MAX - 512];
    size_t len;
} attempt_log;

static void note(attempt_log *log, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void note(attempt_log *log, const char *fmt, ...)
{
    if (log->len >= sizeof log->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(log->text + log->len, sizeof log->text - log->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        log->len += (size_t)n < sizeof log->text - log->len ? (size_t)n : sizeof log->text - log->len - 1;
}

int gs_gl_has_token(const char *list, const char *name)
{
    if (!list || !name || !*name)
        return 0;
    size_t n = strlen(name);
    const char *p = list;
    while ((p = strstr(p, name)) != NULL) {
        int start_ok = p == list || p[-1] == ' ';
        int end_ok = p[n] == '\0' || p[n] == ' ';
        if (start_ok && end_ok)
            return 1;
        p += n;
    }
    return 0;
}

void gs_gl_log(const gs_gl_device *dev, glstark_log_level level, const char *fmt, ...)
{
    if (!dev || !dev->cfg.log)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    dev->cfg.log(dev->cfg.log_user, level, buf);
}

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error";
    }
}

/* ---------------------------------------------------------------------------
 * Context creation on an initialised display */

static int renderer_is_software(const char *renderer)
{
    static const char *const names[] = {"llvmpipe", "softpipe", "swrast", "SwiftShader", "Software Rasterizer", NULL};
    for (int i = 0; names[i]; i++)
        if (strstr(renderer, names[i]))
            return 1;
    return 0;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "(unknown)");
}

/* Creates a context on dev->dpy (already initialised) and makes it current.
 * On failure writes why into `why` and leaves no context behind. */
static int make_context(gs_gl_device *dev, char *why, size_t why_n)
{
    EGLDisplay dpy = dev->dpy;
    const char *dext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!gs_gl_has_token(dext, "EGL_KHR_surfaceless_context")) {
        snprintf(why, why_n, "display lacks EGL_KHR_surfaceless_context");
        return 0;
    }
    if (!eglBindAPI(EGL_OPENGL_ES_API)) {
        snprintf(why, why_n, "eglBindAPI(EGL_OPENGL_ES_API) failed (%s)", egl_error_name(eglGetError()));
        return 0;
    }
    EGLConfig cfg = EGL_NO_CONFIG_KHR;
    if (!gs_gl_has_token(dext, "EGL_KHR_no_config_context")) {
        const EGLint cattr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
        EGLint n = 0;
        if (!eglChooseConfig(dpy, cattr, &cfg, 1, &n) || n < 1) {
            snprintf(why, why_n, "no EGL config with EGL_OPENGL_ES3_BIT");
            return 0;
        }
    }
    int robust_ok = gs_gl_has_token(dext, "EGL_EXT_create_context_robustness");
    EGLint last = EGL_SUCCESS;
    for (size_t v = 0; v < sizeof context_minor / sizeof context_minor[0]; v++) {
        for (int robust = robust_ok; robust >= 0; robust--) {
            EGLint attr[16];
            int k = 0;
            attr[k++] = EGL_CONTEXT_MAJOR_VERSION;
            attr[k++] = 3;
            attr[k++] = EGL_CONTEXT_MINOR_VERSION;
            attr[k++] = context_minor[v];
            if (robust) {
                attr[k++] = EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT;
                attr[k++] = EGL_TRUE;
                attr[k++] = EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT;
                attr[k++] = EGL_LOSE_CONTEXT_ON_RESET_EXT;
            }
            attr[k++] = EGL_NONE;
            EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, attr);
            if (ctx == EGL_NO_CONTEXT) {
                last = eglGetError();
                continue;
            }
            if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
                last = eglGetError();
                eglDestroyContext(dpy, ctx);
                continue;
            }
            dev->ctx = ctx;
            dev->caps.robustness = robust;
            return 1;
        }
    }
    snprintf(why, why_n, "no OpenGL ES 3.2 or 3.1 context (%s)", egl_error_name(last));
    return 0;
}

static void release_display(gs_gl_device *dev)
{
    if (dev->dpy != EGL_NO_DISPLAY) {
        eglMakeCurrent(dev->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (dev->ctx != EGL_NO_CONTEXT)
            eglDestroyContext(dev->dpy, dev->ctx);
        /* Device and surfaceless displays are process-wide singletons that
         * another glstark device may still use: terminating would destroy its
         * context too, so only displays we own alone (GBM) are terminated. */
        if (dev->terminate_display)
            eglTerminate(dev->dpy);
    }
    dev->dpy = EGL_NO_DISPLAY;
    dev->ctx = EGL_NO_CONTEXT;
    dev->terminate_display = 0;
    if (dev->gbm_dev && dev->gbm_lib) {
        void (*destroy)(struct gbm_device *) = (void (*)(struct gbm_device *))dlsym(dev->gbm_lib, "gbm_device_destroy");
        if (destroy)
            destroy((struct gbm_device *)dev->gbm_dev);
    }
    dev->gbm_dev = NULL;
    if (dev->drm_fd >= 0)
        close(dev->drm_fd);
    dev->drm_fd = -1;
}

/* Initialises dev->dpy, creates the context, reads what the driver says and
 * applies the software refusal. Returns 1 when the device is usable. */
static int finish_display(gs_gl_device *dev, attempt_log *log, const char *label)
{
    EGLint major = 0, minor = 0;
    if (!eglInitialize(dev->dpy, &major, &minor)) {
        note(log, "  - %s: eglInitialize failed (%s)\n", label, egl_error_name(eglGetError()));
        dev->dpy = EGL_NO_DISPLAY;
        release_display(dev);
        return 0;
    }
    char why[256];
    if (!make_context(dev, why, sizeof why)) {
        note(log, "  - %s: %s\n", label, why);
        release_display(dev);
        return 0;
    }
    copy_str(dev->egl_vendor, sizeof dev->egl_vendor, eglQueryString(dev->dpy, EGL_VENDOR));
    copy_str(dev->egl_version, sizeof dev->egl_version, eglQueryString(dev->dpy, EGL_VERSION));
    copy_str(dev->gl_vendor, sizeof dev->gl_vendor, (const char *)glGetString(GL_VENDOR));
    copy_str(dev->renderer, sizeof dev->renderer, (const char *)glGetString(GL_RENDERER));
    copy_str(dev->gl_version, sizeof dev->gl_version, (const char *)glGetString(GL_VERSION));
    copy_str(dev->glsl_version, sizeof dev->glsl_version, (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
    glGetIntegerv(GL_MAJOR_VERSION, &dev->gl_major);
    glGetIntegerv(GL_MINOR_VERSION, &dev->gl_minor);
    if (dev->gl_major < 3 || (dev->gl_major == 3 && dev->gl_minor < 1)) {
        note(log, "  - %s: context is '%s', below OpenGL ES 3.1\n", label, dev->gl_version);
        release_display(dev);
        return 0;
    }
    dev->is_software = dev->is_software || renderer_is_software(dev->renderer);
    if (dev->is_software && dev->cfg.require_hw) {
        note(log, "  - %s: renderer '%s' is a software renderer, refused because hardware was required "
                  "(require_hw option or GLSTARK_REQUIRE_HW=1)\n",
             label, dev->renderer);
        release_display(dev);
        return 0;
    }
    /* device_index k > 0: the k-th hardware device in the order they are
     * tried; the ones before it are opened, counted and closed again */
    if (dev->cfg.device_index > 0) {
        if (dev->is_software) {
            note(log, "  - %s: software renderer '%s', not counted (device index %u asks for a hardware one)\n",
                 label, dev->renderer, dev->cfg.device_index);
            release_display(dev);
            return 0;
        }
        if (dev->hw_skipped < dev->cfg.device_index) {
            note(log, "  - %s: hardware device %u ('%s'), passed over for device index %u\n", label,
                 dev->hw_skipped, dev->renderer, dev->cfg.device_index);
            dev->hw_skipped++;
            release_display(dev);
            return 0;
        }
    }
    snprintf(dev->platform_path, sizeof dev->platform_path, "%s", label);
    return 1;
}

static PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display_fn(void)
{
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!gs_gl_has_token(cext, "EGL_EXT_platform_base"))
        return NULL;
    return (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
}

/* ---------------------------------------------------------------------------
 * Path 1: GBM on render nodes */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int try_gbm_node(gs_gl_device *dev, attempt_log *log, const char *node, PFNEGLGETPLATFORMDISPLAYEXTPROC gpd)
{
    char label[GS_GL_INFO_MAX];
    snprintf(label, sizeof label, "gbm %s", node);
    int fd = open(node, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        note(log, "  - %s: open failed (%s)%s\n", label, strerror(e),
             e == EACCES ? "; add your user to the 'render' group (sudo usermod -aG render $USER, then log in again)"
                         : "");
        return 0;
    }
    struct gbm_device *(*create)(int) = (struct gbm_device * (*)(int)) dlsym(dev->gbm_lib, "gbm_create_device");
    if (!create) {
        note(log, "  - %s: libgbm has no gbm_create_device\n", label);
        close(fd);
        return 0;
    }
    struct gbm_device *g = create(fd);
    if (!g) {
        note(log, "  - %s: gbm_create_device failed (no GBM backend for this driver?)\n", label);
        close(fd);
        return 0;
    }
    dev->drm_fd = fd;
    dev->gbm_dev = g;
    dev->dpy = gpd(EGL_PLATFORM_GBM_KHR, g, NULL);
    if (dev->dpy == EGL_NO_DISPLAY) {
        note(log, "  - %s: eglGetPlatformDisplayEXT(EGL_PLATFORM_GBM_KHR) failed (%s)\n", label,
             egl_error_name(eglGetError()));
        release_display(dev);
        return 0;
    }
    dev->terminate_display = 1;
    dev->platform = GLSTARK_PLATFORM_GBM;
    return finish_display(dev, log, label);
}

static int try_gbm(gs_gl_device *dev, attempt_log *log, PFNEGLGETPLATFORMDISPLAYEXTPROC gpd)
{
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!gpd || !(gs_gl_has_token(cext, "EGL_KHR_platform_gbm") || gs_gl_has_token(cext, "EGL_MESA_platform_gbm"))) {
        note(log, "  - gbm: EGL lacks EGL_EXT_platform_base with EGL_KHR_platform_gbm (not a Mesa EGL?)\n");
        return 0;
    }
    dev->gbm_lib = dlopen("libgbm.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!dev->gbm_lib) {
        note(log, "  - gbm: libgbm.so.1 not loadable (%s); install libgbm1\n", dlerror());
        return 0;
    }
    if (dev->cfg.drm_node)
        return try_gbm_node(dev, log, dev->cfg.drm_node, gpd);

    DIR *d = opendir("/dev/dri");
    if (!d) {
        note(log, "  - gbm: no /dev/dri (%s): no GPU kernel driver is loaded, or the container does not pass "
                  "/dev/dri through\n",
             strerror(errno));
        return 0;
    }
    char *nodes[64];
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < 64) {
        if (!strncmp(e->d_name, "renderD", 7)) {
            size_t len = strlen(e->d_name) + 10;
            nodes[count] = malloc(len);
            if (nodes[count])
                snprintf(nodes[count++], len, "/dev/dri/%s", e->d_name);
        }
    }
    closedir(d);
    if (count == 0)
        note(log, "  - gbm: /dev/dri has no renderD* node\n");
    qsort(nodes, count, sizeof nodes[0], cmp_str);
    int ok = 0;
    for (size_t i = 0; i < count; i++) {
        if (!ok)
            ok = try_gbm_node(dev, log, nodes[i], gpd);
        free(nodes[i]);
    }
    return ok;
}

/* ---------------------------------------------------------------------------
 * Path 2: EGL devices */

static int try_devices(gs_gl_device *dev, attempt_log *log, PFNEGLGETPLATFORMDISPLAYEXTPROC gpd)
{
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!gpd || !gs_gl_has_token(cext, "EGL_EXT_platform_device") ||
        !(gs_gl_has_token(cext, "EGL_EXT_device_enumeration") || gs_gl_has_token(cext, "EGL_EXT_device_base"))) {
        note(log, "  - device: EGL lacks EGL_EXT_platform_device / EGL_EXT_device_enumeration\n");
        return 0;
    }
    PFNEGLQUERYDEVICESEXTPROC query = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLQUERYDEVICESTRINGEXTPROC qstr = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    if (!query || !qstr) {
        note(log, "  - device: eglQueryDevicesEXT not available\n");
        return 0;
    }
    EGLDeviceEXT devs[32];
    EGLint n = 0;
    if (!query(32, devs, &n) || n <= 0) {
        note(log, "  - device: eglQueryDevicesEXT found no devices\n");
        return 0;
    }
    /* Hardware devices first (a DRM node or CUDA), then unknown, software last. */
    for (int pass = 0; pass < 3; pass++) {
        for (EGLint i = 0; i < n; i++) {
            const char *ext = qstr(devs[i], EGL_EXTENSIONS);
            int sw = gs_gl_has_token(ext, "EGL_MESA_device_software");
            int hw = gs_gl_has_token(ext, "EGL_EXT_device_drm_render_node") ||
                     gs_gl_has_token(ext, "EGL_EXT_device_drm") || gs_gl_has_token(ext, "EGL_NV_device_cuda");
            int cls = sw ? 2 : hw ? 0 : 1;
            if (cls != pass)
                continue;
            const char *node = NULL;
            if (gs_gl_has_token(ext, "EGL_EXT_device_drm_render_node"))
                node = qstr(devs[i], EGL_DRM_RENDER_NODE_FILE_EXT);
            char label[GS_GL_INFO_MAX];
            snprintf(label, sizeof label, "device #%d (%s%s%s)", (int)i,
                     sw ? "software" : hw ? "hardware" : "unknown kind", node ? " " : "", node ? node : "");
            if (dev->cfg.drm_node && (!node || strcmp(node, dev->cfg.drm_node) != 0)) {
                note(log, "  - %s: skipped, not the requested node %s\n", label, dev->cfg.drm_node);
                continue;
            }
            if (sw && dev->cfg.require_hw) {
                note(log, "  - %s: skipped, software device and hardware was required (GLSTARK_REQUIRE_HW)\n", label);
                continue;
            }
            dev->dpy = gpd(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
            if (dev->dpy == EGL_NO_DISPLAY) {
                note(log, "  - %s: eglGetPlatformDisplayEXT failed (%s)\n", label, egl_error_name(eglGetError()));
                continue;
            }
            dev->platform = GLSTARK_PLATFORM_DEVICE;
            dev->is_software = sw;
            if (finish_display(dev, log, label))
                return 1;
            dev->is_software = 0;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Path 3: Mesa surfaceless */

static int try_surfaceless(gs_gl_device *dev, attempt_log *log, PFNEGLGETPLATFORMDISPLAYEXTPROC gpd)
{
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!gpd || !gs_gl_has_token(cext, "EGL_MESA_platform_surfaceless")) {
        note(log, "  - surfaceless: EGL lacks EGL_MESA_platform_surfaceless (install Mesa's libegl-mesa0)\n");
        return 0;
    }
    if (dev->cfg.drm_node) {
        note(log, "  - surfaceless: skipped, a DRM node was requested (%s)\n", dev->cfg.drm_node);
        return 0;
    }
    dev->dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dev->dpy == EGL_NO_DISPLAY) {
        note(log, "  - surfaceless: eglGetPlatformDisplayEXT failed (%s)\n", egl_error_name(eglGetError()));
        return 0;
    }
    dev->platform = GLSTARK_PLATFORM_SURFACELESS;
    return finish_display(dev, log, "surfaceless");
}

/* ---------------------------------------------------------------------------
 * Extension entry points and the relevant-extension summary */

static void bind_entry_points(gs_gl_device *dev)
{
    if (gs_gl_has_extension(dev, "GL_KHR_robustness")) {
        dev->GetGraphicsResetStatus =
            (PFNGLGETGRAPHICSRESETSTATUSKHRPROC)eglGetProcAddress("glGetGraphicsResetStatusKHR");
    } else if (gs_gl_has_extension(dev, "GL_EXT_robustness")) {
        dev->GetGraphicsResetStatus =
            (PFNGLGETGRAPHICSRESETSTATUSKHRPROC)eglGetProcAddress("glGetGraphicsResetStatusEXT");
    }
    if (!dev->GetGraphicsResetStatus)
        dev->caps.robustness = 0;
    if (gs_gl_has_extension(dev, "GL_EXT_buffer_storage"))
        dev->BufferStorage = (PFNGLBUFFERSTORAGEEXTPROC)eglGetProcAddress("glBufferStorageEXT");
    if (gs_gl_has_extension(dev, "GL_EXT_disjoint_timer_query")) {
        dev->GenQueries = (PFNGLGENQUERIESEXTPROC)eglGetProcAddress("glGenQueriesEXT");
        dev->DeleteQueries = (PFNGLDELETEQUERIESEXTPROC)eglGetProcAddress("glDeleteQueriesEXT");
        dev->BeginQuery = (PFNGLBEGINQUERYEXTPROC)eglGetProcAddress("glBeginQueryEXT");
        dev->EndQuery = (PFNGLENDQUERYEXTPROC)eglGetProcAddress("glEndQueryEXT");
        dev->GetQueryObjectui64v = (PFNGLGETQUERYOBJECTUI64VEXTPROC)eglGetProcAddress("glGetQueryObjectui64vEXT");
        dev->GetQueryObjectuiv = (PFNGLGETQUERYOBJECTUIVEXTPROC)eglGetProcAddress("glGetQueryObjectuivEXT");
        dev->QueryCounter = (PFNGLQUERYCOUNTEREXTPROC)eglGetProcAddress("glQueryCounterEXT");
    }
    static const char *const interesting[] = {
        "GL_KHR_debug", "GL_KHR_robustness", "GL_EXT_robustness", "GL_KHR_shader_subgroup",
        "GL_EXT_disjoint_timer_query", "GL_EXT_buffer_storage", "GL_OES_shader_image_atomic",
        "GL_EXT_shader_integer_mix", "GL_OES_get_program_binary", "GL_KHR_parallel_shader_compile", NULL};
    size_t len = 0;
    dev->extensions[0] = '\0';
    for (int i = 0; interesting[i]; i++) {
        if (gs_gl_has_extension(dev, interesting[i]) && len + strlen(interesting[i]) + 2 < sizeof dev->extensions)
            len += (size_t)snprintf(dev->extensions + len, sizeof dev->extensions - len, "%s%s", len ? " " : "",
                                    interesting[i]);
    }
    static const char *const egl_interesting[] = {"EGL_KHR_no_config_context", "EGL_KHR_surfaceless_context",
                                                  "EGL_EXT_create_context_robustness", NULL};
    const char *dext = eglQueryString(dev->dpy, EGL_EXTENSIONS);
    for (int i = 0; egl_interesting[i]; i++) {
        if (gs_gl_has_token(dext, egl_interesting[i]) && len + strlen(egl_interesting[i]) + 2 < sizeof dev->extensions)
            len += (size_t)snprintf(dev->extensions + len, sizeof dev->extensions - len, "%s%s", len ? " " : "",
                                    egl_interesting[i]);
    }
}

int gs_gl_has_extension(const gs_gl_device *dev, const char *name)
{
    (void)dev;
    /* ES 3.0+ lists extensions one by one; no substring pitfalls there. */
    GLint n = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && !strcmp(e, name))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Open / close */

static const char *platform_word(glstark_platform p)
{
    switch (p) {
    case GLSTARK_PLATFORM_GBM: return "gbm";
    case GLSTARK_PLATFORM_DEVICE: return "device";
    case GLSTARK_PLATFORM_SURFACELESS: return "surfaceless";
    default: return "auto";
    }
}

glstark_status gs_gl_device_open(const gs_device_config *cfg, gs_gl_device **out, gs_error *err)
{
    *out = NULL;
    gs_gl_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "device open: out of host memory");
    dev->drm_fd = -1;
    dev->dpy = EGL_NO_DISPLAY;
    dev->ctx = EGL_NO_CONTEXT;
    dev->cfg = *cfg;
    glstark_status st;
    attempt_log log = {{0}, 0};
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd = get_platform_display_fn();
    if (!gpd)
        note(&log, "  - EGL has no EGL_EXT_platform_base (eglGetPlatformDisplayEXT); is libEGL from glvnd/Mesa "
                   "installed?\n");
    glstark_platform want = dev->cfg.platform;
    int ok = 0;
    if (!ok && (want == GLSTARK_PLATFORM_AUTO || want == GLSTARK_PLATFORM_GBM))
        ok = try_gbm(dev, &log, gpd);
    /* with a device index, the indices belong to the first path that found
     * hardware: the next paths would list the same GPUs again */
    if (!ok && (want == GLSTARK_PLATFORM_AUTO || want == GLSTARK_PLATFORM_DEVICE) && !dev->hw_skipped)
        ok = try_devices(dev, &log, gpd);
    if (!ok && (want == GLSTARK_PLATFORM_AUTO || want == GLSTARK_PLATFORM_SURFACELESS) && !dev->hw_skipped)
        ok = try_surfaceless(dev, &log, gpd);
    if (!ok) {
        if (dev->gbm_lib)
            dlclose(dev->gbm_lib);
        char index_words[96] = "";
        if (dev->cfg.device_index > 0)
            snprintf(index_words, sizeof index_words, ", device index %u: %u hardware device%s found",
                     dev->cfg.device_index, dev->hw_skipped, dev->hw_skipped == 1 ? "" : "s");
        st = gs_error_set(
            err, GLSTARK_ERR_NO_DEVICE,
            "no OpenGL ES 3.1 device could be opened (platform %s%s%s%s%s). Tried:\n%s"
            "What to do: install Mesa (libegl-mesa0 libgl1-mesa-dri libgbm1) or your GPU vendor's EGL driver; "
            "make /dev/dri/renderD* readable (add the user to the 'render' group); unset GLSTARK_PLATFORM / "
            "GLSTARK_DRM_NODE to try every path; unset GLSTARK_REQUIRE_HW to accept a software renderer.",
            platform_word(want), dev->cfg.drm_node ? ", node " : "", dev->cfg.drm_node ? dev->cfg.drm_node : "",
            dev->cfg.require_hw ? ", hardware required" : "", index_words, log.len ? log.text : "  (nothing)\n");
        free(dev);
        return st;
    }
    bind_entry_points(dev);
    gs_gl_debug_setup(dev);
    st = gs_gl_caps_read(dev, err);
    if (!st) {
        if (dev->cfg.profile)
            st = gs_gl_profile_enable(dev, err);
    }
    if (st) {
        gs_gl_device_close(dev);
        return st;
    }
    if (log.len)
        gs_gl_log(dev, GLSTARK_LOG_INFO, "opened %s after:\n%s", dev->platform_path, log.text);
    *out = dev;
    return GLSTARK_OK;
}

glstark_status gs_gl_device_make_current(gs_gl_device *dev, gs_error *err)
{
    if (eglGetCurrentContext() == dev->ctx)
        return GLSTARK_OK;
    if (!eglMakeCurrent(dev->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, dev->ctx))
        return gs_error_set(err, GLSTARK_ERR_GPU,
                            "eglMakeCurrent failed (%s): is the device current on another thread? release it there first",
                            egl_error_name(eglGetError()));
    return GLSTARK_OK;
}

void gs_gl_current_save(gs_gl_current *cur)
{
    cur->dpy = eglGetCurrentDisplay();
    cur->draw = eglGetCurrentSurface(EGL_DRAW);
    cur->read = eglGetCurrentSurface(EGL_READ);
    cur->ctx = eglGetCurrentContext();
}

/* Another thread may hold the context only between its own take and give,
 * which the device lock orders before ours; so a failure here is not a
 * race but a context current elsewhere outside glstark, or a lost one. */
glstark_status gs_gl_device_take(gs_gl_device *dev, gs_gl_current *prev, gs_error *err)
{
    gs_gl_current_save(prev);
    if (prev->ctx == dev->ctx)
        return GLSTARK_OK;
    if (!eglMakeCurrent(dev->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, dev->ctx))
        return gs_error_set(err, GLSTARK_ERR_GPU,
                            "eglMakeCurrent of the device's context on this thread failed (%s): the context is "
                            "current on another thread outside glstark's calls, or the display was terminated",
                            egl_error_name(eglGetError()));
    return GLSTARK_OK;
}

void gs_gl_device_give(gs_gl_device *dev, const gs_gl_current *prev)
{
    if (prev->ctx == dev->ctx)
        return; /* it was current before the take: leave it so */
    if (prev->ctx != EGL_NO_CONTEXT)
        gs_gl_current_restore(prev); /* the caller's own context, back */
    else
        eglMakeCurrent(dev->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

void gs_gl_current_restore(const gs_gl_current *cur)
{
    if (cur->ctx != EGL_NO_CONTEXT && eglGetCurrentContext() != cur->ctx)
        eglMakeCurrent(cur->dpy, cur->draw, cur->read, cur->ctx);
}

void gs_gl_device_close(gs_gl_device *dev)
{
    if (!dev)
        return;
    if (dev->ctx != EGL_NO_CONTEXT && eglGetCurrentContext() != dev->ctx)
        eglMakeCurrent(dev->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, dev->ctx);
    gs_gl_profile_report(dev);
    gs_gl_profile_free(dev);
    gs_gl_programs_free(dev);
    release_display(dev);
    eglReleaseThread();
    if (dev->gbm_lib)
        dlclose(dev->gbm_lib);
    free(dev);
}
