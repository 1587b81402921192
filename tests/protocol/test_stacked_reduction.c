/* Stacked opening reduction against OpenVM.
 *
 * tests/data/openvm/<spec>.sred.txt holds, extracted from OpenVM's recorded
 * challenges (tools/extract_sred_vectors.py): the batch point r, λ', the
 * point u, the sorted traces and the stacked layout, and (for the small
 * proofs) the trace values. With a scripted Fiat–Shamir channel that hands
 * out OpenVM's challenges and checks every observed value against the
 * proof's, the prover must reproduce OpenVM's StackingProof exactly and the
 * verifier must accept it (and reject tampered ones). A random instance with
 * strided (h < l_skip) traces and several commits checks prover/verifier
 * consistency where no OpenVM vector has challenges. */
#include <criterion/criterion.h>

#include "engine/cpu/cpu_engine.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/read_later.h"
#include "common/poly.h"
#include "common/proof.h"
#include "common/stacked_reduction.h"
#include "verify/stacked_reduction_verify.h"
#include "prove/stacked_reduction.h"
#include "common/stacking.h"
#include "glstark/airs.h"
#include "../util/test_files.h"
#include "proof_reader.h"
#include "../util/splitmix.h"

#define MAXC 4096 /* columns per trace in the vector files */

/* ---- vector file ---- */

typedef struct sred_vec {
    uint32_t l_skip, n_stack;
    uint32_t r_len;
    bb4_t r[64];
    bb4_t lambda;
    bb4_t u[64];
    uint32_t ntraces;
    uint32_t t_logh[64], t_width[64], t_rot[64];
    uint32_t nslices;
    uint32_t *s_commit, *s_trace, *s_tcol, *s_col, *s_row, *s_logh;
    uint32_t ncols;       /* trace columns with values (0: none) */
    uint32_t **col_vals;  /* [trace * MAXC + col] */
} sred_vec;

static bb4_t rd_ef(char **p)
{
    uint32_t c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (uint32_t)strtoul(*p, p, 10);
    return bb4_from_canonical(c);
}

static uint32_t rd_u(char **p) { return (uint32_t)strtoul(*p, p, 10); }

static void expect_word(char **p, const char *w)
{
    while (**p == ' ' || **p == '\n')
        (*p)++;
    size_t n = strlen(w);
    cr_assert(strncmp(*p, w, n) == 0, "vector file: expected '%s' at '%.20s'", w, *p);
    *p += n;
}

static void load_vec(const char *spec, sred_vec *v)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/openvm/%s.sred.txt", GLSTARK_TEST_DATA, spec);
    size_t len;
    char *text = (char *)tf_read_path(path, &len), *p = text;
    memset(v, 0, sizeof *v);
    expect_word(&p, "l_skip");
    v->l_skip = rd_u(&p);
    expect_word(&p, "n_stack");
    v->n_stack = rd_u(&p);
    expect_word(&p, "r");
    v->r_len = rd_u(&p);
    cr_assert(v->r_len <= 64);
    for (uint32_t i = 0; i < v->r_len; i++)
        v->r[i] = rd_ef(&p);
    expect_word(&p, "lambda");
    v->lambda = rd_ef(&p);
    expect_word(&p, "u");
    uint32_t nu = rd_u(&p);
    cr_assert(nu == v->n_stack + 1);
    for (uint32_t i = 0; i < nu; i++)
        v->u[i] = rd_ef(&p);
    expect_word(&p, "traces");
    v->ntraces = rd_u(&p);
    for (uint32_t t = 0; t < v->ntraces; t++) {
        v->t_logh[t] = rd_u(&p);
        v->t_width[t] = rd_u(&p);
        v->t_rot[t] = rd_u(&p);
        (void)rd_u(&p); /* air id */
    }
    expect_word(&p, "slices");
    v->nslices = rd_u(&p);
    uint32_t **arrs[6] = {&v->s_commit, &v->s_trace, &v->s_tcol, &v->s_col, &v->s_row, &v->s_logh};
    for (int a = 0; a < 6; a++)
        *arrs[a] = calloc(v->nslices, sizeof(uint32_t));
    for (uint32_t k = 0; k < v->nslices; k++)
        for (int a = 0; a < 6; a++)
            (*arrs[a])[k] = rd_u(&p);
    while (*p == ' ' || *p == '\n')
        p++;
    if (strncmp(p, "trace_cols", 10) == 0) {
        p += 10;
        v->ncols = rd_u(&p);
        v->col_vals = calloc(64 * MAXC, sizeof(uint32_t *));
        for (uint32_t i = 0; i < v->ncols; i++) {
            uint32_t t = rd_u(&p), c = rd_u(&p), h = rd_u(&p);
            uint32_t *vals = malloc(h * sizeof(uint32_t));
            for (uint32_t j = 0; j < h; j++)
                vals[j] = rd_u(&p);
            v->col_vals[t * MAXC + c] = vals;
        }
    }
    free(text);
}

