/* glstark status codes, and how errors are reported.
 *
 * One rule: every fallible call returns a glstark_status (GLSTARK_OK = 0),
 * and the explanation (what failed, what was tried, what to do) goes to the
 * place that exists when the call returns:
 *
 *   1. A call that makes a handle, or works without one, takes a message
 *      buffer `char *msg, size_t msg_size` (NULL allowed; the message is cut
 *      to fit and always terminated, "" on success): glstark_device_create,
 *      glstark_keygen, glstark_params_app_100_bits, glstark_verify,
 *      glstark_verifying_key_decode, glstark_read_file, glstark_write_file,
 *      and the context readers. On failure the out-handle is NULL.
 *   2. A call with a result struct writes the message there:
 *      glstark_prove and glstark_prove_context fill result.message (the
 *      struct is the call's output, so it is the message buffer too).
 *   3. A call on a device handle returns the status, and the device keeps
 *      the message of its last failure for glstark_device_last_error (e.g.
 *      glstark_device_self_check); a proof on a device reports through
 *      result.message, rule 2.
 *   4. The AIR builder (air.h) is the one exception by design: its many
 *      small calls (add a column, a constraint, an interaction) record the
 *      first error in the AIR and every later call fails with it (sticky), so
 *      a builder can check once, at the end, with glstark_air_status and
 *      glstark_air_error_message; keygen refuses an AIR in error.
 *
 * New calls follow rules 1 to 3: a msg buffer when no handle outlives the
 * call, the handle's last error otherwise, result.message for results. */
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
    GLSTARK_ERR_INTERNAL = 14,        /* a bug in glstark: please report it */
    GLSTARK_ERR_BUSY = 15             /* the calling thread is inside a call on this device already (a
                                         callback of that call used the device): include/glstark/device.h */
} glstark_status;

/* A short constant name for a status, e.g. "GLSTARK_ERR_NO_DEVICE". */
GLSTARK_API const char *glstark_status_name(glstark_status status);

#ifdef __cplusplus
}
#endif
#endif
