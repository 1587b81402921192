/* Stacked opening reduction, prover (see the header; the verifier is
 * verify/stacked_reduction_verify.c).
 *
 * Prover algorithm (any exact method gives OpenVM's bytes, since every
 * message is a uniquely determined polynomial):
 *
 * For slice k (trace height 2^h, n = h − l, ñ = max(n,0), slot at block
 * x_k = row >> l of stacked column c), on the hyperprism the reduction
 * polynomial is Σ_k q_c(Z,x)·W_k(Z,x) with
 *   n ≥ 0: W_k = eq_H(x_high, b_k)·[λe·eq_D(Z,r_0)·eq_r(x_low)
 *                 + λr·(eq_D(Z,r_0ω)·eq_r(x_low) + eq_D(r_0ω,1)·eq_D(Z,1)·(eq_r(prev x_low) − eq_r(x_low)))]
 *   n < 0: W_k = [x = x_k]·ind_n(Z)·[λe·eq_{D'}(Z, r_0^s) + λr·eq_{D'}(Z, r_0^s·ω')]
 * (eq_r(x) = eq_H(r_{1..ñ}, x); on boolean x, κ's cube part is eq_r(prev x)).
 *
 * Round 0: summing over x leaves, per slice, the PLEs A_k, B_k of
 *   a_k[z] = Σ_x eq_r(x)·col[x·N + z],  b_k[z] = Σ_x (eq_r(prev x) − eq_r(x))·col[x·N + z]
 * times univariate weights — products of polynomials of degree < N, so
 * s'_0 has degree ≤ 2(N−1). The engine computes the block sums; the host
 * does the O(N²) polynomial products per slice.
 *
 * Rounds 1..n_stack: with Z fixed to u_0, each W_k is multilinear in x and
 * the slices of one stacked column cover disjoint blocks, so the remaining
 * sum is a plain product sumcheck Σ_c Σ_x Q_c[x]·W_c[x] over two EF tables
 * per stacked column (Q_c[x] = q_c(u_0, x), W_c = Σ_k W_k(u_0, ·)). */
#include "prove/stacked_reduction.h"

#include "engine/read_later.h"
#include "prove/host_tail.h"

#include "prove/spans.h"
#include "prove/sponge_rounds.h"

#include "common/poly.h"
#include "common/stacking.h"
#include "util/parallel_for.h"

#include <stdlib.h>
#include <string.h>

/* ---- small EF helpers ---- */

static inline bb4_t ef_base(bb_t a) { return bb4_from_base(a); }

/* (1/2)^l as a base element */
static bb_t inv_pow2(uint32_t l)
{
    bb_t h = bb_halve(bb_one());
    return bb_pow(h, l);
}

/* Coefficients of eq_L(Z, y) as a polynomial in Z (degree < 2^L):
 * c_0 = 2^−L, c_j = y^(2^L − j)·2^−L. */
static void eq_uni_coeffs(uint32_t L, bb4_t y, bb4_t *c)
{
    size_t n = (size_t)1 << L;
    bb_t s = inv_pow2(L);
    c[0] = ef_base(s);
    bb4_t yp = ef_base(s); /* y^(n−j)·s for j = n−1 down to 1 */
    for (size_t j = n; j-- > 1;) {
        yp = bb4_mul(yp, y);
        c[j] = yp;
    }
}

/* Inverse DFT over D = <ω>, N = 2^l: coefficients of the degree < N
 * polynomial with values v[z] at ω^z (O(N²), N is small). */
static void idft_small(uint32_t l, const bb4_t *v, bb4_t *c)
{
    size_t N = (size_t)1 << l;
    bb_t winv = bb_inv(bb_two_adic_generator(l));
    bb_t ninv = inv_pow2(l);
    bb_t wj = bb_one(); /* ω^−j */
    for (size_t j = 0; j < N; j++) {
        bb4_t acc = bb4_zero();
        bb_t t = bb_one(); /* ω^−jz */
        for (size_t z = 0; z < N; z++) {
            acc = bb4_add(acc, bb4_mul_base(v[z], t));
            t = bb_mul(t, wj);
        }
        c[j] = bb4_mul_base(acc, ninv);
        wj = bb_mul(wj, winv);
    }
}

/* out[0..na+nb−1) += a·b */
static void poly_mul_acc(const bb4_t *a, size_t na, const bb4_t *b, size_t nb, bb4_t *out)
{
    for (size_t i = 0; i < na; i++) {
        if (bb4_is_zero(a[i]))
            continue;
        for (size_t j = 0; j < nb; j++)
            out[i + j] = bb4_add(out[i + j], bb4_mul(a[i], b[j]));
    }
}

/* ---- prover ---- */

void gs_sred_prover_free(gs_sred_prover *p)
{
    if (!p)
        return;
    free(p->lambda_pows);
    free(p->eq_tables);
    free(p->lag);
    free(p->wsrc);
    free(p->wcopies);
    if (p->q)
        gs_buf_destroy(p->q);
    if (p->w)
        gs_buf_destroy(p->w);
    memset(p, 0, sizeof *p);
}

/* Whether the first round runs lean (see gs_sred_prover): on engines
 * without plentiful memory, when round 1 runs on the engine (not already
 * the host's tail), the PLE fold over 2^(l_skip+1) rows is within the
 * engines' 2^10 weights, and every slice of at least 2^l_skip rows starts
 * on a multiple of its block count (the stacked layout places slices in
 * descending height, so it does; checked, since the folded weight copies
 * rely on it). */
static int lean_allowed(const gs_sred_prover *p)
{
    const uint32_t l = p->prm.l_skip;
    if (p->eng->plentiful_memory || p->prm.n_stack < 1 || l + 1 > 10 ||
        ((size_t)p->total_width << p->prm.n_stack) <= GS_HOST_TAIL_ENTRIES)
        return 0;
    for (uint32_t c = 0; c < p->num_commits; c++)
        for (uint32_t k = 0; k < p->commits[c].num_slices; k++) {
            const gs_red_slice *s = &p->commits[c].slices[k];
            if (s->log_height >= l && ((s->row >> l) & ((1u << (s->log_height - l)) - 1)) != 0)
                return 0;
        }
    return 1;
}

