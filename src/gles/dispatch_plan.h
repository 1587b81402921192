/* Dispatch time budget (GLSTARK_DISPATCH_MS): how much work one dispatch may
 * carry so that it runs within the budget on this device, as a pure function
 * of (measured rate, budget, work), and the calibration that measures the
 * rate. No GL here: tests call these with injected rates
 * (tests/gles/test_dispatch_plan.c).
 *
 * Costs are in units: an invocation costs `weight` units (1 for most
 * kernels; the constraint interpreter's lanes cost the instructions of the
 * longest DAG group they run). A rate is units per nanosecond, measured per
 * device and per program (kernel + defines) and kept for the device's
 * lifetime. */
#ifndef GS_GLES_DISPATCH_PLAN_H
#define GS_GLES_DISPATCH_PLAN_H

#include <stdint.h>

/* The default budget on devices that are not desktop-class (software
 * renderers included): 50 ms, a tenth of the ~0.5 s after which the kernel
 * drivers of small boards reset a GPU job. */
#define GS_DISPATCH_BUDGET_DEFAULT_MS 50u

/* Growth of the timed chunks while calibrating. */
#define GS_CALIB_GROWTH 4u
/* Timed chunks after which a program's rate counts as calibrated whatever
 * they showed: each costs two syncs, and on a wide GPU a program whose calls
 * are all small never leaves the latency-bound regime (its rate then stays
 * a low estimate: the safe side). */
#define GS_CALIB_MAX_TIMED 12u
/* Chunks timed after calibration to check the rate (gs_dispatch_rate_check). */
#define GS_CALIB_MAX_CHECKS 2u
/* After calibration, one dispatch in this many of a program is timed to
 * follow a cost that drifts later in a run (gs_dispatch_rate_drift). */
#define GS_DRIFT_CHECK_EVERY 32u

typedef struct gs_dispatch_rate {
    double rate;         /* units per ns from the longest timed chunk; 0: none yet */
    uint64_t best_ns;    /* duration of that chunk */
    uint64_t last_chunk; /* invocations of the last timed chunk (0: none) */
    uint32_t timed;      /* chunks timed so far */
    uint64_t dispatches; /* dispatches of the program on this device */
    int calibrated;      /* the rate is trusted: no more timing */
    uint64_t prev_count; /* the latest timed chunk: invocations and duration, */
    uint64_t prev_ns;    /* to see whether time still grows with the work */
    uint64_t safe_units; /* the most units a timed chunk ran within half the budget */
    uint64_t timed_units; /* the most units of any timed chunk */
    uint32_t checks;      /* chunks timed after calibration */
    /* The device's parallelism as the dispatcher last saw it: `parallel`
     * work groups (0 or 1: one) of `local` invocations run side by side, so
     * a chunk of g groups takes ceil(g / parallel) group-times. Measured
     * paces are scaled to the whole device, plans come in whole rounds of
     * `parallel` groups, and one group alone runs at rate / parallel. */
    uint32_t parallel, local;
} gs_dispatch_rate;

/* Invocations per dispatch: the most whose cost (count x weight units) runs
 * within budget_ns at `rate` units per ns, rounded down to whole work groups
 * of `local` invocations, at least one work group (a single group cannot be
 * split), and at most grid_cap (what one dispatch can cover; a multiple of
 * local). budget_ns 0 (no budget) or rate <= 0 (unknown): grid_cap. This
 * is the plan for a device that runs one group at a time; the dispatcher's
 * plans (gs_dispatch_next) also follow r->parallel: whole rounds of that
 * many groups, each round one group-time. */
uint64_t gs_dispatch_plan(uint64_t budget_ns, double rate, uint64_t weight, uint32_t local, uint64_t grid_cap);

/* The invocations of the next dispatch of a program whose rate r may not be
 * calibrated yet: planned from r when calibrated (never below a chunk that
 * already ran within half the budget: r->safe_units); one work group for the
 * program's first dispatch on the device (a warm-up: software renderers
 * such as llvmpipe compile the shader then, which says nothing of its
 * rate and is host time, not GPU time); else a timed chunk that
 * grows from one work group by GS_CALIB_GROWTH per timed chunk and never
 * beyond what the rate measured so far allows. Same bounds as
 * gs_dispatch_plan. */
uint64_t gs_dispatch_next(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t weight, uint32_t local,
                          uint64_t grid_cap);

/* Whether a chunk of `count` invocations should be timed: while the rate is
 * not calibrated, chunks larger than every chunk timed so far (smaller ones
 * teach nothing new, so a kernel that only ever runs small grids costs a
 * few timed chunks, not one per call). */
int gs_dispatch_should_time(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count);
/* Whether a chunk of `count` invocations of `weight` units should be timed
 * to check a calibrated rate: the first chunks (at most
 * GS_CALIB_MAX_CHECKS) that hold more units than any chunk timed before,
 * which are the first chunks planned at the full budget, 4 to 8 times
 * the calibrating ones. */
