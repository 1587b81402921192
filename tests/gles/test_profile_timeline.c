/* The GPU-timestamp profile's arithmetic (gs_gl_profile_timeline): each
 * operation's GPU time and the GPU's idle time before it, from start and
 * end stamps in issue order. No GPU here; the mode itself is tested by
 * gles_device/profile_gpu_timestamps_or_fallback. */
#include <criterion/criterion.h>

#include "gles/gl_device.h"

Test(profile_timeline, busy_and_idle_from_stamps)
{
    /* op 0 runs 100..150; op 1 starts right after; op 2 after 30 ns of
     * idle; op 3 starts before op 2's end (the driver overlapped them) */
    const uint64_t start[] = {100, 150, 200, 240};
    const uint64_t end[] = {150, 170, 250, 260};
    uint64_t busy[4], idle[4];
    gs_gl_profile_timeline(start, end, 4, busy, idle);
    const uint64_t want_busy[] = {50, 20, 50, 20}, want_idle[] = {0, 0, 30, 0};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(busy[i], want_busy[i], "op %d busy %llu", i, (unsigned long long)busy[i]);
        cr_assert_eq(idle[i], want_idle[i], "op %d idle %llu", i, (unsigned long long)idle[i]);
    }
}

Test(profile_timeline, edge_stamps)
{
    /* an end stamp before its start (a wrapped or reordered counter) gives
     * no time rather than an underflow; nothing at all is fine */
    const uint64_t start[] = {UINT64_MAX - 5, 10};
    const uint64_t end[] = {3, 10};
    uint64_t busy[2] = {7, 7}, idle[2] = {7, 7};
    gs_gl_profile_timeline(start, end, 2, busy, idle);
    cr_assert_eq(busy[0], 0ull);
    cr_assert_eq(idle[0], 0ull);
    cr_assert_eq(busy[1], 0ull);
    cr_assert_eq(idle[1], 7ull, "10 - 3: idle after the previous end");
    gs_gl_profile_timeline(start, end, 0, NULL, NULL);
}
