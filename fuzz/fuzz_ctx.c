/* libFuzzer target: proving-context bytes (format version 1) ->
 * glstark_context_from_bytes against a fixed OpenVM verifying key, loaded
 * once: the file named by FUZZ_CTX_KEY, else
 * tests/data/openvm-ctx/interactions-small.prevk.bin. fuzz/run.sh runs it as
 * "fuzz_ctx" with that key (two AIRs, per_trace order, absent AIRs) and as
 * "fuzz_ctx_prep" with preprocessed-cached-small_c2's key (a preprocessed
 * trace, two cached mains and a common main).
 *
 * Properties checked beyond "no crash, leak or UB" (the sanitizers' job):
 *  - the reader answers OK, MALFORMED or INVALID_ARGUMENT (never
 *    OUT_OF_MEMORY: every size is checked against the bytes before
 *    anything is allocated), with a message on failure and *out NULL;
 *  - a context the reader accepts makes a proving key;
 *  - when its traces are tiny, it is proved on the CPU engine without the
 *    constraint check; the prover answers OK or a status with a message,
 *    and a proof it returns is accepted or rejected (with a message) by the
 *    verifier, nothing else. When the verifier accepts, proving again with
 *    the constraint check gives the same bytes; when it rejects, the
 *    constraint check refuses the traces (UNSATISFIED): the checker and the
 *    verifier agree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glstark/context.h"
#include "glstark/glstark.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static glstark_verifying_key *g_vk;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("FUZZ_CTX_KEY");
    if (!path || !*path)
        path = GLSTARK_TEST_DATA "/openvm-ctx/interactions-small.prevk.bin";
    uint8_t *b = NULL;
    size_t n = 0;
    char msg[1024];
    if (glstark_read_file(path, &b, &n, msg, sizeof msg) != GLSTARK_OK ||
        glstark_verifying_key_decode(b, n, &g_vk, msg, sizeof msg) != GLSTARK_OK) {
        fprintf(stderr, "fuzz_ctx: bad key %s: %s\n", path, msg);
        abort();
    }
    glstark_free(b);
    return 0;
}

static void property_failed(const char *what, glstark_status st, const char *msg)
{
    fprintf(stderr, "fuzz_ctx: property failed: %s (status %d: %s)\n", what, (int)st, msg ? msg : "");
    abort();
}

/* The tallest trace and all rows together: small enough to prove per input.
 * Heights past the key's AIR count read 0. */
static int tiny(const glstark_context *ctx)
{
    size_t rows = 0;
    for (size_t a = 0; a < 64; a++) {
        size_t h = glstark_context_trace_height(ctx, a);
        if (h > 256)
            return 0;
        rows += h;
    }
    return rows <= 512;
}

static glstark_status prove(const glstark_proving_key *pk, const glstark_context *ctx, int skip,
                            glstark_prove_result *r)
{
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.cpu_threads = 1;
    o.skip_constraint_check = skip;
    o.no_spans = 1;
    return glstark_prove_context(pk, ctx, &o, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an aligned copy of exactly size bytes, and one at an odd address (the
     * reader converts a copy there): the same answer and message from both */
    uint8_t *copy = malloc(size ? size : 1), *odd = malloc(size + 1);
    memcpy(copy, data, size);
    memcpy(odd + 1, data, size);
    char msg[2048] = "", msg_odd[2048] = "";
    glstark_context *ctx = (glstark_context *)(uintptr_t)1, *ctx_odd = NULL;
    glstark_status st = glstark_context_from_bytes(copy, size, g_vk, &ctx, msg, sizeof msg);
    glstark_status st_odd = glstark_context_from_bytes(odd + 1, size, g_vk, &ctx_odd, msg_odd, sizeof msg_odd);
    if (st != st_odd || strcmp(msg, msg_odd) != 0)
        property_failed("aligned and unaligned bytes give the same answer", st_odd, msg_odd);
    glstark_context_destroy(ctx_odd);
    free(odd);
    if (st != GLSTARK_OK) {
        if (st != GLSTARK_ERR_MALFORMED && st != GLSTARK_ERR_INVALID_ARGUMENT)
            property_failed("the reader fails only with MALFORMED or INVALID_ARGUMENT", st, msg);
        if (!msg[0] || ctx)
            property_failed("a refusal has a message and no context", st, msg);
        free(copy);
        return 0;
    }
    glstark_proving_key *pk = NULL;
    st = glstark_proving_key_from_context(g_vk, ctx, &pk, msg, sizeof msg);
    if (st != GLSTARK_OK)
        property_failed("an accepted context makes a proving key", st, msg);
    if (tiny(ctx)) {
        glstark_prove_result r;
        st = prove(pk, ctx, 1, &r);
        if (st != GLSTARK_OK) {
            if (!r.message[0] || r.proof)
                property_failed("a refused proof has a message and no bytes", st, r.message);
        } else {
            glstark_status vst = glstark_verify(g_vk, r.proof, r.proof_len, msg, sizeof msg);
            if (vst != GLSTARK_OK && (vst != GLSTARK_ERR_REJECTED || !msg[0]))
                property_failed("the verifier answers OK or REJECTED with a message", vst, msg);
            glstark_prove_result c;
            glstark_status cst = prove(pk, ctx, 0, &c);
            if (vst == GLSTARK_OK &&
                (cst != GLSTARK_OK || c.proof_len != r.proof_len || memcmp(c.proof, r.proof, r.proof_len) != 0))
                property_failed("an accepted proof is proved again, the same, with the check on", cst, c.message);
            if (vst == GLSTARK_ERR_REJECTED && cst != GLSTARK_ERR_UNSATISFIED)
                property_failed("a proof the verifier rejects comes from traces the checker refuses", cst,
                                c.message);
            glstark_prove_result_free(&c);
            glstark_prove_result_free(&r);
        }
    }
    glstark_proving_key_destroy(pk);
    glstark_context_destroy(ctx);
    free(copy);
    return 0;
}
