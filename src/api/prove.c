/* The public prove/verify API (include/glstark/prove.h) over the internal
 * keygen, prover, codec and verifier. */
#include "glstark/prove.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/keygen.h"
#include "api/device_internal.h"
#include "api/keys_internal.h"
#include "common/params.h"
#include "prove/prep_commit.h"
#include "common/proof.h"
#include "prove/prover.h"
#include "prove/spans.h"
#include "verify/verifier.h"
#include "util/read_file.h"

struct glstark_params {
    gs_system_params p;
};

static void put_msg(char *msg, size_t size, const char *text)
{
    if (msg && size)
        snprintf(msg, size, "%s", text);
}

glstark_status glstark_params_app_100_bits(size_t log_stacked_height, glstark_params **out, char *msg,
                                           size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    glstark_params *p = calloc(1, sizeof *p);
    if (!p)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_app_params_with_100_bits_security(log_stacked_height, &p->p, &err);
    if (st) {
        put_msg(msg, msg_size, err.msg);
        free(p);
        return st;
    }
    *out = p;
    return GLSTARK_OK;
}

glstark_status glstark_params_test_small(glstark_params **out)
{
    if (!out)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    gs_default_test_params_small(&(*out)->p);
    return GLSTARK_OK;
}

void glstark_params_destroy(glstark_params *p) { free(p); }

size_t glstark_params_log_stacked_height(const glstark_params *p)
{
    return p ? gs_params_log_stacked_height(&p->p) : 0;
}

/* A standalone verifying key: through OpenVM's vk bytes, so it owns
 * everything and carries its pre-hash. */