glstark_status gs_sred_prover_init(gs_sred_prover *p, gs_engine *eng, gs_sred_params prm,
                                   const gs_sred_commit *commits, const gs_buf *const *matrices, uint32_t num_commits,
                                   const bb4_t *r, uint32_t r_len, bb4_t lambda, gs_error *err)
{
    memset(p, 0, sizeof *p);
    if (!eng || !eng->reduction)
        return gs_error_set(err, GLSTARK_ERR_UNSUPPORTED,
                            "stacked reduction: the engine has no reduction family (src/engine/reduction_ops.h)");
    if (r_len < 1)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "stacked reduction: empty r");
    glstark_status st = gs_sred_check_commits(prm, commits, num_commits, r_len, &p->total_width, &p->total_slices,
                                      &p->max_nt, err);
    if (st)
        return st;
    for (uint32_t c = 0; c < num_commits; c++)
        if (!matrices || !matrices[c] ||
            matrices[c]->size < (size_t)commits[c].width * 4 << (prm.l_skip + prm.n_stack))
            return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                                "stacked reduction: commit %u's matrix buffer is missing or smaller than %u columns "
                                "of 2^%u rows",
                                c, commits[c].width, prm.l_skip + prm.n_stack);
    p->eng = eng;
    p->prm = prm;
    p->commits = commits;
    p->matrices = matrices;
    p->num_commits = num_commits;
    p->r0 = r[0];
    p->lambda = lambda;
    p->lambda_pows = malloc(((size_t)2 * p->total_slices + 1) * sizeof(bb4_t));
    p->eq_tables = gs_eq_tables_nested(r + 1, p->max_nt);
    if (!p->lambda_pows || !p->eq_tables) {
        gs_sred_prover_free(p);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    }
    bb4_t pw = bb4_one();
    for (size_t i = 0; i < (size_t)2 * p->total_slices; i++) {
        p->lambda_pows[i] = pw;
        pw = bb4_mul(pw, lambda);
    }
    p->stride = (size_t)1 << prm.n_stack;
    p->lean = lean_allowed(p);
    if (p->lean)
        return GLSTARK_OK; /* the first fold makes the tables, at half length */
    size_t tbytes = (size_t)p->total_width * sizeof(bb4_t) << prm.n_stack;
    if (tbytes == 0)
        tbytes = sizeof(bb4_t);
    st = gs_buf_create(eng, tbytes, &p->q);
    if (!st)
        st = gs_buf_create(eng, tbytes, &p->w);
    if (st) {
        gs_error_set(err, st, "stacked reduction: could not allocate two %zu-byte tables: %s", tbytes, eng->err.msg);
        gs_sred_prover_free(p);
        return st;
    }
    return GLSTARK_OK;
}

/* Slice kg's two batching weights (λ^(2kg), and λ^(2kg+1) where its AIR
 * has need_rot, else 0). */
static void slice_lambdas(const bb4_t *lambda_pows, int need_rot, size_t kg, bb4_t *le, bb4_t *lr)
{
    *le = lambda_pows[2 * kg];
    *lr = need_rot ? lambda_pows[2 * kg + 1] : bb4_zero();
}

/* Round 0's linear part over one commit's slices of at least 2^l rows:
 * Sa += λe·a_k, Sr += λr·a_k, Sb += f·(b_k − a_k) (see below), split over
 * host threads, each into its own 3N unreduced partials (bb4_acc), summed
 * afterwards (field sums are exact, so the grouping does not change a
 * byte). keccakf-1024 has 2633 slices: ~63k extension products, about 4 ms
 * on one core of the H200's host with bb4_mul, most of the stacked
 * reduction's round 0. */
typedef struct linear_ctx {
    const gs_sred_commit *cm;
    const bb4_t *sums, *lambda_pows;
    uint32_t k_base, l;
    size_t N;
    bb4_t eq_const, one_c;
    bb4_acc *partials; /* per worker: Sa, Sr, Sb (3N), unreduced */
} linear_ctx;

static void linear_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const linear_ctx *c = vctx;
    const size_t N = c->N;
    bb4_acc *Sa = c->partials + (size_t)worker * 3 * N, *Sr = Sa + N, *Sb = Sa + 2 * N;
    for (size_t k = begin; k < end; k++) {
        const gs_red_slice *s = &c->cm->slices[k];
        if (s->log_height < c->l)
            continue;
        bb4_t le, lr;
        slice_lambdas(c->lambda_pows, c->cm->need_rot[k], c->k_base + k, &le, &lr);
        const bb4_t *a = c->sums + k * 2 * N, *bp = a + N;
        for (size_t i = 0; i < N; i++) {
            bb4_acc_add(&Sa[i], le, a[i]);
            bb4_acc_add(&Sr[i], lr, a[i]);
        }
        if (!bb4_is_zero(lr) && s->log_height > c->l) {
            bb4_t f = bb4_mul(bb4_mul(lr, c->eq_const), c->one_c);
            for (size_t i = 0; i < N; i++)
                bb4_acc_add(&Sb[i], f, bb4_sub(bp[i], a[i]));
        }
    }
}

/* Slices per host thread at least: below this the threads' start costs
 * more than the products they take over. */
#define SRED_LINEAR_SLICES_PER_THREAD 256u

