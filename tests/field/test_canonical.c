/* gs_first_non_canonical against the definition (a plain loop): random
 * canonical arrays below and above the threading threshold, with values
 * >= p planted in several of the threads' parts (the first one must win),
 * on 1, 3 and 8 threads, and none planted. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>

#include "field/babybear.h"
#include "field/canonical.h"
#include "../util/splitmix.h"

static size_t naive(const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] >= BB_P)
            return i;
    return n;
}

Test(canonical, first_bad_index_matches_the_definition)
{
    const size_t sizes[] = {0, 1, 4095, 4097, ((size_t)1 << 22) + 12345};
    const uint32_t bad_values[] = {BB_P, BB_P + 1, 0x80000000u, 0xFFFFFFFFu};
    const unsigned threads[] = {1, 3, 8, 0};
    uint64_t seed = 0xCA70001;
    cr_log_info("seed %llu", (unsigned long long)seed);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint32_t *v = malloc((n ? n : 1) * sizeof *v);
        cr_assert_not_null(v);
        for (size_t i = 0; i < n; i++)
            v[i] = (uint32_t)(splitmix64(&seed) % BB_P);
        v[n ? n - 1 : 0] = n ? BB_P - 1 : 0; /* the largest canonical value passes */
        for (int trial = 0; trial < 6; trial++) {
            /* trial 0: none planted; then 1..5 bad values at random places */
            size_t planted[5];
            for (int k = 0; k < trial && n; k++) {
                planted[k] = (size_t)(splitmix64(&seed) % n);
                v[planted[k]] = bad_values[splitmix64(&seed) % 4];
            }
            size_t want = naive(v, n);
            for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
                cr_assert_eq(gs_first_non_canonical(v, n, threads[ti]), want,
                             "n %zu trial %d threads %u: got a different first index than %zu", n, trial,
                             threads[ti], want);
            for (int k = 0; k < trial && n; k++)
                v[planted[k]] = (uint32_t)(splitmix64(&seed) % BB_P);
        }
        free(v);
    }
}
