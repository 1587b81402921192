/* Proofs of AIRs with preprocessed traces and cached mains (the AIRs:
 * tests/protocol/sides_fixture.h) on the GLES device and on the CPU engine:
 * the same bytes, no phase on the CPU fallback, accepted by the verifier;
 * with the codewords kept and re-encoded, and a second proof on the same
 * device (the buffer pool then hands out used buffers, poisoned in the
 * tests). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "glstark/device.h"
#include "../protocol/sides_fixture.h"

static void prove_on(const sides_case *c, glstark_device *dev, glstark_codeword_policy cw, glstark_prove_result *r)
{
    glstark_air_trace t[3];
    sides_case_traces(c, t);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.device = dev;
    o.cpu_threads = 2;
    o.codeword = cw;
    glstark_status st = glstark_prove(c->pk, t, 3, &o, r);
    cr_assert_eq(st, GLSTARK_OK, "%s: %s prove failed: %s", c->desc, dev ? "GLES" : "CPU", r->message);
}

Test(sides_gles, cpu_and_gles_proofs_are_identical, .timeout = 600)
{
    glstark_device_options dopt;
    glstark_device_options_init(&dopt);
    glstark_device *dev = NULL;
    char msg[2048];
    cr_assert_eq(glstark_device_create(&dopt, &dev, msg, sizeof msg), GLSTARK_OK, "opening a GLES device: %s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_GLES);
    cr_log_info("GLES device: %s", glstark_device_renderer(dev));
    for (size_t k = 0; k < SIDES_NSPECS; k++) {
        sides_case c;
        sides_case_from_spec(&c, &sides_specs[k]);
        glstark_prove_result rc;
        prove_on(&c, NULL, GLSTARK_CODEWORD_KEEP, &rc);
        const glstark_codeword_policy pols[3] = {GLSTARK_CODEWORD_KEEP, GLSTARK_CODEWORD_REENCODE,
                                                 GLSTARK_CODEWORD_AUTO};
        for (int i = 0; i < 3; i++) {
            glstark_prove_result rg;
            prove_on(&c, dev, pols[i], &rg);
            cr_assert_eq(rg.fallback_phases, 0u, "%s: GLES fell back to the CPU: %s", c.desc, rg.fallback_note);
            size_t at = 0;
            while (at < rc.proof_len && at < rg.proof_len && rc.proof[at] == rg.proof[at])
                at++;
            cr_assert(rc.proof_len == rg.proof_len && at == rc.proof_len,
                      "%s (codeword policy %d): CPU proof %zu bytes, GLES %zu, first difference at byte %zu", c.desc,
                      (int)pols[i], rc.proof_len, rg.proof_len, at);
            cr_assert_eq(glstark_verify(c.vk, rg.proof, rg.proof_len, msg, sizeof msg), GLSTARK_OK, "%s: %s", c.desc,
                         msg);
            glstark_prove_result_free(&rg);
        }
        cr_log_info("%s: %zu bytes, CPU = GLES, verified", c.desc, rc.proof_len);
        glstark_prove_result_free(&rc);
        sides_case_free(&c);
    }
    glstark_device_destroy(dev);
}