static glstark_status linear_part(const linear_ctx *proto, uint32_t num_slices, bb4_t *Sa, bb4_t *Sr, bb4_t *Sb,
                                  gs_error *err)
{
    const size_t N = proto->N;
    const unsigned threads = gs_threads_for(num_slices, SRED_LINEAR_SLICES_PER_THREAD, 64);
    linear_ctx c = *proto;
    c.partials = calloc((size_t)threads * 3 * N, sizeof(bb4_acc));
    if (!c.partials)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    gs_parallel_for(threads, num_slices, linear_range, &c);
    for (size_t i = 0; i < 3 * N; i++) {
        bb4_acc sum = c.partials[i];
        for (unsigned w = 1; w < threads; w++)
            bb4_acc_merge(&sum, &c.partials[(size_t)w * 3 * N + i]);
        bb4_t *dst = i < N ? &Sa[i] : i < 2 * N ? &Sr[i - N] : &Sb[i - 2 * N];
        *dst = bb4_add(*dst, bb4_acc_value(&sum));
    }
    free(c.partials);
    return GLSTARK_OK;
}

glstark_status gs_sred_prover_round0(gs_sred_prover *p, bb4_t *coeffs, gs_error *err)
{
    const uint32_t l = p->prm.l_skip;
    const size_t N = (size_t)1 << l;
    const size_t ncoef = 2 * (N - 1) + 1;
    const uint32_t height = 1u << (l + p->prm.n_stack);
    for (size_t i = 0; i < ncoef; i++)
        coeffs[i] = bb4_zero();

    bb_t omega = bb_two_adic_generator(l);
    bb4_t r0w = bb4_mul_base(p->r0, omega);
    bb4_t eq_const = gs_eq_uni_at_one(l, r0w);
    /* polynomials shared by every slice with n >= 0 */
    bb4_t *E = calloc(6 * N, sizeof(bb4_t));
    if (!E)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    bb4_t *Erot = E + N, *T = E + 2 * N, *A = E + 3 * N, *B = E + 4 * N, *tmp = E + 5 * N;
    eq_uni_coeffs(l, p->r0, E);
    eq_uni_coeffs(l, r0w, Erot);
    bb4_t one_c = ef_base(inv_pow2(l)); /* every coefficient of eq_D(Z, 1) */

    /* Slices of at least 2^l rows contribute (λe·E + λr·Erot)·A_k and
     * (λr·eq_const·one)·B_k with A_k, B_k inverse DFTs of their block sums:
     * linear in the sums, so the sums are combined first (Sa = Σ λe·a_k,
     * Sr = Σ λr·a_k, Sb = Σ λr·eq_const·one·(b_k − a_k)) and transformed and
     * multiplied once, instead of per slice (keccakf-1024: 2633 slices). */
    bb4_t *Sa = calloc(3 * N, sizeof(bb4_t));
    if (!Sa) {
        free(E);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    }
    bb4_t *Sr = Sa + N, *Sb = Sa + 2 * N;
    glstark_status st = GLSTARK_OK;
    uint32_t k_global = 0;
    for (uint32_t c = 0; c < p->num_commits && !st; c++) {
        const gs_sred_commit *cm = &p->commits[c];
        if (cm->num_slices == 0)
            continue;
        const bb4_t *known = p->known_sums ? p->known_sums[c] : NULL;
        bb4_t *read = NULL;
        if (!known) {
            read = malloc((size_t)cm->num_slices * 2 * N * sizeof(bb4_t));
            if (!read) {
                st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
                break;
            }
            st = p->eng->reduction->block_sums(p->eng, p->matrices[c], height, l, cm->slices, cm->num_slices,
                                               p->eq_tables, p->max_nt, read);
            if (st)
                gs_engine_read_drop(p->eng);
            else
                st = gs_engine_read_flush(p->eng);
            if (st) {
                gs_error_set(err, st, "stacked reduction round 0, commit %u: %s", c, p->eng->err.msg);
                free(read);
                break;
            }
        }
        const bb4_t *sums = known ? known : read;
        const linear_ctx lin = {.cm = cm, .sums = sums, .lambda_pows = p->lambda_pows, .k_base = k_global, .l = l,
                                .N = N, .eq_const = eq_const, .one_c = one_c};
        if ((st = linear_part(&lin, cm->num_slices, Sa, Sr, Sb, err))) {
            free(read);
            break;
        }
        for (uint32_t k = 0; k < cm->num_slices; k++, k_global++) {
            const gs_red_slice *s = &cm->slices[k];
            if (s->log_height < l) {
                bb4_t le, lr;
                slice_lambdas(p->lambda_pows, cm->need_rot[k], k_global, &le, &lr);
                const bb4_t *a = sums + (size_t)k * 2 * N;
                /* n < 0: ind(Z)·(λe·eq_h(Z, r0^s) + λr·eq_h(Z, r0^s·ω_h)) · A(Z) */
                idft_small(l, a, A);
                uint32_t h = s->log_height, neg = l - h;
                size_t H = (size_t)1 << h;
                bb4_t rho = gs_pow_2k(p->r0, neg);
                bb4_t rhow = bb4_mul_base(rho, bb_two_adic_generator(h));
                bb4_t *e1 = B, *e2 = tmp; /* reuse scratch: degree < H <= N/2 */
                eq_uni_coeffs(h, rho, e1);
                eq_uni_coeffs(h, rhow, e2);
                for (size_t i = 0; i < N; i++)
                    T[i] = bb4_zero();
                /* ind = 2^n Σ_{j < 2^−n} Z^(j·H): T[j·H + i] = 2^n (λe e1[i] + λr e2[i]) */
                bb_t scale = inv_pow2(neg);
                for (size_t i = 0; i < H; i++) {
                    bb4_t v = bb4_mul_base(bb4_add(bb4_mul(le, e1[i]), bb4_mul(lr, e2[i])), scale);
                    for (size_t j = 0; j < ((size_t)1 << neg); j++)
                        T[j * H + i] = v;
                }
                poly_mul_acc(T, N, A, N, coeffs);
            }
        }
        free(read);
    }
    if (!st) {
        /* s += E·idft(Sa) + Erot·idft(Sr) + One·idft(Sb), One = all ones */
        idft_small(l, Sa, A);
        poly_mul_acc(E, N, A, N, coeffs);
        idft_small(l, Sr, A);
        poly_mul_acc(Erot, N, A, N, coeffs);
        idft_small(l, Sb, B);
        for (size_t i = 0; i < N; i++)
            T[i] = bb4_one();
        poly_mul_acc(T, N, B, N, coeffs);
    }
    free(Sa);
    free(E);
    return st;
}

