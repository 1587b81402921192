/* Keygen: verifying and proving keys for a set of AIRs under SystemParams,
 * as OpenVM stark-backend v2.0.1 makes them (keygen/mod.rs, types.rs), and
 * the verifying key's postcard encoding and pre-hash (vk_codec.c). */
#ifndef GS_AIR_KEYGEN_H
#define GS_AIR_KEYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "air/dag.h"
#include "glstark/air.h"
#include "common/params.h"
#include "util/error.h"

#define GS_VK_DIGEST_LEN 8

/* VerifierSinglePreprocessedData */
typedef struct gs_prep_vdata {
    bb_t commit[GS_VK_DIGEST_LEN]; /* Montgomery */
    int64_t hypercube_dim;         /* log2(height) - l_skip, may be negative */
    size_t stacking_width;
} gs_prep_vdata;

/* StarkVerifyingKey of one AIR. */
typedef struct gs_air_vk {
    int has_preprocessed_data;
    gs_prep_vdata preprocessed_data;
    /* TraceWidth */
    int has_preprocessed_width;
    size_t preprocessed_width;
    size_t num_cached_mains;
    size_t *cached_main_widths;
    size_t common_main_width;
    size_t num_public_values;
    int need_rot;
    gs_dag dag; /* owned copy */
    uint8_t max_constraint_degree;
    int is_required;
    gs_symvar *unused_variables;
    size_t num_unused_variables;
} gs_air_vk;

/* LinearConstraint: sum_air coefficients[air] * height(air) < threshold */
typedef struct gs_linear_constraint {
    uint32_t *coefficients; /* one per AIR */
    uint32_t threshold;
} gs_linear_constraint;

/* MultiStarkVerifyingKey (inner = params, per_air, trace_height_constraints). */
typedef struct gs_multi_vk {
    gs_system_params params;
    gs_air_vk *per_air;
    size_t num_airs;
    gs_linear_constraint *trace_height_constraints;
    size_t num_trace_height_constraints;
    bb_t pre_hash[GS_VK_DIGEST_LEN]; /* Montgomery; set by keygen (has_pre_hash = 1) */
    int has_pre_hash;                /* 0 after decoding until gs_vk_compute_pre_hash */
} gs_multi_vk;

/* Commits a preprocessed trace at keygen (the stacked PCS commit of the
 * commitment layer): fills the verifier data. Row-major Montgomery trace. */
typedef glstark_status (*gs_prep_commit_fn)(void *ctx, const gs_system_params *params,
                                           const bb_t *rows, size_t height, size_t width,
                                           gs_prep_vdata *out, gs_error *err);

typedef struct gs_keygen_options {
    const int *is_required;    /* per AIR, NULL = each AIR's own flag (glstark_air_set_required; default add_air) */
    gs_prep_commit_fn prep_commit; /* needed only if an AIR has a preprocessed trace */
    void *prep_commit_ctx;
} gs_keygen_options;

/* The proving key: the verifying key plus the AIRs it was made from
 * (borrowed: they must outlive the key) . */
typedef struct gs_multi_pk {
    gs_multi_vk vk;
    glstark_air **airs;
    size_t num_airs;
} gs_multi_pk;

/* Makes the proving key (and in it the verifying key with its pre-hash).
 * opts may be NULL. Errors as
 * OpenVM's KeygenError: zero width, no constraints and no interactions, an
 * empty message, degree above params->max_constraint_degree, message longer
 * than 2^log_max_message_length - 1. */
glstark_status gs_keygen(const gs_system_params *params, glstark_air *const *airs,
                         size_t num_airs, const gs_keygen_options *opts, gs_multi_pk *out,
                         gs_error *err);

void gs_multi_pk_free(gs_multi_pk *pk);
void gs_multi_vk_free(gs_multi_vk *vk);

/* The pre-hash input: u32-LE 3 || u64-LE len || postcard bytes. */
glstark_status gs_vk_prevk_bytes(const gs_multi_vk *vk, uint8_t **bytes, size_t *len,
                                 gs_error *err);

/* Decoding (vk_decode.c, with common/codec_io.h's reader): the inverse of
 * the encoder (gs_vk_from_postcard reads the bytes after the 12-byte
 * header). Fails with GLSTARK_ERR_MALFORMED on truncated, overlong or
 * inconsistent bytes, the message naming the field and its byte offset
 * (from the start of the header for gs_vk_from_prevk_bytes), and with
 * GLSTARK_ERR_OUT_OF_MEMORY when an allocation fails.
 * The pre-hash is not part of the bytes (has_pre_hash = 0 after decoding;
 * gs_vk_compute_pre_hash fills it). */
glstark_status gs_vk_from_postcard(const uint8_t *bytes, size_t len, gs_multi_vk *out,
                                   gs_error *err);
glstark_status gs_vk_from_prevk_bytes(const uint8_t *bytes, size_t len, gs_multi_vk *out,
                                      gs_error *err);

/* Fills vk->pre_hash from the encoding (needs the Poseidon2 sponge). */
glstark_status gs_vk_compute_pre_hash(gs_multi_vk *vk, gs_error *err);

/* Deep copy of a DAG. */
glstark_status gs_dag_clone(const gs_dag *src, gs_dag *dst, gs_error *err);

#endif
