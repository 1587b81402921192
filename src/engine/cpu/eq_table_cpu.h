/* The eq table on the CPU engine's threads: t[x] = prod_k (xi[k] if bit k of
 * x is set, else 1 - xi[k]) for x < 2^n, the same words as bb4_eq_table
 * (src/field/field.c, the one definition), which runs on one thread. WHIR's
 * w = eq(u, .) and the GKR layers' tables are 2^21 entries at keccakf-1024;
 * on one thread that was ~50 ms of a proof whose other phases run on all
 * cores. */
#ifndef GS_ENGINE_CPU_EQ_TABLE_CPU_H
#define GS_ENGINE_CPU_EQ_TABLE_CPU_H

#include <stddef.h>

#include "engine/engine.h"
#include "field/ext4.h"

/* Fills t[0 .. 2^n) on up to `threads` of eng's threads (a CPU engine).
 * Below 2^14 entries, or with one thread, it is bb4_eq_table itself. */
void gs_cpu_eq_table(const gs_engine *eng, unsigned threads, const bb4_t *xi, size_t n, bb4_t *t);

#endif
