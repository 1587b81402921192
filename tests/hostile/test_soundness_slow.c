/* -Dslow_tests=true: exhaustive single-byte mutations of fib-small_n1
 * (all 255 other values of every byte) and sampled keccak mutations. */
#define GLSTARK_SLOW_TESTS 1
#include "test_soundness.c"
