/* ThreadSanitizer driver for the concurrency test: the same work as
 * test_concurrency.c (concurrency_core.h) from a plain main, because
 * Criterion's forking runner cannot start under TSan. Exit 0 when every
 * thread's bytes equal the serial run's; TSan itself fails the run on a race
 * (TSAN_OPTIONS=halt_on_error=1 in .ci/run).
 *   tsan_concurrency [cpu|gpu|prove|shared|all]   (default all) */
#include <string.h>

#include "concurrency_core.h"

static int failures;

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "FAIL: " __VA_ARGS__);                                                             \
            fputc('\n', stderr);                                                                               \
            failures++;                                                                                        \
        }                                                                                                      \
    } while (0)

static void *xalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    memset(p, 0xA5, n); /* poison */
    return p;
}

static void cpu_result_alloc(cpu_result *r)
{
    memset(r, 0, sizeof *r);
    r->rows = xalloc(rows_words() * sizeof(bb_t));
    r->proofs = xalloc(proof_words() * sizeof(bb_t));
}

static void run_cpu(void)
{
    size_t words;
    bb_t *mat = make_matrix(&words);
    cpu_result ref, res[NTHREADS];
    cpu_result_alloc(&ref);
    cpu_job rj = {mat, words, &ref}, jobs[NTHREADS];
    cpu_work(&rj);
    CHECK(ref.st == GLSTARK_OK, "serial CPU run: %s", ref.msg);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        cpu_result_alloc(&res[t]);
        jobs[t] = (cpu_job){mat, words, &res[t]};
        if (pthread_create(&th[t], NULL, cpu_work, &jobs[t]))
            abort();
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++) {
        CHECK(res[t].st == GLSTARK_OK, "CPU thread %d: %s", t, res[t].msg);
        CHECK(!memcmp(res[t].root, ref.root, sizeof ref.root), "CPU thread %d: root differs", t);
        CHECK(!memcmp(res[t].rows, ref.rows, rows_words() * sizeof(bb_t)), "CPU thread %d: rows differ", t);
        CHECK(!memcmp(res[t].proofs, ref.proofs, proof_words() * sizeof(bb_t)), "CPU thread %d: paths differ", t);
        CHECK(res[t].witness == ref.witness, "CPU thread %d: witness differs", t);
        free(res[t].rows);
        free(res[t].proofs);
    }
    printf("cpu: %d engines in threads match the serial run\n", NTHREADS);
    free(ref.rows);
    free(ref.proofs);
    free(mat);
}

