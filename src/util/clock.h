/* The monotonic clock in seconds, for the figures the prover and the
 * benchmarks report (never for anything a proof depends on). */
#ifndef GS_UTIL_CLOCK_H
#define GS_UTIL_CLOCK_H

#include <time.h>

static inline double gs_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
