/* The dispatch time budget's planning (src/gles/dispatch_plan.h): a pure
 * function of (rate, budget, work), tested with injected rates. No GPU and
 * no timing here: the measured figures are in docs/performance.md ("Slow
 * GPUs: dispatch time budget"). */
#include <criterion/criterion.h>

#include "gles/dispatch_plan.h"

#include <stdlib.h>
#include <string.h>

#include "api/options.h"

#define MS 1000000ull
/* a full 65535 x 65535 grid of 256-invocation groups, and the floor's 128 */
#define CAP256 (65535ull * 65535ull * 256ull)
#define CAP128 (65535ull * 65535ull * 128ull)

/* 1-D kernels indexed by gs_linear_id() (fills, copies, gathers, Poseidon2
 * leaves and compressions, WHIR and GKR folds): budget x rate invocations,
 * whole work groups. */
Test(dispatch_plan, one_d_kernels)
{
    /* 2 invocations per us, 50 ms: 100000 -> 390 groups of 256 */
    cr_assert_eq(gs_dispatch_plan(50 * MS, 2e-3, 1, 256, CAP256), 99840ull);
    /* the same rate at the floor's local size 128: 781 groups */
    cr_assert_eq(gs_dispatch_plan(50 * MS, 2e-3, 1, 128, CAP128), 99968ull);
    /* a fast device: 1 invocation per ns -> 5e7, a multiple of 256 */
    cr_assert_eq(gs_dispatch_plan(50 * MS, 1.0, 1, 256, CAP256), 49999872ull);
    cr_assert_eq(gs_dispatch_plan(50 * MS, 1.0, 1, 256, CAP256) % 256, 0ull);
}

/* Kernels whose work groups cooperate through shared memory (the DFT's
 * shared pass, Merkle cosets, work-group sums): cut at work-group
 * boundaries only, so every plan is a multiple of the local size. */
Test(dispatch_plan, shared_memory_kernels_whole_groups)
{
    for (double rate = 1e-6; rate < 10.0; rate *= 3.7) {
        uint64_t n = gs_dispatch_plan(50 * MS, rate, 1, 256, CAP256);
        cr_assert_eq(n % 256, 0ull, "rate %g: %llu", rate, (unsigned long long)n);
        cr_assert_geq(n, 256ull);
    }
}

/* The interpreter's lanes per dispatch before the budget's cut, from the
 * keccakf-1024 multilinear rounds' program (the board profile's peak):
 * 26495 instructions in one group, or 29224 in 4 groups of at most 7306
 * once the budget splits it. Every lane holds all 643 slots. Without a
 * budget, and on desktop-class devices, the lanes follow the longest group
 * (the dispatch is the GPU's unit of work); under a budget elsewhere the
 * whole program, so the split keeps the work buffer of the unsplit
 * program: 2^25 / 29224 = 1148 lanes, where the longest group would give
 * 2^25 / 7306 = 4592, four times the slots. */
Test(dispatch_plan, interpreter_work_lanes)
{
    const uint64_t work = (uint64_t)1 << 25, one = 26495, longest = 7306, program = 29224;
    cr_assert_eq(gs_zc_work_lanes(0, 0, work, one, one), 1266ull);
    cr_assert_eq(gs_zc_work_lanes(0, 0, work, longest, program), 4592ull, "no budget: by the longest group");
    cr_assert_eq(gs_zc_work_lanes(50 * MS, 0, work, one, one), 1266ull);
    cr_assert_eq(gs_zc_work_lanes(50 * MS, 0, work, longest, program), 1148ull, "budget: by the whole program");
    cr_assert_eq(gs_zc_work_lanes(50 * MS, 1, work, longest, program), 4592ull,
                 "desktop-class, budget: by the longest group");
    /* the work buffer with the split stays within the program's growth
     * (29224 / 26495) of the unsplit one's */
    cr_assert_leq(gs_zc_work_lanes(50 * MS, 0, work, longest, program) * one,
                  gs_zc_work_lanes(50 * MS, 0, work, one, one) * program);
    /* at least one lane, and no division by zero */
    cr_assert_eq(gs_zc_work_lanes(50 * MS, 0, 1000, 4000, 9000), 1ull);
    cr_assert_eq(gs_zc_work_lanes(0, 0, 1000, 0, 0), 1000ull);
}

/* The interpreter: a lane costs the instructions of its DAG group. Keccak's
 * DAG compiles to 39536 instructions in one group (the GLSTARK_PROFILE row
 * "zerocheck: DAG compile (host)" of keccakf: 237216 units in 6 compiles).
 * At 22 M instructions per second (about llvmpipe on one thread) 50 ms is
 * 1.1 M instructions: 27 lanes, 16 in whole groups of 16. */
