/* Programs: GLSL files from glsl/ (embedded at build time) assembled as
 *   prelude (version, precision, this device's limits, the caller's defines)
 *   + kernel with `#include "x.glsl"` lines expanded,
 * with `#line` directives so that compile errors name the glsl/ file and
 * line. Source-string number 0 is the prelude; file i of the embedded table
 * is i + 1; a caller-supplied kernel text is count + 1. Because Mesa reports
 * some errors with source string 0 whatever #line said, the file number is
 * also folded into the line number itself: line L of file f is announced as
 * f * GS_LINE_STRIDE + L, which every driver reports faithfully.
 * Programs are cached per (kernel, defines) for the device's lifetime. A
 * cold compile is slow (37 programs took 2.4-3.0 s on an H100 with an empty
 * driver cache, 90% of a first proof), so where the driver compiles on its
 * own threads (GL_KHR_parallel_shader_compile) the engine names the programs
 * a proof will use up front (gs_gl_program_prefetch) and reads each one's
 * status only at its first use. */
#include "gles/gl_device.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/babybear.h"
#include "hash/poseidon2_constants.h"
#include "glsl_embed.h"
#include "util/bytebuf.h"

#define GS_LINE_STRIDE 100000

struct gs_gl_program {
    char *key;
    GLuint prog;
    /* A program whose compile and link were started but whose status has
     * not been read yet (gs_gl_program_prefetch): the driver may still be
     * compiling it on its own threads. The shader is kept for its log. */
    int pending;
    GLuint sh;
    int caller_text; /* the kernel text came from the caller (error logs name it) */
    gs_dispatch_rate rate; /* the dispatch time budget's calibration */
    gs_gl_program *next;
};

gs_dispatch_rate *gs_gl_program_rate(const gs_gl_program *p)
{
    /* mutable state of a program the dispatch helpers see as const */
    return (gs_dispatch_rate *)&p->rate;
}

/* ---- a growing string ---- */

/* Text in a byte buffer, NUL-terminated after every append that
 * succeeds (the terminator is not counted in len). */
typedef gs_bytebuf sbuf;

static void sb_add(sbuf *s, const char *t, size_t n)
{
    if (!gs_bytebuf_reserve(s, n + 1))
        return;
    memcpy(s->p + s->len, t, n);
    s->len += n;
    s->p[s->len] = '\0';
}

