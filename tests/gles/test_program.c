/* Program assembly, caching, and compile errors mapped to glsl/ files;
 * every embedded kernel validated offline by glslangValidator. */
#include "gles_test_util.h"

#include <string.h>
#include <unistd.h>

#include "engine/dft_ops.h"
#include "glsl_embed.h"

static int source_number_of(const char *name)
{
    for (size_t i = 0; i < gs_glsl_file_count; i++)
        if (!strcmp(gs_glsl_files[i].name, name))
            return (int)i + 1;
    return -1;
}

Test(gles_program, broken_kernel_reports_file_line_and_log)
{
    gs_engine *eng = tu_engine(NULL);
    gs_gl_device *dev = gs_gles_device(eng);
    /* Line 6 of this kernel calls a function that does not exist. */
    const char *text = "#include \"babybear.glsl\"\n"
                       "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
                       "layout(std430, binding = 0) buffer O { uint o[]; };\n"
                       "void main()\n"
                       "{\n"
                       "    o[0] = bb_mul_that_does_not_exist(o[1], o[2]);\n"
                       "}\n";
    gs_gl_program *p = NULL;
    glstark_status st = gs_gl_program_build(dev, "broken_test.comp", text, NULL, &p, &eng->err);
    cr_log_info("message: %s", eng->err.msg);
    cr_assert_eq(st, GLSTARK_ERR_SHADER);
    cr_assert_null(p);
    cr_assert(strstr(eng->err.msg, "glsl/broken_test.comp:6:") != NULL, "file:line missing: %s", eng->err.msg);
    cr_assert(strstr(eng->err.msg, "bb_mul_that_does_not_exist") != NULL, "driver log missing: %s", eng->err.msg);
    cr_assert(strstr(eng->err.msg, dev->renderer) != NULL, "renderer missing: %s", eng->err.msg);
    gs_engine_destroy(eng);
}

Test(gles_program, error_after_an_include_keeps_kernel_lines)
{
    gs_engine *eng = tu_engine(NULL);
    gs_gl_device *dev = gs_gles_device(eng);
    const char *text = "// comment\n"
                       "#include \"ext4.glsl\"\n"
                       "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
                       "layout(std430, binding = 0) buffer O { uint o[]; };\n"
                       "void main() { o[0] = 1u; }\n"
                       "int broken = ;\n";
    gs_gl_program *p = NULL;
    cr_assert_eq(gs_gl_program_build(dev, "broken2.comp", text, NULL, &p, &eng->err), GLSTARK_ERR_SHADER);
    cr_assert(strstr(eng->err.msg, "glsl/broken2.comp:6:") != NULL, "%s", eng->err.msg);
    gs_engine_destroy(eng);
}

Test(gles_program, missing_include_is_named)
{
    gs_engine *eng = tu_engine(NULL);
    gs_gl_program *p = NULL;
    const char *text = "\n#include \"no_such_file.glsl\"\nvoid main() {}\n";
    cr_assert_eq(gs_gl_program_build(gs_gles_device(eng), "inc.comp", text, NULL, &p, &eng->err), GLSTARK_ERR_SHADER);
    cr_assert(strstr(eng->err.msg, "glsl/inc.comp:2") && strstr(eng->err.msg, "no_such_file.glsl"), "%s",
              eng->err.msg);
    gs_engine_destroy(eng);
}

