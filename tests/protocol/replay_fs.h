/* Test double for the Fiat-Shamir transcript: replays one of OpenVM's
 * recorded transcript logs (tests/data/constraint/<spec>.transcript.txt).
 * sample() returns the recorded value; observe() compares the observed value
 * with the recorded one and remembers the first mismatch, so a run checks
 * every prover message and its position in the transcript byte-exactly. */
#ifndef TEST_REPLAY_FS_H
#define TEST_REPLAY_FS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

typedef struct replay_op {
    char kind; /* 'o' observe, 's' sample */
    uint32_t v; /* canonical */
} replay_op;

typedef struct replay_note {
    size_t op;
    char name[160];
} replay_note;

typedef struct replay {
    replay_op *ops;
    size_t n_ops;
    replay_note *notes;
    size_t n_notes;
    size_t pos;
    long first_bad;   /* op index of the first mismatch, -1 if none */
    char bad_what[256];
} replay;

static inline int replay_load(replay *r, const char *file)
{
    memset(r, 0, sizeof(*r));
    r->first_bad = -1;
    char path[1024];
    snprintf(path, sizeof(path), "%s/constraint/%s", GLSTARK_TEST_DATA, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap_o = 1024, cap_n = 256;
    r->ops = malloc(cap_o * sizeof(replay_op));
    r->notes = malloc(cap_n * sizeof(replay_note));
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        unsigned long v, idx;
        if (line[0] == '#') {
            /* "# <op> <name> [<call>]": the name may contain spaces */
            int used = 0;
            if (sscanf(line, "# %lu %n", &idx, &used) == 1 && used > 0) {
                char *name = line + used;
                name[strcspn(name, "\n")] = 0;
                char *br = strrchr(name, '[');
                if (br && br > name && br[-1] == ' ' && strchr(br, ']'))
                    br[-1] = 0;
                if (r->n_notes == cap_n)
                    r->notes = realloc(r->notes, (cap_n *= 2) * sizeof(replay_note));
                r->notes[r->n_notes].op = idx;
                size_t len = strlen(name);
                if (len >= sizeof(r->notes[0].name))
                    len = sizeof(r->notes[0].name) - 1;
                memcpy(r->notes[r->n_notes].name, name, len);
                r->notes[r->n_notes].name[len] = 0;
                r->n_notes++;
            }
            continue;
        }
        char kind[16];
        if (sscanf(line, "%15s %lu", kind, &v) != 2)
            continue;
        if (r->n_ops == cap_o)
            r->ops = realloc(r->ops, (cap_o *= 2) * sizeof(replay_op));
        r->ops[r->n_ops].kind = kind[0] == 'o' ? 'o' : 's';
        r->ops[r->n_ops].v = (uint32_t)v;
        r->n_ops++;
    }
    fclose(f);
    return 0;
}

static inline void replay_free(replay *r)
{
    free(r->ops);
    free(r->notes);
}

/* Op index of the annotation whose name is exactly `name`, or -1. */
static inline long replay_find(const replay *r, const char *name)
{
    for (size_t i = 0; i < r->n_notes; i++)
        if (strcmp(r->notes[i].name, name) == 0)
            return (long)r->notes[i].op;
    return -1;
}

/* The EF value of the 4 ops starting at op index i. */
static inline bb4_t replay_ext_at(const replay *r, size_t i)
{
    uint32_t c[4] = {r->ops[i].v, r->ops[i + 1].v, r->ops[i + 2].v, r->ops[i + 3].v};
    return bb4_from_canonical(c);
}

static inline bb4_t replay_ext(const replay *r, const char *name)
{
    long i = replay_find(r, name);
    if (i < 0) {
        fprintf(stderr, "replay: no annotation '%s'\n", name);
        abort();
    }
    return replay_ext_at(r, (size_t)i);
}

static inline const char *replay_note_at(const replay *r, size_t op)
{
    const char *best = "?";
    for (size_t i = 0; i < r->n_notes; i++)
        if (r->notes[i].op <= op)
            best = r->notes[i].name;
    return best;
}

static inline void replay_observe(void *ctx, bb_t v)
{
    replay *r = ctx;
    uint32_t c = bb_to_canonical(v);
    if (r->first_bad < 0 && (r->pos >= r->n_ops || r->ops[r->pos].kind != 'o' || r->ops[r->pos].v != c)) {
        r->first_bad = (long)r->pos;
        snprintf(r->bad_what, sizeof(r->bad_what), "op %zu (%s): observed %u, log has %c %u", r->pos,
                 replay_note_at(r, r->pos), c, r->pos < r->n_ops ? r->ops[r->pos].kind : '-',
                 r->pos < r->n_ops ? r->ops[r->pos].v : 0);
    }
    r->pos++;
}

static inline bb_t replay_sample(void *ctx)
{
    replay *r = ctx;
    if (r->pos >= r->n_ops || r->ops[r->pos].kind != 's') {
        if (r->first_bad < 0) {
            r->first_bad = (long)r->pos;
            snprintf(r->bad_what, sizeof(r->bad_what), "op %zu (%s): sampled where the log has an observe",
                     r->pos, replay_note_at(r, r->pos));
        }
        r->pos++;
        return 0;
    }
    return bb_from_canonical(r->ops[r->pos++].v);
}

static inline gs_fs replay_fs(replay *r)
{
    gs_fs fs = {r, replay_observe, replay_sample, NULL};
    return fs;
}

#endif
