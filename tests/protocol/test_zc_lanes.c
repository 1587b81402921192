/* The CPU engine's lane interpreter of compiled constraint programs
 * (src/engine/cpu/zc_lanes.h) against the DAG's definition: each lane's
 * nodes evaluated one by one (gs_cdag_eval_ext) and combined as the
 * zerocheck defines it, zc = Σ λ^i c_i, p = norm Σ eq3b_k count_k,
 * q = Σ eq3b_k (Σ β^j msg_kj + β^len (bus_k + 1)). Random DAGs over every
 * node kind, fixed printed seeds, edge values, poisoned outputs; both the
 * plain C and (where the CPU has it) the AVX-512 form. */
#include <criterion/criterion.h>

#include "prove/zerocheck.h"
#include "dft/dft_test_util.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cpu/zc_lanes.h"
#include "engine/cpu/kernels.h"
#include "engine/zc_code.h"

/* the edge-value generator of the dft tests */
#define rnd_bb t_rand_bb

static bb4_t rnd_bb4(uint64_t *s)
{
    bb4_t r = {{rnd_bb(s), rnd_bb(s), rnd_bb(s), rnd_bb(s)}};
    return r;
}

enum { W_MAIN = 5, W_PREP = 3, N_PUB = 2, N_INT = 3, MAX_NODES = 400 };

typedef struct fixture {
    gs_cnode nodes[MAX_NODES];
    uint32_t cidx[MAX_NODES];
    uint32_t msg[N_INT][6];
    gs_cinteraction its[N_INT];
    gs_cdag dag;
    uint32_t widths[2];
    bb_t publics[N_PUB];
    gs_zc_trace tr;
    bb4_t lambda[MAX_NODES], eq3b[N_INT];
    gs_zc_weights w;
} fixture;

/* A random DAG: every leaf kind, then computed nodes over earlier ones.
 * With chains set, most computed nodes read the node before them and a
 * leaf, and few are constraints: long runs of results read once, by the
 * next node (what the compiler fuses). */
