/* What it costs when a device's proofs come from different threads.
 *
 *   bench_device_threads [--log-rows N (16)] [--proofs N (8)]
 *
 * A glstark_device may be used from any thread: each call makes the GL
 * context current on the calling thread and releases it on return. This
 * proves the Fibonacci AIR (2^N rows, app:18 parameters) on one GLES device
 * in three ways, after every thread involved has proved once:
 *   same:      every proof on one thread;
 *   alternate: two threads taking turns, each proof on the other thread;
 *   fresh:     every proof on a thread that never used the device.
 * and prints, per way, the median wall time of a proof as the caller sees it
 * (from the call to its return) and the median of the library's own proving
 * time; the difference is what the hand-over costs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/example_common.h"
#include "glstark/glstark.h"

#define MAX_PROOFS 64

typedef struct bench {
    const glstark_proving_key *pk;
    glstark_device *dev;
    const glstark_air_trace *trace;
    pthread_mutex_t lock;
    pthread_cond_t turn_changed;
    int turn; /* alternate: whose proof is next (0 or 1) */
    int remaining;
    double wall[MAX_PROOFS], prove[MAX_PROOFS];
    int n;
    int failed;
} bench;

/* One proof; its wall and proving time recorded (under the lock). */
static void prove_once(bench *b)
{
    glstark_prove_options po;
    glstark_prove_options_init(&po);
    po.device = b->dev;
    po.no_spans = 1;
    glstark_prove_result r;
    double t0 = ex_now();
    glstark_status st = glstark_prove(b->pk, b->trace, 1, &po, &r);
    double wall = ex_now() - t0;
    pthread_mutex_lock(&b->lock);
    if (st) {
        fprintf(stderr, "error: prove failed (%s): %s\n", glstark_status_name(st), r.message);
        b->failed = 1;
    } else if (b->n < MAX_PROOFS) {
        b->wall[b->n] = wall;
        b->prove[b->n] = r.seconds;
        b->n++;
        glstark_prove_result_free(&r);
    }
    pthread_mutex_unlock(&b->lock);
}

static void *one_proof(void *arg)
{
    prove_once(arg);
    return NULL;
}

typedef struct taker {
    bench *b;
    int id;
} taker;

/* alternate: prove when it is this thread's turn, until none remain. */
static void *alternate(void *arg)
{
    taker *t = arg;
    bench *b = t->b;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        while (b->turn != t->id && b->remaining > 0)
            pthread_cond_wait(&b->turn_changed, &b->lock);
        if (b->remaining <= 0) {
            pthread_mutex_unlock(&b->lock);
            return NULL;
        }
        pthread_mutex_unlock(&b->lock);
        prove_once(b);
        pthread_mutex_lock(&b->lock);
        b->remaining--;
        b->turn = 1 - t->id;
        pthread_cond_broadcast(&b->turn_changed);
        pthread_mutex_unlock(&b->lock);
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return a < c ? -1 : a > c;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void report(const char *way, bench *b)
{
    if (!b->n)
        return;
    double w = median(b->wall, b->n), p = median(b->prove, b->n);
    printf("%-10s %2d proofs: wall %.2f ms, proving %.2f ms, hand-over %.2f ms (medians)\n", way, b->n, 1e3 * w,
           1e3 * p, 1e3 * (w - p));
    b->n = 0;
}

int main(int argc, char **argv)
{
    long log_rows = 16, proofs = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--log-rows"))
            log_rows = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--proofs"))
            proofs = strtol(argv[i + 1], NULL, 10);
    }
    if (argc % 2 == 0 || log_rows < 2 || log_rows > 18 || proofs < 1 || proofs > MAX_PROOFS) {
        fprintf(stderr, "usage: bench_device_threads [--log-rows 2..18 (16)] [--proofs 1..%d (8)]\n", MAX_PROOFS);
        return 2;
    }
    glstark_params *p = NULL;
    if (ex_params("app:18", &p))
        return 2;
    glstark_air *air = NULL;
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    glstark_device *dev = NULL;
    int rc = ex_fibonacci_keys(p, &air, &pk, &vk);
    if (!rc)
        rc = ex_open_engine("gles", &dev);
    size_t h = (size_t)1 << log_rows;
    uint32_t *values = malloc(2 * h * sizeof *values), pv[3];
    if (!rc && (!values || glstark_fibonacci_trace(0, 1, h, values, pv))) {
        fprintf(stderr, "error: cannot build the trace\n");
        rc = 1;
    }
    if (!rc) {
        glstark_air_trace t = {h, {values, 2}, NULL, pv, 3};
        bench b = {.pk = pk, .dev = dev, .trace = &t};
        pthread_mutex_init(&b.lock, NULL);
        pthread_cond_init(&b.turn_changed, NULL);
        printf("fibonacci 2^%ld rows, app:18, %ld proofs per way\n", log_rows, proofs);
        /* warm-up: this thread, then the two alternating threads once each */
        prove_once(&b);
        for (long i = 0; i < proofs; i++)
            prove_once(&b);
        b.n = 0;
        for (long i = 0; i < proofs; i++)
            prove_once(&b);
        report("same", &b);
        taker tk[2] = {{&b, 0}, {&b, 1}};
        pthread_t th[2];
        b.turn = 0;
        b.remaining = 2 + (int)proofs; /* the first two warm the threads */
        for (int k = 0; k < 2; k++)
            if (pthread_create(&th[k], NULL, alternate, &tk[k]))
                rc = 1;
        for (int k = 0; k < 2 && !rc; k++)
            pthread_join(th[k], NULL);
        if (b.n >= 2) { /* drop the two warm-ups */
            memmove(b.wall, b.wall + 2, (size_t)(b.n - 2) * sizeof *b.wall);
            memmove(b.prove, b.prove + 2, (size_t)(b.n - 2) * sizeof *b.prove);
            b.n -= 2;
        }
        report("alternate", &b);
        for (long i = 0; i < proofs && !rc; i++) {
            pthread_t f;
            if (pthread_create(&f, NULL, one_proof, &b)) {
                rc = 1;
                break;
            }
            pthread_join(f, NULL);
        }
        report("fresh", &b);
        rc = rc || b.failed;
        pthread_cond_destroy(&b.turn_changed);
        pthread_mutex_destroy(&b.lock);
    }
    free(values);
    glstark_device_destroy(dev);
    glstark_verifying_key_destroy(vk);
    glstark_proving_key_destroy(pk);
    glstark_air_destroy(air);
    glstark_params_destroy(p);
    return rc;
}
