/* Proving and verifying whole OpenVM SWIRL proofs.
 *
 *   glstark_params *p;  glstark_params_app_100_bits(21, &p, msg, sizeof msg);
 *   glstark_proving_key *pk; glstark_verifying_key *vk;
 *   glstark_keygen(airs, n, p, &pk, &vk, msg, sizeof msg);
 *   glstark_prove_result r; glstark_prove(pk, traces, n, NULL, &r);   -> r.proof, r.proof_len
 *   glstark_verify(vk, r.proof, r.proof_len, msg, sizeof msg);       -> GLSTARK_OK or ..._REJECTED
 *
 * Proofs are OpenVM stark-backend v2.0.1's `Proof::encode` bytes (codec
 * version 3): byte-identical to OpenVM's for the same AIRs, traces and
 * parameters, and OpenVM's proofs verify here. Nothing aborts: every call
 * returns a status, and a message where a buffer is given. */
#ifndef GLSTARK_PROVE_H
#define GLSTARK_PROVE_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/air.h"
#include "glstark/device.h"
#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- system parameters (OpenVM SystemParams) ---- */
typedef struct glstark_params glstark_params;

/* stark-sdk's app_params_with_100_bits_security(L): stacked height 2^L
 * (L <= 24; OpenVM's keccakf example uses 21). */
GLSTARK_API glstark_status glstark_params_app_100_bits(size_t log_stacked_height, glstark_params **out, char *msg,
                                                       size_t msg_size);
/* OpenVM's default_test_params_small() (l_skip 2, n_stack 8, WHIR k 3). */
GLSTARK_API glstark_status glstark_params_test_small(glstark_params **out);
GLSTARK_API void glstark_params_destroy(glstark_params *p);
/* log2 of the stacked height (l_skip + n_stack): the tallest trace allowed. */
GLSTARK_API size_t glstark_params_log_stacked_height(const glstark_params *p);

/* ---- keys ---- */
typedef struct glstark_proving_key glstark_proving_key;
typedef struct glstark_verifying_key glstark_verifying_key;

/* Keygen for a set of AIRs (the proof's AIR order). The proving key borrows
 * the AIRs: they must outlive it. vk may be NULL (take it later with
 * glstark_proving_key_verifying_key). On failure *pk and *vk are NULL and
 * msg (may be NULL) says why. */
GLSTARK_API glstark_status glstark_keygen(glstark_air *const *airs, size_t num_airs, const glstark_params *params,
                                          glstark_proving_key **pk, glstark_verifying_key **vk, char *msg,
                                          size_t msg_size);
GLSTARK_API glstark_status glstark_proving_key_verifying_key(const glstark_proving_key *pk,
                                                             glstark_verifying_key **vk);
GLSTARK_API void glstark_proving_key_destroy(glstark_proving_key *pk);
GLSTARK_API void glstark_verifying_key_destroy(glstark_verifying_key *vk);

/* The verifying key as OpenVM's pre-hash input (u32 3 || u64 len ||
 * postcard(vk), the `.prevk.bin` files) and back. *bytes is malloc'd;
 * release with glstark_free. */
GLSTARK_API glstark_status glstark_verifying_key_encode(const glstark_verifying_key *vk, uint8_t **bytes,
                                                        size_t *len);
GLSTARK_API glstark_status glstark_verifying_key_decode(const uint8_t *bytes, size_t len,
                                                        glstark_verifying_key **vk, char *msg, size_t msg_size);

/* ---- proving ---- */

/* One timed stretch of a proof, with OpenVM's span names where OpenVM has
 * one ("stark_prove_excluding_trace", "prover.main_trace_commit" >
 * "stacked_commit" > "rs_code_matrix" / "merkle_tree",
 * "prover.rap_constraints" > "logup_gkr" / "round0" / "mle_rounds",
 * "prover.openings" > "stacked_reduction" / "whir") and glstark's own
 * otherwise (e.g. "check_constraints", "trace_upload", "logup_pow"). Times
 * are host CLOCK_MONOTONIC seconds since glstark_prove began, taken after the
 * engines finished their queued work, so GPU work is counted in its span. */
#define GLSTARK_SPAN_NAME_MAX 40
#define GLSTARK_MAX_SPANS 48
typedef struct glstark_span {
    char name[GLSTARK_SPAN_NAME_MAX];
    int parent;                 /* index of the enclosing span in the list, -1 for a top-level one */
    unsigned depth;             /* 0 for top-level spans */
    double start, end;          /* seconds since the proof began; end < start while still running */
    char engine[8];             /* "gles" / "cpu" for a phase run on one engine, "" otherwise */
    uint64_t host_syncs;        /* host waits and readbacks inside the span (all engines) */
} glstark_span;

/* Figures of one proof, filled by glstark_prove when opts->stats is set.
 * The struct carries its own size so it can grow: glstark_prove_stats_init
 * sets `size`; the library writes only the first `size` bytes. */
