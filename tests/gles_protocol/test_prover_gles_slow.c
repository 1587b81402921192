/* The keccak proof on the GLES engine (slow_tests; minutes on llvmpipe):
 * test_prover_gles.c's check on keccakf, 16 permutations, L = 21. */
#define GS_GLES_SLOW_ONLY
#include "test_prover_gles.c"
