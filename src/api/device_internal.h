/* Library-internal access to a public device handle's engine. */
#ifndef GS_API_DEVICE_INTERNAL_H
#define GS_API_DEVICE_INTERNAL_H

#include "engine/engine.h"
#include "glstark/device.h"

gs_engine *gs_device_engine_of(glstark_device *dev);

#endif
