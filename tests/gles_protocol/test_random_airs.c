/* Randomized differential test of whole proofs: random AIRs made with the
 * public builder API (air.h), random satisfied traces, proven through the
 * public API (prove.h) on the CPU engine and on the GLES device. The two
 * proofs must be the same bytes, no phase of the GLES proof may fall back to
 * the CPU, and the verifier must accept them. The CPU engine is the reference
 * here; it is itself held byte-identical to OpenVM by the prover tests.
 *
 * Each case draws from a printed seed:
 *  - 1 or 2 "recurrence" AIRs: w columns with next(c_j) = f_j(row) (products,
 *    sums, scalings: degree 3 with the transition selector), a product column,
 *    a boolean column, a degree-3 local constraint, public values bound to the
 *    first and last rows; or, at random, only local constraints (no next-row
 *    columns: the proof then carries a literal zero for the rotation);
 *  - at random, a lookup "table" AIR: every recurrence AIR sends
 *    (c_a, c_b + 7) with count = its boolean column on one bus, the table
 *    receives each distinct message with its multiplicity (padding rows have
 *    multiplicity 0), so the bus balances across AIRs;
 *  - heights 2^0 .. 2^9 (below, at and above 2^l_skip), an absent sender
 *    (height 0) now and then, AIR order shuffled, OpenVM's small test
 *    parameters or app parameters with L = 12.
 * Negative checks on the same proofs: a flipped byte, the key of another
 * case, and a broken trace cell (refused as UNSATISFIED before proving).
 *
 * GLSTARK_RANDOM_AIRS_SEED=<n> runs one more case from seed n (to explore);
 * GLSTARK_RANDOM_AIRS_CASES=<k> changes how many fixed-seed cases run. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glstark/device.h"
#include "glstark/prove.h"
#include "../util/splitmix.h"

#define P 2013265921u
#define MAX_AIRS 4
#define MAX_REC_COLS 5

static uint32_t below(uint64_t *s, uint32_t n) { return (uint32_t)(splitmix64(s) % n); }

/* A field element: mostly uniform, sometimes an edge value (0, 1, p-1). */
static uint32_t rand_fe(uint64_t *s)
{
    switch (below(s, 8)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return P - 1;
    default: return (uint32_t)(splitmix64(s) % P);
    }
}

static uint32_t fadd(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a + b) % P); }
static uint32_t fmul(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b % P); }

/* next(c_j) = kind 0: c_a c_b + c_d, 1: c_a + c_b, 2: k c_a */
typedef struct recurrence {
    int kind;
    uint32_t a, b, d, k;
} recurrence;

static uint32_t rec_eval(const recurrence *r, const uint32_t *row)
{
    switch (r->kind) {
    case 0: return fadd(fmul(row[r->a], row[r->b]), row[r->d]);
    case 1: return fadd(row[r->a], row[r->b]);
    default: return fmul(r->k, row[r->a]);
    }
}

static glstark_expr rec_expr(glstark_air *air, const recurrence *r)
{
    glstark_expr a = glstark_air_main(air, r->a, 0), b = glstark_air_main(air, r->b, 0);
    switch (r->kind) {
    case 0: return glstark_air_add(air, glstark_air_mul(air, a, b), glstark_air_main(air, r->d, 0));
    case 1: return glstark_air_add(air, a, b);
    default: return glstark_air_mul(air, glstark_air_const(air, r->k), a);
    }
}

typedef struct air_case {
    glstark_air *air;
    size_t width, height;
    uint32_t *trace; /* column-major */
    uint32_t publics[2];
    size_t num_publics;
    int is_table;
    uint32_t msg_cols[2]; /* sender: the message columns c_a, c_b */
    uint32_t bool_col;    /* sender: the count column */
    int sends;
    uint32_t max_mult;    /* table: the largest multiplicity */
} air_case;

typedef struct rand_case {
    uint64_t seed;
    int app_params;
    size_t num_airs;
    air_case a[MAX_AIRS];
    glstark_params *params;
    glstark_proving_key *pk;
    glstark_verifying_key *vk;
    char desc[512];
} rand_case;