static void make_fixture(fixture *f, uint64_t *s, uint32_t n_computed, int chains)
{
    memset(f, 0, sizeof *f);
    uint32_t n = 0;
    for (uint32_t c = 0; c < W_MAIN; c++)
        for (uint8_t r = 0; r < 2; r++)
            f->nodes[n++] = (gs_cnode){GS_CN_VAR_MAIN, r, 0, c, 0, 0};
    for (uint32_t c = 0; c < W_PREP; c++)
        f->nodes[n++] = (gs_cnode){GS_CN_VAR_PREP, (uint8_t)(c & 1), 0, c, 0, 0};
    f->nodes[n++] = (gs_cnode){GS_CN_PUBLIC, 0, 0, 0, 0, 0};
    f->nodes[n++] = (gs_cnode){GS_CN_PUBLIC, 0, 0, 1, 0, 0};
    f->nodes[n++] = (gs_cnode){GS_CN_IS_FIRST, 0, 0, 0, 0, 0};
    f->nodes[n++] = (gs_cnode){GS_CN_IS_LAST, 0, 0, 0, 0, 0};
    f->nodes[n++] = (gs_cnode){GS_CN_IS_TRANSITION, 0, 0, 0, 0, 0};
    const uint32_t cv[4] = {0, 1, BB_P - 1, 7};
    for (int i = 0; i < 4; i++)
        f->nodes[n++] = (gs_cnode){GS_CN_CONST, 0, 0, 0, 0, bb_from_canonical(cv[i])};
    uint32_t leaves = n;
    for (uint32_t i = 0; i < n_computed && n < MAX_NODES; i++, n++) {
        uint64_t r = splitmix64(s);
        uint8_t kind = (uint8_t)(GS_CN_ADD + r % 4);
        /* mostly recent operands, as in real DAGs, sometimes any earlier node */
        uint32_t a = (r >> 8) & 1 ? n - 1 - (uint32_t)((r >> 16) % (n < 8 ? n : 8)) : (uint32_t)((r >> 24) % n);
        uint32_t b = (uint32_t)((r >> 40) % n);
        if (chains && n > leaves && (r >> 60) != 0) /* 15 in 16 */
            a = n - 1, b = (uint32_t)((r >> 40) % leaves);
        if ((r >> 7) & 1) { /* the recent operand second too (a fused c - t) */
            uint32_t x = a;
            a = b, b = x;
        }
        f->nodes[n] = (gs_cnode){kind, 0, 0, a, kind == GS_CN_NEG ? 0 : b, 0};
    }
    uint32_t nc = 0;
    for (uint32_t i = leaves; i < n; i++)
        if (splitmix64(s) % (chains ? 8 : 3) == 0)
            f->cidx[nc++] = i;
    f->cidx[nc++] = 0; /* a leaf as a constraint too (kept ascending below) */
    for (uint32_t i = nc - 1; i > 0 && f->cidx[i] < f->cidx[i - 1]; i--) {
        uint32_t x = f->cidx[i];
        f->cidx[i] = f->cidx[i - 1];
        f->cidx[i - 1] = x;
    }
    for (uint32_t k = 0; k < N_INT; k++) {
        uint32_t len = 1 + (uint32_t)(splitmix64(s) % 6);
        for (uint32_t j = 0; j < len; j++)
            f->msg[k][j] = (uint32_t)(splitmix64(s) % n);
        f->its[k] = (gs_cinteraction){f->msg[k], len, (uint32_t)(splitmix64(s) % n), (uint16_t)(k * 3)};
    }
    f->dag = (gs_cdag){f->nodes, n, f->cidx, nc, f->its, N_INT, 3, 1, 1, 0};
    f->widths[0] = W_MAIN;
    f->widths[1] = W_PREP;
    for (int i = 0; i < N_PUB; i++)
        f->publics[i] = rnd_bb(s);
    f->tr = (gs_zc_trace){&f->dag, 4, 2, NULL, f->widths, f->publics, N_PUB, NULL};
    for (uint32_t i = 0; i < nc; i++)
        f->lambda[i] = rnd_bb4(s);
    for (uint32_t k = 0; k < N_INT; k++)
        f->eq3b[k] = rnd_bb4(s);
    f->w = (gs_zc_weights){f->lambda, rnd_bb4(s), f->eq3b, rnd_bb(s)};
}

/* The three sums of one lane by definition; tab: the lane's table columns. */
static void expected(const fixture *f, const bb4_t *tab, bb4_t out[3])
{
    const gs_cdag *d = &f->dag;
    bb4_t *nodes = malloc(d->n_nodes * sizeof *nodes);
    const bb4_t *cols[2] = {tab + 3, tab + 3 + 2 * W_MAIN};
    gs_cdag_env_ext env = {cols, {tab[0], tab[1], tab[2]}, f->publics};
    gs_cdag_eval_ext(d, &env, nodes);
    bb4_t zc = bb4_zero(), p = bb4_zero(), q = bb4_zero();
    for (uint32_t i = 0; i < d->n_constraints; i++)
        zc = bb4_add(zc, bb4_mul(f->lambda[i], nodes[d->constraint_idx[i]]));
    for (uint32_t k = 0; k < d->n_interactions; k++) {
        const gs_cinteraction *it = &d->interactions[k];
        p = bb4_add(p, bb4_mul(f->eq3b[k], nodes[it->count]));
        bb4_t h = bb4_zero(), pw = bb4_one();
        for (uint32_t j = 0; j < it->message_len; j++) {
            h = bb4_add(h, bb4_mul(pw, nodes[it->message[j]]));
            pw = bb4_mul(pw, f->w.beta);
        }
        h = bb4_add(h, bb4_mul_base(pw, bb_from_u32((uint32_t)it->bus_index + 1)));
        q = bb4_add(q, bb4_mul(f->eq3b[k], h));
    }
    out[0] = zc;
    out[1] = bb4_mul_base(p, f->w.norm);
    out[2] = q;
    free(nodes);
}

/* The column map: ascending table columns, exactly those the program reads;
 * compact operands index it, others are table columns. */
