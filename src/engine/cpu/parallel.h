/* A minimal fork-join loop for the CPU engine's kernels. */
#ifndef GS_ENGINE_CPU_PARALLEL_H
#define GS_ENGINE_CPU_PARALLEL_H

#include <stddef.h>

/* Calls fn(ctx, lo, hi, part) on `parts` contiguous slices of [0, n)
 * (part < parts), on up to `parts` threads; returns 0, or -1 if a thread
 * could not be started (the slices then run on the caller's thread). */
int gs_cpu_parallel_for(unsigned parts, size_t n, void (*fn)(void *ctx, size_t lo, size_t hi, unsigned part), void *ctx);

/* Number of slices a kernel on this engine should use for n items. */
unsigned gs_cpu_parts(const void *engine, size_t n);

#endif
