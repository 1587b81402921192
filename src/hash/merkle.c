/* SWIRL Merkle tree on the CPU (layout in merkle.h).
 *
 * Work is done GS_P2_LANES (16) nodes at a time with the batched permutation:
 * leaves of 16 consecutive rows (consecutive in every column, so the reads
 * are contiguous), then the K-leaf coset trees of those 16 coset indices side
 * by side, then the upper layers 16 output nodes at a time. Threads take
 * blocks in chunks (gs_parallel_for_chunks); every block writes its own
 * outputs, so results do not depend on the threads or the chunks. */
#include "hash/merkle.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/prefetch.h"

#define L GS_P2_LANES
#define D GS_DIGEST_LEN

typedef bb_t lanes_t[GS_P2_WIDTH][L]; /* a batch of L sponge states, cell-major */

glstark_status gs_merkle_check_shape(size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                                     unsigned *depth, gs_error *err)
{
    if (height == 0 || (height & (height - 1)) != 0 || height > ((size_t)1 << GS_MERKLE_MAX_LOG_HEIGHT))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle tree: height %zu is not a power of two between 1 and 2^%u; pad the matrix to a power-of-two height",
                            height, GS_MERKLE_MAX_LOG_HEIGHT);
    if (width == 0)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle tree: the matrix has no columns; commit at least one column");
    if (elem_deg != 1 && elem_deg != 4)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle tree: element degree %u is not 1 (base field) or 4 (extension)", elem_deg);
    if (width > (size_t)UINT32_MAX / elem_deg)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle tree: %zu columns of degree %u make a row too long to hash", width, elem_deg);
    unsigned log_h = 0;
    while (((size_t)1 << log_h) < height)
        log_h++;
    if (log_k > log_h)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle tree: %zu rows per query (2^%u) exceed the height %zu; use a smaller k or a taller matrix",
                            (size_t)1 << (log_k < 63 ? log_k : 63), log_k, height);
    if (depth)
        *depth = log_h - log_k;
    return GLSTARK_OK;
}

size_t gs_merkle_digest_words(size_t height, unsigned log_k)
{
    size_t s = height >> log_k;
    return (2 * s - 1) * D;
}

/* Asks for the cache lines holding elements [e0, e1) of rows r0 .. r0+L-1
 * (every column of a rate block, L rows each). The codeword's columns lie
 * a column's length apart, more streams than the hardware prefetchers
 * follow, so without this every rate block of a leaf waited on memory. */
static void prefetch_rows(const bb_t *mat, size_t n, unsigned deg, size_t r0, size_t e0, size_t e1)
{
    if (r0 >= n)
        return;
    size_t last = r0 + L - 1 < n ? r0 + L - 1 : n - 1;
    for (size_t e = e0; e < e1; e++) {
        if (deg != 1 && (e & 3) != 0)
            continue; /* one request covers the column's four words per row */
        size_t c = deg == 1 ? e : e >> 2;
        gs_prefetch_range(mat + (c * n + r0) * deg, (last - r0 + 1) * deg * sizeof(bb_t));
    }
}

/* Sponge hashes of rows r0 .. r0+L-1 (rows past the end repeat the last row;
 * callers discard those lanes). Digest word i of lane l ends in st[i][l].
 * While each rate block is permuted, the same block of the rows at next_r0
 * (the caller's next leaf; n or more for none) is fetched into the cache. */
