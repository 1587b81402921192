/* Wires the GLES implementations of the engine families (all six). */
#include "engine/dft_ops.h"
#include "engine/gkr_ops.h"
#include "engine/gles/gles_engine.h"
#include "engine/hash_ops.h"
#include "engine/reduction_ops.h"
#include "engine/whir_ops.h"
#include "engine/zerocheck_ops.h"

extern const gs_hash_ops gs_gles_hash_ops;
extern const gs_dft_ops gs_gles_dft_ops;
extern const gs_whir_ops gs_gles_whir_ops;
extern const gs_reduction_ops gs_gles_reduction_ops;
extern const gs_gkr_ops gs_gles_gkr_ops;
extern const gs_zerocheck_ops gs_gles_zerocheck_ops;

void gs_gles_engine_attach_families(gs_engine *eng) {
    eng->dft = &gs_gles_dft_ops;
    eng->hash = &gs_gles_hash_ops;
    eng->whir = &gs_gles_whir_ops;
    eng->reduction = &gs_gles_reduction_ops;
    eng->gkr = &gs_gles_gkr_ops;
    eng->zerocheck = &gs_gles_zerocheck_ops;
}
