/* Proving from OpenVM's verifying key plus a proving-context file
 * (include/glstark/context.h), CPU engine:
 *  - OpenVM's seven statements (tests/data/openvm-ctx) prove to OpenVM's
 *    proof bytes, with and without the constraint check, and with per_trace
 *    in another order;
 *  - every truncation and every structural change of a context is refused
 *    with its status and a message naming the place, and nothing huge is
 *    allocated for sizes the bytes cannot hold;
 *  - a changed preprocessed trace and an unsatisfied trace are refused;
 *  - glstark_context_write's files prove to glstark_prove's bytes for the
 *    same traces (absent AIRs included), and a required AIR cannot be left out;
 *  - argument checks.
 * Expected proofs come from OpenVM's files or from glstark_prove on the same
 * traces, never from the context path itself.
 *
 * Mutated contexts are built by a small reader/writer here (ctx_parse /
 * ctx_serialise), independent of src/context: it re-serialises each shared
 * context byte for byte before any mutation is trusted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glstark/context.h"
#include "glstark/glstark.h"

#define P_BB 2013265921u

static const char *const SMALL[] = {"fib-small_n4", "interactions-small", "multi-sender-receiver-small",
                                    "cached-small", "preprocessed-fib-small_n10", "preprocessed-cached-small_c2"};
#define NUM_SMALL (sizeof SMALL / sizeof SMALL[0])

/* ---- files ---- */

