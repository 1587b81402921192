/* WHIR byte-exactness on the GLES engine: the same check as
 * tests/protocol/test_whir_prove.c (stacked commitment root = OpenVM's,
 * WHIR from OpenVM's recorded transcript state at the recorded point, the
 * encoded WHIR proof = the WHIR bytes of OpenVM's proof.bin, transcript op
 * for op, and the verifier accepts), with stacking, RS encoding, Merkle
 * trees and every WHIR kernel on the GLES engine. */
#define GS_WHIR_PROVE_NO_TESTS
#include "../protocol/test_whir_prove.c"

#include "../gles/gles_test_util.h"

static void on_gles(const char *spec)
{
    gs_engine *eng = tu_engine(NULL);
    cr_assert_not_null(eng->whir, "the GLES engine has a whir family");
    prove_exact_on(eng, spec, NULL, 0, 0);
    gs_engine_destroy(eng);
}

Test(whir_prove_gles, fib_small_n4) { on_gles("fib-small_n4"); }
Test(whir_prove_gles, fib_small_n10) { on_gles("fib-small_n10"); }
Test(whir_prove_gles, interactions_small) { on_gles("interactions-small"); }
/* fib-app18_n10 runs in prover_gles (the whole proof, WHIR included). */
