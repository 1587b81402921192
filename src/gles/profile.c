/* Kernel profile (GLSTARK_PROFILE): where the GPU time of a run goes, per
 * kernel variant and per kind of buffer operation. Off by default and free
 * when off (one branch per operation). The table is logged when the device
 * closes. Two modes:
 * - `1`: each profiled operation is bracketed by glFinish and the monotonic
 *   clock, which serializes the GPU with the host: totals grow, but every
 *   millisecond is attributed to the operation that spent it, host work
 *   such as program builds included.
 * - `gpu`: a GPU timestamp query (GL_EXT_disjoint_timer_query) before and
 *   after each operation, and no finish, so the run keeps its own pace.
 *   Each operation gets its GPU time (end less start, less any part
 *   already covered by earlier operations, so the rows add up to the GPU's
 *   busy time) and the GPU's idle time before it (its start past every
 *   earlier end: the GPU waited for the host), read back when the device
 *   closes. Where the driver's timers give no real numbers (llvmpipe) it
 *   falls back to `1`. An operation inside a profiled one (the upload's widening dispatches
 *   inside its write) counts as the outer one's. Without a finish the
 *   split between neighbours is approximate: a start stamp may land while
 *   earlier unbarriered work still runs, so a buffer read's row holds the
 *   tail of the kernels before it. The total and the idle time are what
 *   this mode is for. */
#include "gles/gl_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GS_PROF_MAX 128

typedef struct prof_entry {
    char key[96];
    uint64_t calls, ns, units;
    uint64_t host_ns; /* gpu mode: the calling thread's time in the operation */
    uint64_t idle_ns; /* gpu mode: the GPU's idle time just before the operation */
    uint64_t dispatches; /* GL dispatches (a call may issue several), 0 for other operations */
    uint64_t longest_ns; /* the longest single dispatch (or operation), the program's first one apart */
    uint64_t longest_cpu_ns; /* the most process CPU time of one of those dispatches */
    uint64_t first_ns;   /* the program's first dispatch (on llvmpipe: with the shader's compile) */
} prof_entry;

/* gpu mode: one timed operation, its two timestamp queries */
typedef struct prof_stamp {
    GLuint q[2];
    size_t entry;
} prof_stamp;

struct gs_gl_profile {
    prof_entry e[GS_PROF_MAX];
    size_t n;
    uint64_t t0_ns;
    int gpu;        /* timestamps instead of glFinish */
    unsigned depth; /* gpu mode: an operation inside a profiled one is the outer one's */
    GLuint open_q0; /* gpu mode: the start query of the open operation */
    prof_stamp *stamps;
    size_t nstamps, cap;
    int stamps_lost; /* gpu mode: out of host memory for stamps; the table is partial */
};

glstark_status gs_gl_profile_enable(gs_gl_device *dev, gs_error *err)
{
    if (dev->prof)
        return GLSTARK_OK;
    dev->prof = calloc(1, sizeof *dev->prof);
    if (!dev->prof)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "GLSTARK_PROFILE: no host memory for the profile table");
    if (dev->cfg.profile == GS_PROFILE_GPU) {
        dev->prof->gpu = dev->caps.timer_queries_valid && dev->QueryCounter != NULL;
        if (!dev->prof->gpu)
            gs_gl_log(dev, GLSTARK_LOG_WARN,
                      "GLSTARK_PROFILE=gpu: this driver's timer queries give no real numbers; each operation is "
                      "bracketed by glFinish instead (GLSTARK_PROFILE=1)");
    }
    return GLSTARK_OK;
}

void gs_gl_profile_timeline(const uint64_t *start, const uint64_t *end, size_t n, uint64_t *busy, uint64_t *idle)
{
    uint64_t covered = 0; /* the latest end so far: the GPU was busy up to it */
    for (size_t i = 0; i < n; i++) {
        const uint64_t from = i > 0 && covered > start[i] ? covered : start[i];
        busy[i] = end[i] > from ? end[i] - from : 0;
        idle[i] = i > 0 && start[i] > covered ? start[i] - covered : 0;
        if (i == 0 || end[i] > covered)
            covered = end[i];
    }
}

int gs_gl_profile_finishes(const gs_gl_device *dev) { return dev->prof && !dev->prof->gpu; }

void gs_gl_profile_begin(gs_gl_device *dev)
{
    struct gs_gl_profile *p = dev->prof;
    if (p->gpu) {
        if (p->depth++ == 0) {
            p->open_q0 = 0;
            dev->GenQueries(1, &p->open_q0);
            dev->QueryCounter(p->open_q0, GL_TIMESTAMP_EXT);
            p->t0_ns = gs_monotonic_ns();
        }
        return;
    }
    glFinish();
    p->t0_ns = gs_monotonic_ns();
}