Test(dispatch_plan, interpreter_keccak)
{
    const uint64_t keccak = 39536;
    const double rate = 22e6 * 1e-9; /* instructions per ns */
    /* lanes per dispatch in groups of 16 (gs_zc_budget_local below) */
    uint64_t lanes = gs_dispatch_plan(50 * MS, rate, keccak, 16, CAP256);
    cr_assert_eq(lanes, 16ull, "%llu", (unsigned long long)lanes);
    cr_assert_leq((double)lanes * keccak / rate, 50.0 * MS);
    /* the interpreter's own planning: its scratch allows 848 lanes */
    gs_dispatch_rate r = {.rate = rate, .best_ns = 10 * MS, .last_chunk = 64, .timed = 5, .dispatches = 6, .calibrated = 1};
    cr_assert_eq(gs_zc_budget_lanes(50 * MS, &r, keccak, 16, 848), 16ull);
    cr_assert_eq(gs_zc_budget_lanes(0, &r, keccak, 8, 848), 848ull, "no budget: unchanged");
    gs_dispatch_rate cold = {0};
    cr_assert_eq(gs_zc_budget_lanes(50 * MS, &cold, keccak, 8, 848), 848ull, "not calibrated: unchanged");
    /* lanes per work group: 2^19 / 39536 = 13 before any rate; with the
     * rate 13.9 run in half the budget, on a 10x slower device 1.4: each
     * time the narrowest group planned, 16 (narrower ones run no faster;
     * gs_zc_group_fits then asks for a split DAG); a GPU 1000x faster than
     * the proxy: the full 256 (the prior no longer applies) */
    cr_assert_eq(gs_zc_budget_local(50 * MS, NULL, keccak, 256, 0), 16u);
    cr_assert_eq(gs_zc_budget_local(50 * MS, &r, keccak, 256, 0), 16u);
    r.rate = rate / 10;
    cr_assert_eq(gs_zc_budget_local(50 * MS, &r, keccak, 256, 0), 16u);
    r.rate = rate * 1000;
    cr_assert_eq(gs_zc_budget_local(50 * MS, &r, keccak, 256, 0), 256u);
    cr_assert_eq(gs_zc_budget_local(50 * MS, &r, keccak, 128, 0), 128u);
    r.rate = rate;
    /* a small DAG keeps the full local size; no budget: unchanged */
    cr_assert_eq(gs_zc_budget_local(50 * MS, NULL, 100, 256, 0), 256u);
    cr_assert_eq(gs_zc_budget_local(0, NULL, keccak, 256, 0), 256u);
    /* a DAG beyond the prior on its own still gets the narrowest group */
    cr_assert_eq(gs_zc_budget_local(50 * MS, NULL, 1u << 22, 256, 0), 16u);
    /* a device whose groups hold fewer lanes than that keeps its own */
    cr_assert_eq(gs_zc_budget_local(50 * MS, NULL, keccak, 8, 0), 8u);
    /* the extension variant's prior is a quarter of the base one:
     * 2^17 / 4096 = 32 lanes against 2^19 / 4096 = 128 */
    cr_assert_eq(gs_zc_budget_local(50 * MS, NULL, 4096, 256, 1), 32u);
    cr_assert_eq(gs_zc_budget_local(50 * MS, NULL, 4096, 256, 0), 128u);
}

/* Whether the interpreter's DAG must be split into more groups: a group of
 * the narrowest width planned (16 lanes) must run within the prior, or
 * half the budget at a measured rate. The figures are the board proxy's at
 * keccakf-1024: the longest group of Keccak's DAG as compiled there had
 * 26495 instructions, and 16-lane groups of the extension variant ran
 * 0.0037 instructions per ns: 115 ms a group, past the 50 ms budget. */
Test(dispatch_plan, interpreter_group_split)
{
    const uint64_t B = 50 * MS;
    /* over the base field the prior allows 2^19 / 16 = 32768 per lane */
    cr_assert(gs_zc_group_fits(B, NULL, 26495, 256, 0));
    cr_assert(gs_zc_group_fits(B, NULL, 32768, 256, 0));
    cr_assert(!gs_zc_group_fits(B, NULL, 39536, 256, 0), "Keccak's whole DAG: split");
    /* over the extension 2^17 / 16 = 8192 */
    cr_assert(!gs_zc_group_fits(B, NULL, 26495, 256, 1));
    cr_assert(gs_zc_group_fits(B, NULL, 8192, 256, 1));
    cr_assert(!gs_zc_group_fits(B, NULL, 8193, 256, 1));
    /* the measured rate: 25 ms x 0.0037 = 92500 per group, 5781 per lane */
    gs_dispatch_rate r = {.rate = 0.0037, .calibrated = 1};
    cr_assert(gs_zc_group_fits(B, &r, 5781, 256, 1));
    cr_assert(!gs_zc_group_fits(B, &r, 5782, 256, 1));
    /* a measured rate replaces either prior */
    cr_assert(!gs_zc_group_fits(B, &r, 26495, 256, 0));
    /* a chunk that already ran within half the budget counts too */
    r.safe_units = 16ull * 26495;
    cr_assert(gs_zc_group_fits(B, &r, 26495, 256, 1));
    /* groups of at most 8 lanes: 8 lanes count */
    cr_assert(gs_zc_group_fits(B, NULL, 16384, 8, 1));
    cr_assert(!gs_zc_group_fits(B, NULL, 16385, 8, 1));
    /* no budget: nothing to split */
    cr_assert(gs_zc_group_fits(0, NULL, 1u << 30, 256, 1));
}

