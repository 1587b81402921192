/* Test-only: a device from a config that the test fills itself, to set the
 * test knobs (max_binding_bytes, device_memory_cap, max_group_count,
 * dft_block_log) that are not part of the public glstark_device_options.
 * Not installed; the library's tests include it. */
#ifndef GS_API_DEVICE_TESTING_H
#define GS_API_DEVICE_TESTING_H

#include "api/options.h"
#include "engine/engine.h"
#include "engine/device_config.h"
#include "glstark/device.h"

/* As glstark_device_create, from a resolved config (gs_device_config_resolve,
 * then the knobs). */
glstark_status gs_device_create_config(const gs_device_config *cfg, glstark_device **out, char *msg, size_t msg_size);

/* The defaults and the environment (gs_device_config_resolve(NULL)). */
glstark_status gs_test_config(gs_device_config *out, gs_error *err);

#if GLSTARK_HAVE_GLES
/* A GLES engine from public options (NULL = defaults) and the environment:
 * resolve, then gs_gles_engine_create. For tests and benches. */
glstark_status gs_gles_engine_create_opts(const glstark_device_options *opts, gs_engine **out, gs_error *err);
#endif

#endif
