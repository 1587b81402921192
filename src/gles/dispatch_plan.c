/* Dispatch time budget: planning and calibration (see dispatch_plan.h). */
#include "gles/dispatch_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint64_t groups_floor(uint64_t n, uint32_t local)
{
    uint64_t g = n - n % local;
    return g < local ? local : g;
}

static uint32_t parallel_of(const gs_dispatch_rate *r) { return r->parallel > 1 ? r->parallel : 1; }

/* What a pace measured on a chunk of `count` invocations is for the whole
 * device: a chunk of g groups on a device that runs P side by side took
 * ceil(g / P) group-times, as P * ceil(g / P) groups would have. */
static double device_scale(const gs_dispatch_rate *r, uint64_t count)
{
    const uint64_t P = parallel_of(r), local = r->local ? r->local : 1;
    if (P == 1 || count == 0)
        return 1.0;
    const uint64_t g = (count + local - 1) / local, rounds = (g + P - 1) / P;
    return (double)(P * rounds) / (double)g;
}

/* gs_dispatch_plan on a device that runs P groups side by side: whole
 * rounds of P groups (a round takes one group-time, P groups' work at the
 * device's rate), at least one round. */
static uint64_t plan_rounds(uint64_t budget_ns, double rate, uint64_t weight, uint32_t local, uint64_t grid_cap,
                            uint32_t P)
{
    if (local == 0)
        local = 1;
    if (budget_ns == 0 || !(rate > 0.0))
        return grid_cap;
    if (weight == 0)
        weight = 1;
    if (P == 0)
        P = 1;
    /* ids that fit the budget, in whole rounds (P = 1: whole groups) */
    const double inv = (double)budget_ns * rate / (double)weight;
    const uint64_t round_ids = (uint64_t)P * local;
    const double rounds = inv / (double)round_ids;
    uint64_t n = rounds >= (double)(grid_cap / round_ids) ? grid_cap
                 : rounds < 1.0                            ? round_ids
                                                           : (uint64_t)rounds * round_ids;
    n = groups_floor(n, local);
    return n < grid_cap ? n : grid_cap;
}

uint64_t gs_dispatch_plan(uint64_t budget_ns, double rate, uint64_t weight, uint32_t local, uint64_t grid_cap)
{
    return plan_rounds(budget_ns, rate, weight, local, grid_cap, 1);
}

/* The plan from the rate, but never below the largest chunk that already
 * ran within half the budget (time only grows with the work): on a wide GPU
 * the rate from latency-bound chunks is far too low, and cutting a call
 * below what is known to be safe only adds latency-bound dispatches. */
static uint64_t rate_plan(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t weight, uint32_t local,
                          uint64_t grid_cap)
{
    uint64_t p = plan_rounds(budget_ns, r->rate, weight, local, grid_cap, parallel_of(r));
    uint64_t proven = groups_floor(r->safe_units / (weight ? weight : 1), local);
    if (proven > grid_cap)
        proven = grid_cap;
    return p > proven ? p : proven;
}

uint64_t gs_dispatch_next(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t weight, uint32_t local,
                          uint64_t grid_cap)
{
    if (local == 0)
        local = 1;
    if (budget_ns == 0)
        return grid_cap;
    if (r->calibrated)
        return rate_plan(r, budget_ns, weight, local, grid_cap);
    if (r->dispatches == 0)
        return local < grid_cap ? local : grid_cap;
    uint64_t n = r->last_chunk ? r->last_chunk * GS_CALIB_GROWTH : local;
    if (r->rate > 0.0) {
        uint64_t p = rate_plan(r, budget_ns, weight, local, grid_cap);
        if (p < n)
            n = p;
    }
    n = groups_floor(n, local);
    return n < grid_cap ? n : grid_cap;
}

int gs_dispatch_should_time(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count)
{
    return budget_ns && !r->calibrated && r->dispatches > 0 && count > r->last_chunk;
}

int gs_dispatch_should_check(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count, uint64_t weight)
{
    return budget_ns && r->calibrated && r->checks < GS_CALIB_MAX_CHECKS &&
           count * (weight ? weight : 1) > r->timed_units;
}

