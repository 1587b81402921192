#include "engine/cpu/parallel.h"
#include "engine/cpu/cpu_engine.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct slice {
    void (*fn)(void *, size_t, size_t, unsigned);
    void *ctx;
    size_t lo, hi;
    unsigned part;
} slice;

static void *run_slice(void *arg)
{
    slice *s = arg;
    s->fn(s->ctx, s->lo, s->hi, s->part);
    return NULL;
}

int gs_cpu_parallel_for(unsigned parts, size_t n, void (*fn)(void *ctx, size_t lo, size_t hi, unsigned part), void *ctx)
{
    if (parts <= 1 || n <= 1) {
        fn(ctx, 0, n, 0);
        for (unsigned p = 1; p < parts; p++)
            fn(ctx, n, n, p);
        return 0;
    }
    slice *s = calloc(parts, sizeof(slice));
    pthread_t *th = calloc(parts, sizeof(pthread_t));
    char *started = calloc(parts, 1);
    int rc = 0;
    if (!s || !th || !started) {
        free(s), free(th), free(started);
        fn(ctx, 0, n, 0);
        for (unsigned p = 1; p < parts; p++)
            fn(ctx, n, n, p);
        return -1;
    }
    for (unsigned p = 0; p < parts; p++) {
        s[p].fn = fn;
        s[p].ctx = ctx;
        s[p].lo = n * p / parts;
        s[p].hi = n * (p + 1) / parts;
        s[p].part = p;
    }
    for (unsigned p = 1; p < parts; p++)
        started[p] = pthread_create(&th[p], NULL, run_slice, &s[p]) == 0;
    run_slice(&s[0]);
    for (unsigned p = 1; p < parts; p++) {
        if (started[p])
            pthread_join(th[p], NULL);
        else {
            run_slice(&s[p]);
            rc = -1;
        }
    }
    free(s), free(th), free(started);
    return rc;
}

unsigned gs_cpu_parts(const void *engine, size_t n)
{
    const gs_engine *eng = engine;
    const gs_cpu_state *st = eng->impl;
    unsigned t = st && st->threads ? st->threads : 1;
    if (n < (size_t)t)
        t = n > 0 ? (unsigned)n : 1;
    return t;
}
