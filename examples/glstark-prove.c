/* Proves OpenVM circuits from files: a verifying key in OpenVM's pre-hash
 * encoding (.prevk.bin) and proving-context files (.ctx.bin, format version
 * 1, docs/openvm.md). The proofs are OpenVM's `Proof::encode` bytes, equal
 * to OpenVM v2.0.1's for the same key and context. Public API only.
 *
 *   glstark-prove [--engine auto|gles|cpu] [--out FILE | --out-dir DIR] [--json FILE] [--quiet] [--no-check]
 *                 [--no-spans] [--platform P] [--drm-node PATH] [--require-hw] [--limits-floor] [--threads T]
 *                 [--devices all|I,J,...] KEY CTX [CTX ...]
 *
 * For each context it checks the traces against the key's constraints
 * (unless --no-check), proves, verifies its own proof, writes it (--out
 * FILE for one context; --out-dir DIR writes DIR/NAME.proof.bin for
 * NAME.ctx.bin) and prints the keccakf demo's report: the device, a line
 * per phase, the span tree with OpenVM's names, host syncs, memory, proof
 * size and verify time. Reading the context is timed apart from proving.
 * --devices proves the contexts on several GPUs of the host at once, one
 * device (GL context) per GPU shared by two threads, each taking the next
 * context not yet taken: one reads a context and verifies a proof while the
 * other proves on the GPU. Every proof is verified, and the report is a line
 * per context.
 *
 * Exit codes: 0 proved and verified; 1 a trace that does not satisfy its
 * AIR, or the proof rejected by the verifier; 2 anything else (unreadable or
 * malformed input, a context that does not match its key, a preprocessed
 * commitment mismatch, device or memory failure, bad usage). With several
 * contexts the worst code wins. */
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/resource.h>

#include "example_common.h"
#include "prove_report.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: glstark-prove [--engine auto|gles|cpu (auto)] [--out FILE | --out-dir DIR] [--json FILE] [--quiet]\n"
            "                     [--no-check] [--no-spans] [--platform auto|gbm|device|surfaceless]\n"
            "                     [--drm-node PATH] [--require-hw] [--limits-floor] [--threads T]\n"
            "                     [--devices all|I,J,...] KEY CTX [CTX ...]\n"
            "  KEY  an OpenVM verifying key in its pre-hash encoding (.prevk.bin; the examples' --key-out)\n"
            "  CTX  a proving-context file for that key (.ctx.bin; the examples' --ctx-out; docs/openvm.md)\n"
            "exit: 0 proved and verified, 1 unsatisfied trace or proof rejected, 2 bad input or other failure\n");
}

#define MAX_DEVICES 16

typedef struct prove_cfg {
    glstark_device_options dev;
    const char *out, *out_dir, *json, *key;
    int quiet, no_check, no_spans;
    char **ctxs;
    int num_ctxs;
    /* --devices: the GPUs' indices (glstark-info --list); all_devices for
     * "all"; none given: one device from the options */
    unsigned device_index[MAX_DEVICES];
    int num_devices, all_devices;
} prove_cfg;

/* What happened to one context. */
typedef struct ctx_record {
    const char *path;
    char proof_path[4096];
    int rc;
    int device; /* which of the call's devices proved it */
    char msg[2400];
    size_t ctx_bytes, num_traces, proof_len;
    double read_s, key_s, prove_s, verify_s, phase_s[6];
    int verified;
    glstark_prove_stats stats;
    char fallback_note[512];
} ctx_record;