static uint8_t *read_data(const char *name, const char *ext, size_t *n)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/openvm-ctx/%s.%s", GLSTARK_TEST_DATA, name, ext);
    uint8_t *b = NULL;
    cr_assert_eq(glstark_read_file(path, &b, n, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    return b;
}

static glstark_verifying_key *load_vk(const char *name)
{
    size_t n;
    char msg[1024];
    uint8_t *b = read_data(name, "prevk.bin", &n);
    glstark_verifying_key *vk = NULL;
    cr_assert_eq(glstark_verifying_key_decode(b, n, &vk, msg, sizeof msg), GLSTARK_OK, "%s: %s", name, msg);
    glstark_free(b);
    return vk;
}

/* ---- the test's own reader and writer of the format ---- */

typedef struct mat {
    uint32_t h, w;
    size_t n;     /* values written (h * w for a well-formed matrix) */
    uint32_t *v;  /* row-major */
} mat;

typedef struct trace_e {
    uint32_t air;
    uint32_t npv;
    uint32_t *pv;
    size_t npv_written;
    uint32_t ncached;
    mat cached[8];
    uint32_t common_present;
    mat common;
} trace_e;

typedef struct ctxp {
    char magic[8];
    uint32_t version, num_airs;
    uint32_t npre;
    uint32_t pre_air[8];
    mat pre[8];
    uint32_t ntr;
    trace_e tr[8];
    size_t trailing; /* zero bytes after the last trace */
} ctxp;

static uint32_t get32(const uint8_t *b, size_t len, size_t *pos)
{
    cr_assert(*pos + 4 <= len, "test reader: past the end at %zu", *pos);
    uint32_t v = (uint32_t)b[*pos] | (uint32_t)b[*pos + 1] << 8 | (uint32_t)b[*pos + 2] << 16 |
                 (uint32_t)b[*pos + 3] << 24;
    *pos += 4;
    return v;
}

static void get_mat(const uint8_t *b, size_t len, size_t *pos, mat *m)
{
    m->h = get32(b, len, pos);
    m->w = get32(b, len, pos);
    m->n = (size_t)m->h * m->w;
    m->v = malloc((m->n ? m->n : 1) * sizeof *m->v);
    for (size_t i = 0; i < m->n; i++)
        m->v[i] = get32(b, len, pos);
}

/* Parses a well-formed context (the shared files). */
static void ctx_parse(const uint8_t *b, size_t len, ctxp *c)
{
    memset(c, 0, sizeof *c);
    size_t pos = 8;
    cr_assert(len >= 8);
    memcpy(c->magic, b, 8);
    c->version = get32(b, len, &pos);
    c->num_airs = get32(b, len, &pos);
    c->npre = get32(b, len, &pos);
    cr_assert(c->npre <= 8);
    for (uint32_t i = 0; i < c->npre; i++) {
        c->pre_air[i] = get32(b, len, &pos);
        get_mat(b, len, &pos, &c->pre[i]);
    }
    c->ntr = get32(b, len, &pos);
    cr_assert(c->ntr <= 8);
    for (uint32_t t = 0; t < c->ntr; t++) {
        trace_e *e = &c->tr[t];
        e->air = get32(b, len, &pos);
        e->npv = get32(b, len, &pos);
        e->npv_written = e->npv;
        e->pv = malloc((e->npv ? e->npv : 1) * sizeof *e->pv);
        for (uint32_t i = 0; i < e->npv; i++)
            e->pv[i] = get32(b, len, &pos);
        e->ncached = get32(b, len, &pos);
        cr_assert(e->ncached <= 8);
        for (uint32_t i = 0; i < e->ncached; i++)
            get_mat(b, len, &pos, &e->cached[i]);
        e->common_present = get32(b, len, &pos);
        cr_assert_eq(e->common_present, 1);
        get_mat(b, len, &pos, &e->common);
    }
    cr_assert_eq(pos, len, "test reader: %zu bytes left", len - pos);
}

static void ctx_free(ctxp *c)
{
    for (uint32_t i = 0; i < 8; i++)
        free(c->pre[i].v);
    for (uint32_t t = 0; t < 8; t++) {
        free(c->tr[t].pv);
        for (uint32_t i = 0; i < 8; i++)
            free(c->tr[t].cached[i].v);
        free(c->tr[t].common.v);
    }
    memset(c, 0, sizeof *c);
}

typedef struct wbuf {
    uint8_t *b;
    size_t len, cap;
} wbuf;

static void put32(wbuf *w, uint32_t v)
{
    if (w->len + 4 > w->cap) {
        w->cap = w->cap ? 2 * w->cap : 256;
        w->b = realloc(w->b, w->cap);
    }
    for (int i = 0; i < 4; i++)
        w->b[w->len++] = (uint8_t)(v >> (8 * i));
}

static void put_mat(wbuf *w, const mat *m)
{
    put32(w, m->h);
    put32(w, m->w);
    for (size_t i = 0; i < m->n; i++)
        put32(w, m->v ? m->v[i] : 0);
}

/* Writes c's parts exactly as given (counts included), so any field can be
 * made inconsistent. malloc'd: 4-byte aligned. */
static uint8_t *ctx_serialise(const ctxp *c, size_t *len)
{
    wbuf w = {0};
    put32(&w, 0); /* room for the magic */
    put32(&w, 0);
    memcpy(w.b, c->magic, 8);
    put32(&w, c->version);
    put32(&w, c->num_airs);
    put32(&w, c->npre);
    for (uint32_t i = 0; i < c->npre && i < 8; i++) {
        put32(&w, c->pre_air[i]);
        put_mat(&w, &c->pre[i]);
    }
    put32(&w, c->ntr);
    for (uint32_t t = 0; t < c->ntr && t < 8; t++) {
        const trace_e *e = &c->tr[t];
        put32(&w, e->air);
        put32(&w, e->npv);
        for (size_t i = 0; i < e->npv_written; i++)
            put32(&w, e->pv[i]);
        put32(&w, e->ncached);
        for (uint32_t i = 0; i < e->ncached && i < 8; i++)
            put_mat(&w, &e->cached[i]);
        put32(&w, e->common_present);
        put_mat(&w, &e->common);
    }
    for (size_t i = 0; i < c->trailing; i++) {
        if (w.len + 1 > w.cap) {
            w.cap = 2 * w.cap;
            w.b = realloc(w.b, w.cap);
        }
        w.b[w.len++] = 0;
    }
    *len = w.len;
    return w.b;
}

static void load_parts(const char *name, ctxp *c)
{
    size_t n, m;
    uint8_t *b = read_data(name, "ctx.bin", &n);
    ctx_parse(b, n, c);
    uint8_t *again = ctx_serialise(c, &m);
    cr_assert(m == n && memcmp(again, b, n) == 0, "%s: the test's writer does not reproduce the file", name);
    free(again);
    glstark_free(b);
}

/* ---- proving helpers ---- */

static glstark_status prove_bytes(const glstark_verifying_key *vk, const uint8_t *b, size_t n, int skip,
                                  glstark_prove_result *r, char *msg, size_t msg_size)
{
    glstark_context *ctx = NULL;
    glstark_proving_key *pk = NULL;
    memset(r, 0, sizeof *r);
    glstark_status st = glstark_context_from_bytes(b, n, vk, &ctx, msg, msg_size);
    if (st)
        return st;
    if ((st = glstark_proving_key_from_context(vk, ctx, &pk, msg, msg_size))) {
        glstark_context_destroy(ctx);
        return st;
    }
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.skip_constraint_check = skip;
    st = glstark_prove_context(pk, ctx, &o, r);
    if (st)
        snprintf(msg, msg_size, "%s", r->message);
    glstark_proving_key_destroy(pk);
    glstark_context_destroy(ctx);
    return st;
}

static void assert_openvm_proof(const char *name, const glstark_prove_result *r)
{
    size_t n;
    uint8_t *want = read_data(name, "proof.bin", &n);
    cr_assert(r->proof_len == n && memcmp(r->proof, want, n) == 0,
              "%s: the proof (%zu bytes) differs from OpenVM's (%zu bytes)", name, r->proof_len, n);
    glstark_free(want);
}

static void prove_statement(const char *name, int skip, int use_file)
{
    char msg[2048];
    glstark_verifying_key *vk = load_vk(name);
    glstark_context *ctx = NULL;
    glstark_proving_key *pk = NULL;
    size_t n = 0;
    uint8_t *b = NULL;
    if (use_file) {
        char path[1024];
        snprintf(path, sizeof path, "%s/openvm-ctx/%s.ctx.bin", GLSTARK_TEST_DATA, name);
        cr_assert_eq(glstark_context_open(path, vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s: %s", name, msg);
    } else {
        b = read_data(name, "ctx.bin", &n);
        cr_assert_eq(glstark_context_from_bytes(b, n, vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s: %s", name, msg);
        cr_assert_eq(glstark_context_size(ctx), n);
    }
    cr_assert_eq(glstark_proving_key_from_context(vk, ctx, &pk, msg, sizeof msg), GLSTARK_OK, "%s: %s", name, msg);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.skip_constraint_check = skip;
    glstark_prove_result r;
    cr_assert_eq(glstark_prove_context(pk, ctx, &o, &r), GLSTARK_OK, "%s: %s", name, r.message);
    assert_openvm_proof(name, &r);
    glstark_prove_result_free(&r);
    glstark_proving_key_destroy(pk);
    glstark_context_destroy(ctx);
    glstark_verifying_key_destroy(vk);
    glstark_free(b);
}

/* ---- OpenVM's statements ---- */

Test(context, openvm_small_statements_checked)
{
    for (size_t i = 0; i < NUM_SMALL; i++)
        prove_statement(SMALL[i], 0, (int)(i & 1));
}

Test(context, openvm_small_statements_unchecked)
{
    for (size_t i = 0; i < NUM_SMALL; i++)
        prove_statement(SMALL[i], 1, (int)!(i & 1));
}

/* Production parameters (L = 21), 16 Keccak-f permutations: ~5 s on 2 cores. */
Test(context, openvm_keccak_app21_p16, .timeout = 300)
{
    prove_statement("keccak-app21_p16", 1, 1);
}

/* The context's shape queries. */
Test(context, shape_queries)
{
    char msg[1024];
    glstark_verifying_key *vk = load_vk("multi-sender-receiver-small");
    size_t n;
    uint8_t *b = read_data("multi-sender-receiver-small", "ctx.bin", &n);
    ctxp c;
    ctx_parse(b, n, &c);
    glstark_context *ctx = NULL;
    cr_assert_eq(glstark_context_from_bytes(b, n, vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_context_num_traces(ctx), c.ntr);
    for (uint32_t t = 0; t < c.ntr; t++)
        cr_assert_eq(glstark_context_trace_height(ctx, c.tr[t].air), c.tr[t].common.h);
    cr_assert_eq(glstark_context_trace_height(ctx, c.num_airs), 0);
    cr_assert_eq(glstark_context_trace_height(ctx, (size_t)-1), 0);
    glstark_context_destroy(ctx);
    ctx_free(&c);
    glstark_free(b);
    glstark_verifying_key_destroy(vk);
}

/* per_trace in another order: the same proof (the transcript follows AIR order). */
Test(context, per_trace_order_does_not_matter)
{
    const char *names[] = {"interactions-small", "multi-sender-receiver-small", "cached-small"};
    for (int k = 0; k < 3; k++) {
        ctxp c;
        load_parts(names[k], &c);
        cr_assert(c.ntr >= 2);
        for (uint32_t i = 0; i < c.ntr / 2; i++) {
            trace_e t = c.tr[i];
            c.tr[i] = c.tr[c.ntr - 1 - i];
            c.tr[c.ntr - 1 - i] = t;
        }
        size_t n;
        uint8_t *b = ctx_serialise(&c, &n);
        glstark_verifying_key *vk = load_vk(names[k]);
        char msg[2048];
        glstark_prove_result r;
        for (int skip = 0; skip < 2; skip++) {
            cr_assert_eq(prove_bytes(vk, b, n, skip, &r, msg, sizeof msg), GLSTARK_OK, "%s: %s", names[k], msg);
            assert_openvm_proof(names[k], &r);
            glstark_prove_result_free(&r);
        }
        glstark_verifying_key_destroy(vk);
        free(b);
        ctx_free(&c);
    }
}

/* ---- refusals ---- */

static void expect_refused(const glstark_verifying_key *vk, const uint8_t *b, size_t n, glstark_status want,
                           const char *const *subs, const char *what)
{
    char msg[2048] = "";
    glstark_context *ctx = (glstark_context *)(uintptr_t)1;
    glstark_status st = glstark_context_from_bytes(b, n, vk, &ctx, msg, sizeof msg);
    cr_assert_eq(st, want, "%s: status %d, expected %d: %s", what, (int)st, (int)want, msg);
    cr_assert_null(ctx, "%s: *out is not NULL on failure", what);
    cr_assert(msg[0], "%s: no message", what);
    for (; subs && *subs; subs++)
        cr_assert(strstr(msg, *subs), "%s: the message does not contain \"%s\": %s", what, *subs, msg);
}

#define SUBS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void expect_parts_refused(const glstark_verifying_key *vk, const ctxp *c, glstark_status want,
                                 const char *const *subs, const char *what)
{
    size_t n;
    uint8_t *b = ctx_serialise(c, &n);
    expect_refused(vk, b, n, want, subs, what);
    free(b);
}

/* Every proper prefix of every small context: refused, with a message. */
Test(context, every_truncation_refused)
{
    for (size_t k = 0; k < NUM_SMALL; k++) {
        glstark_verifying_key *vk = load_vk(SMALL[k]);
        size_t n;
        uint8_t *b = read_data(SMALL[k], "ctx.bin", &n);
        for (size_t len = 0; len < n; len++) {
            /* a fresh copy of exactly len bytes, so reading past it is an ASan/valgrind error */
            uint8_t *p = malloc(len ? len : 1);
            memcpy(p, b, len);
            char msg[2048] = "";
            glstark_context *ctx = NULL;
            glstark_status st = glstark_context_from_bytes(p, len, vk, &ctx, msg, sizeof msg);
            cr_assert(st == GLSTARK_ERR_MALFORMED || st == GLSTARK_ERR_INVALID_ARGUMENT,
                      "%s cut to %zu bytes: status %d: %s", SMALL[k], len, (int)st, msg);
            cr_assert_null(ctx);
            cr_assert(msg[0], "%s cut to %zu bytes: no message", SMALL[k], len);
            free(p);
        }
        glstark_free(b);
        glstark_verifying_key_destroy(vk);
    }
}

/* The header and the per_trace fields, on interactions-small (two AIRs,
 * no preprocessed) and fib-small_n4 (public values). */
Test(context, header_and_trace_fields)
{
    glstark_verifying_key *vk = load_vk("interactions-small");
    ctxp c;
    load_parts("interactions-small", &c);

    c.magic[7] = '2';
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("magic", "OVMCTX01", "byte 0"), "magic");
    c.magic[7] = '1';
    c.version = 2;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("version 2", "byte 8"), "version");
    c.version = 0;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("version 0"), "version 0");
    c.version = 1;
    c.num_airs = 3;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("num_airs", "3 AIRs"), "num_airs 3");
    c.num_airs = 1;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("num_airs"), "num_airs 1");
    c.num_airs = 0xFFFFFFFFu;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("num_airs"), "num_airs huge");
    c.num_airs = 2;

    /* a preprocessed entry for an AIR without preprocessed columns */
    c.npre = 1;
    c.pre_air[0] = 0;
    c.pre[0] = (mat){4, 1, 4, NULL};
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "no preprocessed columns"),
                         "extra preprocessed");
    c.pre_air[0] = 7;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 7", "2 AIRs"), "preprocessed air_id");
    /* num_preprocessed larger than the bytes could hold */
    c.npre = 0x40000000u;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("num_preprocessed"), "num_preprocessed huge");
    c.npre = 0;

    /* per_trace: AIR out of range, repeated, none, too many */
    c.tr[1].air = 2;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("per_trace[1]", "AIR 2", "2 AIRs"),
                         "air_id out of range");
    c.tr[1].air = 0xFFFFFFFFu;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("per_trace[1]", "AIR 4294967295"),
                         "air_id u32 max");
    c.tr[1].air = 0;
    c.tr[1].common.h = 4; /* the sender's shape, so only the repetition is wrong */
    c.tr[1].common.n = 8;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("per_trace[1]", "AIR 0", "per_trace[0]"),
                         "repeated air_id");
    c.tr[1].air = 1;
    c.tr[1].common.h = 8;
    c.tr[1].common.n = 16;
    uint32_t ntr = c.ntr;
    c.ntr = 0;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("num_traces = 0"), "num_traces 0");
    c.ntr = 0xFFFFFFFFu;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("num_traces"), "num_traces huge");
    c.ntr = ntr;

    /* public values and cached mains the key does not have */
    c.tr[0].npv = 1;
    c.tr[0].pv = realloc(c.tr[0].pv, sizeof(uint32_t));
    c.tr[0].pv[0] = 5;
    c.tr[0].npv_written = 1;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "public values", "is 1", "but 0"),
                         "num_public_values");
    c.tr[0].npv_written = 0;
    c.tr[0].npv = 0x7FFFFFFFu; /* more than the bytes hold: refused before anything is read */
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("AIR 0", "public_values"), "num_public_values huge");
    c.tr[0].npv = 0;
    c.tr[1].ncached = 1;
    c.tr[1].cached[0] = (mat){8, 1, 8, NULL};
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 1", "cached mains", "is 1", "but 0"),
                         "num_cached_mains");
    c.tr[1].ncached = 0;
    c.tr[1].common_present = 0;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("AIR 1", "common_main_present is 0"),
                         "common_main_present 0");
    c.tr[1].common_present = 2;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("AIR 1", "common_main_present is 2"),
                         "common_main_present 2");
    c.tr[1].common_present = 1;

    /* heights and widths */
    c.tr[1].common.h = 6;
    c.tr[1].common.n = 12;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 1", "6 rows", "power of two"),
                         "height 6");
    c.tr[1].common.h = 0;
    c.tr[1].common.n = 0;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 1", "power of two"), "height 0");
    c.tr[1].common.h = 4;
    c.tr[1].common.w = 4;
    c.tr[1].common.n = 16;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 1's common main", "width", "is 4", "but 2"),
                         "common width");
    c.tr[1].common.h = 8;
    c.tr[1].common.w = 2;
    /* sizes that would overflow or need more bytes than there are */
    c.tr[1].common.h = 0x80000000u;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("per_trace[1] (AIR 1).common_main"), "height 2^31");
    c.tr[1].common.h = 0xFFFFFFFFu;
    c.tr[1].common.w = 0xFFFFFFFFu;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("per_trace[1] (AIR 1).common_main"),
                         "height and width u32 max");
    c.tr[1].common.h = 8;
    c.tr[1].common.w = 0x40000000u; /* 8 * 2^30 * 4 bytes = 2^35 */
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("per_trace[1] (AIR 1).common_main"), "width 2^30");
    c.tr[1].common.w = 2;

    /* values >= p */
    uint32_t keep = c.tr[1].common.v[5];
    c.tr[1].common.v[5] = P_BB;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("AIR 1", "row 2, column 1", "2013265921"),
                         "value p in a trace");
    c.tr[1].common.v[5] = 0xFFFFFFFFu;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("AIR 1", "row 2, column 1"), "value u32 max");
    c.tr[1].common.v[5] = keep;

    /* trailing bytes */
    c.trailing = 4;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("4 bytes follow the last trace"), "4 trailing bytes");
    c.trailing = 1;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("1 bytes follow"), "1 trailing byte");
    c.trailing = 0;

    /* and back to the original: accepted */
    size_t n;
    uint8_t *b = ctx_serialise(&c, &n);
    glstark_context *ctx = NULL;
    char msg[1024];
    cr_assert_eq(glstark_context_from_bytes(b, n, vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_context_destroy(ctx);
    free(b);
    ctx_free(&c);
    glstark_verifying_key_destroy(vk);

    /* a public value >= p */
    vk = load_vk("fib-small_n4");
    load_parts("fib-small_n4", &c);
    cr_assert_eq(c.tr[0].npv, 3);
    c.tr[0].pv[2] = P_BB;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("AIR 0's public value 2", "2013265921"),
                         "public value p");
    c.tr[0].pv[2] = 0;
    c.tr[0].npv = 2;
    c.tr[0].npv_written = 2;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "public values", "is 2", "but 3"),
                         "2 public values for 3");
    ctx_free(&c);
    glstark_verifying_key_destroy(vk);
}

