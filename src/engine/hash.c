/* Argument checking for the hash family (src/engine/hash_ops.h), shared by all engines. */
#include "engine/hash_ops.h"
#include "engine/read_later.h"

#include <stdlib.h>
#include <string.h>

static glstark_status need_family(gs_engine *eng, const char *what)
{
    if (!eng->hash)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                            "%s: the %s engine has no hash family yet; use the cpu engine", what, eng->core->name);
    return GLSTARK_OK;
}

static glstark_status check_matrix(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height, size_t width,
                                   unsigned elem_deg, unsigned log_k, unsigned *depth, const char *what)
{
    glstark_status st = gs_merkle_check_shape(height, width, elem_deg, log_k, depth, &eng->err);
    if (st) {
        gs_error_prefix(&eng->err, "%s", what);
        return st;
    }
    if (!mat || mat->engine != eng)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: the matrix buffer is missing or belongs to another engine", what);
    /* height, width <= 2^30 and 2^32 / deg: the product fits in 64 bits. */
    uint64_t words = (uint64_t)height * width * elem_deg;
    if (mat_off > mat->size / sizeof(bb_t) || words > mat->size / sizeof(bb_t) - mat_off)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: a %zu x %zu matrix of degree-%u entries at word %zu does not fit in the %zu-byte buffer",
                            what, height, width, elem_deg, mat_off, mat->size);
    return GLSTARK_OK;
}

glstark_status gs_engine_merkle_commit(gs_engine *eng, const gs_buf *mat, size_t mat_off, size_t height,
                                       size_t width, unsigned elem_deg, unsigned log_k, gs_merkle_dev *tree)
{
    memset(tree, 0, sizeof *tree);
    unsigned depth;
    glstark_status st = need_family(eng, "merkle commit");
    if (!st)
        st = check_matrix(eng, mat, mat_off, height, width, elem_deg, log_k, &depth, "merkle commit");
    if (st)
        return st;
    st = eng->hash->merkle_commit(eng, mat, mat_off, height, width, elem_deg, log_k, tree);
    if (st)
        gs_merkle_dev_release(tree);
    return st;
}

/* Where the root lies in the tree's digests (bytes), or an error. */
static glstark_status root_offset(gs_engine *eng, const gs_merkle_dev *tree, size_t *off)
{
    if (!tree->digests)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "merkle root: the tree has not been built");
    size_t s = tree->height >> tree->log_k;
    *off = gs_merkle_layer_offset(s, tree->depth) * GS_DIGEST_LEN * sizeof(bb_t);
    return GLSTARK_OK;
}

glstark_status gs_engine_merkle_root(gs_engine *eng, const gs_merkle_dev *tree, bb_t root[GS_DIGEST_LEN])
{
    size_t off = 0;
    glstark_status st = root_offset(eng, tree, &off);
    return st ? st : gs_buf_read(tree->digests, off, root, GS_DIGEST_LEN * sizeof(bb_t));
}

glstark_status gs_engine_merkle_root_later(gs_engine *eng, const gs_merkle_dev *tree, bb_t root[GS_DIGEST_LEN])
{
    size_t off = 0;
    const size_t bytes = GS_DIGEST_LEN * sizeof(bb_t);
    glstark_status st = root_offset(eng, tree, &off);
    return st ? st : gs_buf_read_later(tree->digests, off, root, bytes, 1, bytes);
}

glstark_status gs_engine_merkle_open(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                     const uint32_t *indices, size_t n, bb_t *rows_out, bb_t *proofs_out)
{
    unsigned depth;
    glstark_status st = need_family(eng, "merkle open");
    if (!st)
        st = check_matrix(eng, mat, mat_off, tree->height, tree->width, tree->elem_deg, tree->log_k, &depth,
                          "merkle open");
    if (st)
        return st;
    if (!tree->digests || depth != tree->depth)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle open: the tree has not been built or its shape fields were changed");
    size_t s = tree->height >> tree->log_k;
    for (size_t q = 0; q < n; q++)
        if (indices[q] >= s)
            return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "merkle open: query %zu has index %u; the tree has %zu query positions", q,
                                indices[q], s);
    return eng->hash->merkle_open(eng, mat, mat_off, tree, indices, n, rows_out, proofs_out);
}

