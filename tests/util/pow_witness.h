/* For mutation tests: a changed proof that the verifier accepts is allowed
 * only when the change touched nothing but proof-of-work witnesses (another
 * witness that still passes its PoW can give another valid proof when
 * nothing later depends on the challenge it changes). This restores the
 * original's witnesses into the changed proof and re-encodes it: the bytes
 * must then be the original's. Header-only; needs the internal proof codec. */
#ifndef GS_TESTS_POW_WITNESS_H
#define GS_TESTS_POW_WITNESS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/proof.h"

/* 1 if `changed` (decoded from a changed copy of orig_bytes, whose decoding
 * is `orig`) equals the original once its PoW witnesses are the original's.
 * Overwrites changed's witnesses. */
static inline int pw_differs_only_in_pow_witnesses(const gs_proof *orig, gs_proof *changed, const uint8_t *orig_bytes,
                                                   size_t len)
{
    changed->gkr.logup_pow_witness = orig->gkr.logup_pow_witness;
    changed->whir.mu_pow_witness = orig->whir.mu_pow_witness;
    memcpy(changed->whir.folding_pow_witnesses, orig->whir.folding_pow_witnesses,
           (size_t)orig->whir.num_rounds * orig->whir.k * sizeof(bb_t));
    memcpy(changed->whir.query_pow_witnesses, orig->whir.query_pow_witnesses, orig->whir.num_rounds * sizeof(bb_t));
    uint8_t *re = NULL;
    size_t relen = 0;
    gs_error err;
    if (gs_proof_encode(changed, &re, &relen, &err) != GLSTARK_OK)
        return 0;
    int same = relen == len && memcmp(re, orig_bytes, len) == 0;
    free(re);
    return same;
}

#endif