static void free_vec(sred_vec *v)
{
    free(v->s_commit);
    free(v->s_trace);
    free(v->s_tcol);
    free(v->s_col);
    free(v->s_row);
    free(v->s_logh);
    if (v->col_vals) {
        for (int i = 0; i < 64 * MAXC; i++)
            free(v->col_vals[i]);
        free(v->col_vals);
    }
}

/* ---- scripted channel: hands out recorded challenges, checks observes ---- */

typedef struct script {
    const bb4_t *samples;
    size_t nsamples, si;
    const bb4_t *expect; /* NULL: do not check observes */
    size_t nexpect, oi;
    int mismatch_at;     /* first mismatching observe, -1 none */
} script;

static void sc_observe(void *ctx, bb_t v)
{
    script *s = ctx;
    if (s->expect) {
        size_t e = s->oi / 4;
        if (e >= s->nexpect || s->expect[e].c[s->oi % 4] != v)
            if (s->mismatch_at < 0)
                s->mismatch_at = (int)e;
    }
    s->oi++;
}

static bb_t sc_sample(void *ctx)
{
    script *s = ctx;
    cr_assert(s->si / 4 < s->nsamples, "more samples than recorded challenges");
    bb_t v = s->samples[s->si / 4].c[s->si % 4];
    s->si++;
    return v;
}

/* The proof's stacking messages in observe order. */
static bb4_t *stacking_observes(const gs_stacking_proof *sp, size_t *n)
{
    size_t cnt = sp->univariate_round_coeffs.len + 2 * (size_t)sp->num_rounds;
    for (uint32_t c = 0; c < sp->num_commits; c++)
        cnt += sp->stacking_openings[c].len;
    bb4_t *o = malloc(cnt * sizeof *o), *q = o;
    for (uint32_t i = 0; i < sp->univariate_round_coeffs.len; i++)
        *q++ = sp->univariate_round_coeffs.v[i];
    for (size_t i = 0; i < 2 * (size_t)sp->num_rounds; i++)
        *q++ = sp->sumcheck_round_polys[i];
    for (uint32_t c = 0; c < sp->num_commits; c++)
        for (uint32_t i = 0; i < sp->stacking_openings[c].len; i++)
            *q++ = sp->stacking_openings[c].v[i];
    *n = cnt;
    return o;
}

/* commit layout from the vector (all slices of these proofs are commit 0,
 * but the code groups by commit anyway) */
typedef struct layout {
    uint32_t ncommits;
    gs_sred_commit commits[8];
    gs_red_slice *slices[8];
    uint8_t *need_rot[8];
    gs_buf *mats[8];
} layout;

static void build_layout(const sred_vec *v, layout *L)
{
    memset(L, 0, sizeof *L);
    for (uint32_t k = 0; k < v->nslices; k++)
        if (v->s_commit[k] + 1 > L->ncommits)
            L->ncommits = v->s_commit[k] + 1;
    for (uint32_t c = 0; c < L->ncommits; c++) {
        L->slices[c] = calloc(v->nslices, sizeof(gs_red_slice));
        L->need_rot[c] = calloc(v->nslices, 1);
        uint32_t n = 0, width = 0;
        for (uint32_t k = 0; k < v->nslices; k++) {
            if (v->s_commit[k] != c)
                continue;
            L->slices[c][n] = (gs_red_slice){v->s_col[k], v->s_row[k], v->s_logh[k]};
            L->need_rot[c][n] = (uint8_t)v->t_rot[v->s_trace[k]];
            if (v->s_col[k] + 1 > width)
                width = v->s_col[k] + 1;
            n++;
        }
        L->commits[c] = (gs_sred_commit){width, n, L->slices[c], L->need_rot[c]};
    }
}