int gs_dispatch_should_check(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count, uint64_t weight);
/* Records a check: a chunk of count x weight units that took ns. A chunk
 * the size of the plans can run slower per unit than the smaller chunks
 * that calibrated the rate (on the board proxy round 0's LDE once ran 32768
 * ids in 24 ms and then 68224 ids of the same call in 80 ms), so the rate
 * drops to the check's when that is lower; it never rises (a check that
 * ran faster says nothing about the larger plans). A cost that drifts
 * later in a run is followed by gs_dispatch_rate_drift. */
void gs_dispatch_rate_check(gs_dispatch_rate *r, uint64_t count, uint64_t weight, uint64_t ns, uint64_t budget_ns);
/* Whether the program's next dispatch is a drift check: every
 * GS_DRIFT_CHECK_EVERY-th dispatch once calibrated, with a budget. */
int gs_dispatch_should_check_drift(const gs_dispatch_rate *r, uint64_t budget_ns);
/* Records a drift check: count x weight units that took ns. The same call
 * shapes can run up to twice as slowly per unit later in a proof than when
 * they were calibrated (the board proxy: a tiled bit reversal planned at 50
 * ms ran 78 ms, the interpreter 85-101 ms). Only a chunk that overran acts:
 * past half the budget, the floor of proven-safe units (r->safe_units) drops
 * to what would have taken half the budget at the measured pace; past the
 * budget, the rate drops to the measured one. A chunk within half the budget
 * changes nothing (short chunks look slow on wide GPUs, and the rate never
 * rises). */
void gs_dispatch_rate_drift(gs_dispatch_rate *r, uint64_t count, uint64_t weight, uint64_t ns, uint64_t budget_ns);
/* Whether a call of `count` invocations, planned at `most` per dispatch,
 * starts with a probe: with a budget, once the program is calibrated, when
 * the call needs more than one dispatch. One program's calls can differ in
 * cost per unit (a DFT pass over strides of 2^11 words against one over
 * 2^20: caches), and a rate from the cheap calls planned 50 ms chunks of a
 * dear one that ran 75-108 ms on the board proxy at keccakf-1024, until the
 * next one-in-GS_DRIFT_CHECK_EVERY check. A probe is a first chunk of half
 * the plan (gs_dispatch_probe_chunk), timed, so such a call is cut to its
 * own pace from its second chunk on (gs_dispatch_probe_cap). */
int gs_dispatch_should_probe(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count, uint64_t most);
/* The probe's invocations: half of `most` in whole work groups of `local`,
 * at least one group and at most `most`. */
uint64_t gs_dispatch_probe_chunk(uint64_t most, uint32_t local);
/* The most invocations per dispatch for the rest of a call whose probe ran
 * count x weight units in ns: what runs within the budget at the probe's
 * pace when the probe ran past half the budget (a chunk of twice its size
 * would pass the budget) at a pace slower than r's rate, else grid_cap (no
 * cap). A shorter probe caps nothing: its pace is the least reliable (fixed
 * costs weigh most on short chunks; on the proxy, capping after every
 * slower probe cut one DFT pass's calls to single groups, 89603 dispatches
 * instead of 264). The cap holds for that call only: the program's rate
 * stays (a dear call says nothing of the cheap ones, and a rate that
 * followed every slow probe down would only ever fall: on the proxy at
 * keccakf-64 that cost 11% of the proof). */
uint64_t gs_dispatch_probe_cap(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count, uint64_t weight,
                               uint64_t ns, uint32_t local, uint64_t grid_cap);

/* Counts a dispatch of the program (after it was issued and timed). */
void gs_dispatch_count(gs_dispatch_rate *r);

/* Records a timed chunk of `count` invocations of `weight` units that took
 * ns nanoseconds. The rate follows the longest chunk timed (the one least
 * distorted by fixed costs, which make short chunks look slow: the safe
 * side). A chunk's time is latency plus work: a wide GPU runs a few work
 * groups of a long constraint DAG in the time it runs thousands (the H200
 * ran 8 interpreter lanes of Keccak in 12.9 ms), so a duration alone says
 * nothing of the rate. The rate is calibrated once time grows with the work
 * (the chunk took at least 3/4 as many times longer as it had times more
 * invocations than the one timed before it) and the chunk ran at least an
 * eighth of the budget or held the rest of its call (`call_end`: the growth
 * allowed more, the call had no more); or once a chunk ran half the budget,
 * where growing further is not safe; or after GS_CALIB_MAX_TIMED chunks.
 * Until then chunks keep growing. Every pace measured here, and by the
 * checks, drift checks and probes below, is the whole device's: a chunk of
 * g groups where r->parallel run side by side took ceil(g / parallel)
 * group-times, and counts as that many full rounds. */
