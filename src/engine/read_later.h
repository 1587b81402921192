/* Reads the host needs only later: results that no Fiat-Shamir challenge
 * depends on (WHIR's query openings: the codewords are committed, the
 * opened rows go into the proof but are never observed). Each is copied on
 * the engine into one staging buffer, and the host reads them all with the
 * next read it makes anyway (gs_buf_read takes them along) or at
 * gs_engine_read_flush: one host sync for all of them instead of one each.
 *
 * A queued read's destination must stay valid until the flush (or the
 * drop); the protocol step that queues must flush or drop before it
 * returns, so nothing is left queued between proofs. */
#ifndef GS_ENGINE_READ_LATER_H
#define GS_ENGINE_READ_LATER_H

#include <stddef.h>

#include "engine/engine.h"

/* Queues count items of item_bytes, contiguous in buf from offset, for
 * dst + i * dst_stride (dst_stride = item_bytes for a plain copy). */
glstark_status gs_buf_read_later(const gs_buf *buf, size_t offset, void *dst, size_t item_bytes, size_t count,
                                 size_t dst_stride);
/* gs_buf_read_later for ndst consecutive blocks of count items each, in one
 * engine copy: block d (from offset + d * count * item_bytes) goes to
 * dsts[d] + i * dst_stride. */
glstark_status gs_buf_read_later_scatter(const gs_buf *buf, size_t offset, void *const *dsts, size_t ndst,
                                         size_t item_bytes, size_t count, size_t dst_stride);
/* Reads everything queued (one host sync; none when nothing is queued). */
glstark_status gs_engine_read_flush(gs_engine *eng);
/* Forgets the queued reads (after a failure: their destinations may go). */
void gs_engine_read_drop(gs_engine *eng);

/* For gs_buf_read: when reads are queued, does this read and the queued
 * ones in one (*done = 1); else *done = 0 and nothing happens. */
glstark_status gs_read_later_with(const gs_buf *buf, size_t offset, void *dst, size_t bytes, int *done);
/* The queue's host memory, at engine destroy (the staging buffer is gone
 * after every flush or drop). */
void gs_read_later_free(gs_engine *eng);

#endif
