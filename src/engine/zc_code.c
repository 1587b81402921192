/* DAG -> interpreter bytecode, and a cache of compiled programs (zc_code.h). */
#include "engine/zc_code.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/bytebuf.h"

void gs_zc_code_free(gs_zc_code *c)
{
    free(c->aux);
    free(c->col_map);
    c->aux = NULL;
    c->col_map = NULL;
}

/* The table columns the program reads, ascending, into out->col_map. */
static glstark_status map_columns(const uint32_t *ins, uint32_t ni, size_t ncols, gs_zc_code *out, gs_error *err)
{
    uint8_t *read = calloc(ncols ? ncols : 1, 1);
    if (!read)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory for the column map");
    for (uint32_t q = 0; q < ni; q++) {
        const uint32_t *in = ins + 4 * (size_t)q;
        int pos[3], n = gs_zc_ins_operand_places(in, pos);
        for (int o = 0; o < n; o++) {
            uint32_t opnd = gs_zc_ins_operand(in, pos[o]);
            if (GS_ZC_OPND_KIND(opnd) == GS_ZC_OPND_COL)
                read[GS_ZC_OPND_INDEX(opnd)] = 1;
        }
    }
    uint32_t n = 0;
    for (size_t c = 0; c < ncols; c++)
        n += read[c];
    out->col_map = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!out->col_map) {
        free(read);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory for the column map");
    }
    n = 0;
    for (size_t c = 0; c < ncols; c++)
        if (read[c])
            out->col_map[n++] = (uint32_t)c;
    out->n_cols = n;
    out->numbering = GS_ZC_COLS_TABLE;
    free(read);
    return GLSTARK_OK;
}

/* Place of table column col in map (ascending; col must be in it). */
static uint32_t place_in(const uint32_t *map, uint32_t n, uint32_t col)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (map[mid] <= col)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Renumbers the column operands of a table-numbered program to their places
 * in map (ascending, a superset of the columns the program reads). */
static void renumber_columns(gs_zc_code *c, const uint32_t *map, uint32_t n, int numbering)
{
    for (uint32_t q = 0; q < c->n_instr; q++) {
        uint32_t *in = c->aux + 4 * (size_t)q;
        int pos[3], np = gs_zc_ins_operand_places(in, pos);
        for (int o = 0; o < np; o++) {
            uint32_t opnd = gs_zc_ins_operand(in, pos[o]);
            if (GS_ZC_OPND_KIND(opnd) == GS_ZC_OPND_COL)
                gs_zc_ins_set_operand(in, pos[o], GS_ZC_OPND_COL | place_in(map, n, GS_ZC_OPND_INDEX(opnd)));
        }
    }
    c->numbering = numbering;
}

/* Table column (gs_zc_table_cols numbering) of a variable or selector node,
 * or -1 for other nodes. */
static int64_t table_col_of(const gs_cdag *d, const uint32_t *part_off, const gs_cnode *nd)
{
    switch (nd->kind) {
    case GS_CN_VAR_PREP:
    case GS_CN_VAR_MAIN: return (int64_t)part_off[gs_cdag_part_of(d, nd)] + 2 * (int64_t)nd->a + nd->offset;
    case GS_CN_IS_FIRST: return 0;
    case GS_CN_IS_LAST: return 1;
    case GS_CN_IS_TRANSITION: return 2;
    default: return -1;
    }
}

/* part_off[p]: the table column of part p's column 0 at the local row. */
static void table_part_offsets(const gs_zc_trace *t, uint32_t *part_off)
{
    part_off[0] = 3;
    for (uint32_t p = 0; p < t->n_parts; p++)
        part_off[p + 1] = part_off[p] + 2 * t->part_widths[p];
}

glstark_status gs_zc_folded_layout(const gs_zc_trace *t, uint32_t **cols, uint32_t *n, gs_error *err)
{
    const gs_cdag *d = t->dag;
    const size_t ncols = gs_zc_table_cols(t);
    *cols = NULL;
    *n = 0;
    if (gs_cdag_check(d, t->part_widths, t->n_parts, t->n_publics))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "folded tables: the constraint DAG (%u nodes) references a column out of range",
                            d->n_nodes);
    uint8_t *in = calloc(ncols, 1);
    uint32_t *part_off = calloc((size_t)t->n_parts + 1, sizeof(uint32_t));
    if (!in || !part_off) {
        free(in), free(part_off);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "folded tables: no host memory for the column layout");
    }
    table_part_offsets(t, part_off);
    in[0] = in[1] = in[2] = 1;
    for (uint32_t i = 0; i < d->n_nodes; i++) {
        int64_t c = table_col_of(d, part_off, &d->nodes[i]);
        if (c >= 0)
            in[c] = 1;
    }
    uint32_t k = 0;
    for (size_t c = 0; c < ncols; c++)
        k += in[c];
    *cols = malloc(k * sizeof(uint32_t));
    if (!*cols) {
        free(in), free(part_off);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "folded tables: no host memory for the column layout");
    }
    k = 0;
    for (size_t c = 0; c < ncols; c++)
        if (in[c])
            (*cols)[k++] = (uint32_t)c;
    *n = k;
    free(in), free(part_off);
    return GLSTARK_OK;
}

typedef struct acc_use {
    uint32_t node, acc, weight;
} acc_use;

