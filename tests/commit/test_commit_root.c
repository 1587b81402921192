/* The stacked commitment (stack -> RS encode -> SWIRL Merkle root) of the
 * traces in OpenVM's shared vectors equals their common_main_commit, on the
 * CPU engine and on the GLES engine (default limits, and a lowered binding
 * limit so the chunked paths produce the root too). Fibonacci traces come
 * from the built-in generator (checked against OpenVM's rows in
 * tests/air); the interactions-small traces from tests/data/rs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dft_ops.h"
#include "api/device_testing.h"
#include "../gles/gles_test_util.h"
#include "engine/gles/gles_engine.h"
#include "engine/hash_ops.h"
#include "glstark/airs.h"
#include "common/stacking.h"

#include "../util/test_files.h"

/* The 8 numbers after "key": in a vector file. */
static void json_digest(const char *rel, const char *key, uint32_t out[8])
{
    char *txt = tf_read_text(rel), *p = strstr(txt, key);
    cr_assert(p, "%s has no %s", rel, key);
    p += strlen(key);
    for (int i = 0; i < 8; i++)
        out[i] = (uint32_t)tf_next_num(&p);
    free(txt);
}

typedef struct commit_case {
    unsigned l, n, b, k;
    size_t nt;
    gs_stack_trace_shape sh[4];
    uint32_t *vals[4]; /* canonical, column-major */
} commit_case;

/* Root of the stacked commitment on eng, canonical. */
static void commit_root(gs_engine *eng, const commit_case *cc, uint32_t root[8])
{
    gs_stack_layout lay;
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(cc->l, cc->n, cc->sh, cc->nt, &lay, &err), GLSTARK_OK, "%s", err.msg);
    gs_trace_ref refs[4];
    for (size_t t = 0; t < cc->nt; t++) {
        size_t cnt = (size_t)cc->sh[t].width << cc->sh[t].log_height;
        bb_t *m = malloc(cnt * sizeof *m);
        for (size_t i = 0; i < cnt; i++)
            m[i] = bb_from_canonical(cc->vals[t][i]);
        refs[t].buf = NULL;
        refs[t].offset = 0;
        cr_assert_eq(gs_buf_create(eng, cnt * 4, &refs[t].buf), GLSTARK_OK);
        cr_assert_eq(gs_buf_write(refs[t].buf, 0, m, cnt * 4), GLSTARK_OK);
        free(m);
    }
    size_t N = (size_t)1 << (cc->l + cc->n + cc->b);
    gs_buf *cw = NULL;
    cr_assert_eq(gs_buf_create(eng, N * lay.width * 4, &cw), GLSTARK_OK);
    cr_assert_eq(gs_buf_fill_u32(cw, 0, N * lay.width, 0xDEADBEEFu), GLSTARK_OK);
    glstark_status st = gs_rs_code_matrix(eng, &lay, refs, cc->b, 0, lay.width, cw, 0);
    cr_assert_eq(st, GLSTARK_OK, "%s rs_code_matrix: %s", eng->core->name, eng->err.msg);
    gs_merkle_dev tree;
    st = gs_engine_merkle_commit(eng, cw, 0, N, lay.width, 1, cc->k, &tree);
    cr_assert_eq(st, GLSTARK_OK, "%s merkle: %s", eng->core->name, eng->err.msg);
    bb_t r[8];
    cr_assert_eq(gs_engine_merkle_root(eng, &tree, r), GLSTARK_OK);
    for (int i = 0; i < 8; i++)
        root[i] = bb_to_canonical(r[i]);
    gs_merkle_dev_release(&tree);
    gs_buf_destroy(cw);
    for (size_t t = 0; t < cc->nt; t++)
        gs_buf_destroy(refs[t].buf);
    gs_stack_layout_free(&lay);
}

static void fib_case(commit_case *cc, unsigned l, unsigned n, unsigned k, unsigned log_h)
{
    memset(cc, 0, sizeof *cc);
    cc->l = l;
    cc->n = n;
    cc->b = 1;
    cc->k = k;
    cc->nt = 1;
    cc->sh[0].width = 2;
    cc->sh[0].log_height = log_h;
    size_t h = (size_t)1 << log_h;
    cc->vals[0] = malloc(2 * h * sizeof(uint32_t));
    uint32_t pv[3];
    cr_assert_eq(glstark_fibonacci_trace(0, 1, h, cc->vals[0], pv), GLSTARK_OK);
}