void gs_dispatch_rate_check(gs_dispatch_rate *r, uint64_t count, uint64_t weight, uint64_t ns, uint64_t budget_ns)
{
    const uint64_t units = count * (weight ? weight : 1);
    if (ns == 0)
        ns = 1;
    r->checks++;
    if (units > r->timed_units)
        r->timed_units = units;
    if (ns <= budget_ns / 2 && units > r->safe_units)
        r->safe_units = units;
    const double measured = (double)units / (double)ns * device_scale(r, count);
    if (measured < r->rate) {
        r->rate = measured;
        r->best_ns = ns;
    }
}

int gs_dispatch_should_check_drift(const gs_dispatch_rate *r, uint64_t budget_ns)
{
    return budget_ns && r->calibrated && r->dispatches % GS_DRIFT_CHECK_EVERY == GS_DRIFT_CHECK_EVERY - 1;
}

void gs_dispatch_rate_drift(gs_dispatch_rate *r, uint64_t count, uint64_t weight, uint64_t ns, uint64_t budget_ns)
{
    const uint64_t units = count * (weight ? weight : 1);
    if (ns <= budget_ns / 2)
        return;
    const double measured = (double)units / (double)ns * device_scale(r, count);
    const uint64_t half_budget_units = (uint64_t)((double)units * (double)(budget_ns / 2) / (double)ns);
    if (units <= r->safe_units && half_budget_units < r->safe_units)
        r->safe_units = half_budget_units;
    if (ns > budget_ns && measured < r->rate) {
        r->rate = measured;
        r->best_ns = ns;
    }
}

int gs_dispatch_should_probe(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count, uint64_t most)
{
    return budget_ns && r->calibrated && count > most;
}

uint64_t gs_dispatch_probe_chunk(uint64_t most, uint32_t local)
{
    if (local == 0)
        local = 1;
    uint64_t half = groups_floor(most / 2, local);
    return half < most ? half : most;
}

uint64_t gs_dispatch_probe_cap(const gs_dispatch_rate *r, uint64_t budget_ns, uint64_t count, uint64_t weight,
                               uint64_t ns, uint32_t local, uint64_t grid_cap)
{
    const double pace = (double)(count * (weight ? weight : 1)) / (double)(ns ? ns : 1) * device_scale(r, count);
    if (!budget_ns || ns <= budget_ns / 2 || !(pace < r->rate))
        return grid_cap;
    return plan_rounds(budget_ns, pace, weight, local, grid_cap, parallel_of(r));
}

void gs_dispatch_count(gs_dispatch_rate *r) { r->dispatches++; }

void gs_dispatch_rate_record(gs_dispatch_rate *r, uint64_t count, uint64_t weight, uint64_t ns, uint64_t budget_ns,
                             int call_end)
{
    if (weight == 0)
        weight = 1;
    if (ns == 0)
        ns = 1;
    r->timed++;
    /* time grows with the work: out of the latency-bound regime */
    const int scales = r->prev_count && count > r->prev_count &&
                       (double)ns / (double)(r->prev_ns ? r->prev_ns : 1) >=
                           0.75 * (double)count / (double)r->prev_count;
    r->prev_count = count;
    r->prev_ns = ns;
    if (count > r->last_chunk)
        r->last_chunk = count;
    if (count * weight > r->timed_units)
        r->timed_units = count * weight;
    if (ns <= budget_ns / 2 && count * weight > r->safe_units)
        r->safe_units = count * weight;
    if (ns >= r->best_ns) {
        r->best_ns = ns;
        r->rate = (double)count * (double)weight / (double)ns * device_scale(r, count);
    }
    if (r->best_ns >= budget_ns / 2 || (scales && (ns >= budget_ns / 8 || call_end)) ||
        r->timed >= GS_CALIB_MAX_TIMED)
        r->calibrated = 1;
}

uint64_t gs_weight_pow(unsigned bits) { return bits ? bits : 1; }

uint64_t gs_weight_dft_shared(unsigned layers, unsigned zeta) { return (uint64_t)layers + zeta + 2; }

uint64_t gs_weight_subset_sums(unsigned bits) { return ((uint64_t)1 << bits) * (bits + 1u); }

uint64_t gs_weight_sponge(uint64_t words, unsigned extra)
{
    uint64_t perms = (words + 7) / 8;
    return (perms ? perms : 1) + extra;
}

uint64_t gs_weight_gather(unsigned log_blowup) { return 1 + ((uint64_t)1 << log_blowup); }

