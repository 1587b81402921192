/* The keccakf demo: proves Keccak-f[1600] permutations with Plonky3's
 * KeccakAir, as OpenVM's keccakf example does (inputs from Rust StdRng
 * seeded with S, params app_params_with_100_bits_security(L)), verifies the
 * proof and reports where the time and memory went.
 *
 *   keccakf [--perms N] [--seed S] [--log-stacked-height L] [--engine auto|gles|cpu] [--jobs J]
 *           [--out FILE] [--key-out FILE] [--ctx-out FILE] [--json FILE] [--quiet] [--check] [--threads T]
 *           [--platform auto|gbm|device|surfaceless] [--drm-node PATH] [--require-hw] [--limits-floor]
 *   keccakf [--perms N] [--seed S] [--log-stacked-height L] --verify FILE
 *
 * It prints the device, a line per phase as it finishes, the span tree
 * (OpenVM's span names), host syncs, peak memory (host RSS, engine buffer
 * high-water mark), proof size and verify time; --json writes the same
 * figures. --jobs J proves J independent statements (job j: the
 * permutations of seed S + j), one thread each on one shared device: each
 * job makes its trace and verifies its proof beside the others' proofs,
 * which the device runs in turn; with --same-statement all J prove seed S
 * and the proofs must be identical.
 * The debug constraint check runs only with --check. The trace is
 * generated before the proof, as OpenVM's "excluding trace" times assume; a
 * trace that one proof reads (no --repeat, no --same-statement) is freed as
 * soon as its prover has its own copy (glstark_prove_options.traces_released),
 * --keep-trace keeps it. --stream-trace instead lets the prover ask for the rows block by
 * block (trace_rows), so no whole trace is ever held on the host (its
 * generation then runs inside the proof's trace_upload span).
 *
 * Exit codes: see example_common.h (2 also for bad arguments). */
#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

#include "example_common.h"
#include "prove_report.h"

#define MAX_JOBS 64
#define MAX_REPEAT 32

static void usage(void)
{
    fprintf(stderr,
            "usage: keccakf [--perms N (1024)] [--seed S (42)] [--log-stacked-height L (21)] [--engine auto|gles|cpu (auto)]\n"
            "               [--jobs J (1)] [--repeat R (1)] [--no-spans] [--out FILE] [--key-out FILE] [--ctx-out FILE]\n"
            "               [--json FILE]\n"
            "               [--quiet] [--check]\n"
            "               [--same-statement] [--keep-trace | --stream-trace] [--codeword auto|keep|reencode]\n"
            "               [--threads T]\n"
            "               [--platform auto|gbm|device|surfaceless] [--drm-node /dev/dri/renderDN] [--require-hw]\n"
            "               [--limits-floor]\n"
            "       keccakf [--perms N] [--seed S] [--log-stacked-height L] --verify FILE\n");
}

typedef struct demo_cfg {
    long perms, L, jobs, repeat;
    unsigned long long seed;
    const char *engine, *out, *json, *verify, *key_out, *ctx_out;
    int quiet, check, no_spans, keep_trace, stream_trace, same_statement;
    glstark_codeword_policy codeword;
    glstark_device_options dev;
} demo_cfg;

/* The trace: either streamed to the prover in row blocks (values NULL,
 * rows generated on request from the inputs), or a whole array, which the
 * prover's traces_released callback frees early when only one proof reads
 * it. With several jobs on one device the callback only hands the array to
 * the job (free_later), which frees it once every job's proof is done:
 * freeing 330 MB takes ~25 ms and holds the process's memory map, and beside
 * another job's proof it cost that proof ~10% (H200: 8.4-8.8 proofs/s
 * against 9.5-9.8 with the traces kept). The traces are all made when the
 * jobs start, so the peak memory is the same either way. */
typedef struct trace_mem {
    uint32_t *values;
    size_t bytes;
    int released;
    int streamed;
    int defer_free;      /* --jobs > 1: the job frees free_later after the last proof */
    uint32_t *free_later;
    const uint64_t (*inputs)[25];
    size_t perms;
} trace_mem;

/* One thread's share of a block of rows: generated into its own array,
 * then copied into its place in the block's columns. */
typedef struct rows_part {
    const trace_mem *m;
    size_t row_begin, num_rows; /* this part */
    size_t block_begin, block_rows;
    uint32_t *block;
    glstark_status st;
} rows_part;

static void *rows_part_run(void *v)
{
    rows_part *p = v;
    uint32_t *tmp = malloc(p->num_rows * GLSTARK_KECCAK_WIDTH * sizeof *tmp);
    if (!tmp) {
        p->st = GLSTARK_ERR_OUT_OF_MEMORY;
        return NULL;
    }
    p->st = glstark_keccak_trace_rows(p->m->inputs, p->m->perms, p->row_begin, p->num_rows, tmp);
    for (size_t c = 0; !p->st && c < GLSTARK_KECCAK_WIDTH; c++)
        memcpy(p->block + c * p->block_rows + (p->row_begin - p->block_begin), tmp + c * p->num_rows,
               p->num_rows * sizeof *tmp);
    free(tmp);
    return NULL;
}

/* trace_rows for the prover: the block's rows generated on every core
 * (serially this would be most of a GPU proof's time). */
static int trace_rows(void *user, size_t air, size_t row_begin, size_t num_rows, uint32_t *dst)
{
    const trace_mem *m = user;
    (void)air; /* one AIR */
    enum { MAX_PARTS = 16 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = cores < 1 ? 1 : cores > MAX_PARTS ? MAX_PARTS : (size_t)cores;
    size_t per = (num_rows + parts - 1) / parts;
    per = (per + 23) / 24 * 24; /* whole permutations, so none is computed twice */
    rows_part pt[MAX_PARTS];
    pthread_t th[MAX_PARTS];
    int started[MAX_PARTS] = {0};
    size_t n = 0;
    for (size_t r = row_begin; r < row_begin + num_rows; r += per, n++) {
        size_t rows = row_begin + num_rows - r < per ? row_begin + num_rows - r : per;
        pt[n] = (rows_part){m, r, rows, row_begin, num_rows, dst, GLSTARK_OK};
        started[n] = pthread_create(&th[n], NULL, rows_part_run, &pt[n]) == 0;
        if (!started[n])
            rows_part_run(&pt[n]); /* no thread: do it here */
    }
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        if (pt[i].st && !rc)
            rc = (int)pt[i].st;
    }
    return rc;
}

