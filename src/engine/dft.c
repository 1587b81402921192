/* Argument checks for the dft family, shared by every engine, so engine
 * implementations can assume well-formed input. */
#include "engine/dft_ops.h"

static glstark_status no_family(gs_engine *eng, const char *what)
{
    return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                        "%s: the %s engine has no dft family; use an engine that implements it (the cpu engine does)",
                        what, eng->core->name);
}

/* Elements (bb_t) the buffer holds. */
static size_t buf_elems(const gs_buf *b) { return b->size / sizeof(bb_t); }

/* Is [off, off + n) inside the buffer? Overflow-safe. */
static int range_ok(const gs_buf *b, size_t off, size_t n)
{
    size_t total = buf_elems(b);
    return off <= total && n <= total - off;
}

/* An output of ncols columns of `rows` elements from element off: a buffer
 * of this engine that holds them. */
static glstark_status check_out_columns(gs_engine *eng, const gs_buf *out, size_t off, size_t ncols, size_t rows,
                                        const char *what)
{
    if (!out || out->engine != eng)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "%s: no output buffer on this engine", what);
    if (ncols > SIZE_MAX / rows || !range_ok(out, off, ncols * rows))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: %zu columns of %zu rows at offset %zu do not fit the %zu-element output buffer; "
                            "allocate (col_end - col_begin) x %zu elements past the offset",
                            what, ncols, rows, off, buf_elems(out), rows);
    return GLSTARK_OK;
}

static glstark_status check_cols(gs_engine *eng, const gs_dft_cols *c, const char *what)
{
    if (!c || !c->buf)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "%s: no column batch or buffer given", what);
    if (c->buf->engine != eng)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: the buffer belongs to another engine; create it on this engine", what);
    if (c->elem_words != 1 && c->elem_words != 4)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: elem_words is %u; use 1 (base field) or 4 (extension)", what, c->elem_words);
    if (c->log_n > GS_DFT_MAX_LOG_N)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: length 2^%u exceeds BabyBear's two-adicity 2^%d; use at most 2^%d rows", what,
                            c->log_n, GS_DFT_MAX_LOG_N, GS_DFT_MAX_LOG_N);
    if (c->ncols == 0)
        return GLSTARK_OK;
    size_t len = ((size_t)1 << c->log_n) * c->elem_words;
    if (c->col_stride < len && c->ncols > 1)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: column stride %zu is smaller than the column length %zu, so columns overlap; "
                            "use a stride of at least the length", what, c->col_stride, len);
    if (c->ncols - 1 > (SIZE_MAX - len) / (c->col_stride ? c->col_stride : 1))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "%s: column batch size overflows", what);
    size_t span = (c->ncols - 1) * c->col_stride + len;
    if (!range_ok(c->buf, c->offset, span))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: %zu columns of %zu elements at offset %zu (stride %zu) need %zu elements, "
                            "but the buffer holds %zu; enlarge the buffer or shrink the batch",
                            what, c->ncols, len, c->offset, c->col_stride, span, buf_elems(c->buf));
    return GLSTARK_OK;
}

glstark_status gs_dft(gs_engine *eng, const gs_dft_cols *cols, gs_dft_dir dir)
{
    if (!eng)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (!eng->dft)
        return no_family(eng, "dft");
    glstark_status st = check_cols(eng, cols, "dft");
    if (st)
        return st;
    if (dir != GS_DFT_FORWARD && dir != GS_DFT_INVERSE)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "dft: unknown direction %d", (int)dir);
    if (cols->ncols == 0)
        return GLSTARK_OK;
    return eng->dft->dft(eng, cols, dir);
}

glstark_status gs_rs_message(gs_engine *eng, const gs_dft_cols *cols, unsigned l_skip)
{
    if (!eng)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (!eng->dft)
        return no_family(eng, "rs_message");
    glstark_status st = check_cols(eng, cols, "rs_message");
    if (st)
        return st;
    if (cols->elem_words != 1)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "rs_message: only base-field columns (elem_words 1) are supported");
    if (l_skip > cols->log_n)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "rs_message: block size 2^%u (l_skip) exceeds the column length 2^%u; "
                            "columns must hold whole blocks", l_skip, cols->log_n);
    if (cols->ncols == 0)
        return GLSTARK_OK;
    return eng->dft->rs_message(eng, cols, l_skip);
}