Test(dispatch_plan, edge_cases)
{
    /* a tiny budget: at least one work group */
    cr_assert_eq(gs_dispatch_plan(1, 1e-6, 1, 256, CAP256), 256ull);
    cr_assert_eq(gs_dispatch_plan(1 * MS, 1e-9, 1000000, 64, CAP256), 64ull);
    /* no budget, or no rate: unsplit (the grid's own limit) */
    cr_assert_eq(gs_dispatch_plan(0, 1.0, 1, 256, CAP256), CAP256);
    cr_assert_eq(gs_dispatch_plan(50 * MS, 0.0, 1, 256, CAP256), CAP256);
    /* never beyond what one dispatch can cover */
    cr_assert_eq(gs_dispatch_plan(60000 * MS, 1e3, 1, 256, 65535ull * 256), 65535ull * 256);
    /* weight 0 counts as 1 */
    cr_assert_eq(gs_dispatch_plan(50 * MS, 2e-3, 0, 256, CAP256), 99840ull);
}

/* Calibration: the first dispatch is one group (the warm-up, untimed for the
 * rate), then timed chunks grow 4x from one group until one runs an eighth
 * of the budget; later plans follow the rate. */
Test(dispatch_plan, calibration_sequence)
{
    gs_dispatch_rate r = {0};
    const uint64_t B = 50 * MS;
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 256, CAP256), 256ull);
    cr_assert(!gs_dispatch_should_time(&r, B, 256), "the warm-up is not timed for the rate");
    gs_dispatch_count(&r);
    uint64_t expect = 256;
    /* a device doing 1 invocation per us: chunks of 256, 1024, 4096 take
     * 0.26, 1, 4 ms; 16384 takes 16 ms >= 50/8: calibrated */
    for (int k = 0; k < 4; k++) {
        uint64_t n = gs_dispatch_next(&r, B, 1, 256, CAP256);
        cr_assert_eq(n, expect, "chunk %d: %llu", k, (unsigned long long)n);
        cr_assert(gs_dispatch_should_time(&r, B, n));
        gs_dispatch_rate_record(&r, n, 1, n * 1000, B, 0);
        gs_dispatch_count(&r);
        expect *= 4;
    }
    cr_assert(r.calibrated);
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 256, CAP256), 49920ull);
    cr_assert(!gs_dispatch_should_time(&r, B, 1u << 20));
    /* small calls teach nothing new: not timed */
    gs_dispatch_rate s = {0};
    gs_dispatch_count(&s);
    gs_dispatch_rate_record(&s, 4096, 1, 100000, B, 0);
    cr_assert(!gs_dispatch_should_time(&s, B, 4096));
    cr_assert(gs_dispatch_should_time(&s, B, 4097));
    /* a wide GPU, latency-bound: 8 Keccak lanes take 12.9 ms, and 4x or 16x
     * as many hardly longer. Such durations are no rate: not calibrated,
     * so the chunks keep growing; but each measured rate is a low estimate,
     * so the interpreter's work groups widen with it (8 -> 32 -> 128) */
    gs_dispatch_rate f = {0};
    gs_dispatch_count(&f);
    gs_dispatch_rate_record(&f, 8, 39536, 12900000, B, 0);
    cr_assert(!f.calibrated, "one chunk: no evidence that time grows with the work");
    cr_assert_eq(gs_zc_budget_local(B, &f, 39536, 128, 0), 16u);
    gs_dispatch_rate_record(&f, 32, 39536, 13000000, B, 0);
    cr_assert(!f.calibrated, "4x the lanes in the same time: latency-bound");
    cr_assert_eq(gs_zc_budget_local(B, &f, 39536, 128, 0), 32u);
    gs_dispatch_rate_record(&f, 848, 39536, 14000000, B, 1);
    cr_assert(!f.calibrated, "even the call's end: the time did not grow");
    cr_assert_eq(gs_zc_budget_local(B, &f, 39536, 128, 0), 128u);
    cr_assert_eq(gs_zc_budget_local(B, NULL, 39536, 128, 0), 16u, "the prior before any rate");
    /* out of the latency-bound regime: 4x the work, 3x the time */
    gs_dispatch_rate_record(&f, 4 * 848, 39536, 42000000, B, 0);
    cr_assert(f.calibrated);
    /* a program whose calls never leave the latency-bound regime stops
     * being timed after GS_CALIB_MAX_TIMED chunks, with its low estimate */
    gs_dispatch_rate g = {0};
    for (uint64_t k = 1; k <= GS_CALIB_MAX_TIMED; k++) {
        cr_assert(!g.calibrated, "chunk %llu", (unsigned long long)k);
        gs_dispatch_rate_record(&g, 8ull << (2 * k), 39536, 12900000, B, 0);
    }
    cr_assert(g.calibrated);
    /* a chunk that ran within half the budget bounds every later plan from
     * below: here the longest chunk (8 lanes, a 30 ms hiccup) sets a rate
     * of 13 lanes per 50 ms, but 848 lanes already ran in 20 ms */
    gs_dispatch_rate q = {0};
    gs_dispatch_count(&q);
    gs_dispatch_rate_record(&q, 8, 39536, 30 * MS, B, 0);
    gs_dispatch_rate_record(&q, 848, 39536, 20 * MS, B, 1);
    cr_assert_eq(q.safe_units, 848ull * 39536);
    q.calibrated = 1;
    cr_assert_eq(gs_dispatch_next(&q, B, 39536, 8, CAP256), 848ull);
    cr_assert_eq(gs_zc_budget_lanes(B, &q, 39536, 8, 4096), 848ull);
    cr_assert_eq(gs_zc_budget_local(B, &q, 39536, 128, 0), 128u);
    /* a chunk of half the budget ends calibration whatever came before */
    gs_dispatch_rate h = {0};
    gs_dispatch_rate_record(&h, 8, 39536, 26 * MS, B, 0);
    cr_assert(h.calibrated);
    /* no budget: nothing is timed, nothing is cut */
    cr_assert(!gs_dispatch_should_time(&s, 0, 1u << 30));
    cr_assert_eq(gs_dispatch_next(&s, 0, 1, 256, CAP256), CAP256);
}

