/* Software prefetch of a byte range, for access patterns the hardware
 * prefetchers cannot follow (many column streams far apart: a codeword's
 * rows, round 0's column tiles). A no-op where the compiler has no
 * __builtin_prefetch; it never faults, so a range may end past the data. */
#ifndef GS_UTIL_PREFETCH_H
#define GS_UTIL_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

/* Asks for every cache line of [p, p + bytes) (64-byte lines, p aligned down). */
static inline void gs_prefetch_range(const void *p, size_t bytes)
{
#if defined(__GNUC__)
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + bytes;
    for (; a < end; a += 64)
        __builtin_prefetch((const void *)a, 0, 3);
#else
    (void)p, (void)bytes;
#endif
}

#endif