/* The weight tables as scaled copies (see below), for the Lagrange point
 * u_0: *src the shared V tables and the short slices' single entries,
 * *copies one per slice, into the full-length layout (column c at c·len). */
static glstark_status weight_copies(const gs_sred_prover *p, bb4_t u0, bb4_t **src_out, size_t *src_len_out,
                                    gs_red_copy **copies_out, size_t *ncopies_out, gs_error *err)
{
    const uint32_t l = p->prm.l_skip;
    const size_t len = (size_t)1 << p->prm.n_stack;
    /* the shared V tables (at most one per height and rotation flag) and the
     * short slices' single entries */
    size_t src_cap = ((size_t)4 << p->max_nt) + p->total_slices;
    bb4_t *src = malloc(src_cap * sizeof(bb4_t));
    gs_red_copy *copies = malloc(((size_t)p->total_slices + 1) * sizeof(gs_red_copy));
    if (!src || !copies) {
        free(src);
        free(copies);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    }
    /* For a slice of height >= 2^l, W_k = λ^{2k}·V with V shared by every
     * slice of that height and rotation flag:
     *   V[x] = (E + r·λ·(Erot − C))·eq[x] + r·λ·C·eq[prev x];
     * a shorter slice has one entry. Only the V tables and the single
     * entries cross to the engine, which writes each W_k as a scaled copy
     * (5.4 M entries for keccakf-1024 at L = 21, from 2^11 shared ones). */
    bb_t omega = bb_two_adic_generator(l);
    bb4_t r0w = bb4_mul_base(p->r0, omega);
    bb4_t eq_const = gs_eq_uni_at_one(l, r0w);
    bb4_t e_u0 = gs_eq_uni(l, u0, p->r0);
    bb4_t erot_u0 = gs_eq_uni(l, u0, r0w);
    bb4_t one_u0 = gs_eq_uni_at_one(l, u0);
    int64_t v_off[2][33];
    for (int rr = 0; rr < 2; rr++)
        for (int nt = 0; nt < 33; nt++)
            v_off[rr][nt] = -1;
    size_t src_len = 0, ncopies = 0;
    uint32_t k_global = 0, col_off = 0;
    for (uint32_t c = 0; c < p->num_commits; c++) {
        const gs_sred_commit *cm = &p->commits[c];
        for (uint32_t k = 0; k < cm->num_slices; k++, k_global++) {
            const gs_red_slice *s = &cm->slices[k];
            bb4_t le = p->lambda_pows[2 * (size_t)k_global];
            bb4_t lr = cm->need_rot[k] ? p->lambda_pows[2 * (size_t)k_global + 1] : bb4_zero();
            gs_red_copy *cp = &copies[ncopies++];
            cp->dst = (uint64_t)(col_off + s->col) * len + (s->row >> l);
            if (s->log_height >= l) {
                uint32_t nt = s->log_height - l;
                size_t nx = (size_t)1 << nt;
                int rot = cm->need_rot[k] != 0;
                if (v_off[rot][nt] < 0) {
                    const bb4_t *eq = p->eq_tables + (nx - 1);
                    bb4_t cC = bb4_mul(eq_const, one_u0);
                    bb4_t a = e_u0, bcoef = bb4_zero();
                    if (rot) {
                        a = bb4_add(a, bb4_mul(p->lambda, bb4_sub(erot_u0, cC)));
                        bcoef = bb4_mul(p->lambda, cC);
                    }
                    bb4_t *v = src + src_len;
                    for (size_t x = 0; x < nx; x++) {
                        bb4_t prev = eq[x == 0 ? nx - 1 : x - 1];
                        v[x] = bb4_add(bb4_mul(a, eq[x]), bb4_mul(bcoef, prev));
                    }
                    v_off[rot][nt] = (int64_t)src_len;
                    src_len += nx;
                }
                cp->src = (uint64_t)v_off[rot][nt];
                cp->log_len = nt;
                cp->scale = le;
            } else {
                uint32_t h = s->log_height, neg = l - h;
                bb4_t rho = gs_pow_2k(p->r0, neg);
                bb4_t rhow = bb4_mul_base(rho, bb_two_adic_generator(h));
                bb4_t ind = gs_in_uni(l, -(int32_t)neg, u0);
                src[src_len] = bb4_mul(ind, bb4_add(bb4_mul(le, gs_eq_uni(h, u0, rho)),
                                                    bb4_mul(lr, gs_eq_uni(h, u0, rhow))));
                cp->src = src_len++;
                cp->log_len = 0;
                cp->scale = bb4_one();
            }
        }
        col_off += cm->width;
    }
    *src_out = src;
    *src_len_out = src_len;
    *copies_out = copies;
    *ncopies_out = ncopies;
    return GLSTARK_OK;
}

/* Zero-fills the EF table w (words of it) and writes the scaled copies of
 * src into it. */
static glstark_status write_weights(gs_engine *eng, gs_buf *w, size_t words, const bb4_t *src, size_t src_len,
                                    const gs_red_copy *copies, size_t ncopies)
{
    glstark_status st = gs_buf_fill_u32(w, 0, words, 0);
    gs_buf *sb = NULL;
    if (!st && ncopies) {
        st = gs_buf_create(eng, src_len * sizeof(bb4_t), &sb);
        if (!st)
            st = gs_buf_write(sb, 0, src, src_len * sizeof(bb4_t));
        if (!st)
            st = eng->reduction->scaled_copies(eng, w, sb, copies, ncopies);
    }
    gs_buf_destroy(sb);
    return st;
}

/* q's columns (len entries each, commit after commit) from the stacked
 * matrices by the PLE fold over blocks of 2^log_block rows with the
 * weights lag. */
