/* How many work groups a GPU runs side by side, timed where neither the
 * renderer nor the driver says (gl_device.h, gs_gl_measure_parallel). The
 * dispatch time budget plans in whole rounds of that many groups; left at
 * 1 it planned chunks of a single group wherever one group's work was near
 * the budget, and the other cores idled (docs/performance.md, "the board
 * proxy's over-budget dispatches"). */
#include "gles/dispatch_plan.h"
#include "gles/gl_device.h"

/* One group's time to aim for: far above a dispatch's fixed cost (tens of
 * microseconds), far below the budget. */
#define PROBE_GROUP_NS 2000000u
#define PROBE_ITERS_FIRST 64u
#define PROBE_ITERS_MAX (1u << 24)
/* Each size is timed this often and its fastest run counts (a run can only
 * be slowed by something else). */
#define PROBE_RUNS 3

static uint64_t time_groups(gs_gl_device *dev, uint32_t groups)
{
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < PROBE_RUNS; r++) {
        glFinish();
        uint64_t t0 = gs_monotonic_ns();
        glDispatchCompute(groups, 1, 1);
        glFinish();
        uint64_t dt = gs_monotonic_ns() - t0;
        dev->calib_syncs += 2;
        if (dt < best)
            best = dt;
    }
    return best;
}

glstark_status gs_gl_measure_parallel(gs_gl_device *dev, uint64_t budget_ns, uint32_t *out, gs_error *err)
{
    *out = 1;
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, "parallel_probe.comp", "", &prog, err);
    if (st)
        return st;
    const GLuint p = gs_gl_program_name(prog);
    const GLint loc = gs_gl_program_uniform(prog, "gs_iters");
    GLuint buf = 0;
    glGenBuffers(1, &buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)GS_PARALLEL_GROUPS_MAX * dev->caps.local_size * 4, NULL,
                 GL_DYNAMIC_COPY);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
    glUseProgram(p);
    /* a first dispatch apart: llvmpipe compiles the shader there */
    glProgramUniform1ui(p, loc, 1);
    (void)time_groups(dev, 1);
    /* one group's chain long enough to time */
    const uint64_t half = budget_ns ? budget_ns / 2 : UINT64_MAX;
    uint32_t iters = PROBE_ITERS_FIRST;
    glProgramUniform1ui(p, loc, iters);
    uint64_t one = time_groups(dev, 1);
    while (one < PROBE_GROUP_NS && iters < PROBE_ITERS_MAX && one < half / 16) {
        iters *= 4;
        glProgramUniform1ui(p, loc, iters);
        one = time_groups(dev, 1);
    }
    uint32_t groups[8] = {1};
    uint64_t ns[8] = {one};
    unsigned n = 1;
    while (n < 8 && groups[n - 1] < GS_PARALLEL_GROUPS_MAX) {
        groups[n] = 2 * groups[n - 1];
        ns[n] = time_groups(dev, groups[n]);
        n++;
        /* past the flat part, or as long as the budget allows */
        if ((double)ns[n - 1] > GS_PARALLEL_FLAT * (double)one || 2 * ns[n - 1] > half)
            break;
    }
    *out = gs_parallel_from_times(groups, ns, n);
    glUseProgram(0);
    glDeleteBuffers(1, &buf);
    gs_gl_log(dev, GLSTARK_LOG_INFO,
              "work groups side by side: %u (measured: one group of %u steps %.2f ms, %u groups %.2f ms)", *out,
              iters, (double)one * 1e-6, groups[n - 1], (double)ns[n - 1] * 1e-6);
    return gs_gl_check(dev, err, "measuring the work groups a GPU runs side by side");
}