/* Stacked matrices from the trace values (strided when h < l_skip). */
static void build_matrices(gs_engine *eng, const sred_vec *v, layout *L)
{
    size_t height = (size_t)1 << (v->l_skip + v->n_stack);
    for (uint32_t c = 0; c < L->ncommits; c++) {
        size_t n = L->commits[c].width * height;
        bb_t *m = calloc(n ? n : 1, sizeof(bb_t));
        for (uint32_t k = 0; k < v->nslices; k++) {
            if (v->s_commit[k] != c)
                continue;
            const uint32_t *vals = v->col_vals[v->s_trace[k] * MAXC + v->s_tcol[k]];
            cr_assert(vals, "no values for trace %u column %u", v->s_trace[k], v->s_tcol[k]);
            uint32_t h = v->s_logh[k];
            size_t stride = h < v->l_skip ? (size_t)1 << (v->l_skip - h) : 1;
            for (size_t i = 0; i < ((size_t)1 << h); i++)
                m[v->s_col[k] * height + v->s_row[k] + i * stride] = bb_from_canonical(vals[i]);
        }
        cr_assert_eq(gs_buf_create(eng, n * sizeof(bb_t), &L->mats[c]), GLSTARK_OK);
        cr_assert_eq(gs_buf_write(L->mats[c], 0, m, n * sizeof(bb_t)), GLSTARK_OK);
        free(m);
    }
}

static void free_layout(layout *L)
{
    for (uint32_t c = 0; c < L->ncommits; c++) {
        free(L->slices[c]);
        free(L->need_rot[c]);
        if (L->mats[c])
            gs_buf_destroy(L->mats[c]);
    }
}

/* Claims [t, t_rot] per slice from the proof's column openings (common main
 * parts only: these proofs have no preprocessed or cached parts). */
static bb4_t *claims_from_proof(const sred_vec *v, const gs_proof *p)
{
    bb4_t *cl = calloc(2 * (size_t)v->nslices, sizeof(bb4_t));
    for (uint32_t k = 0; k < v->nslices; k++) {
        uint32_t t = v->s_trace[k], j = v->s_tcol[k];
        const gs_ef_vec *part = &p->batch.column_openings[t].parts[0];
        if (v->t_rot[t]) {
            cl[2 * k] = part->v[2 * j];
            cl[2 * k + 1] = part->v[2 * j + 1];
        } else {
            cl[2 * k] = part->v[j];
        }
    }
    return cl;
}

static void samples_of(const sred_vec *v, bb4_t *s)
{
    s[0] = v->lambda;
    for (uint32_t i = 0; i <= v->n_stack; i++)
        s[1 + i] = v->u[i];
}

/* Keccak: the trace comes from the air module's generator on OpenVM's
 * recorded StdRng(42) inputs (tests/data/keccak_inputs_seed42_n16.txt). */
static void fill_keccak_trace(sred_vec *v)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/keccak_inputs_seed42_n16.txt", GLSTARK_TEST_DATA);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    uint64_t in[16][25];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 25; j++)
            cr_assert(fscanf(f, "%lu", (unsigned long *)&in[i][j]) == 1);
    fclose(f);
    size_t H = glstark_keccak_trace_height(16);
    cr_assert_eq(H, (size_t)1 << v->t_logh[0]);
    uint32_t *tr = malloc(GLSTARK_KECCAK_WIDTH * H * sizeof(uint32_t));
    cr_assert_eq(glstark_keccak_trace((const uint64_t(*)[25])in, 16, tr), GLSTARK_OK);
    v->col_vals = calloc(64 * MAXC, sizeof(uint32_t *));
    for (size_t c = 0; c < GLSTARK_KECCAK_WIDTH; c++) {
        v->col_vals[c] = malloc(H * sizeof(uint32_t));
        memcpy(v->col_vals[c], tr + c * H, H * sizeof(uint32_t));
    }
    v->ncols = GLSTARK_KECCAK_WIDTH;
    free(tr);
}

