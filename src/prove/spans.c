/* The per-call span recorder (see spans.h). */
#include "prove/spans.h"
#include "util/clock.h"

#include <stdio.h>
#include <string.h>

void gs_span_rec_init(gs_span_rec *r, gs_engine *e0, gs_engine *e1, glstark_progress_fn progress, void *user)
{
    memset(r, 0, sizeof *r);
    r->eng[0] = e0;
    r->eng[1] = e1 != e0 ? e1 : NULL;
    r->progress = progress;
    r->progress_user = user;
    r->t0 = gs_now_s();
}

static uint64_t syncs_now(const gs_span_rec *r)
{
    uint64_t n = 0;
    for (int e = 0; e < 2; e++)
        if (r->eng[e])
            n += r->eng[e]->host_syncs;
    return n;
}

static int begin(gs_span_rec *r, const char *name, const char *engine)
{
    if (!r)
        return -1;
    int parent = -1;
    for (unsigned i = r->top; i-- > 0;)
        if (r->stack[i] >= 0) {
            parent = r->stack[i];
            break;
        }
    int idx = -1;
    if (r->n < GLSTARK_MAX_SPANS && r->top < GS_SPAN_STACK) {
        idx = (int)r->n++;
        glstark_span *s = &r->spans[idx];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", name);
        s->parent = parent;
        s->depth = parent < 0 ? 0 : r->spans[parent].depth + 1;
        s->start = gs_now_s() - r->t0;
        s->end = -1.0;
        snprintf(s->engine, sizeof s->engine, "%s", engine ? engine : "");
        r->syncs_at_begin[idx] = syncs_now(r);
    } else {
        r->dropped++;
    }
    if (r->top < GS_SPAN_STACK)
        r->stack[r->top++] = idx;
    if (idx >= 0 && r->progress)
        r->progress(r->progress_user, &r->spans[idx], 0);
    return idx;
}

int gs_span_begin(gs_span_rec *r, const char *name) { return begin(r, name, NULL); }

void gs_span_engine(gs_span_rec *r, int idx, const char *engine)
{
    if (r && idx >= 0 && (size_t)idx < r->n)
        snprintf(r->spans[idx].engine, sizeof r->spans[idx].engine, "%s", engine ? engine : "");
}

void gs_span_end(gs_span_rec *r, int idx)
{
    if (!r || idx < 0 || (size_t)idx >= r->n)
        return;
    /* A failed finish leaves its error in eng->err; the next engine call
     * reports it, so the measurement does not. */
    for (int e = 0; e < 2; e++)
        if (r->eng[e])
            (void)r->eng[e]->core->finish(r->eng[e]);
    double t = gs_now_s() - r->t0;
    uint64_t syncs = syncs_now(r);
    /* close idx and whatever was left open inside it */
    while (r->top > 0) {
        int j = r->stack[--r->top];
        if (j >= 0 && r->spans[j].end < r->spans[j].start) {
            r->spans[j].end = t;
            r->spans[j].host_syncs = syncs - r->syncs_at_begin[j];
            if (r->progress)
                r->progress(r->progress_user, &r->spans[j], 1);
        }
        if (j == idx)
            break;
    }
}

int gs_span_eng_begin(gs_engine *eng, const char *name)
{
    if (!eng || !eng->spans)
        return -1;
    return begin(eng->spans, name, eng->core->name);
}

void gs_span_eng_end(gs_engine *eng, int idx)
{
    if (eng)
        gs_span_end(eng->spans, idx);
}