static int cmp_use(const void *a, const void *b)
{
    const acc_use *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->weight < y->weight ? -1 : x->weight > y->weight;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The most a split into groups may grow the program, as a multiple of the
 * unsplit program's length (see gs_zc_compile). */
#define ZC_SPLIT_GROWTH 4

/* Makes *buf (*cap items of `width` words) hold at least `need` items. */
static glstark_status grow_u32(uint32_t **buf, size_t *cap, size_t need, size_t width, gs_error *err)
{
    if (need <= *cap)
        return GLSTARK_OK;
    size_t c = *cap * 2 > need ? *cap * 2 : need;
    uint32_t *p = realloc(*buf, c * width * sizeof(uint32_t));
    if (!p)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory for the bytecode");
    *buf = p;
    *cap = c;
    return GLSTARK_OK;
}

static int is_computed(uint8_t k) { return k == GS_CN_ADD || k == GS_CN_SUB || k == GS_CN_MUL || k == GS_CN_NEG; }

/* Computed nodes in the cone of `node` not yet stamped `mark` (stamping
 * them): the instructions a use adds to a program that already has every
 * node stamped `mark`. */
static size_t new_cone(const gs_cdag *d, uint32_t node, uint32_t *stamp, uint32_t mark, uint32_t *stack)
{
    size_t sp = 0, count = 0;
    stack[sp++] = node;
    while (sp) {
        uint32_t x = stack[--sp];
        if (stamp[x] == mark)
            continue;
        stamp[x] = mark;
        const gs_cnode *nd = &d->nodes[x];
        if (!is_computed(nd->kind))
            continue;
        count++;
        stack[sp++] = nd->a;
        if (nd->kind != GS_CN_NEG)
            stack[sp++] = nd->b;
    }
    return count;
}

/* Splits the uses (sorted by node) into at most k contiguous groups of
 * about equal bytecode length: a group's length is the number of computed
 * nodes its uses need plus its accumulates. Greedy in use order with a
 * target of total/k; cut[g] is the first use of group g, cut[k'] = n_uses.
 * Returns the number of groups; *whole is the unsplit program's length,
 * *split the groups' lengths added up (shared nodes counted per group). */
static uint32_t split_uses(const gs_cdag *d, const acc_use *uses, size_t n_uses, uint32_t k, uint32_t *stamp,
                           uint32_t *stack, size_t *cut, size_t *whole, size_t *split)
{
    uint32_t n = d->n_nodes;
    /* the total without splitting, for the target */
    size_t total = n_uses;
    for (uint32_t i = 0; i < n; i++)
        stamp[i] = 0;
    uint32_t mark = 1;
    for (size_t u = 0; u < n_uses; u++)
        total += new_cone(d, uses[u].node, stamp, mark, stack);
    size_t target = (total + k - 1) / k;
    uint32_t g = 0;
    size_t len = 0, sum = 0;
    cut[0] = 0;
    mark++;
    for (size_t u = 0; u < n_uses; u++) {
        if (len >= target && g + 1 < k && uses[u].node != uses[u - 1].node) {
            cut[++g] = u;
            len = 0;
            mark++;
        }
        size_t add = 1 + new_cone(d, uses[u].node, stamp, mark, stack);
        len += add;
        sum += add;
    }
    cut[g + 1] = n_uses;
    *whole = total;
    *split = sum;
    return g + 1;
}

/* gs_zc_compile's working state: per-node tables (n_nodes each), the
 * accumulate uses and their weights, and the bytecode and constants as
 * they grow group by group. */
typedef struct zc_build {
    const gs_cdag *d;
    const gs_zc_trace *t;
    uint32_t *order;    /* a group's nodes, ascending */
    uint32_t *last;     /* each node's last reader in the group */
    uint32_t *slot;     /* each node's operand word */
    uint32_t *freel;    /* free slots */
    uint32_t *stamp;    /* visit marks (split_uses, group_nodes) */
    uint32_t *stack;    /* 2 n_nodes + 1 */
    uint32_t *part_off; /* first table column of each trace part */
    acc_use *uses;      /* sorted by node */
    /* fuse_group's tables, for one group at a time: each slot's current
     * writer (a group has at most n_nodes slots), each instruction's last
     * reader and its read count (at most n_nodes + n_uses instructions) */
    uint32_t *fuse_def, *fuse_reader;
    uint8_t *fuse_reads;
    size_t n_uses;
    bb4_t *wts;
    size_t n_w;
    uint32_t *ins, *consts; /* 4 words per instruction; one per constant */
    size_t ins_cap, consts_cap;
    uint32_t ni, n_consts;
} zc_build;

/* Entries of the weight table fill_weights writes. */
static size_t weight_count(const gs_cdag *d)
{
    size_t n = 1 + (size_t)d->n_constraints;
    for (uint32_t q = 0; q < d->n_interactions; q++)
        n += 1 + d->interactions[q].message_len;
    return n;
}

static void zc_build_free(zc_build *b)
{
    free(b->order), free(b->last), free(b->slot), free(b->freel), free(b->stamp), free(b->stack);
    free(b->part_off), free(b->uses), free(b->wts), free(b->ins), free(b->consts);
    free(b->fuse_def), free(b->fuse_reader), free(b->fuse_reads);
}

/* Counts the uses and weights and allocates the tables. */
static glstark_status zc_build_init(zc_build *b, const gs_zc_trace *t, gs_error *err)
{
    const gs_cdag *d = t->dag;
    memset(b, 0, sizeof *b);
    b->d = d;
    b->t = t;
    b->n_w = weight_count(d);
    b->n_uses = b->n_w - 1; /* a use per weight; entry 0 is the constant term */
    size_t n1 = d->n_nodes ? d->n_nodes : 1;
    b->order = calloc(n1, sizeof(uint32_t));
    b->last = calloc(n1, sizeof(uint32_t));
    b->slot = calloc(n1, sizeof(uint32_t));
    b->freel = calloc(n1, sizeof(uint32_t));
    b->stamp = calloc(n1, sizeof(uint32_t));
    b->stack = calloc(2 * n1 + 1, sizeof(uint32_t));
    b->fuse_def = malloc(n1 * sizeof(uint32_t));
    b->fuse_reader = malloc((n1 + b->n_uses) * sizeof(uint32_t));
    b->fuse_reads = malloc(n1 + b->n_uses);
    b->part_off = calloc((size_t)t->n_parts + 1, sizeof(uint32_t));
    b->uses = calloc(b->n_uses ? b->n_uses : 1, sizeof(acc_use));
    b->wts = calloc(b->n_w, sizeof(bb4_t));
    /* instructions and constants grow group by group (a group adds at most
     * its nodes and uses): sized by what the groups need, not by k times
     * the DAG, which for 128 groups of a large DAG would be gigabytes */
    b->ins_cap = n1 + b->n_uses;
    b->consts_cap = n1;
    b->ins = malloc(4 * b->ins_cap * sizeof(uint32_t));
    b->consts = malloc(b->consts_cap * sizeof(uint32_t));
    if (!b->order || !b->last || !b->slot || !b->freel || !b->stamp || !b->stack || !b->part_off || !b->uses ||
        !b->wts || !b->ins || !b->consts || !b->fuse_def || !b->fuse_reader || !b->fuse_reads)
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory to compile the DAG");
    table_part_offsets(t, b->part_off);
    return GLSTARK_OK;
}

/* The program's weight table (1 + constraints + per interaction 1 +
 * message length entries): wts[0] the denominators' constant part, then a
 * weight per use in the order collect_uses numbers them. Only this table
 * depends on the proof's challenges; the bytecode does not, so a cached
 * program is reused with the table written again (gs_zc_compile_cached). */
static void fill_weights(const gs_cdag *d, const gs_zc_weights *w, bb4_t *wts)
{
    size_t wi = 1;
    wts[0] = bb4_zero();
    for (uint32_t i = 0; i < d->n_constraints; i++)
        wts[wi++] = w->lambda_pows[i];
    for (uint32_t q = 0; q < d->n_interactions; q++) {
        const gs_cinteraction *it = &d->interactions[q];
        wts[wi++] = bb4_mul_base(w->eq3b[q], w->norm);
        bb4_t pw = bb4_one();
        for (uint32_t j = 0; j < it->message_len; j++) {
            wts[wi++] = bb4_mul(w->eq3b[q], pw);
            pw = bb4_mul(pw, w->beta);
        }
        wts[0] = bb4_add(wts[0], bb4_mul(w->eq3b[q], bb4_mul_base(pw, bb_from_u32((uint32_t)it->bus_index + 1))));
    }
}

/* The weights and the accumulate uses of constraints and interactions,
 * sorted by node (each use names its weight's index in the table). */
static void collect_uses(zc_build *b, const gs_zc_weights *w)
{
    const gs_cdag *d = b->d;
    size_t u = 0, wi = 1;
    fill_weights(d, w, b->wts);
    for (uint32_t i = 0; i < d->n_constraints; i++, wi++)
        b->uses[u++] = (acc_use){d->constraint_idx[i], 0, (uint32_t)wi};
    for (uint32_t q = 0; q < d->n_interactions; q++) {
        const gs_cinteraction *it = &d->interactions[q];
        b->uses[u++] = (acc_use){it->count, 1, (uint32_t)wi++};
        for (uint32_t j = 0; j < it->message_len; j++, wi++)
            b->uses[u++] = (acc_use){it->message[j], 2, (uint32_t)wi};
    }
    qsort(b->uses, b->n_uses, sizeof *b->uses, cmp_use);
}

/* The groups' first uses in cut (cut[ng] = n_uses) for up to k groups;
 * returns ng. */
static uint32_t choose_groups(zc_build *b, uint32_t k, size_t *cut)
{
    cut[0] = 0;
    cut[1] = b->n_uses;
    if (k <= 1)
        return 1;
    /* Groups recompute the nodes they share. Keccak's share little (the
     * keccakf profile's instruction counts moved 0.2% from 16 to 64
     * groups); where the split would pass ZC_SPLIT_GROWTH times the
     * unsplit program, fewer groups: the extra work would outweigh the
     * shorter chains. */
    size_t whole = 0, split = 0;
    uint32_t ng = split_uses(b->d, b->uses, b->n_uses, k, b->stamp, b->stack, cut, &whole, &split);
    while (ng > 1 && split > ZC_SPLIT_GROWTH * whole)
        ng = split_uses(b->d, b->uses, b->n_uses, ng / 2, b->stamp, b->stack, cut, &whole, &split);
    return ng;
}

/* Group g's nodes, ascending, into order: the cones of its uses
 * [cut[g], cut[g + 1]). Returns their count. (Passes over the whole DAG per
 * group cost 128 x 40k node visits for Keccak's multilinear program; the
 * cones are the group's program. Two keccakf-1024 proofs on the H100's
 * host: 26.2 ms of compiling before, 12.8 ms after, most of it now cache
 * hits' copies.) */
static size_t group_nodes(zc_build *b, const size_t *cut, uint32_t g)
{
    const uint32_t mark = UINT32_MAX - g; /* split_uses stamps 1 .. k + 1 */
    uint32_t *stack = b->stack;
    size_t nn = 0;
    for (size_t u = cut[g]; u < cut[g + 1]; u++) {
        size_t sp = 0;
        stack[sp++] = b->uses[u].node;
        while (sp) {
            uint32_t x = stack[--sp];
            if (b->stamp[x] == mark)
                continue;
            b->stamp[x] = mark;
            b->order[nn++] = x;
            const gs_cnode *nd = &b->d->nodes[x];
            if (!is_computed(nd->kind))
                continue;
            stack[sp++] = nd->a;
            if (nd->kind != GS_CN_NEG)
                stack[sp++] = nd->b;
        }
    }
    qsort(b->order, nn, sizeof *b->order, cmp_u32);
    return nn;
}

/* Node i's operand word, and its instruction where it is computed: slots
 * are recycled as soon as their node's last reader has read them. */
static void emit_node(zc_build *b, uint32_t i, uint32_t *n_free, uint32_t *g_slots)
{
    const gs_cdag *d = b->d;
    const gs_cnode *nd = &d->nodes[i];
    uint32_t *slot = b->slot;
    switch (nd->kind) {
    case GS_CN_VAR_PREP:
    case GS_CN_VAR_MAIN:
    case GS_CN_IS_FIRST:
    case GS_CN_IS_LAST:
    case GS_CN_IS_TRANSITION: slot[i] = GS_ZC_OPND_COL | (uint32_t)table_col_of(d, b->part_off, nd); break;
    case GS_CN_PUBLIC:
        b->consts[b->n_consts] = b->t->publics[nd->a];
        slot[i] = GS_ZC_OPND_CONST | b->n_consts++;
        break;
    case GS_CN_CONST:
        b->consts[b->n_consts] = nd->value;
        slot[i] = GS_ZC_OPND_CONST | b->n_consts++;
        break;
    default: {
        uint32_t a = slot[nd->a], bo = nd->kind == GS_CN_NEG ? slot[nd->a] : slot[nd->b];
        /* operands read before the result is written: their slots may be reused at once */
        if (is_computed(d->nodes[nd->a].kind) && b->last[nd->a] == i)
            b->freel[(*n_free)++] = a;
        if (nd->kind != GS_CN_NEG && nd->b != nd->a && is_computed(d->nodes[nd->b].kind) && b->last[nd->b] == i)
            b->freel[(*n_free)++] = bo;
        uint32_t dst = *n_free ? b->freel[--*n_free] : (*g_slots)++;
        uint32_t op = nd->kind == GS_CN_ADD   ? GS_ZC_OP_ADD
                      : nd->kind == GS_CN_SUB ? GS_ZC_OP_SUB
                      : nd->kind == GS_CN_MUL ? GS_ZC_OP_MUL
                                              : GS_ZC_OP_NEG;
        uint32_t *q = b->ins + 4 * (size_t)b->ni++;
        q[0] = op, q[1] = dst, q[2] = a, q[3] = bo;
        slot[i] = GS_ZC_OPND_SLOT | dst;
        break;
    }
    }
}

/* Group g's program (its nn nodes in order): every node, each followed by
 * the accumulates of its uses. *g_slots receives the slots it needs. */
static glstark_status emit_group(zc_build *b, const size_t *cut, uint32_t g, size_t nn, uint32_t *g_slots,
                                 gs_error *err)
{
    const gs_cdag *d = b->d;
    glstark_status st;
    if ((st = grow_u32(&b->ins, &b->ins_cap, (size_t)b->ni + nn + (cut[g + 1] - cut[g]), 4, err)) ||
        (st = grow_u32(&b->consts, &b->consts_cap, (size_t)b->n_consts + nn, 1, err)))
        return st;
    /* liveness within the group: each node's last reader */
    for (size_t j = 0; j < nn; j++)
        b->last[b->order[j]] = b->order[j];
    for (size_t j = 0; j < nn; j++) {
        const uint32_t i = b->order[j];
        const gs_cnode *nd = &d->nodes[i];
        if (!is_computed(nd->kind))
            continue;
        b->last[nd->a] = i;
        if (nd->kind != GS_CN_NEG)
            b->last[nd->b] = i;
    }
    uint32_t n_free = 0;
    *g_slots = 0;
    size_t ui = cut[g];
    for (size_t j = 0; j < nn; j++) {
        const uint32_t i = b->order[j];
        emit_node(b, i, &n_free, g_slots);
        for (; ui < cut[g + 1] && b->uses[ui].node == i; ui++) {
            uint32_t *q = b->ins + 4 * (size_t)b->ni++;
            q[0] = GS_ZC_OP_ACC, q[1] = b->uses[ui].acc, q[2] = b->slot[i], q[3] = b->uses[ui].weight;
        }
        if (is_computed(d->nodes[i].kind) && b->last[i] == i)
            b->freel[n_free++] = b->slot[i];
    }
    return GLSTARK_OK;
}

/* The fused form of `first` and `next` (zc_code.h, "Fused instructions"),
 * where next reads first's result t once and nothing else reads it;
 * returns 0 where they cannot be fused (a negation, or c's index too large
 * for word 0). */
static int fuse_pair(const uint32_t *first, const uint32_t *next, uint32_t out[4])
{
    const uint32_t t = GS_ZC_OPND_SLOT | first[1], op = next[0];
    uint32_t op2, c;
    if (op == GS_ZC_OP_ACC) {
        op2 = GS_ZC_OP2_ACC, c = next[3];
    } else if (op == GS_ZC_OP_ADD || op == GS_ZC_OP_SUB || op == GS_ZC_OP_MUL) {
        int t_first = next[2] == t;
        c = t_first ? next[3] : next[2];
        op2 = op == GS_ZC_OP_ADD ? GS_ZC_OP2_ADD
              : op == GS_ZC_OP_MUL ? GS_ZC_OP2_MUL
              : t_first ? GS_ZC_OP2_SUB
                        : GS_ZC_OP2_RSUB;
    } else {
        return 0;
    }
    if (GS_ZC_OPND_INDEX(c) > GS_ZC_C_INDEX_MAX)
        return 0;
    out[0] = gs_zc_ins_word0(first[0], op2, c);
    out[1] = next[1], out[2] = first[2], out[3] = first[3];
    return 1;
}

/* Fuses, in place, each of the group's instructions [start, b->ni) whose
 * result only the next instruction reads into that instruction; b->ni
 * becomes the group's new end. Keccak-f: 39,536 instructions become 26,495. */
static void fuse_group(zc_build *b, uint32_t start, uint32_t n_slots)
{
    const uint32_t n = b->ni - start, none = UINT32_MAX;
    uint32_t *def = b->fuse_def, *reader = b->fuse_reader;
    uint8_t *reads = b->fuse_reads; /* 2 meaning more than one */
    memset(reads, 0, n);
    for (uint32_t s = 0; s < n_slots; s++)
        def[s] = none;
    uint32_t *ins = b->ins + 4 * (size_t)start;
    for (uint32_t q = 0; q < n; q++) {
        const uint32_t *in = ins + 4 * (size_t)q;
        int pos[3], np = gs_zc_ins_operand_places(in, pos);
        for (int o = 0; o < np; o++) {
            uint32_t opnd = in[pos[o]];
            if (GS_ZC_OPND_KIND(opnd) != GS_ZC_OPND_SLOT || def[GS_ZC_OPND_INDEX(opnd)] == none)
                continue;
            uint32_t w = def[GS_ZC_OPND_INDEX(opnd)];
            reads[w] = reads[w] ? 2 : 1;
            reader[w] = q;
        }
        if (in[0] != GS_ZC_OP_ACC)
            def[in[1]] = q;
    }
    uint32_t w = 0;
    for (uint32_t q = 0; q < n; q++, w++) {
        const uint32_t *in = ins + 4 * (size_t)q;
        uint32_t fused[4];
        if (in[0] != GS_ZC_OP_ACC && reads[q] == 1 && reader[q] == q + 1 && fuse_pair(in, in + 4, fused)) {
            memcpy(ins + 4 * (size_t)w, fused, sizeof fused);
            q++;
        } else if (w != q) {
            memmove(ins + 4 * (size_t)w, in, 4 * sizeof(uint32_t));
        }
    }
    b->ni = start + w;
}

/* out's columns and aux words from the groups' bytecode (grp[g]: group g's
 * instructions): instructions, group ranges, constants, weights. */
static glstark_status write_code(const zc_build *b, uint32_t (*grp)[2], uint32_t ng, uint32_t n_slots, int numbering,
                                 gs_zc_code *out, gs_error *err)
{
    glstark_status st = map_columns(b->ins, b->ni, gs_zc_table_cols(b->t), out, err);
    if (st)
        return st;
    out->n_instr = b->ni;
    out->n_groups = ng;
    out->n_slots = n_slots;
    out->grp_off = b->ni;
    out->const_off = out->grp_off + ng;
    out->w_off = out->const_off + (b->n_consts + 3) / 4;
    out->aux_words = 4 * (out->w_off + b->n_w);
    out->aux = calloc(out->aux_words, sizeof(uint32_t));
    if (!out->aux) {
        gs_zc_code_free(out);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory for the bytecode");
    }
    memcpy(out->aux, b->ins, 4 * (size_t)b->ni * sizeof(uint32_t));
    for (uint32_t g = 0; g < ng; g++) {
        out->aux[4 * ((size_t)out->grp_off + g)] = grp[g][0];
        out->aux[4 * ((size_t)out->grp_off + g) + 1] = grp[g][1];
    }
    memcpy(out->aux + 4 * (size_t)out->const_off, b->consts, b->n_consts * sizeof(uint32_t));
    memcpy(out->aux + 4 * (size_t)out->w_off, b->wts, b->n_w * sizeof(bb4_t));
    if (numbering == GS_ZC_COLS_READ) {
        renumber_columns(out, out->col_map, out->n_cols, GS_ZC_COLS_READ);
    } else if (numbering == GS_ZC_COLS_FOLDED) {
        uint32_t *layout, n;
        glstark_status st2 = gs_zc_folded_layout(b->t, &layout, &n, err);
        if (st2) {
            gs_zc_code_free(out);
            return st2;
        }
        renumber_columns(out, layout, n, GS_ZC_COLS_FOLDED);
        out->n_folded = n;
        free(layout);
    }
    return GLSTARK_OK;
}

/* Compiles the DAG with this call's weights into bytecode, its uses split
 * into up to `k` groups: each group is a program of its own (the nodes its
 * uses need, recomputed where groups share them), run by its own lanes, so
 * one evaluation's latency is that of the longest group, not of the DAG.
 * The lanes of all groups add into accumulators summed by key afterwards. */
glstark_status gs_zc_compile(const gs_zc_trace *t, const gs_zc_weights *w, uint32_t k, int numbering, gs_zc_code *out,
                             gs_error *err)
{
    const gs_cdag *d = t->dag;
    memset(out, 0, sizeof *out);
    if (gs_cdag_check(d, t->part_widths, t->n_parts, t->n_publics))
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "constraint program: the constraint DAG (%u nodes) references a node, column or public value "
                            "out of range, or is not in topological order",
                            d->n_nodes);
    zc_build b;
    glstark_status st = zc_build_init(&b, t, err);
    if (st)
        goto done;
    if (k == 0)
        k = 1;
    if (k > GS_ZC_MAX_GROUPS)
        k = GS_ZC_MAX_GROUPS;
    if (k > b.n_uses)
        k = b.n_uses ? (uint32_t)b.n_uses : 1;
    collect_uses(&b, w);
    size_t cut[GS_ZC_MAX_GROUPS + 1];
    uint32_t grp[GS_ZC_MAX_GROUPS][2];
    uint32_t ng = choose_groups(&b, k, cut), n_slots = 0;
    for (uint32_t g = 0; g < ng; g++) {
        size_t nn = group_nodes(&b, cut, g);
        uint32_t g_slots;
        grp[g][0] = b.ni;
        if ((st = emit_group(&b, cut, g, nn, &g_slots, err)))
            goto done;
        fuse_group(&b, grp[g][0], g_slots);
        grp[g][1] = b.ni;
        if (g_slots > n_slots)
            n_slots = g_slots;
        if (b.ni - grp[g][0] > out->max_group_instr)
            out->max_group_instr = b.ni - grp[g][0];
    }
    st = write_code(&b, grp, ng, n_slots, numbering, out, err);
done:
    zc_build_free(&b);
    return st;
}

