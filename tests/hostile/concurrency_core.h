#ifndef HOSTILE_CONCURRENCY_CORE_H
#define HOSTILE_CONCURRENCY_CORE_H
/* The work of the concurrency test (test_concurrency.c, Criterion) and of
 * its ThreadSanitizer driver (tsan_concurrency.c, a plain main: Criterion's
 * forking runner cannot start under TSan). No Criterion calls here.
 *
 * N threads, each with its own engine, computing the same thing must give
 * the same bytes as a serial run.
 *
 *  - CPU engines (each with 2 worker threads of its own): a Merkle commit of
 *    a 2^12 x 8 extension-field matrix, its root, openings of 16 queries and a
 *    12-bit proof-of-work grind;
 *  - GLES devices (one per thread, as the API allows): an extension-field
 *    multiply of 2^14 elements and a fill, read back;
 *  - whole proofs: threads proving the Fibonacci AIR (2^10 rows, OpenVM's
 *    small test parameters) with one shared proving key, each on a CPU
 *    engine of its own; the bytes must equal the serial proof, which equals
 *    OpenVM's fib-small_n10 (tests/data/openvm);
 *  - one shared device (CPU or GLES): threads proving the same on one
 *    glstark_device, which serialises them (include/glstark/device.h,
 *    "Threads"); and a call back into the device from a progress callback
 *    of a proof on it, which must return GLSTARK_ERR_BUSY.
 * The serial reference runs first on the test's own thread. The TSan build
 * (.ci/run) runs tsan_concurrency.c to look for data races in glstark. */
#include <stdio.h>
#include <stdlib.h>

#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"

#include <pthread.h>
#include <string.h>

#include "engine/hash_ops.h"
#include "field/field_batch.h"
#include "glstark/airs.h"
#include "glstark/prove.h"
#include "../util/splitmix.h"

#define NTHREADS 4

#define LOG_H 12
#define WIDTH 8
#define NQ 16

typedef struct cpu_result {
    bb_t root[GS_DIGEST_LEN];
    bb_t *rows;   /* NQ * WIDTH * 4 */
    bb_t *proofs; /* NQ * depth * 8 */
    uint32_t witness;
    glstark_status st;
    char msg[GS_ERROR_MSG_MAX];
} cpu_result;

static size_t rows_words(void) { return (size_t)NQ * WIDTH * 4; }
static size_t proof_words(void) { return (size_t)NQ * LOG_H * GS_DIGEST_LEN; }