glstark_status gs_vk_copy_to_handle(const gs_multi_vk *src, glstark_verifying_key **out, gs_error *err)
{
    uint8_t *b = NULL;
    size_t n = 0;
    glstark_status st = gs_vk_prevk_bytes(src, &b, &n, err);
    if (st)
        return st;
    glstark_verifying_key *vk = calloc(1, sizeof *vk);
    if (!vk) {
        free(b);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    st = gs_vk_from_prevk_bytes(b, n, &vk->vk, err);
    free(b);
    if (!st)
        st = gs_vk_compute_pre_hash(&vk->vk, err);
    if (st) {
        gs_multi_vk_free(&vk->vk);
        free(vk);
        return st;
    }
    *out = vk;
    return GLSTARK_OK;
}

glstark_status glstark_keygen(glstark_air *const *airs, size_t num_airs, const glstark_params *params,
                              glstark_proving_key **pk, glstark_verifying_key **vk, char *msg, size_t msg_size)
{
    put_msg(msg, msg_size, "");
    /* outputs are NULL on every failure, the argument checks' included */
    if (pk)
        *pk = NULL;
    if (vk)
        *vk = NULL;
    if (!pk || !params || (!airs && num_airs)) {
        put_msg(msg, msg_size, "glstark_keygen: NULL AIRs, params or output");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    glstark_proving_key *k = calloc(1, sizeof *k);
    if (!k) {
        put_msg(msg, msg_size, "glstark_keygen: out of host memory");
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    gs_error err;
    gs_error_clear(&err);
    /* a preprocessed trace is committed here, on a CPU engine of its own */
    const gs_keygen_options kopt = {NULL, gs_prep_commit_cpu, NULL};
    glstark_status st = gs_keygen(&params->p, airs, num_airs, &kopt, &k->pk, &err);
    if (st) {
        put_msg(msg, msg_size, err.msg);
        free(k);
        return st;
    }
    if (vk && (st = gs_vk_copy_to_handle(&k->pk.vk, vk, &err))) {
        put_msg(msg, msg_size, err.msg);
        gs_multi_pk_free(&k->pk);
        free(k);
        return st;
    }
    *pk = k;
    return GLSTARK_OK;
}

glstark_status glstark_proving_key_verifying_key(const glstark_proving_key *pk, glstark_verifying_key **vk)
{
    if (vk)
        *vk = NULL;
    if (!pk || !vk)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    gs_error err;
    return gs_vk_copy_to_handle(&pk->pk.vk, vk, &err);
}

void glstark_proving_key_destroy(glstark_proving_key *pk)
{
    if (!pk)
        return;
    gs_multi_pk_free(&pk->pk);
    for (size_t i = 0; i < pk->num_owned_airs; i++)
        glstark_air_destroy(pk->owned_airs[i]);
    free(pk->owned_airs);
    free(pk);
}

void glstark_verifying_key_destroy(glstark_verifying_key *vk)
{
    if (!vk)
        return;
    gs_multi_vk_free(&vk->vk);
    free(vk);
}

glstark_status glstark_verifying_key_encode(const glstark_verifying_key *vk, uint8_t **bytes, size_t *len)
{
    if (!vk || !bytes || !len)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    gs_error err;
    return gs_vk_prevk_bytes(&vk->vk, bytes, len, &err);
}

glstark_status glstark_verifying_key_decode(const uint8_t *bytes, size_t len, glstark_verifying_key **out, char *msg,
                                            size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (!out || (!bytes && len))
        return GLSTARK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    glstark_verifying_key *vk = calloc(1, sizeof *vk);
    if (!vk)
        return GLSTARK_ERR_OUT_OF_MEMORY;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_vk_from_prevk_bytes(bytes, len, &vk->vk, &err);
    if (!st)
        st = gs_vk_compute_pre_hash(&vk->vk, &err);
    if (st) {
        put_msg(msg, msg_size, err.msg);
        gs_multi_vk_free(&vk->vk);
        free(vk);
        return st;
    }
    *out = vk;
    return GLSTARK_OK;
}

void glstark_prove_options_init(glstark_prove_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

void glstark_prove_result_init(glstark_prove_result *result)
{
    if (!result)
        return;
    memset(result, 0, sizeof *result);
    result->size = sizeof *result;
}

void glstark_prove_stats_init(glstark_prove_stats *stats)
{
    if (!stats)
        return;
    memset(stats, 0, sizeof *stats);
    stats->size = sizeof *stats;
}

/* Copies the figures into the caller's stats, no more than its size says. */
static void fill_stats(glstark_prove_stats *dst, const gs_span_rec *rec, const gs_prove_timings *tm,
                       const gs_engine *eng, const gs_engine *fallback, int reencoded)
{
    if (!dst || dst->size < sizeof dst->size)
        return;
    glstark_prove_stats *s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->size = dst->size;
    s->num_spans = rec->n;
    s->spans_dropped = rec->dropped;
    memcpy(s->spans, rec->spans, rec->n * sizeof rec->spans[0]);
    s->device_host_syncs = tm->host_syncs[0];
    s->fallback_host_syncs = fallback ? tm->host_syncs[1] : 0;
    s->host_syncs = s->device_host_syncs + s->fallback_host_syncs;
    s->upload_waits = tm->upload_waits[0];
    s->device_bytes_peak = tm->bytes_peak[0];
    s->fallback_bytes_peak = fallback && tm->fallback_phases ? tm->bytes_peak[1] : 0;
    s->device_bytes_allocated = tm->bytes_allocated[0];
    s->fallback_bytes_allocated = fallback && tm->fallback_phases ? tm->bytes_allocated[1] : 0;
    snprintf(s->device_engine, sizeof s->device_engine, "%s", eng->core->name);
    s->codeword_reencoded = reencoded;
    s->programs_built = tm->programs_built;
    s->program_build_seconds = (double)tm->program_build_ns * 1e-9;
    memcpy(dst, s, dst->size < sizeof *s ? dst->size : sizeof *s);
    free(s);
}

static glstark_status prove_on(const glstark_proving_key *pk, const glstark_air_trace *traces, size_t num_traces,
                               const glstark_prove_options *opts, const uint32_t *const *row_major_mains,
                               glstark_prove_result *res);

glstark_status glstark_prove(const glstark_proving_key *pk, const glstark_air_trace *traces, size_t num_traces,
                             const glstark_prove_options *opts, glstark_prove_result *res)
{
    return gs_api_prove(pk, traces, num_traces, opts, NULL, res);
}

glstark_status gs_api_prove(const glstark_proving_key *pk, const glstark_air_trace *traces, size_t num_traces,
                            const glstark_prove_options *opts, const uint32_t *const *row_major_mains,
                            glstark_prove_result *res)
{
    if (!res)
        return GLSTARK_ERR_INVALID_ARGUMENT;
    glstark_prove_result_init(res); /* an output only (prove.h) */
    glstark_prove_options o;
    glstark_prove_options_init(&o);
    if (opts) {
        size_t n = opts->size && opts->size < sizeof o ? opts->size : sizeof o;
        memcpy(&o, opts, n);
    }
    if (!pk) {
        put_msg(res->message, sizeof res->message, "glstark_prove: NULL proving key");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    if (o.codeword != GLSTARK_CODEWORD_AUTO && o.codeword != GLSTARK_CODEWORD_KEEP &&
        o.codeword != GLSTARK_CODEWORD_REENCODE) {
        char m[160];
        snprintf(m, sizeof m,
                 "glstark_prove: codeword policy %d is not GLSTARK_CODEWORD_AUTO (0), _KEEP (1) or _REENCODE (2)",
                 (int)o.codeword);
        put_msg(res->message, sizeof res->message, m);
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    gs_error err;
    gs_error_clear(&err);
    /* the device is this call's until it returns (device.h, "Threads") */
    gs_device_hold hold = {0};
    if (o.device) {
        glstark_status st = gs_device_acquire(o.device, "glstark_prove", &hold, &err);
        if (st) {
            gs_device_release(&hold);
            put_msg(res->message, sizeof res->message, err.msg);
            return st;
        }
    }
    glstark_status st = prove_on(pk, traces, num_traces, &o, row_major_mains, res);
    gs_device_release(&hold);
    return st;
}

/* gs_api_prove with the options checked and the device held. */
static glstark_status prove_on(const glstark_proving_key *pk, const glstark_air_trace *traces, size_t num_traces,
                               const glstark_prove_options *opts, const uint32_t *const *row_major_mains,
                               glstark_prove_result *res)
{
    const glstark_prove_options o = *opts;
    gs_error err;
    gs_error_clear(&err);
    gs_engine *eng = gs_device_engine_of(o.device), *own = NULL, *fallback = NULL;
    glstark_status st = GLSTARK_OK;
    if (!eng) {
        st = gs_cpu_engine_create(o.cpu_threads, &own, &err);
        eng = own;
    } else if (strcmp(eng->core->name, "cpu") != 0) {
        /* a GPU engine may lack phases: the CPU engine runs those */
        st = gs_cpu_engine_create(o.cpu_threads, &fallback, &err);
    }
    if (st) {
        put_msg(res->message, sizeof res->message, err.msg);
        return st;
    }
    gs_prove_options po = {
        .skip_constraint_check = o.skip_constraint_check,
        .fallback = fallback,
        .traces_released = o.traces_released,
        .traces_released_user = o.traces_released_user,
        .trace_rows = o.trace_rows,
        .trace_rows_user = o.trace_rows_user,
        .row_major_mains = row_major_mains,
        .reencode_codeword = o.codeword == GLSTARK_CODEWORD_REENCODE,
    };
    /* A GPU encodes the codeword again in tens of ms where a 2-core CPU
     * takes a second, so AUTO re-encodes on GPUs only. On the H100 (reuse
     * pool) that is 0.301 against 0.313 s per single proof, the commit span
     * 50-53 against 65 ms (less new memory to touch), 1314 against 1718 MiB
     * of GPU buffers, and 0.182 against 0.172 s per warm proof. */
    if (o.codeword == GLSTARK_CODEWORD_AUTO)
        po.reencode_codeword = strcmp(eng->core->name, "cpu") != 0;
    gs_prove_timings tm;
    gs_proof pf;
    /* the recorder is big (the span list): heap, not the caller's stack */
    gs_span_rec *rec = calloc(1, sizeof *rec);
    if (!rec) {
        put_msg(res->message, sizeof res->message, "glstark_prove: out of host memory");
        if (own)
            gs_engine_destroy(own);
        if (fallback)
            gs_engine_destroy(fallback);
        return GLSTARK_ERR_OUT_OF_MEMORY;
    }
    gs_span_rec_init(rec, NULL, NULL, o.progress, o.progress_user);
    /* spans only when someone will see them: each one ends with an engine
     * finish (wall time of the GPU work), which costs a drained queue */
    int want_spans = !o.no_spans && (o.stats || o.progress);
    st = gs_prove_ex(eng, &pk->pk, traces, num_traces, &po, want_spans ? rec : NULL, &pf, &tm, &err);
    if (!st) {
        st = gs_proof_encode(&pf, &res->proof, &res->proof_len, &err);
        gs_proof_free(&pf);
    }
    if (st) {
        put_msg(res->message, sizeof res->message, err.msg);
    } else {
        res->seconds = tm.total;
        double ph[6] = {tm.check, tm.commit, tm.logup_pow, tm.logup_zerocheck, tm.stacked_reduction, tm.whir};
        memcpy(res->phase_seconds, ph, sizeof ph);
        res->fallback_phases = tm.fallback_phases;
        snprintf(res->fallback_note, sizeof res->fallback_note, "%s", tm.fallback_note);
        fill_stats(o.stats, rec, &tm, eng, fallback, po.reencode_codeword);
    }
    free(rec);
    if (own)
        gs_engine_destroy(own);
    if (fallback)
        gs_engine_destroy(fallback);
    return st;
}

void glstark_prove_result_free(glstark_prove_result *res)
{
    if (!res)
        return;
    free(res->proof);
    res->proof = NULL;
    res->proof_len = 0;
}

glstark_status glstark_verify(const glstark_verifying_key *vk, const uint8_t *proof, size_t len, char *msg,
                              size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (!vk || (!proof && len)) {
        put_msg(msg, msg_size, "glstark_verify: NULL key or proof");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    gs_error err;
    gs_error_clear(&err);
    gs_proof pf;
    glstark_status st = gs_proof_decode(proof, len, &pf, &err);
    if (st) {
        put_msg(msg, msg_size, err.msg);
        return st;
    }
    st = gs_verify(&vk->vk, &pf, &err);
    gs_proof_free(&pf);
    if (st)
        put_msg(msg, msg_size, err.msg);
    return st;
}

glstark_status glstark_read_file(const char *path, uint8_t **bytes, size_t *len, char *msg, size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (bytes)
        *bytes = NULL;
    if (len)
        *len = 0;
    if (!path || !bytes || !len) {
        put_msg(msg, msg_size, "glstark_read_file: NULL path or output");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    return gs_read_file(path, GLSTARK_READ_FILE_MAX, bytes, len, msg, msg_size);
}

glstark_status glstark_write_file(const char *path, const uint8_t *bytes, size_t len, char *msg, size_t msg_size)
{
    put_msg(msg, msg_size, "");
    if (!path || (!bytes && len)) {
        put_msg(msg, msg_size, "glstark_write_file: NULL path, or NULL bytes with a length");
        return GLSTARK_ERR_INVALID_ARGUMENT;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "cannot create %s: %s", path, strerror(errno));
        return GLSTARK_ERR_IO;
    }
    size_t put = len ? fwrite(bytes, 1, len, f) : 0;
    int bad = fclose(f) != 0 || put != len;
    if (bad) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "error writing %s (%zu of %zu bytes)", path, put, len);
        return GLSTARK_ERR_IO;
    }
    return GLSTARK_OK;
}

void glstark_free(void *p) { free(p); }