static void check_col_map(const fixture *f, const gs_zc_code *code)
{
    size_t ncols = gs_zc_table_cols(&f->tr);
    uint8_t *read = calloc(ncols, 1);
    const uint32_t *g = code->aux + 4 * (size_t)code->grp_off;
    for (uint32_t pc = g[0]; pc < g[1]; pc++) {
        const uint32_t *in = code->aux + 4 * (size_t)pc;
        int pos[3], np = gs_zc_ins_operand_places(in, pos);
        for (int o = 0; o < np; o++) {
            uint32_t opnd = gs_zc_ins_operand(in, pos[o]);
            if (GS_ZC_OPND_KIND(opnd) == GS_ZC_OPND_COL) {
                uint32_t i = GS_ZC_OPND_INDEX(opnd);
                cr_assert_lt(i, code->numbering == GS_ZC_COLS_READ ? code->n_cols : ncols, "column operand %u out of range", i);
                read[code->numbering == GS_ZC_COLS_READ ? code->col_map[i] : i] = 1;
            }
        }
    }
    uint32_t n = 0;
    for (size_t c = 0; c < ncols; c++)
        if (read[c]) {
            cr_assert_lt(n, code->n_cols);
            cr_assert_eq(code->col_map[n], c, "column map entry %u is %u, want %zu", n, code->col_map[n], c);
            n++;
        }
    cr_assert_eq(n, code->n_cols, "the map lists %u columns, the program reads %u", code->n_cols, n);
    free(read);
}

static void check(gs_simd_isa isa, uint64_t seed, uint32_t n_computed, int chains)
{
    for (int compact = 0; compact < 2; compact++) {
    uint64_t s = seed;
    fixture *f = malloc(sizeof *f);
    make_fixture(f, &s, n_computed, chains);
    gs_error err;
    gs_zc_code code;
    cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 1, compact, &code, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(code.numbering, compact);
    check_col_map(f, &code);
    gs_zc_lanes lp;
    cr_assert_eq(gs_zc_lanes_init(&lp, &code, gs_cpu_kernels_of(isa)), 0);
    size_t ncols = gs_zc_table_cols(&f->tr);
    cr_assert_eq(ncols, 3 + 2 * (W_MAIN + W_PREP));
    bb_t *blocks = malloc(ncols * GS_ZC_BLOCK * sizeof(bb_t));
    bb4_t *tab = malloc(GS_ZC_LANES * ncols * sizeof *tab);
    for (int rep = 0; rep < 3; rep++) { /* the same scratch reused */
        for (int j = 0; j < GS_ZC_LANES; j++)
            for (size_t c = 0; c < ncols; c++) {
                tab[j * ncols + c] = rep == 2 && j < 3 ? bb4_from_base(bb_from_canonical(j == 0 ? 0 : j == 1 ? 1 : BB_P - 1))
                                                       : rnd_bb4(&s);
                if (!compact)
                    gs_zc_lane_put(blocks + c * GS_ZC_BLOCK, j, tab[j * ncols + c]);
            }
        for (uint32_t i = 0; compact && i < code.n_cols; i++) /* only the mapped columns, in map order */
            for (int j = 0; j < GS_ZC_LANES; j++)
                gs_zc_lane_put(blocks + i * GS_ZC_BLOCK, j, tab[j * ncols + code.col_map[i]]);
        bb_t acc[3][GS_ZC_BLOCK];
        memset(acc, 0xFF, sizeof acc); /* not field words: every lane must be written */
        gs_zc_lanes_run(&lp, blocks, acc);
        for (int j = 0; j < GS_ZC_LANES; j++) {
            bb4_t want[3];
            expected(f, tab + j * ncols, want);
            for (int i = 0; i < 3; i++)
                cr_assert(bb4_eq(gs_zc_lane_get(acc[i], j), want[i]),
                          "%s, compact %d, seed %llu, %u nodes, rep %d: lane %d sum %d differs from the definition",
                          gs_simd_name(isa), compact, (unsigned long long)seed, f->dag.n_nodes, rep, j, i);
        }
    }
    free(blocks), free(tab);
    gs_zc_lanes_free(&lp);
    gs_zc_code_free(&code);
    free(f);
    }
}

