/* Wires the CPU engine's family implementations into the engine.
 * Each family adds one line here when it lands. */
#include "engine/cpu/cpu_engine.h"
#include "engine/dft_ops.h"
#include "engine/hash_ops.h"
#include "engine/reduction_ops.h"
#include "engine/whir_ops.h"
#include "engine/gkr_ops.h"
#include "engine/zerocheck_ops.h"

extern const gs_hash_ops gs_cpu_hash_ops;

void gs_cpu_engine_attach_families(gs_engine *eng)
{
    eng->dft = &gs_cpu_dft_ops;
    eng->hash = &gs_cpu_hash_ops;
    eng->reduction = &gs_cpu_reduction_ops;
    eng->whir = &gs_cpu_whir_ops;
    eng->gkr = &gs_cpu_gkr_ops;
    eng->zerocheck = &gs_cpu_zerocheck_ops;
}