typedef struct glstark_prove_stats {
    size_t size;                /* sizeof(glstark_prove_stats) */
    size_t num_spans;           /* spans[0 .. num_spans) in start order (parents before children) */
    size_t spans_dropped;       /* spans not recorded because the list was full */
    glstark_span spans[GLSTARK_MAX_SPANS];
    /* Host waits and readbacks during this proof (engine finishes made only to
     * time spans excluded): all engines, the device's, the CPU fallback's. */
    uint64_t host_syncs;
    uint64_t device_host_syncs;
    uint64_t fallback_host_syncs;
    /* High-water mark of engine buffer bytes during this proof: the device's
     * engine (GPU memory for GLES; host memory for the CPU engine) and the CPU
     * fallback engine's (0 when none ran). */
    size_t device_bytes_peak;
    size_t fallback_bytes_peak;
    char device_engine[8];      /* "gles" or "cpu" */
    int codeword_reencoded;     /* 1: the codeword was freed after its tree and encoded again (glstark_codeword_policy) */
    /* Engine buffer bytes allocated anew during this proof, the device's and
     * the CPU fallback's: every buffer on the CPU engine; on GLES those the
     * buffer pool did not serve (glstark_buffer_pool), whose first use costs
     * the driver time (~5 ms per 128 MB on the H100). */
    uint64_t device_bytes_allocated;
    uint64_t fallback_bytes_allocated;
    /* GPU programs the device made ready during this proof (compiled, or
     * taken from the driver's shader cache) and the host seconds they took:
     * seconds on a machine's first run, milliseconds once the driver has
     * cached them; 0 on CPU devices and once a device has built them all. */
    uint64_t programs_built;
    double program_build_seconds;
    /* Times a write to the GPU waited for a slot of the device's upload ring
     * while the GPU was still busy with work queued before it (the prover
     * writes the traces while the GPU commits them). Flow control, not
     * counted in host_syncs: no result is read and the GPU does not idle. */
    uint64_t upload_waits;
} glstark_prove_stats;

GLSTARK_API void glstark_prove_stats_init(glstark_prove_stats *stats);

/* Called from glstark_prove's thread as each span starts (finished = 0) and
 * ends (finished = 1); for progress display. Must not call back into the
 * library with the same device. */
typedef void (*glstark_progress_fn)(void *user, const glstark_span *span, int finished);

/* glstark_prove_options.codeword: what the prover does with the main
 * commitment's Reed-Solomon codeword (twice the stacked trace: 672 MiB for
 * keccakf-1024) between its Merkle tree and WHIR's first queries, the only
 * step that reads it again. */
typedef enum glstark_codeword_policy {
    /* kept on the CPU engine (re-encoding costs a second on 2 cores),
     * re-encoded on GLES devices (tens of ms there, and less new GPU memory
     * to touch: keccakf-1024 on the H100 0.301 s per proof against 0.313 s
     * kept, 1314 against 1718 MiB of GPU buffers) */
    GLSTARK_CODEWORD_AUTO = 0,
    /* kept until the proof ends: the fastest repeated proofs (H100: 0.172
     * against 0.182 s in a warm process) */
    GLSTARK_CODEWORD_KEEP = 1,
    /* never held whole: the commit encodes the stacked trace a group of 8
     * columns at a time into the Merkle tree's row sponges (where that takes
     * less memory than the codeword; else it encodes it whole and frees it
     * after the tree), and WHIR's queries encode it again, a third of the
     * columns at a time (the same rows, so the same proof). keccakf-1024:
     * 1718 -> 1314 MiB of GPU buffers on the H100 (800 MiB with a bounded
     * pool), for one more encoding (tens of ms on a desktop GPU, about a
     * second on a CPU) */
    GLSTARK_CODEWORD_REENCODE = 2
} glstark_codeword_policy;