/* Round 0's form: base-field columns, read with a column stride. */
static void check_base(gs_simd_isa isa, uint64_t seed, uint32_t n_computed, int chains)
{
    uint64_t s = seed;
    fixture *f = malloc(sizeof *f);
    make_fixture(f, &s, n_computed, chains);
    gs_error err;
    gs_zc_code code;
    cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 1, 0, &code, &err), GLSTARK_OK, "%s", err.msg);
    gs_zc_lanes lp;
    cr_assert_eq(gs_zc_lanes_init(&lp, &code, gs_cpu_kernels_of(isa)), 0);
    size_t ncols = gs_zc_table_cols(&f->tr), stride = GS_ZC_LANES + 5; /* columns not back to back */
    bb_t *table = malloc(ncols * stride * sizeof *table), *lane = malloc(ncols * sizeof *lane);
    bb4_t *nodes = malloc(f->dag.n_nodes * sizeof *nodes);
    bb_t *bnodes = malloc(f->dag.n_nodes * sizeof *bnodes);
    for (size_t i = 0; i < ncols * stride; i++)
        table[i] = rnd_bb(&s);
    bb_t acc[3][GS_ZC_BLOCK];
    memset(acc, 0xFF, sizeof acc);
    gs_zc_lanes_run_base(&lp, table, stride, acc);
    for (int j = 0; j < GS_ZC_LANES; j++) {
        /* the lane's values as extension elements through the extension definition */
        bb4_t *tab = malloc(ncols * sizeof *tab), want[3];
        for (size_t c = 0; c < ncols; c++) {
            lane[c] = table[c * stride + (size_t)j];
            tab[c] = bb4_from_base(lane[c]);
        }
        expected(f, tab, want);
        /* and the base-field evaluation of the nodes agrees with the extension one */
        const bb_t *cols[2] = {lane + 3, lane + 3 + 2 * W_MAIN};
        gs_cdag_env_base env = {cols, {lane[0], lane[1], lane[2]}, f->publics, 1};
        gs_cdag_eval_base(&f->dag, &env, bnodes);
        const bb4_t *ecols[2] = {tab + 3, tab + 3 + 2 * W_MAIN};
        gs_cdag_env_ext eenv = {ecols, {tab[0], tab[1], tab[2]}, f->publics};
        gs_cdag_eval_ext(&f->dag, &eenv, nodes);
        for (uint32_t i = 0; i < f->dag.n_nodes; i++)
            cr_assert(bb4_eq(nodes[i], bb4_from_base(bnodes[i])), "node %u: base and extension evaluations differ", i);
        for (int i = 0; i < 3; i++)
            cr_assert(bb4_eq(gs_zc_lane_get(acc[i], j), want[i]),
                      "base form %s, seed %llu, %u nodes: lane %d sum %d differs from the definition",
                      gs_simd_name(isa), (unsigned long long)seed, f->dag.n_nodes, j, i);
        free(tab);
    }
    free(table), free(lane), free(nodes), free(bnodes);
    gs_zc_lanes_free(&lp);
    gs_zc_code_free(&code);
    free(f);
}

Test(zc_lanes, base_form_matches_definition)
{
    uint64_t seed = 0x2C1A2001;
    printf("zc_lanes base form seeds from %llu\n", (unsigned long long)seed);
    for (uint32_t i = 0; i < 8; i++)
        for (gs_simd_isa isa = GS_SIMD_NONE; isa <= GS_SIMD_LAST; isa++)
            if (gs_simd_available(isa))
                for (int chains = 0; chains < 2; chains++)
                    check_base(isa, seed + i, 10 + 40 * i, chains);
}

Test(zc_lanes, portable_matches_definition)
{
    uint64_t seed = 0x2C1A0001;
    printf("zc_lanes portable seeds from %llu\n", (unsigned long long)seed);
    for (uint32_t i = 0; i < 12; i++)
        for (int chains = 0; chains < 2; chains++)
            check(GS_SIMD_NONE, seed + i, 10 + 30 * i, chains);
}

/* Every vector form (AVX-512, AVX2, NEON: one template) the CPU and build
 * have; an unavailable one must be refused. */