static void hash_rows_lanes(const bb_t *mat, size_t n, size_t width, unsigned deg, size_t r0, size_t next_r0,
                            lanes_t st)
{
    size_t len = width * deg;
    size_t rows[L];
    for (int l = 0; l < L; l++)
        rows[l] = (r0 + (size_t)l < n ? r0 + (size_t)l : n - 1) * deg;
    memset(st, 0, sizeof(lanes_t));
    for (size_t off = 0; off < len; off += GS_P2_RATE) {
        size_t m = len - off < GS_P2_RATE ? len - off : GS_P2_RATE;
        for (size_t i = 0; i < m; i++) {
            size_t e = off + i;
            size_t c = deg == 1 ? e : e >> 2, j = deg == 1 ? 0 : e & 3;
            const bb_t *col = mat + c * n * deg + j;
            if (deg == 1 && rows[L - 1] == rows[0] + L - 1) {
                for (int l = 0; l < L; l++) /* contiguous rows: vectorisable copy */
                    st[i][l] = col[rows[0] + (size_t)l];
            } else {
                for (int l = 0; l < L; l++)
                    st[i][l] = col[rows[l]];
            }
        }
        prefetch_rows(mat, n, deg, next_r0, off, off + m);
        gs_poseidon2_permute_batch(st);
    }
}

/* out = C(left, right) for L lanes; digests are [word][lane]. out may alias left. */
static void compress_lanes(const bb_t left[D][L], const bb_t right[D][L], bb_t out[D][L])
{
    lanes_t st;
    memcpy(st, left, sizeof(bb_t) * D * L);
    memcpy(st[D], right, sizeof(bb_t) * D * L);
    gs_poseidon2_permute_batch(st);
    memcpy(out, st, sizeof(bb_t) * D * L);
}

typedef struct build_ctx {
    const bb_t *mat;
    size_t n, width, s;
    unsigned deg, log_k;
    bb_t *digests;
    /* upper layers */
    const bb_t *prev;
    bb_t *next;
    size_t next_len;
    /* streamed commitment (merkle.h): 8 words per row of one class, the
     * column group absorbed into them (columns [c0, c0 + ncols) of the
     * group buffer, which also keeps a short last block's rate words), or,
     * for the class's bottom digests, its leaves and where they go */
    bb_t *states;
    bb_t *group;
    size_t c0, ncols, tail_col;
    const bb_t *leaves;
    unsigned log_classes;
    size_t cls;
} build_ctx;

/* par_blocks' chunk runner: the block function and whether any chunk of
 * it failed (bottom_blocks allocates scratch). */
typedef struct block_job {
    const build_ctx *ctx;
    int (*fn)(const build_ctx *, size_t, size_t);
    atomic_int failed;
} block_job;

/* Bottom layer for coset blocks [lo, hi): L coset indices per block. */
static int bottom_blocks(const build_ctx *c, size_t lo, size_t hi)
{
    size_t k = (size_t)1 << c->log_k;
    bb_t(*node)[D][L] = malloc(k * sizeof *node);
    if (!node)
        return 1;
    lanes_t st;
    for (size_t b = lo; b < hi; b++) {
        size_t y0 = b * L;
        for (size_t t = 0; t < k; t++) {
            if (c->leaves) {
                for (int l = 0; l < L; l++) {
                    size_t y = y0 + (size_t)l < c->s ? y0 + (size_t)l : c->s - 1;
                    for (int i = 0; i < D; i++)
                        node[t][i][l] = c->leaves[(y + t * c->s) * D + (size_t)i];
                }
                continue;
            }
            size_t next = t + 1 < k ? y0 + (t + 1) * c->s : (b + 1 < hi ? (b + 1) * L : SIZE_MAX);
            hash_rows_lanes(c->mat, c->n, c->width, c->deg, y0 + t * c->s, next, st);
            memcpy(node[t], st, sizeof node[t]);
        }
        for (size_t m = k; m > 1; m /= 2)
            for (size_t t = 0; t < m / 2; t++)
                compress_lanes((const bb_t(*)[L])node[2 * t], (const bb_t(*)[L])node[2 * t + 1], node[t]);
        for (int l = 0; l < L && y0 + (size_t)l < c->s; l++) {
            size_t at = gs_merkle_stream_bottom_index(y0 + (size_t)l, c->log_classes, c->cls);
            for (int i = 0; i < D; i++)
                c->digests[at * D + (size_t)i] = node[0][i][l];
        }
    }
    free(node);
    return 0;
}

