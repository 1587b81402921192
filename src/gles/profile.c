/* Kernel profile (GLSTARK_PROFILE=1): where the GPU time of a run goes, per
 * kernel variant and per kind of buffer operation. Each profiled operation is
 * bracketed by glFinish and the monotonic clock, which serializes the GPU
 * with the host: totals grow, but every millisecond is attributed to the
 * operation that spent it. Off by default and free when off (one branch per
 * operation). The table is logged when the device closes. */
#include "gles/gl_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GS_PROF_MAX 128

typedef struct prof_entry {
    char key[96];
    uint64_t calls, ns, units;
    uint64_t dispatches; /* GL dispatches (a call may issue several), 0 for other operations */
    uint64_t longest_ns; /* the longest single dispatch (or operation), the program's first one apart */
    uint64_t longest_cpu_ns; /* the most process CPU time of one of those dispatches */
    uint64_t first_ns;   /* the program's first dispatch (on llvmpipe: with the shader's compile) */
} prof_entry;

struct gs_gl_profile {
    prof_entry e[GS_PROF_MAX];
    size_t n;
    uint64_t t0_ns;
};

glstark_status gs_gl_profile_enable(gs_gl_device *dev, gs_error *err)
{
    if (dev->prof)
        return GLSTARK_OK;
    dev->prof = calloc(1, sizeof *dev->prof);
    if (!dev->prof)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "GLSTARK_PROFILE: no host memory for the profile table");
    return GLSTARK_OK;
}

void gs_gl_profile_begin(gs_gl_device *dev)
{
    glFinish();
    dev->prof->t0_ns = gs_monotonic_ns();
}

void gs_gl_profile_end(gs_gl_device *dev, const char *key, uint64_t units)
{
    gs_gl_profile_end_split(dev, key, units, 0, 0, 0, 0);
}

void gs_gl_profile_end_split(gs_gl_device *dev, const char *key, uint64_t units, uint64_t dispatches,
                             uint64_t longest_ns, uint64_t longest_cpu_ns, uint64_t first_ns)
{
    glFinish();
    uint64_t dt = gs_monotonic_ns() - dev->prof->t0_ns;
    if (!dispatches)
        longest_ns = dt; /* one operation: its whole time */
    struct gs_gl_profile *p = dev->prof;
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
    p->e[i].ns += dt;
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

void gs_gl_profile_report(gs_gl_device *dev)
{
    struct gs_gl_profile *p = dev->prof;
    if (!p)
        return;
    qsort(p->e, p->n, sizeof p->e[0], by_time);
    uint64_t total = 0;
    for (size_t i = 0; i < p->n; i++)
        total += p->e[i].ns;
    char line[256];
    snprintf(line, sizeof line, "GLSTARK_PROFILE: %.3f ms in %zu kinds of operation (each bracketed by glFinish)",
             (double)total * 1e-6, p->n);
    emit(dev, line);
    for (size_t i = 0; i < p->n; i++) {
        const prof_entry *e = &p->e[i];
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
    free(dev->prof);
    dev->prof = NULL;
}