Test(zc_lanes, vector_matches_definition)
{
    uint64_t seed = 0x2C1A1001;
    for (gs_simd_isa isa = GS_SIMD_AVX2; isa <= GS_SIMD_LAST; isa++) {
        if (!gs_simd_available(isa)) {
            printf("zc_lanes: no %s on this CPU or in this build\n", gs_simd_name(isa));
            gs_zc_code code = {0};
            gs_zc_lanes lp;
            cr_assert_eq(gs_zc_lanes_init(&lp, &code, gs_cpu_kernels_of(isa)), -1, "an unavailable vector form (%s) was accepted",
                         gs_simd_name(isa));
            continue;
        }
        printf("zc_lanes %s seeds from %llu\n", gs_simd_name(isa), (unsigned long long)seed);
        for (uint32_t i = 0; i < 12; i++)
            for (int chains = 0; chains < 2; chains++)
                check(isa, seed + i, 10 + 30 * i, chains);
    }
}

/* The fixtures of the definition tests above hold every fused form: each
 * second operation, and c as a slot, a column and a constant, so those
 * tests check them all on every interpreter. A fused instruction's first
 * result is never stored, so the program is shorter than its nodes. */
Test(zc_lanes, fixtures_hold_every_fused_form)
{
    unsigned op2_seen[6] = {0}, c_kind_seen[3] = {0};
    uint32_t plain = 0, fused = 0;
    for (int form = 0; form < 4; form++)
        for (uint32_t i = 0; i < 12; i++) {
            uint64_t s = (form & 1 ? 0x2C1A0001u : 0x2C1A2001u) + i;
            fixture *f = malloc(sizeof *f);
            make_fixture(f, &s, 10 + (form & 1 ? 30 : 40) * i, form >> 1);
            gs_error err;
            gs_zc_code code;
            cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 1, 0, &code, &err), GLSTARK_OK, "%s", err.msg);
            for (uint32_t pc = 0; pc < code.n_instr; pc++) {
                const uint32_t *in = code.aux + 4 * (size_t)pc;
                uint32_t op2 = GS_ZC_INS_OP2(in[0]);
                cr_assert_leq(op2, GS_ZC_OP2_ACC, "instruction %u: second operation %u", pc, op2);
                cr_assert(op2 == GS_ZC_OP2_NONE || (GS_ZC_INS_OP(in[0]) != GS_ZC_OP_ACC),
                          "instruction %u: an accumulate cannot have a second operation", pc);
                op2_seen[op2]++;
                if (op2 != GS_ZC_OP2_NONE && op2 != GS_ZC_OP2_ACC)
                    c_kind_seen[GS_ZC_OPND_KIND(GS_ZC_INS_C(in[0])) >> 30]++;
                fused += op2 != GS_ZC_OP2_NONE;
                plain += op2 == GS_ZC_OP2_NONE;
            }
            gs_zc_code_free(&code);
            free(f);
        }
    printf("zc_lanes fixtures: %u plain and %u fused instructions; second operations add %u sub %u rsub %u mul %u acc "
           "%u; c a slot %u, a column %u, a constant %u\n",
           plain, fused, op2_seen[1], op2_seen[2], op2_seen[3], op2_seen[4], op2_seen[5], c_kind_seen[0],
           c_kind_seen[1], c_kind_seen[2]);
    for (int k = GS_ZC_OP2_ADD; k <= GS_ZC_OP2_ACC; k++)
        cr_assert_gt(op2_seen[k], 0, "no fixture fused second operation %d", k);
    for (int k = 0; k < 3; k++)
        cr_assert_gt(c_kind_seen[k], 0, "no fixture fused an operand c of kind %d", k);
}

/* Splitting into groups recomputes shared nodes, at most 4 times the
 * unsplit program: 40 constraints that all read one 100-node chain get a
 * few groups, not 40 (each would hold the chain), while 40 constraints on
 * separate nodes get all 40 they ask for. */