/* Checks the layout is self-consistent and that every trace buffer holds its
 * trace. */
static glstark_status check_layout(gs_engine *eng, const gs_stack_layout *lay, const gs_trace_ref *traces,
                                   uint32_t col_begin, uint32_t col_end, unsigned max_log, const char *what)
{
    if (!lay || (lay->ntraces && !traces) || (lay->ntraces && !lay->traces) || (lay->nslices && !lay->slices))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "%s: missing layout, trace list or slices", what);
    unsigned L = lay->l_skip + lay->n_stack;
    if (lay->l_skip > max_log || lay->n_stack > max_log || L > max_log)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: stacked height 2^(%u+%u) exceeds 2^%u; use smaller l_skip + n_stack", what,
                            lay->l_skip, lay->n_stack, max_log);
    if (col_begin >= col_end || col_end > lay->width)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: column range [%u, %u) is empty or outside the stacked width %u", what, col_begin,
                            col_end, lay->width);
    for (size_t t = 0; t < lay->ntraces; t++) {
        const gs_stack_trace_shape *sh = &lay->traces[t];
        if (sh->log_height > L)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "%s: trace %zu has height 2^%u, taller than the stacked height 2^%u", what, t,
                                sh->log_height, L);
        if (sh->width == 0)
            continue;
        if (!traces[t].buf || traces[t].buf->engine != eng)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "%s: trace %zu has no buffer on this engine; upload it to this engine first", what, t);
        size_t need = (size_t)sh->width << sh->log_height;
        if (!range_ok(traces[t].buf, traces[t].offset, need))
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "%s: trace %zu (%u columns x 2^%u rows at offset %zu) does not fit its %zu-element "
                                "buffer", what, t, sh->width, sh->log_height, traces[t].offset,
                                buf_elems(traces[t].buf));
    }
    size_t H = (size_t)1 << L;
    for (size_t i = 0; i < lay->nslices; i++) {
        const gs_stack_slice *s = &lay->slices[i];
        if (s->trace >= lay->ntraces || s->trace_col >= lay->traces[s->trace].width ||
            s->log_height != lay->traces[s->trace].log_height || s->stacked_col >= lay->width)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "%s: slice %zu refers to a trace/column outside the layout; build layouts with "
                                "gs_stack_layout_build", what, i);
        unsigned e = s->log_height > lay->l_skip ? s->log_height : lay->l_skip;
        if (s->row > H || ((size_t)1 << e) > H - s->row)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "%s: slice %zu (rows %u + 2^%u) runs past the stacked height 2^%u", what, i, s->row,
                                e, L);
    }
    return GLSTARK_OK;
}

glstark_status gs_stack_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                               uint32_t col_begin, uint32_t col_end, gs_buf *q, size_t q_offset)
{
    if (!eng)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (!eng->dft)
        return no_family(eng, "stack_matrix");
    glstark_status st = check_layout(eng, layout, traces, col_begin, col_end, GS_DFT_MAX_LOG_N, "stack_matrix");
    if (st)
        return st;
    st = check_out_columns(eng, q, q_offset, col_end - col_begin, (size_t)1 << (layout->l_skip + layout->n_stack),
                           "stack_matrix");
    if (st)
        return st;
    return eng->dft->stack_matrix(eng, layout, traces, col_begin, col_end, q, q_offset);
}

glstark_status gs_rs_code_matrix(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                                 unsigned log_blowup, uint32_t col_begin, uint32_t col_end, gs_buf *codeword,
                                 size_t cw_offset)
{
    if (!eng)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (!eng->dft)
        return no_family(eng, "rs_code_matrix");
    glstark_status st = check_layout(eng, layout, traces, col_begin, col_end, GS_RS_MAX_LOG_N, "rs_code_matrix");
    if (st)
        return st;
    unsigned logN = layout->l_skip + layout->n_stack + log_blowup;
    if (log_blowup > GS_RS_MAX_LOG_N || logN > GS_RS_MAX_LOG_N)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "rs_code_matrix: codeword height 2^(%u+%u+%u) exceeds 2^%d; lower n_stack or log_blowup",
                            layout->l_skip, layout->n_stack, log_blowup, GS_RS_MAX_LOG_N);
    st = check_out_columns(eng, codeword, cw_offset, col_end - col_begin, (size_t)1 << logN, "rs_code_matrix");
    if (st)
        return st;
    return eng->dft->rs_code_matrix(eng, layout, traces, log_blowup, col_begin, col_end, codeword, cw_offset);
}

