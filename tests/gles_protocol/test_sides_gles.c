/* Proofs of AIRs with preprocessed traces and cached mains (the AIRs:
 * tests/protocol/sides_fixture.h) on the GLES device and on the CPU engine:
 * the same bytes, no phase on the CPU fallback, accepted by the verifier;
 * with the codewords kept and re-encoded, and a second proof on the same
 * device (the buffer pool then hands out used buffers, poisoned in the
 * tests); and under device memory caps, clean failures. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <string.h>

#include "api/device_internal.h"
#include "api/device_testing.h"
#include "engine/gles/gles_engine.h"
#include "glstark/device.h"
#include "../protocol/sides_fixture.h"

static void prove_on(const sides_case *c, glstark_device *dev, glstark_codeword_policy cw, glstark_prove_result *r,
                     glstark_prove_stats *stats)
{
    glstark_air_trace t[3];
    sides_case_traces(c, t);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.stats = stats;
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
    dopt.engine = GLSTARK_ENGINE_GLES;
    glstark_device *dev = NULL;
    char msg[2048];
    cr_assert_eq(glstark_device_create(&dopt, &dev, msg, sizeof msg), GLSTARK_OK, "opening a GLES device: %s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_GLES);
    cr_log_info("GLES device: %s", glstark_device_renderer(dev));
    for (size_t k = 0; k < SIDES_NSPECS; k++) {
        sides_case c;
        sides_case_from_spec(&c, &sides_specs[k]);
        glstark_prove_result rc;
        prove_on(&c, NULL, GLSTARK_CODEWORD_KEEP, &rc, NULL);
        const glstark_codeword_policy pols[3] = {GLSTARK_CODEWORD_KEEP, GLSTARK_CODEWORD_REENCODE,
                                                 GLSTARK_CODEWORD_AUTO};
        for (int i = 0; i < 3; i++) {
            glstark_prove_result rg;
            glstark_prove_stats st;
            glstark_prove_stats_init(&st);
            prove_on(&c, dev, pols[i], &rg, &st);
            cr_assert_eq(rg.fallback_phases, 0u, "%s: GLES fell back to the CPU: %s", c.desc, rg.fallback_note);
            /* every side commitment's root comes back in one host sync */
            int seen = 0;
            for (size_t s = 0; s < st.num_spans; s++)
                if (!strcmp(st.spans[s].name, "preprocessed_and_cached_commits")) {
                    seen = 1;
                    cr_assert_eq(st.spans[s].host_syncs, 1, "%s: side commitments took %llu host syncs", c.desc,
                                 (unsigned long long)st.spans[s].host_syncs);
                }
            cr_assert(seen, "%s: no side commitments span", c.desc);
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

/* Device bytes the GLES engine keeps between proofs on purpose: its
 * twiddle tables. */
static size_t cached_bytes(gs_engine *eng)
{
    const gs_gles_state *gs = eng->impl;
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        if (gs->twiddles[i])
            n += gs->twiddles[i]->capacity ? gs->twiddles[i]->capacity : gs->twiddles[i]->size;
    return n;
}

/* Device memory caps from 1/24 of a proof's peak up to the peak: each proof
 * either succeeds with the same bytes or fails with DEVICE_MEMORY and a
 * message, and leaves no device buffer live but the engine's cache (the
 * fault paths of the side commits included, wherever the cap falls). */
Test(sides_gles, memory_caps_fail_cleanly, .timeout = 600)
{
    sides_case c;
    sides_case_from_spec(&c, &sides_specs[0]);
    glstark_air_trace t[3];
    sides_case_traces(&c, t);
    char msg[2048];
    glstark_device_options dopt;
    glstark_device_options_init(&dopt);
    dopt.engine = GLSTARK_ENGINE_GLES;
    glstark_device *dev = NULL;
    cr_assert_eq(glstark_device_create(&dopt, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.device = dev;
    glstark_prove_stats stats;
    glstark_prove_stats_init(&stats);
    o.stats = &stats;
    o.no_spans = 1;
    glstark_prove_result ref;
    cr_assert_eq(glstark_prove(c.pk, t, 3, &o, &ref), GLSTARK_OK, "%s", ref.message);
    const size_t peak = stats.device_bytes_peak;
    glstark_device_destroy(dev);
    cr_assert_gt(peak, 0);
    size_t failed = 0;
    for (size_t k = 1; k <= 24; k++) {
        gs_device_config cfg;
        gs_error err;
        cr_assert_eq(gs_device_config_resolve(&dopt, &cfg, &err), GLSTARK_OK, "%s", err.msg);
        cfg.device_memory_cap = peak * k / 24;
        cr_assert_eq(gs_device_create_config(&cfg, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
        glstark_prove_options_init(&o);
        o.device = dev;
        glstark_prove_result r;
        glstark_status st = glstark_prove(c.pk, t, 3, &o, &r);
        if (st == GLSTARK_OK) {
            cr_assert(r.proof_len == ref.proof_len && !memcmp(r.proof, ref.proof, r.proof_len),
                      "cap %zu: another proof", (size_t)cfg.device_memory_cap);
        } else {
            cr_assert_eq(st, GLSTARK_ERR_DEVICE_MEMORY, "cap %zu: %s (%s)", (size_t)cfg.device_memory_cap,
                         glstark_status_name(st), r.message);
            cr_assert(strstr(r.message, "cap"), "cap %zu: %s", (size_t)cfg.device_memory_cap, r.message);
            failed++;
        }
        const size_t live = gs_device_engine_of(dev)->bytes_live, kept = cached_bytes(gs_device_engine_of(dev));
        cr_assert_eq(live, kept, "cap %zu: %zu device bytes still live after the proof, %zu of them the engine's cache",
                     (size_t)cfg.device_memory_cap, live, kept);
        glstark_prove_result_free(&r);
        glstark_device_destroy(dev);
    }
    cr_log_info("peak %zu bytes; %zu of 24 capped proofs failed cleanly", peak, failed);
    cr_assert_gt(failed, 0);
    glstark_prove_result_free(&ref);
    sides_case_free(&c);
}
