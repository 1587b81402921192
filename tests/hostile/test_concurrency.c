/* Concurrency: N threads, each with its own engine, give the same bytes as
 * a serial run (the work is in concurrency_core.h). */
#include "../gles/gles_test_util.h"

#include "concurrency_core.h"

static void result_init(cpu_result *r)
{
    memset(r, 0, sizeof *r);
    r->rows = tu_alloc(rows_words() * sizeof(bb_t));
    r->proofs = tu_alloc(proof_words() * sizeof(bb_t));
    memset(r->rows, 0xA5, rows_words() * sizeof(bb_t)); /* poison */
    memset(r->proofs, 0xA5, proof_words() * sizeof(bb_t));
}

Test(concurrency, cpu_engines_in_threads_match_serial, .timeout = 300)
{
    size_t words;
    bb_t *mat = make_matrix(&words);
    cpu_result ref;
    result_init(&ref);
    cpu_job rj = {mat, words, &ref};
    cpu_work(&rj);
    cr_assert_eq(ref.st, GLSTARK_OK, "serial run: %s", ref.msg);

    cpu_result res[NTHREADS];
    cpu_job jobs[NTHREADS];
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        result_init(&res[t]);
        jobs[t] = (cpu_job){mat, words, &res[t]};
        cr_assert_eq(pthread_create(&th[t], NULL, cpu_work, &jobs[t]), 0);
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++) {
        cr_assert_eq(res[t].st, GLSTARK_OK, "thread %d: %s", t, res[t].msg);
        cr_assert_arr_eq(res[t].root, ref.root, sizeof ref.root, "thread %d: root differs", t);
        cr_assert_arr_eq(res[t].rows, ref.rows, rows_words() * sizeof(bb_t), "thread %d: opened rows differ", t);
        cr_assert_arr_eq(res[t].proofs, ref.proofs, proof_words() * sizeof(bb_t), "thread %d: paths differ", t);
        cr_assert_eq(res[t].witness, ref.witness, "thread %d: PoW witness differs", t);
        free(res[t].rows);
        free(res[t].proofs);
    }
    /* the root is the C reference's (gs_merkle_commit on the host) */
    gs_merkle_tree host;
    gs_error err;
    cr_assert_eq(gs_merkle_commit(mat, (size_t)1 << LOG_H, WIDTH, 4, 0, (gs_workers){NULL, 1}, &host, &err),
                 GLSTARK_OK, "%s", err.msg);
    cr_assert_arr_eq(gs_merkle_root(&host), ref.root, sizeof ref.root);
    gs_merkle_tree_free(&host);
    free(ref.rows);
    free(ref.proofs);
    free(mat);
}

Test(concurrency, gles_devices_in_threads_match_serial, .timeout = 300)
{
    unsetenv("GLSTARK_PLATFORM");
    unsetenv("GLSTARK_DRM_NODE");
    uint32_t *a = tu_alloc((size_t)GN * 16), *b = tu_alloc((size_t)GN * 16);
    uint64_t seed = 0x7EAD5;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (size_t i = 0; i < (size_t)GN * 4; i++) {
        a[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
        b[i] = bb_from_canonical((uint32_t)(splitmix64(&seed) % BB_P));
    }
    gpu_job ref = {a, b, tu_alloc((size_t)GN * 16), tu_alloc((size_t)GN * 4), GLSTARK_OK, ""};
    gpu_work(&ref);
    cr_assert_eq(ref.st, GLSTARK_OK, "serial run: %s", ref.msg);
    uint32_t *want = tu_alloc((size_t)GN * 16);
    gs_field_batch_cpu(GS_FOP4_MUL, a, b, want, GN, 0);
    cr_assert_arr_eq(ref.out, want, (size_t)GN * 16, "serial GPU run differs from the C reference");

    const int nt = 3;
    gpu_job jobs[3];
    pthread_t th[3];
    for (int t = 0; t < nt; t++) {
        jobs[t] = (gpu_job){a, b, tu_alloc((size_t)GN * 16), tu_alloc((size_t)GN * 4), GLSTARK_OK, ""};
        memset(jobs[t].out, 0xA5, (size_t)GN * 16);
        cr_assert_eq(pthread_create(&th[t], NULL, gpu_work, &jobs[t]), 0);
    }
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < nt; t++) {
        cr_assert_eq(jobs[t].st, GLSTARK_OK, "thread %d: %s", t, jobs[t].msg);
        cr_assert_arr_eq(jobs[t].out, ref.out, (size_t)GN * 16, "thread %d: ext4 products differ", t);
        cr_assert_arr_eq(jobs[t].fill, ref.fill, (size_t)GN * 4, "thread %d: fill differs", t);
        free(jobs[t].out);
        free(jobs[t].fill);
    }
    free(ref.out);
    free(ref.fill);
    free(want);
    free(a);
    free(b);
}

