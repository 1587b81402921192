/* The library's version. */
#ifndef GLSTARK_VERSION_H
#define GLSTARK_VERSION_H

#include "glstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH (commit)": the release version and the source tree as
 * `git describe --always --dirty` named it when the library was built
 * ("unknown" outside a git checkout). Benchmarks print it so figures can be
 * traced to the code that produced them. */
GLSTARK_API const char *glstark_version(void);

#ifdef __cplusplus
}
#endif

#endif