static void sb_printf(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_printf(sbuf *s, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_add(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---- the source table ---- */

static int file_index(const char *name)
{
    for (size_t i = 0; i < gs_glsl_file_count; i++)
        if (!strcmp(gs_glsl_files[i].name, name))
            return (int)i;
    return -1;
}

/* Name of source-string number n, for log mapping. */
static const char *source_name(int n, const char *extra_name)
{
    if (n == 0)
        return "(prelude)";
    if (n >= 1 && (size_t)n <= gs_glsl_file_count)
        return gs_glsl_files[n - 1].name;
    if ((size_t)n == gs_glsl_file_count + 1 && extra_name)
        return extra_name;
    return NULL;
}

typedef struct expand_ctx {
    sbuf *out;
    unsigned char included[256];
    gs_error *err;
    const char *kernel_name;
} expand_ctx;

static glstark_status expand(expand_ctx *c, const char *name, const char *text, int src_no, int depth)
{
    if (depth > 16)
        return gs_error_set(c->err, GLSTARK_ERR_SHADER, "glsl/%s: includes nest deeper than 16 (a cycle?)", name);
    sb_printf(c->out, "#line %d %d\n", src_no * GS_LINE_STRIDE + 1, src_no);
    int line = 1;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        if ((size_t)(p + n - q) > 8 && !strncmp(q, "#include", 8)) {
            const char *a = memchr(q, '"', n - (size_t)(q - p));
            const char *b = a ? memchr(a + 1, '"', (size_t)(p + n - a - 1)) : NULL;
            if (!a || !b || b - a - 1 >= 128)
                return gs_error_set(c->err, GLSTARK_ERR_SHADER, "glsl/%s:%d: malformed #include (use #include \"x.glsl\")",
                                    name, line);
            char inc[128];
            memcpy(inc, a + 1, (size_t)(b - a - 1));
            inc[b - a - 1] = '\0';
            int idx = file_index(inc);
            if (idx < 0)
                return gs_error_set(c->err, GLSTARK_ERR_SHADER,
                                    "glsl/%s:%d: #include \"%s\": no such file in glsl/ (is it listed in glsl/meson.build?)",
                                    name, line, inc);
            if (idx < 256 && !c->included[idx]) {
                c->included[idx] = 1;
                glstark_status st = expand(c, inc, gs_glsl_files[idx].text, idx + 1, depth + 1);
                if (st)
                    return st;
            }
            /* Back in this file: the next line is line+1. */
            sb_printf(c->out, "#line %d %d\n", src_no * GS_LINE_STRIDE + line + 1, src_no);
        } else {
            sb_add(c->out, p, n);
            sb_add(c->out, "\n", 1);
        }
        line++;
        p = eol ? eol + 1 : p + n;
    }
    return GLSTARK_OK;
}

/* Builds the full source. kernel_text NULL means the embedded glsl/<kernel>. */
static glstark_status assemble(const gs_gl_caps *caps, const char *kernel, const char *kernel_text,
                               const char *defines, char **out, gs_error *err)
{
    *out = NULL;
    int src_no;
    if (!kernel_text) {
        int idx = file_index(kernel);
        if (idx < 0)
            return gs_error_set(err, GLSTARK_ERR_INTERNAL, "no kernel glsl/%s is embedded in this build", kernel);
        kernel_text = gs_glsl_files[idx].text;
        src_no = idx + 1;
    } else {
        src_no = (int)gs_glsl_file_count + 1;
    }
    sbuf s = {0};
    sb_add(&s, "#version 310 es\n", 16);
    if (caps->subgroup_reduce)
        sb_printf(&s, "#extension GL_KHR_shader_subgroup_basic : require\n"
                      "#extension GL_KHR_shader_subgroup_shuffle : require\n"
                      "#define GS_SUBGROUP_REDUCE 1\n");
    sb_add(&s, "precision highp float;\nprecision highp int;\n", 44);
    sb_printf(&s, "#define GS_LOCAL_SIZE %uu\n", caps->local_size);
    sb_printf(&s, "#define GS_MAX_INVOCATIONS %uu\n", caps->max_invocations);
    sb_printf(&s, "#define GS_MAX_SHARED_BYTES %uu\n", caps->max_shared_bytes);
    sb_printf(&s, "#define GS_SUBGROUP_SIZE %uu\n", caps->subgroup_size);
    sb_printf(&s, "#define GS_FLOOR_MODE %d\n", caps->floor_mode ? 1 : 0);
    sb_printf(&s, "#define GS_FIELD_MUL %d\n", caps->field_mul == GLSTARK_FIELD_MUL_SHIFT ? 1 : 0);
    if (defines) {
        const char *p = defines;
        while (*p) {
            const char *eol = strchr(p, '\n');
            size_t n = eol ? (size_t)(eol - p) : strlen(p);
            if (n) {
                sb_add(&s, "#define ", 8);
                sb_add(&s, p, n);
                sb_add(&s, "\n", 1);
            }
            p = eol ? eol + 1 : p + n;
        }
    }
    expand_ctx c;
    memset(&c, 0, sizeof c);
    c.out = &s;
    c.err = err;
    c.kernel_name = kernel;
    glstark_status st = expand(&c, kernel, kernel_text, src_no, 0);
    if (!st && s.oom)
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "assembling glsl/%s: out of host memory", kernel);
    if (st) {
        free(s.p);
        return st;
    }
    *out = (char *)s.p;
    return GLSTARK_OK;
}

glstark_status gs_gl_program_source(const gs_gl_caps *caps, const char *kernel, const char *defines, char **out,
                                    gs_error *err)
{
    return assemble(caps, kernel, NULL, defines, out, err);
}

/* ---- log mapping ---- */

/* Finds "<n>:<line>" or "<n>(<line>)" in a log line (Mesa, glslang and
 * NVIDIA formats). Returns 1 and the numbers when found. */
static int parse_ref(const char *line, size_t len, int *src, int *lno)
{
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)line[i]) || (i > 0 && isalnum((unsigned char)line[i - 1])))
            continue;
        size_t j = i;
        long a = 0;
        while (j < len && isdigit((unsigned char)line[j]) && a < 100000)
            a = a * 10 + (line[j++] - '0');
        if (j >= len || (line[j] != ':' && line[j] != '('))
            continue;
        char close = line[j] == '(' ? ')' : 0;
        size_t k = j + 1;
        long b = 0;
        if (k >= len || !isdigit((unsigned char)line[k]))
            continue;
        while (k < len && isdigit((unsigned char)line[k]) && b < 10000000)
            b = b * 10 + (line[k++] - '0');
        if (close && (k >= len || line[k] != ')'))
            continue;
        *src = (int)a;
        *lno = (int)b;
        return 1;
    }
    return 0;
}