static void release_trace(void *user)
{
    trace_mem *m = user;
    if (m->defer_free)
        m->free_later = m->values;
    else
        free(m->values);
    m->values = NULL;
    m->released = 1;
}

struct statements;

/* The jobs' meeting point: job threads queue their statements once made,
 * the proving thread takes them in that order, and tells each job when its
 * proof is done. */
typedef struct job_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    long ready[MAX_JOBS]; /* job ids, in the order their statements were ready */
    long n_ready, n_taken;
    int proving; /* until the last proof is done */
} job_queue;

/* One job: the shared device and key, its statement's trace (made by the job
 * itself when gen is set) and its proof's verification. Every proof runs on
 * one thread (run_jobs'), the one that opened the device: on the H200 a
 * thread's first call on the device left the GPU idle 30-40 ms, and each job
 * on a thread of its own paid that (docs/performance.md). A job's own thread
 * makes its trace and verifies its proof beside the other jobs' proofs, and
 * frees its trace after the last proof. */
typedef struct job {
    int id;
    const demo_cfg *cfg;
    const glstark_proving_key *pk;
    const glstark_verifying_key *vk; /* non-NULL: the job verifies its proof */
    glstark_device *dev_shared;
    struct statements *stm; /* with gen: make statement k's trace first */
    long k;
    size_t h;
    int gen;
    const glstark_air_trace *trace;
    trace_mem *trace_mem; /* non-NULL: release it after the upload (one job, one proof) */
    pthread_mutex_t *print_lock;
    job_queue *queue;
    int statement_ok, proved; /* under queue->lock */
    double t_origin; /* the demo's clock origin, for progress lines */
    /* results */
    int ok;
    char msg[2304]; /* why it failed: a 2048-byte library message and a prefix */
    ex_device_info dev; /* the device this job proved on */
    uint8_t *proof;
    size_t proof_len;
    double prove_s, phase_s[6];
    double repeat_s[MAX_REPEAT]; /* each proof of --repeat, in order */
    double proved_at;            /* when its last proof ended (demo clock) */
    int verify_done, verify_ok;  /* verified on the job's thread */
    double verify_s;
    char verify_msg[2048];
    unsigned fallback_phases;
    char fallback_note[512];
    glstark_prove_stats stats;
    uint64_t programs_built;  /* GPU programs made ready over all of --repeat's proofs */
    double program_build_s;
    /* GLSTARK_PROFILE: the longest single dispatch per kernel, longest
     * first, as the device's profile logs them when it closes */
    int profiled;
    size_t n_longest;
    struct {
        double ms, cpu_ms, first_ms;
        unsigned long long dispatches;
        char kernel[96];
    } longest[64];
} job;

/* GLSTARK_PROFILE set (and not 0): the library logs its kernel profile when
 * the device closes; the demo takes it through its log callback, prints it
 * (as the library would without a callback) and keeps the longest
 * dispatches for --json. */
static int profile_on(void)
{
    const char *v = getenv("GLSTARK_PROFILE");
    return v && *v && strcmp(v, "0") != 0;
}

static void profile_log(void *user, glstark_log_level level, const char *msg)
{
    (void)level;
    job *j = user;
    static const char pre[] = "GLSTARK_PROFILE longest ";
    if (!strncmp(msg, pre, sizeof pre - 1) && j->n_longest < sizeof j->longest / sizeof j->longest[0]) {
        double ms = 0, cpu = 0, first = 0;
        unsigned long long nd = 0;
        int at = 0;
        if (sscanf(msg + sizeof pre - 1, "%lf ms %llu dispatches %lf ms cpu %lf ms first %n", &ms, &nd, &cpu, &first,
                   &at) == 4 &&
            at > 0) {
            j->longest[j->n_longest].ms = ms;
            j->longest[j->n_longest].cpu_ms = cpu;
            j->longest[j->n_longest].first_ms = first;
            j->longest[j->n_longest].dispatches = nd;
            snprintf(j->longest[j->n_longest].kernel, sizeof j->longest[0].kernel, "%s", msg + sizeof pre - 1 + at);
            j->n_longest++;
        }
    }
    /* the profile's lines: its headers and longest lines, and its table rows */
    if (!strncmp(msg, "GLSTARK_PROFILE", 15) || (!strncmp(msg, "  ", 2) && strstr(msg, " calls ")))
        fprintf(stderr, "%s\n", msg);
}

static void on_span(void *user, const glstark_span *s, int finished)
{
    job *j = user;
    if (j->cfg->quiet || !finished || s->depth > 1)
        return;
    pthread_mutex_lock(j->print_lock);
    char who[16] = "";
    if (j->cfg->jobs > 1)
        snprintf(who, sizeof who, "[job %d] ", j->id);
    printf("  %s[%8.3f s] %*s%-*s %9.3f s%s%s%s\n", who, ex_now() - j->t_origin, (int)s->depth * 2, "",
           34 - (int)s->depth * 2, s->name, s->end - s->start, s->engine[0] ? " (" : "", s->engine,
           s->engine[0] ? ")" : "");
    fflush(stdout);
    pthread_mutex_unlock(j->print_lock);
}

static int make_statement(const demo_cfg *c, size_t h, struct statements *s, long k);

/* The job's proof verified here, beside the other jobs' proofs. */
static void verify_job(job *j)
{
    double v0 = ex_now();
    glstark_status st = glstark_verify(j->vk, j->proof, j->proof_len, j->verify_msg, sizeof j->verify_msg);
    j->verify_s = ex_now() - v0;
    j->verify_done = 1;
    j->verify_ok = st == GLSTARK_OK;
    if (st && !j->verify_msg[0])
        snprintf(j->verify_msg, sizeof j->verify_msg, "%s", glstark_status_name(st));
}

