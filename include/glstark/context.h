/* Proving an OpenVM circuit from two files: OpenVM's verifying key and a
 * proving-context file.
 *
 * An OpenVM user writes their circuit in Rust. OpenVM's verifying key
 * (`MultiStarkVerifyingKey` in its pre-hash encoding, the `.prevk.bin`
 * files) already carries every AIR's constraint DAG, widths, public-value
 * count, preprocessed commitment and the system parameters. The proving
 * context (`.ctx.bin`, format version 1, docs/openvm.md) adds what the key
 * lacks: the preprocessed traces and the traces of OpenVM's
 * `ProvingContext::per_trace`. From the two, glstark proves on either engine
 * and the proof is OpenVM's, byte for byte.
 *
 *   glstark_verifying_key *vk;   glstark_verifying_key_decode(key, key_len, &vk, msg, sizeof msg);
 *   glstark_context *ctx;        glstark_context_open("app.ctx.bin", vk, &ctx, msg, sizeof msg);
 *   glstark_proving_key *pk;     glstark_proving_key_from_context(vk, ctx, &pk, msg, sizeof msg);
 *   glstark_prove_result r;      glstark_prove_context(pk, ctx, &opts, &r);
 *
 * Every function returns a status and, where a buffer is given, a message
 * that names the place (the AIR, the trace, the byte offset) and what
 * differs. Nothing aborts on bad input. */
#ifndef GLSTARK_CONTEXT_H
#define GLSTARK_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/prove.h"
#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file's first 8 bytes, and the only version this library reads and writes. */
#define GLSTARK_CONTEXT_MAGIC "OVMCTX01"
#define GLSTARK_CONTEXT_VERSION 1u

/* A proving context checked against its verifying key. It refers to the
 * file's bytes and never copies the traces: glstark_context_open maps the
 * file read-only (a 330 MB context costs no heap), glstark_context_from_bytes
 * borrows the caller's buffer. */
typedef struct glstark_context glstark_context;

/* Reads and checks a context file against vk. GLSTARK_ERR_IO when the file
 * cannot be opened or mapped; GLSTARK_ERR_MALFORMED when the bytes do not
 * follow the format (magic, version, a size past the end of the file, a
 * value >= p, trailing bytes); GLSTARK_ERR_INVALID_ARGUMENT when they do but
 * disagree with the key (AIR count, an air_id out of range or repeated, a
 * width, a height, the cached-main or public-value count, a missing or extra
 * preprocessed trace, a required AIR absent). *out is NULL on failure. */
GLSTARK_API glstark_status glstark_context_open(const char *path, const glstark_verifying_key *vk,
                                                glstark_context **out, char *msg, size_t msg_size);

/* The same over bytes in memory, which must stay valid and unchanged until
 * glstark_context_destroy. On a little-endian host with `bytes` 4-byte
 * aligned nothing is copied; otherwise the context keeps one converted copy. */
GLSTARK_API glstark_status glstark_context_from_bytes(const uint8_t *bytes, size_t len,
                                                      const glstark_verifying_key *vk,
                                                      glstark_context **out, char *msg,
                                                      size_t msg_size);
GLSTARK_API void glstark_context_destroy(glstark_context *ctx);

/* Size of the context in bytes, and how many traces it has (per_trace's length). */
GLSTARK_API size_t glstark_context_size(const glstark_context *ctx);
GLSTARK_API size_t glstark_context_num_traces(const glstark_context *ctx);
/* Rows of AIR air_id's trace in this context; 0 when the AIR is absent or out of range. */
GLSTARK_API size_t glstark_context_trace_height(const glstark_context *ctx, size_t air_id);

/* A proving key from an OpenVM verifying key: one AIR per entry of the key,
 * made from the key's constraint DAG, and the key's own parameters (none
 * from a preset). The context supplies the preprocessed traces; the key is
 * copied, the preprocessed traces too, so pk does not refer to vk or ctx.
 * Every proof commits each preprocessed trace first and refuses (naming the
 * AIR) when its root differs from the key's commitment. */
GLSTARK_API glstark_status glstark_proving_key_from_context(const glstark_verifying_key *vk,
                                                            const glstark_context *ctx,
                                                            glstark_proving_key **pk, char *msg,
                                                            size_t msg_size);

/* Proves the context's traces with pk (from glstark_proving_key_from_context
 * with the same key). opts as for glstark_prove (may be NULL), except that
 * trace_rows and traces_released are the library's own here and must be
 * NULL: with skip_constraint_check the common mains go to the engine block by
 * block straight from the file's rows, and no copy of them is made; with the
 * constraint check on, each common main is first copied column-major for
 * the checker (freed as soon as the prover holds its own copy). Cached
 * mains are copied column-major either way. */
GLSTARK_API glstark_status glstark_prove_context(const glstark_proving_key *pk, const glstark_context *ctx,
                                                 const glstark_prove_options *opts,
                                                 glstark_prove_result *result);

/* Writes a context file (version 1) for pk's AIRs: pk's preprocessed
 * traces, then one per_trace entry for every AIR whose trace has a nonzero
 * height, in ascending AIR order. traces as for glstark_prove (one per AIR
 * of the key, column-major; common_main.values must not be NULL). The
 * bytes go to the file as they are made, a few MB at a time. */
GLSTARK_API glstark_status glstark_context_write(const char *path, const glstark_proving_key *pk,
                                                 const glstark_air_trace *traces, size_t num_traces,
                                                 char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