/* One recurrence AIR (columns: w recurrence columns, product p = c_pa c_pb,
 * boolean b; 2 public values) and its trace. `sends` adds the send on bus. */
static void make_recurrence_air(air_case *ac, uint64_t *s, size_t height, int local_only, int sends, uint16_t bus)
{
    uint32_t w = 2 + below(s, MAX_REC_COLS - 1), W = w + 2;
    recurrence rs[MAX_REC_COLS];
    for (uint32_t j = 0; j < w; j++) {
        rs[j].kind = (int)below(s, 3);
        rs[j].a = below(s, w);
        rs[j].b = below(s, w);
        rs[j].d = below(s, w);
        rs[j].k = rand_fe(s);
    }
    uint32_t pa = below(s, w), pb = below(s, w);
    size_t H = height;
    uint32_t *tr = calloc((size_t)W * (H ? H : 1), sizeof(uint32_t));
    cr_assert_not_null(tr);
    uint32_t row[MAX_REC_COLS], nxt[MAX_REC_COLS];
    for (uint32_t j = 0; j < w; j++)
        row[j] = rand_fe(s);
    /* local-only rows are fresh each row, or (half the time) drawn from a
     * pool of 1..4 rows, so messages repeat and the table's multiplicities
     * go beyond 1 */
    uint32_t pool[4][MAX_REC_COLS], pool_size = below(s, 2) ? 1 + below(s, 4) : 0;
    for (uint32_t q = 0; q < pool_size; q++)
        for (uint32_t j = 0; j < w; j++)
            pool[q][j] = rand_fe(s);
    for (size_t r = 0; r < H; r++) {
        if (local_only) {
            uint32_t q = pool_size ? below(s, pool_size) : 0;
            for (uint32_t j = 0; j < w; j++)
                row[j] = pool_size ? pool[q][j] : rand_fe(s);
        }
        for (uint32_t j = 0; j < w; j++)
            tr[(size_t)j * H + r] = row[j];
        tr[(size_t)w * H + r] = fmul(row[pa], row[pb]);
        tr[(size_t)(w + 1) * H + r] = below(s, 2);
        if (!local_only) {
            for (uint32_t j = 0; j < w; j++)
                nxt[j] = rec_eval(&rs[j], row);
            memcpy(row, nxt, w * sizeof(uint32_t));
        }
    }
    glstark_air *air;
    cr_assert_eq(glstark_air_create(local_only ? "random-local" : "random-recurrence", W, 2, &air), GLSTARK_OK);
    if (!local_only) {
        glstark_expr tsel = glstark_air_is_transition(air);
        for (uint32_t j = 0; j < w; j++) {
            glstark_expr d = glstark_air_sub(air, glstark_air_main(air, j, 1), rec_expr(air, &rs[j]));
            glstark_air_assert_zero(air, glstark_air_mul(air, tsel, d));
        }
    }
    glstark_expr prod = glstark_air_mul(air, glstark_air_main(air, pa, 0), glstark_air_main(air, pb, 0));
    glstark_air_assert_eq(air, glstark_air_main(air, w, 0), prod);
    glstark_air_assert_bool(air, glstark_air_main(air, w + 1, 0));
    /* degree 3 and local: b * (p - c_pa c_pb) */
    glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_main(air, w + 1, 0),
                                                 glstark_air_sub(air, glstark_air_main(air, w, 0), prod)));
    glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_first_row(air),
                                                 glstark_air_sub(air, glstark_air_main(air, 0, 0),
                                                                 glstark_air_public_value(air, 0))));
    glstark_air_assert_zero(air, glstark_air_mul(air, glstark_air_is_last_row(air),
                                                 glstark_air_sub(air, glstark_air_main(air, 1, 0),
                                                                 glstark_air_public_value(air, 1))));
    if (sends) {
        glstark_expr fields[2] = {glstark_air_main(air, pa, 0),
                                  glstark_air_add(air, glstark_air_main(air, pb, 0), glstark_air_const(air, 7))};
        glstark_air_push_interaction(air, bus, fields, 2, glstark_air_main(air, w + 1, 0), 1);
    }
    cr_assert_eq(glstark_air_status(air), GLSTARK_OK, "%s", glstark_air_error_message(air));
    memset(ac, 0, sizeof *ac);
    ac->air = air;
    ac->width = W;
    ac->height = H;
    ac->trace = tr;
    ac->num_publics = 2;
    /* public values: what the trace has there (any values when absent) */
    ac->publics[0] = H ? tr[0] : 0;
    ac->publics[1] = H ? tr[H + H - 1] : 0;
    ac->is_table = 0;
    ac->msg_cols[0] = pa;
    ac->msg_cols[1] = pb;
    ac->bool_col = w + 1;
    ac->sends = sends;
}