/* "all" or a comma-separated list of device indices. */
static int parse_devices(const char *v, prove_cfg *c)
{
    if (!strcmp(v, "all")) {
        c->all_devices = 1;
        return 0;
    }
    c->num_devices = 0;
    const char *p = v;
    while (*p) {
        char *end = NULL;
        unsigned long k = strtoul(p, &end, 10);
        if (end == p || k > 255 || (*end && *end != ',') || c->num_devices == MAX_DEVICES) {
            fprintf(stderr, "error: --devices takes 'all' or up to %d indices like 0,1 (glstark-info --list), not '%s'\n",
                    MAX_DEVICES, v);
            return 2;
        }
        for (int i = 0; i < c->num_devices; i++)
            if (c->device_index[i] == k) {
                fprintf(stderr, "error: --devices names device %lu twice\n", k);
                return 2;
            }
        c->device_index[c->num_devices++] = (unsigned)k;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int parse(int argc, char **argv, prove_cfg *c)
{
    memset(c, 0, sizeof *c);
    glstark_device_options_init(&c->dev); /* engine auto */
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "--quiet")) {
            c->quiet = 1;
        } else if (!strcmp(a, "--no-check")) {
            c->no_check = 1;
        } else if (!strcmp(a, "--no-spans")) {
            c->no_spans = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 2;
        } else if (!ex_device_switch(a, &c->dev)) {
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (!v) {
                fprintf(stderr, "error: %s needs a value\n", a);
                usage();
                return 2;
            }
            int d = ex_device_option(a, v, &c->dev);
            if (d < 0)
                return 2;
            if (d == 0 && !strcmp(a, "--out"))
                c->out = v;
            else if (d == 0 && !strcmp(a, "--out-dir"))
                c->out_dir = v;
            else if (d == 0 && !strcmp(a, "--json"))
                c->json = v;
            else if (d == 0 && !strcmp(a, "--devices")) {
                if (parse_devices(v, c))
                    return 2;
            }
            else if (d == 0) {
                fprintf(stderr, "error: unknown option '%s'\n", a);
                usage();
                return 2;
            }
            i++;
        }
    }
    if (argc - i < 2) {
        usage();
        return 2;
    }
    c->key = argv[i];
    c->ctxs = argv + i + 1;
    c->num_ctxs = argc - i - 1;
    if (c->out && c->out_dir) {
        fprintf(stderr, "error: --out and --out-dir exclude each other\n");
        return 2;
    }
    if ((c->num_devices || c->all_devices) && c->dev.engine == GLSTARK_ENGINE_CPU) {
        fprintf(stderr, "error: --devices picks GPUs; it does not go with --engine cpu\n");
        return 2;
    }
    if (c->num_devices || c->all_devices)
        c->dev.engine = GLSTARK_ENGINE_GLES; /* --devices picks GPUs: never the CPU engine of auto */
    if (c->out && c->num_ctxs > 1) {
        fprintf(stderr, "error: --out names one proof file; with %d contexts use --out-dir DIR\n", c->num_ctxs);
        return 2;
    }
    return 0;
}

/* DIR/NAME.proof.bin for .../NAME.ctx.bin (or .../NAME for any other name). */
static void proof_path_in(const char *dir, const char *ctx_path, char *out, size_t size)
{
    const char *base = strrchr(ctx_path, '/');
    base = base ? base + 1 : ctx_path;
    size_t n = strlen(base);
    const char *suffix = ".ctx.bin";
    if (n > strlen(suffix) && !strcmp(base + n - strlen(suffix), suffix))
        n -= strlen(suffix);
    snprintf(out, size, "%s/%.*s.proof.bin", dir, (int)n, base);
}

typedef struct progress {
    const prove_cfg *cfg;
    double t0;
} progress;

static void on_span(void *user, const glstark_span *s, int finished)
{
    const progress *p = user;
    /* with several devices the report is a line per context */
    if (p->cfg->quiet || p->cfg->num_devices > 1 || !finished || s->depth > 1)
        return;
    printf("  [%8.3f s] %*s%-*s %9.3f s%s%s%s\n", ex_now() - p->t0, (int)s->depth * 2, "", 34 - (int)s->depth * 2,
           s->name, s->end - s->start, s->engine[0] ? " (" : "", s->engine, s->engine[0] ? ")" : "");
    fflush(stdout);
}

/* Exit code of a failed proof: 1 for a trace that does not satisfy its AIR. */
static int prove_failure_code(glstark_status st) { return st == GLSTARK_ERR_UNSATISFIED ? 1 : 2; }