Test(gles_program, log_mapping_formats)
{
    int bb = source_number_of("babybear.glsl");
    cr_assert_gt(bb, 0);
    char log[512];
    /* Mesa, NVIDIA and glslang styles. */
    snprintf(log, sizeof log, "%d:12(5): error: `x' undeclared\n%d(7) : error C1008: undefined variable\n"
                              "ERROR: %d:3: 'y' : undeclared identifier\nno reference here\n",
             bb, bb, bb);
    char *m = gs_gl_map_log(log);
    cr_assert_not_null(m);
    cr_assert(strstr(m, "glsl/babybear.glsl:12: ") != NULL, "%s", m);
    cr_assert(strstr(m, "glsl/babybear.glsl:7: ") != NULL, "%s", m);
    cr_assert(strstr(m, "glsl/babybear.glsl:3: ") != NULL, "%s", m);
    cr_assert(strstr(m, "no reference here") != NULL, "%s", m);
    free(m);
    m = gs_gl_map_log("0:4(1): error: in the prelude\n");
    cr_assert(strstr(m, "glsl/(prelude):4") != NULL, "%s", m);
    free(m);
    /* The file number folded into the line wins over a source string 0. */
    snprintf(log, sizeof log, "0:%d(9): error: no function\n", bb * 100000 + 21);
    m = gs_gl_map_log(log);
    cr_assert(strstr(m, "glsl/babybear.glsl:21: ") != NULL, "%s", m);
    free(m);
}

Test(gles_program, cache_per_kernel_and_defines)
{
    gs_engine *eng = tu_engine(NULL);
    gs_gl_device *dev = gs_gles_device(eng);
    gs_gl_program *a, *b, *c;
    TU_OK(eng, gs_gl_program_get(dev, "fill.comp", NULL, &a, &eng->err));
    TU_OK(eng, gs_gl_program_get(dev, "fill.comp", NULL, &b, &eng->err));
    TU_OK(eng, gs_gl_program_get(dev, "fill.comp", "GS_UNUSED_FLAG 1", &c, &eng->err));
    cr_assert_eq(a, b, "same (kernel, defines) must hit the cache");
    cr_assert_neq(a, c, "different defines are a different program");
    cr_assert_neq(gs_gl_program_name(a), gs_gl_program_name(c));
    gs_gl_program *d;
    cr_assert_eq(gs_gl_program_get(dev, "no_such_kernel.comp", NULL, &d, &eng->err), GLSTARK_ERR_INTERNAL);
    gs_engine_destroy(eng);
}

Test(gles_program, assembled_source_has_prelude_and_lines)
{
    gs_gl_caps caps;
    memset(&caps, 0, sizeof caps);
    caps.local_size = 128;
    caps.max_invocations = 128;
    caps.max_shared_bytes = 16384;
    char *src = NULL;
    gs_error err;
    gs_error_clear(&err);
    cr_assert_eq(gs_gl_program_source(&caps, "field_test.comp", "GS_OP 2\nGS_EXTRA 7\n", &src, &err), GLSTARK_OK, "%s",
                 err.msg);
    cr_assert(strncmp(src, "#version 310 es\n", 16) == 0);
    cr_assert(strstr(src, "#define GS_LOCAL_SIZE 128u") != NULL);
    cr_assert(strstr(src, "#define GS_EXTRA 7") != NULL);
    cr_assert(strstr(src, "#include") == NULL, "includes must be expanded");
    char want[32];
    snprintf(want, sizeof want, "#line %d %d\n", source_number_of("babybear.glsl") * 100000 + 1,
             source_number_of("babybear.glsl"));
    cr_assert(strstr(src, want) != NULL, "%s", src);
    /* babybear.glsl is included by both field_test.comp and ext4.glsl: once only. */
    const char *first = strstr(src, "uint bb_add(");
    cr_assert_not_null(first);
    cr_assert_null(strstr(first + 1, "uint bb_add("));
    free(src);
}

/* Runs glslangValidator -S comp on every embedded kernel, assembled with
 * the floor limits and with a large device's limits. */