/* ---- compiled-code cache ----
 * The multilinear rounds compile the same DAG once per round (13 times for
 * keccakf-1024, 3.5 ms each with 16 groups on the H200's host), and every
 * proof of the same AIRs compiles it again with new challenges. The engine
 * keeps results keyed by everything zc_compile's bytecode depends on,
 * compared byte for byte (no hash: a stale DAG at a reused address must
 * never match); the weights are not in the key, and a hit gets its weight
 * table written from this call's (fill_weights). Entries are kept while
 * their keys and bytecode stay under ZC_CACHE_BYTES, the least recently used
 * dropped first: a batch needs two programs per AIR on GLES (round 0's and
 * the rounds'), and a fixed eight entries made a batch of more than four
 * AIRs compile every AIR's DAG again in every round. Keccak-f's two take
 * ~2.3 MB. */
#define ZC_CACHE_BYTES ((size_t)64 << 20)

typedef struct zc_cache_entry {
    uint8_t *key;
    size_t key_len;
    gs_zc_code code;
    uint64_t used;
} zc_cache_entry;

typedef struct zc_ahead zc_ahead;

struct gs_zc_cache {
    zc_cache_entry *e;
    size_t n, cap, bytes;
    uint64_t clock;
    uint64_t hits, misses;
    zc_ahead *ahead; /* compiles on a thread of their own (gs_zc_cache_compile_ahead) */
};

