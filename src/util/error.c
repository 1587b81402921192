#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gs_error_clear(gs_error *err)
{
    if (!err)
        return;
    err->status = GLSTARK_OK;
    err->msg[0] = '\0';
}

glstark_status gs_error_set(gs_error *err, glstark_status status, const char *fmt, ...)
{
    if (!err)
        return status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return status;
}

void gs_error_prefix(gs_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Shift the old message right and put "prefix: " in front of it. */
    size_t plen = strlen(prefix) + 2;
    size_t olen = strlen(err->msg);
    if (plen >= sizeof err->msg)
        plen = sizeof err->msg - 1;
    if (plen + olen >= sizeof err->msg)
        olen = sizeof err->msg - 1 - plen;
    memmove(err->msg + plen, err->msg, olen);
    err->msg[plen + olen] = '\0';
    memcpy(err->msg, prefix, plen - 2);
    err->msg[plen - 2] = ':';
    err->msg[plen - 1] = ' ';
}

const char *glstark_status_name(glstark_status status)
{
    switch (status) {
    case GLSTARK_OK: return "GLSTARK_OK";
    case GLSTARK_ERR_INVALID_ARGUMENT: return "GLSTARK_ERR_INVALID_ARGUMENT";
    case GLSTARK_ERR_OUT_OF_MEMORY: return "GLSTARK_ERR_OUT_OF_MEMORY";
    case GLSTARK_ERR_NO_DEVICE: return "GLSTARK_ERR_NO_DEVICE";
    case GLSTARK_ERR_UNSUPPORTED: return "GLSTARK_ERR_UNSUPPORTED";
    case GLSTARK_ERR_SHADER: return "GLSTARK_ERR_SHADER";
    case GLSTARK_ERR_GPU: return "GLSTARK_ERR_GPU";
    case GLSTARK_ERR_CONTEXT_LOST: return "GLSTARK_ERR_CONTEXT_LOST";
    case GLSTARK_ERR_DEVICE_MEMORY: return "GLSTARK_ERR_DEVICE_MEMORY";
    case GLSTARK_ERR_IO: return "GLSTARK_ERR_IO";
    case GLSTARK_ERR_MALFORMED: return "GLSTARK_ERR_MALFORMED";
    case GLSTARK_ERR_REJECTED: return "GLSTARK_ERR_REJECTED";
    case GLSTARK_ERR_MISMATCH: return "GLSTARK_ERR_MISMATCH";
    case GLSTARK_ERR_UNSATISFIED: return "GLSTARK_ERR_UNSATISFIED";
    case GLSTARK_ERR_INTERNAL: return "GLSTARK_ERR_INTERNAL";
    case GLSTARK_ERR_BUSY: return "GLSTARK_ERR_BUSY";
    }
    return "GLSTARK_ERR_UNKNOWN";
}
