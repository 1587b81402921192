/* libFuzzer target: verifying-key bytes (u32 version 3 || u64 length ||
 * postcard MultiStarkVerifyingKey0) -> gs_vk_from_prevk_bytes.
 *
 * Checked beyond the sanitizers: failures are MALFORMED only; a decoded key
 * re-encodes, and that encoding decodes again to a key with the same
 * encoding (postcard varints may be non-minimal on input, so the first
 * re-encoding need not equal the input, but it must be a fixed point);
 * the pre-hash of a decoded key can be computed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gs_multi_vk vk;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_vk_from_prevk_bytes(data, size, &vk, &err);
    if (st != GLSTARK_OK) {
        if (st != GLSTARK_ERR_MALFORMED)
            abort();
        return 0;
    }
    uint8_t *enc1 = NULL, *enc2 = NULL;
    size_t len1 = 0, len2 = 0;
    if (gs_vk_prevk_bytes(&vk, &enc1, &len1, &err) != GLSTARK_OK)
        abort();
    if (gs_vk_compute_pre_hash(&vk, &err) != GLSTARK_OK || !vk.has_pre_hash)
        abort();
    gs_multi_vk again;
    if (gs_vk_from_prevk_bytes(enc1, len1, &again, &err) != GLSTARK_OK)
        abort();
    if (gs_vk_prevk_bytes(&again, &enc2, &len2, &err) != GLSTARK_OK)
        abort();
    if (len1 != len2 || memcmp(enc1, enc2, len1) != 0)
        abort();
    free(enc1);
    free(enc2);
    gs_multi_vk_free(&again);
    gs_multi_vk_free(&vk);
    return 0;
}