/* Reads, proves, verifies and writes one context. */
static void prove_one(const prove_cfg *c, const glstark_verifying_key *vk, glstark_device *dev, ctx_record *r)
{
    char msg[2048];
    glstark_context *ctx = NULL;
    glstark_proving_key *pk = NULL;
    double t = ex_now();
    glstark_status st = glstark_context_open(r->path, vk, &ctx, msg, sizeof msg);
    r->read_s = ex_now() - t;
    if (st) {
        snprintf(r->msg, sizeof r->msg, "%s: cannot use the context (%s): %s", r->path, glstark_status_name(st), msg);
        r->rc = 2;
        return;
    }
    r->ctx_bytes = glstark_context_size(ctx);
    r->num_traces = glstark_context_num_traces(ctx);
    t = ex_now();
    st = glstark_proving_key_from_context(vk, ctx, &pk, msg, sizeof msg);
    r->key_s = ex_now() - t;
    if (st) {
        snprintf(r->msg, sizeof r->msg, "%s: cannot make the proving key (%s): %s", r->path, glstark_status_name(st),
                 msg);
        r->rc = 2;
        glstark_context_destroy(ctx);
        return;
    }
    if (!c->quiet)
        printf("glstark-prove: %s: %zu traces, %.1f MiB, read and checked against the key in %.3f s, proving key in "
               "%.3f s; constraint check %s\n",
               r->path, r->num_traces, r->ctx_bytes / 1048576.0, r->read_s, r->key_s,
               c->no_check ? "off (--no-check)" : "on");
    progress pg = {c, ex_now()};
    glstark_prove_options po;
    glstark_prove_options_init(&po);
    po.device = dev;
    po.cpu_threads = c->dev.cpu_threads;
    po.skip_constraint_check = c->no_check;
    glstark_prove_stats_init(&r->stats);
    po.stats = &r->stats;
    po.no_spans = c->no_spans;
    po.progress = c->no_spans ? NULL : on_span;
    po.progress_user = &pg;
    glstark_prove_result res;
    st = glstark_prove_context(pk, ctx, &po, &res);
    glstark_proving_key_destroy(pk);
    glstark_context_destroy(ctx);
    if (st) {
        snprintf(r->msg, sizeof r->msg, "%s: prove failed (%s): %s", r->path, glstark_status_name(st), res.message);
        r->rc = prove_failure_code(st);
        return;
    }
    r->prove_s = res.seconds;
    memcpy(r->phase_s, res.phase_seconds, sizeof r->phase_s);
    snprintf(r->fallback_note, sizeof r->fallback_note, "%s", res.fallback_note);
    r->proof_len = res.proof_len;
    t = ex_now();
    st = glstark_verify(vk, res.proof, res.proof_len, msg, sizeof msg);
    r->verify_s = ex_now() - t;
    r->verified = st == GLSTARK_OK;
    if (st) {
        snprintf(r->msg, sizeof r->msg, "%s: the new proof was NOT accepted by the verifier (%s): %s", r->path,
                 glstark_status_name(st), msg);
        r->rc = st == GLSTARK_ERR_REJECTED ? 1 : 2;
    } else if (r->proof_path[0] &&
               (st = glstark_write_file(r->proof_path, res.proof, res.proof_len, msg, sizeof msg))) {
        snprintf(r->msg, sizeof r->msg, "%s: %s", r->path, msg);
        r->rc = 2;
    }
    glstark_prove_result_free(&res);
}

