/* glsl/poseidon2.glsl on the GPU (llvmpipe in CI) against the C reference:
 * the permutation on fresh random states with edge values (0, 1, p-1), the
 * compression, and the proof-of-work check for a range of witnesses. The
 * kernel here is test-only; the GLES hash family will have its own. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "gles/gl_device.h"
#include "hash/grind.h"
#include "hash/poseidon2.h"
#include "../util/splitmix.h"

static const char *kernel =
    "#include \"poseidon2.glsl\"\n"
    "#include \"grid.glsl\"\n"
    "layout(local_size_x = GS_LOCAL_SIZE) in;\n"
    "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
    "uniform uint gs_mode;\n"
    "uniform uint gs_bits;\n"
    "uniform uint gs_absorb;\n"
    "void main()\n"
    "{\n"
    "    uint id = gs_linear_id();\n"
    "    if (id >= gs_count)\n"
    "        return;\n"
    "    uint s[16];\n"
    "    if (gs_mode == 0u) {\n"
    "        for (uint i = 0u; i < 16u; i++) s[i] = a[16u * id + i];\n"
    "        p2_permute(s);\n"
    "        for (uint i = 0u; i < 16u; i++) o[16u * id + i] = s[i];\n"
    "    } else if (gs_mode == 1u) {\n"
    "        uint l[8], r[8], d[8];\n"
    "        for (uint i = 0u; i < 8u; i++) { l[i] = a[16u * id + i]; r[i] = a[16u * id + 8u + i]; }\n"
    "        p2_compress(l, r, d);\n"
    "        for (uint i = 0u; i < 8u; i++) o[8u * id + i] = d[i];\n"
    "    } else {\n"
    "        for (uint i = 0u; i < 16u; i++) s[i] = a[i];\n"
    "        o[id] = p2_pow_ok(s, gs_absorb, gs_bits, id) ? 1u : 0u;\n"
    "    }\n"
    "}\n";

#define TOK(eng, call)                                                                                  \
    do {                                                                                                \
        glstark_status st_ = (call);                                                                    \
        cr_assert_eq(st_, GLSTARK_OK, "%s -> %s: %s", #call, glstark_status_name(st_), (eng)->err.msg); \
    } while (0)

static void run(gs_engine *eng, gs_gl_program *prog, uint32_t mode, uint32_t absorb, uint32_t bits, gs_buf *in,
                gs_buf *out, size_t n_in_words, size_t n_out_words, size_t count)
{
    gs_gl_device *dev = gs_gles_device(eng);
    GLuint p = gs_gl_program_name(prog);
    glUseProgram(p);
    glUniform1ui(glGetUniformLocation(p, "gs_mode"), mode);
    glUniform1ui(glGetUniformLocation(p, "gs_bits"), bits);
    glUniform1ui(glGetUniformLocation(p, "gs_absorb"), absorb);
    TOK(eng, gs_buf_fill_u32(out, 0, n_out_words, 0xDEADBEEFu)); /* poison */
    TOK(eng, gs_gles_bind(eng, 0, in, 0, n_in_words * 4));
    TOK(eng, gs_gles_bind(eng, 1, out, 0, n_out_words * 4));
    TOK(eng, gs_gl_dispatch_1d(dev, prog, count, &eng->err));
}

Test(poseidon2_gpu, glsl_matches_c, .timeout = 300)
{
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    glstark_status st = gs_gles_engine_create_opts(NULL, &eng, &err);
    cr_assert_eq(st, GLSTARK_OK, "opening a GLES device failed: %s", err.msg);
    gs_gl_program *prog = NULL;
    TOK(eng, gs_gl_program_build(gs_gles_device(eng), "poseidon2_gpu_test.comp", kernel, NULL, &prog, &eng->err));

    const char *env = getenv("GLSTARK_TEST_SEED");
    uint64_t seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    cr_log_info("poseidon2_gpu: seed %llu (set GLSTARK_TEST_SEED to replay)", (unsigned long long)seed);
    printf("poseidon2_gpu: seed %llu\n", (unsigned long long)seed);
    const size_t n = 4096;
    static const uint32_t edges[] = {0, 1, 2, BB_P - 1, BB_P - 2, 1u << 27};
    uint32_t *h = malloc(n * 16 * 4), *got = malloc(n * 16 * 4);
    cr_assert(h && got);
    for (size_t i = 0; i < n * 16; i++) {
        uint64_t r = splitmix64(&seed);
        uint32_t v = (i / 16) % 4 == 1 ? edges[r % 6] : (uint32_t)(r % BB_P);
        h[i] = bb_from_canonical(v);
    }
    gs_buf *in = NULL, *out = NULL;
    TOK(eng, gs_buf_create(eng, n * 16 * 4, &in));
    TOK(eng, gs_buf_create(eng, n * 16 * 4, &out));
    TOK(eng, gs_buf_write(in, 0, h, n * 16 * 4));

    /* permutation */
    run(eng, prog, 0, 0, 0, in, out, n * 16, n * 16, n);
    TOK(eng, gs_buf_read(out, 0, got, n * 16 * 4));
    for (size_t k = 0; k < n; k++) {
        bb_t s[16];
        memcpy(s, h + 16 * k, sizeof s);
        gs_poseidon2_permute(s);
        for (int i = 0; i < 16; i++)
            cr_assert_eq(got[16 * k + i], s[i], "state %zu cell %d: gpu 0x%08x cpu 0x%08x", k, i, got[16 * k + i],
                         s[i]);
    }
    /* compression */
    run(eng, prog, 1, 0, 0, in, out, n * 16, n * 8, n);
    TOK(eng, gs_buf_read(out, 0, got, n * 8 * 4));
    for (size_t k = 0; k < n; k++) {
        bb_t d[8];
        gs_poseidon2_compress(h + 16 * k, h + 16 * k + 8, d);
        cr_assert_eq(memcmp(got + 8 * k, d, sizeof d), 0, "compression %zu differs", k);
    }
    /* proof-of-work check for witnesses 0..n-1 on state 0 */
    for (uint32_t absorb = 0; absorb < 8; absorb += 7) {
        for (uint32_t bits = 1; bits <= 9; bits += 4) {
            run(eng, prog, 2, absorb, bits, in, out, 16, n, n);
            TOK(eng, gs_buf_read(out, 0, got, n * 4));
            size_t hits = 0;
            for (uint32_t w = 0; w < n; w++) {
                int want = gs_pow_witness_ok(h, absorb, bits, w);
                cr_assert_eq(got[w], (uint32_t)want, "absorb %u bits %u witness %u: gpu %u cpu %d", absorb, bits, w,
                             got[w], want);
                hits += (size_t)want;
            }
            /* n witnesses at b bits all fail with probability (1 - 2^-b)^n:
             * e^-128 at 5 bits, but e^-8 at 9 (a random seed found one such
             * state), so only the lower counts must see a passing witness */
            if (bits <= 5)
                cr_expect_gt(hits, 0, "absorb %u bits %u: no witness of %zu passed", absorb, bits, n);
        }
    }
    gs_buf_destroy(in);
    gs_buf_destroy(out);
    free(h);
    free(got);
    gs_engine_destroy(eng);
}