Test(dispatch_plan, env_values)
{
    /* the options table resolves the variable (src/api/options.c) */
    static const struct {
        const char *v;
        int ms;
        glstark_status st;
    } cases[] = {{"auto", -1, GLSTARK_OK},   {"off", 0, GLSTARK_OK},  {"0", 0, GLSTARK_OK},
                 {"25", 25, GLSTARK_OK},     {"60000", 60000, GLSTARK_OK},
                 {"25ms", 0, GLSTARK_ERR_INVALID_ARGUMENT}, {"-1", 0, GLSTARK_ERR_INVALID_ARGUMENT},
                 {"60001", 0, GLSTARK_ERR_INVALID_ARGUMENT}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("GLSTARK_DISPATCH_MS", cases[i].v, 1);
        gs_device_config cfg;
        gs_error err;
        gs_error_clear(&err);
        cr_assert_eq(gs_device_config_resolve(NULL, &cfg, &err), cases[i].st, "'%s': %s", cases[i].v, err.msg);
        if (cases[i].st == GLSTARK_OK)
            cr_assert_eq(cfg.dispatch_ms, cases[i].ms, "'%s'", cases[i].v);
        else
            cr_assert(strstr(err.msg, "GLSTARK_DISPATCH_MS") != NULL, "%s", err.msg);
    }
    unsetenv("GLSTARK_DISPATCH_MS");
    gs_device_config cfg;
    gs_error err;
    cr_assert_eq(gs_device_config_resolve(NULL, &cfg, &err), GLSTARK_OK);
    cr_assert_eq(cfg.dispatch_ms, -1, "unset: the device's default");
    /* defaults: 50 ms off desktop-class, none on desktop-class */
    cr_assert_eq(gs_dispatch_budget_ns(-1, 0), 50 * MS);
    cr_assert_eq(gs_dispatch_budget_ns(-1, 1), 0ull);
    cr_assert_eq(gs_dispatch_budget_ns(7, 1), 7 * MS);
    cr_assert_eq(gs_dispatch_budget_ns(0, 0), 0ull);
}

/* Kernels whose invocations cost what the call's uniforms say: the plan for
 * a heavy call of a program is its light call's plan divided by the weight
 * ratio, so a rate measured on small twiddle tables, few DFT layers or
 * narrow Merkle rows does not let a later call overrun the budget. */
Test(dispatch_plan, per_call_weights)
{
    const uint64_t B = 50 * MS;
    /* the twiddle table: rate measured on a 4-bit table, 2 ids per us */
    double rate = 2e-3 * (double)gs_weight_pow(4);
    cr_assert_eq(gs_weight_pow(0), 1ull);
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_pow(4), 256, CAP256), 99840ull);
    /* a 22-bit table: 22/4 the cost per id -> 100000 * 4 / 22 = 18181 -> 71 groups */
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_pow(22), 256, CAP256), 71ull * 256);
    /* the shared DFT pass: 11 layers plus load and store against 1 layer */
    cr_assert_eq(gs_weight_dft_shared(1, 0), 3ull);
    cr_assert_eq(gs_weight_dft_shared(11, 0), 13ull);
    cr_assert_eq(gs_weight_dft_shared(8, 3), 13ull);
    double dft_rate = 1e-3 * (double)gs_weight_dft_shared(1, 0); /* 1 id per us at one layer */
    cr_assert_eq(gs_dispatch_plan(B, dft_rate, gs_weight_dft_shared(1, 0), 256, CAP256), 49920ull);
    /* 50000 * 3 / 13 = 11538 -> 45 groups */
    cr_assert_eq(gs_dispatch_plan(B, dft_rate, gs_weight_dft_shared(11, 0), 256, CAP256), 45ull * 256);
    /* subset sums: 2^b words over b bits */
    cr_assert_eq(gs_weight_subset_sums(0), 1ull);
    cr_assert_eq(gs_weight_subset_sums(5), 32ull * 6);
    /* sponges: a permutation per 8 words, at least one, plus the extra */
    cr_assert_eq(gs_weight_sponge(0, 0), 1ull);
    cr_assert_eq(gs_weight_sponge(8, 0), 1ull);
    cr_assert_eq(gs_weight_sponge(9, 0), 2ull);
    cr_assert_eq(gs_weight_sponge(2634, 1), 331ull);
    /* Merkle coset rows of Keccak's 2634 words against 42-word stacked rows:
     * rate measured on the narrow rows (6 + 1 permutations) */
    double m_rate = 1e-4 * (double)gs_weight_sponge(42, 1);
    cr_assert_eq(gs_dispatch_plan(B, m_rate, gs_weight_sponge(42, 1), 128, CAP128), 4992ull);
    /* 5000 * 7 / 331 = 105 -> no whole group of 128: at least one group */
    cr_assert_eq(gs_dispatch_plan(B, m_rate, gs_weight_sponge(2634, 1), 128, CAP128), 128ull);
}