static size_t entry_bytes(const zc_cache_entry *e)
{
    return e->key_len + ((size_t)e->code.aux_words + e->code.n_cols) * sizeof(uint32_t);
}

static void entry_drop(gs_zc_cache *c, size_t i)
{
    c->bytes -= entry_bytes(&c->e[i]);
    free(c->e[i].key);
    gs_zc_code_free(&c->e[i].code);
    c->e[i] = c->e[--c->n];
}

/* Everything zc_compile's output depends on but the weights, as bytes. */
static int compile_key(const gs_zc_trace *t, uint32_t k, int numbering, gs_bytebuf *b)
{
    const gs_cdag *d = t->dag;
    const uint8_t num = (uint8_t)numbering;
    gs_bytebuf_put(b, &k, sizeof k);
    gs_bytebuf_put(b, &num, sizeof num);
    gs_bytebuf_put(b, &d->n_nodes, sizeof d->n_nodes);
    gs_bytebuf_put(b, &d->n_cached, sizeof d->n_cached);
    gs_bytebuf_put(b, &d->has_preprocessed, sizeof d->has_preprocessed);
    gs_bytebuf_put(b, d->nodes, (size_t)d->n_nodes * sizeof *d->nodes);
    gs_bytebuf_put(b, &d->n_constraints, sizeof d->n_constraints);
    gs_bytebuf_put(b, d->constraint_idx, (size_t)d->n_constraints * sizeof *d->constraint_idx);
    gs_bytebuf_put(b, &d->n_interactions, sizeof d->n_interactions);
    for (uint32_t q = 0; q < d->n_interactions; q++) {
        const gs_cinteraction *it = &d->interactions[q];
        uint32_t hdr[3] = {it->message_len, it->count, it->bus_index};
        gs_bytebuf_put(b, hdr, sizeof hdr);
        gs_bytebuf_put(b, it->message, (size_t)it->message_len * sizeof *it->message);
    }
    gs_bytebuf_put(b, &t->n_parts, sizeof t->n_parts);
    gs_bytebuf_put(b, t->part_widths, (size_t)t->n_parts * sizeof *t->part_widths);
    gs_bytebuf_put(b, &t->n_publics, sizeof t->n_publics);
    gs_bytebuf_put(b, t->publics, (size_t)t->n_publics * sizeof *t->publics);
    return !b->oom;
}

