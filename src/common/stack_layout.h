/* The stacked-matrix layout: plain data, no logic, shared by the prover,
 * the verifier and the engines.
 *
 * The stacked PCS (docs/protocol.md, 'Stacked PCS') packs the columns of several
 * traces, each of height 2^e, into columns of one matrix Q of height
 * 2^(l_skip + n_stack). Which trace column lands where is decided on the host
 * by src/common/stacking.c (shared by prover and verifier); the engines only
 * read the resulting slice table to build Q or its Reed–Solomon codeword.
 * The table is small (one entry per trace column), so a GPU engine can upload
 * it as one buffer. */
#ifndef GS_COMMON_STACK_LAYOUT_H
#define GS_COMMON_STACK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* One trace column's place in Q. Columns with log_height >= l_skip occupy
 * rows [row, row + 2^log_height) contiguously. Shorter columns are "lifted"
 * to a 2^l_skip-row slot: value r goes to row + r*2^(l_skip - log_height)
 * and the rows in between stay zero. */
typedef struct gs_stack_slice {
    uint32_t trace;       /* index into the layout's trace list (stacking order) */
    uint32_t trace_col;   /* column of that trace */
    uint32_t stacked_col; /* column of Q */
    uint32_t row;         /* first row of the slot in Q */
    uint32_t log_height;  /* the trace's log2 height */
} gs_stack_slice;

/* Shape of one input trace (column-major, 2^log_height rows). */
typedef struct gs_stack_trace_shape {
    uint32_t width;
    uint32_t log_height;
} gs_stack_trace_shape;

typedef struct gs_stack_layout {
    unsigned l_skip;
    unsigned n_stack;          /* Q has 2^(l_skip + n_stack) rows */
    uint32_t width;            /* number of columns of Q */
    size_t ntraces;
    gs_stack_trace_shape *traces; /* in stacking order: log_height non-increasing */
    size_t nslices;
    gs_stack_slice *slices;    /* in placement order: sorted by (stacked_col, row) */
} gs_stack_layout;

/* One trace column's place in a stacked matrix as the stacked reduction
 * sees it (OpenVM's StackedSlice): the same place as a gs_stack_slice, without
 * the trace indices. */
typedef struct gs_red_slice {
    uint32_t col;        /* stacked column */
    uint32_t row;        /* first row of its slot */
    uint32_t log_height; /* h: the trace has 2^h rows; the slot has 2^max(h, l_skip) */
} gs_red_slice;

#endif