/* Preprocessed traces and cached mains: preprocessed-cached-small_c2 (one AIR:
 * preprocessed, 2 cached mains, a common main) and preprocessed-fib-small_n10. */
Test(context, preprocessed_and_cached_fields)
{
    glstark_verifying_key *vk = load_vk("preprocessed-cached-small_c2");
    ctxp c;
    load_parts("preprocessed-cached-small_c2", &c);
    cr_assert_eq(c.npre, 1);
    cr_assert_eq(c.ntr, 1);
    cr_assert_eq(c.tr[0].ncached, 2);
    const uint32_t h = c.tr[0].common.h;

    /* missing preprocessed trace */
    c.npre = 0;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "no preprocessed trace"),
                         "missing preprocessed");
    /* an extra (second) entry for the same AIR */
    c.npre = 2;
    c.pre_air[1] = 0;
    c.pre[1] = c.pre[0];
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("preprocessed trace 1", "AIR 0", "ascending"),
                         "repeated preprocessed");
    c.pre[1] = (mat){0};
    c.npre = 1;
    /* preprocessed trace height and width different from the key's */
    c.pre[0].h = h / 2;
    c.pre[0].n = (size_t)c.pre[0].h * c.pre[0].w;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0's preprocessed trace", "height"),
                         "preprocessed height");
    c.pre[0].h = h;
    c.pre[0].w += 1;
    c.pre[0].n = (size_t)c.pre[0].h * c.pre[0].w;
    uint32_t *wide = calloc(c.pre[0].n, sizeof *wide);
    uint32_t *keep_v = c.pre[0].v;
    c.pre[0].v = wide;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0's preprocessed trace", "width"),
                         "preprocessed width");
    c.pre[0].v = keep_v;
    free(wide);
    c.pre[0].w -= 1;
    c.pre[0].n = (size_t)h * c.pre[0].w;
    c.pre[0].h = 0xFFFFFFFFu; /* would overflow a 32-bit size: refused from the byte count */
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("preprocessed[0] (AIR 0)"), "preprocessed height huge");
    c.pre[0].h = h;
    /* a value >= p in the preprocessed trace */
    uint32_t keep = c.pre[0].v[3];
    c.pre[0].v[3] = P_BB + 7;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("preprocessed[0] (AIR 0)", "not a canonical"),
                         "preprocessed value");
    c.pre[0].v[3] = keep;

    /* cached mains: a width different from the key's, another height, a value >= p */
    mat *cm = &c.tr[0].cached[1];
    cm->w += 1;
    uint32_t *keep_cv = cm->v;
    cm->n = (size_t)cm->h * cm->w;
    cm->v = calloc(cm->n, sizeof *cm->v);
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0's cached main 1", "width"),
                         "cached width");
    free(cm->v);
    cm->v = keep_cv;
    cm->w -= 1;
    cm->h /= 2;
    cm->n = (size_t)cm->h * cm->w;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0's cached main 1", "rows"),
                         "heights within one AIR differ");
    cm->h *= 2;
    cm->n = (size_t)cm->h * cm->w;
    keep = cm->v[0];
    cm->v[0] = P_BB;
    expect_parts_refused(vk, &c, GLSTARK_ERR_MALFORMED, SUBS("cached_mains[1]", "row 0, column 0"),
                         "cached value");
    cm->v[0] = keep;
    c.tr[0].ncached = 3;
    c.tr[0].cached[2] = (mat){h, 1, h, NULL};
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "cached mains", "is 3", "but 2"),
                         "3 cached mains for 2");
    c.tr[0].cached[2] = (mat){0};
    c.tr[0].ncached = 0x7FFFFFFFu;
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "cached mains"), "cached count huge");
    c.tr[0].ncached = 2;

    /* the whole trace at half height: the preprocessed trace's height differs */
    c.tr[0].common.h = h / 2;
    c.tr[0].common.n = (size_t)c.tr[0].common.h * c.tr[0].common.w;
    for (int i = 0; i < 2; i++) {
        c.tr[0].cached[i].h = h / 2;
        c.tr[0].cached[i].n = (size_t)(h / 2) * c.tr[0].cached[i].w;
    }
    expect_parts_refused(vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 0", "preprocessed trace"),
                         "trace height differs from the preprocessed one");
    ctx_free(&c);
    glstark_verifying_key_destroy(vk);
}