/* Round 0's coset LDE (MODE_LDE), 16-point skip domains, in multiplications
 * and memory words per id: a trace column's id loads 16 values, stores the
 * domain's own 16 (dpts), runs a 16-point NTT (16 x 4) and per coset a
 * scale (16), an NTT (64) and 16 stores. A selector computes its values
 * (no load). The program's rate is measured on its first call, the
 * selectors of an AIR with one coset; an AIR with three cosets then gets
 * 2.2x fewer ids per dispatch, where the unweighted plan gave it as many. */
Test(dispatch_plan, lde_weights)
{
    const uint64_t B = 50 * MS;
    /* 0 + 16 + 64 + 1 x (16 + 64 + 16) = 176; a trace column: 192 */
    cr_assert_eq(gs_weight_lde(4, 1, 1, 1), 176ull);
    cr_assert_eq(gs_weight_lde(4, 1, 1, 0), 192ull);
    /* 16 + 16 + 64 + 3 x 96 = 384; without the domain's own points 368 */
    cr_assert_eq(gs_weight_lde(4, 3, 1, 0), 384ull);
    cr_assert_eq(gs_weight_lde(4, 3, 0, 0), 368ull);
    /* 1-point domains (N 1, no NTT layers): a load and a scaled store */
    cr_assert_eq(gs_weight_lde(0, 1, 0, 0), 3ull);
    cr_assert_eq(gs_weight_lde(0, 0, 0, 1), 1ull, "at least one unit");
    /* measured: 1 selector id per us -> 0.176 units per ns */
    const double rate = 1e-3 * 176;
    /* the selector call itself: 50000 ids -> 195 groups of 256 */
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_lde(4, 1, 1, 1), 256, CAP256), 195ull * 256);
    /* three cosets: 50e6 x 0.176 / 384 = 22916 ids -> 89 groups */
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_lde(4, 3, 1, 0), 256, CAP256), 89ull * 256);
    /* unweighted (1 id per us for every call) it was 195 groups: 2.19x the
     * budget for the three-coset columns */
    cr_assert_eq(gs_dispatch_plan(B, 1e-3, 1, 256, CAP256), 195ull * 256);
}

/* The skip-domain fold (MODE_FOLD_PLE), 16 points: a selector id costs a
 * comparison and a sum per point (5), a trace column's a load, an
 * extension-by-base product and a sum (9). The selectors run first, so the
 * rate is theirs: the board proxy measured keccakf-1024's column ids at
 * 1.7x the planned time before this weight. */
Test(dispatch_plan, fold_ple_weights)
{
    const uint64_t B = 50 * MS;
    cr_assert_eq(gs_weight_fold_ple(4, 1), 80ull);
    cr_assert_eq(gs_weight_fold_ple(4, 0), 144ull);
    cr_assert_eq(gs_weight_fold_ple(0, 0), 9ull);
    /* 1 selector id per us -> 0.08 units per ns; the floor's 128 lanes */
    const double rate = 1e-3 * 80;
    /* selectors: 50000 ids -> 390 groups of 128 */
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_fold_ple(4, 1), 128, CAP128), 390ull * 128);
    /* columns: 50e6 x 0.08 / 144 = 27777 ids -> 217 groups */
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_fold_ple(4, 0), 128, CAP128), 217ull * 128);
}

/* The codeword gather as tile transposes (MODE_GATHER_TILED): an id reads
 * its share of a tile and writes each word 2^log_blowup times. */
Test(dispatch_plan, gather_weights)
{
    const uint64_t B = 50 * MS;
    cr_assert_eq(gs_weight_gather(0), 2ull);
    cr_assert_eq(gs_weight_gather(1), 3ull);
    cr_assert_eq(gs_weight_gather(3), 9ull);
    /* rate measured at log blowup 1 (1 id per us, 3 units each); at log
     * blowup 3: 50e6 x 3e-3 / 9 = 16666 ids -> 65 groups of 256 */
    const double rate = 1e-3 * 3;
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_gather(1), 256, CAP256), 195ull * 256);
    cr_assert_eq(gs_dispatch_plan(B, rate, gs_weight_gather(3), 256, CAP256), 65ull * 256);
}

/* The interpreter's limit per work group (gs_zc_lane_instr): the prior
 * before any rate, half the budget at
 * a measured rate, or what a timed chunk already ran within half the
 * budget. One lane of Keccak's 39536 instructions fits at llvmpipe's
 * one-thread rate (22 M per second: 550000 in 25 ms); one of a DAG of 2 M
 * instructions does not. */