glstark_status gs_engine_merkle_stream_begin(gs_engine *eng, size_t height, size_t width, unsigned log_k,
                                             unsigned log_classes, size_t group_cols, gs_merkle_stream *ms)
{
    memset(ms, 0, sizeof *ms);
    unsigned depth;
    glstark_status st = need_family(eng, "merkle stream");
    if (!st && (!eng->hash->stream_begin || !eng->hash->stream_columns))
        st = gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED,
                          "merkle stream: the %s engine cannot build a tree from column groups; keep the whole matrix "
                          "and use merkle commit",
                          eng->core->name);
    if (!st)
        st = gs_merkle_check_shape(height, width, 1, log_k, &depth, &eng->err);
    if (st)
        return st;
    const size_t s = height >> log_k;
    if (group_cols == 0 || group_cols % GS_P2_RATE != 0)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle stream: groups of %zu columns; use a multiple of %d (the sponge's rate)", group_cols,
                            GS_P2_RATE);
    if (log_classes >= 31 || s % ((size_t)1 << log_classes) != 0 || (log_classes > 0 && log_k == 0))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle stream: 2^%u row classes need whole query cosets (%zu cosets, 2^%u rows per query, "
                            "at least 2 with classes); use fewer classes",
                            log_classes, s, log_k);
    *ms = (gs_merkle_stream){.height = height, .width = width, .group_cols = group_cols,
                             .class_rows = height >> log_classes, .log_k = log_k, .log_classes = log_classes};
    st = gs_buf_create(eng, group_cols * ms->class_rows * sizeof(bb_t), &ms->group);
    if (!st)
        st = gs_buf_create(eng, gs_merkle_digest_words(height, log_k) * sizeof(bb_t), &ms->digests);
    if (!st)
        st = eng->hash->stream_begin(eng, ms);
    if (st)
        gs_merkle_stream_release(ms);
    return st;
}

glstark_status gs_engine_merkle_stream_begin_classes(gs_engine *eng, size_t height, size_t width, unsigned log_k,
                                                     unsigned log_classes, size_t group_cols, gs_merkle_stream *ms)
{
    const size_t n = (size_t)1 << (log_classes < 31 ? log_classes : 0);
    glstark_status st = gs_engine_merkle_stream_begin(eng, height, width, log_k, log_classes, group_cols, &ms[0]);
    if (st)
        return st;
    ms[0].one_class = 1;
    for (size_t c = 1; c < n && !st; c++) {
        ms[c] = ms[0];
        ms[c].cls = c;
        ms[c].shared_digests = 1;
        ms[c].states = ms[c].group = NULL;
        st = gs_buf_create(eng, group_cols * ms[c].class_rows * sizeof(bb_t), &ms[c].group);
        if (!st)
            st = eng->hash->stream_begin(eng, &ms[c]);
        if (st)
            for (size_t d = c + 1; d-- > 0;)
                gs_merkle_stream_release(&ms[d]); /* ms[0], released last, owns the digests */
    }
    if (!st && n > 1) {
        /* the last class ends last and hands the digests to the tree */
        ms[0].shared_digests = 1;
        ms[n - 1].shared_digests = 0;
    }
    return st;
}

glstark_status gs_engine_merkle_stream_columns(gs_engine *eng, gs_merkle_stream *ms, size_t ncols,
                                               gs_merkle_dev *tree)
{
    memset(tree, 0, sizeof *tree);
    if (!ms->states)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle stream: not started, or already finished");
    if (ncols == 0 || ncols > ms->width - ms->next_col || ncols > ms->group_cols)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle stream: %zu columns after the %zu absorbed exceed the matrix's %zu or the group's %zu",
                            ncols, ms->next_col, ms->width, ms->group_cols);
    if (ms->next_col + ncols < ms->width && ncols != ms->group_cols)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle stream: a group of %zu columns that does not end the rows must have the stream's %zu",
                            ncols, ms->group_cols);
    glstark_status st = eng->hash->stream_columns(eng, ms, ncols);
    if (st)
        return st;
    ms->next_col += ncols;
    if (ms->next_col < ms->width)
        return GLSTARK_OK;
    ms->next_col = 0;
    if (ms->one_class && ms->cls + 1 < ((size_t)1 << ms->log_classes)) {
        gs_merkle_stream_release(ms); /* the digests stay with the last class's stream */
        return GLSTARK_OK;
    }
    if (!ms->one_class && ++ms->cls < ((size_t)1 << ms->log_classes))
        return GLSTARK_OK;
    unsigned depth = 0;
    (void)gs_merkle_check_shape(ms->height, ms->width, 1, ms->log_k, &depth, &eng->err);
    *tree = (gs_merkle_dev){ms->digests, ms->height, ms->width, 1, ms->log_k, depth};
    ms->digests = NULL;
    gs_merkle_stream_release(ms);
    return GLSTARK_OK;
}