/* The lookup table of every message the senders send (rows with count 1):
 * columns (m, f0, f1), receives (f0, f1) with count -m on `bus`. */
static void make_table_air(air_case *ac, const air_case *senders, size_t n_senders, uint64_t *s, uint16_t bus)
{
    size_t cap = 1;
    for (size_t i = 0; i < n_senders; i++)
        cap += senders[i].height;
    uint32_t *m = calloc(cap, sizeof(uint32_t)), *f0 = calloc(cap, sizeof(uint32_t)), *f1 = calloc(cap, sizeof(uint32_t));
    cr_assert(m && f0 && f1);
    size_t distinct = 0;
    for (size_t i = 0; i < n_senders; i++) {
        const air_case *sc = &senders[i];
        size_t H = sc->height;
        for (size_t r = 0; r < H; r++) {
            if (!sc->trace[(size_t)sc->bool_col * H + r])
                continue;
            uint32_t a = sc->trace[(size_t)sc->msg_cols[0] * H + r];
            uint32_t b = fadd(sc->trace[(size_t)sc->msg_cols[1] * H + r], 7);
            size_t k = 0;
            while (k < distinct && !(f0[k] == a && f1[k] == b))
                k++;
            if (k == distinct) {
                f0[k] = a;
                f1[k] = b;
                distinct++;
            }
            m[k] = fadd(m[k], 1);
        }
    }
    size_t H = 1;
    while (H < distinct)
        H <<= 1;
    if (below(s, 2))
        H <<= 1; /* some padding rows of multiplicity 0 */
    uint32_t *tr = calloc(3 * H, sizeof(uint32_t));
    cr_assert_not_null(tr);
    for (size_t r = 0; r < H; r++) {
        int pad = r >= distinct;
        tr[r] = pad ? 0 : m[r];
        tr[H + r] = pad ? rand_fe(s) : f0[r];
        tr[2 * H + r] = pad ? rand_fe(s) : f1[r];
    }
    free(m);
    free(f0);
    free(f1);
    glstark_air *air;
    cr_assert_eq(glstark_air_create("random-table", 3, 0, &air), GLSTARK_OK);
    glstark_expr fields[2] = {glstark_air_main(air, 1, 0), glstark_air_main(air, 2, 0)};
    glstark_air_push_interaction(air, bus, fields, 2, glstark_air_neg(air, glstark_air_main(air, 0, 0)), 0);
    cr_assert_eq(glstark_air_status(air), GLSTARK_OK, "%s", glstark_air_error_message(air));
    memset(ac, 0, sizeof *ac);
    ac->air = air;
    ac->width = 3;
    ac->height = H;
    ac->trace = tr;
    ac->is_table = 1;
    for (size_t r = 0; r < distinct; r++)
        ac->max_mult = tr[r] > ac->max_mult ? tr[r] : ac->max_mult;
}

static size_t random_height(uint64_t *s)
{
    uint32_t r = below(s, 16);
    if (r == 0)
        return 1; /* a single row: first, last and not a transition */
    return (size_t)1 << (1 + below(s, 9));
}