Test(zc_lanes, split_growth_is_bounded)
{
    uint64_t s = 0x2C1A3002;
    fixture *f = malloc(sizeof *f);
    for (int shared = 0; shared < 2; shared++) {
        make_fixture(f, &s, 0, 0);
        uint32_t n = f->dag.n_nodes, x = 0; /* node 0: a main column */
        for (uint32_t i = 0; i < 100; i++, n += 2) {
            f->nodes[n] = (gs_cnode){GS_CN_MUL, 0, 0, shared ? x : 0, shared ? x : 1, 0};
            f->nodes[n + 1] = (gs_cnode){GS_CN_ADD, 0, 0, n, 0, 0};
            x = n + 1;
        }
        uint32_t nc = 0;
        for (uint32_t j = 0; j < 40; j++, n++) {
            /* shared: the chain's end plus a constant; else one chain link each */
            f->nodes[n] = (gs_cnode){GS_CN_ADD, 0, 0, shared ? x : x - 2 * (39 - j), 13 + (j & 3), 0};
            f->cidx[nc++] = n;
        }
        f->dag.n_nodes = n;
        f->dag.n_constraints = nc;
        f->dag.n_interactions = 0;
        gs_error err;
        gs_zc_code one, many;
        cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 1, 0, &one, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 128, 0, &many, &err), GLSTARK_OK, "%s", err.msg);
        cr_log_info("%s: 1 group %u instructions; asked 128: %u groups, %u instructions", shared ? "shared chain" : "separate links",
                    one.n_instr, many.n_groups, many.n_instr);
        if (shared) {
            cr_assert(many.n_groups > 1 && many.n_groups < 40, "%u groups", many.n_groups);
            cr_assert_leq(many.n_instr, 4 * one.n_instr);
        } else {
            cr_assert_eq(many.n_groups, 40, "%u groups for 40 independent constraints", many.n_groups);
        }
        gs_zc_code_free(&one);
        gs_zc_code_free(&many);
    }
    free(f);
}

/* The cache keeps one table-numbered program per DAG (the weights are not
 * part of its key) and hands out compact copies with this call's weight
 * table: every combination, with the weights drawn anew on some calls (a
 * new proof's challenges) and kept on others (the rounds of one proof),
 * gives the words a direct compile gives. */
Test(zc_lanes, cached_programs_match_direct_compiles)
{
    uint64_t s = 0x2C1A3001;
    fixture *f = malloc(sizeof *f);
    make_fixture(f, &s, 200, 0);
    gs_error err;
    gs_zc_cache *cache = NULL;
    const int order[8] = {1, 0, 2, 1, 0, 2, 0, 1};
    for (int i = 0; i < 8; i++) {
        int compact = order[i];
        if (i == 2 || i == 4) { /* new challenges: every weight changes */
            for (uint32_t c = 0; c < f->dag.n_constraints; c++)
                f->lambda[c] = rnd_bb4(&s);
            for (uint32_t k = 0; k < N_INT; k++)
                f->eq3b[k] = rnd_bb4(&s);
            f->w.beta = rnd_bb4(&s);
            f->w.norm = rnd_bb(&s);
        }
        gs_zc_code direct, cached;
        cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 2, compact, &direct, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert_eq(gs_zc_compile_cached(&cache, &f->tr, &f->w, 2, compact, &cached, &err), GLSTARK_OK, "%s", err.msg);
        cr_assert_eq(cached.numbering, compact);
        cr_assert_eq(cached.aux_words, direct.aux_words);
        cr_assert_eq(memcmp(cached.aux, direct.aux, direct.aux_words * sizeof(uint32_t)), 0,
                     "call %d (compact %d): the cached program differs from a direct compile", i, compact);
        cr_assert_eq(cached.n_cols, direct.n_cols);
        cr_assert_eq(memcmp(cached.col_map, direct.col_map, direct.n_cols * sizeof(uint32_t)), 0);
        gs_zc_code_free(&direct);
        gs_zc_code_free(&cached);
    }
    gs_zc_cache_free(cache);
    free(f);
}

/* A batch of many AIRs keeps every program of its rounds: 12 DAGs, two
 * programs each (round 0's and the rounds' numbering), asked for in five
 * rounds, compile once each (a fixed eight entries compiled them every
 * round). And a program tells whether it holds a call's weights. */