static char *map_log_named(const char *log, const char *extra_name)
{
    sbuf s = {0};
    const char *p = log ? log : "";
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        int src, lno;
        const char *name = NULL;
        int found = n && parse_ref(p, n, &src, &lno);
        if (found && lno >= GS_LINE_STRIDE) {
            src = lno / GS_LINE_STRIDE;
            lno %= GS_LINE_STRIDE;
        }
        if (found && (name = source_name(src, extra_name)) != NULL)
            sb_printf(&s, "  glsl/%s:%d: ", name, lno);
        else if (n)
            sb_add(&s, "  ", 2);
        sb_add(&s, p, n);
        if (n)
            sb_add(&s, "\n", 1);
        p = eol ? eol + 1 : p + n;
    }
    if (!s.p)
        sb_add(&s, "  (the driver gave no log)\n", 27);
    return (char *)s.p;
}

char *gs_gl_map_log(const char *log) { return map_log_named(log, NULL); }

/* ---- compile, link, cache ---- */

static glstark_status shader_error(gs_gl_device *dev, gs_error *err, const char *stage, const char *kernel,
                                   const char *defines, const char *log, const char *extra_name)
{
    char *mapped = map_log_named(log, extra_name);
    glstark_status st = gs_error_set(
        err, GLSTARK_ERR_SHADER,
        "%s of glsl/%s failed on '%s' (defines: %s). Driver log, mapped to glsl/ files:\n%s"
        "Fix the GLSL at the file and line above; run glslangValidator -S comp on the assembled source to check.",
        stage, kernel, dev->renderer, defines && *defines ? defines : "none", mapped ? mapped : "(no memory)\n");
    free(mapped);
    return st;
}

/* Whether a cache key ("kernel\ndefines") is kernel's with these defines,
 * or (prefix_only) with defines that begin with them. */
static int key_matches(const char *key, const char *kernel, const char *defines, int prefix_only)
{
    size_t klen = strlen(kernel);
    if (strncmp(key, kernel, klen) || key[klen] != '\n')
        return 0;
    defines = defines ? defines : "";
    return prefix_only ? !strncmp(key + klen + 1, defines, strlen(defines)) : !strcmp(key + klen + 1, defines);
}

/* The cached entry for (kernel, defines), or NULL. */
static gs_gl_program *cache_find(const gs_gl_device *dev, const char *kernel, const char *defines)
{
    for (gs_gl_program *p = dev->programs; p; p = p->next)
        if (key_matches(p->key, kernel, defines, 0))
            return p;
    return NULL;
}

static void cache_drop(gs_gl_device *dev, gs_gl_program *p)
{
    for (gs_gl_program **q = &dev->programs; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    if (p->sh)
        glDeleteShader(p->sh);
    glDeleteProgram(p->prog);
    free(p->key);
    free(p);
}

/* Assembles the source, hands it to the driver to compile and link, and
 * caches the program as pending without reading any status: with
 * GL_KHR_parallel_shader_compile the driver works on it in the background
 * until program_finish asks. */
static glstark_status program_start(gs_gl_device *dev, const char *kernel, const char *kernel_text,
                                    const char *defines, gs_gl_program **out, gs_error *err)
{
    *out = NULL;
    size_t klen = strlen(kernel), dlen = defines ? strlen(defines) : 0;
    gs_gl_program *p = calloc(1, sizeof *p);
    char *key = malloc(klen + dlen + 2);
    if (!p || !key) {
        free(p);
        free(key);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "program cache: out of host memory");
    }
    memcpy(key, kernel, klen);
    key[klen] = '\n';
    memcpy(key + klen + 1, defines ? defines : "", dlen);
    key[klen + 1 + dlen] = '\0';
    char *src = NULL;
    glstark_status st = assemble(&dev->caps, kernel, kernel_text, defines, &src, err);
    if (st) {
        free(p);
        free(key);
        return st;
    }
    p->key = key;
    p->caller_text = kernel_text != NULL;
    p->sh = glCreateShader(GL_COMPUTE_SHADER);
    const GLchar *srcs[1] = {src};
    glShaderSource(p->sh, 1, srcs, NULL);
    glCompileShader(p->sh);
    free(src);
    p->prog = glCreateProgram();
    glAttachShader(p->prog, p->sh);
    glLinkProgram(p->prog);
    p->pending = 1;
    p->next = dev->programs;
    dev->programs = p;
    *out = p;
    return GLSTARK_OK;
}

