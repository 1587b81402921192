/* libFuzzer target: OpenVM proof bytes (codec version 3) -> gs_proof_decode.
 *
 * Properties checked beyond "no crash, leak or UB" (the sanitizers' job):
 *  - the only failure statuses are MALFORMED (and OUT_OF_MEMORY, which the
 *    decoder must never provoke since every length is checked against the
 *    remaining bytes before allocating);
 *  - every failure carries a message naming a byte offset;
 *  - whatever decodes re-encodes to exactly the input bytes (the codec is
 *    fixed-width, so it is a bijection on what it accepts). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/proof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gs_proof p;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_proof_decode(data, size, &p, &err);
    if (st != GLSTARK_OK) {
        if (st != GLSTARK_ERR_MALFORMED || !strstr(err.msg, "at byte"))
            abort();
        return 0;
    }
    uint8_t *out = NULL;
    size_t out_len = 0;
    glstark_status est = gs_proof_encode(&p, &out, &out_len, &err);
    /* The only shape the encoder refuses is a WHIR proof with no commits,
     * which the decoder cannot produce either. */
    if (est != GLSTARK_OK || out_len != size || memcmp(out, data, size) != 0)
        abort();
    free(out);
    gs_proof_free(&p);
    return 0;
}