/* Proves job j's statement (--repeat times) on the proving thread. */
static void prove_job(job *j)
{
    glstark_status st;
    glstark_prove_options po;
    glstark_prove_options_init(&po);
    po.device = j->dev_shared;
    po.cpu_threads = j->cfg->dev.cpu_threads;
    po.skip_constraint_check = !j->cfg->check;
    po.codeword = j->cfg->codeword;
    glstark_prove_stats_init(&j->stats);
    po.stats = &j->stats;
    po.no_spans = j->cfg->no_spans;
    po.progress = j->cfg->no_spans ? NULL : on_span;
    po.progress_user = j;
    if (j->trace_mem && j->trace_mem->streamed) {
        po.trace_rows = trace_rows;
        po.trace_rows_user = j->trace_mem;
    } else if (j->trace_mem) {
        po.traces_released = release_trace;
        po.traces_released_user = j->trace_mem;
        j->trace_mem->defer_free = j->cfg->jobs > 1;
    }
    /* --repeat: the same statement again on the same device (its buffer
     * pool warm); the last proof is kept, each one must equal the first */
    for (long k = 0; k < j->cfg->repeat; k++) {
        glstark_prove_result r;
        st = glstark_prove(j->pk, j->trace, 1, &po, &r);
        if (st) {
            snprintf(j->msg, sizeof j->msg, "prove %ld failed (%s): %s", k + 1, glstark_status_name(st), r.message);
            j->ok = 0;
            break;
        }
        if (j->proof && (r.proof_len != j->proof_len || memcmp(r.proof, j->proof, r.proof_len))) {
            snprintf(j->msg, sizeof j->msg, "repeat %ld's proof differs from the first", k + 1);
            glstark_prove_result_free(&r);
            j->ok = 0;
            break;
        }
        if (j->proof)
            glstark_free(j->proof);
        j->ok = 1;
        j->proof = r.proof; /* kept; freed with glstark_free */
        j->proof_len = r.proof_len;
        j->prove_s = r.seconds;
        j->repeat_s[k] = r.seconds;
        memcpy(j->phase_s, r.phase_seconds, sizeof j->phase_s);
        j->fallback_phases = r.fallback_phases;
        snprintf(j->fallback_note, sizeof j->fallback_note, "%s", r.fallback_note);
        j->programs_built += j->stats.programs_built;
        j->program_build_s += j->stats.program_build_seconds;
    }
    j->proved_at = ex_now();
}

/* A job's own thread: its trace, then (once the proving thread has proved
 * it) the proof verified, and once no proof is left its trace's memory
 * freed. */
static void *run_job(void *arg)
{
    job *j = arg;
    job_queue *q = j->queue;
    int made = !(j->gen && make_statement(j->cfg, j->h, j->stm, j->k));
    if (!made)
        snprintf(j->msg, sizeof j->msg, "making statement %ld's trace failed", j->k);
    pthread_mutex_lock(&q->lock);
    j->statement_ok = made;
    q->ready[q->n_ready++] = j->id;
    pthread_cond_broadcast(&q->changed);
    while (!j->proved)
        pthread_cond_wait(&q->changed, &q->lock);
    pthread_mutex_unlock(&q->lock);
    if (j->ok && j->vk)
        verify_job(j);
    pthread_mutex_lock(&q->lock);
    while (q->proving)
        pthread_cond_wait(&q->changed, &q->lock);
    pthread_mutex_unlock(&q->lock);
    if (j->trace_mem && j->trace_mem->free_later) {
        free(j->trace_mem->free_later);
        j->trace_mem->free_later = NULL;
    }
    return NULL;
}

/* The proving thread's loop: each of n started jobs' statements, proved in
 * the order they became ready. */
