/* A build without the GLES engine (-Dgles=disabled): asking for a GLES
 * device is refused with GLSTARK_ERR_UNSUPPORTED and a message that says
 * why and how to get one; CPU devices work as in any build. */
#include <criterion/criterion.h>

#include <string.h>

#include "glstark/device.h"

#if GLSTARK_HAVE_GLES
#error "test_no_gles is only built without GLES"
#endif

Test(no_gles, gles_device_is_unsupported)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    glstark_device *dev = (glstark_device *)1;
    char msg[512];
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_ERR_UNSUPPORTED, "%s", msg);
    cr_assert_null(dev);
    cr_assert(strstr(msg, "no GLES") != NULL, "message: %s", msg);
    cr_assert(strstr(msg, "-Dgles=enabled") != NULL, "message: %s", msg);
}

/* The default engine (auto) is the CPU engine here, and says why. */
Test(no_gles, default_engine_is_cpu)
{
    glstark_device *dev = NULL;
    char msg[512];
    cr_assert_eq(glstark_device_create(NULL, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_CPU);
    const char *why = glstark_device_engine_reason(dev);
    cr_assert(strstr(why, "auto") && strstr(why, "no GLES"), "reason: %s", why);
    glstark_device_destroy(dev);
}

Test(no_gles, cpu_device_works)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_CPU;
    glstark_device *dev = NULL;
    char msg[512];
    cr_assert_eq(glstark_device_create(&o, &dev, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_CPU);
    cr_assert_eq(glstark_device_platform(dev), GLSTARK_PLATFORM_NONE);
    cr_assert_str_eq(glstark_device_renderer(dev), "glstark CPU engine");
    cr_assert_eq(glstark_device_self_check(dev, 1, 64), GLSTARK_OK);
    glstark_device_limits lim;
    glstark_device_limits_init(&lim);
    cr_assert_eq(glstark_device_limits_get(dev, &lim), GLSTARK_OK);
    glstark_device_release_memory(dev);
    glstark_device_destroy(dev);
}