typedef struct glstark_prove_options {
    size_t size;                /* sizeof(glstark_prove_options) */
    glstark_device *device;     /* NULL = a CPU engine made for this call; shared devices take turns (device.h) */
    unsigned cpu_threads;       /* CPU engine threads (its own or the fallback's), 0 = one per core */
    int skip_constraint_check;  /* nonzero: do not check the traces against the AIRs first (faster) */
    glstark_prove_stats *stats; /* NULL, or filled on success (spans, host syncs, peak buffer bytes) */
    glstark_progress_fn progress; /* NULL, or told as each span starts and ends */
    void *progress_user;
    /* Nonzero: no spans, even with stats (which then carry the totals: host
     * syncs, peak bytes). Timing a span ends it with an engine finish, which
     * drains the GPU's queue; with no stats and no progress callback there
     * are no spans either, so the proof runs as fast as it can. */
    int no_spans;
    /* NULL, or called once, from glstark_prove's thread, as soon as the
     * prover holds its own copy of every trace (after the "trace_upload"
     * span; where the streamed commit writes the traces itself, so that
     * the host copies a column group while the GPU commits the one before,
     * after the "stacked_commit" span): from then on it reads neither the traces' value arrays nor
     * their public values, so the caller may free or reuse that memory while
     * the proof runs, which keeps a process's peak near one copy of the
     * trace instead of two. The glstark_air_trace structs themselves must
     * stay valid until glstark_prove returns. Not called if the proof fails
     * before that point. */
    void (*traces_released)(void *user);
    void *traces_released_user;
    /* NULL, or where the rows of every trace whose common_main.values is
     * NULL come from, so the caller never holds a whole trace:
     * trace_rows(user, air, row_begin, num_rows, dst) writes rows
     * [row_begin, row_begin + num_rows) of AIR air's common main into dst,
     * column-major (column c's num_rows values at dst + c * num_rows),
     * canonical (below p). The prover asks for the rows in increasing
     * order, each once per proof, in blocks of a few MB, and hands each
     * block to its engine before asking for the next. Return 0, or non-zero
     * to stop the proof (GLSTARK_ERR_INVALID_ARGUMENT, the value in the
     * message). The constraint check reads whole traces: a streamed trace
     * needs skip_constraint_check. */
    int (*trace_rows)(void *user, size_t air, size_t row_begin, size_t num_rows, uint32_t *dst);
    void *trace_rows_user;
    glstark_codeword_policy codeword; /* GLSTARK_CODEWORD_AUTO (0) unless set */
} glstark_prove_options;

GLSTARK_API void glstark_prove_options_init(glstark_prove_options *opts);

/* What a proof call (glstark_prove, glstark_prove_context) hands back. An
 * output only: the call never reads it, zeroes it first and sets `size` to
 * sizeof(glstark_prove_result) as the library was built, so existing callers
 * that pass an uninitialised struct keep working. New fields go at the end;
 * a caller may check `size` against offsetof(field) before reading one the
 * library it runs on may not know. The library writes the whole struct it
 * knows, so it grows only together with a new soversion.
 * glstark_prove_result_init gives a defined, empty result before any call
 * (glstark_prove_result_free accepts it). */
typedef struct glstark_prove_result {
    size_t size;                /* sizeof(glstark_prove_result) of the library that filled it */
    uint8_t *proof;             /* the proof bytes (glstark_prove_result_free releases them) */
    size_t proof_len;
    double seconds;             /* prove time (after the argument checks) */
    double phase_seconds[6];    /* constraint check, commit, LogUp PoW, LogUp/zerocheck, stacked reduction, WHIR */
    /* A GLES engine that lacks a phase runs that phase on the CPU engine:
     * bit i of fallback_phases = phase i+1 above (commit = bit 0), and
     * fallback_note says which and why ("" when none). */
    unsigned fallback_phases;
    char fallback_note[512];
    char message[2048];         /* why it failed ("" on success) */
} glstark_prove_result;

/* traces: one per AIR of the key, in key order (height 0 = the AIR is
 * absent), with their public values. GLSTARK_ERR_UNSATISFIED when a
 * constraint or a LogUp bus fails (the message names AIR, constraint and
 * row). */
GLSTARK_API glstark_status glstark_prove(const glstark_proving_key *pk, const glstark_air_trace *traces,
                                         size_t num_traces, const glstark_prove_options *opts,
                                         glstark_prove_result *result);
GLSTARK_API void glstark_prove_result_free(glstark_prove_result *result);
/* Zeroes *result and sets its size (optional: the proof calls do it). */
GLSTARK_API void glstark_prove_result_init(glstark_prove_result *result);

/* ---- verifying ---- */
/* GLSTARK_OK: the proof verifies. GLSTARK_ERR_MALFORMED: the bytes are not
 * a proof. GLSTARK_ERR_REJECTED: it does not verify against vk (wrong AIR,
 * wrong public values, tampered). msg (may be NULL) says why. */
GLSTARK_API glstark_status glstark_verify(const glstark_verifying_key *vk, const uint8_t *proof, size_t len, char *msg,
                                          size_t msg_size);

/* ---- files ---- */
/* Reads a whole file (*bytes malloc'd, glstark_free; NULL on failure) /
 * writes bytes to a file. GLSTARK_ERR_IO with the reason in msg. A file of
 * more than GLSTARK_READ_FILE_MAX bytes is refused (GLSTARK_ERR_IO) once that
 * many have been read: far more than any proof or key (keccakf-1024's proof
 * is 0.9 MB, its key 0.3 MB), and a wrong path such as /dev/zero or an
 * endless pipe fails instead of taking all the memory. */
#define GLSTARK_READ_FILE_MAX ((size_t)1 << 30)
GLSTARK_API glstark_status glstark_read_file(const char *path, uint8_t **bytes, size_t *len, char *msg,
                                             size_t msg_size);
GLSTARK_API glstark_status glstark_write_file(const char *path, const uint8_t *bytes, size_t len, char *msg,
                                              size_t msg_size);
GLSTARK_API void glstark_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