Test(gles_program, glslang_validates_every_kernel, .timeout = 120)
{
    const char *lim = getenv("GLSTARK_LIMITS");
    if (lim && *lim)
        cr_skip_test("offline validation does not depend on the device; it runs (with both floor and large "
                     "limits) in the default run");
    if (system("command -v glslangValidator >/dev/null 2>&1") != 0)
        cr_skip_test("glslangValidator not installed (apt-get install glslang-tools)");
    gs_gl_caps floor_caps, big_caps;
    memset(&floor_caps, 0, sizeof floor_caps);
    floor_caps.local_size = 128;
    floor_caps.max_invocations = 128;
    floor_caps.max_shared_bytes = 16384;
    floor_caps.floor_mode = 1;
    big_caps = floor_caps;
    big_caps.local_size = 256;
    big_caps.max_invocations = 1024;
    big_caps.max_shared_bytes = 49152;
    big_caps.subgroup_size = 32;
    big_caps.subgroup_reduce = 1; /* the large-limit pass validates the subgroup variants */
    big_caps.floor_mode = 0;
    int checked = 0;
    for (size_t i = 0; i < gs_glsl_file_count; i++) {
        const char *name = gs_glsl_files[i].name;
        size_t n = strlen(name);
        if (n < 5 || strcmp(name + n - 5, ".comp") != 0)
            continue;
        /* Each "// @variant NAME VALUE[; NAME VALUE]" line in the kernel is
         * one define set to validate; without any, the kernel alone. */
        char variants[64][128];
        int nv = 0;
        const char *t = gs_glsl_files[i].text;
        while ((t = strstr(t, "// @variant ")) != NULL && nv < 64) {
            t += 12;
            size_t len = strcspn(t, "\n");
            cr_assert_lt(len, sizeof variants[0]);
            memcpy(variants[nv], t, len);
            variants[nv][len] = '\0';
            for (char *c = variants[nv]; *c; c++)
                if (*c == ';')
                    *c = '\n';
            nv++;
        }
        for (int v = 0; v < 2 * (nv ? nv : 1); v++) {
            /* Every variant with both preludes: the large one turns on the
             * subgroup code, which only some modes include. */
            char *src = NULL;
            gs_error err;
            gs_error_clear(&err);
            const char *defines = nv ? variants[v / 2] : NULL;
            cr_assert_eq(gs_gl_program_source(v % 2 ? &big_caps : &floor_caps, name, defines, &src, &err), GLSTARK_OK,
                         "%s", err.msg);
            /* NVIDIA rejects gl_NumSubgroups before the work-group size is
             * declared (glslangValidator does not): glsl/group_sum.glsl must
             * come after the layout line. */
            const char *nsg = strstr(src, "gl_NumSubgroups");
            const char *lay = strstr(src, "layout(local_size_x = GS_LOCAL_SIZE) in;");
            cr_assert(!nsg || (lay && lay < nsg), "glsl/%s uses gl_NumSubgroups before its work-group size layout",
                      name);
            char path[] = "/tmp/glstark_glslang_XXXXXX";
            int fd = mkstemp(path);
            cr_assert_geq(fd, 0);
            FILE *f = fdopen(fd, "w");
            fputs(src, f);
            fclose(f);
            free(src);
            char cmd[512];
            snprintf(cmd, sizeof cmd, "glslangValidator -S comp %s > %s.log 2>&1", path, path);
            int rc = system(cmd);
            char logpath[600], log[4096] = "";
            snprintf(logpath, sizeof logpath, "%s.log", path);
            FILE *lf = fopen(logpath, "r");
            if (lf) {
                size_t got = fread(log, 1, sizeof log - 1, lf);
                log[got] = '\0';
                fclose(lf);
            }
            char *mapped = gs_gl_map_log(log);
            unlink(path);
            unlink(logpath);
            cr_assert_eq(rc, 0, "glslangValidator rejects glsl/%s (%s limits, defines: %s):\n%s", name,
                         v % 2 ? "large" : "floor", defines ? defines : "none", mapped ? mapped : log);
            free(mapped);
            checked++;
        }
    }
    cr_assert_geq(checked, 19 + 1 + 2, "expected every field_test.comp variant and fill.comp");
    cr_log_info("glslangValidator accepted %d kernel variants", checked);
}

/* ---- background compiles (GLSTARK_PRECOMPILE, gs_gl_program_prefetch) ---- */