static void case_make(rand_case *c, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->seed = seed;
    uint64_t s = seed;
    c->app_params = below(&s, 4) == 0;
    size_t n_rec = 1 + below(&s, 2);
    int table = below(&s, 4) != 0;
    uint16_t bus = (uint16_t)below(&s, 3);
    air_case tmp[MAX_AIRS];
    for (size_t i = 0; i < n_rec; i++) {
        size_t h = random_height(&s);
        /* an absent sender now and then (only with a second AIR present) */
        if (n_rec + (size_t)table > 1 && i == 0 && below(&s, 6) == 0)
            h = 0;
        make_recurrence_air(&tmp[i], &s, h, below(&s, 4) == 0, table, bus);
    }
    size_t n = n_rec;
    if (table)
        make_table_air(&tmp[n++], tmp, n_rec, &s, bus);
    /* shuffle the AIR order (Fisher-Yates) */
    for (size_t i = n; i > 1; i--) {
        size_t j = below(&s, (uint32_t)i);
        air_case t = tmp[i - 1];
        tmp[i - 1] = tmp[j];
        tmp[j] = t;
    }
    memcpy(c->a, tmp, n * sizeof(air_case));
    c->num_airs = n;
    char msg[1024];
    if (c->app_params)
        cr_assert_eq(glstark_params_app_100_bits(12, &c->params, msg, sizeof msg), GLSTARK_OK, "%s", msg);
    else
        cr_assert_eq(glstark_params_test_small(&c->params), GLSTARK_OK);
    glstark_air *airs[MAX_AIRS];
    int len = snprintf(c->desc, sizeof c->desc, "seed %" PRIu64 " (%s params):", seed,
                       c->app_params ? "app L=12" : "small test");
    for (size_t i = 0; i < n; i++) {
        airs[i] = c->a[i].air;
        size_t nodes = 0, ncons = 0, nint = 0, deg = 0;
        cr_assert_eq(glstark_air_dag_stats(airs[i], &nodes, &ncons, &nint, &deg), GLSTARK_OK);
        char mult[48] = "";
        if (c->a[i].is_table)
            snprintf(mult, sizeof mult, ", max multiplicity %u", c->a[i].max_mult);
        if (len > 0 && (size_t)len < sizeof c->desc)
            len += snprintf(c->desc + len, sizeof c->desc - (size_t)len,
                            " [%s %zux%zu, %zu constraints, %zu interactions, degree %zu%s]",
                            c->a[i].is_table ? "table" : "rec", c->a[i].width, c->a[i].height, ncons, nint, deg, mult);
    }
    cr_assert_eq(glstark_keygen(airs, n, c->params, &c->pk, &c->vk, msg, sizeof msg), GLSTARK_OK, "%s: %s",
                 c->desc, msg);
}

static void case_traces(const rand_case *c, glstark_air_trace *t)
{
    for (size_t i = 0; i < c->num_airs; i++) {
        const air_case *ac = &c->a[i];
        /* an absent AIR (height 0) has no public values either */
        glstark_air_trace x = {ac->height, {ac->trace, ac->width}, NULL, ac->height ? ac->publics : NULL,
                               ac->height ? ac->num_publics : 0};
        t[i] = x;
    }
}

static void case_free(rand_case *c)
{
    glstark_proving_key_destroy(c->pk);
    glstark_verifying_key_destroy(c->vk);
    glstark_params_destroy(c->params);
    for (size_t i = 0; i < c->num_airs; i++) {
        glstark_air_destroy(c->a[i].air);
        free(c->a[i].trace);
    }
}

static void prove_with(const rand_case *c, glstark_device *dev, glstark_prove_result *r)
{
    glstark_air_trace t[MAX_AIRS];
    case_traces(c, t);
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    o.device = dev;
    o.cpu_threads = 2;
    glstark_prove_stats stats;
    glstark_prove_stats_init(&stats);
    stats.codeword_reencoded = -1;
    o.stats = &stats;
    o.no_spans = 1;
    glstark_status st = glstark_prove(c->pk, t, c->num_airs, &o, r);
    cr_assert_eq(st, GLSTARK_OK, "%s: %s prove failed: %s", c->desc, dev ? "GLES" : "CPU", r->message);
    /* the AUTO codeword policy: kept on the CPU engine, re-encoded on GLES */
    const int want = dev != NULL;
    cr_assert_eq(stats.codeword_reencoded, want, "%s: %s codeword_reencoded %d", c->desc, dev ? "GLES" : "CPU",
                 stats.codeword_reencoded);
}