static void prove_jobs(job *jobs, long n, job_queue *q)
{
    for (long done = 0; done < n; done++) {
        pthread_mutex_lock(&q->lock);
        while (q->n_taken == q->n_ready)
            pthread_cond_wait(&q->changed, &q->lock);
        job *j = &jobs[q->ready[q->n_taken++]];
        int made = j->statement_ok;
        pthread_mutex_unlock(&q->lock);
        if (made)
            prove_job(j);
        pthread_mutex_lock(&q->lock);
        j->proved = 1;
        pthread_cond_broadcast(&q->changed);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_lock(&q->lock);
    q->proving = 0;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of the --repeat proofs of a job. */
static double repeat_median(const job *j, long n)
{
    double v[MAX_REPEAT];
    memcpy(v, j->repeat_s, (size_t)n * sizeof v[0]);
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct summary {
    long rows;
    double trace_s, wall_s, verify_s;
    long peak_rss_kb;
    int trace_released; /* the trace array was freed during the proof */
    int trace_streamed; /* no trace array: rows went to the prover in blocks */
    int independent;    /* --jobs J > 1 without --same-statement: job j proved seed S + j */
    int identical, verified;
    long jobs_verified; /* proofs accepted by the verifier (each independent job's, else job 0's) */
    double first_done, last_done; /* when the first and the last job's proofs ended (--jobs) */
} summary;

/* GPU programs made ready over the whole run: every job's proofs. The jobs
 * share one device and are proved in the order their statements became
 * ready, so whichever goes first makes the programs ready, not always job 0. */
static void programs_total(const job *jobs, long n, uint64_t *built, double *seconds)
{
    *built = 0;
    *seconds = 0;
    for (long i = 0; i < n; i++) {
        *built += jobs[i].programs_built;
        *seconds += jobs[i].program_build_s;
    }
}

static int write_json(const char *path, const demo_cfg *c, const job *jobs, const summary *sm)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    const job *j = &jobs[0];
    const glstark_prove_stats *st = &j->stats;
    fprintf(f, "{\n  \"program\": \"keccakf\",\n  \"glstark_version\": ");
    ex_json_str(f, glstark_version());
    fprintf(f, ",\n  \"perms\": %ld,\n  \"seed\": %llu,\n  \"log_stacked_height\": %ld,\n",
            c->perms, c->seed, c->L);
    fprintf(f, "  \"trace_rows\": %ld,\n  \"jobs\": %ld,\n  \"constraint_check\": %s,\n", sm->rows, c->jobs,
            c->check ? "true" : "false");
    fprintf(f, "  \"device\": ");
    ex_json_device(f, &j->dev);
    fprintf(f, ",\n");
    fprintf(f, "  \"trace_seconds\": %.6f,\n  \"prove_seconds\": %.6f,\n  \"prove_seconds_per_job\": [", sm->trace_s,
            j->prove_s);
    for (long i = 0; i < c->jobs; i++)
        fprintf(f, "%s%.6f", i ? ", " : "", jobs[i].prove_s);
    fprintf(f, "],\n  \"prove_seconds_repeats\": [");
    for (long i = 0; i < c->repeat; i++)
        fprintf(f, "%s%.6f", i ? ", " : "", j->repeat_s[i]);
    fprintf(f, "],\n  \"spans_recorded\": %s,\n", c->no_spans ? "false" : "true");
    uint64_t built;
    double build_s;
    programs_total(jobs, c->jobs, &built, &build_s);
    fprintf(f, "  \"programs_built\": %llu,\n  \"program_build_seconds\": %.6f,\n", (unsigned long long)built,
            build_s);
    fprintf(f, "  \"wall_seconds_all_jobs\": %.6f,\n", sm->wall_s);
    static const char *ph[6] = {"check", "commit", "logup_pow", "logup_zerocheck", "stacked_reduction", "whir"};
    fprintf(f, "  \"phase_seconds\": {");
    for (int i = 0; i < 6; i++)
        fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", ph[i], j->phase_s[i]);
    fprintf(f, "},\n  \"fallback_note\": ");
    ex_json_str(f, j->fallback_note);
    fprintf(f, ",\n  \"spans\": ");
    ex_json_spans(f, st, 2);
    fprintf(f, ",\n  \"host_syncs\": %llu,\n  \"device_host_syncs\": %llu,\n  \"fallback_host_syncs\": %llu,\n",
            (unsigned long long)st->host_syncs, (unsigned long long)st->device_host_syncs,
            (unsigned long long)st->fallback_host_syncs);
    fprintf(f, "  \"upload_waits\": %llu,\n", (unsigned long long)st->upload_waits);
    fprintf(f, "  \"peak_rss_bytes\": %lld,\n  \"device_bytes_peak\": %zu,\n  \"fallback_bytes_peak\": %zu,\n",
            (long long)sm->peak_rss_kb * 1024, st->device_bytes_peak, st->fallback_bytes_peak);
    fprintf(f, "  \"device_bytes_allocated\": %llu,\n  \"fallback_bytes_allocated\": %llu,\n",
            (unsigned long long)st->device_bytes_allocated, (unsigned long long)st->fallback_bytes_allocated);
    fprintf(f, "  \"trace_released\": %s,\n  \"trace_streamed\": %s,\n", sm->trace_released ? "true" : "false",
            sm->trace_streamed ? "true" : "false");
    fprintf(f, "  \"codeword_reencoded\": %s,\n", st->codeword_reencoded ? "true" : "false");
    fprintf(f, "  \"proof_bytes\": %zu,\n  \"verified\": %s,\n  \"verify_seconds\": %.6f,\n", j->proof_len,
            sm->verified ? "true" : "false", sm->verify_s);
    fprintf(f, "  \"jobs_independent\": %s,\n  \"jobs_verified\": %ld,\n", sm->independent ? "true" : "false",
            sm->jobs_verified);
    /* GLSTARK_PROFILE: the longest single dispatch (job 0's device), and
     * per kernel; null without the profile */
    if (j->profiled && j->n_longest) {
        fprintf(f, "  \"longest_dispatch\": {\"ms\": %.3f, \"kernel\": ", j->longest[0].ms);
        ex_json_str(f, j->longest[0].kernel);
        /* the most process CPU time of one dispatch (a software renderer's
         * work, apart from what else shares the host) */
        size_t c = 0;
        for (size_t i = 1; i < j->n_longest; i++)
            if (j->longest[i].cpu_ms > j->longest[c].cpu_ms)
                c = i;
        fprintf(f, "},\n  \"longest_dispatch_cpu\": {\"ms\": %.3f, \"kernel\": ", j->longest[c].cpu_ms);
        ex_json_str(f, j->longest[c].kernel);
        fprintf(f, "},\n  \"longest_dispatch_per_kernel\": [");
        for (size_t i = 0; i < j->n_longest; i++) {
            fprintf(f, "%s\n    {\"kernel\": ", i ? "," : "");
            ex_json_str(f, j->longest[i].kernel);
            fprintf(f, ", \"ms\": %.3f, \"cpu_ms\": %.3f, \"dispatches\": %llu, \"first_dispatch_ms\": %.3f}",
                    j->longest[i].ms, j->longest[i].cpu_ms, j->longest[i].dispatches, j->longest[i].first_ms);
        }
        fprintf(f, "\n  ],\n");
    } else {
        fprintf(f, "  \"longest_dispatch\": null,\n  \"longest_dispatch_cpu\": null,\n"
                   "  \"longest_dispatch_per_kernel\": null,\n");
    }
    /* null for independent statements, whose proofs differ by design */
    fprintf(f, "  \"jobs_identical\": %s\n}\n", sm->independent ? "null" : sm->identical ? "true" : "false");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "error: writing %s failed\n", path);
        return 1;
    }
    return 0;
}

