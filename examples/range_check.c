/* Proves that every one of N values lies in [0, 2^B), with a lookup into a
 * fixed table: how to build your own AIRs with a preprocessed trace and
 * LogUp interactions through the public API.
 *
 *   range_check --bits B --count N [--seed S] [--params small|app:L] [--engine cpu|gles] [--out FILE] [--key-out FILE] [--ctx-out FILE] [--bad]
 *   range_check --bits B [--params small|app:L] --verify FILE
 *
 * Two AIRs:
 *  - "values": one column v (N rows, N a power of two); every row sends (v)
 *    once on bus 0.
 *  - "range": a preprocessed column t = 0, 1, .., 2^B - 1 (fixed at keygen,
 *    so the verifying key commits to the table) and a column m, how often
 *    t was looked up; every row receives (t) m times on bus 0, and
 *    next(t) = t + 1 is a constraint too (not needed for soundness here:
 *    the key's commitment already fixes the table; it shows constraints on
 *    preprocessed columns).
 * The bus balances only if every v is in the table. --bad puts 2^B in the
 * values: the constraint check refuses the trace before proving (exit 1).
 * Exit codes: see example_common.h. */
#include "example_common.h"

#define RANGE_BUS 0

static void usage(void)
{
    fprintf(stderr,
            "usage: range_check --bits B --count N [--seed S] [--params small|app:L] [--engine cpu|gles] [--out FILE] "
            "[--key-out FILE] [--ctx-out FILE] [--bad]\n"
            "       range_check --bits B [--params small|app:L] --verify FILE\n");
}

/* The table AIR: preprocessed t = row, main m; receives (t) m times. */
static glstark_status range_air(unsigned bits, glstark_air **out)
{
    const size_t h = (size_t)1 << bits;
    glstark_air_shape shape = {1, 0, NULL, 1, 0}; /* main m, no cached mains, preprocessed t, no publics */
    glstark_status st = glstark_air_create_shaped("range", &shape, out);
    if (st)
        return st;
    glstark_air *air = *out;
    uint32_t *table = malloc(h * sizeof *table);
    if (!table)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    for (size_t r = 0; r < h; r++)
        table[r] = (uint32_t)r;
    st = glstark_air_set_preprocessed_trace(air, h, table);
    free(table);
    if (st)
        return st;
    glstark_expr t = glstark_air_preprocessed(air, 0, 0), t_next = glstark_air_preprocessed(air, 0, 1);
    glstark_expr m = glstark_air_main(air, 0, 0);
    glstark_expr step = glstark_air_sub(air, t_next, glstark_air_add(air, t, glstark_air_const(air, 1)));
    glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_transition(air), step));
    /* a receive is a send with the count negated; count weight 0 for a table */
    glstark_air_push_interaction(air, RANGE_BUS, &t, 1, glstark_air_neg(air, m), 0);
    return glstark_air_status(air); /* the first error of any call above, if one failed */
}

/* The values AIR: v, sent once per row. */
static glstark_status values_air(glstark_air **out)
{
    glstark_status st = glstark_air_create("values", 1, 0, out);
    if (st)
        return st;
    glstark_air *air = *out;
    glstark_expr v = glstark_air_main(air, 0, 0);
    glstark_air_push_interaction(air, RANGE_BUS, &v, 1, glstark_air_const(air, 1), 1);
    return glstark_air_status(air);
}

static uint64_t next_random(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    long bits = -1, count = -1;
    unsigned long long seed = 42;
    int bad = 0;
    const char *params = "small", *engine = "cpu", *out = NULL, *verify = NULL, *key_out = NULL, *ctx_out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--bad") == 0) {
            bad = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v) {
            usage();
            return 2;
        }
        if (strcmp(a, "--bits") == 0)
            bits = strtol(v, NULL, 10);
        else if (strcmp(a, "--count") == 0)
            count = strtol(v, NULL, 10);
        else if (strcmp(a, "--seed") == 0)
            seed = strtoull(v, NULL, 10);
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
    if (bits < 0 || bits > 30 || (!verify && (count < 1 || (count & (count - 1)) || count > (1L << 30)))) {
        fprintf(stderr, "error: --bits must be 0..30 and --count a power of two\n");
        usage();
        return 2;
    }
    glstark_params *p = NULL;
    int rc = ex_params(params, &p);
    if (rc)
        return rc;
    const size_t L = glstark_params_log_stacked_height(p);
    if ((size_t)bits > L || (!verify && (size_t)count > ((size_t)1 << L))) {
        fprintf(stderr, "error: the table (2^%ld rows) and the values (%ld rows) must fit the stacked height 2^%zu of "
                        "params %s\n",
                bits, count, L, params);
        glstark_params_destroy(p);
        return 2;
    }
    glstark_air *airs[2] = {NULL, NULL};
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    char msg[2048] = "";
    glstark_status st = values_air(&airs[0]);
    const glstark_air *building = airs[0];
    if (!st) {
        st = range_air((unsigned)bits, &airs[1]);
        building = airs[1];
    }
    if (st)
        snprintf(msg, sizeof msg, "building the AIRs: %s",
                 building ? glstark_air_error_message(building) : "out of memory");
    else
        st = glstark_keygen(airs, 2, p, &pk, &vk, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "keygen failed (%s): %s\n", glstark_status_name(st), msg);
        rc = 2;
    } else if (key_out && (rc = ex_write_key(vk, key_out)) != 0) {
        /* the message is out */
    } else if (verify) {
        rc = ex_verify_file(vk, verify, 0);
    } else {
        glstark_device *dev = NULL;
        rc = ex_open_engine(engine, &dev);
        const size_t n = (size_t)count, h = (size_t)1 << bits;
        uint32_t *values = malloc(n * sizeof *values), *mult = calloc(h, sizeof *mult);
        if (!rc && (!values || !mult)) {
            fprintf(stderr, "error: out of memory for the traces\n");
            rc = 1;
        }
        if (!rc) {
            uint64_t s = seed;
            for (size_t i = 0; i < n; i++) {
                values[i] = (uint32_t)(next_random(&s) % h);
                mult[values[i]]++;
            }
            if (bad)
                values[n / 2] = (uint32_t)h; /* one value just out of range; the multiplicities stay */
            printf("range_check: %zu values below 2^%ld%s, params %s, engine %s\n", n, bits,
                   bad ? " (one of them not)" : "", params, engine);
            const glstark_air_trace traces[2] = {
                {n, {values, 1}, NULL, NULL, 0},
                {h, {mult, 1}, NULL, NULL, 0},
            };
            if (ctx_out)
                rc = ex_write_context(pk, traces, 2, ctx_out);
            if (!rc)
                rc = ex_prove(pk, vk, traces, 2, dev, out);
        }
        free(values);
        free(mult);
        glstark_device_destroy(dev);
    }
    glstark_verifying_key_destroy(vk);
    glstark_proving_key_destroy(pk);
    glstark_air_destroy(airs[0]);
    glstark_air_destroy(airs[1]);
    glstark_params_destroy(p);
    return rc;
}