static glstark_status fold_into_q(gs_sred_prover *p, uint32_t log_block, const bb4_t *lag, size_t len,
                                  gs_error *err)
{
    const uint32_t height = 1u << (p->prm.l_skip + p->prm.n_stack);
    uint32_t col_off = 0;
    for (uint32_t c = 0; c < p->num_commits; c++) {
        const gs_sred_commit *cm = &p->commits[c];
        gs_red_cols out = {p->q, (size_t)col_off * len, len, cm->width};
        glstark_status st = cm->width ? p->eng->reduction->fold_ple(p->eng, p->matrices[c], 0, cm->width, height,
                                                                    log_block, lag, &out)
                                      : GLSTARK_OK;
        if (st)
            return gs_error_set(err, st, "stacked reduction: PLE fold of commit %u over blocks of 2^%u rows: %s", c,
                                log_block, p->eng->err.msg);
        col_off += cm->width;
    }
    return GLSTARK_OK;
}

glstark_status gs_sred_prover_fold_ple(gs_sred_prover *p, bb4_t u0, gs_error *err)
{
    const uint32_t l = p->prm.l_skip;
    const size_t N = (size_t)1 << l;
    const size_t len = (size_t)1 << p->prm.n_stack;
    gs_engine *eng = p->eng;

    bb4_t *lagr = malloc(N * sizeof(bb4_t));
    if (!lagr)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    bb_t omega = bb_two_adic_generator(l), wz = bb_one();
    for (size_t z = 0; z < N; z++) {
        lagr[z] = gs_eq_uni(l, u0, ef_base(wz));
        wz = bb_mul(wz, omega);
    }
    p->len = len;
    p->round = 0;
    if (p->lean) {
        p->lag = lagr;
        p->lean_pending = 1;
        return weight_copies(p, u0, &p->wsrc, &p->nwsrc, &p->wcopies, &p->nwcopies, err);
    }
    glstark_status st = fold_into_q(p, l, lagr, len, err);
    free(lagr);
    bb4_t *src = NULL;
    gs_red_copy *copies = NULL;
    size_t src_len = 0, ncopies = 0;
    if (!st)
        st = weight_copies(p, u0, &src, &src_len, &copies, &ncopies, err);
    if (!st && (st = write_weights(eng, p->w, (size_t)4 * p->total_width * len, src, src_len, copies, ncopies)))
        gs_error_set(err, st, "stacked reduction: building the weight tables: %s", eng->err.msg);
    free(src);
    free(copies);
    return st;
}

/* Columns per group in the lean first round: an eighth of the stacked
 * columns, so the two group tables hold a quarter of what the two halved
 * tables hold. */
static uint32_t lean_group_cols(const gs_sred_prover *p)
{
    return p->total_width >= 16 ? p->total_width / 8 : 1;
}

/* The lean round 1: per column group, its PLE-folded columns and weights
 * at full length, and their round sums into one engine buffer; then one
 * read (a host sync) and their sum. */
static glstark_status lean_round1(gs_sred_prover *p, gs_sums_dst out, gs_error *err)
{
    gs_engine *eng = p->eng;
    const uint32_t l = p->prm.l_skip, height = 1u << (l + p->prm.n_stack), G = lean_group_cols(p);
    const size_t len = p->len;
    uint32_t ngroups = 0;
    for (uint32_t c = 0; c < p->num_commits; c++)
        ngroups += (p->commits[c].width + G - 1) / G;
    gs_buf *qg = NULL, *wg = NULL, *sums = NULL, *sb = NULL;
    bb4_t *part = malloc(((size_t)2 * ngroups + 1) * sizeof(bb4_t));
    gs_red_copy *gc = malloc((p->nwcopies + 1) * sizeof(gs_red_copy));
    glstark_status st = part && gc ? GLSTARK_OK
                                   : gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    if (!st && ((st = gs_buf_create(eng, (size_t)G * len * sizeof(bb4_t), &qg)) ||
                (st = gs_buf_create(eng, (size_t)G * len * sizeof(bb4_t), &wg)) ||
                (st = gs_buf_create(eng, ((size_t)2 * ngroups + 1) * sizeof(bb4_t), &sums)) ||
                (st = gs_buf_create(eng, (p->nwsrc + 1) * sizeof(bb4_t), &sb)) ||
                (st = gs_buf_write(sb, 0, p->wsrc, p->nwsrc * sizeof(bb4_t)))))
        gs_error_set(err, st, "stacked reduction: the first round's column groups: %s", eng->err.msg);
    uint32_t col_off = 0, gi = 0;
    for (uint32_t c = 0; c < p->num_commits && !st; c++) {
        const uint32_t width = p->commits[c].width;
        for (uint32_t c0 = 0; c0 < width && !st; c0 += G, gi++) {
            const uint32_t g = width - c0 < G ? width - c0 : G;
            const uint64_t lo = (uint64_t)(col_off + c0) * len, hi = lo + (uint64_t)g * len;
            size_t n = 0;
            for (size_t i = 0; i < p->nwcopies; i++)
                if (p->wcopies[i].dst >= lo && p->wcopies[i].dst < hi) {
                    gc[n] = p->wcopies[i];
                    gc[n++].dst -= lo;
                }
            gs_red_cols qc = {qg, 0, len, g}, wc = {wg, 0, len, g};
            st = eng->reduction->fold_ple(eng, p->matrices[c], c0, g, height, l, p->lag, &qc);
            if (!st)
                st = gs_buf_fill_u32(wg, 0, (size_t)4 * g * len, 0);
            if (!st && n)
                st = eng->reduction->scaled_copies(eng, wg, sb, gc, n);
            if (!st)
                st = eng->reduction->round_evals(eng, &qc, &wc, len, gs_sums_in(sums, 2 * (size_t)gi));
            if (st)
                gs_error_set(err, st, "stacked reduction round 1, columns %u..%u of commit %u: %s", c0, c0 + g - 1,
                             c, eng->err.msg);
        }
        col_off += width;
    }
    if (!st && (st = gs_buf_read(sums, 0, part, (size_t)2 * ngroups * sizeof(bb4_t))))
        gs_error_set(err, st, "stacked reduction round 1: reading the column groups' sums: %s", eng->err.msg);
    if (!st) {
        bb4_t s[2] = {bb4_zero(), bb4_zero()};
        for (uint32_t i = 0; i < ngroups; i++) {
            s[0] = bb4_add(s[0], part[2 * i]);
            s[1] = bb4_add(s[1], part[2 * i + 1]);
        }
        if ((st = gs_sums_store(out, s, 2)))
            gs_error_set(err, st, "stacked reduction round 1: storing its sums: %s", eng->err.msg);
    }
    gs_buf_destroy(qg);
    gs_buf_destroy(wg);
    gs_buf_destroy(sums);
    gs_buf_destroy(sb);
    free(part);
    free(gc);
    return st;
}