static int parse(int argc, char **argv, demo_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->perms = 1024;
    c->seed = 42;
    c->L = 21;
    c->jobs = 1;
    c->repeat = 1;
    c->engine = "auto";
    glstark_device_options_init(&c->dev);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quiet")) {
            c->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--check")) {
            c->check = 1;
            continue;
        }
        if (!strcmp(a, "--no-spans")) {
            c->no_spans = 1;
            continue;
        }
        if (!strcmp(a, "--same-statement")) {
            c->same_statement = 1;
            continue;
        }
        if (!strcmp(a, "--keep-trace")) {
            c->keep_trace = 1;
            continue;
        }
        if (!strcmp(a, "--stream-trace")) {
            c->stream_trace = 1;
            continue;
        }
        if (ex_device_switch(a, &c->dev))
            continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 2;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "error: %s needs a value\n", a);
            usage();
            return 2;
        }
        char *end = NULL;
        int dev_opt = strcmp(a, "--engine") ? ex_device_option(a, v, &c->dev) : 0;
        if (dev_opt < 0)
            return 2;
        if (dev_opt > 0) {
            /* --platform, --drm-node, --threads: taken */
        } else if (!strcmp(a, "--perms"))
            c->perms = strtol(v, &end, 10);
        else if (!strcmp(a, "--seed"))
            c->seed = strtoull(v, &end, 10);
        else if (!strcmp(a, "--log-stacked-height"))
            c->L = strtol(v, &end, 10);
        else if (!strcmp(a, "--jobs"))
            c->jobs = strtol(v, &end, 10);
        else if (!strcmp(a, "--repeat"))
            c->repeat = strtol(v, &end, 10);
        else if (!strcmp(a, "--engine"))
            c->engine = v;
        else if (!strcmp(a, "--out"))
            c->out = v;
        else if (!strcmp(a, "--json"))
            c->json = v;
        else if (!strcmp(a, "--verify"))
            c->verify = v;
        else if (!strcmp(a, "--key-out"))
            c->key_out = v;
        else if (!strcmp(a, "--ctx-out"))
            c->ctx_out = v;
        else if (!strcmp(a, "--codeword")) {
            if (!strcmp(v, "auto"))
                c->codeword = GLSTARK_CODEWORD_AUTO;
            else if (!strcmp(v, "keep"))
                c->codeword = GLSTARK_CODEWORD_KEEP;
            else if (!strcmp(v, "reencode"))
                c->codeword = GLSTARK_CODEWORD_REENCODE;
            else {
                fprintf(stderr, "error: --codeword must be auto, keep or reencode, not '%s'\n", v);
                return 2;
            }
        }
        else {
            fprintf(stderr, "error: unknown option '%s'\n", a);
            usage();
            return 2;
        }
        if (end && (*end || end == v)) {
            fprintf(stderr, "error: %s needs a number, got '%s'\n", a, v);
            return 2;
        }
        i++;
    }
    if (c->perms < 1 || c->perms > (1l << 20) || c->L < 1 || c->L > 30) {
        fprintf(stderr, "error: need 1 <= --perms <= 2^20 and 1 <= --log-stacked-height <= 30\n");
        return 2;
    }
    if (c->stream_trace && c->ctx_out) {
        fprintf(stderr, "error: --ctx-out writes the whole trace; it cannot be used with --stream-trace\n");
        return 2;
    }
    if (c->stream_trace && (c->jobs != 1 || c->repeat != 1 || c->check || c->keep_trace)) {
        fprintf(stderr, "error: --stream-trace is for one proof (no --jobs, --repeat, --check or --keep-trace): the "
                        "others read the whole trace\n");
        return 2;
    }
    if (c->repeat < 1 || c->repeat > MAX_REPEAT) {
        fprintf(stderr, "error: --repeat must be 1..%d\n", MAX_REPEAT);
        return 2;
    }
    if (c->jobs < 1 || c->jobs > MAX_JOBS) {
        fprintf(stderr, "error: --jobs must be 1..%d\n", MAX_JOBS);
        return 2;
    }
    if (!strcmp(c->engine, "cpu"))
        c->dev.engine = GLSTARK_ENGINE_CPU;
    else if (!strcmp(c->engine, "gles"))
        c->dev.engine = GLSTARK_ENGINE_GLES;
    else if (!strcmp(c->engine, "auto"))
        c->dev.engine = GLSTARK_ENGINE_AUTO;
    else {
        fprintf(stderr, "error: --engine must be auto, gles or cpu, not '%s'\n", c->engine);
        return 2;
    }
    return 0;
}

/* The statements a run proves: per independent job (else one, shared) its
 * inputs, its trace's memory and the trace. */
typedef struct statements {
    long n;
    int stream; /* --stream-trace: rows made on request, no trace array */
    uint64_t (*in)[25];
    trace_mem *tm;
    glstark_air_trace *t;
} statements;

/* Statement k's inputs (seed S + k) and, unless streamed, its trace. */
static int make_statement(const demo_cfg *c, size_t h, statements *s, long k)
{
    uint64_t(*ink)[25] = s->in + (size_t)k * (size_t)c->perms;
    s->tm[k] = (trace_mem){.values = NULL,
                           .bytes = (size_t)GLSTARK_KECCAK_WIDTH * h * 4,
                           .streamed = s->stream,
                           .inputs = (const uint64_t(*)[25])ink,
                           .perms = (size_t)c->perms};
    if (!s->stream && !(s->tm[k].values = malloc(s->tm[k].bytes))) {
        fprintf(stderr, "error: out of host memory for %zu trace rows (statement %ld of %ld)\n", h, k + 1, s->n);
        return 1;
    }
    glstark_keccak_inputs_from_seed(c->seed + (unsigned long long)k, (size_t)c->perms, ink);
    glstark_status st = s->stream ? GLSTARK_OK
                                  : glstark_keccak_trace((const uint64_t(*)[25])ink, (size_t)c->perms,
                                                         s->tm[k].values);
    if (st) {
        fprintf(stderr, "error: trace generation failed (%s)\n", glstark_status_name(st));
        return 1;
    }
    s->t[k] = (glstark_air_trace){h, {s->tm[k].values, GLSTARK_KECCAK_WIDTH}, NULL, NULL, 0};
    return 0;
}

/* Every statement, on this thread. */
static int make_statements(const demo_cfg *c, size_t h, statements *s)
{
    for (long k = 0; k < s->n; k++)
        if (make_statement(c, h, s, k))
            return 1;
    return 0;
}

/* The line that says what the run proves. */
static void print_header(const demo_cfg *c, size_t h, const statements *s, int independent, int gen, double trace_s)
{
    long ntr = s->n;
    int stream = s->stream;
    char seeds[96];
    if (independent)
        snprintf(seeds, sizeof seeds, "seeds %llu..%llu, one per job", c->seed, c->seed + (unsigned long long)ntr - 1);
    else
        snprintf(seeds, sizeof seeds, "seed %llu", c->seed);
    if (gen) {
        printf("keccakf: %ld permutations (%s), %zu rows x %d columns, L = %ld, engine %s, %ld jobs on one device, "
               "constraint check %s; each job makes its trace, then proves in turn\n",
               c->perms, seeds, h, GLSTARK_KECCAK_WIDTH, c->L, c->engine, c->jobs,
               c->check ? "on" : "off (--check turns it on)");
        return;
    }
    printf("keccakf: %ld permutations (%s), %zu rows x %d columns, L = %ld, engine %s, %ld job%s, "
           "constraint check %s; trace%s %s%.3f s\n",
           c->perms, seeds, h, GLSTARK_KECCAK_WIDTH, c->L, c->engine, c->jobs, c->jobs > 1 ? "s" : "",
           c->check ? "on" : "off (--check turns it on)", independent ? "s" : "",
           stream ? "streamed to the prover in row blocks (generated inside trace_upload), inputs " : "",
           trace_s);
}