static glstark_status code_copy(const gs_zc_code *src, gs_zc_code *dst, gs_error *err)
{
    *dst = *src;
    dst->aux = malloc(src->aux_words * sizeof(uint32_t));
    dst->col_map = malloc((src->n_cols ? src->n_cols : 1) * sizeof(uint32_t));
    if (!dst->aux || !dst->col_map) {
        gs_zc_code_free(dst);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory for the bytecode");
    }
    memcpy(dst->aux, src->aux, src->aux_words * sizeof(uint32_t));
    memcpy(dst->col_map, src->col_map, src->n_cols * sizeof(uint32_t));
    return GLSTARK_OK;
}

void gs_zc_cache_free(gs_zc_cache *c)
{
    if (!c)
        return;
    gs_zc_cache_wait(c);
    while (c->n)
        entry_drop(c, c->n - 1);
    free(c->e);
    free(c);
}

void gs_zc_cache_counts(gs_zc_cache *c, uint64_t *hits, uint64_t *misses, size_t *entries)
{
    gs_zc_cache_wait(c);
    *hits = c ? c->hits : 0;
    *misses = c ? c->misses : 0;
    *entries = c ? c->n : 0;
}

static int grow_entries(gs_zc_cache *c)
{
    size_t cap = c->cap ? 2 * c->cap : 8;
    zc_cache_entry *e = realloc(c->e, cap * sizeof *e);
    if (!e)
        return 0;
    c->e = e;
    c->cap = cap;
    return 1;
}

