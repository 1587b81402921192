/* Wires the GLES implementations of the engine families. Families not
 * implemented on the GPU yet stay NULL (callers get GLSTARK_ERR_UNSUPPORTED). */
#include "engine/gles/gles_engine.h"

void gs_gles_engine_attach_families(gs_engine *eng) { (void)eng; }
