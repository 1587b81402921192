/* include/glstark/version.h's macros against glstark_version() of the
 * library the test runs with: "MAJOR.MINOR.PATCH (commit)". */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "glstark/version.h"

Test(version, macros_equal_the_runtime_version)
{
    char want[64];
    int n = snprintf(want, sizeof want, "%d.%d.%d (", GLSTARK_VERSION_MAJOR, GLSTARK_VERSION_MINOR,
                     GLSTARK_VERSION_PATCH);
    cr_assert(n > 0 && (size_t)n < sizeof want);
    const char *v = glstark_version();
    cr_assert_not_null(v);
    cr_assert(strncmp(v, want, (size_t)n) == 0, "glstark_version() is '%s'; the macros say '%s...'", v, want);
    cr_assert(v[strlen(v) - 1] == ')', "glstark_version() '%s' does not end with the commit in parentheses", v);
}

Test(version, macros_equal_the_project_version)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", GLSTARK_VERSION_MAJOR, GLSTARK_VERSION_MINOR, GLSTARK_VERSION_PATCH);
    cr_assert_str_eq(want, GLSTARK_PROJECT_VERSION, "version.h says %s, meson's project version is %s", want,
                     GLSTARK_PROJECT_VERSION);
}
