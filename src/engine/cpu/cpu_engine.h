/* CPU engine internals shared by its family implementations. */
#ifndef GS_ENGINE_CPU_ENGINE_H
#define GS_ENGINE_CPU_ENGINE_H

#include "engine/engine.h"

typedef struct gs_cpu_state {
    unsigned threads;
    int no_simd; /* 1: kernels with a vector path use their scalar code (tests set it) */
    struct gs_zc_cache *zc_cache; /* compiled constraint programs (src/engine/zc_code.h) */
} gs_cpu_state;

/* Sets eng->dft, eng->hash, ... to the CPU implementations that exist
 * (src/engine/cpu/families.c). */
void gs_cpu_engine_attach_families(gs_engine *eng);

#endif
