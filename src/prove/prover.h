/* The whole SWIRL prover (OpenVM stark-backend v2.0.1 Coordinator::prove)
 * over the engine interface, in OpenVM's exact transcript order
 * (docs/protocol.md, 'Transcript order of a proof'):
 *
 *   T0   vk pre-hash
 *   T1   main-trace commitment (all present common mains stacked, sorted)
 *   T2   per AIR: presence (if not required), log height, public values
 *   T3   LogUp proof-of-work (ground on the engine)
 *   T4-13 alpha, beta, GKR, xi, lambda, LogUp sums, mu, univariate-skip
 *        round 0, multilinear rounds, column openings   (gs_lz_prove)
 *   T14-17 stacked opening reduction                     (gs_sred_prove)
 *   WHIR on u_cube                                       (gs_whir_prove)
 *
 * Preprocessed traces come from the AIRs of the proving key and are
 * committed again on the proving engine (their root must equal the key's);
 * cached mains come with the traces and are committed one by one. Both are
 * opened next to the common main (commit order: common main, then per
 * sorted trace [preprocessed?, cached_0, ..]). */
#ifndef GS_PROVE_PROVER_H
#define GS_PROVE_PROVER_H

#include <stddef.h>
#include <stdint.h>

#include "air/keygen.h"
#include "engine/engine.h"
#include "common/proof.h"
#include "common/whir.h"
#include "util/error.h"

typedef struct gs_prove_options {
    int skip_constraint_check; /* 0 (default): refuse traces that violate a constraint before proving */
    /* Per-phase fallback: a phase whose engine families the main engine lacks
     * runs on this engine (normally the CPU engine) instead, its inputs copied
     * over; NULL = no fallback (such a phase fails with UNSUPPORTED). */
    gs_engine *fallback;
    /* NULL, or called once the engines hold their own copies of the traces
     * (glstark_prove_options.traces_released) */
    void (*traces_released)(void *user);
    void *traces_released_user;
    /* NULL, or the rows of the traces with no values array
     * (glstark_prove_options.trace_rows) */
    int (*trace_rows)(void *user, size_t air, size_t row_begin, size_t num_rows, uint32_t *dst);
    void *trace_rows_user;
    size_t trace_block_bytes; /* bytes per trace_rows block; 0 = GS_TRACE_BLOCK_BYTES (tests use small ones) */
    /* NULL, or per AIR (one entry per trace; NULL entries ignored) the
     * common main as row-major canonical words, already checked below p (a
     * proving context's rows, glstark_prove_context), for traces whose
     * values are NULL: sent to the engine block by block as they are and
     * transposed there (gs_buf_transpose), so no host copy is made. */
    const uint32_t *const *row_major_mains;
    /* nonzero: free the main codeword after its Merkle tree; WHIR encodes it
     * again for its first queries (glstark_prove_options.codeword) */
    int reencode_codeword;
    size_t stream_group_cols; /* columns per group of the streamed commit; 0 = as many as fit 128 MiB (tests force 8) */
} gs_prove_options;

/* The phases, as bits of gs_prove_timings.fallback_phases. */
enum {
    GS_PHASE_COMMIT = 1,            /* dft + hash families */
    GS_PHASE_LOGUP_POW = 2,         /* hash (grinding) */
    GS_PHASE_LOGUP_ZEROCHECK = 4,   /* gkr + zerocheck */
    GS_PHASE_STACKED_REDUCTION = 8, /* reduction */
    GS_PHASE_WHIR = 16              /* whir + hash */
};

/* Seconds spent per phase (wall clock), and which phases ran on the
 * fallback engine; filled when not NULL. */
typedef struct gs_prove_timings {
    double check, commit, logup_pow, logup_zerocheck, stacked_reduction, whir, total;
    unsigned fallback_phases;
    char fallback_note[512]; /* "" or e.g. "commit, WHIR ran on the cpu engine (gles lacks dft, whir)" */
    /* Per engine (0: the main one, 1: the fallback): host syncs during the
     * proof (eng->host_syncs delta), the buffer-byte high-water mark
     * during the proof (0 for a fallback that allocated nothing) and the
     * bytes allocated anew (eng->bytes_allocated delta). */
    uint64_t host_syncs[2];
    uint64_t upload_waits[2]; /* eng->upload_waits delta */
    size_t bytes_peak[2];
    uint64_t bytes_allocated[2];
    /* The main engine's GPU programs made ready during the proof, and the
     * host nanoseconds that took (gs_engine_program_builds deltas). */
    uint64_t programs_built;
    uint64_t program_build_ns;
} gs_prove_timings;

/* traces: one per AIR of pk, vk order (height 0 = absent), canonical
 * column-major values. On success *out holds the proof (gs_proof_free).
 * Errors: INVALID_ARGUMENT (shapes), UNSATISFIED (a constraint or a LogUp
 * bus fails; the message names AIR, constraint and row), UNSUPPORTED,
 * OUT_OF_MEMORY, engine errors. */
glstark_status gs_prove(gs_engine *eng, const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                        const gs_prove_options *opt, gs_proof *out, gs_prove_timings *times, gs_error *err);

struct gs_span_rec;
/* gs_prove with a span recorder (prove/spans.h; NULL = none), set up by
 * the caller with gs_span_rec_init (its engines are replaced by the ones
 * this call uses). The engines point at it while the call runs. */
glstark_status gs_prove_ex(gs_engine *eng, const gs_multi_pk *pk, const glstark_air_trace *traces, size_t num_traces,
                           const gs_prove_options *opt, struct gs_span_rec *spans, gs_proof *out,
                           gs_prove_timings *times, gs_error *err);

#endif