/* Three threads prove su's statement at once (on dev, or each on a CPU
 * engine of its own when dev is NULL); each proof must equal ref's bytes. */
static void prove_on_threads(const prove_setup *su, glstark_device *dev, const prove_job *ref, const char *where)
{
    enum { NT = 3 };
    prove_job jobs[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        jobs[t] = (prove_job){su->pk, &su->trace, NULL, 0, GLSTARK_OK, "", dev};
        cr_assert_eq(pthread_create(&th[t], NULL, prove_work, &jobs[t]), 0);
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        cr_assert_eq(jobs[t].st, GLSTARK_OK, "thread %d: %s", t, jobs[t].msg);
        cr_assert(jobs[t].len == ref->len && memcmp(jobs[t].proof, ref->proof, ref->len) == 0,
                  "thread %d: proof bytes%s differ from the serial run", t, where);
        free(jobs[t].proof);
    }
}

Test(concurrency, whole_proofs_in_threads_match_serial_and_openvm, .timeout = 600)
{
    prove_setup su;
    char msg[1024] = "";
    cr_assert_eq(prove_setup_make(&su, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    prove_job ref = {su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", NULL};
    prove_work(&ref);
    cr_assert_eq(ref.st, GLSTARK_OK, "serial proof: %s", ref.msg);
    /* the serial proof is OpenVM's own (an independent reference) */
    char path[1024];
    snprintf(path, sizeof path, "%s/openvm/fib-small_n10.proof.bin", GLSTARK_TEST_DATA);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    uint8_t *want = tu_alloc(ref.len + 1);
    size_t wn = fread(want, 1, ref.len + 1, f);
    fclose(f);
    cr_assert(wn == ref.len && memcmp(want, ref.proof, wn) == 0, "serial proof differs from OpenVM's fib-small_n10");
    free(want);

    prove_on_threads(&su, NULL, &ref, "");
    cr_assert_eq(glstark_verify(su.vk, ref.proof, ref.len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    free(ref.proof);
    prove_setup_free(&su);
}

/* Threads proving on one shared device give the serial proof (OpenVM's
 * fib-small_n10); a call back into the device from a progress callback is
 * refused with GLSTARK_ERR_BUSY. */
static void shared_device_case(glstark_engine_kind kind)
{
    prove_setup su;
    char msg[1024] = "";
    cr_assert_eq(prove_setup_make(&su, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_device *dev = NULL;
    cr_assert_eq(shared_device_open(kind, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    prove_job ref = {su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", dev};
    prove_work(&ref); /* on this thread, alone */
    cr_assert_eq(ref.st, GLSTARK_OK, "serial proof on the device: %s", ref.msg);

    prove_on_threads(&su, dev, &ref, " on the shared device");

    reenter r = {.dev = dev, .pk = su.pk, .trace = &su.trace};
    prove_job outer = {su.pk, &su.trace, NULL, 0, GLSTARK_OK, "", dev};
    reenter_run(&r, &outer);
    cr_assert_eq(outer.st, GLSTARK_OK, "the outer proof: %s", outer.msg);
    cr_assert(outer.len == ref.len && memcmp(outer.proof, ref.proof, ref.len) == 0,
              "the outer proof's bytes differ after the refused nested calls");
    cr_assert_eq(r.inner_prove, GLSTARK_ERR_BUSY, "nested prove: %s (%s)", glstark_status_name(r.inner_prove),
                 r.inner_msg);
    cr_assert(strstr(r.inner_msg, "inside a call on this device") != NULL, "message: %s", r.inner_msg);
    cr_assert_eq(r.inner_check, GLSTARK_ERR_BUSY, "nested self-check: %s", glstark_status_name(r.inner_check));
    free(outer.proof);

    /* the device still works after all that, on yet another thread's turn */
    cr_assert_eq(glstark_device_self_check(dev, 7, 64), GLSTARK_OK, "%s", glstark_device_last_error(dev));
    cr_assert_eq(glstark_verify(su.vk, ref.proof, ref.len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    free(ref.proof);
    glstark_device_destroy(dev);
    prove_setup_free(&su);
}

Test(concurrency, threads_share_one_cpu_device, .timeout = 600) { shared_device_case(GLSTARK_ENGINE_CPU); }

Test(concurrency, threads_share_one_gles_device, .timeout = 600) { shared_device_case(GLSTARK_ENGINE_GLES); }