static void print_report(const prove_cfg *c, const ex_device_info *d, const ctx_record *r, long peak_rss_kb)
{
    const glstark_prove_stats *ps = &r->stats;
    if (c->quiet || c->num_devices > 1) {
        char where[32] = "";
        if (c->num_devices > 1)
            snprintf(where, sizeof where, " (device %u)", c->device_index[r->device]);
        printf("%s %s%s: prove %.3f s (context read %.3f s), %zu bytes, verify ok in %.3f s, %llu host syncs, peak "
               "RSS %.0f MiB\n",
               r->path, d->engine, where, r->prove_s, r->read_s, r->proof_len, r->verify_s,
               (unsigned long long)ps->host_syncs, peak_rss_kb / 1024.0);
        return;
    }
    if (r->fallback_note[0])
        printf("note: CPU fallback: %s\n", r->fallback_note);
    ex_print_span_tree(ps);
    printf("prove: %.3f s (check %.3f, commit %.3f, LogUp PoW %.3f, LogUp/zerocheck %.3f, stacked reduction %.3f, "
           "WHIR %.3f); the context's reading %.3f s beside it\n",
           r->prove_s, r->phase_s[0], r->phase_s[1], r->phase_s[2], r->phase_s[3], r->phase_s[4], r->phase_s[5],
           r->read_s);
    printf("host syncs: %llu (%s engine %llu, CPU fallback %llu)\n", (unsigned long long)ps->host_syncs, d->engine,
           (unsigned long long)ps->device_host_syncs, (unsigned long long)ps->fallback_host_syncs);
    if (ps->programs_built)
        printf("GPU programs: %llu made ready in %.3f s of the proving\n", (unsigned long long)ps->programs_built,
               ps->program_build_seconds);
    printf("memory: peak host RSS %.1f MiB (whole process, the mapped context's pages included); %s engine buffers "
           "peak %.1f MiB%s, %.1f MiB allocated anew",
           peak_rss_kb / 1024.0, d->engine, ps->device_bytes_peak / 1048576.0,
           !strcmp(d->engine, "gles") ? " (GPU)" : " (host)", ps->device_bytes_allocated / 1048576.0);
    if (ps->fallback_bytes_peak)
        printf("; CPU fallback buffers peak %.1f MiB", ps->fallback_bytes_peak / 1048576.0);
    printf("; context %.1f MiB mapped\n", r->ctx_bytes / 1048576.0);
    printf("proof: %zu bytes%s%s\n", r->proof_len, r->proof_path[0] ? ", wrote " : "", r->proof_path);
    printf("verify: accepted in %.3f s\n", r->verify_s);
}

static int write_json(const char *path, const prove_cfg *c, const ex_device_info *devs, const ctx_record *recs,
                      int n, long peak_rss_kb, double wall_s)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 2;
    }
    static const char *ph[6] = {"check", "commit", "logup_pow", "logup_zerocheck", "stacked_reduction", "whir"};
    fprintf(f, "{\n  \"program\": \"glstark-prove\",\n  \"glstark_version\": ");
    ex_json_str(f, glstark_version());
    fprintf(f, ",\n  \"device\": ");
    ex_json_device(f, &devs[0]);
    fprintf(f, ",\n  \"devices\": [");
    for (int k = 0; k < (c->num_devices ? c->num_devices : 1); k++) {
        fprintf(f, "%s{\"index\": %u, \"device\": ", k ? ", " : "", c->num_devices ? c->device_index[k] : 0);
        ex_json_device(f, &devs[k]);
        fprintf(f, "}");
    }
    fprintf(f, "],\n  \"wall_seconds\": %.6f,\n  \"peak_rss_bytes\": %lld,\n  \"contexts\": [\n", wall_s,
            (long long)peak_rss_kb * 1024);
    for (int i = 0; i < n; i++) {
        const ctx_record *r = &recs[i];
        const glstark_prove_stats *st = &r->stats;
        fprintf(f, "    {\"context\": ");
        ex_json_str(f, r->path);
        fprintf(f, ", \"exit\": %d, \"device_index\": %u, \"message\": ", r->rc,
                c->num_devices ? c->device_index[r->device] : 0);
        ex_json_str(f, r->msg);
        fprintf(f, ", \"proof_file\": ");
        ex_json_str(f, r->rc ? "" : r->proof_path);
        fprintf(f, ",\n     \"context_bytes\": %zu, \"traces\": %zu, \"read_seconds\": %.6f, \"key_seconds\": %.6f,\n",
                r->ctx_bytes, r->num_traces, r->read_s, r->key_s);
        fprintf(f, "     \"prove_seconds\": %.6f, \"phase_seconds\": {", r->prove_s);
        for (int k = 0; k < 6; k++)
            fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", ph[k], r->phase_s[k]);
        fprintf(f, "},\n     \"host_syncs\": %llu, \"device_bytes_peak\": %zu, \"device_bytes_allocated\": %llu,\n",
                (unsigned long long)st->host_syncs, st->device_bytes_peak,
                (unsigned long long)st->device_bytes_allocated);
        fprintf(f, "     \"proof_bytes\": %zu, \"verified\": %s, \"verify_seconds\": %.6f,\n     \"spans\": ", r->proof_len,
                r->verified ? "true" : "false", r->verify_s);
        ex_json_spans(f, st, 5);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "error: writing %s failed\n", path);
        return 2;
    }
    return 0;
}

