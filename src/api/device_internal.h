/* Library-internal access to a public device handle's engine. */
#ifndef GS_API_DEVICE_INTERNAL_H
#define GS_API_DEVICE_INTERNAL_H

#include "engine/engine.h"
#include "glstark/device.h"

gs_engine *gs_device_engine_of(glstark_device *dev);

/* One call's hold on a device (include/glstark/device.h, "Threads"): the
 * device's lock, and on a GLES device its context made current on the
 * calling thread, with what was current before (EGL handles, kept opaque
 * here so this header builds without EGL). */
typedef struct gs_device_hold {
    glstark_device *dev;
    void *prev[4];
    int locked, current;
} gs_device_hold;

/* Waits for the device, then makes it current. `who` names the call for
 * the message. GLSTARK_ERR_BUSY when the calling thread holds the device
 * already (a call from one of its own callbacks). Call gs_device_release
 * after it whatever it returns. */
glstark_status gs_device_acquire(glstark_device *dev, const char *who, gs_device_hold *hold, gs_error *err);
/* Puts back what was current and unlocks what acquire locked. */
void gs_device_release(gs_device_hold *hold);

#endif
