/* The public key handles of include/glstark/prove.h and the proving entry
 * behind glstark_prove, for the files of src/api that build or read them
 * (prove.c, context.c). */
#ifndef GS_API_KEYS_INTERNAL_H
#define GS_API_KEYS_INTERNAL_H

#include "air/keygen.h"
#include "glstark/prove.h"

struct glstark_proving_key {
    gs_multi_pk pk;
    /* AIRs the key owns (a key made from an OpenVM verifying key and a
     * context); NULL when the AIRs are the caller's (glstark_keygen) */
    glstark_air **owned_airs;
    size_t num_owned_airs;
};

struct glstark_verifying_key {
    gs_multi_vk vk;
};

/* A standalone copy of a verifying key (through its encoding, so the copy
 * owns everything), with its pre-hash. */
glstark_status gs_vk_copy_to_handle(const gs_multi_vk *src, glstark_verifying_key **out, gs_error *err);

/* glstark_prove, and with row_major_mains (gs_prove_options) the path of
 * glstark_prove_context: traces whose common main values are NULL come
 * from those row-major words. */
glstark_status gs_api_prove(const glstark_proving_key *pk, const glstark_air_trace *traces, size_t num_traces,
                            const glstark_prove_options *opts, const uint32_t *const *row_major_mains,
                            glstark_prove_result *res);

#endif
