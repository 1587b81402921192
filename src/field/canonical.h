/* Checking that 32-bit words are canonical field values (each < p), as the
 * prover requires of every trace value before it converts them. */
#ifndef GS_FIELD_CANONICAL_H
#define GS_FIELD_CANONICAL_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first v[i] >= p, or n when there is none. Arrays of 2^22
 * words and more are scanned by up to `threads` threads (0: one per core,
 * at most 8): keccakf-1024's 345 MB trace took ~50 ms on one core of the
 * H200 machine's host. */
size_t gs_first_non_canonical(const uint32_t *v, size_t n, unsigned threads);

#endif