void gs_merkle_stream_release(gs_merkle_stream *ms)
{
    if (!ms)
        return;
    gs_buf_destroy(ms->states);
    gs_buf_destroy(ms->group);
    if (!ms->shared_digests)
        gs_buf_destroy(ms->digests);
    ms->states = ms->group = ms->digests = NULL;
}

glstark_status gs_engine_merkle_open_rows_to(gs_engine *eng, const gs_buf *mat, size_t mat_off,
                                            const gs_merkle_dev *tree, const uint32_t *indices, size_t n,
                                            bb_t *const *dst, size_t row_stride)
{
    const size_t row = tree->width * tree->elem_deg, k = (size_t)1 << tree->log_k;
    if (row_stride < row)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle open: row stride %zu words is below the row's %zu words", row_stride, row);
    if (n == 0)
        return GLSTARK_OK;
    if (!eng->hash || !eng->hash->merkle_gather) {
        /* at once, through a temporary in query order */
        bb_t *tmp = malloc(n * k * row * sizeof(bb_t));
        if (!tmp)
            return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "merkle open: out of host memory");
        glstark_status st = gs_engine_merkle_open(eng, mat, mat_off, tree, indices, n, tmp, NULL);
        for (size_t q = 0; !st && q < n; q++)
            for (size_t t = 0; t < k; t++)
                memcpy(dst[q] + t * row_stride, tmp + (q * k + t) * row, row * sizeof(bb_t));
        free(tmp);
        return st;
    }
    glstark_status st = gs_engine_merkle_open(eng, mat, mat_off, tree, indices, 0, NULL, NULL);
    for (size_t q = 0; !st && q < n; q++)
        if (indices[q] >= tree->height >> tree->log_k)
            st = gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "merkle open: query %zu has index %u; the tree has %zu query positions", q, indices[q],
                              tree->height >> tree->log_k);
    gs_buf *stage = NULL;
    if (!st)
        st = eng->hash->merkle_gather(eng, mat, mat_off, tree, indices, n, 1, 0, &stage);
    void **to = st ? NULL : malloc(n * sizeof *to);
    if (!st && !to)
        st = gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "merkle open: out of host memory");
    for (size_t q = 0; !st && q < n; q++)
        to[q] = dst[q];
    /* one engine copy of the gathered rows, placed per query at the flush */
    if (!st)
        st = gs_buf_read_later_scatter(stage, 0, to, n, row * sizeof(bb_t), k, row_stride * sizeof(bb_t));
    free(to);
    gs_buf_destroy(stage); /* its bytes are in the queue's own buffer now */
    return st;
}

void gs_merkle_dev_release(gs_merkle_dev *tree)
{
    if (!tree)
        return;
    gs_buf_destroy(tree->digests);
    memset(tree, 0, sizeof *tree);
}

glstark_status gs_engine_grind(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                               uint32_t *witness)
{
    glstark_status s = need_family(eng, "grind");
    if (s)
        return s;
    if (bits < 1 || bits > 30 || absorb_idx >= GS_P2_RATE)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "grind: %u bits with absorb index %u; need 1..30 bits and an index below %u", bits,
                            absorb_idx, GS_P2_RATE);
    return eng->hash->grind(eng, st, absorb_idx, bits, witness);
}

glstark_status gs_engine_grind_fn(void *ctx, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits,
                                  uint32_t *witness, gs_error *err)
{
    gs_engine *eng = ctx;
    glstark_status s = gs_engine_grind(eng, st, absorb_idx, bits, witness);
    if (s && err && err != &eng->err)
        *err = eng->err;
    return s;
}

/* Rows opened at once into a host array, then placed row by row (an
 * engine without merkle_gather: its openings are host memory). */
static glstark_status open_now_strided(gs_engine *eng, const gs_buf *mat, size_t mat_off, const gs_merkle_dev *tree,
                                       const uint32_t *indices, size_t n, bb_t *rows_out, size_t row_stride,
                                       bb_t *proofs_out)
{
    const size_t row = tree->width * tree->elem_deg, nrows = n << tree->log_k;
    if (!rows_out || row_stride == row)
        return gs_engine_merkle_open(eng, mat, mat_off, tree, indices, n, rows_out, proofs_out);
    bb_t *tmp = malloc(nrows * row * sizeof(bb_t) + 1);
    if (!tmp)
        return gs_error_set(&eng->err, GLSTARK_ERR_OUT_OF_MEMORY, "merkle open: out of host memory");
    glstark_status st = gs_engine_merkle_open(eng, mat, mat_off, tree, indices, n, tmp, proofs_out);
    for (size_t r = 0; !st && r < nrows; r++)
        memcpy(rows_out + r * row_stride, tmp + r * row, row * sizeof(bb_t));
    free(tmp);
    return st;
}

