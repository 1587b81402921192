/* Proves (or verifies) OpenVM's Fibonacci AIR: 2^N rows starting at (0, 1),
 * public values [0, 1, last value].
 *
 *   fibonacci --log-rows N --params small|app:L --engine cpu|gles --out FILE
 *   fibonacci --log-rows N --params small|app:L --verify FILE
 *
 * With the same N and params as OpenVM's fib tests the proof bytes equal
 * OpenVM's. Exit codes: see example_common.h. */
#include "example_common.h"

static void usage(void)
{
    fprintf(stderr, "usage: fibonacci --log-rows N [--params small|app:L] [--engine cpu|gles] [--out FILE] [--key-out FILE]\n"
                    "                 [--ctx-out FILE]\n"
                    "       fibonacci --log-rows N [--params small|app:L] --verify FILE\n");
}

int main(int argc, char **argv)
{
    long log_rows = -1;
    const char *params = "small", *engine = "cpu", *out = NULL, *verify = NULL, *key_out = NULL, *ctx_out = NULL;
    for (int i = 1; i < argc; i += 2) { /* --option value pairs */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            usage();
            return 2;
        }
        if (strcmp(a, "--log-rows") == 0)
            log_rows = strtol(v, NULL, 10);
        else if (strcmp(a, "--params") == 0)
            params = v;
        else if (strcmp(a, "--engine") == 0)
            engine = v;
        else if (strcmp(a, "--out") == 0)
            out = v;
        else if (strcmp(a, "--verify") == 0)
            verify = v;
        else if (strcmp(a, "--key-out") == 0)
            key_out = v;
        else if (strcmp(a, "--ctx-out") == 0)
            ctx_out = v;
        else {
            usage();
            return 2;
        }
    }
    if (log_rows < 0 || log_rows > 30) {
        usage();
        return 2;
    }
    glstark_params *p = NULL;
    int rc = ex_params(params, &p);
    if (rc)
        return rc;
    if ((size_t)log_rows > glstark_params_log_stacked_height(p)) {
        fprintf(stderr, "error: 2^%ld rows exceed the stacked height 2^%zu of params %s\n", log_rows,
                glstark_params_log_stacked_height(p), params);
        glstark_params_destroy(p);
        return 2;
    }
    glstark_air *air = NULL;
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    if ((rc = ex_fibonacci_keys(p, &air, &pk, &vk)) != 0) {
        /* the message is out */
    } else if (key_out && (rc = ex_write_key(vk, key_out)) != 0) {
        /* the message is out */
    } else if (verify) {
        rc = ex_verify_file(vk, verify, 0);
    } else {
        glstark_device *dev = NULL;
        rc = ex_open_engine(engine, &dev);
        if (!rc) {
            size_t h = (size_t)1 << log_rows;
            uint32_t *trace = malloc(2 * h * sizeof(uint32_t)), pv[3];
            if (!trace || glstark_fibonacci_trace(0, 1, h, trace, pv)) {
                fprintf(stderr, "error: cannot build the trace\n");
                rc = 1;
            } else {
                printf("fibonacci: 2^%ld rows, params %s, engine %s\n", log_rows, params, engine);
                glstark_air_trace t = {h, {trace, 2}, NULL, pv, 3};
                if (ctx_out)
                    rc = ex_write_context(pk, &t, 1, ctx_out);
                if (!rc)
                    rc = ex_prove(pk, vk, &t, 1, dev, out);
            }
            free(trace);
            glstark_device_destroy(dev);
        }
    }
    glstark_verifying_key_destroy(vk);
    glstark_proving_key_destroy(pk);
    glstark_air_destroy(air);
    glstark_params_destroy(p);
    return rc;
}
