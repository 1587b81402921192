/* Device options resolved once: the caller's options (NULL = defaults) with
 * the environment's overrides (GLSTARK_PLATFORM, GLSTARK_LIMITS, ...) applied
 * and every value checked. Bad values are errors, not silently ignored. */
#ifndef GS_API_OPTIONS_H
#define GS_API_OPTIONS_H

#include "glstark/device.h"
#include "util/error.h"

glstark_status gs_device_options_resolve(const glstark_device_options *in, glstark_device_options *out,
                                         gs_error *err);

#endif