/* One GPU's device, opened on the main thread and shared by its workers
 * (the library lets any thread use a device and runs their calls in turn:
 * include/glstark/device.h, "Threads"). */
typedef struct gpu {
    glstark_device *dev;
    ex_device_info info;
    int open_rc; /* 0, or 2: the device did not open (said on stderr) */
} gpu;

/* Opens device k of the call (the one device without --devices) and says so. */
static void gpu_open(const prove_cfg *c, int k, gpu *g)
{
    glstark_device_options o = c->dev;
    if (c->num_devices)
        o.device_index = c->device_index[k];
    char msg[4096];
    memset(g, 0, sizeof *g);
    glstark_status st = glstark_device_create(&o, &g->dev, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "error: cannot open the %s device%s (%s): %s\n",
                c->dev.engine == GLSTARK_ENGINE_CPU ? "cpu" : c->dev.engine == GLSTARK_ENGINE_GLES ? "gles" : "auto",
                c->num_devices ? " of --devices" : "", glstark_status_name(st), msg);
        g->open_rc = 2;
        return;
    }
    ex_device_describe(g->dev, &g->info);
    if (!c->quiet) {
        if (c->num_devices > 1)
            printf("[device %u] ", c->device_index[k]);
        ex_print_device(&g->info);
    }
}

/* A worker: takes the next context not yet taken until none is left and
 * proves it on its GPU's device, printing each report under the lock. Two
 * workers share a GPU when there are contexts enough, so one reads its
 * context and verifies its proof while the other proves. */
typedef struct worker {
    const prove_cfg *cfg;
    const glstark_verifying_key *vk;
    int index; /* its GPU, into cfg->device_index */
    const gpu *g;
    ctx_record *recs;
    int *next;
    pthread_mutex_t *lock;
} worker;

static void *worker_run(void *arg)
{
    worker *w = arg;
    const prove_cfg *c = w->cfg;
    for (;;) {
        pthread_mutex_lock(w->lock);
        const int i = (*w->next)++;
        pthread_mutex_unlock(w->lock);
        if (i >= c->num_ctxs)
            break;
        ctx_record *r = &w->recs[i];
        r->device = w->index;
        prove_one(c, w->vk, w->g->dev, r);
        struct rusage ru;
        long peak_kb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
        pthread_mutex_lock(w->lock);
        if (r->rc)
            fprintf(stderr, "%s\n", r->msg);
        else
            print_report(c, &w->g->info, r, peak_kb);
        fflush(stdout);
        pthread_mutex_unlock(w->lock);
    }
    return NULL;
}

/* --devices all: every index that opens as a hardware GPU. */
static void find_all_devices(prove_cfg *c)
{
    char msg[4096];
    c->num_devices = 0;
    for (unsigned k = 0; k < MAX_DEVICES; k++) {
        glstark_device_options o = c->dev;
        o.require_hw = 1;
        o.device_index = k;
        glstark_device *dev = NULL;
        if (glstark_device_create(&o, &dev, msg, sizeof msg) != GLSTARK_OK)
            break;
        glstark_device_destroy(dev);
        c->device_index[c->num_devices++] = k;
    }
}

