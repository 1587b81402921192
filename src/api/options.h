/* Options resolved once, from one table. Every GLSTARK_* variable the
 * library reads is a row of gs_options_table (name, values, default, one
 * line of help); gs_device_config_resolve walks it over the caller's
 * glstark_device_options (NULL = defaults) and checks every value. Bad
 * values are errors, not silently ignored. Adding a variable is one row
 * here and one in docs/tuning.md (tests/build/test_options_doc.c checks
 * that the two tables agree). */
#ifndef GS_API_OPTIONS_H
#define GS_API_OPTIONS_H

#include <stddef.h>

#include "engine/device_config.h"
#include "glstark/device.h"
#include "util/error.h"

typedef enum gs_option_kind {
    GS_OPT_CHOICE, /* one word of `choices` (any case) */
    GS_OPT_UINT,   /* 0, or a decimal number lo..hi */
    GS_OPT_PATH,   /* a string kept as it is */
    GS_OPT_MS,     /* "auto" (-1), "0" or "off" (0), or milliseconds 1..hi, into an int */
    GS_OPT_RAW     /* read through gs_option_getenv by its user, which checks it */
} gs_option_kind;

typedef struct gs_option_choice {
    const char *word;
    int value;
} gs_option_choice;

#define GS_OPT_NO_FIELD ((size_t)-1)

typedef struct gs_option_row {
    const char *name;   /* "GLSTARK_PLATFORM" */
    const char *field;  /* the glstark_device_options field it overrides, or NULL */
    const char *values; /* the values, as docs/tuning.md lists them */
    const char *def;    /* the default, in words */
    const char *help;   /* one line */
    gs_option_kind kind;
    size_t offset;                   /* where the value goes in gs_device_config (GS_OPT_NO_FIELD: RAW) */
    const gs_option_choice *choices; /* CHOICE: ends with a NULL word */
    unsigned lo, hi;                 /* UINT: 0 or lo..hi */
} gs_option_row;

/* The table, in docs/tuning.md's order. */
const gs_option_row *gs_options_table(size_t *count);

/* The value of a GLSTARK_* variable of the table (NULL when unset or
 * empty, or when `name` is not a row: every variable goes through the
 * table). The library's only getenv. */
const char *gs_option_getenv(const char *name);

/* The config with defaults only (engine AUTO, every choice automatic, no
 * knobs), no environment. */
void gs_device_config_defaults(gs_device_config *cfg);

/* The caller's options (NULL = defaults), then every variable of the
 * table, checked. */
glstark_status gs_device_config_resolve(const glstark_device_options *in, gs_device_config *out, gs_error *err);

#endif
