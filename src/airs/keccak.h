/* Internal parts of the Keccak-f[1600] AIR (see include/glstark/airs.h and
 * docs/protocol.md, 'The Keccak-f AIR'). */
#ifndef GS_AIRS_KECCAK_H
#define GS_AIRS_KECCAK_H

#include <stddef.h>
#include <stdint.h>

#include "field/babybear.h"
#include "glstark/status.h"

/* Column map (columns.rs, #[repr(C)]). */
#define GS_KC_STEP 0
#define GS_KC_EXPORT 24
#define GS_KC_PREIMAGE 25
#define GS_KC_A 125
#define GS_KC_C 225
#define GS_KC_C_PRIME 545
#define GS_KC_A_PRIME 865
#define GS_KC_A_PP 2465
#define GS_KC_A_PP_00_BITS 2565
#define GS_KC_A_PPP_00 2629
#define GS_KC_WIDTH 2633

/* Plain Keccak-f[1600] on lanes[x + 5y]. */
void gs_keccak_f1600(uint64_t lanes[25]);

/* The trace in Montgomery form, column-major, height
 * glstark_keccak_trace_height(n). */
glstark_status gs_keccak_trace_mont(const uint64_t (*inputs)[25], size_t num_permutations,
                                    bb_t *trace);

#endif