/* The device every job proves on: one GL context for the whole run (four
 * contexts on one H200 proved four proofs in 1.43 s where one context proved
 * them in turn in 0.51 s: each context pays a first proof's buffers and
 * programs, and the GPU switches between them). */
static glstark_device *open_shared_device(const demo_cfg *c, job *j0, char *msg, size_t n)
{
    glstark_device_options dopt = c->dev;
    if (profile_on() && !dopt.log) {
        dopt.log = profile_log;
        dopt.log_user = j0;
        j0->profiled = 1;
    }
    glstark_device *dev = NULL;
    char dmsg[2048];
    glstark_status st = glstark_device_create(&dopt, &dev, dmsg, sizeof dmsg);
    if (st)
        snprintf(msg, n, "cannot open the %s device (%s): %s", c->engine, glstark_status_name(st), dmsg);
    return dev;
}

/* Runs every job on its own thread, all on one device, and waits for them;
 * the wall time and what became of the traces go into sm. With gen, each
 * job makes its own statement's trace first. */
static int run_jobs(const demo_cfg *c, const glstark_proving_key *pk, const glstark_verifying_key *vk,
                    statements *s, int independent, int gen, size_t h, double t_origin, job *jobs, pthread_t *th,
                    summary *sm)
{
    int rc = 0;
    pthread_mutex_t lock;
    pthread_mutex_init(&lock, NULL);
    job_queue q = {.n_ready = 0, .n_taken = 0, .proving = 1};
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.changed, NULL);
    double w0 = ex_now();
    long started = 0;
    /* a trace no other job reads is freed (or streamed) as soon as its
     * prover holds its own copy, unless --repeat or --keep-trace */
    const int release = c->repeat == 1 && !c->keep_trace && (independent || c->jobs == 1);
    char msg[2304] = "";
    jobs[0] = (job){.id = 0};
    glstark_device *dev = open_shared_device(c, &jobs[0], msg, sizeof msg);
    ex_device_info info;
    memset(&info, 0, sizeof info);
    if (dev)
        ex_device_describe(dev, &info);
    for (long i = 0; i < c->jobs; i++) {
        long k = independent ? i : 0;
        int profiled = i == 0 ? jobs[0].profiled : 0;
        jobs[i] = (job){.id = (int)i, .cfg = c, .pk = pk, .vk = independent || i == 0 ? vk : NULL, .dev_shared = dev,
                        .stm = s, .k = k, .h = h, .gen = gen, .trace = &s->t[k], .print_lock = &lock, .queue = &q,
                        .t_origin = t_origin, .dev = info, .profiled = profiled};
        if (!dev) {
            snprintf(jobs[i].msg, sizeof jobs[i].msg, "%s", msg);
            continue;
        }
        if (release)
            jobs[i].trace_mem = &s->tm[k];
        if (pthread_create(&th[i], NULL, run_job, &jobs[i])) {
            fprintf(stderr, "error: cannot start proving thread %ld\n", i);
            rc = 1;
            break;
        }
        started++;
    }
    prove_jobs(jobs, started, &q);
    for (long i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    sm->wall_s = ex_now() - w0;
    sm->first_done = sm->last_done = started ? jobs[0].proved_at : 0;
    for (long i = 1; i < started; i++) {
        sm->first_done = jobs[i].proved_at < sm->first_done ? jobs[i].proved_at : sm->first_done;
        sm->last_done = jobs[i].proved_at > sm->last_done ? jobs[i].proved_at : sm->last_done;
    }
    glstark_device_destroy(dev); /* with GLSTARK_PROFILE, logs the profile to job 0 */
    sm->trace_released = 1;
    for (long k = 0; k < s->n; k++)
        sm->trace_released &= s->tm[k].released;
    sm->trace_streamed = s->tm[0].streamed;
    pthread_mutex_destroy(&lock);
    pthread_cond_destroy(&q.changed);
    pthread_mutex_destroy(&q.lock);
    return rc;
}

/* 1 (with the reasons) if a job did not prove. */
static int jobs_failed(const demo_cfg *c, const job *jobs)
{
    int rc = 0;
    for (long i = 0; i < c->jobs; i++)
        if (!jobs[i].ok) {
            fprintf(stderr, "error: job %ld: %s\n", i, jobs[i].msg);
            rc = 1;
        }
    return rc;
}

/* The same statement's proofs must be one proof: 1 (with the reason) if
 * not. */
static int check_identical(const demo_cfg *c, const job *jobs, int independent, summary *sm)
{
    int rc = 0;
    const job *j0 = &jobs[0];
    sm->independent = independent;
    sm->identical = !independent;
    for (long i = 1; !independent && i < c->jobs; i++)
        if (jobs[i].proof_len != j0->proof_len || memcmp(jobs[i].proof, j0->proof, j0->proof_len)) {
            fprintf(stderr, "error: job %ld's proof differs from job 0's (%zu vs %zu bytes) for the same inputs\n", i,
                    jobs[i].proof_len, j0->proof_len);
            sm->identical = 0;
            rc = 1;
        }
    return rc;
}

/* --out FILE: job 0's proof; independent jobs' others as FILE.1, FILE.2, ... */
static int write_proofs(const demo_cfg *c, const job *jobs, int independent)
{
    int rc = 0;
    for (long i = 0; c->out && i < (independent ? c->jobs : 1); i++) {
        char path[4096], msg[1024];
        if (i == 0)
            snprintf(path, sizeof path, "%s", c->out);
        else
            snprintf(path, sizeof path, "%s.%ld", c->out, i);
        if (glstark_write_file(path, jobs[i].proof, jobs[i].proof_len, msg, sizeof msg)) {
            fprintf(stderr, "error: %s\n", msg);
            rc = 1;
        } else if (!c->quiet) {
            printf("wrote %s\n", path);
        }
    }
    return rc;
}

