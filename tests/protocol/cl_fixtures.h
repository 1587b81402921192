/* OpenVM fixtures for the constraint-layer tests: the DAGs of the Fibonacci
 * AIR and of InteractionsFixture11 (transcribed from OpenVM's verifying keys,
 * the debug dumps of the fib-small and interactions-small keys) and
 * their traces (Fibonacci generated from its definition; the interaction
 * traces copied from interactions-small.json). Canonical values. */
#ifndef TEST_CL_FIXTURES_H
#define TEST_CL_FIXTURES_H

#include "common/constraint_dag.h"

#define VMAIN(col, off) {GS_CN_VAR_MAIN, (off), 0, (col), 0, 0}
#define VPUB(i) {GS_CN_PUBLIC, 0, 0, (i), 0, 0}
#define NODE(kind, x, y) {(kind), 0, 0, (x), (y), 0}

/* Fibonacci: x0' = x1, x1' = x0 + x1, first row = (pv0, pv1), last x1 = pv2. */
static const gs_cnode fib_nodes[] = {
    NODE(GS_CN_IS_FIRST, 0, 0),     /* 0 */
    VMAIN(0, 0),                    /* 1 */
    VPUB(0),                        /* 2 */
    NODE(GS_CN_SUB, 1, 2),          /* 3 */
    NODE(GS_CN_MUL, 0, 3),          /* 4 */
    VMAIN(1, 0),                    /* 5 */
    VPUB(1),                        /* 6 */
    NODE(GS_CN_SUB, 5, 6),          /* 7 */
    NODE(GS_CN_MUL, 0, 7),          /* 8 */
    NODE(GS_CN_IS_TRANSITION, 0, 0), /* 9 */
    VMAIN(0, 1),                    /* 10 */
    NODE(GS_CN_SUB, 5, 10),         /* 11 */
    NODE(GS_CN_MUL, 9, 11),         /* 12 */
    NODE(GS_CN_ADD, 1, 5),          /* 13 */
    VMAIN(1, 1),                    /* 14 */
    NODE(GS_CN_SUB, 13, 14),        /* 15 */
    NODE(GS_CN_MUL, 9, 15),         /* 16 */
    NODE(GS_CN_IS_LAST, 0, 0),      /* 17 */
    VPUB(2),                        /* 18 */
    NODE(GS_CN_SUB, 5, 18),         /* 19 */
    NODE(GS_CN_MUL, 17, 19),        /* 20 */
};
static const uint32_t fib_constraints[] = {4, 8, 12, 16, 20};

static inline gs_cdag fib_dag(void)
{
    gs_cdag d = {fib_nodes, 21, fib_constraints, 5, NULL, 0, 2, 1, 0, 0};
    return d;
}

/* InteractionsFixture11 air 0: send (message col1, count col0) on bus 0. */
static const gs_cnode ix0_nodes[] = {VMAIN(1, 0), VMAIN(0, 0)};
static const uint32_t ix0_msg[] = {0};
static const gs_cinteraction ix0_inter[] = {{ix0_msg, 1, 1, 0}};
/* air 1: receive (message col1, count -col0) on bus 0; Constant(-1) node. */
/* Constant(-1): Montgomery form of p - 1 is p - (2^32 mod p) = 1744830467 */
static const gs_cnode ix1_nodes[] = {VMAIN(1, 0), {GS_CN_CONST, 0, 0, 0, 0, 1744830467u}, VMAIN(0, 0), NODE(GS_CN_MUL, 1, 2)};
static const uint32_t ix1_msg[] = {0};
static const gs_cinteraction ix1_inter[] = {{ix1_msg, 1, 3, 0}};

static inline gs_cdag ix_dag(int air)
{
    gs_cdag d0 = {ix0_nodes, 2, NULL, 0, ix0_inter, 1, 1, 0, 0, 0};
    gs_cdag d1 = {ix1_nodes, 4, NULL, 0, ix1_inter, 1, 1, 0, 0, 0};
    return air ? d1 : d0;
}

/* interactions-small.json traces_col_major */
static const uint32_t ix0_cols[2][4] = {{0, 3, 7, 546}, {1, 5, 4, 889}};
static const uint32_t ix1_cols[2][8] = {{1, 3, 4, 2, 0, 545, 1, 0}, {5, 4, 4, 5, 123, 889, 889, 456}};

#endif