/* The entry under key (its use marked), or NULL. */
static zc_cache_entry *cache_find(gs_zc_cache *c, const uint8_t *key, size_t key_len)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].key_len == key_len && !memcmp(c->e[i].key, key, key_len)) {
            c->e[i].used = c->clock;
            return &c->e[i];
        }
    return NULL;
}

/* Keeps a copy of code under key (taking the key), dropping the least
 * recently used entries while the cache would pass ZC_CACHE_BYTES. Caching
 * is optional: without memory the entry is forgotten. */
static void cache_insert(gs_zc_cache *c, uint8_t *key, size_t key_len, const gs_zc_code *code)
{
    zc_cache_entry ne = {key, key_len, {0}, c->clock};
    gs_error ignored;
    if (code_copy(code, &ne.code, &ignored)) {
        free(key);
        return;
    }
    const size_t b = entry_bytes(&ne);
    while (c->n && c->bytes + b > ZC_CACHE_BYTES) {
        size_t old = 0;
        for (size_t i = 1; i < c->n; i++)
            if (c->e[i].used < c->e[old].used)
                old = i;
        entry_drop(c, old);
    }
    if (b > ZC_CACHE_BYTES || (c->n == c->cap && !grow_entries(c))) {
        free(key);
        gs_zc_code_free(&ne.code);
        return;
    }
    c->e[c->n++] = ne;
    c->bytes += b;
}