/* A preprocessed trace whose values are not the committed ones: the proof
 * is refused, naming the AIR; no proof comes back. */
Test(context, changed_preprocessed_values_refused)
{
    glstark_verifying_key *vk = load_vk("preprocessed-fib-small_n10");
    ctxp c;
    load_parts("preprocessed-fib-small_n10", &c);
    cr_assert_eq(c.npre, 1);
    c.pre[0].v[17] = (c.pre[0].v[17] + 1) % P_BB;
    size_t n;
    uint8_t *b = ctx_serialise(&c, &n);
    for (int skip = 0; skip < 2; skip++) {
        char msg[2048] = "";
        glstark_prove_result r;
        glstark_status st = prove_bytes(vk, b, n, skip, &r, msg, sizeof msg);
        cr_assert_neq(st, GLSTARK_OK, "a changed preprocessed trace was proved (skip %d)", skip);
        cr_assert_null(r.proof);
        cr_assert(strstr(msg, "AIR 0"), "skip %d: the message does not name the AIR: %s", skip, msg);
        if (skip)
            cr_assert(strstr(msg, "preprocessed"), "the message does not say what differs: %s", msg);
    }
    free(b);
    ctx_free(&c);
    glstark_verifying_key_destroy(vk);
}

/* A common-main value changed: UNSATISFIED with the check on. */
Test(context, unsatisfied_trace_refused)
{
    glstark_verifying_key *vk = load_vk("fib-small_n4");
    ctxp c;
    load_parts("fib-small_n4", &c);
    c.tr[0].common.v[9] = (c.tr[0].common.v[9] + 1) % P_BB;
    size_t n;
    uint8_t *b = ctx_serialise(&c, &n);
    char msg[2048] = "";
    glstark_prove_result r;
    glstark_status st = prove_bytes(vk, b, n, 0, &r, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_ERR_UNSATISFIED, "status %d: %s", (int)st, msg);
    cr_assert_null(r.proof);
    cr_assert(strstr(msg, "AIR 0") || strstr(msg, "air 0"), "the message does not name the AIR: %s", msg);
    free(b);
    ctx_free(&c);
    glstark_verifying_key_destroy(vk);
}

