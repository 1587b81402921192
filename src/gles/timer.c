/* Spans: how long a stretch of GPU work took. GPU time-elapsed queries where
 * the driver gives real numbers (they do not sync the pipeline until read);
 * otherwise glFinish at both ends and the monotonic clock. */
#include "gles/gl_device.h"

#include <time.h>

uint64_t gs_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t gs_process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

glstark_status gs_gl_span_begin(gs_gl_device *dev, gs_gl_span *s, const char *name, gs_error *err)
{
    s->name = name;
    s->gpu = 0;
    s->query = 0;
    if (dev->caps.timer_queries_valid) {
        dev->GenQueries(1, &s->query);
        dev->BeginQuery(GL_TIME_ELAPSED_EXT, s->query);
        s->gpu = 1;
        return gs_gl_check(dev, err, name);
    }
    glstark_status st = gs_gl_finish(dev, err);
    s->t0_ns = gs_monotonic_ns();
    return st;
}

glstark_status gs_gl_span_end(gs_gl_device *dev, gs_gl_span *s, uint64_t *ns, gs_error *err)
{
    *ns = 0;
    if (s->gpu) {
        dev->EndQuery(GL_TIME_ELAPSED_EXT);
        GLuint64 v = 0;
        /* Reading the result waits for it: one host sync. */
        dev->GetQueryObjectui64v(s->query, GL_QUERY_RESULT_EXT, &v);
        dev->host_syncs++;
        GLint disjoint = 0;
        glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
        dev->DeleteQueries(1, &s->query);
        s->query = 0;
        *ns = disjoint ? 0 : (uint64_t)v;
        gs_gl_log(dev, GLSTARK_LOG_DEBUG, "span %s: %.3f ms (GPU timer%s)", s->name, (double)*ns * 1e-6,
                  disjoint ? ", disjoint: discarded" : "");
        return gs_gl_check(dev, err, s->name);
    }
    glstark_status st = gs_gl_finish(dev, err);
    *ns = gs_monotonic_ns() - s->t0_ns;
    gs_gl_log(dev, GLSTARK_LOG_DEBUG, "span %s: %.3f ms (glFinish + clock)", s->name, (double)*ns * 1e-6);
    return st;
}