void gs_dispatch_rate_record(gs_dispatch_rate *r, uint64_t count, uint64_t weight, uint64_t ns, uint64_t budget_ns,
                             int call_end);

/* Per-call weights of kernels whose cost per invocation depends on the
 * call's uniforms. A program's rate is measured on its first calls; a later,
 * heavier call would run several times its planned time unless its
 * invocations weigh what they do (the board proxy measured a twiddle table
 * pass at 5x the budget before these existed). The units are the kernel's
 * own: only ratios between calls of one program matter. */

/* An invocation that raises a field element to a `bits`-bit power (the DFT
 * twiddle table, glsl/dft.comp MODE_TWIDDLES): one squaring per bit. */
uint64_t gs_weight_pow(unsigned bits);
/* An invocation of the shared-memory DFT pass: it loads and stores its
 * words and runs `layers` butterfly layers plus `zeta` subset-sum bits on
 * them (MODE_SHARED, MODE_SHARED_SHORT). */
uint64_t gs_weight_dft_shared(unsigned layers, unsigned zeta);
/* An invocation of the low subset-sum pass: 2^bits words over `bits` bits
 * (MODE_ZETA_LOW). */
uint64_t gs_weight_subset_sums(unsigned bits);
/* An invocation that absorbs `words` field words into a Poseidon2 sponge of
 * rate 8 (a permutation per 8 words, at least one), plus `extra`
 * permutations of its own (the coset tree's compressions). */
uint64_t gs_weight_sponge(uint64_t words, unsigned extra);
/* An invocation of the bit-reversed codeword gather as tile transposes
 * (glsl/dft.comp MODE_GATHER_TILED): it reads its share of a 32 x 32 tile
 * and writes each word 2^log_blowup times. */
uint64_t gs_weight_gather(unsigned log_blowup);
/* An invocation of round 0's coset LDE (glsl/zerocheck.comp MODE_LDE) over
 * skip domains of 2^logn points, in field multiplications and memory words:
 * it loads its column's 2^logn values (a selector computes them: sel), stores
 * them when the domain's own points are asked (dpts), runs an NTT (2^logn x
 * logn), then per coset (ncos) a scale, an NTT and 2^logn stores. A proof's
 * AIRs differ in their coset count, and the selectors run first. */
uint64_t gs_weight_lde(unsigned logn, unsigned ncos, int dpts, int sel);
/* An invocation of the skip-domain fold (MODE_FOLD_PLE), per point of 2^logn:
 * a trace column's is a load, an extension-by-base product (4
 * multiplications) and a sum (4 additions); a selector's is a comparison
 * and at most the sum, with nothing to load. The selectors run first, so
 * the rate is measured on the lighter ids. */
uint64_t gs_weight_fold_ple(unsigned logn, int sel);

/* The most work groups the planner takes to run side by side. */
#define GS_PARALLEL_GROUPS_MAX 64u

/* Work groups a device runs side by side (gs_dispatch_rate.parallel), as
 * far as it says: a software renderer one per thread (software_threads,
 * llvmpipe's LP_NUM_THREADS or the host's cores); Arm's Mali driver its
 * active shader cores (GL_ARM_shader_core_properties, arm_active_cores;
 * every core runs at least one work group, so the count is a floor on its
 * concurrency: dispatches planned from it can only end early); any other
 * GPU 1, since GLES does not report its cores. 0 counts as not reported.
 * At most GS_PARALLEL_GROUPS_MAX. */
uint32_t gs_parallel_groups(int is_software, unsigned software_threads, uint32_t arm_active_cores);

/* Work groups side by side, from timings where the GPU does not say
 * (gs_gl_measure_parallel): ns[i] is the time of a dispatch of groups[i]
 * equal work groups, groups[0] = 1 and each entry twice the one before. A
 * device that runs P groups at once takes about as long for up to P groups
 * as for one, and about twice as long for 2P. So P is the largest groups[i]
 * within GS_PARALLEL_FLAT of ns[0], taken up to the first one past it: a
 * power of two at most the device's concurrency, a floor, like Mali's core
 * count. 1 for no timings or a zero first time; at most
 * GS_PARALLEL_GROUPS_MAX. */
#define GS_PARALLEL_FLAT 1.25
uint32_t gs_parallel_from_times(const uint32_t *groups, const uint64_t *ns, unsigned n);

