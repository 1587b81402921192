/* Proves (or verifies) Keccak-f[1600] permutations with Plonky3's KeccakAir,
 * as OpenVM's keccakf example does: inputs from Rust StdRng seeded with S,
 * params app_params_with_100_bits_security(L).
 *
 *   keccakf --perms N --seed S --log-stacked-height L --engine cpu|gles --out FILE
 *   keccakf --perms N --seed S --log-stacked-height L --verify FILE
 *
 * Exit codes: see example_common.h. */
#include "example_common.h"

static void usage(void)
{
    fprintf(stderr, "usage: keccakf --perms N [--seed S] [--log-stacked-height L] [--engine cpu|gles] [--out FILE]\n"
                    "       keccakf --perms N [--seed S] [--log-stacked-height L] --verify FILE\n");
}

int main(int argc, char **argv)
{
    long perms = -1;
    unsigned long long seed = 42;
    long L = 21;
    const char *engine = "cpu", *out = NULL, *verify = NULL;
    for (int i = 1; i < argc; i += 2) { /* --option value pairs */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            usage();
            return 2;
        }
        if (strcmp(a, "--perms") == 0)
            perms = strtol(v, NULL, 10);
        else if (strcmp(a, "--seed") == 0)
            seed = strtoull(v, NULL, 10);
        else if (strcmp(a, "--log-stacked-height") == 0)
            L = strtol(v, NULL, 10);
        else if (strcmp(a, "--engine") == 0)
            engine = v;
        else if (strcmp(a, "--out") == 0)
            out = v;
        else if (strcmp(a, "--verify") == 0)
            verify = v;
        else {
            usage();
            return 2;
        }
    }
    if (perms < 1 || perms > (1l << 20) || L < 1) {
        usage();
        return 2;
    }
    char msg[2048];
    glstark_params *p = NULL;
    glstark_status st = glstark_params_app_100_bits((size_t)L, &p, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "error: params for L = %ld: %s\n", L, msg);
        return 2;
    }
    size_t h = glstark_keccak_trace_height((size_t)perms);
    if (h > ((size_t)1 << glstark_params_log_stacked_height(p))) {
        fprintf(stderr, "error: %ld permutations need %zu rows, more than the stacked height 2^%ld\n", perms, h, L);
        glstark_params_destroy(p);
        return 2;
    }
    glstark_air *air = NULL;
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    int rc = 0;
    st = glstark_keccak_air(&air);
    if (!st)
        st = glstark_keygen(&air, 1, p, &pk, &vk, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "keygen failed (%s): %s\n", glstark_status_name(st), msg);
        rc = 2;
    } else if (verify) {
        rc = ex_verify_file(vk, verify);
    } else {
        glstark_device *dev = NULL;
        rc = ex_open_engine(engine, &dev);
        if (!rc) {
            uint64_t(*in)[25] = malloc((size_t)perms * sizeof *in);
            uint32_t *trace = malloc((size_t)GLSTARK_KECCAK_WIDTH * h * sizeof(uint32_t));
            double t0 = ex_now();
            if (!in || !trace) {
                fprintf(stderr, "error: out of memory for %zu trace rows\n", h);
                rc = 1;
            } else {
                glstark_keccak_inputs_from_seed(seed, (size_t)perms, in);
                st = glstark_keccak_trace((const uint64_t(*)[25])in, (size_t)perms, trace);
                if (st) {
                    fprintf(stderr, "error: trace generation failed (%s)\n", glstark_status_name(st));
                    rc = 1;
                }
            }
            if (!rc) {
                printf("keccakf: %ld permutations (seed %llu), %zu rows, L = %ld, engine %s; trace %.3f s\n", perms,
                       seed, h, L, engine, ex_now() - t0);
                glstark_air_trace t = {h, {trace, GLSTARK_KECCAK_WIDTH}, NULL, NULL, 0};
                rc = ex_prove(pk, vk, &t, 1, dev, out);
            }
            free(in);
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
