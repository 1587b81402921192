/* docs/tuning.md's table of variables and the library's options table
 * (src/api/options.c) name the same GLSTARK_* variables: every row of the
 * code's table has a row in the doc's table, and every GLSTARK_* variable
 * in the doc's table (between "## The table" and the next heading) is a
 * row of the code's table. Test-only variables live in another section. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/options.h"

#ifndef GLSTARK_DOCS_DIR
#error "GLSTARK_DOCS_DIR must name the docs folder"
#endif

/* The GLSTARK_* names in the first cell of each row of docs/tuning.md's table. */
static size_t doc_names(char names[][64], size_t max)
{
    FILE *f = fopen(GLSTARK_DOCS_DIR "/tuning.md", "r");
    cr_assert_not_null(f, "cannot open %s/tuning.md", GLSTARK_DOCS_DIR);
    char line[4096];
    int in_table = 0;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## ", 3)) {
            in_table = !strncmp(line, "## The table", 12);
            continue;
        }
        if (!in_table || strncmp(line, "| `GLSTARK_", 11))
            continue;
        const char *p = line + 3;
        size_t k = strcspn(p, "`");
        cr_assert_lt(k, 64);
        cr_assert_lt(n, max);
        memcpy(names[n], p, k);
        names[n][k] = '\0';
        n++;
    }
    fclose(f);
    return n;
}

Test(options_doc, table_and_docs_agree)
{
    size_t rows;
    const gs_option_row *t = gs_options_table(&rows);
    static char names[128][64];
    size_t n = doc_names(names, 128);
    cr_assert_gt(n, 0, "no GLSTARK_* rows found under '## The table' in docs/tuning.md");
    for (size_t i = 0; i < rows; i++) {
        int found = 0;
        for (size_t j = 0; j < n; j++)
            found |= !strcmp(t[i].name, names[j]);
        cr_expect(found, "%s is in the options table (src/api/options.c) but not in docs/tuning.md's table",
                  t[i].name);
        cr_expect(t[i].values && *t[i].values && t[i].def && *t[i].def && t[i].help && *t[i].help,
                  "%s: the row needs values, a default and help", t[i].name);
    }
    for (size_t j = 0; j < n; j++) {
        int found = 0;
        for (size_t i = 0; i < rows; i++)
            found |= !strcmp(t[i].name, names[j]);
        cr_expect(found, "%s is in docs/tuning.md's table but not in the options table (src/api/options.c)",
                  names[j]);
    }
}

/* Every variable is read through the table: a name outside it reads as unset. */
Test(options_doc, getenv_only_through_the_table)
{
    setenv("GLSTARK_NOT_A_ROW", "1", 1);
    cr_assert_null(gs_option_getenv("GLSTARK_NOT_A_ROW"));
    setenv("GLSTARK_CPU_SIMD", "none", 1);
    cr_assert_str_eq(gs_option_getenv("GLSTARK_CPU_SIMD"), "none");
    unsetenv("GLSTARK_CPU_SIMD");
    unsetenv("GLSTARK_NOT_A_ROW");
}