/* The constraint interpreter's lanes per dispatch before the budget's cut
 * (gs_zc_budget_lanes): work_instr interpreted instructions per dispatch
 * over the instructions per lane. Every lane holds all of the program's
 * slots in the work buffer, whatever the length of the group it runs.
 * Without a budget a dispatch is the unit of GPU work, so a lane counts
 * the longest group's instructions (longest_group). Under a budget the
 * dispatcher cuts every dispatch into chunks that fit it anyway, so the
 * lanes decide only the work buffer's size, and a lane counts the whole
 * program (program_len): a DAG split into groups, which the budget does to
 * long ones, then keeps the work buffer of the unsplit program instead of
 * multiplying it by the group count. Not on desktop-class devices: their
 * chunks are as large as a dispatch, so there the dispatch's lanes still
 * bound the GPU's work, and their DAGs are split by default (GLSTARK_GROUPS)
 * into many short groups (keccakf-1024 on the H200 with a 50 ms budget
 * forced: 0.117 -> 0.206 s warm with the whole-program rule). At least one
 * lane. */
uint64_t gs_zc_work_lanes(uint64_t budget_ns, int desktop_class, uint64_t work_instr, uint64_t longest_group,
                          uint64_t program_len);

/* Lanes per dispatch of the constraint interpreter (src/engine/gles/
 * zerocheck_gles.c) under the budget: `lanes` (what its scratch and work
 * budget allow) cut to what runs within budget_ns at the calibrated rate r
 * (instructions per ns) when each lane runs instr_per_lane instructions, in
 * whole work groups of `local` lanes. Unchanged while r is not calibrated
 * (the dispatches that calibrate it are cut by gs_dispatch_next) or without
 * a budget. */
uint64_t gs_zc_budget_lanes(uint64_t budget_ns, const gs_dispatch_rate *r, uint64_t instr_per_lane, uint32_t local,
                            uint64_t lanes);

/* Instructions one interpreter work group may run before any rate is known
 * (2^19: ~24 ms on the single-thread llvmpipe proxy at the ~22 M
 * interpreted instructions per second of Keccak's DAG there), and the same
 * for the extension-field variant (ZC_EXT 1), whose instructions cost ~5x
 * as much there (the board proxy at keccakf-1024: 16-lane groups of
 * Keccak's DAG ran 0.016-0.022 instructions per ns over the base field and
 * 0.0037-0.0042 over the extension). */
#define GS_ZC_GROUP_INSTR (1u << 19)
#define GS_ZC_GROUP_INSTR_EXT (1u << 17)

/* The narrowest work group the interpreter plans under a budget (or the
 * local size, if smaller). Narrower groups do not run faster: software
 * renderers and the GPUs of boards run 8 to 16 lanes per instruction, and
 * on the board proxy at keccakf-1024 2-lane groups of Keccak's extension
 * DAG took 38-94 ms against 100-170 ms for 16-lane ones (8x the lanes,
 * twice the time). A DAG too long for a group of this width is split into
 * more groups instead (gs_zc_group_fits). */
#define GS_ZC_MIN_LANES 16u

/* The most instructions one work group of the constraint interpreter may
 * run under the budget: the prior (GS_ZC_GROUP_INSTR, or
 * GS_ZC_GROUP_INSTR_EXT when ext) while r has no rate (NULL: none), once it
 * has one (calibrated or not) what runs within half of budget_ns at that
 * rate, or what a timed chunk already ran within it (r->safe_units),
 * whichever is more, shared by the r->parallel groups the device runs side
 * by side; UINT64_MAX without a budget. */
uint64_t gs_zc_lane_instr(uint64_t budget_ns, const gs_dispatch_rate *r, int ext);

/* Lanes per work group of the constraint interpreter under the budget: a
 * work group runs all its lanes' DAGs, and a dispatch cannot be cut inside
 * one, so a large DAG needs small groups. The largest power of two <= local
 * whose lanes run at most gs_zc_lane_instr(budget_ns, r, ext) instructions
 * in all: a measured rate replaces the prior, so a fast device gets its
 * full groups back; at least GS_ZC_MIN_LANES (or local, if smaller), since
 * narrower groups save no time (a DAG too long for those is split:
 * gs_zc_group_fits). local without a budget. */
uint32_t gs_zc_budget_local(uint64_t budget_ns, const gs_dispatch_rate *r, uint64_t instr_per_lane, uint32_t local,
                            int ext);

/* Whether a work group of the narrowest width planned (GS_ZC_MIN_LANES, or
 * local if smaller) whose lanes run instr_per_lane instructions each stays
 * within gs_zc_lane_instr(budget_ns, r, ext); if not, the DAG must be
 * compiled into more, shorter groups (src/engine/gles/zerocheck_gles.c).
 * Always true without a budget. */
int gs_zc_group_fits(uint64_t budget_ns, const gs_dispatch_rate *r, uint64_t instr_per_lane, uint32_t local, int ext);

/* The budget in ns: ms as GLSTARK_DISPATCH_MS resolves (gs_device_config.
 * dispatch_ms: -1 the default, 0 none), and the device's class. */
uint64_t gs_dispatch_budget_ns(long ms, int desktop_class);

#endif