/* groups: the interpreter's split (0 = the library's choice) */
static glstark_device *open_gles_groups(unsigned groups)
{
    glstark_device_options o;
    glstark_device_options_init(&o);
    o.engine = GLSTARK_ENGINE_GLES;
    o.interp_groups = groups;
    glstark_device *dev = NULL;
    char msg[2048];
    glstark_status st = glstark_device_create(&o, &dev, msg, sizeof msg);
    cr_assert_eq(st, GLSTARK_OK, "opening a GLES device failed: %s", msg);
    cr_assert_eq(glstark_device_engine(dev), GLSTARK_ENGINE_GLES);
    return dev;
}

static glstark_device *open_gles(void) { return open_gles_groups(0); }

/* Proves case c on both engines and holds them equal; returns the GLES proof
 * in *out (the caller frees it) for the negative checks. */
static void differential(const rand_case *c, glstark_device *dev, glstark_prove_result *out)
{
    glstark_prove_result rc, rg;
    prove_with(c, NULL, &rc);
    prove_with(c, dev, &rg);
    cr_assert_eq(rg.fallback_phases, 0u, "%s: GLES fell back to the CPU: %s", c->desc, rg.fallback_note);
    size_t i = 0;
    while (i < rc.proof_len && i < rg.proof_len && rc.proof[i] == rg.proof[i])
        i++;
    cr_assert(rc.proof_len == rg.proof_len && i == rc.proof_len,
              "%s: CPU proof %zu bytes, GLES proof %zu bytes, first difference at byte %zu", c->desc, rc.proof_len,
              rg.proof_len, i);
    char msg[1024];
    cr_assert_eq(glstark_verify(c->vk, rg.proof, rg.proof_len, msg, sizeof msg), GLSTARK_OK, "%s: %s", c->desc,
                 msg);
    cr_log_info("%s: %zu bytes identical (CPU %.3f s, GLES %.3f s), verified", c->desc, rg.proof_len, rc.seconds,
                rg.seconds);
    glstark_prove_result_free(&rc);
    *out = rg;
}

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, NULL, 0) : dflt;
}

Test(random_airs, cpu_and_gles_proofs_are_identical, .timeout = 600)
{
    size_t n_cases = env_size("GLSTARK_RANDOM_AIRS_CASES", 16);
    const char *extra = getenv("GLSTARK_RANDOM_AIRS_SEED");
    glstark_device *dev = open_gles();
    cr_log_info("GLES device: %s", glstark_device_renderer(dev));
    uint8_t *prev_proof = NULL;
    size_t prev_len = 0;
    for (size_t k = 0; k < n_cases + (extra && *extra ? 1 : 0); k++) {
        uint64_t seed = k < n_cases ? 0x7A1D0000u + k : strtoull(extra, NULL, 0);
        printf("random_airs: case seed %" PRIu64 "\n", seed);
        fflush(stdout);
        rand_case c;
        case_make(&c, seed);
        /* the device keeps freed GPU buffers for the next proof; every third
         * case starts from an emptied pool instead */
        if (k % 3 == 2)
            glstark_device_release_memory(dev);
        glstark_prove_result r;
        differential(&c, dev, &r);
        char msg[1024];
        /* a flipped byte (anywhere, seeded) is not accepted */
        uint64_t s = seed ^ 0xF11Bu;
        uint8_t *bad = malloc(r.proof_len);
        cr_assert_not_null(bad);
        for (int rep = 0; rep < 4; rep++) {
            memcpy(bad, r.proof, r.proof_len);
            size_t at = (size_t)(splitmix64(&s) % r.proof_len);
            bad[at] ^= (uint8_t)(1u << below(&s, 8));
            glstark_status st = glstark_verify(c.vk, bad, r.proof_len, msg, sizeof msg);
            cr_assert(st == GLSTARK_ERR_REJECTED || st == GLSTARK_ERR_MALFORMED,
                      "%s: byte %zu flipped: status %s", c.desc, at, glstark_status_name(st));
        }
        free(bad);
        /* the previous case's proof against this key (a different AIR set) */
        if (prev_proof) {
            glstark_status st = glstark_verify(c.vk, prev_proof, prev_len, msg, sizeof msg);
            cr_assert(st == GLSTARK_ERR_REJECTED || st == GLSTARK_ERR_MALFORMED,
                      "%s: another case's proof: status %s", c.desc, glstark_status_name(st));
        }
        free(prev_proof);
        prev_proof = malloc(r.proof_len);
        cr_assert_not_null(prev_proof);
        memcpy(prev_proof, r.proof, r.proof_len);
        prev_len = r.proof_len;
        glstark_prove_result_free(&r);
        case_free(&c);
    }
    free(prev_proof);
    glstark_device_destroy(dev);
}