Test(dispatch_plan, interpreter_lane_limit)
{
    const uint64_t B = 50 * MS;
    cr_assert_eq(gs_zc_lane_instr(0, NULL, 0), UINT64_MAX, "no budget: no limit");
    cr_assert_eq(gs_zc_lane_instr(B, NULL, 0), (uint64_t)GS_ZC_GROUP_INSTR);
    cr_assert_eq(gs_zc_lane_instr(B, NULL, 1), (uint64_t)GS_ZC_GROUP_INSTR_EXT, "the extension variant's prior");
    gs_dispatch_rate none = {0};
    cr_assert_eq(gs_zc_lane_instr(B, &none, 0), (uint64_t)GS_ZC_GROUP_INSTR, "no rate yet: the prior");
    gs_dispatch_rate r = {.rate = 22e6 * 1e-9, .calibrated = 1};
    cr_assert_eq(gs_zc_lane_instr(B, &r, 0), 550000ull);
    cr_assert_leq(39536ull, gs_zc_lane_instr(B, &r, 0));
    cr_assert_gt(2000000ull, gs_zc_lane_instr(B, &r, 0));
    cr_assert_leq(2000000ull / 4, gs_zc_lane_instr(B, &r, 0));
    /* a chunk of 64 Keccak lanes ran within half the budget */
    r.safe_units = 64ull * 39536;
    cr_assert_eq(gs_zc_lane_instr(B, &r, 0), 64ull * 39536);
    /* the work groups follow the same limit: 2530304 / 39536 = 64 lanes */
    cr_assert_eq(gs_zc_budget_local(B, &r, 39536, 256, 0), 64u);
    /* a lane over the limit still gets the narrowest work group */
    cr_assert_eq(gs_zc_budget_local(B, &r, 4000000, 256, 0), 16u);
}

/* After calibration the first chunk planned at the full budget is timed
 * once more (a check): a kernel can run slower per id there than on the
 * chunks that set its rate. The figures are round 0's LDE on the board proxy
 * (keccakf-1024): chunks of 512 .. 32768 ids at about 0.73 us each, then
 * 68224 ids (the plan: 50 ms x 32768 / 23.97 ms) in 80 ms. */
Test(dispatch_plan, calibration_check)
{
    const uint64_t B = 50 * MS;
    gs_dispatch_rate r = {0};
    gs_dispatch_count(&r);
    const uint64_t n[] = {512, 2048, 8192, 32768}, ns[] = {489838, 1637372, 5941658, 23971259};
    for (int i = 0; i < 4; i++) {
        cr_assert(!r.calibrated);
        gs_dispatch_rate_record(&r, n[i], 1, ns[i], B, 0);
    }
    cr_assert(r.calibrated);
    /* 50e6 x 32768 / 23971259 = 68348 -> 533 groups of 128 */
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 128, CAP128), 533ull * 128);
    cr_assert(!gs_dispatch_should_check(&r, B, 32768, 1), "no larger than the calibrating chunks");
    cr_assert(gs_dispatch_should_check(&r, B, 533 * 128, 1));
    cr_assert(!gs_dispatch_should_check(&r, 0, 533 * 128, 1), "no budget, no check");
    gs_dispatch_rate_check(&r, 533 * 128, 1, 80 * MS, B);
    /* the check's own rate: 50 x 68224 / 80 = 42640 -> 333 groups */
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 128, CAP128), 333ull * 128);
    cr_assert(!gs_dispatch_should_check(&r, B, 333 * 128, 1), "smaller plans are not checked again");
    /* a check that ran faster leaves the rate alone */
    gs_dispatch_rate f = r;
    f.checks = 0;
    f.timed_units = 0;
    gs_dispatch_rate_check(&f, 333 * 128, 1, 10 * MS, B);
    cr_assert_eq(gs_dispatch_next(&f, B, 1, 128, CAP128), 333ull * 128);
    /* at most GS_CALIB_MAX_CHECKS checks per program */
    gs_dispatch_rate m = r;
    for (uint32_t k = m.checks; k < GS_CALIB_MAX_CHECKS; k++)
        gs_dispatch_rate_check(&m, 1, 1, 1, B);
    cr_assert(!gs_dispatch_should_check(&m, B, 1ull << 40, 1));
}

/* A drift check: one dispatch in GS_DRIFT_CHECK_EVERY once calibrated; a
 * chunk that overran the budget lowers the rate and the proven-safe floor,
 * one within half the budget changes nothing. */
Test(dispatch_plan, drift_check)
{
    const uint64_t B = 50 * MS;
    gs_dispatch_rate r = {0};
    cr_assert(!gs_dispatch_should_check_drift(&r, B), "not before calibration");
    r.rate = 68224.0 / (50.0 * MS); /* 68224 ids of weight 1 per budget */
    r.best_ns = 50 * MS;
    r.calibrated = 1;
    r.safe_units = 68224; /* a chunk of the plan's size once ran within half */
    int due = 0;
    for (uint64_t d = 0; d < 3 * GS_DRIFT_CHECK_EVERY; d++, r.dispatches++)
        due += gs_dispatch_should_check_drift(&r, B);
    cr_assert_eq(due, 3, "one dispatch in %u", GS_DRIFT_CHECK_EVERY);
    cr_assert(!gs_dispatch_should_check_drift(&(gs_dispatch_rate){.calibrated = 1, .dispatches = 31}, 0),
              "no budget, no drift check");
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 128, CAP128), 533ull * 128);
    /* within half the budget: nothing */
    gs_dispatch_rate same = r;
    gs_dispatch_rate_drift(&same, 533 * 128, 1, 20 * MS, B);
    cr_assert_eq(gs_dispatch_next(&same, B, 1, 128, CAP128), 533ull * 128);
    /* between half and the whole budget: only the floor drops (to the units
     * that take half the budget at this pace: 68224 x 25 / 40 = 42640), the
     * rate plan still says 533 groups */
    gs_dispatch_rate half = r;
    gs_dispatch_rate_drift(&half, 533 * 128, 1, 40 * MS, B);
    cr_assert_eq(half.safe_units, 42640u);
    cr_assert_eq(gs_dispatch_next(&half, B, 1, 128, CAP128), 533ull * 128);
    /* the same chunk 1.6x over the budget: 68224 x 50 / 80 = 42640 ids -> 333 groups */
    gs_dispatch_rate_drift(&r, 533 * 128, 1, 80 * MS, B);
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 128, CAP128), 333ull * 128);
    cr_assert_eq(r.safe_units, 21320u);
    /* a later faster chunk never raises it again */
    gs_dispatch_rate_drift(&r, 333 * 128, 1, 30 * MS, B);
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 128, CAP128), 333ull * 128);
}