/* Every independent proof is verified; identical ones once. */
static int verify_jobs(const glstark_verifying_key *vk, const job *jobs, long n, summary *sm)
{
    int rc = 0;
    sm->verified = 1;
    for (long i = 0; i < n; i++) {
        char msg[2048];
        double v0 = ex_now();
        /* the job verified its proof on its thread, else it is done here */
        glstark_status st = jobs[i].verify_done ? (jobs[i].verify_ok ? GLSTARK_OK : GLSTARK_ERR_REJECTED)
                                                : glstark_verify(vk, jobs[i].proof, jobs[i].proof_len, msg, sizeof msg);
        if (jobs[i].verify_done)
            snprintf(msg, sizeof msg, "%s", jobs[i].verify_msg);
        if (i == 0)
            sm->verify_s = jobs[i].verify_done ? jobs[i].verify_s : ex_now() - v0;
        if (st == GLSTARK_OK) {
            sm->jobs_verified++;
        } else {
            fprintf(stderr, "verify: job %ld's proof NOT accepted: %s\n", i, msg);
            sm->verified = 0;
            rc = 1;
        }
    }
    return rc;
}

/* --jobs: the rate over the whole run (traces, the first proof's buffers
 * and programs included) and after the first job's proofs ended, which
 * compares with warm proofs in a row (--repeat). */
static void jobs_rate(const demo_cfg *c, const summary *sm, char *out, size_t n)
{
    const double proofs = (double)c->jobs * (double)c->repeat, span = sm->last_done - sm->first_done;
    int k = snprintf(out, n, "; jobs: %.0f proofs in %.3f s wall = %.2f proofs/s", proofs, sm->wall_s,
                     proofs / sm->wall_s);
    if (k > 0 && (size_t)k < n && span > 0)
        snprintf(out + k, n - (size_t)k, ", %.2f proofs/s after the first job's (%.0f proofs in %.3f s)",
                 (proofs - (double)c->repeat) / span, proofs - (double)c->repeat, span);
}

/* --quiet: one line. */
static void print_quiet(const demo_cfg *c, const job *jobs, const summary *sm)
{
    const job *j0 = &jobs[0];
    const glstark_prove_stats *ps = &j0->stats;
    char reps[64] = "";
    if (c->repeat > 1)
        snprintf(reps, sizeof reps, ", median of %ld repeats %.3f s", c->repeat, repeat_median(j0, c->repeat));
    char rate[160] = "";
    if (c->jobs > 1)
        jobs_rate(c, sm, rate, sizeof rate);
    printf("keccakf-%ld %s: prove %.3f s%s, %zu bytes, verify %s in %.3f s, %llu host syncs (+%llu upload waits), "
           "peak RSS %.0f MiB%s%s\n",
           c->perms, j0->dev.engine, j0->prove_s, reps, j0->proof_len, sm->verified ? "ok" : "FAILED", sm->verify_s,
           (unsigned long long)ps->host_syncs, (unsigned long long)ps->upload_waits, sm->peak_rss_kb / 1024.0,
           c->jobs == 1 ? "" : sm->independent ? ", independent jobs all verified" : sm->identical ? ", jobs identical" : ", jobs DIFFER",
           rate);
}

/* The full report: device, spans, phases, jobs, memory, proof, verification. */
static void print_report(const demo_cfg *c, const job *jobs, const trace_mem *tm, const summary *sm)
{
    const job *j0 = &jobs[0];
    const glstark_prove_stats *ps = &j0->stats;
    printf("glstark %s\n", glstark_version());
    ex_print_device(&j0->dev);
    if (j0->fallback_phases)
        printf("note: CPU fallback: %s\n", j0->fallback_note);
    ex_print_span_tree(ps);
    printf("prove: %.3f s (check %.3f, commit %.3f, LogUp PoW %.3f, LogUp/zerocheck %.3f, stacked reduction "
           "%.3f, WHIR %.3f)\n",
           j0->prove_s, j0->phase_s[0], j0->phase_s[1], j0->phase_s[2], j0->phase_s[3], j0->phase_s[4],
           j0->phase_s[5]);
    if (c->repeat > 1) {
        printf("repeat: %ld proofs on one device:", c->repeat);
        for (long i = 0; i < c->repeat; i++)
            printf(" %.3f", j0->repeat_s[i]);
        printf(" s; median %.3f s, all identical\n", repeat_median(j0, c->repeat));
    }
    if (c->jobs > 1) {
        char rate[160];
        jobs_rate(c, sm, rate, sizeof rate);
        printf("%s; one device; per job:", rate + 2);
        for (long i = 0; i < c->jobs; i++)
            printf(" %.3f", jobs[i].prove_s);
        if (sm->independent)
            printf(" s; %ld independent statements (seeds %llu..%llu), %ld of %ld proofs verified\n", c->jobs,
                   c->seed, c->seed + (unsigned long long)c->jobs - 1, sm->jobs_verified, c->jobs);
        else
            printf(" s; the same statement, %s\n", sm->identical ? "all proofs identical" : "proofs DIFFER");
    }
    printf("host syncs: %llu (%s engine %llu, CPU fallback %llu); upload ring waits apart: %llu\n",
           (unsigned long long)ps->host_syncs, j0->dev.engine, (unsigned long long)ps->device_host_syncs,
           (unsigned long long)ps->fallback_host_syncs, (unsigned long long)ps->upload_waits);
    uint64_t built;
    double build_s;
    programs_total(jobs, c->jobs, &built, &build_s);
    if (built)
        printf("GPU programs: %llu made ready in %.3f s of the proving%s\n", (unsigned long long)built, build_s,
               build_s >= 0.02 * (double)built
                   ? " (compiled: the driver's shader cache was cold, as on a machine's first run; it keeps "
                     "them for the next runs)"
                   : " (the driver had them cached)");
    printf("memory: peak host RSS %.1f MiB (whole process); %s engine buffers peak %.1f MiB%s, %.1f MiB allocated anew",
           sm->peak_rss_kb / 1024.0, j0->dev.engine, ps->device_bytes_peak / 1048576.0,
           strcmp(j0->dev.engine, "gles")
               ? " (host)"
               : j0->dev.software ? " (GPU; a software renderer's buffers are in the host RSS above)" : " (GPU)",
           ps->device_bytes_allocated / 1048576.0);
    if (ps->fallback_bytes_peak)
        printf("; CPU fallback buffers peak %.1f MiB", ps->fallback_bytes_peak / 1048576.0);
    printf("; the codeword %s", ps->codeword_reencoded ? "not kept whole (committed a column group at a time "
                                                         "where that is smaller, encoded again for the queries; "
                                                         "--codeword keep keeps it)"
                                                       : "kept for the queries");
    printf("; %s %.1f MiB trace %s\n", sm->independent ? "each job's" : "the", tm[0].bytes / 1048576.0,
           sm->trace_streamed  ? "never held whole (--stream-trace: row blocks generated on request)"
           : sm->trace_released ? (c->jobs > 1 ? "released once the prover had its copy, freed after the last "
                                                 "proof (--keep-trace keeps it)"
                                               : "freed once the prover had its copy (--keep-trace keeps it)")
                               : "held for the whole proof");
    printf("proof: %zu bytes\n", j0->proof_len);
    printf("verify: %s in %.3f s%s\n", sm->verified ? "accepted" : "NOT accepted", sm->verify_s,
           sm->independent ? " (job 0's; every job's proof was verified)" : "");
}