/* Sets the uniforms that hold constants (uniform values live in the
 * program object, so once per link):
 *  - the Montgomery constant, a uniform so that drivers cannot constant-fold
 *    the reduction (Mesa 22.3 / LLVM 15 crashes when they do, docs/design.md,
 *    'Pitfalls we met on GLES compute');
 *  - Poseidon2's round constants from the C tables (glsl/poseidon2_constants.glsl
 *    says why they are not const arrays).
 * A program that does not use one has no location for it. */
static void link_constants(GLuint prog)
{
    GLint loc = glGetUniformLocation(prog, "gs_bb_mu");
    if (loc >= 0)
        glProgramUniform1ui(prog, loc, BB_MU);
    if ((loc = glGetUniformLocation(prog, "P2_RC_INITIAL")) >= 0)
        glProgramUniform1uiv(prog, loc, (GLsizei)(sizeof gs_p2_rc_initial / sizeof(bb_t)), &gs_p2_rc_initial[0][0]);
    if ((loc = glGetUniformLocation(prog, "P2_RC_INTERNAL")) >= 0)
        glProgramUniform1uiv(prog, loc, (GLsizei)(sizeof gs_p2_rc_internal / sizeof(bb_t)), gs_p2_rc_internal);
    if ((loc = glGetUniformLocation(prog, "P2_RC_TERMINAL")) >= 0)
        glProgramUniform1uiv(prog, loc, (GLsizei)(sizeof gs_p2_rc_terminal / sizeof(bb_t)), &gs_p2_rc_terminal[0][0]);
}

/* Reads a pending program's compile and link status (waiting for the driver
 * if it is still at work) and readies it for dispatch. A failure reports the
 * driver log and removes the entry, so asking again compiles again. */
static glstark_status program_finish(gs_gl_device *dev, gs_gl_program *p, gs_error *err)
{
    const char *nl = strchr(p->key, '\n');
    char kernel[128];
    size_t klen = (size_t)(nl - p->key) < sizeof kernel ? (size_t)(nl - p->key) : sizeof kernel - 1;
    memcpy(kernel, p->key, klen);
    kernel[klen] = '\0';
    const char *defines = nl + 1;
    const char *extra = p->caller_text ? kernel : NULL;
    GLint ok = 0;
    glGetShaderiv(p->sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        GLint n = 0;
        glGetShaderiv(p->sh, GL_INFO_LOG_LENGTH, &n);
        char *log = calloc(1, (size_t)(n > 0 ? n : 1) + 1);
        if (log && n > 0)
            glGetShaderInfoLog(p->sh, n, NULL, log);
        glstark_status st = shader_error(dev, err, "compile", kernel, defines, log, extra);
        free(log);
        cache_drop(dev, p);
        return st;
    }
    glGetProgramiv(p->prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        GLint n = 0;
        glGetProgramiv(p->prog, GL_INFO_LOG_LENGTH, &n);
        char *log = calloc(1, (size_t)(n > 0 ? n : 1) + 1);
        if (log && n > 0)
            glGetProgramInfoLog(p->prog, n, NULL, log);
        glstark_status st = shader_error(dev, err, "link", kernel, defines, log, extra);
        free(log);
        cache_drop(dev, p);
        return st;
    }
    glDeleteShader(p->sh);
    p->sh = 0;
    link_constants(p->prog);
    glstark_status st = gs_gl_check(dev, err, "creating a program");
    if (st) {
        cache_drop(dev, p);
        return st;
    }
    p->pending = 0;
    return GLSTARK_OK;
}