/* ---- glstark's own AIRs and glstark_context_write ---- */

/* "counter": column 0 starts at public value 0 and grows by 1 per row. */
static glstark_air *counter_air(void)
{
    glstark_air *a = NULL;
    cr_assert_eq(glstark_air_create("counter", 1, 1, &a), GLSTARK_OK);
    glstark_expr x = glstark_air_main(a, 0, 0), xn = glstark_air_main(a, 0, 1);
    glstark_air_assert_zero(a, glstark_air_mul(a, glstark_air_is_first_row(a),
                                               glstark_air_sub(a, x, glstark_air_public_value(a, 0))));
    glstark_air_assert_zero(a, glstark_air_mul(a, glstark_air_is_transition(a),
                                               glstark_air_sub(a, xn, glstark_air_add(a, x, glstark_air_const(a, 1)))));
    cr_assert_eq(glstark_air_status(a), GLSTARK_OK, "%s", glstark_air_error_message(a));
    return a;
}

/* "bits": column 0 is a bit, column 1 its square plus 3. */
static glstark_air *bits_air(void)
{
    glstark_air *a = NULL;
    cr_assert_eq(glstark_air_create("bits", 2, 0, &a), GLSTARK_OK);
    glstark_expr b = glstark_air_main(a, 0, 0), s = glstark_air_main(a, 1, 0);
    glstark_air_assert_bool(a, b);
    glstark_air_assert_eq(a, s, glstark_air_add(a, glstark_air_mul(a, b, b), glstark_air_const(a, 3)));
    cr_assert_eq(glstark_air_status(a), GLSTARK_OK, "%s", glstark_air_error_message(a));
    return a;
}

static char *tmp_path(const char *tag)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ & 7];
    snprintf(p, 256, "/tmp/glstark_test_context_%ld_%s.ctx.bin", (long)getpid(), tag);
    return p;
}

