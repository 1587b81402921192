/* Built-in AIRs, defined exactly as the reference defines them so that their
 * verifying keys (and proofs) equal OpenVM's:
 *  - OpenVM stark-backend's FibonacciAir (test_utils/dummy_airs/fib_air);
 *  - the two AIRs of OpenVM's InteractionsFixture11 (a DummyInteractionAir
 *    sender and receiver with one message field on bus 0);
 *  - Plonky3 0.4.3's KeccakAir (p3-keccak-air), as OpenVM's keccakf example
 *    uses it.
 * Traces are returned column-major with canonical values (column c at
 * trace[c*height .. c*height+height)). */
#ifndef GLSTARK_AIRS_H
#define GLSTARK_AIRS_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/air.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Fibonacci: 2 columns (left, right), public values [a, b, f_n] ---- */
#define GLSTARK_FIB_WIDTH 2
GLSTARK_API glstark_status glstark_fibonacci_air(glstark_air **out);
/* Trace of `height` rows (a power of two) starting at (a, b), and its public
 * values [a, b, right cell of the last row]. trace holds 2*height values. */
GLSTARK_API glstark_status glstark_fibonacci_trace(uint64_t a, uint64_t b, size_t height,
                                                   uint32_t *trace, uint32_t public_values[3]);

/* ---- InteractionsFixture11: columns (count, field) ---- */
/* out[0] = sender (count = col 0), out[1] = receiver (count = -1 * col 0). */
GLSTARK_API glstark_status glstark_interactions_fixture_airs(glstark_air *out[2]);
/* OpenVM's fixed traces: sender 4 rows, receiver 8 rows, width 2. */
#define GLSTARK_INTERACTIONS_SENDER_HEIGHT 4
#define GLSTARK_INTERACTIONS_RECEIVER_HEIGHT 8
GLSTARK_API void glstark_interactions_fixture_traces(uint32_t sender[2 * 4], uint32_t receiver[2 * 8]);

/* ---- Keccak-f[1600]: 2633 columns, 24 rows per permutation ---- */
#define GLSTARK_KECCAK_WIDTH 2633
#define GLSTARK_KECCAK_ROUNDS 24
GLSTARK_API glstark_status glstark_keccak_air(glstark_air **out);
/* Rows of the trace for n permutations: next power of two >= 24 n (1 for n = 0). */
GLSTARK_API size_t glstark_keccak_trace_height(size_t num_permutations);
/* Trace for inputs[k][x + 5y] = lane A[x][y]; rows past the inputs are
 * zero-state permutations, as Plonky3's generate_trace_rows pads.
 * trace holds GLSTARK_KECCAK_WIDTH * glstark_keccak_trace_height(n) values.
 * The permutations are split over the cores online (threads that have all
 * finished when it returns; if one cannot start, the caller does its part). */
GLSTARK_API glstark_status glstark_keccak_trace(const uint64_t (*inputs)[25],
                                                size_t num_permutations, uint32_t *trace);
/* Rows [row_begin, row_begin + num_rows) of that trace, column-major into
 * block (column c's num_rows values at block + c * num_rows): the same
 * values, for glstark_prove_options.trace_rows, without the whole trace.
 * GLSTARK_ERR_INVALID_ARGUMENT if the rows run past the trace's height. */
GLSTARK_API glstark_status glstark_keccak_trace_rows(const uint64_t (*inputs)[25], size_t num_permutations,
                                                     size_t row_begin, size_t num_rows, uint32_t *block);
/* OpenVM's keccakf example inputs: Rust StdRng::seed_from_u64(seed) (rand
 * 0.9), one `rng.random::<[u64; 25]>()` (25 next_u64) per permutation. */
GLSTARK_API void glstark_keccak_inputs_from_seed(uint64_t seed, size_t num_permutations, uint64_t (*inputs)[25]);

#ifdef __cplusplus
}
#endif
#endif
