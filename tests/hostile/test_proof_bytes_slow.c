/* -Dslow_tests=true: the same tests with every truncation of the large proofs. */
#define GLSTARK_SLOW_TESTS 1
#include "test_proof_bytes.c"
