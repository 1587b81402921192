#include "whir_vectors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int read_ops(FILE *f, size_t n, char **kind, uint32_t **val)
{
    *kind = malloc(n ? n : 1);
    *val = malloc((n ? n : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++) {
        char k;
        unsigned x;
        if (fscanf(f, " %c %u", &k, &x) != 2)
            return -1;
        (*kind)[i] = k;
        (*val)[i] = x;
    }
    return 0;
}

int whir_vec_load(whir_vec *v, const char *spec)
{
    memset(v, 0, sizeof *v);
    char path[1024];
    snprintf(path, sizeof path, "%s/whir/%s.whir.txt", GLSTARK_TEST_DATA, spec);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char word[64];
    int rc = 0;
    while (fscanf(f, " %63s", word) == 1) {
        if (word[0] == '#') {
            int c;
            while ((c = fgetc(f)) != '\n' && c != EOF)
                ;
        } else if (!strcmp(word, "params")) {
            gs_whir_params *p = &v->params;
            if (fscanf(f, "%u %u %u %u %u %u %u", &p->l_skip, &p->n_stack, &p->log_blowup, &p->k, &p->mu_pow_bits,
                       &p->folding_pow_bits, &p->query_phase_pow_bits) != 7)
                rc = -1;
        } else if (!strcmp(word, "queries")) {
            /* rest of the line */
            char line[256];
            if (!fgets(line, sizeof line, f))
                rc = -1;
            char *s = line, *e;
            v->params.num_rounds = 0;
            for (;;) {
                unsigned long q = strtoul(s, &e, 10);
                if (e == s)
                    break;
                v->params.num_queries[v->params.num_rounds++] = (uint32_t)q;
                s = e;
            }
        } else if (!strcmp(word, "commit")) {
            for (int i = 0; i < 8; i++)
                if (fscanf(f, "%u", &v->commit[v->num_commits][i]) != 1)
                    rc = -1;
            v->num_commits++;
        } else if (!strcmp(word, "openings_offset")) {
            if (fscanf(f, "%zu", &v->openings_offset) != 1)
                rc = -1;
        } else if (!strcmp(word, "whir_offset")) {
            if (fscanf(f, "%zu", &v->whir_offset) != 1)
                rc = -1;
        } else if (!strcmp(word, "ucube")) {
            if (fscanf(f, "%u", &v->L) != 1)
                rc = -1;
            v->ucube = calloc(v->L, sizeof *v->ucube);
            for (uint32_t i = 0; i < v->L; i++)
                if (fscanf(f, " e %u %u %u %u", &v->ucube[i][0], &v->ucube[i][1], &v->ucube[i][2],
                           &v->ucube[i][3]) != 4)
                    rc = -1;
        } else if (!strcmp(word, "trace")) {
            whir_vec_trace *t = &v->traces[v->num_traces++];
            if (fscanf(f, "%u %u", &t->log_height, &t->width) != 2)
                rc = -1;
            size_t n = (size_t)t->width << t->log_height;
            t->cols = malloc(n * sizeof(uint32_t));
            for (size_t i = 0; i < n; i++)
                if (fscanf(f, "%u", &t->cols[i]) != 1)
                    rc = -1;
        } else if (!strcmp(word, "ops")) {
            if (fscanf(f, "%zu", &v->num_ops) != 1 || read_ops(f, v->num_ops, &v->op_kind, &v->op_val))
                rc = -1;
        } else if (!strcmp(word, "whir_ops")) {
            if (fscanf(f, "%zu", &v->num_whir_ops) != 1 ||
                read_ops(f, v->num_whir_ops, &v->whir_op_kind, &v->whir_op_val))
                rc = -1;
        } else {
            rc = -1;
        }
        if (rc)
            break;
    }
    fclose(f);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/whir/%s.proof.bin", GLSTARK_TEST_DATA, spec);
    v->proof = read_all(path, &v->proof_len);
    return v->proof ? 0 : -1;
}

void whir_vec_free(whir_vec *v)
{
    free(v->ucube);
    for (uint32_t i = 0; i < v->num_traces; i++)
        free(v->traces[i].cols);
    free(v->op_kind);
    free(v->op_val);
    free(v->whir_op_kind);
    free(v->whir_op_val);
    free(v->proof);
    memset(v, 0, sizeof *v);
}

static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

int whir_vec_openings(const whir_vec *v, uint32_t *widths, bb4_t *vals, size_t cap, size_t *total)
{
    size_t pos = v->openings_offset, n = 0;
    uint32_t nc = le32(v->proof + pos);
    pos += 4;
    if (nc != v->num_commits)
        return -1;
    for (uint32_t c = 0; c < nc; c++) {
        widths[c] = le32(v->proof + pos);
        pos += 4;
        for (uint32_t j = 0; j < widths[c]; j++) {
            if (n >= cap)
                return -1;
            uint32_t e[4];
            for (int i = 0; i < 4; i++, pos += 4)
                e[i] = le32(v->proof + pos);
            vals[n++] = bb4_from_canonical(e);
        }
    }
    *total = n;
    return pos == v->whir_offset ? 0 : -1;
}
