/* The Fiat-Shamir interface the constraint-layer sub-protocols talk to.
 *
 * Kept to two primitive operations (observe one base element, sample one
 * base element) so that any transcript can be plugged in: the project's
 * duplex-sponge transcript, or a test double that replays OpenVM's recorded
 * operation log and checks every observed value against it. Values are bb_t
 * in Montgomery form; an extension element is 4 base operations, coefficient
 * 0 first (docs/protocol.md, 'Conventions'). */
#ifndef GS_COMMON_FS_H
#define GS_COMMON_FS_H

#include "field/babybear.h"
#include "field/ext4.h"

struct gs_transcript;

typedef struct gs_fs {
    void *ctx;
    void (*observe)(void *ctx, bb_t v);
    bb_t (*sample)(void *ctx);
    /* The duplex-sponge transcript behind ctx, or NULL (a test double): with
     * it, a prover may hand a run of steps to the engine's sponge and replay
     * them on it (prove/sponge_rounds.h). */
    struct gs_transcript *ts;
} gs_fs;

static inline void gs_fs_observe(gs_fs *fs, bb_t v) { fs->observe(fs->ctx, v); }
static inline bb_t gs_fs_sample(gs_fs *fs) { return fs->sample(fs->ctx); }

static inline void gs_fs_observe_ext(gs_fs *fs, bb4_t e)
{
    for (int i = 0; i < 4; i++)
        fs->observe(fs->ctx, e.c[i]);
}

static inline bb4_t gs_fs_sample_ext(gs_fs *fs)
{
    bb4_t e;
    for (int i = 0; i < 4; i++)
        e.c[i] = fs->sample(fs->ctx);
    return e;
}

#endif