/* One upper layer: next[i] = C(prev[2i], prev[2i+1]) for blocks [lo, hi). */
static int upper_blocks(const build_ctx *c, size_t lo, size_t hi)
{
    bb_t a[D][L], b[D][L], o[D][L];
    for (size_t blk = lo; blk < hi; blk++) {
        size_t i0 = blk * L;
        for (int l = 0; l < L; l++) {
            size_t i = i0 + (size_t)l < c->next_len ? i0 + (size_t)l : c->next_len - 1;
            for (int w = 0; w < D; w++) {
                a[w][l] = c->prev[(2 * i) * D + (size_t)w];
                b[w][l] = c->prev[(2 * i + 1) * D + (size_t)w];
            }
        }
        compress_lanes((const bb_t(*)[L])a, (const bb_t(*)[L])b, o);
        for (int l = 0; l < L && i0 + (size_t)l < c->next_len; l++)
            for (int w = 0; w < D; w++)
                c->next[(i0 + (size_t)l) * D + (size_t)w] = o[w][l];
    }
    return 0;
}

static void run_blocks(void *arg, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    block_job *j = arg;
    if (j->fn(j->ctx, lo, hi))
        atomic_store(&j->failed, 1);
}

/* Chunks per thread: enough that a slower thread (a busier core) hands the
 * rest of its share to the others; on the 16-core H200 host, one contiguous
 * range per thread left the main tree's last ~40% of the time to fewer and
 * fewer threads. */
#define CHUNKS_PER_THREAD 8

/* Runs fn over [0, nblocks) on up to w.threads of the workers, each taking
 * at least min_per_thread blocks at a time. Returns nonzero if any call
 * failed. */
static int par_blocks(const build_ctx *c, size_t nblocks, gs_workers w, size_t min_per_thread,
                      int (*fn)(const build_ctx *, size_t, size_t))
{
    unsigned threads = w.threads;
    if (threads > 1 && nblocks / threads < min_per_thread)
        threads = (unsigned)(nblocks / min_per_thread);
    if (threads <= 1)
        return fn(c, 0, nblocks);
    size_t grain = nblocks / ((size_t)threads * CHUNKS_PER_THREAD);
    if (grain < min_per_thread)
        grain = min_per_thread;
    block_job job = {.ctx = c, .fn = fn};
    atomic_init(&job.failed, 0);
    gs_pool_for_chunks(w.pool, threads, nblocks, grain, run_blocks, &job);
    return atomic_load(&job.failed);
}

/* The layers above the coset digests, from c->digests' bottom layer up. */
static void upper_layers(build_ctx *c, unsigned depth, gs_workers workers)
{
    for (unsigned j = 0; j < depth; j++) {
        c->prev = c->digests + gs_merkle_layer_offset(c->s, j) * D;
        c->next = c->digests + gs_merkle_layer_offset(c->s, j + 1) * D;
        c->next_len = c->s >> (j + 1);
        (void)par_blocks(c, (c->next_len + L - 1) / L, workers, 256, upper_blocks);
    }
}

/* Absorbs the column group into the states of rows [16 lo, 16 hi) (the
 * short-block tail as merkle.h describes). */
