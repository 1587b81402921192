/* OpenVM's FibonacciAir (stark-backend test_utils/dummy_airs/fib_air):
 * columns (left, right); public values (a, b, x). Constraints in the order
 * and tree shape of its eval:
 *   first row:  left - a,  right - b
 *   transition: right - next.left,  (left + right) - next.right
 *   last row:   right - x
 * each multiplied by its selector on the left (FilteredAirBuilder). */
#include <string.h>

#include "field/babybear.h"
#include "glstark/airs.h"

glstark_status glstark_fibonacci_air(glstark_air **out)
{
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    glstark_air *air = NULL;
    glstark_status st = glstark_air_create("FibonacciAir", GLSTARK_FIB_WIDTH, 3, &air);
    if (st)
        return st;
    glstark_expr a = glstark_air_public_value(air, 0);
    glstark_expr b = glstark_air_public_value(air, 1);
    glstark_expr x = glstark_air_public_value(air, 2);
    glstark_expr left = glstark_air_main(air, 0, 0), right = glstark_air_main(air, 1, 0);
    glstark_expr nleft = glstark_air_main(air, 0, 1), nright = glstark_air_main(air, 1, 1);
    glstark_expr first = glstark_air_is_first_row(air);
    glstark_expr trans = glstark_air_is_transition(air);
    glstark_expr last = glstark_air_is_last_row(air);
    glstark_air_assert_zero(air, glstark_air_mul(air, first, glstark_air_sub(air, left, a)));
    glstark_air_assert_zero(air, glstark_air_mul(air, first, glstark_air_sub(air, right, b)));
    glstark_air_assert_zero(air, glstark_air_mul(air, trans, glstark_air_sub(air, right, nleft)));
    glstark_air_assert_zero(
        air, glstark_air_mul(air, trans,
                             glstark_air_sub(air, glstark_air_add(air, left, right), nright)));
    st = glstark_air_assert_zero(air, glstark_air_mul(air, last, glstark_air_sub(air, right, x)));
    if (st) {
        glstark_air_destroy(air);
        return st;
    }
    *out = air;
    return GLSTARK_OK;
}

glstark_status glstark_fibonacci_trace(uint64_t a, uint64_t b, size_t height, uint32_t *trace,
                                       uint32_t public_values[3])
{
    if (!trace || !public_values || height == 0 || (height & (height - 1)))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    bb_t l = bb_from_u64(a), r = bb_from_u64(b);
    for (size_t i = 0; i < height; i++) {
        if (i) {
            bb_t s = bb_add(l, r);
            l = r;
            r = s;
        }
        trace[i] = bb_to_canonical(l);
        trace[height + i] = bb_to_canonical(r);
    }
    public_values[0] = (uint32_t)(a % BB_P);
    public_values[1] = (uint32_t)(b % BB_P);
    public_values[2] = bb_to_canonical(r);
    return GLSTARK_OK;
}