glstark_status gs_rs_code_rows(gs_engine *eng, const gs_stack_layout *layout, const gs_trace_ref *traces,
                               unsigned log_blowup, uint32_t row_class, uint32_t col_begin, uint32_t col_end,
                               gs_buf *out, size_t out_offset)
{
    if (!eng)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (!eng->dft)
        return no_family(eng, "rs_code_rows");
    if (!eng->dft->rs_code_rows)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "rs_code_rows: the %s engine cannot encode single row classes; use rs_code_matrix or "
                            "the cpu engine", eng->core->name);
    glstark_status st = check_layout(eng, layout, traces, col_begin, col_end, GS_RS_MAX_LOG_N, "rs_code_rows");
    if (st)
        return st;
    /* Only 2^L words per column are stored, so the codeword height is bounded
     * by the two-adicity (w_N must exist), not by one binding. */
    unsigned L = layout->l_skip + layout->n_stack;
    if (log_blowup > GS_DFT_MAX_LOG_N || L + log_blowup > GS_DFT_MAX_LOG_N)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "rs_code_rows: codeword height 2^(%u+%u) exceeds BabyBear's two-adicity 2^%d; lower "
                            "n_stack or log_blowup", L, log_blowup, GS_DFT_MAX_LOG_N);
    if (row_class >> log_blowup)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "rs_code_rows: row class %u is not below 2^%u (log_blowup); pass a class in [0, 2^%u)",
                            row_class, log_blowup, log_blowup);
    st = check_out_columns(eng, out, out_offset, col_end - col_begin, (size_t)1 << L, "rs_code_rows");
    if (st)
        return st;
    return eng->dft->rs_code_rows(eng, layout, traces, log_blowup, row_class, col_begin, col_end, out, out_offset);
}

glstark_status gs_rs_code_rows_folded(gs_engine *eng, const gs_dft_cols *q, unsigned l_skip, unsigned log_blowup,
                                      unsigned log_classes, uint32_t row_class, gs_buf *out, size_t out_offset)
{
    if (!eng)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    if (!eng->dft)
        return no_family(eng, "rs_code_rows_folded");
    if (!eng->dft->rs_code_rows_folded)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "rs_code_rows_folded: the %s engine cannot encode row classes finer than the blowup; "
                            "use rs_code_rows", eng->core->name);
    glstark_status st = check_cols(eng, q, "rs_code_rows_folded");
    if (st)
        return st;
    const unsigned L = q->log_n;
    if (q->elem_words != 1 || log_classes <= log_blowup || log_classes - log_blowup + l_skip > L ||
        L + log_blowup > GS_DFT_MAX_LOG_N || (row_class >> log_classes) != 0)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "rs_code_rows_folded: class %u of 2^%u with blowup 2^%u over base-field columns of 2^%u "
                            "rows and blocks of 2^%u: needs log_blowup < log_classes, l_skip + log_classes - "
                            "log_blowup <= log2(rows), a class below 2^log_classes and a codeword within 2^%d",
                            row_class, log_classes, log_blowup, L, l_skip, GS_DFT_MAX_LOG_N);
    st = check_out_columns(eng, out, out_offset, q->ncols, (size_t)1 << (L + log_blowup - log_classes),
                           "rs_code_rows_folded");
    if (st)
        return st;
    return eng->dft->rs_code_rows_folded(eng, q, l_skip, log_blowup, log_classes, row_class, out, out_offset);
}

size_t gs_stack_first_slice(const gs_stack_layout *lay, uint32_t col)
{
    size_t lo = 0, hi = lay->nslices;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lay->slices[mid].stacked_col < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
