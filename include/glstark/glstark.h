/* glstark: OpenVM SWIRL STARK proofs on OpenGL ES 3.1 compute.
 * The umbrella header: include this one. */
#ifndef GLSTARK_H
#define GLSTARK_H

#include "glstark/status.h"
#include "glstark/version.h"
#include "glstark/device.h"
#include "glstark/air.h"
#include "glstark/airs.h"
#include "glstark/hash.h"
#include "glstark/prove.h"
#include "glstark/context.h"

#endif