static bb_t *make_matrix(size_t *words)
{
    size_t n = ((size_t)1 << LOG_H) * WIDTH * 4;
    bb_t *m = malloc(n * sizeof *m);
    if (!m)
        abort();
    uint64_t seed = 0xC0C0A;
    for (size_t i = 0; i < n; i++)
        m[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    *words = n;
    return m;
}

typedef struct cpu_job {
    const bb_t *mat;
    size_t words;
    cpu_result *out;
} cpu_job;

/* Everything one thread computes; returns through out->st / msg (no
 * Criterion asserts off the main thread). */
static void *cpu_work(void *arg)
{
    cpu_job *j = arg;
    cpu_result *r = j->out;
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    r->st = gs_cpu_engine_create(2, &eng, &err);
    if (r->st) {
        snprintf(r->msg, sizeof r->msg, "%s", err.msg);
        return NULL;
    }
    gs_buf *buf = NULL;
    gs_merkle_dev tree;
    memset(&tree, 0, sizeof tree);
    r->st = gs_buf_create(eng, j->words * sizeof(bb_t), &buf);
    if (!r->st)
        r->st = gs_buf_write(buf, 0, j->mat, j->words * sizeof(bb_t));
    if (!r->st)
        r->st = gs_engine_merkle_commit(eng, buf, 0, (size_t)1 << LOG_H, WIDTH, 4, 0, &tree);
    if (!r->st)
        r->st = gs_engine_merkle_root(eng, &tree, r->root);
    uint32_t idx[NQ];
    for (uint32_t q = 0; q < NQ; q++)
        idx[q] = (q * 2654435761u) % (1u << LOG_H);
    if (!r->st)
        r->st = gs_engine_merkle_open(eng, buf, 0, &tree, idx, NQ, r->rows, r->proofs);
    bb_t st[GS_P2_WIDTH];
    for (int i = 0; i < GS_P2_WIDTH; i++)
        st[i] = r->root[i % GS_DIGEST_LEN];
    if (!r->st)
        r->st = gs_engine_grind(eng, st, 3, 12, &r->witness);
    if (r->st)
        snprintf(r->msg, sizeof r->msg, "%s", eng->err.msg);
    gs_merkle_dev_release(&tree);
    gs_buf_destroy(buf);
    gs_engine_destroy(eng);
    return NULL;
}

/* ---- GLES: one device per thread ---- */

#define GN (1u << 14)

typedef struct gpu_job {
    const uint32_t *a, *b;
    uint32_t *out;  /* 4*GN words: a*b (ext4) */
    uint32_t *fill; /* GN words */
    glstark_status st;
    char msg[GS_ERROR_MSG_MAX];
} gpu_job;

static void *gpu_work(void *arg)
{
    gpu_job *j = arg;
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = NULL;
    j->st = gs_gles_engine_create_opts(NULL, &eng, &err);
    if (j->st) {
        snprintf(j->msg, sizeof j->msg, "%s", err.msg);
        return NULL;
    }
    const size_t bytes = (size_t)GN * 16;
    gs_buf *ba = NULL, *bb = NULL, *bo = NULL;
    j->st = gs_buf_create(eng, bytes, &ba);
    if (!j->st)
        j->st = gs_buf_create(eng, bytes, &bb);
    if (!j->st)
        j->st = gs_buf_create(eng, bytes, &bo);
    if (!j->st)
        j->st = gs_buf_write(ba, 0, j->a, bytes);
    if (!j->st)
        j->st = gs_buf_write(bb, 0, j->b, bytes);
    if (!j->st)
        j->st = gs_buf_fill_u32(bo, 0, (size_t)GN * 4, 0xDEADBEEFu);
    if (!j->st)
        j->st = gs_gles_field_op(eng, GS_FOP4_MUL, ba, bb, bo, GN, 0);
    if (!j->st)
        j->st = gs_buf_read(bo, 0, j->out, bytes);
    if (!j->st)
        j->st = gs_gles_fill_pattern(eng, bo, 0, GN, 7, 3);
    if (!j->st)
        j->st = gs_buf_read(bo, 0, j->fill, (size_t)GN * 4);
    if (j->st)
        snprintf(j->msg, sizeof j->msg, "%s", eng->err.msg);
    gs_buf_destroy(ba);
    gs_buf_destroy(bb);
    gs_buf_destroy(bo);
    gs_engine_destroy(eng);
    return NULL;
}


/* ---- whole proofs: a shared proving key, a CPU engine per call ---- */

typedef struct prove_job {
    const glstark_proving_key *pk;
    const glstark_air_trace *trace;
    uint8_t *proof;
    size_t len;
    glstark_status st;
    char msg[GS_ERROR_MSG_MAX];
    glstark_device *dev; /* NULL: a CPU engine of the call's own */
} prove_job;

static void *prove_work(void *arg)
{
    prove_job *j = arg;
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.cpu_threads = 2;
    o.device = j->dev;
    glstark_prove_result r;
    j->st = glstark_prove(j->pk, j->trace, 1, &o, &r);
    if (j->st == GLSTARK_OK) {
        j->proof = malloc(r.proof_len);
        if (j->proof)
            memcpy(j->proof, r.proof, r.proof_len);
        j->len = r.proof_len;
    } else {
        snprintf(j->msg, sizeof j->msg, "%s", r.message);
    }
    glstark_prove_result_free(&r);
    return NULL;
}

typedef struct prove_setup {
    glstark_air *air;
    glstark_params *params;
    glstark_proving_key *pk;
    glstark_verifying_key *vk;
    uint32_t *rows, pv[3];
    glstark_air_trace trace;
} prove_setup;

static glstark_status prove_setup_make(prove_setup *s, char *msg, size_t n)
{
    memset(s, 0, sizeof *s);
    const size_t h = 1u << 10;
    glstark_status st = glstark_fibonacci_air(&s->air);
    if (!st)
        st = glstark_params_test_small(&s->params);
    if (!st)
        st = glstark_keygen(&s->air, 1, s->params, &s->pk, &s->vk, msg, n);
    if (st)
        return st;
    s->rows = malloc(2 * h * sizeof(uint32_t));
    if (!s->rows)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    st = glstark_fibonacci_trace(0, 1, h, s->rows, s->pv);
    s->trace = (glstark_air_trace){h, {s->rows, 2}, NULL, s->pv, 3};
    return st;
}

static void prove_setup_free(prove_setup *s)
{
    free(s->rows);
    glstark_proving_key_destroy(s->pk);
    glstark_verifying_key_destroy(s->vk);
    glstark_params_destroy(s->params);
    glstark_air_destroy(s->air);
}
/* ---- one device shared by threads ---- */

/* A device of the given engine for the shared-device work (GLES forced, so
 * llvmpipe proves on the GPU path). */
static glstark_status shared_device_open(glstark_engine_kind kind, glstark_device **dev, char *msg, size_t n)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = kind;
    o.cpu_threads = 2;
    return glstark_device_create(&o, dev, msg, n);
}

/* A proof whose first progress callback calls back into its own device:
 * a nested proof and a self-check, which must both be refused with
 * GLSTARK_ERR_BUSY while the outer proof goes on to the right bytes. */
typedef struct reenter {
    glstark_device *dev;
    const glstark_proving_key *pk;
    const glstark_air_trace *trace;
    int calls;
    glstark_status inner_prove, inner_check;
    char inner_msg[GS_ERROR_MSG_MAX];
} reenter;

static void reenter_progress(void *user, const glstark_span *span, int finished)
{
    (void)span;
    (void)finished;
    reenter *r = user;
    if (r->calls++)
        return;
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.device = r->dev;
    glstark_prove_result res;
    r->inner_prove = glstark_prove(r->pk, r->trace, 1, &o, &res);
    snprintf(r->inner_msg, sizeof r->inner_msg, "%s", res.message);
    glstark_prove_result_free(&res);
    r->inner_check = glstark_device_self_check(r->dev, 1, 8);
}

/* The outer proof's bytes go to j (as prove_work). */
static void reenter_run(reenter *r, prove_job *j)
{
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.device = r->dev;
    o.progress = reenter_progress;
    o.progress_user = r;
    glstark_prove_result res;
    j->st = glstark_prove(r->pk, r->trace, 1, &o, &res);
    if (j->st == GLSTARK_OK) {
        j->proof = malloc(res.proof_len);
        if (j->proof)
            memcpy(j->proof, res.proof, res.proof_len);
        j->len = res.proof_len;
    } else {
        snprintf(j->msg, sizeof j->msg, "%s", res.message);
    }
    glstark_prove_result_free(&res);
}
#endif