/* A calibrated program's call of several chunks starts with a probe of half
 * a chunk, timed: the figures are the board proxy's at keccakf-1024, where
 * a DFT radix pass calibrated at 0.0044 ids per ns planned 219520 ids per
 * chunk and a later call over longer strides ran such chunks in 75 ms. */
Test(dispatch_plan, probe_first_chunk_of_a_call)
{
    const uint64_t B = 50 * MS;
    gs_dispatch_rate r = {.rate = 0.00439, .calibrated = 1, .dispatches = 20, .safe_units = 32768};
    const uint64_t most = gs_dispatch_next(&r, B, 1, 128, CAP256);
    cr_assert_eq(most, 219392ull, "%llu", (unsigned long long)most);
    /* only calls of several chunks, only calibrated, only with a budget */
    cr_assert(gs_dispatch_should_probe(&r, B, 524288, most));
    cr_assert(!gs_dispatch_should_probe(&r, B, most, most), "one chunk holds the call");
    cr_assert(!gs_dispatch_should_probe(&r, 0, 524288, most));
    gs_dispatch_rate cold = {.dispatches = 3};
    cr_assert(!gs_dispatch_should_probe(&cold, B, 524288, most), "still calibrating");
    /* half the plan in whole groups; never below one group or above the plan */
    cr_assert_eq(gs_dispatch_probe_chunk(most, 128), 109696ull);
    cr_assert_eq(gs_dispatch_probe_chunk(3 * 128, 128), 128ull);
    cr_assert_eq(gs_dispatch_probe_chunk(128, 128), 128ull);
    cr_assert_eq(gs_dispatch_probe_chunk(5, 0), 2ull);
    /* the probe ran 1.5x slower per id (37.5 ms): the rest of the call is
     * cut to ~50 ms at its pace, in whole groups */
    const uint64_t rest = gs_dispatch_probe_cap(&r, B, 109696, 1, 37500000, 128, CAP256);
    const double pace = 109696.0 / 37500000.0;
    cr_assert_eq(rest, (uint64_t)(50e6 * pace) / 128 * 128, "%llu", (unsigned long long)rest);
    cr_assert_leq((double)rest / pace, 50.0 * MS);
    cr_assert_gt((double)rest / pace, 49.0 * MS);
    cr_assert_lt(rest, most);
    /* the program's rate stays: the next call is planned as before */
    cr_assert_float_eq(r.rate, 0.00439, 1e-12);
    cr_assert_eq(gs_dispatch_next(&r, B, 1, 128, CAP256), most);
    /* a probe at or above the rate's pace caps nothing */
    cr_assert_eq(gs_dispatch_probe_cap(&r, B, 109696, 1, 24000000, 128, CAP256), CAP256);
    cr_assert_eq(gs_dispatch_probe_cap(&r, B, 1000, 1, 1000, 128, CAP256), CAP256);
    /* nor does a slower one within half the budget: short chunks look slow
     * (here 1.5x the rate's time for 1000 ids, 0.34 ms) */
    cr_assert_eq(gs_dispatch_probe_cap(&r, B, 1000, 1, 341000, 128, CAP256), CAP256);
    cr_assert_eq(gs_dispatch_probe_cap(&r, B, 109696, 1, 25 * MS, 128, CAP256), CAP256);
    cr_assert_lt(gs_dispatch_probe_cap(&r, B, 109696, 1, 25 * MS + 1, 128, CAP256), CAP256);
    /* weighted units: 8 units an id at the same 1.5x slower pace */
    const uint64_t wrest = gs_dispatch_probe_cap(&r, B, 13712, 8, 37500000, 128, CAP256);
    cr_assert_eq(wrest, (uint64_t)(50e6 * (13712.0 * 8 / 37500000.0) / 8) / 128 * 128);
    /* a probe far slower than its plan still leaves one work group */
    cr_assert_eq(gs_dispatch_probe_cap(&r, B, 128, 1, 1000 * MS, 128, CAP256), 128ull);
    /* no budget: no cap */
    cr_assert_eq(gs_dispatch_probe_cap(&r, 0, 109696, 1, 37500000, 128, CAP256), CAP256);
}

/* A device that runs several work groups side by side (llvmpipe's
 * threads): a chunk of g groups on P of them takes ceil(g / P) group-times.
 * The figures: 16-lane groups, each taking 27 ms on one of two threads
 * (Keccak's round 0 on llvmpipe: 26495 instructions a lane), under a 50 ms
 * budget. Restated here from that model, not from the library's code. */
/* Where P comes from: a software renderer's threads, Mali's active shader
 * cores where its driver reports them, else 1; never 0, at most 64. */