/* The same whole-proof comparison with every constraint evaluation split
 * into 8 groups of lanes (what desktop-class GPUs choose on their own). */
Test(random_airs, split_evaluations_give_the_same_proofs, .timeout = 600)
{
    glstark_device *dev = open_gles_groups(8);
    for (uint64_t seed = 0x7A1F0000u; seed < 0x7A1F0006u; seed++) {
        printf("random_airs: split-evaluation seed %" PRIu64 "\n", seed);
        rand_case c;
        case_make(&c, seed);
        glstark_prove_result r;
        differential(&c, dev, &r);
        glstark_prove_result_free(&r);
        case_free(&c);
    }
    glstark_device_destroy(dev);
}

/* The buffer pool's modes (GLSTARK_POOL) on repeated proofs of one random
 * statement: every mode gives the CPU engine's bytes; REUSE serves the second
 * proof from the first one's buffers (at most 1% allocated anew), BOUNDED
 * allocates some again, OFF everything but the engine's kept tables. */
Test(random_airs, buffer_pool_modes_on_repeated_proofs, .timeout = 300)
{
    rand_case c;
    case_make(&c, 0x7A1F0001u);
    printf("random_airs: pool case %s\n", c.desc);
    glstark_prove_result want;
    prove_with(&c, NULL, &want);
    static const struct {
        const char *env;
        glstark_buffer_pool mode;
    } modes[] = {{"reuse", GLSTARK_BUFFER_POOL_REUSE},
                 {"bounded", GLSTARK_BUFFER_POOL_BOUNDED},
                 {"0", GLSTARK_BUFFER_POOL_OFF}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        setenv("GLSTARK_POOL", modes[m].env, 1);
        glstark_device *dev = open_gles();
        glstark_device_limits L;
        glstark_device_limits_init(&L);
        cr_assert_eq(glstark_device_limits_get(dev, &L), GLSTARK_OK);
        cr_assert_eq(L.buffer_pool, modes[m].mode, "GLSTARK_POOL=%s: limits say %d", modes[m].env,
                     (int)L.buffer_pool);
        uint64_t allocated[2], built[2];
        double build_s[2];
        for (int rep = 0; rep < 2; rep++) {
            glstark_air_trace t[MAX_AIRS];
            case_traces(&c, t);
            glstark_prove_options o;
            glstark_prove_options_init(&o);
            o.device = dev;
            o.cpu_threads = 2;
            o.no_spans = 1;
            glstark_prove_stats st;
            glstark_prove_stats_init(&st);
            st.device_bytes_allocated = UINT64_MAX; /* poisoned: the library must write it */
            st.programs_built = UINT64_MAX;
            st.program_build_seconds = -1.0;
            o.stats = &st;
            glstark_prove_result r;
            cr_assert_eq(glstark_prove(c.pk, t, c.num_airs, &o, &r), GLSTARK_OK, "%s, pool %s: %s", c.desc,
                         modes[m].env, r.message);
            cr_assert(r.proof_len == want.proof_len && !memcmp(r.proof, want.proof, r.proof_len),
                      "%s, pool %s, proof %d: bytes differ from the CPU engine's", c.desc, modes[m].env, rep + 1);
            cr_assert_eq(st.fallback_bytes_allocated, 0);
            allocated[rep] = st.device_bytes_allocated;
            built[rep] = st.programs_built;
            build_s[rep] = st.program_build_seconds;
            cr_log_info("pool %s, proof %d: %" PRIu64 " bytes allocated anew, peak %zu", modes[m].env, rep + 1,
                        allocated[rep], st.device_bytes_peak);
            glstark_prove_result_free(&r);
        }
        cr_assert(allocated[0] > 0 && allocated[0] != UINT64_MAX, "pool %s: first proof allocated %" PRIu64,
                  modes[m].env, allocated[0]);
        /* A fresh device builds the GPU programs the first proof runs; the
         * same statement again needs no new one. */
        cr_log_info("pool %s: programs built %" PRIu64 " in %.3f s, then %" PRIu64 " in %.3f s", modes[m].env,
                    built[0], build_s[0], built[1], build_s[1]);
        cr_assert(built[0] >= 10 && built[0] < 200 && build_s[0] > 0.0, "first proof: %" PRIu64 " programs, %.3f s",
                  built[0], build_s[0]);
        cr_assert(built[1] == 0 && build_s[1] == 0.0, "repeated proof: %" PRIu64 " programs, %.3f s", built[1],
                  build_s[1]);
        /* (not always nothing: a request can find every larger buffer held
         * by earlier requests that took larger ones; 48 of 137208 bytes here) */
        if (modes[m].mode == GLSTARK_BUFFER_POOL_REUSE)
            cr_assert_leq(allocated[1], allocated[0] / 100, "pool reuse: the repeated proof allocated %" PRIu64
                          " of the first proof's %" PRIu64 " bytes", allocated[1], allocated[0]);
        /* (the first proof also makes the engine's kept tables: twiddles) */
        else if (modes[m].mode == GLSTARK_BUFFER_POOL_OFF)
            cr_assert(allocated[1] > allocated[0] / 2 && allocated[1] <= allocated[0],
                      "pool off: %" PRIu64 " then %" PRIu64 " bytes", allocated[0], allocated[1]);
        else
            cr_assert_lt(allocated[1], allocated[0], "pool bounded: %" PRIu64 " then %" PRIu64 " bytes",
                         allocated[0], allocated[1]);
        glstark_device_destroy(dev);
    }
    unsetenv("GLSTARK_POOL");
    glstark_prove_result_free(&want);
    case_free(&c);
}

