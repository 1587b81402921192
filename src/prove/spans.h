/* A span recorder for one prove call: named, nested stretches of the proof
 * timed on the host (CLOCK_MONOTONIC) after the engines have finished their
 * queued work, so GPU time lands in the span that queued it.
 *
 * No global state: the recorder lives in the prove call; while the call
 * runs, the engines it uses point at it (gs_engine.spans) so protocol code
 * below the prover can mark its own sub-phases with
 *   int sp = gs_span_begin(eng->spans, "round0"); ... gs_span_end(eng->spans, sp);
 * Both are no-ops when the pointer is NULL (engines outside a prove call). */
#ifndef GS_PROVE_SPANS_H
#define GS_PROVE_SPANS_H

#include <stddef.h>

#include "engine/engine.h"
#include "glstark/prove.h"

#define GS_SPAN_STACK 16

typedef struct gs_span_rec {
    glstark_span spans[GLSTARK_MAX_SPANS];
    size_t n, dropped;
    int stack[GS_SPAN_STACK]; /* open spans, innermost last (-1: dropped) */
    unsigned top;
    double t0;
    uint64_t syncs_at_begin[GLSTARK_MAX_SPANS]; /* engines' host_syncs when each span began */
    gs_engine *eng[2];        /* finished at each span end (NULL entries skipped) */
    glstark_progress_fn progress;
    void *progress_user;
} gs_span_rec;

/* Starts the clock; engines may be NULL. */
void gs_span_rec_init(gs_span_rec *r, gs_engine *e0, gs_engine *e1, glstark_progress_fn progress, void *user);

/* Opens a span under the innermost open one; returns its index, or -1 when
 * r is NULL or the list is full (then gs_span_end(r, -1) is a no-op too). */
int gs_span_begin(gs_span_rec *r, const char *name);
/* Labels span idx with the engine running it. */
void gs_span_engine(gs_span_rec *r, int idx, const char *engine);
/* Finishes the engines' queued work (not counted as a host sync: it is the
 * measurement's, not the proof's), then closes span idx and any span opened
 * inside it and left open. */
void gs_span_end(gs_span_rec *r, int idx);

/* The same through an engine's borrowed recorder (eng->spans, may be NULL),
 * labelling the span with the engine's name: for protocol code below the
 * prover, which runs on whichever engine the prover picked. */
int gs_span_eng_begin(gs_engine *eng, const char *name);
void gs_span_eng_end(gs_engine *eng, int idx);

#endif
