/* Shared by the examples (fibonacci, keccakf, range_check, glstark-verify):
 * engine choice, prove → write → verify, and verifying a proof file. Public
 * API only.
 *
 * --key-out FILE writes the verifying key for glstark-verify and
 * glstark-prove; --ctx-out FILE the proving context for glstark-prove.
 *
 * Exit codes: proving: 0 when the proof was made, written and verifies,
 * non-zero otherwise. --verify: 0 accepted, 1 rejected, 2 unreadable or
 * malformed input, or any other failure to verify. */
#ifndef GLSTARK_EXAMPLE_COMMON_H
#define GLSTARK_EXAMPLE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glstark/glstark.h"

static inline double ex_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "cpu" or "gles" -> a device; NULL device = the library's own CPU engine. */
static inline int ex_open_engine(const char *engine, glstark_device **dev)
{
    *dev = NULL;
    if (strcmp(engine, "cpu") == 0)
        return 0;
    if (strcmp(engine, "gles") != 0) {
        fprintf(stderr, "error: --engine must be cpu or gles, not '%s'\n", engine);
        return 2;
    }
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES; /* not AUTO, which picks the CPU engine on a software renderer */
    char msg[4096];
    glstark_status st = glstark_device_create(&o, dev, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "error: cannot open a GLES device (%s): %s\n", glstark_status_name(st), msg);
        return 1;
    }
    printf("engine: gles on %s (%s)\n", glstark_device_renderer(*dev), glstark_device_platform_path(*dev));
    return 0;
}

/* The Fibonacci AIR and its keys under params p; 0, or 2 with the reason
 * printed (the air and keys the caller frees, also after a failure). */
static inline int ex_fibonacci_keys(const glstark_params *p, glstark_air **air, glstark_proving_key **pk,
                                    glstark_verifying_key **vk)
{
    char msg[2048] = "the Fibonacci AIR was not made";
    glstark_status st = glstark_fibonacci_air(air);
    if (!st)
        st = glstark_keygen(air, 1, p, pk, vk, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "keygen failed (%s): %s\n", glstark_status_name(st), msg);
        return 2;
    }
    return 0;
}

/* Verifies `bytes` against vk and prints the outcome (an acceptance not
 * when quiet); returns the exit code: 0 accepted, 1 rejected, 2 malformed or
 * not verifiable (out of memory, say). */
static inline int ex_verify_bytes(const glstark_verifying_key *vk, const uint8_t *bytes, size_t len, const char *what,
                                  int quiet)
{
    char msg[2048];
    double t0 = ex_now();
    glstark_status st = glstark_verify(vk, bytes, len, msg, sizeof msg);
    double dt = ex_now() - t0;
    if (st == GLSTARK_OK) {
        if (!quiet)
            printf("verify: %s accepted (%zu bytes) in %.3f s\n", what, len, dt);
        return 0;
    }
    const char *how = st == GLSTARK_ERR_REJECTED    ? "REJECTED"
                      : st == GLSTARK_ERR_MALFORMED ? "malformed (not a proof, or not one for this key)"
                                                    : "could not be verified";
    fprintf(stderr, "verify: %s %s (%s): %s\n", what, how, glstark_status_name(st), msg);
    return st == GLSTARK_ERR_REJECTED ? 1 : 2;
}

/* Reads and verifies a proof file; the exit code as ex_verify_bytes, 2 when
 * the file cannot be read. */
static inline int ex_verify_file(const glstark_verifying_key *vk, const char *path, int quiet)
{
    uint8_t *b = NULL;
    size_t n = 0;
    char msg[1024];
    glstark_status st = glstark_read_file(path, &b, &n, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "error: %s\n", msg);
        return 2;
    }
    int rc = ex_verify_bytes(vk, b, n, path, quiet);
    glstark_free(b);
    return rc;
}

/* Writes vk to path in OpenVM's pre-hash encoding (what glstark-verify and
 * glstark_verifying_key_decode read); returns the exit code. */
static inline int ex_write_key(const glstark_verifying_key *vk, const char *path)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    char msg[1024];
    glstark_status st = glstark_verifying_key_encode(vk, &bytes, &len);
    if (st) {
        fprintf(stderr, "error: cannot encode the verifying key: %s\n", glstark_status_name(st));
        return 1;
    }
    st = glstark_write_file(path, bytes, len, msg, sizeof msg);
    glstark_free(bytes);
    if (st) {
        fprintf(stderr, "error: %s\n", msg);
        return 1;
    }
    printf("wrote the verifying key to %s (%zu bytes)\n", path, len);
    return 0;
}

/* Writes the traces as a proving context (glstark-prove's input, with the
 * key from --key-out); returns the exit code. */
static inline int ex_write_context(const glstark_proving_key *pk, const glstark_air_trace *traces, size_t n,
                                   const char *path)
{
    char msg[1024];
    glstark_status st = glstark_context_write(path, pk, traces, n, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "error: cannot write the proving context (%s): %s\n", glstark_status_name(st), msg);
        return 1;
    }
    printf("wrote the proving context to %s\n", path);
    return 0;
}

/* Proves, writes out (if not NULL), verifies; returns the exit code. */
static inline int ex_prove(const glstark_proving_key *pk, const glstark_verifying_key *vk, const glstark_air_trace *traces,
                    size_t n, glstark_device *dev, const char *out)
{
    glstark_prove_options po;
    glstark_prove_options_init(&po);
    po.device = dev;
    glstark_prove_result r;
    glstark_status st = glstark_prove(pk, traces, n, &po, &r);
    if (st) {
        fprintf(stderr, "prove failed (%s): %s\n", glstark_status_name(st), r.message);
        return 1;
    }
    printf("prove: %zu bytes in %.3f s (check %.3f, commit %.3f, LogUp PoW %.3f, LogUp/zerocheck %.3f, stacked "
           "reduction %.3f, WHIR %.3f)\n",
           r.proof_len, r.seconds, r.phase_seconds[0], r.phase_seconds[1], r.phase_seconds[2], r.phase_seconds[3],
           r.phase_seconds[4], r.phase_seconds[5]);
    if (r.fallback_phases)
        printf("note: CPU fallback: %s\n", r.fallback_note);
    int rc = 0;
    if (out) {
        char msg[1024];
        st = glstark_write_file(out, r.proof, r.proof_len, msg, sizeof msg);
        if (st) {
            fprintf(stderr, "error: %s\n", msg);
            rc = 1;
        } else {
            printf("wrote %s\n", out);
        }
    }
    if (!rc)
        rc = ex_verify_bytes(vk, r.proof, r.proof_len, "the new proof", 0) ? 1 : 0;
    glstark_prove_result_free(&r);
    return rc;
}

/* "small" or "app:L" */
static inline int ex_params(const char *spec, glstark_params **p)
{
    char msg[1024];
    if (strcmp(spec, "small") == 0)
        return glstark_params_test_small(p) ? 2 : 0;
    if (strncmp(spec, "app:", 4) == 0) {
        char *end;
        unsigned long L = strtoul(spec + 4, &end, 10);
        if (*end || end == spec + 4) {
            fprintf(stderr, "error: --params app:L needs a number L, got '%s'\n", spec);
            return 2;
        }
        glstark_status st = glstark_params_app_100_bits(L, p, msg, sizeof msg);
        if (st) {
            fprintf(stderr, "error: params %s: %s\n", spec, msg);
            return 2;
        }
        return 0;
    }
    fprintf(stderr, "error: --params must be small or app:L, not '%s'\n", spec);
    return 2;
}

#endif
