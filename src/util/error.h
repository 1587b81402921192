/* Internal error reporting: a status plus a human message, carried by value
 * in a caller-owned struct (no global state, safe across threads). */
#ifndef GS_UTIL_ERROR_H
#define GS_UTIL_ERROR_H

#include <stddef.h>
#include "glstark/status.h"

#define GS_ERROR_MSG_MAX 2048

typedef struct gs_error {
    glstark_status status;
    char msg[GS_ERROR_MSG_MAX];
} gs_error;

/* Resets err to GLSTARK_OK with an empty message. err may be NULL. */
void gs_error_clear(gs_error *err);

/* Sets status and a printf-style message; returns status so callers can
 * write `return gs_error_set(err, GLSTARK_ERR_..., "...")`. err may be NULL. */
glstark_status gs_error_set(gs_error *err, glstark_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Appends to the existing message (e.g. to add context as an error travels
 * up: "while committing the main trace: ..."). Keeps the status. */
void gs_error_prefix(gs_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
