/* The duplex-sponge transcript (common/transcript.h) behind the gs_fs
 * interface the constraint-layer sub-protocols use. */
#ifndef GS_COMMON_FS_TRANSCRIPT_H
#define GS_COMMON_FS_TRANSCRIPT_H

#include "common/fs.h"
#include "common/transcript.h"

static inline void gs_fs_ts_observe(void *ctx, bb_t v) { gs_transcript_observe((gs_transcript *)ctx, v); }
static inline bb_t gs_fs_ts_sample(void *ctx) { return gs_transcript_sample((gs_transcript *)ctx); }

static inline gs_fs gs_fs_wrap_transcript(gs_transcript *ts)
{
    gs_fs fs = {ts, gs_fs_ts_observe, gs_fs_ts_sample, ts};
    return fs;
}

#endif