static int cmp_copy_dst(const void *a, const void *b)
{
    const gs_red_copy *x = a, *y = b;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The weight copies folded once by u, into tables of half length
 * (column c at c·len/2): a run of 2^ll entries (ll >= 1, aligned, see
 * lean_allowed) becomes a run of 2^(ll−1) from its V table folded the same
 * way; a single entry at d adds (1 − u)·v or u·v to entry d/2, where a
 * neighbour may add too (never inside a run: runs cover aligned pairs). */
static glstark_status fold_weight_copies(const gs_sred_prover *p, bb4_t u, bb4_t **src_out, size_t *src_len_out,
                                         gs_red_copy **copies_out, size_t *ncopies_out, gs_error *err)
{
    const size_t n = p->nwcopies;
    bb4_t *src = malloc((p->nwsrc + 1) * sizeof(bb4_t));
    int64_t *folded_at = malloc((p->nwsrc + 1) * sizeof(int64_t));
    gs_red_copy *out = malloc((n + 1) * sizeof(gs_red_copy)), *single = malloc((n + 1) * sizeof(gs_red_copy));
    if (!src || !folded_at || !out || !single) {
        free(src);
        free(folded_at);
        free(out);
        free(single);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    }
    const bb4_t one_minus_u = bb4_sub(bb4_one(), u);
    for (size_t i = 0; i < p->nwsrc; i++)
        folded_at[i] = -1;
    size_t src_len = 0, nout = 0, nsingle = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_red_copy *cp = &p->wcopies[i];
        if (cp->log_len == 0) {
            bb4_t v = bb4_mul(cp->scale, p->wsrc[cp->src]);
            single[nsingle] = (gs_red_copy){cp->dst / 2, 0, 0, bb4_mul(v, cp->dst & 1 ? u : one_minus_u)};
            nsingle++;
            continue;
        }
        const size_t half = (size_t)1 << (cp->log_len - 1);
        if (folded_at[cp->src] < 0) {
            const bb4_t *v = p->wsrc + cp->src;
            for (size_t x = 0; x < half; x++)
                src[src_len + x] = bb4_add(v[2 * x], bb4_mul(u, bb4_sub(v[2 * x + 1], v[2 * x])));
            folded_at[cp->src] = (int64_t)src_len;
            src_len += half;
        }
        out[nout++] = (gs_red_copy){cp->dst / 2, (uint64_t)folded_at[cp->src], cp->log_len - 1, cp->scale};
    }
    /* single entries: merged by destination, each a copy of scale 1 */
    qsort(single, nsingle, sizeof *single, cmp_copy_dst);
    for (size_t i = 0; i < nsingle;) {
        bb4_t v = bb4_zero();
        size_t j = i;
        for (; j < nsingle && single[j].dst == single[i].dst; j++)
            v = bb4_add(v, single[j].scale);
        src[src_len] = v;
        out[nout++] = (gs_red_copy){single[i].dst, src_len++, 0, bb4_one()};
        i = j;
    }
    free(folded_at);
    free(single);
    *src_out = src;
    *src_len_out = src_len;
    *copies_out = out;
    *ncopies_out = nout;
    return GLSTARK_OK;
}

/* The lean first fold: q and w at half length, already folded by u, from
 * the matrices (fold_ple over 2N-row blocks with the weights lag[z]·(1−u),
 * lag[z]·u) and the folded weight copies. Reads u if the engine holds it
 * (a host sync). */
static glstark_status lean_fold1(gs_sred_prover *p, gs_chal u, gs_error *err)
{
    gs_engine *eng = p->eng;
    const uint32_t l = p->prm.l_skip;
    const size_t N = (size_t)1 << l, half = p->len / 2, W = p->total_width;
    bb4_t uv = u.value;
    glstark_status st = GLSTARK_OK;
    if (u.buf && (st = gs_buf_read(u.buf, u.index * sizeof(bb4_t), &uv, sizeof uv)))
        return gs_error_set(err, st, "stacked reduction fold 1: reading its challenge: %s", eng->err.msg);
    bb4_t *lag2 = malloc(2 * N * sizeof(bb4_t));
    if (!lag2)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
    const bb4_t one_minus_u = bb4_sub(bb4_one(), uv);
    for (size_t z = 0; z < N; z++) {
        lag2[z] = bb4_mul(p->lag[z], one_minus_u);
        lag2[N + z] = bb4_mul(p->lag[z], uv);
    }
    p->stride = half;
    if ((st = gs_buf_create(eng, W * half * sizeof(bb4_t), &p->q)) ||
        (st = gs_buf_create(eng, W * half * sizeof(bb4_t), &p->w)))
        gs_error_set(err, st, "stacked reduction: could not allocate two %zu-byte tables: %s",
                     W * half * sizeof(bb4_t), eng->err.msg);
    if (!st)
        st = fold_into_q(p, l + 1, lag2, half, err);
    free(lag2);
    bb4_t *src = NULL;
    gs_red_copy *copies = NULL;
    size_t src_len = 0, ncopies = 0;
    if (!st)
        st = fold_weight_copies(p, uv, &src, &src_len, &copies, &ncopies, err);
    if (!st && (st = write_weights(eng, p->w, 4 * W * half, src, src_len, copies, ncopies)))
        gs_error_set(err, st, "stacked reduction fold 1: building the weight tables: %s", eng->err.msg);
    free(src);
    free(copies);
    if (!st) {
        p->lean_pending = 0;
        p->len = half;
        p->round++;
    }
    return st;
}