/* gpu mode: closes the open (outermost) operation with its end query and
 * keeps the pair for the report. */
static void stamp_close(gs_gl_device *dev, size_t entry)
{
    struct gs_gl_profile *p = dev->prof;
    if (p->depth == 0 || --p->depth != 0)
        return;
    GLuint q1 = 0;
    dev->GenQueries(1, &q1);
    dev->QueryCounter(q1, GL_TIMESTAMP_EXT);
    if (p->nstamps == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4096;
        prof_stamp *grown = realloc(p->stamps, cap * sizeof *grown);
        if (!grown) {
            p->stamps_lost = 1;
            dev->DeleteQueries(1, &p->open_q0);
            dev->DeleteQueries(1, &q1);
            return;
        }
        p->stamps = grown;
        p->cap = cap;
    }
    p->stamps[p->nstamps++] = (prof_stamp){{p->open_q0, q1}, entry};
}

void gs_gl_profile_end(gs_gl_device *dev, const char *key, uint64_t units)
{
    gs_gl_profile_end_split(dev, key, units, 0, 0, 0, 0);
}

void gs_gl_profile_end_split(gs_gl_device *dev, const char *key, uint64_t units, uint64_t dispatches,
                             uint64_t longest_ns, uint64_t longest_cpu_ns, uint64_t first_ns)
{
    struct gs_gl_profile *p = dev->prof;
    if (p->gpu && p->depth > 1) {
        p->depth--; /* inside another profiled operation: counted there */
        return;
    }
    if (!p->gpu)
        glFinish();
    uint64_t dt = gs_monotonic_ns() - p->t0_ns;
    if (!dispatches)
        longest_ns = dt; /* one operation: its whole time */
    size_t i = 0;
    while (i < p->n && strcmp(p->e[i].key, key) != 0)
        i++;
    if (i == p->n) {
        if (p->n == GS_PROF_MAX)
            i = GS_PROF_MAX - 1; /* table full: the last row collects the rest */
        else
            snprintf(p->e[p->n++].key, sizeof p->e[0].key, "%s", key);
    }
    p->e[i].calls++;
    if (p->gpu) {
        p->e[i].host_ns += dt; /* the GPU time comes from the stamps at the report */
        stamp_close(dev, i);
    } else {
        p->e[i].ns += dt;
    }
    p->e[i].units += units;
    p->e[i].dispatches += dispatches;
    if (longest_ns > p->e[i].longest_ns)
        p->e[i].longest_ns = longest_ns;
    if (longest_cpu_ns > p->e[i].longest_cpu_ns)
        p->e[i].longest_cpu_ns = longest_cpu_ns;
    if (first_ns)
        p->e[i].first_ns = first_ns;
}