/* interactions-small: traces in stacking order from the rs vector file. */
static void interactions_case(commit_case *cc)
{
    memset(cc, 0, sizeof *cc);
    char *txt = tf_read_text("rs/interactions-small.rs.txt"), *p = strstr(txt, "params ");
    cc->l = (unsigned)tf_next_num(&p);
    cc->n = (unsigned)tf_next_num(&p);
    cc->b = (unsigned)tf_next_num(&p);
    cc->nt = (size_t)tf_next_num(&p);
    cc->k = 3;
    cr_assert(cc->nt <= 4);
    for (size_t t = 0; t < cc->nt; t++) {
        uint32_t w = (uint32_t)tf_next_num(&p), h = (uint32_t)tf_next_num(&p), lh = 0;
        while ((1u << lh) < h)
            lh++;
        cc->sh[t].width = w;
        cc->sh[t].log_height = lh;
        cc->vals[t] = malloc(((size_t)w * h + 1) * sizeof(uint32_t));
        for (size_t i = 0; i < (size_t)w * h; i++)
            cc->vals[t][i] = (uint32_t)tf_next_num(&p);
    }
    free(txt);
}

static void free_case(commit_case *cc)
{
    for (size_t t = 0; t < cc->nt; t++)
        free(cc->vals[t]);
}

static void check_case(const commit_case *cc, const char *vec, gs_engine **engs, int neng)
{
    uint32_t want[8], got[8];
    json_digest(vec, "\"common_main_commit\":", want);
    for (int e = 0; e < neng; e++) {
        commit_root(engs[e], cc, got);
        for (int i = 0; i < 8; i++)
            cr_assert_eq(got[i], want[i], "%s on %s engine (%s): root word %d is %u, OpenVM's %u", vec,
                         engs[e]->core->name, e == 2 ? "4 KiB bindings" : "default limits", i, got[i], want[i]);
    }
}

static int open_engines(gs_engine **engs)
{
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(2, &engs[0], &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_gles_engine_create_opts(NULL, &engs[1], &err), GLSTARK_OK, "%s", err.msg);
    gs_device_config o;
    o = tu_config();
    o.max_binding_bytes = 16384; /* codeword columns of 2^11 rows, windows of a few columns */
    cr_assert_eq(gs_gles_engine_create(&o, &engs[2], &err), GLSTARK_OK, "%s", err.msg);
    return 3;
}

static void close_engines(gs_engine **engs, int n)
{
    for (int i = 0; i < n; i++)
        gs_engine_destroy(engs[i]);
}

Test(commit_root, fib_small_all_sizes)
{
    gs_engine *engs[3];
    int n = open_engines(engs);
    static const struct {
        const char *vec;
        unsigned log_h;
    } cases[] = {{"openvm/fib-small_n1.json", 1},
                 {"openvm/fib-small_n2.json", 2},
                 {"openvm/fib-small_n3.json", 3},
                 {"openvm/fib-small_n4.json", 4},
                 {"openvm/fib-small_n10.json", 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        commit_case cc;
        fib_case(&cc, 2, 8, 3, cases[i].log_h);
        check_case(&cc, cases[i].vec, engs, n);
        free_case(&cc);
    }
    close_engines(engs, n);
}

Test(commit_root, interactions_small)
{
    gs_engine *engs[3];
    int n = open_engines(engs);
    commit_case cc;
    interactions_case(&cc);
    check_case(&cc, "openvm/interactions-small.json", engs, n);
    free_case(&cc);
    close_engines(engs, n);
}

/* fib-app18_n10: l_skip 4, n_stack 14, k 4 (a 2^19-row codeword). The
 * lowered-binding engine cannot hold a 2 MiB codeword column and is skipped. */
Test(commit_root, fib_app18_n10)
{
    gs_engine *engs[3];
    int n = open_engines(engs);
    commit_case cc;
    fib_case(&cc, 4, 14, 4, 10);
    check_case(&cc, "openvm/fib-app18_n10.json", engs, 2);
    free_case(&cc);
    close_engines(engs, n);
}