static void prover_matches(const char *spec)
{
    sred_vec v;
    load_vec(spec, &v);
    if (!v.ncols && strncmp(spec, "keccak", 6) == 0)
        fill_keccak_trace(&v);
    gs_proof proof;
    load_proof(spec, &proof);
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK);
    layout L;
    build_layout(&v, &L);
    build_matrices(eng, &v, &L);

    /* in plain C and every vector set the CPU runs (fold_ple, block sums),
     * with the lean first round where the shape allows it (the CPU engine
     * has no plentiful memory) and without it: the same proof */
    for (int plentiful = 0; plentiful < 2; plentiful++)
    for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++) {
    if (!gs_simd_available(isa))
        continue;
    ((gs_cpu_state *)eng->impl)->kernels = gs_cpu_kernels_of(isa);
    eng->plentiful_memory = plentiful;
    bb4_t samples[70];
    samples_of(&v, samples);
    size_t nexp;
    bb4_t *exp = stacking_observes(&proof.stacking, &nexp);
    script sc = {samples, v.n_stack + 2, 0, exp, nexp, 0, -1};
    gs_fs fs = {&sc, sc_observe, sc_sample, NULL};
    gs_stacking_proof sp;
    bb4_t u[64];
    glstark_status st = gs_sred_prove(eng, &fs, (gs_sred_params){v.l_skip, v.n_stack}, L.commits,
                                      (const gs_buf *const *)L.mats, L.ncommits, v.r, v.r_len, NULL, &sp, u, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: %s", spec, err.msg);
    cr_assert_eq(sc.mismatch_at, -1, "%s (%s, plentiful memory %d): observed value %d differs from OpenVM's proof (%zu coefficients, then "
                                     "2 per round, then openings)",
                 spec, gs_simd_name(isa), plentiful, sc.mismatch_at, (size_t)proof.stacking.univariate_round_coeffs.len);
    cr_assert_eq(sc.oi, 4 * nexp, "%s: %zu observes, OpenVM %zu", spec, sc.oi / 4, nexp);
    cr_assert_eq(sc.si, 4 * (v.n_stack + 2));
    for (uint32_t i = 0; i <= v.n_stack; i++)
        cr_assert(bb4_eq(u[i], v.u[i]));
    gs_stacking_proof_free(&sp);
    free(exp);
    }
    free_layout(&L);
    gs_engine_destroy(eng);
    gs_proof_free(&proof);
    free_vec(&v);
}

Test(stacked_reduction, prover_matches_openvm_fib_small_n4) { prover_matches("fib-small_n4"); }
Test(stacked_reduction, prover_matches_openvm_fib_small_n10) { prover_matches("fib-small_n10"); }
Test(stacked_reduction, prover_matches_openvm_interactions_small) { prover_matches("interactions-small"); }
Test(stacked_reduction, prover_matches_openvm_fib_app18_n10) { prover_matches("fib-app18_n10"); }
Test(stacked_reduction, prover_matches_openvm_keccak_app21_p16) { prover_matches("keccak-app21_p16"); }

static glstark_status run_verifier(const sred_vec *v, const layout *L, const gs_stacking_proof *sp,
                                   const bb4_t *claims, bb4_t *u, gs_error *err)
{
    bb4_t samples[70];
    samples_of(v, samples);
    script sc = {samples, v->n_stack + 2, 0, NULL, 0, 0, -1};
    gs_fs fs = {&sc, sc_observe, sc_sample, NULL};
    return gs_sred_verify(&fs, sp, (gs_sred_params){v->l_skip, v->n_stack}, L->commits, L->ncommits, claims, v->r,
                          v->r_len, u, err);
}

static void verifier_accepts(const char *spec)
{
    sred_vec v;
    load_vec(spec, &v);
    gs_proof proof;
    load_proof(spec, &proof);
    layout L;
    build_layout(&v, &L);
    bb4_t *claims = claims_from_proof(&v, &proof);
    gs_error err;
    bb4_t u[64];
    glstark_status st = run_verifier(&v, &L, &proof.stacking, claims, u, &err);
    cr_assert_eq(st, GLSTARK_OK, "%s: %s", spec, err.msg);
    for (uint32_t i = 0; i <= v.n_stack; i++)
        cr_assert(bb4_eq(u[i], v.u[i]));

    /* tampering: a claim, a round-0 coefficient, a round value, an opening */
    claims[0] = bb4_add(claims[0], bb4_one());
    st = run_verifier(&v, &L, &proof.stacking, claims, u, &err);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED);
    cr_assert(strstr(err.msg, "S0Mismatch"), "%s", err.msg);
    claims[0] = bb4_sub(claims[0], bb4_one());

    bb4_t *c1 = &proof.stacking.univariate_round_coeffs.v[1];
    *c1 = bb4_add(*c1, bb4_one());
    st = run_verifier(&v, &L, &proof.stacking, claims, u, &err);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED);
    cr_assert(strstr(err.msg, "FinalSumMismatch"), "%s", err.msg);
    *c1 = bb4_sub(*c1, bb4_one());

    bb4_t *rp = &proof.stacking.sumcheck_round_polys[1];
    *rp = bb4_add(*rp, bb4_one());
    st = run_verifier(&v, &L, &proof.stacking, claims, u, &err);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED);
    *rp = bb4_sub(*rp, bb4_one());

    bb4_t *op = &proof.stacking.stacking_openings[0].v[0];
    *op = bb4_add(*op, bb4_one());
    st = run_verifier(&v, &L, &proof.stacking, claims, u, &err);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED);
    cr_assert(strstr(err.msg, "FinalSumMismatch"), "%s", err.msg);
    *op = bb4_sub(*op, bb4_one());

    /* shape: one opening too few */
    proof.stacking.stacking_openings[0].len--;
    st = run_verifier(&v, &L, &proof.stacking, claims, u, &err);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED);
    proof.stacking.stacking_openings[0].len++;

    free(claims);
    free_layout(&L);
    gs_proof_free(&proof);
    free_vec(&v);
}