int main(int argc, char **argv)
{
    prove_cfg c;
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc;
    uint8_t *key = NULL;
    size_t key_len = 0;
    char msg[2048];
    glstark_status st = glstark_read_file(c.key, &key, &key_len, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "%s: cannot read the key: %s\n", c.key, msg);
        return 2;
    }
    glstark_verifying_key *vk = NULL;
    st = glstark_verifying_key_decode(key, key_len, &vk, msg, sizeof msg);
    glstark_free(key);
    if (st) {
        fprintf(stderr, "%s: not a verifying key (%s): %s\n", c.key, glstark_status_name(st), msg);
        return 2;
    }
    ctx_record *recs = calloc((size_t)c.num_ctxs, sizeof *recs);
    if (!recs) {
        fprintf(stderr, "error: out of host memory\n");
        rc = 2;
    }
    if (!rc && c.all_devices) {
        find_all_devices(&c);
        if (!c.num_devices) {
            fprintf(stderr, "error: --devices all: no hardware GPU opened (glstark-info --list)\n");
            rc = 2;
        }
    }
    /* --out-dir: made if missing (one level, like mkdir) */
    if (!rc && c.out_dir && mkdir(c.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "error: cannot make the directory %s for --out-dir: %s\n", c.out_dir, strerror(errno));
        rc = 2;
    }
    const int ndev = c.num_devices ? c.num_devices : 1;
    gpu g[MAX_DEVICES];
    memset(g, 0, sizeof g);
    double wall = 0;
    int ran = 0; /* the workers ran: the JSON has something to say */
    if (!rc) {
        ran = 1;
        if (!c.quiet)
            printf("glstark %s\n", glstark_version());
        for (int i = 0; i < c.num_ctxs; i++) {
            recs[i].path = c.ctxs[i];
            if (c.out)
                snprintf(recs[i].proof_path, sizeof recs[i].proof_path, "%s", c.out);
            else if (c.out_dir)
                proof_path_in(c.out_dir, recs[i].path, recs[i].proof_path, sizeof recs[i].proof_path);
        }
        for (int k = 0; k < ndev; k++)
            gpu_open(&c, k, &g[k]);
        pthread_mutex_t lock;
        pthread_mutex_init(&lock, NULL);
        int next = 0;
        /* two workers per GPU when each can have a context of its own */
        const int per = c.num_ctxs >= 2 * ndev ? 2 : 1, nw = ndev * per;
        worker w[2 * MAX_DEVICES];
        pthread_t th[2 * MAX_DEVICES];
        int started[2 * MAX_DEVICES] = {0};
        const double t0 = ex_now();
        /* worker 0 runs on this thread, the one that opened the devices, and
         * the others on threads of their own: a thread's first call on a
         * device costs tens of ms on NVIDIA (include/glstark/device.h,
         * "Threads"), which this thread has paid already */
        for (int k = 1; k < nw; k++) {
            const gpu *gk = &g[k / per];
            w[k] = (worker){.cfg = &c, .vk = vk, .index = k / per, .g = gk, .recs = recs, .next = &next, .lock = &lock};
            if (!gk->dev)
                continue;
            started[k] = pthread_create(&th[k], NULL, worker_run, &w[k]) == 0;
            if (!started[k])
                worker_run(&w[k]); /* no thread: its share on this one */
        }
        w[0] = (worker){.cfg = &c, .vk = vk, .index = 0, .g = &g[0], .recs = recs, .next = &next, .lock = &lock};
        if (g[0].dev)
            worker_run(&w[0]);
        for (int k = 0; k < nw; k++)
            if (started[k])
                pthread_join(th[k], NULL);
        wall = ex_now() - t0;
        pthread_mutex_destroy(&lock);
        for (int k = 0; k < ndev; k++) {
            if (g[k].open_rc > rc)
                rc = g[k].open_rc;
            glstark_device_destroy(g[k].dev);
        }
        int proved = 0;
        for (int i = 0; i < c.num_ctxs; i++) {
            if (!recs[i].path || (!recs[i].rc && !recs[i].proof_len)) {
                /* no device was left to take it */
                recs[i].rc = 2;
                snprintf(recs[i].msg, sizeof recs[i].msg, "%s: not proved: no device opened", c.ctxs[i]);
            }
            proved += recs[i].rc == 0;
            if (recs[i].rc > rc)
                rc = recs[i].rc;
        }
        if (ndev > 1 || c.num_ctxs > 1)
            printf("%d of %d context%s proved on %d device%s in %.3f s wall (%.2f proofs/s)\n", proved, c.num_ctxs,
                   c.num_ctxs == 1 ? "" : "s", ndev, ndev == 1 ? "" : "s", wall, proved / wall);
    }
    if (ran && c.json) {
        ex_device_info info[MAX_DEVICES];
        for (int k = 0; k < ndev; k++)
            info[k] = g[k].info;
        struct rusage ru;
        long peak_kb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
        int jr = write_json(c.json, &c, info, recs, c.num_ctxs, peak_kb, wall);
        if (jr > rc)
            rc = jr;
    }
    free(recs);
    glstark_verifying_key_destroy(vk);
    return rc;
}
