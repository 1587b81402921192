/* Public host Poseidon2 API (include/glstark/hash.h): canonical values in
 * and out, converted around the internal Montgomery-form functions. */
#include "glstark/hash.h"

#include <stdlib.h>

#include "hash/poseidon2.h"

static int all_canonical(const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] >= BB_P)
            return 0;
    return 1;
}

GLSTARK_API glstark_status glstark_poseidon2_permute(uint32_t state[GLSTARK_POSEIDON2_WIDTH])
{
    if (!state || !all_canonical(state, GS_P2_WIDTH))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    bb_t s[GS_P2_WIDTH];
    bb_array_from_canonical(s, state, GS_P2_WIDTH);
    gs_poseidon2_permute(s);
    bb_array_to_canonical(state, s, GS_P2_WIDTH);
    return GLSTARK_OK;
}

GLSTARK_API glstark_status glstark_poseidon2_hash(const uint32_t *in, size_t n, uint32_t digest[GLSTARK_DIGEST_WORDS])
{
    if (!digest || (n && !in) || !all_canonical(in, n))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    /* Same block loop as gs_poseidon2_hash, converting each block on entry
     * so no allocation is needed. */
    bb_t st[GS_P2_WIDTH] = {0};
    for (size_t off = 0; off < n; off += GS_P2_RATE) {
        size_t m = n - off < GS_P2_RATE ? n - off : GS_P2_RATE;
        bb_array_from_canonical(st, in + off, m);
        gs_poseidon2_permute(st);
    }
    bb_array_to_canonical(digest, st, GS_DIGEST_LEN);
    return GLSTARK_OK;
}

GLSTARK_API glstark_status glstark_poseidon2_compress(const uint32_t left[GLSTARK_DIGEST_WORDS],
                                                      const uint32_t right[GLSTARK_DIGEST_WORDS],
                                                      uint32_t out[GLSTARK_DIGEST_WORDS])
{
    if (!left || !right || !out || !all_canonical(left, GS_DIGEST_LEN) || !all_canonical(right, GS_DIGEST_LEN))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    bb_t l[GS_DIGEST_LEN], r[GS_DIGEST_LEN], o[GS_DIGEST_LEN];
    bb_array_from_canonical(l, left, GS_DIGEST_LEN);
    bb_array_from_canonical(r, right, GS_DIGEST_LEN);
    gs_poseidon2_compress(l, r, o);
    bb_array_to_canonical(out, o, GS_DIGEST_LEN);
    return GLSTARK_OK;
}