static int by_time(const void *a, const void *b)
{
    const prof_entry *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static int by_longest(const void *a, const void *b)
{
    const prof_entry *x = *(const prof_entry *const *)a, *y = *(const prof_entry *const *)b;
    return x->longest_ns < y->longest_ns ? 1 : x->longest_ns > y->longest_ns ? -1 : 0;
}

/* One line of the report: the log callback if the caller set one, else
 * stderr (the variable was asked for by whoever runs the program). */
static void emit(const gs_gl_device *dev, const char *line)
{
    if (dev->cfg.log)
        gs_gl_log(dev, GLSTARK_LOG_INFO, "%s", line);
    else
        fprintf(stderr, "%s\n", line);
}

/* gpu mode: reads every operation's two timestamps (the GPU has long
 * finished them at device close) into its entry's GPU and idle time.
 * Returns 0 when the driver reports a disjoint event (the clock jumped:
 * the times mean nothing) or host memory runs out. */
static int stamps_resolve(gs_gl_device *dev)
{
    struct gs_gl_profile *p = dev->prof;
    const size_t n = p->nstamps;
    uint64_t *t = malloc(4 * (n ? n : 1) * sizeof *t);
    int ok = t != NULL;
    for (size_t k = 0; k < n; k++) {
        GLuint64 v0 = 0, v1 = 0;
        if (ok) {
            dev->GetQueryObjectui64v(p->stamps[k].q[0], GL_QUERY_RESULT_EXT, &v0);
            dev->GetQueryObjectui64v(p->stamps[k].q[1], GL_QUERY_RESULT_EXT, &v1);
            t[k] = v0;
            t[n + k] = v1;
        }
        dev->DeleteQueries(2, p->stamps[k].q);
    }
    GLint disjoint = 0;
    glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
    if (ok && !disjoint) {
        gs_gl_profile_timeline(t, t + n, n, t + 2 * n, t + 3 * n);
        for (size_t k = 0; k < n; k++) {
            p->e[p->stamps[k].entry].ns += t[2 * n + k];
            p->e[p->stamps[k].entry].idle_ns += t[3 * n + k];
        }
    }
    free(t);
    return ok && !disjoint;
}

void gs_gl_profile_report(gs_gl_device *dev)
{
    struct gs_gl_profile *p = dev->prof;
    if (!p)
        return;
    char line[256];
    if (p->gpu && (!stamps_resolve(dev) || p->stamps_lost)) {
        emit(dev, "GLSTARK_PROFILE=gpu: the GPU timestamps are unusable (a disjoint event, or no host memory for "
                  "them); the GPU times below are missing or partial");
    }
    qsort(p->e, p->n, sizeof p->e[0], by_time);
    uint64_t total = 0, idle = 0;
    for (size_t i = 0; i < p->n; i++) {
        total += p->e[i].ns;
        idle += p->e[i].idle_ns;
    }
    if (p->gpu)
        snprintf(line, sizeof line,
                 "GLSTARK_PROFILE: %.3f ms of GPU time and %.3f ms of GPU idle between operations, in %zu kinds "
                 "(GPU timestamps, no glFinish; idle: before the operation; host: the calling thread in it)",
                 (double)total * 1e-6, (double)idle * 1e-6, p->n);
    else
        snprintf(line, sizeof line, "GLSTARK_PROFILE: %.3f ms in %zu kinds of operation (each bracketed by glFinish)",
                 (double)total * 1e-6, p->n);
    emit(dev, line);
    for (size_t i = 0; i < p->n; i++) {
        const prof_entry *e = &p->e[i];
        if (p->gpu)
            snprintf(line, sizeof line, "  %10.3f ms %6.1f%% %10.3f ms idle %10.3f ms host %7llu calls %12llu units  %s",
                     (double)e->ns * 1e-6, total ? 100.0 * (double)e->ns / (double)total : 0.0,
                     (double)e->idle_ns * 1e-6, (double)e->host_ns * 1e-6, (unsigned long long)e->calls,
                     (unsigned long long)e->units, e->key);
        else
            snprintf(line, sizeof line, "  %10.3f ms %6.1f%% %7llu calls %12llu units  %s", (double)e->ns * 1e-6,
                     total ? 100.0 * (double)e->ns / (double)total : 0.0, (unsigned long long)e->calls,
                     (unsigned long long)e->units, e->key);
        emit(dev, line);
    }
    /* The longest single dispatch per kernel, longest first: what a GPU
     * watchdog sees (GLSTARK_DISPATCH_MS bounds it). One line each, so a
     * log callback can pick them out ("GLSTARK_PROFILE longest ..."). The
     * most process CPU time of one dispatch beside it: on a software
     * renderer that is the device's work, which the wall clock overstates
     * when other processes share the host's cores. */
    if (p->gpu)
        return; /* dispatches are not timed one by one in this mode */
    const prof_entry *order[GS_PROF_MAX];
    size_t nk = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->e[i].dispatches)
            order[nk++] = &p->e[i];
    qsort(order, nk, sizeof order[0], by_longest);
    snprintf(line, sizeof line,
             "GLSTARK_PROFILE: longest single dispatch per kernel (budget %.0f ms; %llu dispatches added by it, "
             "%llu calibration syncs; each program's first dispatch apart: on llvmpipe it includes the shader's "
             "compile)",
             (double)dev->dispatch_budget_ns * 1e-6, (unsigned long long)dev->budget_splits,
             (unsigned long long)dev->calib_syncs);
    emit(dev, line);
    for (size_t i = 0; i < nk; i++) {
        snprintf(line, sizeof line,
                 "GLSTARK_PROFILE longest %10.3f ms %8llu dispatches %10.3f ms cpu %10.3f ms first  %s",
                 (double)order[i]->longest_ns * 1e-6, (unsigned long long)order[i]->dispatches,
                 (double)order[i]->longest_cpu_ns * 1e-6, (double)order[i]->first_ns * 1e-6, order[i]->key);
        emit(dev, line);
    }
}

void gs_gl_profile_free(gs_gl_device *dev)
{
    if (dev->prof)
        free(dev->prof->stamps);
    free(dev->prof);
    dev->prof = NULL;
}
