/* libFuzzer target: verifying-key bytes used as a prover's input. The input
 * is decoded with glstark_verifying_key_decode; a fixed context (the file
 * named by FUZZ_CTX_FILE, else tests/data/openvm-ctx/interactions-small.ctx.bin,
 * read once) is opened against it; a proving key is made from the two; and
 * when the key's parameters keep a proof cheap (small stacking, few queries,
 * few proof-of-work bits), the context is proved on the CPU engine without
 * the constraint check and the proof given to the verifier with the same key.
 * The verifier's own decoding of keys is fuzz_vk's; this target covers what
 * the context reader, air_from_vk (AIRs rebuilt from a key's constraint DAG)
 * and the prover do with a key nobody checked.
 *
 * Properties checked beyond "no crash, leak or UB" (the sanitizers' job):
 *  - every failure (decode, open, proving key, prove) has a message, and no
 *    failure hands back an object;
 *  - a proof that comes back is accepted or rejected (with a message) by the
 *    verifier, nothing else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/keys_internal.h"
#include "glstark/context.h"
#include "glstark/glstark.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *g_ctx;
static size_t g_ctx_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("FUZZ_CTX_FILE");
    if (!path || !*path)
        path = GLSTARK_TEST_DATA "/openvm-ctx/interactions-small.ctx.bin";
    char msg[1024];
    if (glstark_read_file(path, &g_ctx, &g_ctx_len, msg, sizeof msg) != GLSTARK_OK) {
        fprintf(stderr, "fuzz_ctx_key: cannot read %s: %s\n", path, msg);
        abort();
    }
    return 0;
}

static void property_failed(const char *what, glstark_status st, const char *msg)
{
    fprintf(stderr, "fuzz_ctx_key: property failed: %s (status %d: %s)\n", what, (int)st, msg ? msg : "");
    abort();
}

/* Parameters for which a proof of the fixed (tiny) context stays within a
 * fraction of a second: the stacked width, the codeword, the queries and the
 * grinding are all bounded. */
static int cheap(const gs_system_params *p)
{
    size_t queries = 0;
    for (size_t i = 0; i < p->whir.num_rounds && i < GS_WHIR_MAX_ROUNDS; i++)
        queries += p->whir.num_queries[i];
    return p->l_skip + p->n_stack <= 12 && p->log_blowup >= 1 && p->log_blowup <= 3 && p->whir.k >= 1 &&
           p->whir.k <= 4 && p->whir.num_rounds <= 6 && queries <= 64 && p->whir.mu_pow_bits <= 8 &&
           p->whir.query_phase_pow_bits <= 8 && p->whir.folding_pow_bits <= 8 && p->logup.pow_bits <= 8 &&
           p->max_constraint_degree <= 4 && p->w_stack <= 1u << 16;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[2048] = "";
    glstark_verifying_key *vk = NULL;
    glstark_status st = glstark_verifying_key_decode(data, size, &vk, msg, sizeof msg);
    if (st != GLSTARK_OK) {
        if (!msg[0] || vk)
            property_failed("a key refused by the decoder has a message and no key", st, msg);
        return 0;
    }
    glstark_context *ctx = (glstark_context *)(uintptr_t)1;
    st = glstark_context_from_bytes(g_ctx, g_ctx_len, vk, &ctx, msg, sizeof msg);
    if (st != GLSTARK_OK) {
        if (!msg[0] || ctx)
            property_failed("a context refused by the reader has a message and no context", st, msg);
        glstark_verifying_key_destroy(vk);
        return 0;
    }
    glstark_proving_key *pk = (glstark_proving_key *)(uintptr_t)1;
    st = glstark_proving_key_from_context(vk, ctx, &pk, msg, sizeof msg);
    if (st != GLSTARK_OK) {
        if (!msg[0] || pk)
            property_failed("a refused proving key has a message and no key", st, msg);
    } else if (cheap(&vk->vk.params)) {
        glstark_prove_options o;
        glstark_prove_options_init(&o);
        o.cpu_threads = 1;
        o.skip_constraint_check = 1;
        o.no_spans = 1;
        glstark_prove_result r;
        st = glstark_prove_context(pk, ctx, &o, &r);
        if (st != GLSTARK_OK) {
            if (!r.message[0] || r.proof)
                property_failed("a refused proof has a message and no bytes", st, r.message);
        } else {
            glstark_status vst = glstark_verify(vk, r.proof, r.proof_len, msg, sizeof msg);
            if (vst != GLSTARK_OK && (vst != GLSTARK_ERR_REJECTED || !msg[0]))
                property_failed("the verifier answers OK or REJECTED with a message", vst, msg);
            glstark_prove_result_free(&r);
        }
    }
    glstark_proving_key_destroy(pk); /* NULL after a refusal */
    glstark_context_destroy(ctx);
    glstark_verifying_key_destroy(vk);
    return 0;
}