Test(stacked_reduction, verifier_accepts_openvm_fib_small_n4) { verifier_accepts("fib-small_n4"); }
Test(stacked_reduction, verifier_accepts_openvm_fib_small_n10) { verifier_accepts("fib-small_n10"); }
Test(stacked_reduction, verifier_accepts_openvm_interactions_small) { verifier_accepts("interactions-small"); }
Test(stacked_reduction, verifier_accepts_openvm_fib_app18_n10) { verifier_accepts("fib-app18_n10"); }
Test(stacked_reduction, verifier_accepts_openvm_keccak_app21_p16) { verifier_accepts("keccak-app21_p16"); }

/* ---- random instance: strided traces, several commits, mixed need_rot ---- */

static bb_t rnd_f(uint64_t *s) { return bb_from_canonical((uint32_t)(splitmix64(s) % BB_P)); }
static bb4_t rnd_ef(uint64_t *s)
{
    bb4_t r;
    for (int i = 0; i < 4; i++)
        r.c[i] = rnd_f(s);
    return r;
}

typedef struct rnd_channel {
    uint64_t seed;
    bb_t *log;
    size_t n;
} rnd_channel;
static void rc_observe(void *ctx, bb_t v)
{
    rnd_channel *c = ctx;
    c->log[c->n++] = v;
}
static bb_t rc_sample(void *ctx)
{
    rnd_channel *c = ctx;
    /* challenges depend on everything observed so far, like a transcript */
    uint64_t h = c->seed;
    for (size_t i = 0; i < c->n; i++)
        h = h * 31 + c->log[i];
    c->seed = h;
    return rnd_f(&c->seed);
}

/* T̂(r) or T̂^rot(r) by definition (docs/protocol.md, 'Stacked PCS'): lifted for h < l. */
static bb4_t opening_def(uint32_t l, uint32_t h, const bb_t *vals, int rot, const bb4_t *r)
{
    size_t H = (size_t)1 << h;
    int n = (int)h - (int)l;
    uint32_t LT = n >= 0 ? l : h;
    bb4_t rho0 = r[0];
    for (int i = 0; i < -n; i++)
        rho0 = bb4_square(rho0);
    bb_t wT = bb_two_adic_generator(LT);
    bb4_t acc = bb4_zero();
    for (size_t i = 0; i < H; i++) {
        bb_t v = vals[rot ? (i + 1) % H : i];
        bb4_t e = gs_eq_uni(LT, bb4_from_base(bb_pow(wT, i % ((size_t)1 << LT))), rho0);
        size_t x = i >> LT;
        for (int k = 0; k < (n > 0 ? n : 0); k++) {
            bb4_t rk = r[1 + k];
            e = bb4_mul(e, ((x >> k) & 1) ? rk : bb4_sub(bb4_one(), rk));
        }
        acc = bb4_add(acc, bb4_mul_base(e, v));
    }
    return acc;
}


static int stacking_proofs_equal(const gs_stacking_proof *a, const gs_stacking_proof *b)
{
    if (a->univariate_round_coeffs.len != b->univariate_round_coeffs.len || a->num_rounds != b->num_rounds ||
        a->num_commits != b->num_commits)
        return 0;
    for (uint32_t i = 0; i < a->univariate_round_coeffs.len; i++)
        if (!bb4_eq(a->univariate_round_coeffs.v[i], b->univariate_round_coeffs.v[i]))
            return 0;
    for (uint32_t i = 0; i < 2 * a->num_rounds; i++)
        if (!bb4_eq(a->sumcheck_round_polys[i], b->sumcheck_round_polys[i]))
            return 0;
    for (uint32_t c = 0; c < a->num_commits; c++)
        for (uint32_t i = 0; i < a->stacking_openings[c].len; i++)
            if (!bb4_eq(a->stacking_openings[c].v[i], b->stacking_openings[c].v[i]))
                return 0;
    return 1;
}

/* Round 0's block sums handed in (known_sums, as the prover hands it the
 * sums its column openings came from): the same proof as when the
 * reduction reads them itself (want); one sum changed changes round 0, so
 * the reduction used them instead of reading the matrices. */
