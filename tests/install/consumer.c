/* A program that uses glstark the way a user's program does: only the
 * installed public headers, compiled and linked through pkg-config against
 * an installed copy of the library (tests/install/install_consumer.sh builds
 * it, with -std=c11 -pedantic -Werror, and as C++ when a C++ compiler is
 * there). It proves a small Fibonacci statement on the CPU engine, checks
 * that the proof verifies, and that a changed byte and a wrong statement are
 * refused. Exit 0 on success; a message and 1 otherwise. */
#include <glstark/glstark.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, glstark_status st, const char *msg)
{
    fprintf(stderr, "consumer: %s: %s: %s\n", what, glstark_status_name(st), msg ? msg : "");
    return 1;
}

int main(void)
{
    char msg[1024] = "";
    glstark_params *params = NULL;
    glstark_air *air = NULL;
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    glstark_prove_result result;
    memset(&result, 0, sizeof result);
    enum { HEIGHT = 64 };
    uint32_t trace[2 * HEIGHT], pv[3];
    glstark_air_trace t;
    memset(&t, 0, sizeof t);
    uint8_t *bad = NULL;
    int rc = 1;

    printf("glstark %s\n", glstark_version());
    glstark_status st = glstark_params_test_small(&params);
    if (st) {
        fail("glstark_params_test_small", st, NULL);
        goto out;
    }
    st = glstark_fibonacci_air(&air);
    if (st) {
        fail("glstark_fibonacci_air", st, NULL);
        goto out;
    }
    st = glstark_keygen(&air, 1, params, &pk, &vk, msg, sizeof msg);
    if (st) {
        fail("glstark_keygen", st, msg);
        goto out;
    }

    st = glstark_fibonacci_trace(0, 1, HEIGHT, trace, pv);
    if (st) {
        fail("glstark_fibonacci_trace", st, NULL);
        goto out;
    }
    t.height = HEIGHT;
    t.common_main.values = trace;
    t.common_main.width = 2;
    t.public_values = pv;
    t.num_public_values = 3;
    st = glstark_prove(pk, &t, 1, NULL, &result);
    if (st) {
        fail("glstark_prove", st, result.message);
        goto out;
    }
    st = glstark_verify(vk, result.proof, result.proof_len, msg, sizeof msg);
    if (st) {
        fail("glstark_verify of the new proof", st, msg);
        goto out;
    }
    printf("proved and verified: %zu bytes\n", result.proof_len);

    /* A changed byte in the middle of the proof. */
    bad = (uint8_t *)malloc(result.proof_len);
    if (!bad) {
        fprintf(stderr, "consumer: out of memory\n");
        goto out;
    }
    memcpy(bad, result.proof, result.proof_len);
    bad[result.proof_len / 2] ^= 0x01;
    st = glstark_verify(vk, bad, result.proof_len, msg, sizeof msg);
    if (st != GLSTARK_ERR_REJECTED && st != GLSTARK_ERR_MALFORMED) {
        fprintf(stderr, "consumer: a changed proof byte gave %s, not REJECTED or MALFORMED\n", glstark_status_name(st));
        goto out;
    }
    printf("changed byte refused: %s (%s)\n", glstark_status_name(st), msg);

    /* A false statement: the last public value off by one. */
    glstark_prove_result_free(&result);
    memset(&result, 0, sizeof result);
    pv[2] ^= 1;
    st = glstark_prove(pk, &t, 1, NULL, &result);
    if (st != GLSTARK_ERR_UNSATISFIED) {
        fprintf(stderr, "consumer: proving a false statement gave %s, not UNSATISFIED\n", glstark_status_name(st));
        goto out;
    }
    printf("false statement refused: %s\n", result.message);
    rc = 0;
out:
    free(bad);
    glstark_prove_result_free(&result);
    glstark_verifying_key_destroy(vk);
    glstark_proving_key_destroy(pk);
    glstark_air_destroy(air);
    glstark_params_destroy(params);
    return rc;
}