static int absorb_blocks(const build_ctx *c, size_t lo, size_t hi)
{
    const size_t end = c->c0 + c->ncols, short_at = c->width & ~(size_t)7, r = c->width & 7;
    lanes_t st;
    for (size_t b = lo; b < hi; b++) {
        size_t r0 = b * L, rows[L];
        for (int l = 0; l < L; l++)
            rows[l] = r0 + (size_t)l < c->n ? r0 + (size_t)l : c->n - 1;
        memset(st, 0, sizeof st); /* the first group: every sponge starts at zero */
        if (c->c0 != 0)
            for (int l = 0; l < L; l++)
                for (int i = 0; i < D; i++)
                    st[D + i][l] = c->states[rows[l] * D + (size_t)i];
        for (size_t e = c->c0; e < end; e += GS_P2_RATE) {
            /* a short block reads its tail too, unless it is the row's
             * only block: then the zero start stays */
            size_t m = e == short_at && e == 0 ? r : GS_P2_RATE;
            for (size_t i = 0; i < m; i++) {
                const bb_t *col = c->group + (e - c->c0 + i) * c->n;
                for (int l = 0; l < L; l++)
                    st[i][l] = col[rows[l]];
            }
            gs_poseidon2_permute_batch(st);
            if (r != 0 && e + GS_P2_RATE == short_at)
                for (size_t i = r; i < GS_P2_RATE; i++) {
                    bb_t *col = c->group + (c->tail_col + i) * c->n;
                    for (int l = 0; l < L && r0 + (size_t)l < c->n; l++)
                        col[r0 + (size_t)l] = st[i][l];
                }
        }
        /* the leaf (rate words) once the row is in, else the capacity */
        const int off = end == c->width ? 0 : D;
        for (int l = 0; l < L && r0 + (size_t)l < c->n; l++)
            for (int i = 0; i < D; i++)
                c->states[(r0 + (size_t)l) * D + (size_t)i] = st[off + i][l];
    }
    return 0;
}

void gs_merkle_absorb_columns(bb_t *states, bb_t *group, size_t n, size_t width, size_t group_cols, size_t c0,
                              size_t ncols, gs_workers workers)
{
    build_ctx c = {.n = n, .width = width, .states = states, .group = group, .c0 = c0, .ncols = ncols,
                   .tail_col = gs_merkle_stream_tail_col(width, group_cols)};
    (void)par_blocks(&c, (n + L - 1) / L, workers, 16, absorb_blocks);
}

glstark_status gs_merkle_build_bottom_from_leaves(const bb_t *leaves, size_t n, unsigned log_k, unsigned log_classes,
                                                 size_t cls, gs_workers workers, bb_t *digests, gs_error *err)
{
    glstark_status st = gs_merkle_check_shape(n, 1, 1, log_k, NULL, err);
    if (st)
        return st;
    build_ctx c = {.n = n, .width = 1, .s = n >> log_k, .deg = 1, .log_k = log_k, .digests = digests,
                   .leaves = leaves, .log_classes = log_classes, .cls = cls};
    if (par_blocks(&c, (c.s + L - 1) / L, workers, 4, bottom_blocks))
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "merkle tree: out of host memory for the %zu-leaf coset scratch", (size_t)1 << log_k);
    return GLSTARK_OK;
}

void gs_merkle_build_upper(size_t height, unsigned log_k, gs_workers workers, bb_t *digests)
{
    build_ctx c = {.n = height, .s = height >> log_k, .digests = digests};
    unsigned depth = 0;
    while (((size_t)1 << depth) < c.s)
        depth++;
    upper_layers(&c, depth, workers);
}

glstark_status gs_merkle_build(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                               gs_workers workers, bb_t *digests, gs_error *err)
{
    unsigned depth = 0;
    glstark_status st = gs_merkle_check_shape(height, width, elem_deg, log_k, &depth, err);
    if (st)
        return st;
    if (!mat || !digests)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "merkle tree: NULL matrix or digest array");
    build_ctx c = {.mat = mat, .n = height, .width = width, .s = height >> log_k, .deg = elem_deg,
                   .log_k = log_k, .digests = digests};
    size_t nblk = (c.s + L - 1) / L;
    if (par_blocks(&c, nblk, workers, 4, bottom_blocks))
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "merkle tree: out of host memory for the %zu-leaf coset scratch", (size_t)1 << log_k);
    upper_layers(&c, depth, workers);
    return GLSTARK_OK;
}