Test(zc_lanes, cache_holds_a_batch_of_many_airs)
{
    uint64_t s = 0x2C1A3002;
    enum { N = 12, ROUNDS = 5 };
    fixture *f = malloc(N * sizeof *f);
    for (int a = 0; a < N; a++)
        make_fixture(&f[a], &s, 40 + 10 * (uint32_t)a, a & 1);
    gs_error err;
    gs_zc_cache *cache = NULL;
    for (int r = 0; r < ROUNDS; r++)
        for (int a = 0; a < N; a++)
            for (int num = GS_ZC_COLS_READ; num <= GS_ZC_COLS_FOLDED; num++) {
                gs_zc_code code;
                cr_assert_eq(gs_zc_compile_cached(&cache, &f[a].tr, &f[a].w, 2, num, &code, &err), GLSTARK_OK, "%s",
                             err.msg);
                cr_assert(gs_zc_code_weights_match(&f[a].tr, &f[a].w, &code), "AIR %d: its own weights", a);
                if (a > 0)
                    cr_assert(!gs_zc_code_weights_match(&f[a - 1].tr, &f[a - 1].w, &code),
                              "AIR %d's program against AIR %d's DAG and weights", a, a - 1);
                gs_zc_code_free(&code);
            }
    uint64_t hits, misses;
    size_t entries;
    gs_zc_cache_counts(cache, &hits, &misses, &entries);
    cr_assert_eq(misses, 2 * N, "%" PRIu64 " compiles for %d programs", misses, 2 * N);
    cr_assert_eq(hits, 2 * N * (ROUNDS - 1));
    cr_assert_eq(entries, 2 * N);
    /* new challenges: the kept program no longer holds the weights */
    gs_zc_code code;
    cr_assert_eq(gs_zc_compile_cached(&cache, &f[0].tr, &f[0].w, 2, GS_ZC_COLS_READ, &code, &err), GLSTARK_OK);
    f[0].lambda[0] = bb4_add(f[0].lambda[0], bb4_one());
    cr_assert(!gs_zc_code_weights_match(&f[0].tr, &f[0].w, &code), "a changed λ power is seen");
    gs_zc_code_free(&code);
    gs_zc_cache_free(cache);
    free(f);
}

/* Programs compiled ahead on the cache's thread are what the proof then
 * finds: every later lookup a hit, each program equal to a direct compile
 * with the caller's weights (the ahead compile had none). A cache freed
 * while compiling ahead, and one asked twice, stay sound. */
Test(zc_lanes, compiled_ahead_programs_match_direct_compiles)
{
    uint64_t s = 0x2C1A3003;
    enum { N = 6 };
    fixture *f = malloc(N * sizeof *f);
    gs_zc_trace tr[N];
    for (int a = 0; a < N; a++) {
        make_fixture(&f[a], &s, 60 + 20 * (uint32_t)a, a & 1);
        tr[a] = f[a].tr;
    }
    const gs_zc_variant v[2] = {{2, GS_ZC_COLS_READ}, {4, GS_ZC_COLS_FOLDED}};
    gs_error err;
    gs_zc_cache *cache = NULL;
    gs_zc_cache_compile_ahead(&cache, tr, N, v, 2);
    gs_zc_cache_compile_ahead(&cache, tr, N, v, 2); /* waits for the first, then finds every program */
    for (int a = 0; a < N; a++)
        for (int i = 0; i < 2; i++) {
            gs_zc_code direct, cached;
            cr_assert_eq(gs_zc_compile(&f[a].tr, &f[a].w, v[i].k, v[i].numbering, &direct, &err), GLSTARK_OK);
            cr_assert_eq(gs_zc_compile_cached(&cache, &f[a].tr, &f[a].w, v[i].k, v[i].numbering, &cached, &err),
                         GLSTARK_OK, "%s", err.msg);
            cr_assert_eq(cached.aux_words, direct.aux_words);
            cr_assert_eq(memcmp(cached.aux, direct.aux, direct.aux_words * sizeof(uint32_t)), 0,
                         "AIR %d variant %d: the program compiled ahead differs from a direct compile", a, i);
            gs_zc_code_free(&direct);
            gs_zc_code_free(&cached);
        }
    uint64_t hits, misses;
    size_t entries;
    gs_zc_cache_counts(cache, &hits, &misses, &entries);
    cr_assert_eq(misses, 2 * N, "%" PRIu64 " compiles, all ahead", misses);
    cr_assert_eq(hits, 2 * N);
    gs_zc_cache_free(cache);
    cache = NULL;
    gs_zc_cache_compile_ahead(&cache, tr, N, v, 2);
    gs_zc_cache_free(cache); /* joins the thread first */
    gs_zc_cache_wait(NULL);
    free(f);
}