static void run_gpu(void)
{
    uint32_t *a = xalloc((size_t)GN * 16), *b = xalloc((size_t)GN * 16);
    uint64_t seed = 0x7EAD5;
    for (size_t i = 0; i < (size_t)GN * 4; i++) {
        a[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
        b[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    }
    gpu_job ref = {a, b, xalloc((size_t)GN * 16), xalloc((size_t)GN * 4), GLSTARK_OK, ""};
    gpu_work(&ref);
    CHECK(ref.st == GLSTARK_OK, "serial GPU run: %s", ref.msg);
    gpu_job jobs[3];
    pthread_t th[3];
    for (int t = 0; t < 3; t++) {
        jobs[t] = (gpu_job){a, b, xalloc((size_t)GN * 16), xalloc((size_t)GN * 4), GLSTARK_OK, ""};
        if (pthread_create(&th[t], NULL, gpu_work, &jobs[t]))
            abort();
    }
    for (int t = 0; t < 3; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 3; t++) {
        CHECK(jobs[t].st == GLSTARK_OK, "GPU thread %d: %s", t, jobs[t].msg);
        CHECK(!memcmp(jobs[t].out, ref.out, (size_t)GN * 16), "GPU thread %d: products differ", t);
        CHECK(!memcmp(jobs[t].fill, ref.fill, (size_t)GN * 4), "GPU thread %d: fill differs", t);
        free(jobs[t].out);
        free(jobs[t].fill);
    }
    printf("gpu: 3 devices in threads match the serial run\n");
    free(ref.out);
    free(ref.fill);
    free(a);
    free(b);
}

static void run_prove(void)
{
    prove_setup su;
    char msg[1024] = "";
    glstark_status st = prove_setup_make(&su, msg, sizeof msg);
    CHECK(st == GLSTARK_OK, "prove setup: %s", msg);
    if (st)
        return;
    prove_job ref = {su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", NULL};
    prove_work(&ref);
    CHECK(ref.st == GLSTARK_OK, "serial proof: %s", ref.msg);
    enum { NT = 3 };
    prove_job jobs[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        jobs[t] = (prove_job){su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", NULL};
        if (pthread_create(&th[t], NULL, prove_work, &jobs[t]))
            abort();
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        CHECK(jobs[t].st == GLSTARK_OK, "prove thread %d: %s", t, jobs[t].msg);
        CHECK(jobs[t].len == ref.len && jobs[t].proof && !memcmp(jobs[t].proof, ref.proof, ref.len),
              "prove thread %d: proof bytes differ", t);
        free(jobs[t].proof);
    }
    printf("prove: %d whole proofs in threads match the serial proof (%zu bytes)\n", NT, ref.len);
    free(ref.proof);
    prove_setup_free(&su);
}

/* Threads proving on one shared device (CPU, then GLES), against a proof
 * made alone on it; and the refused call back into the device. */
static void run_shared(glstark_engine_kind kind, const char *name)
{
    prove_setup su;
    char msg[1024] = "";
    glstark_status st = prove_setup_make(&su, msg, sizeof msg);
    CHECK(st == GLSTARK_OK, "shared setup: %s", msg);
    glstark_device *dev = NULL;
    if (!st)
        st = shared_device_open(kind, &dev, msg, sizeof msg);
    CHECK(st == GLSTARK_OK, "shared %s device: %s", name, msg);
    if (st) {
        prove_setup_free(&su);
        return;
    }
    prove_job ref = {su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", dev};
    prove_work(&ref);
    CHECK(ref.st == GLSTARK_OK, "shared %s: serial proof: %s", name, ref.msg);
    enum { NT = 3 };
    prove_job jobs[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        jobs[t] = (prove_job){su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", dev};
        if (pthread_create(&th[t], NULL, prove_work, &jobs[t]))
            abort();
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        CHECK(jobs[t].st == GLSTARK_OK, "shared %s thread %d: %s", name, t, jobs[t].msg);
        CHECK(jobs[t].len == ref.len && jobs[t].proof && !memcmp(jobs[t].proof, ref.proof, ref.len),
              "shared %s thread %d: proof bytes differ", name, t);
        free(jobs[t].proof);
    }
    reenter r = {.dev = dev, .pk = su.pk, .trace = &su.trace};
    prove_job outer = {su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", dev};
    reenter_run(&r, &outer);
    CHECK(outer.st == GLSTARK_OK && outer.len == ref.len && outer.proof && !memcmp(outer.proof, ref.proof, ref.len),
          "shared %s: the outer proof around refused nested calls: %s", name, outer.msg);
    CHECK(r.inner_prove == GLSTARK_ERR_BUSY && r.inner_check == GLSTARK_ERR_BUSY,
          "shared %s: nested calls gave %s / %s, not GLSTARK_ERR_BUSY", name, glstark_status_name(r.inner_prove),
          glstark_status_name(r.inner_check));
    printf("shared %s: %d threads on one device match the proof made alone (%zu bytes)\n", name, NT, ref.len);
    free(outer.proof);
    free(ref.proof);
    glstark_device_destroy(dev);
    prove_setup_free(&su);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    if (!strcmp(what, "cpu") || !strcmp(what, "all"))
        run_cpu();
    if (!strcmp(what, "gpu") || !strcmp(what, "all"))
        run_gpu();
    if (!strcmp(what, "prove") || !strcmp(what, "all"))
        run_prove();
    if (!strcmp(what, "shared") || !strcmp(what, "all")) {
        run_shared(GLSTARK_ENGINE_CPU, "cpu");
        run_shared(GLSTARK_ENGINE_GLES, "gles");
    }
    return failures ? 1 : 0;
}
