/* Smallest-witness proof-of-work search on the CPU (see grind.h). */
#include "hash/grind.h"

#include <pthread.h>
#include <string.h>

static inline uint32_t low_mask(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u; }

int gs_pow_witness_ok(const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t w)
{
    bb_t s[GS_P2_WIDTH];
    memcpy(s, st, sizeof s);
    s[absorb_idx] = bb_from_canonical(w);
    gs_poseidon2_permute(s);
    return (bb_to_canonical(s[GS_P2_RATE - 1]) & low_mask(bits)) == 0;
}

/* Scans [lo, hi) in ascending order, GS_P2_LANES candidates per batched
 * permutation; returns the first valid witness, or UINT32_MAX. */
static uint32_t scan_range(const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t lo, uint32_t hi)
{
    uint32_t mask = low_mask(bits);
    bb_t s[GS_P2_WIDTH][GS_P2_LANES];
    for (uint32_t base = lo; base < hi; base += GS_P2_LANES) {
        for (int i = 0; i < GS_P2_WIDTH; i++)
            for (int l = 0; l < GS_P2_LANES; l++)
                s[i][l] = st[i];
        for (int l = 0; l < GS_P2_LANES; l++) {
            uint32_t w = base + (uint32_t)l;
            s[absorb_idx][l] = bb_from_canonical(w < BB_P ? w : 0);
        }
        gs_poseidon2_permute_batch(s);
        for (int l = 0; l < GS_P2_LANES; l++) {
            uint32_t w = base + (uint32_t)l;
            if (w < hi && (bb_to_canonical(s[GS_P2_RATE - 1][l]) & mask) == 0)
                return w;
        }
    }
    return UINT32_MAX;
}

typedef struct grind_job {
    const bb_t *st;
    unsigned absorb_idx, bits;
    uint32_t lo, hi, found;
} grind_job;

static void *grind_worker(void *arg)
{
    grind_job *j = arg;
    j->found = scan_range(j->st, j->absorb_idx, j->bits, j->lo, j->hi);
    return NULL;
}

#define GRIND_MAX_THREADS 256u

glstark_status gs_grind_cpu(void *ctx, const bb_t st[GS_P2_WIDTH], unsigned absorb_idx, unsigned bits, uint32_t *w,
                            gs_error *err)
{
    unsigned threads = ctx ? *(const unsigned *)ctx : 1u;
    if (threads == 0)
        threads = 1;
    if (threads > GRIND_MAX_THREADS)
        threads = GRIND_MAX_THREADS;
    glstark_status sc = (bits < 1 || bits > GS_POW_MAX_BITS ? gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT, "grind: %u proof-of-work bits requested; need 1 to %u", bits, GS_POW_MAX_BITS) : GLSTARK_OK);
    if (sc)
        return sc;
    if (absorb_idx >= GS_P2_RATE)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "grind: absorb index %u is outside the rate (0..%u)", absorb_idx, GS_P2_RATE - 1);
    if (threads == 1) {
        uint32_t f = scan_range(st, absorb_idx, bits, 0, BB_P);
        if (f != UINT32_MAX) {
            *w = f;
            return GLSTARK_OK;
        }
    } else {
        /* Ordered batches: thread t scans the t-th contiguous chunk of the
         * batch; the lowest chunk with a hit holds the batch minimum. Chunks
         * start small so easy searches do not pay for a huge first batch. */
        grind_job jobs[GRIND_MAX_THREADS];
        pthread_t tid[GRIND_MAX_THREADS];
        uint32_t chunk = 256;
        for (uint64_t base = 0; base < BB_P;) {
            unsigned started = 0;
            for (unsigned t = 0; t < threads; t++) {
                uint64_t lo = base + (uint64_t)t * chunk, hi = lo + chunk;
                if (lo >= BB_P)
                    break;
                if (hi > BB_P)
                    hi = BB_P;
                jobs[t] = (grind_job){st, absorb_idx, bits, (uint32_t)lo, (uint32_t)hi, UINT32_MAX};
                if (t > 0 && pthread_create(&tid[t], NULL, grind_worker, &jobs[t]) != 0) {
                    for (unsigned u = 1; u < started; u++)
                        pthread_join(tid[u], NULL);
                    return gs_error_set(err, GLSTARK_ERR_INTERNAL, "grind: could not start a worker thread");
                }
                started = t + 1;
            }
            grind_worker(&jobs[0]);
            for (unsigned t = 1; t < started; t++)
                pthread_join(tid[t], NULL);
            for (unsigned t = 0; t < started; t++)
                if (jobs[t].found != UINT32_MAX) {
                    *w = jobs[t].found;
                    return GLSTARK_OK;
                }
            base += (uint64_t)started * chunk;
            if (chunk < (1u << 16))
                chunk *= 2;
        }
    }
    return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                        "grind: no witness in [0, p) gives %u zero bits; this should not happen for bits <= %u", bits,
                        GS_POW_MAX_BITS);
}

