/* Slow variant (meson -Dslow_tests=true): 1024 permutations, the size of
 * OpenVM's keccakf example. */
#define GLSTARK_SLOW_TESTS 1
#include "test_keccak_sizes.c"
