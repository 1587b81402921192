/* The stacked-PCS commitment (docs/protocol.md, 'Stacked PCS'; stark-backend
 * stacked_commit): stack the traces, Reed–Solomon encode every stacked
 * column, build the SWIRL Merkle tree over the codeword rows. The root
 * is what OpenVM calls a commitment (e.g. common_main_commit). The layout, the codeword and all digest layers stay
 * with the caller (engine buffers) because the openings need them. */
#ifndef GS_PROVE_STACKED_COMMIT_H
#define GS_PROVE_STACKED_COMMIT_H

#include "engine/dft_ops.h"
#include "engine/hash_ops.h"
#include "common/params.h"
#include "common/stacking.h"

typedef struct gs_stacked_params {
    unsigned l_skip;     /* univariate-skip log size */
    unsigned n_stack;    /* stacked height 2^(l_skip + n_stack) */
    unsigned log_blowup; /* codeword height 2^(l_skip + n_stack + log_blowup) */
    unsigned k_whir;     /* 2^k_whir codeword rows per Merkle query leaf */
    unsigned keep_stacked_matrix; /* 1: also keep Q itself (the prover's stacked
                                     reduction and WHIR read it); 0: codeword only */
    unsigned root_by_caller;      /* 1: out->root is left unread; the caller reads the
                                     tree's root (several commitments' in one sync) */
} gs_stacked_params;

static inline gs_stacked_params gs_stacked_params_from_system(const gs_system_params *p)
{
    gs_stacked_params r = {(unsigned)p->l_skip, (unsigned)p->n_stack, (unsigned)p->log_blowup, (unsigned)p->whir.k,
                           1, 0};
    return r;
}

/* One trace: column-major on the engine, column c at offset + c*height. */
typedef struct gs_commit_trace {
    gs_buf *buf;
    size_t offset;   /* in bb_t elements */
    uint32_t width;
    uint64_t height; /* a power of two, <= 2^(l_skip + n_stack) */
} gs_commit_trace;

typedef struct gs_stacked_commit_data {
    gs_stacked_params params;
    bb_t root[GS_DIGEST_LEN]; /* Montgomery form, like every bb_t */
    gs_stack_layout layout;
    gs_buf *matrix;           /* Q: layout.width columns of 2^L, column-major; owned; NULL unless
                                 params.keep_stacked_matrix (gs_whir_commit_data.matrix) */
    gs_buf *codeword;         /* layout.width columns of 2^(L + log_blowup), column-major; owned */
    gs_merkle_dev tree;       /* digest layers; owned */
    double rs_code_matrix_s;  /* wall time of the two phases (OpenVM's span names) */
    double merkle_tree_s;
} gs_stacked_commit_data;

/* Commits traces given in stacking order (heights non-increasing; sort with
 * gs_stack_sort_order, as OpenVM's sort_for_stacking does). Fails with
 * GLSTARK_ERR_INVALID_ARGUMENT on zero or non-power-of-two heights, traces
 * taller than the stacked height, a total width of 0, or buffers too small.
 * On success free *out with gs_stacked_commit_release. */
glstark_status gs_stacked_commit(gs_engine *eng, const gs_commit_trace *traces, size_t ntraces,
                                 const gs_stacked_params *params, gs_stacked_commit_data *out);

/* Opening at query indices (each < 2^(L + log_blowup - k_whir)): for query q,
 * the 2^k_whir rows (each layout.width values) into
 * rows_out + q * 2^k_whir * width and the Merkle path into
 * proofs_out + q * depth * 8. Either output may be NULL. */
glstark_status gs_stacked_commit_open(gs_engine *eng, const gs_stacked_commit_data *d, const uint32_t *indices,
                                      size_t n, bb_t *rows_out, bb_t *proofs_out);

void gs_stacked_commit_release(gs_stacked_commit_data *d);

#endif
