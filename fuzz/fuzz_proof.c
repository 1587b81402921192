/* libFuzzer target: OpenVM proof bytes (codec version 3) -> gs_proof_decode
 * -> gs_verify against a fixed verifying key, loaded once: the file named by
 * FUZZ_PROOF_KEY, else tests/data/fib-small.prevk.bin (the key of the seed
 * proofs). fuzz/run.sh runs it twice: "fuzz_proof" with the Fibonacci key,
 * "fuzz_proof_prep" with the key of examples/range_check (a preprocessed
 * table, so the verifier's preprocessed-commitment branches are reached).
 *
 * Properties checked beyond "no crash, leak or UB" (the sanitizers' job):
 *  - the only failure statuses are MALFORMED (and OUT_OF_MEMORY, which the
 *    decoder must never provoke since every length is checked against the
 *    remaining bytes before allocating);
 *  - every failure carries a message naming a byte offset;
 *  - whatever decodes re-encodes, and the re-encoding is a fixed point of
 *    decode -> encode. It need not equal the input: OpenVM's codec (and so
 *    glstark's) reads the first codeword Merkle depth even when nothing uses
 *    it (a proof with one WHIR round or no initial queries) and writes 0
 *    there (found by this target in its first 30 s);
 *  - the verifier answers OK or REJECTED (with a message), nothing else, and
 *    whatever it accepts re-encodes to exactly the input bytes (no
 *    malleability among accepted encodings). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "common/proof.h"
#include "verify/verifier.h"

#include <stdio.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The fixed key, read once (libFuzzer's harness state, not library state). */
static gs_multi_vk g_vk;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("FUZZ_PROOF_KEY");
    if (!path || !*path)
        path = GLSTARK_TEST_DATA "/fib-small.prevk.bin";
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_proof: cannot open %s\n", path);
        abort();
    }
    uint8_t buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    gs_error err;
    if (gs_vk_from_prevk_bytes(buf, n, &g_vk, &err) != GLSTARK_OK || gs_vk_compute_pre_hash(&g_vk, &err) != GLSTARK_OK) {
        fprintf(stderr, "fuzz_proof: bad key %s: %s\n", path, err.msg);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property: say which one (and the library's message) before
 * aborting, so a CI log names the bug without a debugger. */
static void property_failed(const char *what, glstark_status st, const gs_error *err)
{
    fprintf(stderr, "fuzz_proof: property failed: %s (status %d: %s)\n", what, (int)st, err ? err->msg : "");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gs_proof p;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_proof_decode(data, size, &p, &err);
    if (st != GLSTARK_OK) {
        if (st != GLSTARK_ERR_MALFORMED || !strstr(err.msg, "at byte"))
            property_failed("decode fails only with MALFORMED and a byte offset", st, &err);
        return 0;
    }
    uint8_t *out = NULL;
    size_t out_len = 0;
    glstark_status est = gs_proof_encode(&p, &out, &out_len, &err);
    if (est != GLSTARK_OK)
        property_failed("whatever decodes re-encodes", est, &err);
    int exact = out_len == size && memcmp(out, data, size) == 0;
    if (!exact) {
        gs_proof q;
        uint8_t *out2 = NULL;
        size_t out2_len = 0;
        if (gs_proof_decode(out, out_len, &q, &err) != GLSTARK_OK || gs_proof_encode(&q, &out2, &out2_len, &err) ||
            out2_len != out_len || memcmp(out2, out, out_len) != 0)
            property_failed("the re-encoding is a fixed point of decode -> encode", GLSTARK_OK, &err);
        free(out2);
        gs_proof_free(&q);
    }
    free(out);
    gs_error_clear(&err);
    glstark_status vst = gs_verify(&g_vk, &p, &err);
    if (vst != GLSTARK_OK && (vst != GLSTARK_ERR_REJECTED || err.msg[0] == 0))
        property_failed("the verifier answers OK or REJECTED with a message", vst, &err);
    if (vst == GLSTARK_OK && !exact)
        property_failed("an accepted proof re-encodes to the input bytes", vst, &err);
    gs_proof_free(&p);
    return 0;
}
