/* The library's version. */
#ifndef GLSTARK_VERSION_H
#define GLSTARK_VERSION_H

#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The release this header belongs to, for compile-time checks
 * (#if GLSTARK_VERSION_MAJOR > 0 ...). meson.build refuses to configure when
 * they differ from the project version, and tests/version checks them
 * against glstark_version() of the library the program runs with. The
 * shared library's soname carries the major version (libglstark.so.0). */
#define GLSTARK_VERSION_MAJOR 0
#define GLSTARK_VERSION_MINOR 1
#define GLSTARK_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH (commit)": the release version and the source tree as
 * `git describe --always --dirty` named it when the library was built
 * ("unknown" outside a git checkout). Benchmarks print it so figures can be
 * traced to the code that produced them. */
GLSTARK_API const char *glstark_version(void);

#ifdef __cplusplus
}
#endif

#endif
