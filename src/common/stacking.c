#include "common/stacking.h"

#include <stdlib.h>
#include <string.h>

glstark_status gs_stack_log_height(uint64_t height, uint32_t *log_out, gs_error *err)
{
    if (height == 0 || (height & (height - 1)))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "stacking: trace height %llu is not a power of two (or is zero); pad the trace to a "
                            "power-of-two number of rows", (unsigned long long)height);
    uint32_t k = 0;
    while (((uint64_t)1 << k) < height)
        k++;
    *log_out = k;
    return GLSTARK_OK;
}

/* Merge sort on (log_height desc, index asc); stable by construction. */
static int before(const uint32_t *lh, uint32_t a, uint32_t b)
{
    return lh[a] > lh[b] || (lh[a] == lh[b] && a < b);
}

glstark_status gs_stack_sort_order(const uint32_t *log_heights, size_t n, uint32_t *order, gs_error *err)
{
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    if (n < 2)
        return GLSTARK_OK;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacking: out of memory sorting %zu traces", n);
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = before(log_heights, order[j], order[i]) ? order[j++] : order[i++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        memcpy(order, tmp, n * sizeof *order);
    }
    free(tmp);
    return GLSTARK_OK;
}

glstark_status gs_stack_layout_build(unsigned l_skip, unsigned n_stack, const gs_stack_trace_shape *shapes,
                                     size_t ntraces, gs_stack_layout *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    unsigned L = l_skip + n_stack;
    if (l_skip > GS_STACK_MAX_LOG_HEIGHT || n_stack > GS_STACK_MAX_LOG_HEIGHT || L > GS_STACK_MAX_LOG_HEIGHT)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "stacking: l_skip %u + n_stack %u exceeds the largest stacked height 2^%d", l_skip,
                            n_stack, GS_STACK_MAX_LOG_HEIGHT);
    if (ntraces && !shapes)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "stacking: no trace shapes given");
    uint64_t nslices = 0;
    for (size_t i = 0; i < ntraces; i++) {
        if (shapes[i].log_height > L)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "stacking: trace %zu has height 2^%u, taller than the stacked height 2^%u; raise "
                                "n_stack or shorten the trace", i, shapes[i].log_height, L);
        if (i > 0 && shapes[i].log_height > shapes[i - 1].log_height)
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "stacking: trace %zu (height 2^%u) is taller than trace %zu (2^%u); pass traces "
                                "in stacking order (gs_stack_sort_order)", i, shapes[i].log_height, i - 1,
                                shapes[i - 1].log_height);
        nslices += shapes[i].width;
    }
    if (nslices > UINT32_MAX)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "stacking: %llu trace columns are too many",
                            (unsigned long long)nslices);
    out->l_skip = l_skip;
    out->n_stack = n_stack;
    out->ntraces = ntraces;
    out->nslices = (size_t)nslices;
    out->traces = malloc((ntraces ? ntraces : 1) * sizeof *out->traces);
    out->slices = malloc((nslices ? (size_t)nslices : 1) * sizeof *out->slices);
    if (!out->traces || !out->slices) {
        gs_stack_layout_free(out);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacking: out of memory for a %llu-column layout",
                            (unsigned long long)nslices);
    }
    if (ntraces)
        memcpy(out->traces, shapes, ntraces * sizeof *shapes);
    /* Walk the columns in order, starting a new stacked column when the next
     * slot does not fit. With non-increasing power-of-two slot sizes a column
     * is then exactly full, so no gaps appear. */
    uint64_t H = (uint64_t)1 << L, col = 0, row = 0;
    size_t k = 0;
    for (size_t i = 0; i < ntraces; i++) {
        uint32_t e = shapes[i].log_height;
        uint64_t len = (uint64_t)1 << (e > l_skip ? e : l_skip);
        for (uint32_t j = 0; j < shapes[i].width; j++) {
            if (row + len > H) {
                if (row != H) {
                    gs_stack_layout_free(out);
                    return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                                        "stacking: column %llu left half full (row %llu of %llu); this is a bug",
                                        (unsigned long long)col, (unsigned long long)row, (unsigned long long)H);
                }
                col++;
                row = 0;
            }
            gs_stack_slice *s = &out->slices[k++];
            s->trace = (uint32_t)i;
            s->trace_col = j;
            s->stacked_col = (uint32_t)col;
            s->row = (uint32_t)row;
            s->log_height = e;
            row += len;
        }
    }
    out->width = (uint32_t)(col + (row != 0 ? 1 : 0));
    return GLSTARK_OK;
}

void gs_stack_layout_free(gs_stack_layout *layout)
{
    if (!layout)
        return;
    free(layout->traces);
    free(layout->slices);
    layout->traces = NULL;
    layout->slices = NULL;
    layout->ntraces = layout->nslices = 0;
    layout->width = 0;
}