static void known_sums_are_used(gs_engine *eng, gs_sred_params prm, const gs_sred_commit *commits,
                                const gs_buf *const *mats, const bb4_t *r, uint32_t r_len,
                                const gs_stacking_proof *want)
{
    const size_t N = (size_t)1 << prm.l_skip;
    bb4_t *sums[2];
    for (int c = 0; c < 2; c++) {
        uint32_t max_nt = 0;
        for (uint32_t k = 0; k < commits[c].num_slices; k++)
            if (commits[c].slices[k].log_height > prm.l_skip + max_nt)
                max_nt = commits[c].slices[k].log_height - prm.l_skip;
        bb4_t *eq = gs_eq_tables_nested(r + 1, max_nt);
        sums[c] = malloc(commits[c].num_slices * 2 * N * sizeof(bb4_t));
        cr_assert(eq && sums[c]);
        cr_assert_eq(eng->reduction->block_sums(eng, mats[c], 1u << (prm.l_skip + prm.n_stack), prm.l_skip,
                                                commits[c].slices, commits[c].num_slices, eq, max_nt, sums[c]),
                     GLSTARK_OK, "%s", eng->err.msg);
        cr_assert_eq(gs_engine_read_flush(eng), GLSTARK_OK, "%s", eng->err.msg);
        free(eq);
    }
    for (int tamper = 0; tamper < 2; tamper++) {
        if (tamper)
            sums[1][1] = bb4_add(sums[1][1], bb4_one());
        bb_t log[1024];
        rnd_channel ch = {42, log, 0};
        gs_fs fs = {&ch, rc_observe, rc_sample, NULL};
        gs_stacking_proof got;
        bb4_t u[32];
        gs_error err;
        const bb4_t *known[2] = {sums[0], sums[1]};
        cr_assert_eq(gs_sred_prove(eng, &fs, prm, commits, mats, 2, r, r_len, known, &got, u, &err), GLSTARK_OK, "%s",
                     err.msg);
        cr_assert_eq(stacking_proofs_equal(&got, want), !tamper, "%s",
                     tamper ? "a changed known sum left the proof as it was" : "known sums changed the proof");
        gs_stacking_proof_free(&got);
    }
    free(sums[0]), free(sums[1]);
}

/* The lean first round (gs_sred_prover.lean) on eng's memory setting: 1
 * where eng without plentiful memory takes it for this shape. */
static int takes_lean_round(gs_engine *eng, gs_sred_params prm, const gs_sred_commit *commits,
                            const gs_buf *const *mats, const bb4_t *r, uint32_t r_len)
{
    gs_sred_prover sp;
    gs_error err;
    cr_assert_eq(gs_sred_prover_init(&sp, eng, prm, commits, mats, 2, r, r_len, bb4_one(), &err), GLSTARK_OK, "%s",
                 err.msg);
    int lean = sp.lean;
    gs_sred_prover_free(&sp);
    return lean;
}

/* A random instance: three traces of heights 2^logh[t] (sorted descending;
 * the last shorter than 2^l, so strided) stacked into commit 0 (common
 * main), and a cached main of trace 1 as commit 1. The verifier accepts the
 * prover's proof on the claims computed by definition and refuses a wrong
 * one; the proof is the same with plentiful memory and without (the lean
 * first round where it applies: want_lean). */
