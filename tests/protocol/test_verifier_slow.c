/* Slow verifier tests (meson -Dslow_tests=true): sampled single-byte changes
 * of the Keccak proof. The helpers are those of test_verifier.c. */
#define GLSTARK_VERIFIER_SLOW 1
#include "test_verifier.c"
