/* Reader of the WHIR test vectors in tests/data/whir/ (written by
 * tools/whir_vectors.py from OpenVM's recorded proofs and transcripts). */
#ifndef GS_TESTS_WHIR_VECTORS_H
#define GS_TESTS_WHIR_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "common/whir.h"

typedef struct whir_vec_trace {
    uint32_t log_height, width;
    uint32_t *cols; /* width columns of 2^log_height canonical values */
} whir_vec_trace;

typedef struct whir_vec {
    gs_whir_params params;
    uint32_t num_commits;
    uint32_t commit[4][8];      /* canonical */
    size_t openings_offset, whir_offset;
    uint32_t L;
    uint32_t (*ucube)[4];       /* L canonical EF values */
    uint32_t num_traces;
    whir_vec_trace traces[8];
    size_t num_ops;
    char *op_kind;              /* 'o' observe or 's' sample */
    uint32_t *op_val;
    size_t num_whir_ops;
    char *whir_op_kind;
    uint32_t *whir_op_val;
    uint8_t *proof;             /* the whole proof.bin */
    size_t proof_len;
} whir_vec;

/* Loads <spec>.whir.txt and <spec>.proof.bin; returns 0 on success. */
int whir_vec_load(whir_vec *v, const char *spec);
void whir_vec_free(whir_vec *v);

/* Decodes StackingProof.stacking_openings from the proof bytes at
 * openings_offset: per commit, its width and the values (Montgomery).
 * Returns 0 and the total count in *total if the block ends exactly at
 * whir_offset. */
int whir_vec_openings(const whir_vec *v, uint32_t *widths, bb4_t *vals, size_t cap, size_t *total);

#endif
