/* The GPU-timestamp profile's arithmetic (gs_gl_profile_timeline): each
 * operation's GPU time and the GPU's idle time before it, from start and
 * end stamps in issue order. No GPU here; the mode itself is tested by
 * gles_device/profile_gpu_timestamps_or_fallback. */
#include <criterion/criterion.h>

#include "gles/gl_device.h"

Test(profile_timeline, busy_and_idle_from_stamps)
{
    /* op 0 runs 100..150; op 1 starts right after; op 2 after 30 ns of
     * idle; op 3's start stamp lands before op 2's end (no finish between
     * them): only its part past 250 is its own; op 4 lies inside op 3 */
    const uint64_t start[] = {100, 150, 200, 240, 262};
    const uint64_t end[] = {150, 170, 250, 270, 265};
    uint64_t busy[5], idle[5];
    gs_gl_profile_timeline(start, end, 5, busy, idle);
    const uint64_t want_busy[] = {50, 20, 50, 20, 0}, want_idle[] = {0, 0, 30, 0, 0};
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(busy[i], want_busy[i], "op %d busy %llu", i, (unsigned long long)busy[i]);
        cr_assert_eq(idle[i], want_idle[i], "op %d idle %llu", i, (unsigned long long)idle[i]);
        sum += busy[i] + idle[i];
    }
    cr_assert_eq(sum, 270ull - 100ull, "busy and idle add up to the span of the stamps");
    /* after op 4 (inside op 3), idle is measured from op 3's end, not op 4's */
    const uint64_t s2[] = {0, 10, 12, 40}, e2[] = {30, 20, 15, 50};
    uint64_t b2[4], i2[4];
    gs_gl_profile_timeline(s2, e2, 4, b2, i2);
    cr_assert_eq(i2[3], 10ull, "idle from the latest end (30), not the last op's (15)");
    cr_assert_eq(b2[1] + b2[2], 0ull, "ops inside op 0 add nothing");
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