glstark_status gs_gl_program_build(gs_gl_device *dev, const char *kernel, const char *kernel_text,
                                   const char *defines, gs_gl_program **out, gs_error *err)
{
    *out = NULL;
    gs_gl_program *p = cache_find(dev, kernel, defines);
    if (p && !p->pending) {
        *out = p;
        return GLSTARK_OK;
    }
    if (dev->prof)
        gs_gl_profile_begin(dev);
    const uint64_t t0 = gs_monotonic_ns();
    glstark_status st = GLSTARK_OK;
    const int waited = p != NULL;
    if (!p && dev->compile_threads_on)
        dev->programs_unplanned++;
    if (!p)
        st = program_start(dev, kernel, kernel_text, defines, &p, err);
    if (!st)
        st = program_finish(dev, p, err);
    if (st)
        return st;
    *out = p;
    dev->programs_built++;
    dev->program_build_ns += gs_monotonic_ns() - t0;
    if (dev->prof) {
        /* One row per program, so a slow first run shows which compiles it
         * waited for (each row: a compile + link from the driver's cache or
         * not, or the wait for a background compile). */
        char label[80], key[96];
        gs_gl_program_label(p, label, sizeof label);
        snprintf(key, sizeof key, "%s %s", waited ? "program wait:" : "program build:", label);
        gs_gl_profile_end(dev, key, 1);
    }
    return GLSTARK_OK;
}

glstark_status gs_gl_program_prefetch(gs_gl_device *dev, const char *kernel, const char *defines, gs_error *err)
{
    if (dev->prefetch_builds_now) {
        gs_gl_program *p;
        return gs_gl_program_build(dev, kernel, NULL, defines, &p, err);
    }
    if (!dev->caps.background_compile || cache_find(dev, kernel, defines))
        return GLSTARK_OK;
    if (!dev->compile_threads_on) {
        /* The driver's compiler threads start only now, for devices that
         * prefetch: on NVIDIA 580 a process that started them pays ~0.2 s
         * when it exits. The count is left to the driver (its maximum). */
        PFNGLMAXSHADERCOMPILERTHREADSKHRPROC max_threads =
            (PFNGLMAXSHADERCOMPILERTHREADSKHRPROC)eglGetProcAddress("glMaxShaderCompilerThreadsKHR");
        if (max_threads)
            max_threads(0xFFFFFFFFu);
        dev->compile_threads_on = 1;
    }
    if (dev->prof)
        gs_gl_profile_begin(dev);
    const uint64_t t0 = gs_monotonic_ns();
    gs_gl_program *p = NULL;
    glstark_status st = program_start(dev, kernel, NULL, defines, &p, err);
    if (!st)
        st = gs_gl_check(dev, err, "starting a background compile");
    dev->program_build_ns += gs_monotonic_ns() - t0; /* counted built once used */
    if (st)
        return st;
    if (dev->prof)
        gs_gl_profile_end(dev, "program build (background compile started)", 1);
    return GLSTARK_OK;
}

glstark_status gs_gl_program_get(gs_gl_device *dev, const char *kernel, const char *defines, gs_gl_program **out,
                                 gs_error *err)
{
    return gs_gl_program_build(dev, kernel, NULL, defines, out, err);
}

GLuint gs_gl_program_name(const gs_gl_program *p) { return p->prog; }

int gs_gl_program_cached(const gs_gl_device *dev, const char *kernel, const char *defines_prefix)
{
    for (const gs_gl_program *p = dev->programs; p; p = p->next)
        if (key_matches(p->key, kernel, defines_prefix, 1))
            return 1;
    return 0;
}

void gs_gl_program_label(const gs_gl_program *p, char *out, size_t n)
{
    /* key is "kernel\ndefine lines": one line, defines after a colon */
    size_t j = 0;
    int first = 1;
    for (const char *k = p->key; *k && j + 1 < n; k++) {
        if (*k == '\n') {
            if (k[1] == '\0')
                break;
            out[j++] = first ? ':' : ' ';
            if (first && j + 1 < n)
                out[j++] = ' ';
            first = 0;
        } else {
            out[j++] = *k;
        }
    }
    out[j] = '\0';
}

GLint gs_gl_program_uniform(const gs_gl_program *p, const char *name) { return glGetUniformLocation(p->prog, name); }

void gs_gl_programs_free(gs_gl_device *dev)
{
    gs_gl_program *p = dev->programs;
    while (p) {
        gs_gl_program *n = p->next;
        if (p->sh)
            glDeleteShader(p->sh);
        glDeleteProgram(p->prog);
        free(p->key);
        free(p);
        p = n;
    }
    dev->programs = NULL;
}