Test(dispatch_plan, parallel_groups_source)
{
    cr_assert_eq(gs_parallel_groups(1, 2, 0), 2u, "llvmpipe: its threads");
    cr_assert_eq(gs_parallel_groups(1, 1, 0), 1u);
    cr_assert_eq(gs_parallel_groups(1, 0, 0), 1u, "threads unknown: one");
    cr_assert_eq(gs_parallel_groups(1, 8, 4), 8u, "a software renderer: the cores count is not its");
    cr_assert_eq(gs_parallel_groups(0, 8, 0), 1u, "a GPU that does not report cores: one");
    cr_assert_eq(gs_parallel_groups(0, 8, 4), 4u, "Mali-G610 MP4: four cores");
    cr_assert_eq(gs_parallel_groups(0, 0, 1000), GS_PARALLEL_GROUPS_MAX);
    cr_assert_eq(gs_parallel_groups(1, 1000, 0), GS_PARALLEL_GROUPS_MAX);
}

/* P from timings (a GPU that does not say): the largest doubling of the
 * groups whose dispatch stayed within 1.25 times one group's time, up to
 * the first past it. Timings made up from the model: a device of P groups
 * side by side takes ceil(g / P) group-times, plus noise. */
Test(dispatch_plan, parallel_groups_from_times)
{
    const uint32_t g[7] = {1, 2, 4, 8, 16, 32, 64};
    for (uint32_t P = 1; P <= 64; P *= 2) {
        uint64_t ns[7];
        for (int i = 0; i < 7; i++)
            ns[i] = 2000000ull * ((g[i] + P - 1) / P) + (uint64_t)(i % 2) * 150000; /* +7.5% on odd sizes */
        cr_assert_eq(gs_parallel_from_times(g, ns, 7), P, "a device of %u groups side by side", P);
    }
    /* a device of 3 (not a power of two): 4 groups take two group-times, so 2, the floor */
    const uint64_t three[4] = {2000000, 2000000, 4000000, 6000000};
    cr_assert_eq(gs_parallel_from_times(g, three, 4), 2u);
    /* only the flat run from the start counts: a later fast reading does not */
    const uint64_t late[5] = {2000000, 4100000, 2100000, 2100000, 2100000};
    cr_assert_eq(gs_parallel_from_times(g, late, 5), 1u);
    /* within 25%: flat; past it: not */
    const uint64_t edge[3] = {2000000, 2500000, 2500001};
    cr_assert_eq(gs_parallel_from_times(g, edge, 3), 2u);
    /* no timings, a zero first time, groups that do not double from 1 */
    cr_assert_eq(gs_parallel_from_times(g, three, 0), 1u);
    const uint64_t zero[2] = {0, 0};
    cr_assert_eq(gs_parallel_from_times(g, zero, 2), 1u);
    const uint32_t odd[3] = {1, 3, 6};
    const uint64_t flat[3] = {2000000, 2000000, 2000000};
    cr_assert_eq(gs_parallel_from_times(odd, flat, 3), 1u);
    const uint32_t from2[2] = {2, 4};
    cr_assert_eq(gs_parallel_from_times(from2, flat, 2), 1u);
    /* flat beyond the cap (a wide GPU): the cap */
    const uint32_t wide[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    const uint64_t wflat[8] = {2000000, 2000000, 2000000, 2000000, 2000000, 2000000, 2000000, 2000000};
    cr_assert_eq(gs_parallel_from_times(wide, wflat, 8), GS_PARALLEL_GROUPS_MAX);
}

Test(dispatch_plan, parallel_groups)
{
    const uint64_t B = 50 * MS, L = 16, W = 26495;
    const double group_ns = 27e6;
    gs_dispatch_rate r = {.parallel = 2, .local = 16};
    /* a timed chunk of one group measures one thread's pace; the device's
     * rate is twice that (two groups would have taken the same time) */
    r.dispatches = 1;
    gs_dispatch_rate_record(&r, L, W, (uint64_t)group_ns, B, 1);
    cr_assert_float_eq(r.rate, 2.0 * (double)(L * W) / group_ns, 1e-12, "one group on two threads: the device's rate");
    /* a chunk of three groups took two group-times: as four would */
    gs_dispatch_rate q = {.parallel = 2, .local = 16, .dispatches = 1};
    gs_dispatch_rate_record(&q, 3 * L, W, (uint64_t)(2 * group_ns), B, 1);
    cr_assert_float_eq(q.rate, 4.0 * (double)(L * W) / (2 * group_ns), 1e-12);
    /* plans come in whole rounds of two groups: 50 ms holds one round of
     * 27 ms (two groups), not the 3.7 groups the rate alone would give */
    r.calibrated = 1;
    cr_assert_eq(gs_dispatch_next(&r, B, W, 16, CAP256), 2 * L);
    /* a round longer than the budget: still one round, both threads busy */
    cr_assert_eq(gs_dispatch_next(&r, B, 4 * W, 16, CAP256), 2 * L);
    /* one group alone runs at half the device's rate: the interpreter's
     * limit per group is half what the device's rate gives */
    gs_dispatch_rate one = r;
    one.parallel = 1;
    cr_assert_eq(gs_zc_lane_instr(B, &r, 0), gs_zc_lane_instr(B, &one, 0) / 2);
    /* one thread (or a GPU, where the count is unknown): plans as before */
    cr_assert_eq(gs_dispatch_next(&one, B, W, 16, CAP256), gs_dispatch_plan(B, one.rate, W, 16, CAP256));
}