/* Writes the context, opens it against vk, proves it; returns the status. */
static glstark_status write_open_prove(const glstark_proving_key *pk, const glstark_verifying_key *vk,
                                       const glstark_air_trace *t, size_t nt, int skip, glstark_prove_result *r,
                                       char *msg, size_t msg_size)
{
    const char *path = tmp_path("w");
    glstark_status st = glstark_context_write(path, pk, t, nt, msg, msg_size);
    if (st)
        return st;
    glstark_context *ctx = NULL;
    st = glstark_context_open(path, vk, &ctx, msg, msg_size);
    unlink(path);
    if (st)
        return st;
    glstark_proving_key *pk2 = NULL;
    if ((st = glstark_proving_key_from_context(vk, ctx, &pk2, msg, msg_size))) {
        glstark_context_destroy(ctx);
        return st;
    }
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.skip_constraint_check = skip;
    st = glstark_prove_context(pk2, ctx, &o, r);
    if (st)
        snprintf(msg, msg_size, "%s", r->message);
    glstark_proving_key_destroy(pk2);
    glstark_context_destroy(ctx);
    return st;
}

static void assert_same_proof(const glstark_prove_result *want, const glstark_prove_result *got, const char *what)
{
    cr_assert(want->proof_len == got->proof_len && memcmp(want->proof, got->proof, got->proof_len) == 0,
              "%s: the context's proof (%zu bytes) differs from glstark_prove's (%zu bytes)", what, got->proof_len,
              want->proof_len);
}

