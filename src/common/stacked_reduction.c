/* What the stacked reduction's prover and verifier share (see
 * stacked_reduction.h): the commits' shape checks, the commit view of a
 * stacked layout, and freeing the proof's stacking part. */
#include "common/stacked_reduction.h"

#include "common/stacking.h"

#include <stdlib.h>
#include <string.h>

glstark_status gs_sred_check_commits(gs_sred_params prm, const gs_sred_commit *commits, uint32_t num_commits,
                                     uint32_t r_len, uint32_t *total_width, uint32_t *total_slices, uint32_t *max_nt,
                                     gs_error *err)
{
    if (prm.l_skip > 20 || prm.n_stack > 27 || prm.l_skip + prm.n_stack > 27)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "stacked reduction: l_skip %u, n_stack %u out of range (l_skip + n_stack <= 27)",
                            prm.l_skip, prm.n_stack);
    uint64_t height = (uint64_t)1 << (prm.l_skip + prm.n_stack);
    uint64_t tw = 0, ts = 0;
    uint32_t mnt = 0;
    for (uint32_t c = 0; c < num_commits; c++) {
        const gs_sred_commit *cm = &commits[c];
        for (uint32_t k = 0; k < cm->num_slices; k++) {
            const gs_red_slice *s = &cm->slices[k];
            if (s->log_height > prm.l_skip + prm.n_stack)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "stacked reduction: commit %u slice %u has log_height %u > l_skip + n_stack = %u",
                                    c, k, s->log_height, prm.l_skip + prm.n_stack);
            uint32_t lh = s->log_height > prm.l_skip ? s->log_height : prm.l_skip;
            uint64_t slot = (uint64_t)1 << lh;
            if (s->col >= cm->width || s->row % slot != 0 || s->row + slot > height)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "stacked reduction: commit %u slice %u (col %u, row %u, log_height %u) does not "
                                    "fit a %u-wide stacked matrix of height %llu",
                                    c, k, s->col, s->row, s->log_height, cm->width, (unsigned long long)height);
            uint32_t nt = lh - prm.l_skip;
            if (nt + 1 > r_len)
                return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                    "stacked reduction: slice of log_height %u needs %u coordinates of r, got %u",
                                    s->log_height, nt + 1, r_len);
            if (nt > mnt)
                mnt = nt;
        }
        tw += cm->width;
        ts += cm->num_slices;
    }
    if (tw > UINT32_MAX / 2 || ts > UINT32_MAX / 4)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "stacked reduction: too many columns");
    *total_width = (uint32_t)tw;
    *total_slices = (uint32_t)ts;
    *max_nt = mnt;
    return GLSTARK_OK;
}

glstark_status gs_sred_commit_from_layout(const struct gs_stack_layout *lay, const uint8_t *need_rot_per_trace,
                                          gs_sred_commit *out, gs_red_slice **slices_out, uint8_t **rot_out,
                                          gs_error *err)
{
    size_t n = lay->nslices;
    gs_red_slice *sl = malloc((n ? n : 1) * sizeof *sl);
    uint8_t *rot = malloc(n ? n : 1);
    if (!sl || !rot) {
        free(sl);
        free(rot);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    }
    for (size_t i = 0; i < n; i++) {
        const gs_stack_slice *s = &lay->slices[i];
        if (s->trace >= lay->ntraces) {
            free(sl);
            free(rot);
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "stacked reduction: layout slice %zu names trace %u of %zu", i, s->trace, lay->ntraces);
        }
        sl[i] = (gs_red_slice){s->stacked_col, s->row, s->log_height};
        rot[i] = need_rot_per_trace ? (uint8_t)(need_rot_per_trace[s->trace] != 0) : 0;
    }
    *out = (gs_sred_commit){lay->width, (uint32_t)n, sl, rot};
    *slices_out = sl;
    *rot_out = rot;
    return GLSTARK_OK;
}