/* A cached program's weight table, written again from this call's weights. */
static glstark_status rewrite_weights(const gs_cdag *d, const gs_zc_weights *w, gs_zc_code *code, gs_error *err)
{
    const size_t n_w = code->aux_words / 4 - code->w_off; /* the table ends the aux words (write_code) */
    bb4_t *wts = malloc(n_w * sizeof *wts);
    if (!wts) {
        gs_zc_code_free(code);
        return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "constraint program: no host memory for the weights");
    }
    fill_weights(d, w, wts);
    memcpy(code->aux + 4 * (size_t)code->w_off, wts, n_w * sizeof *wts);
    free(wts);
    return GLSTARK_OK;
}

int gs_zc_code_weights_match(const gs_zc_trace *t, const gs_zc_weights *w, const gs_zc_code *code)
{
    const size_t n_w = code->aux_words / 4 - code->w_off; /* the table ends the aux words (write_code) */
    if (n_w != weight_count(t->dag))
        return 0;
    bb4_t *wts = malloc(n_w * sizeof *wts);
    if (!wts)
        return 0;
    fill_weights(t->dag, w, wts);
    int same = !memcmp(code->aux + 4 * (size_t)code->w_off, wts, n_w * sizeof *wts);
    free(wts);
    return same;
}

/* The program for (t, k, numbering) from cache c, compiled with w and kept
 * on a miss. With out, the caller's copy (a hit gets w's weight table);
 * without, the program is only made sure of (compiling ahead). */