Test(context, writer_round_trip_fibonacci)
{
    glstark_air *air;
    glstark_params *p;
    glstark_proving_key *pk;
    glstark_verifying_key *vk;
    char msg[2048];
    cr_assert_eq(glstark_fibonacci_air(&air), GLSTARK_OK);
    cr_assert_eq(glstark_params_test_small(&p), GLSTARK_OK);
    cr_assert_eq(glstark_keygen(&air, 1, p, &pk, &vk, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    const size_t h = 64;
    uint32_t *tr = malloc(2 * h * sizeof *tr), pv[3];
    cr_assert_eq(glstark_fibonacci_trace(2, 7, h, tr, pv), GLSTARK_OK);
    glstark_air_trace t = {h, {tr, 2}, NULL, pv, 3};
    glstark_prove_result want, got;
    cr_assert_eq(glstark_prove(pk, &t, 1, NULL, &want), GLSTARK_OK, "%s", want.message);
    for (int skip = 0; skip < 2; skip++) {
        cr_assert_eq(write_open_prove(pk, vk, &t, 1, skip, &got, msg, sizeof msg), GLSTARK_OK, "%s", msg);
        assert_same_proof(&want, &got, "fibonacci");
        cr_assert_eq(glstark_verify(vk, got.proof, got.proof_len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
        glstark_prove_result_free(&got);
    }
    glstark_prove_result_free(&want);
    free(tr);
    glstark_verifying_key_destroy(vk);
    glstark_proving_key_destroy(pk);
    glstark_params_destroy(p);
    glstark_air_destroy(air);
}

typedef struct two_airs {
    glstark_air *airs[2];
    glstark_params *p;
    glstark_proving_key *pk;
    glstark_verifying_key *vk;
    uint32_t counter[16], bits[2 * 32], pv[1];
    glstark_air_trace t[2];
} two_airs;

static void make_two(two_airs *k, int bits_required)
{
    memset(k, 0, sizeof *k);
    char msg[1024];
    k->airs[0] = counter_air();
    k->airs[1] = bits_air();
    if (bits_required)
        cr_assert_eq(glstark_air_set_required(k->airs[1], 1), GLSTARK_OK);
    cr_assert_eq(glstark_params_test_small(&k->p), GLSTARK_OK);
    cr_assert_eq(glstark_keygen(k->airs, 2, k->p, &k->pk, &k->vk, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    k->pv[0] = 100;
    for (uint32_t i = 0; i < 16; i++)
        k->counter[i] = 100 + i;
    for (uint32_t i = 0; i < 32; i++) {
        k->bits[i] = (i * 7 + 1) % 3 == 0;
        k->bits[32 + i] = k->bits[i] + 3;
    }
    k->t[0] = (glstark_air_trace){16, {k->counter, 1}, NULL, k->pv, 1};
    k->t[1] = (glstark_air_trace){32, {k->bits, 2}, NULL, NULL, 0};
}

static void free_two(two_airs *k)
{
    glstark_verifying_key_destroy(k->vk);
    glstark_proving_key_destroy(k->pk);
    glstark_params_destroy(k->p);
    glstark_air_destroy(k->airs[0]);
    glstark_air_destroy(k->airs[1]);
}

/* Both AIRs present, then each absent in turn (height 0): the context's
 * proof is glstark_prove's and verifies. */
Test(context, own_airs_absent)
{
    two_airs k;
    make_two(&k, 0);
    char msg[2048];
    for (int absent = -1; absent < 2; absent++) {
        glstark_air_trace t[2] = {k.t[0], k.t[1]};
        if (absent >= 0) {
            t[absent].height = 0;
            t[absent].num_public_values = 0; /* an absent AIR has none */
        }
        glstark_prove_result want, got;
        cr_assert_eq(glstark_prove(k.pk, t, 2, NULL, &want), GLSTARK_OK, "absent %d: %s", absent, want.message);
        cr_assert_eq(write_open_prove(k.pk, k.vk, t, 2, absent & 1, &got, msg, sizeof msg), GLSTARK_OK,
                     "absent %d: %s", absent, msg);
        assert_same_proof(&want, &got, absent < 0 ? "both present" : "one absent");
        cr_assert_eq(glstark_verify(k.vk, got.proof, got.proof_len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
        glstark_prove_result_free(&want);
        glstark_prove_result_free(&got);
    }
    /* the context for AIR 0 alone has one trace, and says AIR 1 is absent */
    glstark_air_trace t[2] = {k.t[0], k.t[1]};
    t[1].height = 0;
    const char *path = tmp_path("absent");
    cr_assert_eq(glstark_context_write(path, k.pk, t, 2, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_context *ctx = NULL;
    cr_assert_eq(glstark_context_open(path, k.vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    unlink(path);
    cr_assert_eq(glstark_context_num_traces(ctx), 1);
    cr_assert_eq(glstark_context_trace_height(ctx, 0), 16);
    cr_assert_eq(glstark_context_trace_height(ctx, 1), 0);
    glstark_context_destroy(ctx);
    free_two(&k);
}

/* A required AIR left out: the writer refuses, and so does the reader for a
 * hand-made context without it; with it, the proof is glstark_prove's. */
Test(context, own_airs_required)
{
    two_airs k;
    make_two(&k, 1);
    char msg[2048] = "";
    glstark_air_trace t[2] = {k.t[0], k.t[1]};
    t[1].height = 0;
    const char *path = tmp_path("req");
    glstark_status st = glstark_context_write(path, k.pk, t, 2, msg, sizeof msg);
    cr_assert_neq(st, GLSTARK_OK, "a context without a required AIR was written");
    cr_assert(strstr(msg, "AIR 1"), "the writer's message does not name the AIR: %s", msg);
    cr_assert(strstr(msg, "required"), "the writer's message does not say it is required: %s", msg);
    unlink(path);

    /* by hand: the counter's trace only */
    ctxp c;
    memset(&c, 0, sizeof c);
    memcpy(c.magic, GLSTARK_CONTEXT_MAGIC, 8);
    c.version = 1;
    c.num_airs = 2;
    c.ntr = 1;
    c.tr[0].air = 0;
    c.tr[0].npv = 1;
    c.tr[0].npv_written = 1;
    c.tr[0].pv = malloc(sizeof(uint32_t));
    c.tr[0].pv[0] = 100;
    c.tr[0].common_present = 1;
    c.tr[0].common = (mat){16, 1, 16, malloc(16 * sizeof(uint32_t))};
    memcpy(c.tr[0].common.v, k.counter, sizeof k.counter);
    expect_parts_refused(k.vk, &c, GLSTARK_ERR_INVALID_ARGUMENT, SUBS("AIR 1", "required"), "required AIR absent");

    /* the same hand-made context against the key without the requirement: accepted */
    two_airs opt;
    make_two(&opt, 0);
    size_t n;
    uint8_t *b = ctx_serialise(&c, &n);
    glstark_context *ctx = NULL;
    cr_assert_eq(glstark_context_from_bytes(b, n, opt.vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_context_destroy(ctx);
    free(b);
    free_two(&opt);
    ctx_free(&c);

    /* both present: the proof is glstark_prove's */
    glstark_prove_result want, got;
    cr_assert_eq(glstark_prove(k.pk, k.t, 2, NULL, &want), GLSTARK_OK, "%s", want.message);
    cr_assert_eq(write_open_prove(k.pk, k.vk, k.t, 2, 0, &got, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    assert_same_proof(&want, &got, "required AIR present");
    cr_assert_eq(glstark_verify(k.vk, got.proof, got.proof_len, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_prove_result_free(&want);
    glstark_prove_result_free(&got);
    free_two(&k);
}

/* ---- argument checks ---- */

static int count_calls;
static int rows_cb(void *user, size_t air, size_t row_begin, size_t num_rows, uint32_t *dst)
{
    (void)user, (void)air, (void)row_begin, (void)num_rows, (void)dst;
    count_calls++;
    return 0;
}
static void released_cb(void *user) { (void)user, count_calls++; }

Test(context, argument_checks)
{
    char msg[1024];
    glstark_verifying_key *vk = load_vk("interactions-small");
    size_t n;
    uint8_t *b = read_data("interactions-small", "ctx.bin", &n);
    glstark_context *ctx = NULL;
    glstark_proving_key *pk = NULL;

    /* NULLs */
    cr_assert_eq(glstark_context_from_bytes(NULL, n, vk, &ctx, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_null(ctx);
    cr_assert_eq(glstark_context_from_bytes(b, n, NULL, &ctx, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_context_from_bytes(b, n, vk, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_context_from_bytes(b, n, vk, &ctx, NULL, 0), GLSTARK_OK); /* msg may be NULL */
    glstark_context_destroy(ctx);
    ctx = NULL;
    cr_assert_eq(glstark_context_open(NULL, vk, &ctx, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    char path[1024];
    snprintf(path, sizeof path, "%s/openvm-ctx/interactions-small.ctx.bin", GLSTARK_TEST_DATA);
    cr_assert_eq(glstark_context_open(path, NULL, &ctx, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_context_open(path, vk, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_context_open("/nonexistent/x.ctx.bin", vk, &ctx, msg, sizeof msg), GLSTARK_ERR_IO);
    cr_assert_null(ctx);
    cr_assert(msg[0]);
    /* a file whose bytes are another statement's context */
    snprintf(path, sizeof path, "%s/openvm-ctx/fib-small_n4.ctx.bin", GLSTARK_TEST_DATA);
    cr_assert_neq(glstark_context_open(path, vk, &ctx, msg, sizeof msg), GLSTARK_OK);
    cr_assert_null(ctx);
    glstark_context_destroy(NULL);

    cr_assert_eq(glstark_context_from_bytes(b, n, vk, &ctx, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_proving_key_from_context(NULL, ctx, &pk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_proving_key_from_context(vk, NULL, &pk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_proving_key_from_context(vk, ctx, NULL, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_proving_key_from_context(vk, ctx, &pk, msg, sizeof msg), GLSTARK_OK, "%s", msg);

    glstark_prove_result r;
    cr_assert_eq(glstark_prove_context(NULL, ctx, NULL, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(glstark_prove_context(pk, NULL, NULL, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(r.message[0]);
    cr_assert_eq(glstark_prove_context(pk, ctx, NULL, NULL), GLSTARK_ERR_INVALID_ARGUMENT);

    /* trace_rows and traces_released are the library's own here */
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.trace_rows = rows_cb;
    count_calls = 0;
    cr_assert_eq(glstark_prove_context(pk, ctx, &o, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(r.message, "trace_rows"), "%s", r.message);
    cr_assert_null(r.proof);
    glstark_prove_options_init(&o);
    o.traces_released = released_cb;
    cr_assert_eq(glstark_prove_context(pk, ctx, &o, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(r.message, "traces_released"), "%s", r.message);
    cr_assert_eq(count_calls, 0);
    /* NULL options: the defaults, OpenVM's bytes */
    cr_assert_eq(glstark_prove_context(pk, ctx, NULL, &r), GLSTARK_OK, "%s", r.message);
    assert_openvm_proof("interactions-small", &r);
    glstark_prove_result_free(&r);

    /* a proving key with another AIR count (fib-small: 1 AIR) */
    glstark_verifying_key *vk1 = load_vk("fib-small_n4");
    size_t n1;
    uint8_t *b1 = read_data("fib-small_n4", "ctx.bin", &n1);
    glstark_context *ctx1 = NULL;
    glstark_proving_key *pk1 = NULL;
    cr_assert_eq(glstark_context_from_bytes(b1, n1, vk1, &ctx1, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_proving_key_from_context(vk1, ctx1, &pk1, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_prove_context(pk1, ctx, NULL, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(r.message[0]);
    cr_assert_null(r.proof);
    cr_assert_eq(glstark_prove_context(pk, ctx1, NULL, &r), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert(r.message[0]);
    glstark_proving_key_destroy(pk1);
    /* a context opened against one key, a proving key made from a key of another AIR count */
    cr_assert_eq(glstark_proving_key_from_context(vk1, ctx, &pk1, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_null(pk1);
    cr_assert(strstr(msg, "AIRs"), "%s", msg);
    glstark_context_destroy(ctx1);
    glstark_free(b1);
    glstark_verifying_key_destroy(vk1);

    glstark_proving_key_destroy(pk);
    glstark_context_destroy(ctx);
    glstark_free(b);
    glstark_verifying_key_destroy(vk);
}

/* The same AIR count but other shapes: cached-small's proving key (a cached
 * main per AIR) with interactions-small's context (none). Refused, not read
 * out of bounds. */
Test(context, proving_key_of_another_key_same_air_count)
{
    char msg[1024];
    glstark_verifying_key *vk_i = load_vk("interactions-small"), *vk_c = load_vk("cached-small");
    size_t ni, nc;
    uint8_t *bi = read_data("interactions-small", "ctx.bin", &ni), *bc = read_data("cached-small", "ctx.bin", &nc);
    glstark_context *ci = NULL, *cc = NULL;
    glstark_proving_key *pk_i = NULL, *pk_c = NULL;
    cr_assert_eq(glstark_context_from_bytes(bi, ni, vk_i, &ci, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_context_from_bytes(bc, nc, vk_c, &cc, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_proving_key_from_context(vk_i, ci, &pk_i, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    cr_assert_eq(glstark_proving_key_from_context(vk_c, cc, &pk_c, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    for (int skip = 0; skip < 2; skip++) {
        o.skip_constraint_check = skip;
        glstark_prove_result r;
        glstark_status st = glstark_prove_context(pk_c, ci, &o, &r);
        cr_assert_neq(st, GLSTARK_OK, "cached-small's key proved interactions-small's context");
        cr_assert(r.message[0]);
        cr_assert_null(r.proof);
        st = glstark_prove_context(pk_i, cc, &o, &r);
        cr_assert_neq(st, GLSTARK_OK, "interactions-small's key proved cached-small's context");
        cr_assert(r.message[0]);
        cr_assert_null(r.proof);
    }
    glstark_proving_key_destroy(pk_i);
    glstark_proving_key_destroy(pk_c);
    glstark_context_destroy(ci);
    glstark_context_destroy(cc);
    glstark_free(bi);
    glstark_free(bc);
    glstark_verifying_key_destroy(vk_i);
    glstark_verifying_key_destroy(vk_c);
}

/* A fuzzer-found key (tests/data/fuzz/<file>) and interactions-small's
 * context opened against it; both must open. */
typedef struct fuzz_key_ctx {
    glstark_verifying_key *vk;
    glstark_context *ctx;
} fuzz_key_ctx;

static fuzz_key_ctx fuzz_key_open(const char *file)
{
    char path[1024], msg[1024];
    snprintf(path, sizeof path, "%s/fuzz/%s", GLSTARK_TEST_DATA, file);
    uint8_t *kb = NULL;
    size_t kn = 0;
    cr_assert_eq(glstark_read_file(path, &kb, &kn, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    fuzz_key_ctx f = {NULL, NULL};
    cr_assert_eq(glstark_verifying_key_decode(kb, kn, &f.vk, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_free(kb);
    size_t n;
    uint8_t *b = read_data("interactions-small", "ctx.bin", &n);
    cr_assert_eq(glstark_context_from_bytes(b, n, f.vk, &f.ctx, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_free(b);
    return f;
}

static void fuzz_key_close(fuzz_key_ctx *f)
{
    glstark_context_destroy(f->ctx);
    glstark_verifying_key_destroy(f->vk);
}

/* A key whose constraint DAG reads a main column its AIR does not have
 * (found by fuzz/fuzz_ctx_key: the prover read past its row buffer): the
 * proving key is refused, naming the AIR. */
Test(context, key_dag_column_out_of_range_refused)
{
    char msg[1024];
    fuzz_key_ctx f = fuzz_key_open("ctx-key-column-out-of-range.prevk.bin");
    glstark_proving_key *pk = NULL;
    cr_assert_eq(glstark_proving_key_from_context(f.vk, f.ctx, &pk, msg, sizeof msg), GLSTARK_ERR_INVALID_ARGUMENT,
                 "%s", msg);
    cr_assert_null(pk);
    cr_assert(strstr(msg, "AIR ") && strstr(msg, "does not have"), "%s", msg);
    fuzz_key_close(&f);
}

/* A key whose WHIR round 0 opens no queries while later rounds do (found by
 * fuzz/fuzz_ctx_key: the CPU engine made a proof its own decoder refused,
 * because OpenVM's encoding then writes the later rounds' Merkle depth as 0).
 * The prover refuses the parameters before proving, and says which round. */
Test(context, key_whir_round0_without_queries_refused_by_the_prover)
{
    char msg[1024];
    fuzz_key_ctx f = fuzz_key_open("ctx-key-whir-round0-no-queries.prevk.bin");
    glstark_proving_key *pk = NULL;
    cr_assert_eq(glstark_proving_key_from_context(f.vk, f.ctx, &pk, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.cpu_threads = 1;
    o.skip_constraint_check = 1;
    glstark_prove_result r;
    cr_assert_eq(glstark_prove_context(pk, f.ctx, &o, &r), GLSTARK_ERR_UNSUPPORTED, "%s", r.message);
    cr_assert_null(r.proof);
    cr_assert(strstr(r.message, "round 0 opens no queries") && strstr(r.message, "round 1 opens 11"), "%s",
              r.message);
    glstark_proving_key_destroy(pk);
    fuzz_key_close(&f);
}