static void random_instance(uint64_t seed, uint32_t l, uint32_t n_stack, const uint32_t logh[3], int want_lean)
{
    cr_log_info("random stacked reduction instance, seed 0x%llx, l_skip %u, n_stack %u", (unsigned long long)seed, l,
                n_stack);
    const size_t height = (size_t)1 << (l + n_stack);
    const uint32_t width0[3] = {2, 3, 2};
    const uint8_t rot[3] = {1, 0, 1};
    bb_t *cols[16];
    uint32_t ncols = 0;
    gs_red_slice sl0[16], sl1[4];
    uint8_t nr0[16], nr1[4];
    uint32_t ns0 = 0, row = 0, col = 0;
    bb_t *m0 = calloc(4 * height, sizeof(bb_t)), *m1 = calloc(height, sizeof(bb_t));
    uint32_t col_trace[16], col_h[16];
    for (uint32_t t = 0; t < 3; t++)
        for (uint32_t j = 0; j < width0[t]; j++) {
            size_t H = (size_t)1 << logh[t], slot = H > ((size_t)1 << l) ? H : ((size_t)1 << l);
            if (row + slot > height) {
                col++;
                row = 0;
            }
            bb_t *c = malloc(H * sizeof(bb_t));
            for (size_t i = 0; i < H; i++)
                c[i] = rnd_f(&seed);
            size_t stride = slot / H;
            for (size_t i = 0; i < H; i++)
                m0[col * height + row + i * stride] = c[i];
            sl0[ns0] = (gs_red_slice){col, row, logh[t]};
            nr0[ns0++] = rot[t];
            col_trace[ncols] = t;
            col_h[ncols] = logh[t];
            cols[ncols++] = c;
            row += (uint32_t)slot;
        }
    uint32_t w0 = col + 1;
    /* cached main of trace 1 (h = 2): two columns */
    uint32_t ns1 = 0;
    for (uint32_t j = 0; j < 2; j++) {
        bb_t *c = malloc(4 * sizeof(bb_t));
        for (int i = 0; i < 4; i++)
            c[i] = rnd_f(&seed);
        for (int i = 0; i < 4; i++)
            m1[j * 4 + i] = c[i];
        sl1[ns1] = (gs_red_slice){0, j * 4, 2};
        nr1[ns1++] = rot[1];
        col_trace[ncols] = 1;
        col_h[ncols] = 2;
        cols[ncols++] = c;
    }
    gs_engine *eng;
    gs_error err;
    cr_assert_eq(gs_cpu_engine_create(1, &eng, &err), GLSTARK_OK);
    gs_buf *b0, *b1;
    cr_assert_eq(gs_buf_create(eng, w0 * height * sizeof(bb_t), &b0), GLSTARK_OK);
    cr_assert_eq(gs_buf_create(eng, height * sizeof(bb_t), &b1), GLSTARK_OK);
    gs_buf_write(b0, 0, m0, w0 * height * sizeof(bb_t));
    gs_buf_write(b1, 0, m1, height * sizeof(bb_t));
    gs_sred_commit commits[2] = {{w0, ns0, sl0, nr0}, {1, ns1, sl1, nr1}};
    const gs_buf *mats[2] = {b0, b1};

    const uint32_t r_len = 1 + (logh[0] > l ? logh[0] - l : 0);
    bb4_t r[32];
    for (uint32_t i = 0; i < r_len; i++)
        r[i] = rnd_ef(&seed);
    bb4_t claims[2 * 16];
    for (uint32_t k = 0; k < ncols; k++) {
        int need = rot[col_trace[k]];
        claims[2 * k] = opening_def(l, col_h[k], cols[k], 0, r);
        claims[2 * k + 1] = need ? opening_def(l, col_h[k], cols[k], 1, r) : bb4_zero();
    }

    bb_t plog[1024], vlog[1024];
    rnd_channel pc = {42, plog, 0}, vc = {42, vlog, 0};
    gs_fs pfs = {&pc, rc_observe, rc_sample, NULL}, vfs = {&vc, rc_observe, rc_sample, NULL};
    gs_stacking_proof sp;
    bb4_t pu[32], vu[32];
    gs_sred_params prm = {l, n_stack};
    cr_assert_eq(takes_lean_round(eng, prm, commits, mats, r, r_len), want_lean);
    cr_assert_eq(gs_sred_prove(eng, &pfs, prm, commits, mats, 2, r, r_len, NULL, &sp, pu, &err), GLSTARK_OK, "%s",
                 err.msg);
    glstark_status st = gs_sred_verify(&vfs, &sp, prm, commits, 2, claims, r, r_len, vu, &err);
    cr_assert_eq(st, GLSTARK_OK, "verifier rejected the prover's proof: %s", err.msg);
    cr_assert_eq(pc.n, vc.n);
    for (size_t i = 0; i < pc.n; i++)
        cr_assert_eq(plog[i], vlog[i], "observe %zu differs between prover and verifier", i);
    for (uint32_t i = 0; i <= n_stack; i++)
        cr_assert(bb4_eq(pu[i], vu[i]));
    known_sums_are_used(eng, prm, commits, mats, r, r_len, &sp);
    /* the same proof with plentiful memory (never the lean round) */
    eng->plentiful_memory = 1;
    cr_assert_eq(takes_lean_round(eng, prm, commits, mats, r, r_len), 0);
    rnd_channel fc = {42, plog, 0};
    gs_fs ffs = {&fc, rc_observe, rc_sample, NULL};
    gs_stacking_proof full;
    cr_assert_eq(gs_sred_prove(eng, &ffs, prm, commits, mats, 2, r, r_len, NULL, &full, pu, &err), GLSTARK_OK, "%s",
                 err.msg);
    cr_assert(stacking_proofs_equal(&full, &sp), "the proof with plentiful memory differs from the lean one");
    gs_stacking_proof_free(&full);
    eng->plentiful_memory = 0;
    /* a wrong rotation claim of the strided trace must be caught */
    claims[2 * 5 + 1] = bb4_add(claims[2 * 5 + 1], bb4_one());
    vc = (rnd_channel){42, vlog, 0};
    st = gs_sred_verify(&vfs, &sp, prm, commits, 2, claims, r, r_len, vu, &err);
    cr_assert_eq(st, GLSTARK_ERR_REJECTED);

    gs_stacking_proof_free(&sp);
    for (uint32_t k = 0; k < ncols; k++)
        free(cols[k]);
    free(m0);
    free(m1);
    gs_buf_destroy(b0);
    gs_buf_destroy(b1);
    gs_engine_destroy(eng);
}