static glstark_status cache_get(gs_zc_cache *c, const gs_zc_trace *t, const gs_zc_weights *w, uint32_t k,
                                int numbering, gs_zc_code *out, gs_error *err)
{
    gs_bytebuf kb = {0};
    if (!compile_key(t, k, numbering, &kb)) {
        free(kb.p);
        /* no memory to cache: compile as before */
        return out ? gs_zc_compile(t, w, k, numbering, out, err) : GLSTARK_OK;
    }
    /* programs are cached renumbered: renumbering the columns (a binary
     * search per operand) cost more than the rest of a hit together (Keccak-f:
     * 0.6-1.0 ms against ~0.1 ms on the 2-core dev machine) */
    c->clock++;
    zc_cache_entry *hit = cache_find(c, kb.p, kb.len);
    if (hit) {
        free(kb.p);
        if (!out)
            return GLSTARK_OK;
        c->hits++;
        glstark_status st = code_copy(&hit->code, out, err);
        if (!st)
            st = rewrite_weights(t->dag, w, out, err);
        return st;
    }
    c->misses++;
    gs_zc_code code;
    glstark_status st = gs_zc_compile(t, w, k, numbering, &code, err);
    if (st) {
        free(kb.p);
        return st;
    }
    cache_insert(c, kb.p, kb.len, &code);
    if (out)
        *out = code;
    else
        gs_zc_code_free(&code);
    return GLSTARK_OK;
}

/* zc_compile through the engine's cache; *out is the caller's copy. */
glstark_status gs_zc_compile_cached(gs_zc_cache **cache, const gs_zc_trace *t, const gs_zc_weights *w, uint32_t k,
                                    int numbering, gs_zc_code *out, gs_error *err)
{
    if (!*cache)
        *cache = calloc(1, sizeof **cache);
    gs_zc_cache_wait(*cache);
    return *cache ? cache_get(*cache, t, w, k, numbering, out, err) : gs_zc_compile(t, w, k, numbering, out, err);
}

/* ---- compiling ahead ----
 * A proof's first use of each program compiled it on the proving thread:
 * keccakf-1024's two (round 0's, the rounds') took 16 ms of the first proof
 * on the H200's host, while the commit before them kept the host waiting
 * on the GPU. */
struct zc_ahead {
    pthread_t thread;
    gs_zc_cache *cache;
    gs_zc_trace *traces; /* the caller's views without their buffers */
    uint32_t n;
    gs_zc_variant v[GS_ZC_AHEAD_MAX];
    uint32_t nv;
};

static void *compile_ahead_run(void *arg)
{
    zc_ahead *a = arg;
    gs_zc_cache *c = a->cache;
    for (uint32_t t = 0; t < a->n; t++) {
        const gs_cdag *d = a->traces[t].dag;
        /* any weights: a hit writes the caller's into its copy */
        bb4_t *lp = calloc((size_t)d->n_constraints + 1, sizeof(bb4_t));
        bb4_t *eq = calloc((size_t)d->n_interactions + 1, sizeof(bb4_t));
        gs_zc_weights w = {lp, bb4_zero(), eq, bb_zero()};
        /* an error is left for the proof's own compile to report */
        gs_error ignored;
        for (uint32_t i = 0; lp && eq && i < a->nv; i++)
            (void)cache_get(c, &a->traces[t], &w, a->v[i].k, a->v[i].numbering, NULL, &ignored);
        free(lp);
        free(eq);
    }
    return NULL;
}

void gs_zc_cache_compile_ahead(gs_zc_cache **cache, const gs_zc_trace *traces, uint32_t n, const gs_zc_variant *v,
                               uint32_t nv)
{
    if (!*cache)
        *cache = calloc(1, sizeof **cache);
    gs_zc_cache *c = *cache;
    if (!c || n == 0 || nv == 0)
        return;
    gs_zc_cache_wait(c);
    zc_ahead *a = calloc(1, sizeof *a);
    if (a)
        a->traces = malloc(n * sizeof *a->traces);
    if (!a || !a->traces) {
        if (a)
            free(a->traces);
        free(a);
        return; /* optional: the proof compiles at first use */
    }
    for (uint32_t t = 0; t < n; t++) {
        a->traces[t] = traces[t];
        a->traces[t].parts = NULL; /* set by the proving thread meanwhile; compiles never read them */
        a->traces[t].part_offsets = NULL;
    }
    a->cache = c;
    a->n = n;
    a->nv = nv < GS_ZC_AHEAD_MAX ? nv : GS_ZC_AHEAD_MAX;
    memcpy(a->v, v, a->nv * sizeof *v);
    if (pthread_create(&a->thread, NULL, compile_ahead_run, a)) {
        free(a->traces);
        free(a);
        return;
    }
    c->ahead = a;
}

void gs_zc_cache_wait(gs_zc_cache *c)
{
    if (!c || !c->ahead)
        return;
    pthread_join(c->ahead->thread, NULL);
    free(c->ahead->traces);
    free(c->ahead);
    c->ahead = NULL;
}
