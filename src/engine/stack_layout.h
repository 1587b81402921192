/* The stacked-matrix layout as the engines see it: plain data, no logic.
 *
 * The stacked PCS (docs/protocol.md, 'Stacked PCS') packs the columns of several
 * traces, each of height 2^e, into columns of one matrix Q of height
 * 2^(l_skip + n_stack). Which trace column lands where is decided on the host
 * by src/common/stacking.c (shared by prover and verifier); the engines only
 * read the resulting slice table to build Q or its Reed–Solomon codeword.
 * The table is small (one entry per trace column), so a GPU engine can upload
 * it as one buffer. */
#ifndef GS_ENGINE_STACK_LAYOUT_H
#define GS_ENGINE_STACK_LAYOUT_H

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

/* Where one trace's data lives in an engine buffer: column-major, column c
 * of the trace starts at element offset + c * 2^log_height. */
struct gs_buf;
typedef struct gs_trace_ref {
    struct gs_buf *buf;
    size_t offset; /* in bb_t elements */
} gs_trace_ref;

#endif