static gs_engine *engine_precompile(glstark_precompile mode)
{
    gs_device_config o;
    o = tu_config();
    o.precompile = mode;
    return tu_engine(&o);
}

/* `on` needs the driver's GL_KHR_parallel_shader_compile (llvmpipe has it);
 * without it the tests below would check nothing, so they say so and stop. */
static int has_background_compile(gs_engine *eng)
{
    gs_gl_device *dev = gs_gles_device(eng);
    int ext = gs_gl_has_extension(dev, "GL_KHR_parallel_shader_compile");
    cr_assert_eq(dev->caps.background_compile, ext, "precompile=on, extension %d, background_compile %d", ext,
                 dev->caps.background_compile);
    if (!ext)
        cr_log_warn("'%s' has no GL_KHR_parallel_shader_compile: nothing is compiled ahead here", dev->renderer);
    return ext;
}

/* An engine with every program started ahead (GLSTARK_PRECOMPILE_ON), or
 * NULL where the driver cannot (has_background_compile says so). */
static gs_engine *engine_compiling_ahead(void)
{
    unsetenv("GLSTARK_PRECOMPILE");
    gs_engine *eng = engine_precompile(GLSTARK_PRECOMPILE_ON);
    if (has_background_compile(eng))
        return eng;
    gs_engine_destroy(eng);
    return NULL;
}

Test(gles_program, precompile_choice_follows_the_option_and_the_renderer)
{
    unsetenv("GLSTARK_PRECOMPILE");
    gs_engine *off = engine_precompile(GLSTARK_PRECOMPILE_OFF);
    cr_assert_eq(gs_gles_device(off)->caps.background_compile, 0);
    gs_engine_destroy(off);
    gs_engine *eng = engine_precompile(GLSTARK_PRECOMPILE_AUTO);
    gs_gl_device *dev = gs_gles_device(eng);
    int ext = gs_gl_has_extension(dev, "GL_KHR_parallel_shader_compile");
    /* AUTO: hardware drivers with the extension; software renderers compile
     * on the calling thread, so never ahead there. */
    cr_assert_eq(dev->caps.background_compile, ext && !dev->is_software, "software %d, extension %d",
                 dev->is_software, ext);
    gs_engine_destroy(eng);
    setenv("GLSTARK_PRECOMPILE", "on", 1);
    eng = tu_engine(NULL);
    has_background_compile(eng);
    gs_engine_destroy(eng);
    unsetenv("GLSTARK_PRECOMPILE");
}

Test(gles_program, prefetched_program_is_the_one_get_returns_and_it_runs)
{
    gs_engine *eng = engine_compiling_ahead();
    if (!eng)
        return;
    gs_gl_device *dev = gs_gles_device(eng);
    TU_OK(eng, gs_gl_program_prefetch(dev, "fill.comp", NULL, &eng->err));
    TU_OK(eng, gs_gl_program_prefetch(dev, "fill.comp", NULL, &eng->err)); /* once only */
    gs_gl_program *a = NULL, *b = NULL;
    TU_OK(eng, gs_gl_program_get(dev, "fill.comp", NULL, &a, &eng->err));
    TU_OK(eng, gs_gl_program_get(dev, "fill.comp", NULL, &b, &eng->err));
    cr_assert_not_null(a);
    cr_assert_eq(a, b, "the prefetched entry is the cached program");
    /* The fill kernel, now from the prefetched program: a ragged range of a
     * poisoned buffer, the words around it untouched. */
    const size_t n = 1000, first = 3, count = 777;
    uint32_t *host = tu_alloc(n * 4);
    for (size_t i = 0; i < n; i++)
        host[i] = 0xDEADBEEFu;
    gs_buf *buf = NULL;
    TU_OK(eng, gs_buf_create(eng, n * 4, &buf));
    TU_OK(eng, gs_buf_write(buf, 0, host, n * 4));
    TU_OK(eng, gs_buf_fill_u32(buf, first * 4, count, 0x12345678u));
    TU_OK(eng, gs_buf_read(buf, 0, host, n * 4));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(host[i], i >= first && i < first + count ? 0x12345678u : 0xDEADBEEFu, "word %zu: %08x", i,
                     host[i]);
    gs_buf_destroy(buf);
    free(host);
    gs_engine_destroy(eng);
}