Test(stacked_reduction, random_strided_multi_commit_roundtrip)
{
    const uint32_t logh[3] = {4, 2, 0};
    random_instance(0x5eed0001ull, 2, 3, logh, 0); /* small: every round on the host's tail */
}

Test(stacked_reduction, random_instance_lean_first_round)
{
    /* 4 stacked columns of 2^12 entries: round 1 runs on the engine */
    const uint32_t logh[3] = {14, 9, 1};
    random_instance(0x5eed0002ull, 2, 12, logh, 1);
}

Test(stacked_reduction, helpers_match_definitions)
{
    /* eq_uni on D is the Kronecker delta; in_uni is the indicator of D' */
    const uint32_t l = 3;
    bb_t w = bb_two_adic_generator(l);
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 0; b < 8; b++) {
            bb4_t v = gs_eq_uni(l, bb4_from_base(bb_pow(w, a)), bb4_from_base(bb_pow(w, b)));
            cr_assert(bb4_eq(v, a == b ? bb4_one() : bb4_zero()), "eq_uni(w^%u, w^%u)", a, b);
        }
    for (uint32_t z = 0; z < 8; z++) {
        /* n = -2: D' = <w^4> = {1, w^4} */
        bb4_t v = gs_in_uni(l, -2, bb4_from_base(bb_pow(w, z)));
        cr_assert(bb4_eq(v, z % 4 == 0 ? bb4_one() : bb4_zero()), "in_uni at w^%u", z);
    }
}

/* The commit view built from stacking.c's layout equals OpenVM's recorded
 * stacked layout (commit 0 of every vector file). */
static void layout_matches(const char *spec)
{
    sred_vec v;
    load_vec(spec, &v);
    layout L;
    build_layout(&v, &L);
    gs_stack_trace_shape shapes[64];
    uint8_t rot[64];
    for (uint32_t t = 0; t < v.ntraces; t++) {
        shapes[t] = (gs_stack_trace_shape){v.t_width[t], v.t_logh[t]};
        rot[t] = (uint8_t)v.t_rot[t];
    }
    gs_stack_layout lay;
    gs_error err;
    cr_assert_eq(gs_stack_layout_build(v.l_skip, v.n_stack, shapes, v.ntraces, &lay, &err), GLSTARK_OK, "%s",
                 err.msg);
    gs_sred_commit c;
    gs_red_slice *sl;
    uint8_t *nr;
    cr_assert_eq(gs_sred_commit_from_layout(&lay, rot, &c, &sl, &nr, &err), GLSTARK_OK);
    cr_assert_eq(c.width, L.commits[0].width, "%s: width", spec);
    cr_assert_eq(c.num_slices, L.commits[0].num_slices, "%s: slices", spec);
    for (uint32_t k = 0; k < c.num_slices; k++) {
        cr_assert_eq(sl[k].col, L.slices[0][k].col, "%s slice %u", spec, k);
        cr_assert_eq(sl[k].row, L.slices[0][k].row, "%s slice %u", spec, k);
        cr_assert_eq(sl[k].log_height, L.slices[0][k].log_height, "%s slice %u", spec, k);
        cr_assert_eq(nr[k], L.need_rot[0][k], "%s slice %u", spec, k);
    }
    free(sl);
    free(nr);
    gs_stack_layout_free(&lay);
    free_layout(&L);
    free_vec(&v);
}

Test(stacked_reduction, layout_adapter_matches_openvm)
{
    layout_matches("fib-small_n4");
    layout_matches("interactions-small");
    layout_matches("fib-app18_n10");
    layout_matches("keccak-app21_p16");
}
