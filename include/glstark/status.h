/* glstark status codes. Every fallible call returns one; the handle it was
 * called on (or an explicit message buffer) says what failed, what was
 * tried, and what the caller can do. */
#ifndef GLSTARK_STATUS_H
#define GLSTARK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GLSTARK_BUILDING_LIBRARY) && defined(__GNUC__)
#define GLSTARK_API __attribute__((visibility("default")))
#else
#define GLSTARK_API
#endif

typedef enum glstark_status {
    GLSTARK_OK = 0,
    GLSTARK_ERR_INVALID_ARGUMENT = 1, /* a caller-supplied value is out of range or inconsistent */
    GLSTARK_ERR_OUT_OF_MEMORY = 2,    /* host allocation failed */
    GLSTARK_ERR_NO_DEVICE = 3,        /* no EGL/GLES device could be opened */
    GLSTARK_ERR_UNSUPPORTED = 4,      /* the device lacks a required feature or limit */
    GLSTARK_ERR_SHADER = 5,           /* a GLSL program failed to compile or link */
    GLSTARK_ERR_GPU = 6,              /* a GL call reported an error */
    GLSTARK_ERR_CONTEXT_LOST = 7,     /* the GPU context was reset or lost */
    GLSTARK_ERR_DEVICE_MEMORY = 8,    /* device buffer allocation failed or exceeded the cap */
    GLSTARK_ERR_IO = 9,               /* a file could not be read or written */
    GLSTARK_ERR_MALFORMED = 10,       /* bytes could not be decoded (truncated, bad length, bad value) */
    GLSTARK_ERR_REJECTED = 11,        /* a proof or opening was decoded but does not verify */
    GLSTARK_ERR_MISMATCH = 12,        /* a self-check found GPU and CPU results differ */
    GLSTARK_ERR_UNSATISFIED = 13,     /* a trace does not satisfy its AIR */
    GLSTARK_ERR_INTERNAL = 14         /* a bug in glstark: please report it */
} glstark_status;

/* A short constant name for a status, e.g. "GLSTARK_ERR_NO_DEVICE". */
GLSTARK_API const char *glstark_status_name(glstark_status status);

#ifdef __cplusplus
}
#endif
#endif