uint64_t gs_weight_lde(unsigned logn, unsigned ncos, int dpts, int sel)
{
    const uint64_t n = (uint64_t)1 << logn, ntt = n * logn;
    uint64_t w = (sel ? 0 : n) + (dpts ? n : 0) + ntt + (uint64_t)ncos * (n + ntt + n);
    return w ? w : 1;
}

uint64_t gs_weight_fold_ple(unsigned logn, int sel) { return ((uint64_t)1 << logn) * (sel ? 5u : 9u); }

uint32_t gs_parallel_groups(int is_software, unsigned software_threads, uint32_t arm_active_cores)
{
    uint32_t p = is_software ? software_threads : arm_active_cores;
    if (p < 1)
        p = 1;
    return p < GS_PARALLEL_GROUPS_MAX ? p : GS_PARALLEL_GROUPS_MAX;
}

uint32_t gs_parallel_from_times(const uint32_t *groups, const uint64_t *ns, unsigned n)
{
    if (n == 0 || groups[0] != 1 || ns[0] == 0)
        return 1;
    uint32_t p = 1;
    for (unsigned i = 1; i < n; i++) {
        if (groups[i] != 2 * groups[i - 1] || (double)ns[i] > GS_PARALLEL_FLAT * (double)ns[0])
            break;
        p = groups[i];
    }
    return p < GS_PARALLEL_GROUPS_MAX ? p : GS_PARALLEL_GROUPS_MAX;
}

uint64_t gs_zc_work_lanes(uint64_t budget_ns, int desktop_class, uint64_t work_instr, uint64_t longest_group,
                          uint64_t program_len)
{
    uint64_t per = longest_group;
    if (budget_ns && !desktop_class && program_len > per)
        per = program_len;
    if (per == 0)
        per = 1;
    return work_instr / per ? work_instr / per : 1;
}

uint64_t gs_zc_budget_lanes(uint64_t budget_ns, const gs_dispatch_rate *r, uint64_t instr_per_lane, uint32_t local,
                            uint64_t lanes)
{
    if (!budget_ns || !r || !r->calibrated)
        return lanes;
    uint64_t most = rate_plan(r, budget_ns, instr_per_lane, local, UINT32_MAX);
    return most < lanes ? most : lanes;
}

uint64_t gs_zc_lane_instr(uint64_t budget_ns, const gs_dispatch_rate *r, int ext)
{
    if (!budget_ns)
        return UINT64_MAX;
    if (!r || !(r->rate > 0.0))
        return ext ? GS_ZC_GROUP_INSTR_EXT : GS_ZC_GROUP_INSTR;
    /* a measured rate replaces the prior, with half the budget per group
     * (a dispatch holds at least one); measured on small chunks it is low
     * (fixed costs, latency), the safe side; or what a timed chunk ran
     * within half the budget */
    double fit = (double)budget_ns / 2 * r->rate;
    if ((double)r->safe_units > fit)
        fit = (double)r->safe_units;
    /* both are the device's, with r->parallel groups side by side: one
     * group alone runs at its share (else a group could take a whole
     * budget on one of llvmpipe's threads) */
    fit /= parallel_of(r);
    return fit >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)fit;
}

static uint32_t narrowest_local(uint32_t local)
{
    return local < GS_ZC_MIN_LANES ? local : GS_ZC_MIN_LANES;
}

uint32_t gs_zc_budget_local(uint64_t budget_ns, const gs_dispatch_rate *r, uint64_t instr_per_lane, uint32_t local,
                            int ext)
{
    if (!budget_ns || local <= 1)
        return local ? local : 1;
    if (instr_per_lane == 0)
        instr_per_lane = 1;
    uint64_t most = gs_zc_lane_instr(budget_ns, r, ext) / instr_per_lane;
    uint32_t l = narrowest_local(local);
    while (l * 2 <= local && l * 2 <= most)
        l *= 2;
    return l;
}

int gs_zc_group_fits(uint64_t budget_ns, const gs_dispatch_rate *r, uint64_t instr_per_lane, uint32_t local, int ext)
{
    if (!budget_ns)
        return 1;
    const uint64_t lanes = local ? narrowest_local(local) : 1;
    return instr_per_lane <= gs_zc_lane_instr(budget_ns, r, ext) / lanes;
}

uint64_t gs_dispatch_budget_ns(long ms, int desktop_class)
{
    if (ms < 0)
        ms = desktop_class ? 0 : (long)GS_DISPATCH_BUDGET_DEFAULT_MS;
    return (uint64_t)ms * 1000000ull;
}