glstark_status gs_sred_prover_round(gs_sred_prover *p, gs_sums_dst out, gs_error *err)
{
    if (p->len < 2)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "stacked reduction: no round left (table length %zu)", p->len);
    if (p->lean_pending)
        return lean_round1(p, out, err);
    gs_red_cols q = {p->q, 0, p->stride, p->total_width};
    gs_red_cols w = {p->w, 0, p->stride, p->total_width};
    glstark_status st = p->eng->reduction->round_evals(p->eng, &q, &w, p->len, out);
    if (st)
        return gs_error_set(err, st, "stacked reduction round %u: %s", p->round + 1, p->eng->err.msg);
    return GLSTARK_OK;
}

glstark_status gs_sred_prover_fold(gs_sred_prover *p, gs_chal u, gs_error *err)
{
    if (p->len < 2)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "stacked reduction: nothing left to fold");
    if (p->lean_pending)
        return lean_fold1(p, u, err);
    gs_red_cols q = {p->q, 0, p->stride, p->total_width};
    gs_red_cols w = {p->w, 0, p->stride, p->total_width};
    glstark_status st = p->eng->reduction->fold(p->eng, &q, &w, p->len, u);
    if (st)
        return gs_error_set(err, st, "stacked reduction fold %u: %s", p->round + 1, p->eng->err.msg);
    p->len /= 2;
    p->round++;
    return GLSTARK_OK;
}

glstark_status gs_sred_prover_openings(gs_sred_prover *p, bb4_t *out, gs_error *err)
{
    if (p->len != 1)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "stacked reduction: openings asked with %zu entries left",
                            p->len);
    if (p->total_width == 0)
        return GLSTARK_OK;
    /* gather the first entry of every column on the engine, then one read
     * (one host sync instead of one per column: 42 for keccakf at L = 21) */
    gs_buf *gather = NULL;
    glstark_status st = gs_buf_create(p->eng, (size_t)p->total_width * sizeof(bb4_t), &gather);
    if (!st)
        st = gs_buf_gather(gather, 0, p->q, 0, 4, p->stride * 4, p->total_width);
    if (!st)
        st = gs_buf_read(gather, 0, out, (size_t)p->total_width * sizeof(bb4_t));
    gs_buf_destroy(gather);
    if (st)
        return gs_error_set(err, st, "stacked reduction: reading the %u openings: %s", p->total_width,
                            p->eng->err.msg);
    return GLSTARK_OK;
}

/* Rounds j0..n_stack on the host (prove/host_tail.h), once the tables are
 * small: every column's live entries of q and w read in one host sync
 * instead of a sync per round and one for the openings, which are q's
 * first entries after the last fold. */
static glstark_status replay_rounds(gs_sponge_rounds *dr, gs_fs *fs, gs_stacking_proof *proof, bb4_t *u,
                                    gs_error *err);

static glstark_status sred_tail(gs_sred_prover *p, gs_fs *fs, uint32_t j0, gs_stacking_proof *proof, bb4_t *u,
                                bb4_t *openings, gs_sponge_rounds *dr, gs_error *err)
{
    const size_t len0 = p->len, stride = p->stride, W = p->total_width;
    bb4_t *hq = malloc(len0 * W * sizeof(bb4_t) + 1), *hw = malloc(len0 * W * sizeof(bb4_t) + 1);
    glstark_status st = hq && hw ? GLSTARK_OK
                                 : gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                                                "stacked reduction: out of host memory for the last rounds");
    for (size_t c = 0; !st && c < W; c++) {
        st = gs_buf_read_later(p->q, c * stride * sizeof(bb4_t), hq + c * len0, len0 * sizeof(bb4_t), 1, 0);
        if (!st)
            st = gs_buf_read_later(p->w, c * stride * sizeof(bb4_t), hw + c * len0, len0 * sizeof(bb4_t), 1, 0);
    }
    if (!st)
        st = gs_engine_read_flush(p->eng);
    if (st && !err->status)
        gs_error_set(err, st, "stacked reduction: reading the tables for the last rounds: %s", p->eng->err.msg);
    if (st)
        gs_engine_read_drop(p->eng);
    if (!st)
        st = replay_rounds(dr, fs, proof, u, err);
    size_t len = len0;
    for (uint32_t j = j0; !st && j <= p->prm.n_stack; j++) {
        bb4_t *ev = proof->sumcheck_round_polys + 2 * (size_t)(j - 1);
        gs_tail_sred_round(hq, hw, len0, (uint32_t)W, len, ev);
        gs_fs_observe_ext(fs, ev[0]);
        gs_fs_observe_ext(fs, ev[1]);
        u[j] = gs_fs_sample_ext(fs);
        gs_tail_sred_fold(hq, hw, len0, (uint32_t)W, len, u[j]);
        len /= 2;
    }
    for (size_t c = 0; !st && c < W; c++)
        openings[c] = hq[c * len0];
    free(hq);
    free(hw);
    return st;
}

/* The rounds the engine's sponge ran, after their read: on the host's
 * transcript, into the proof and u[1..]. */
static glstark_status replay_rounds(gs_sponge_rounds *dr, gs_fs *fs, gs_stacking_proof *proof, bb4_t *u,
                                    gs_error *err)
{
    glstark_status st = GLSTARK_OK;
    for (uint32_t i = 0; !st && i < dr->n; i++)
        st = gs_sponge_rounds_replay(dr, fs->ts, i, proof->sumcheck_round_polys + 2 * (size_t)i, NULL, &u[i + 1],
                                     err);
    return st;
}