glstark_status gs_merkle_commit(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                                gs_workers workers, gs_merkle_tree *tree, gs_error *err)
{
    memset(tree, 0, sizeof *tree);
    unsigned depth = 0;
    glstark_status st = gs_merkle_check_shape(height, width, elem_deg, log_k, &depth, err);
    if (st)
        return st;
    bb_t *dg = malloc(gs_merkle_digest_words(height, log_k) * sizeof(bb_t));
    if (!dg)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                            "merkle tree: out of host memory for the digest layers of a %zu-row tree", height);
    st = gs_merkle_build(mat, height, width, elem_deg, log_k, workers, dg, err);
    if (st) {
        free(dg);
        return st;
    }
    *tree = (gs_merkle_tree){height, width, elem_deg, log_k, depth, dg};
    return GLSTARK_OK;
}

void gs_merkle_tree_free(gs_merkle_tree *tree)
{
    if (!tree)
        return;
    free(tree->digests);
    memset(tree, 0, sizeof *tree);
}

glstark_status gs_merkle_open(const bb_t *mat, size_t height, size_t width, unsigned elem_deg, unsigned log_k,
                              const bb_t *digests, size_t idx, bb_t *rows_out, bb_t *proof_out, gs_error *err)
{
    unsigned depth;
    glstark_status st = gs_merkle_check_shape(height, width, elem_deg, log_k, &depth, err);
    if (st)
        return st;
    size_t s = height >> log_k;
    if (idx >= s)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle opening: query index %zu is out of range; the tree has %zu query positions", idx, s);
    if (rows_out) {
        size_t k = (size_t)1 << log_k, len = width * elem_deg;
        for (size_t t = 0; t < k; t++) {
            size_t r = idx + t * s;
            for (size_t e = 0; e < len; e++) {
                size_t c = e / elem_deg, j = e % elem_deg;
                rows_out[t * len + e] = mat[(c * height + r) * elem_deg + j];
            }
        }
    }
    if (proof_out) {
        size_t i = idx;
        for (unsigned j = 0; j < depth; j++, i >>= 1)
            memcpy(proof_out + (size_t)j * D, digests + (gs_merkle_layer_offset(s, j) + (i ^ 1)) * D,
                   D * sizeof(bb_t));
    }
    return GLSTARK_OK;
}

glstark_status gs_merkle_verify(const bb_t root[GS_DIGEST_LEN], size_t idx, const bb_t *rows, unsigned log_k,
                                size_t row_len, const bb_t *proof, unsigned depth, gs_error *err)
{
    if (depth >= 8 * sizeof(size_t) || log_k > GS_MERKLE_MAX_LOG_HEIGHT)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle verify: proof depth %u or rows-per-query exponent %u is too large", depth, log_k);
    if (idx >> depth)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "merkle verify: query index %zu is out of range for a proof of depth %u", idx, depth);
    size_t k = (size_t)1 << log_k;
    bb_t *leaf = malloc(k * D * sizeof(bb_t));
    if (!leaf)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "merkle verify: out of host memory");
    for (size_t t = 0; t < k; t++)
        gs_poseidon2_hash(rows + t * row_len, row_len, leaf + t * D);
    for (size_t m = k; m > 1; m /= 2)
        for (size_t t = 0; t < m / 2; t++)
            gs_poseidon2_compress(leaf + 2 * t * D, leaf + (2 * t + 1) * D, leaf + t * D);
    bb_t cur[D];
    memcpy(cur, leaf, sizeof cur);
    free(leaf);
    size_t i = idx;
    for (unsigned j = 0; j < depth; j++, i >>= 1) {
        if (i & 1)
            gs_poseidon2_compress(proof + (size_t)j * D, cur, cur);
        else
            gs_poseidon2_compress(cur, proof + (size_t)j * D, cur);
    }
    if (memcmp(cur, root, sizeof cur) != 0)
        return gs_error_set(err, GLSTARK_ERR_REJECTED,
                            "merkle verify: the opened rows and the %u-digest path at index %zu do not hash to the commitment",
                            depth, idx);
    return GLSTARK_OK;
}
