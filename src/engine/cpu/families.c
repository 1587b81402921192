/* Wires the CPU engine's family implementations into the engine.
 * Each family adds one line here when it lands. */
#include "engine/cpu/cpu_engine.h"
#include "engine/gkr_ops.h"
#include "engine/hash_ops.h"
#include "engine/zerocheck_ops.h"

extern const gs_hash_ops gs_cpu_hash_ops;

void gs_cpu_engine_attach_families(gs_engine *eng)
{
    eng->hash = &gs_cpu_hash_ops;
    eng->gkr = &gs_cpu_gkr_ops;
    eng->zerocheck = &gs_cpu_zerocheck_ops;
}