glstark_status gs_sred_prove(gs_engine *eng, gs_fs *fs, gs_sred_params prm, const gs_sred_commit *commits,
                             const gs_buf *const *matrices, uint32_t num_commits, const bb4_t *r, uint32_t r_len,
                             const bb4_t *const *known_sums, gs_stacking_proof *proof, bb4_t *u, gs_error *err)
{
    memset(proof, 0, sizeof *proof);
    const size_t N = (size_t)1 << prm.l_skip;
    bb4_t lambda = gs_fs_sample_ext(fs);
    gs_sred_prover p;
    gs_sponge_rounds dr = {0};
    /* glstark's own sub-spans (OpenVM has none below stacked_reduction) */
    int sp = gs_span_eng_begin(eng, "sred_init");
    glstark_status st = gs_sred_prover_init(&p, eng, prm, commits, matrices, num_commits, r, r_len, lambda, err);
    gs_span_eng_end(eng, sp);
    if (st)
        return st;
    p.known_sums = known_sums;
    size_t ncoef = 2 * (N - 1) + 1;
    proof->univariate_round_coeffs.v = malloc(ncoef * sizeof(bb4_t));
    proof->sumcheck_round_polys = malloc(((size_t)2 * prm.n_stack + 1) * sizeof(bb4_t));
    proof->stacking_openings = calloc(num_commits ? num_commits : 1, sizeof(gs_ef_vec));
    if (!proof->univariate_round_coeffs.v || !proof->sumcheck_round_polys || !proof->stacking_openings) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
        goto fail;
    }
    proof->univariate_round_coeffs.len = (uint32_t)ncoef;
    proof->num_rounds = prm.n_stack;
    proof->num_commits = num_commits;
    for (uint32_t c = 0; c < num_commits; c++) {
        proof->stacking_openings[c].v = malloc((commits[c].width ? commits[c].width : 1) * sizeof(bb4_t));
        proof->stacking_openings[c].len = commits[c].width;
        if (!proof->stacking_openings[c].v) {
            st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
            goto fail;
        }
    }
    sp = gs_span_eng_begin(eng, "sred_round0");
    st = gs_sred_prover_round0(&p, proof->univariate_round_coeffs.v, err);
    gs_span_eng_end(eng, sp);
    if (st)
        goto fail;
    for (size_t i = 0; i < ncoef; i++)
        gs_fs_observe_ext(fs, proof->univariate_round_coeffs.v[i]);
    u[0] = gs_fs_sample_ext(fs);
    sp = gs_span_eng_begin(eng, "sred_fold_ple_weights");
    st = gs_sred_prover_fold_ple(&p, u[0], err);
    gs_span_eng_end(eng, sp);
    sp = gs_span_eng_begin(eng, "sred_rounds");
    uint32_t j = 1;
    int tail = 0;
    /* with the transcript itself behind fs, the engine samples the rounds'
     * challenges (prove/sponge_rounds.h): no host sync until the tail or
     * the openings */
    if (!st && fs->ts && gs_sponge_rounds_usable(eng, 0))
        st = gs_sponge_rounds_begin(&dr, eng, fs->ts, prm.n_stack, 2, 0, err);
    for (; j <= prm.n_stack && !st; j++) {
        if (p.len * p.total_width <= GS_HOST_TAIL_ENTRIES) {
            tail = 1;
            break;
        }
        if (dr.eng) {
            gs_chal c;
            st = gs_sred_prover_round(&p, gs_sponge_rounds_sums(&dr), err);
            if (!st)
                st = gs_sponge_rounds_step(&dr, &c, err);
            if (!st)
                st = gs_sred_prover_fold(&p, c, err);
            continue;
        }
        bb4_t *ev = proof->sumcheck_round_polys + 2 * (size_t)(j - 1);
        st = gs_sred_prover_round(&p, gs_sums_host(ev), err);
        if (st)
            break;
        gs_fs_observe_ext(fs, ev[0]);
        gs_fs_observe_ext(fs, ev[1]);
        u[j] = gs_fs_sample_ext(fs);
        st = gs_sred_prover_fold(&p, gs_chal_value(u[j]), err);
    }
    if (!st && dr.eng)
        st = gs_sponge_rounds_read_later(&dr, err);
    gs_span_eng_end(eng, sp);
    if (st)
        goto fail;
    {
        bb4_t *all = malloc(((size_t)p.total_width + 1) * sizeof(bb4_t));
        if (!all) {
            st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "stacked reduction: out of host memory");
            goto fail;
        }
        if (tail) {
            sp = gs_span_eng_begin(eng, "sred_host_tail");
            st = sred_tail(&p, fs, j, proof, u, all, &dr, err);
            gs_span_eng_end(eng, sp);
        } else {
            st = gs_sred_prover_openings(&p, all, err);
            if (!st && (st = gs_engine_read_flush(eng))) /* when the openings read nothing */
                gs_error_set(err, st, "stacked reduction: reading the rounds: %s", eng->err.msg);
            if (!st)
                st = replay_rounds(&dr, fs, proof, u, err);
        }
        size_t off = 0;
        for (uint32_t c = 0; c < num_commits && !st; c++) {
            memcpy(proof->stacking_openings[c].v, all + off, commits[c].width * sizeof(bb4_t));
            for (uint32_t i = 0; i < commits[c].width; i++)
                gs_fs_observe_ext(fs, all[off + i]);
            off += commits[c].width;
        }
        free(all);
        if (st)
            goto fail;
    }
    gs_sponge_rounds_free(&dr);
    gs_sred_prover_free(&p);
    return GLSTARK_OK;
fail:
    gs_engine_read_drop(eng);
    gs_sponge_rounds_free(&dr);
    gs_sred_prover_free(&p);
    gs_stacking_proof_free(proof);
    return st;
}