/* The folded tables' columns: the selectors, then the table columns the
 * fixture's DAG has variables for (every main column at both rows, the
 * preprocessed column c only at row c & 1). A program numbered for them
 * reads the same table columns as one numbered as the table. */
Test(zc_lanes, folded_numbering_matches_table_numbering)
{
    uint64_t s = 0x5EED0F01;
    fixture *f = malloc(sizeof *f);
    make_fixture(f, &s, 200, 0);
    gs_error err;
    uint32_t *layout, n;
    cr_assert_eq(gs_zc_folded_layout(&f->tr, &layout, &n, &err), GLSTARK_OK, "%s", err.msg);
    /* main columns: table columns 3..12; preprocessed c: 13 + 2c + (c & 1) */
    const uint32_t want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17};
    cr_assert_eq(n, sizeof want / sizeof want[0], "%u folded columns", n);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(layout[i], want[i], "folded column %u is table column %u, want %u", i, layout[i], want[i]);
    gs_zc_code tab, fold;
    cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 2, GS_ZC_COLS_TABLE, &tab, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(gs_zc_compile(&f->tr, &f->w, 2, GS_ZC_COLS_FOLDED, &fold, &err), GLSTARK_OK, "%s", err.msg);
    cr_assert_eq(fold.numbering, GS_ZC_COLS_FOLDED);
    cr_assert_eq(fold.n_folded, n);
    cr_assert_eq(fold.aux_words, tab.aux_words);
    uint32_t cols_seen = 0;
    for (uint32_t q = 0; q < tab.n_instr; q++) {
        const uint32_t *a = tab.aux + 4 * (size_t)q, *b = fold.aux + 4 * (size_t)q;
        int pos[3], np = gs_zc_ins_operand_places(a, pos);
        cr_assert_eq(a[0], b[0], "instruction %u: operations differ", q);
        for (int o = 0; o < np; o++) {
            uint32_t x = gs_zc_ins_operand(a, pos[o]), y = gs_zc_ins_operand(b, pos[o]);
            cr_assert_eq(GS_ZC_OPND_KIND(x), GS_ZC_OPND_KIND(y));
            if (GS_ZC_OPND_KIND(x) != GS_ZC_OPND_COL) {
                cr_assert_eq(x, y, "instruction %u: operand %d differs", q, o);
                continue;
            }
            cr_assert_lt(GS_ZC_OPND_INDEX(y), n);
            cr_assert_eq(layout[GS_ZC_OPND_INDEX(y)], GS_ZC_OPND_INDEX(x), "instruction %u: folded column %u is not %u",
                         q, GS_ZC_OPND_INDEX(y), GS_ZC_OPND_INDEX(x));
            cols_seen++;
        }
    }
    cr_assert_gt(cols_seen, 0u);
    size_t rest = 4 * (size_t)tab.n_instr;
    cr_assert_eq(memcmp(tab.aux + rest, fold.aux + rest, (tab.aux_words - rest) * sizeof(uint32_t)), 0);
    gs_zc_code_free(&tab);
    gs_zc_code_free(&fold);
    free(layout);
    /* a variable past its part's width: refused, nothing allocated */
    f->nodes[0].a = W_MAIN + 2;
    cr_assert_eq(gs_zc_folded_layout(&f->tr, &layout, &n, &err), GLSTARK_ERR_INVALID_ARGUMENT);
    cr_assert_null(layout);
    cr_assert(strstr(err.msg, "out of range"), "%s", err.msg);
    free(f);
}
