/* glstark_version (include/glstark/version.h). GLSTARK_PROJECT_VERSION comes
 * from meson's project version, GLSTARK_COMMIT from the generated header. */
#include "glstark/version.h"

#include "version_commit.h"

const char *glstark_version(void) { return GLSTARK_PROJECT_VERSION " (" GLSTARK_COMMIT ")"; }