/* A broken cell of a random trace is refused before anything is proven, on
 * either engine, with a message naming the AIR. */
Test(random_airs, broken_trace_is_refused, .timeout = 300)
{
    glstark_device *dev = open_gles();
    for (uint64_t seed = 0x7A1E0000u; seed < 0x7A1E0004u; seed++) {
        printf("random_airs: broken-trace seed %" PRIu64 "\n", seed);
        rand_case c;
        case_make(&c, seed);
        uint64_t s = seed;
        /* pick a present AIR and a cell, and add 1 there */
        size_t i;
        do
            i = below(&s, (uint32_t)c.num_airs);
        while (c.a[i].height == 0);
        air_case *ac = &c.a[i];
        /* a cell some constraint always reads: a sender's product column, a
         * table's multiplicity (the bus no longer balances) */
        size_t col = ac->is_table ? 0 : ac->bool_col - 1, row = below(&s, (uint32_t)ac->height);
        uint32_t *cell = &ac->trace[col * ac->height + row];
        *cell = fadd(*cell, 1);
        for (int e = 0; e < 2; e++) {
            glstark_air_trace t[MAX_AIRS];
            case_traces(&c, t);
            glstark_prove_options o;
            glstark_prove_options_init(&o);
            o.device = e ? dev : NULL;
            o.cpu_threads = 2;
            glstark_prove_result r;
            glstark_status st = glstark_prove(c.pk, t, c.num_airs, &o, &r);
            cr_assert_eq(st, GLSTARK_ERR_UNSATISFIED, "%s: AIR %zu cell (%zu, %zu) + 1: %s: %s", c.desc, i, col,
                         row, glstark_status_name(st), r.message);
            cr_assert(strlen(r.message) > 0);
            if (e)
                cr_log_info("%s: AIR %zu cell (%zu, %zu) + 1: %s", c.desc, i, col, row, r.message);
            glstark_prove_result_free(&r);
        }
        case_free(&c);
    }
    glstark_device_destroy(dev);
}