/* A prefetch never fails for a bad shader: the error comes, with the
 * driver's log, from the gs_gl_program_get that needs it, and again from
 * the next one (the failed entry is dropped, not cached). */
Test(gles_program, prefetched_program_that_fails_reports_at_use)
{
    gs_engine *eng = engine_compiling_ahead();
    if (!eng)
        return;
    gs_gl_device *dev = gs_gles_device(eng);
    /* "#define uint gs_no_such_type": a compile error; "#define main
     * gs_not_main": compiles, but has no main to link. */
    static const struct {
        const char *defines, *stage;
    } bad[] = {{"uint gs_no_such_type\n", "compile of glsl/fill.comp failed"},
               {"main gs_not_main\n", "link of glsl/fill.comp failed"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        TU_OK(eng, gs_gl_program_prefetch(dev, "fill.comp", bad[i].defines, &eng->err));
        for (int again = 0; again < 2; again++) {
            gs_gl_program *p = (gs_gl_program *)1;
            glstark_status st = gs_gl_program_get(dev, "fill.comp", bad[i].defines, &p, &eng->err);
            cr_log_info("%s", eng->err.msg);
            cr_assert_eq(st, GLSTARK_ERR_SHADER, "%s (try %d): %s", bad[i].defines, again, glstark_status_name(st));
            cr_assert_null(p);
            cr_assert(strstr(eng->err.msg, bad[i].stage) != NULL, "%s", eng->err.msg);
        }
    }
    /* The good program beside them is unaffected. */
    gs_gl_program *p = NULL;
    TU_OK(eng, gs_gl_program_get(dev, "fill.comp", NULL, &p, &eng->err));
    gs_engine_destroy(eng);
}

/* With background compiles off, a prefetch does nothing, not even for a
 * program that would fail: nothing is built until it is asked for. */
Test(gles_program, prefetch_does_nothing_when_off)
{
    unsetenv("GLSTARK_PRECOMPILE");
    gs_engine *eng = engine_precompile(GLSTARK_PRECOMPILE_OFF);
    gs_gl_device *dev = gs_gles_device(eng);
    TU_OK(eng, gs_gl_program_prefetch(dev, "fill.comp", "uint gs_no_such_type\n", &eng->err));
    const gs_prepare_hint hint = {4, 1, GS_PREPARE_PROOF_START};
    TU_OK(eng, gs_gles_precompile(eng, &hint));
    cr_assert_null(dev->programs, "nothing was built or started");
    gs_engine_destroy(eng);
}

/* Every program a proof starts ahead (l_skip 4 and 3), then transforms
 * equal to the CPU engine's through them; the unused ones are freed with
 * the device (ASan in CI checks nothing leaks). */
Test(gles_program, precompiled_set_transforms_like_the_cpu)
{
    gs_engine *eng = engine_compiling_ahead();
    if (!eng)
        return;
    const gs_prepare_hint h4 = {4, 1, GS_PREPARE_PROOF_START}, h3 = {3, 0, GS_PREPARE_PROOF_START};
    TU_OK(eng, gs_engine_prepare(eng, &h4));
    TU_OK(eng, gs_engine_prepare(eng, &h3));
    gs_engine *cpu = tu_cpu_engine();
    uint64_t seed = 0x5eed0c0de12ull;
    cr_log_info("seed %llu", (unsigned long long)seed);
    const unsigned log_n = 12;
    const size_t ncols = 3, stride = ((size_t)1 << log_n) + 5, words = stride * ncols;
    bb_t *in = tu_alloc(words * 4), *want = tu_alloc(words * 4), *got = tu_alloc(words * 4);
    for (size_t i = 0; i < words; i++)
        in[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    in[0] = 0;
    in[1] = bb_from_canonical(1);
    in[2] = bb_from_canonical(BB_P - 1);
    for (int dir = 0; dir < 2; dir++) {
        gs_dft_dir d = dir ? GS_DFT_INVERSE : GS_DFT_FORWARD;
        gs_buf *hb = NULL, *gb = NULL;
        TU_OK(cpu, gs_buf_create(cpu, words * 4, &hb));
        TU_OK(cpu, gs_buf_write(hb, 0, in, words * 4));
        gs_dft_cols hc = {hb, 0, stride, ncols, log_n, 1};
        TU_OK(cpu, gs_dft(cpu, &hc, d));
        TU_OK(cpu, gs_buf_read(hb, 0, want, words * 4));
        TU_OK(eng, gs_buf_create(eng, words * 4, &gb));
        TU_OK(eng, gs_buf_write(gb, 0, in, words * 4));
        gs_dft_cols gc = {gb, 0, stride, ncols, log_n, 1};
        TU_OK(eng, gs_dft(eng, &gc, d));
        TU_OK(eng, gs_buf_read(gb, 0, got, words * 4));
        for (size_t i = 0; i < words; i++)
            cr_assert_eq(got[i], want[i], "%s word %zu", dir ? "inverse" : "forward", i);
        gs_buf_destroy(hb);
        gs_buf_destroy(gb);
    }
    free(in);
    free(want);
    free(got);
    gs_engine_destroy(cpu);
    gs_engine_destroy(eng);
}

/* A proof that builds at first use (the driver's cache was warm when it
 * began: precompile_state 2) loads every program of the engine's lists
 * while round 0 runs (GS_PREPARE_WHILE_BUSY): each built and ready at
 * once, no background compile started, and nothing again on a second
 * call. Where the programs compile ahead (state 1) or nothing was decided
 * (state 0) the call builds nothing. */
Test(gles_program, programs_load_while_the_gpu_is_busy_only_after_a_warm_start)
{
    gs_engine *eng = engine_compiling_ahead();
    if (!eng)
        return;
    gs_gles_state *s = eng->impl;
    gs_gl_device *dev = gs_gles_device(eng);
    const gs_prepare_hint busy = {4, 0, GS_PREPARE_WHILE_BUSY};
    for (int state = 0; state <= 1; state++) {
        s->precompile_state = state;
        TU_OK(eng, gs_engine_prepare(eng, &busy));
        cr_assert_null(dev->programs, "state %d: nothing built or started", state);
    }
    s->precompile_state = 2; /* as gles_prepare leaves it after a quick build from the cache */
    TU_OK(eng, gs_engine_prepare(eng, &busy));
    const uint64_t built = dev->programs_built;
    cr_assert_geq(built, 30, "the lists' programs were built (%llu)", (unsigned long long)built);
    cr_assert_eq(dev->compile_threads_on, 0, "loads on the calling thread, not the driver's compile threads");
    cr_assert_eq(dev->prefetch_builds_now, 0, "the flag is cleared after the loads");
    /* ready: asking for them builds nothing more */
    static const struct {
        const char *kernel, *defines;
    } some[] = {{"sponge.comp", NULL}, {"merkle_coset.comp", NULL}, {"zerocheck_eval.comp", "ZC_EXT 1\n"},
                {"reduction.comp", "RED_MODE 1\n"}, {"merkle_leaf.comp", "GS_STREAM 1"}};
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
        gs_gl_program *p = NULL;
        TU_OK(eng, gs_gl_program_get(dev, some[i].kernel, some[i].defines, &p, &eng->err));
        cr_assert_not_null(p);
    }
    cr_assert_eq(dev->programs_built, built, "the programs asked for were loaded already");
    TU_OK(eng, gs_engine_prepare(eng, &busy));
    cr_assert_eq(dev->programs_built, built, "a second call finds every program");
    gs_engine_destroy(eng);
}