glstark_status gs_engine_merkle_open_later(gs_engine *eng, const gs_buf *mat, size_t mat_off,
                                           const gs_merkle_dev *tree, const uint32_t *indices, size_t n,
                                           bb_t *rows_out, size_t row_stride, bb_t *proofs_out)
{
    const size_t row = tree->width * tree->elem_deg;
    if (rows_out && row_stride < row)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle open: row stride %zu words is below the row's %zu words", row_stride, row);
    if (!eng->hash || !eng->hash->merkle_gather || n == 0)
        return open_now_strided(eng, mat, mat_off, tree, indices, n, rows_out, row_stride, proofs_out);
    /* the checks of gs_engine_merkle_open, on an empty query list */
    glstark_status st = gs_engine_merkle_open(eng, mat, mat_off, tree, indices, 0, NULL, NULL);
    size_t s = tree->height >> tree->log_k;
    for (size_t q = 0; !st && q < n; q++)
        if (indices[q] >= s)
            st = gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                              "merkle open: query %zu has index %u; the tree has %zu query positions", q, indices[q],
                              s);
    gs_buf *stage = NULL;
    if (!st)
        st = eng->hash->merkle_gather(eng, mat, mat_off, tree, indices, n, rows_out != NULL, proofs_out != NULL,
                                      &stage);
    if (st || !stage)
        return st;
    const size_t nrows = n << tree->log_k, rows_bytes = rows_out ? nrows * row * sizeof(bb_t) : 0;
    if (rows_out)
        st = gs_buf_read_later(stage, 0, rows_out, row * sizeof(bb_t), nrows, row_stride * sizeof(bb_t));
    if (!st && proofs_out)
        st = gs_buf_read_later(stage, rows_bytes, proofs_out, stage->size - rows_bytes, 1, 0);
    gs_buf_destroy(stage); /* its bytes are in the queue's own buffer now */
    return st;
}

glstark_status gs_engine_sponge_create(gs_engine *eng, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx,
                                       unsigned sample_idx, gs_buf **out)
{
    *out = NULL;
    if (absorb_idx >= GS_P2_RATE || sample_idx > GS_P2_RATE)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "sponge: absorb position %u and sample position %u; need below %u and at most %u",
                            absorb_idx, sample_idx, GS_P2_RATE, GS_P2_RATE);
    uint32_t words[GS_SPONGE_WORDS];
    memcpy(words, st, GS_P2_WIDTH * sizeof(bb_t));
    words[GS_P2_WIDTH] = absorb_idx;
    words[GS_P2_WIDTH + 1] = sample_idx;
    glstark_status s = gs_buf_create(eng, sizeof words, out);
    if (!s && (s = gs_buf_write(*out, 0, words, sizeof words))) {
        gs_buf_destroy(*out);
        *out = NULL;
    }
    return s;
}

glstark_status gs_engine_sponge_step(gs_engine *eng, gs_buf *state, const gs_sponge_step *step)
{
    if (!eng->hash || !eng->hash->sponge_step)
        return gs_error_set(&eng->err, GLSTARK_ERR_UNSUPPORTED, "sponge: the %s engine has no sponge",
                            eng->core->name);
    if (!gs_buf_holds(state, eng, 0, GS_SPONGE_WORDS, 4))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "sponge: the state buffer must hold %u words and belong to this engine", GS_SPONGE_WORDS);
    if (step->n_obs && !gs_buf_holds(step->src, eng, step->src_index, step->n_obs, sizeof(bb4_t)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "sponge: %u observed elements from element %zu are not inside the source buffer",
                            step->n_obs, step->src_index);
    if (!gs_buf_holds(step->dst, eng, step->dst_index, 1, sizeof(bb4_t)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "sponge: the challenge's element %zu is not inside the destination buffer",
                            step->dst_index);
    if (step->pow_bits > GS_SPONGE_POW_MAX_BITS)
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "sponge: a %u-bit proof of work; the engine's sponge searches at most %u bits",
                            step->pow_bits, GS_SPONGE_POW_MAX_BITS);
    if (step->pow_bits && !gs_buf_holds(step->witness, eng, step->witness_index, 1, 4))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "sponge: the witness's word %zu is not inside its buffer", step->witness_index);
    return eng->hash->sponge_step(eng, state, step);
}