static int prove_demo(const demo_cfg *c, const glstark_proving_key *pk, const glstark_verifying_key *vk, size_t h)
{
    double t_origin = ex_now();
    /* --jobs J proves J independent statements (job j: seed S + j, its own
     * inputs and trace); with --same-statement, or one job, one trace is
     * shared */
    const int independent = c->jobs > 1 && !c->same_statement;
    statements s = {independent ? c->jobs : 1, 0, NULL, NULL, NULL};
    s.in = malloc((size_t)s.n * (size_t)c->perms * sizeof *s.in);
    /* --stream-trace: the prover asks for the rows block by block and no
     * whole trace is ever held (parse() allows it for one proof without the
     * constraint check only) */
    s.stream = c->stream_trace;
    s.tm = calloc((size_t)s.n, sizeof *s.tm);
    s.t = calloc((size_t)s.n, sizeof *s.t);
    job *jobs = calloc((size_t)c->jobs, sizeof *jobs);
    pthread_t *th = calloc((size_t)c->jobs, sizeof *th);
    int rc = 0;
    summary sm;
    memset(&sm, 0, sizeof sm);
    sm.rows = (long)h;
    if (!s.in || !s.tm || !s.t || !jobs || !th) {
        fprintf(stderr, "error: out of host memory for %ld statements' inputs\n", s.n);
        rc = 1;
        goto out;
    }
    /* independent jobs make their own traces, beside the other jobs' proofs
     * (--ctx-out needs statement 0's before any prover runs) */
    const int gen = independent && !c->ctx_out;
    if (!gen && (rc = make_statements(c, h, &s)) != 0)
        goto out;
    sm.trace_s = ex_now() - t_origin;
    /* --ctx-out: statement 0's trace as a proving context, before the
     * prover may free it */
    if (c->ctx_out && (rc = ex_write_context(pk, &s.t[0], 1, c->ctx_out)) != 0)
        goto out;
    if (!c->quiet)
        print_header(c, h, &s, independent, gen, sm.trace_s);
    if ((rc = run_jobs(c, pk, vk, &s, independent, gen, h, t_origin, jobs, th, &sm)) != 0)
        goto out;
    if ((rc = jobs_failed(c, jobs)) != 0)
        goto out;
    rc = check_identical(c, jobs, independent, &sm);
    rc |= write_proofs(c, jobs, independent);
    rc |= verify_jobs(vk, jobs, independent ? c->jobs : 1, &sm);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        sm.peak_rss_kb = ru.ru_maxrss; /* kilobytes on Linux */
    if (c->quiet)
        print_quiet(c, jobs, &sm);
    else
        print_report(c, jobs, s.tm, &sm);
    if (c->json && write_json(c->json, c, jobs, &sm))
        rc = 1;
out:
    if (jobs)
        for (long i = 0; i < c->jobs; i++)
            glstark_free(jobs[i].proof);
    free(jobs);
    free(th);
    free(s.in);
    if (s.tm)
        for (long k = 0; k < s.n; k++)
            free(s.tm[k].values);
    free(s.tm);
    free(s.t);
    return rc;
}

int main(int argc, char **argv)
{
    demo_cfg c;
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc;
    char msg[2048];
    glstark_params *p = NULL;
    glstark_status st = glstark_params_app_100_bits((size_t)c.L, &p, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "error: params for L = %ld: %s\n", c.L, msg);
        return 2;
    }
    size_t h = glstark_keccak_trace_height((size_t)c.perms);
    if (h > ((size_t)1 << glstark_params_log_stacked_height(p))) {
        fprintf(stderr, "error: %ld permutations need %zu rows, more than the stacked height 2^%ld\n", c.perms, h,
                c.L);
        glstark_params_destroy(p);
        return 2;
    }
    glstark_air *air = NULL;
    glstark_proving_key *pk = NULL;
    glstark_verifying_key *vk = NULL;
    st = glstark_keccak_air(&air);
    if (!st)
        st = glstark_keygen(&air, 1, p, &pk, &vk, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "keygen failed (%s): %s\n", glstark_status_name(st), msg);
        rc = 2;
    } else if (c.key_out && (rc = ex_write_key(vk, c.key_out)) != 0) {
        /* the message is out */
    } else if (c.verify) {
        rc = ex_verify_file(vk, c.verify, 0);
    } else {
        rc = prove_demo(&c, pk, vk, h);
    }
    glstark_verifying_key_destroy(vk);
    glstark_proving_key_destroy(pk);
    glstark_air_destroy(air);
    glstark_params_destroy(p);
    return rc;
}
