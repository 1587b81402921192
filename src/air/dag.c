/* Building the constraint DAG from the builder's expression trees, exactly
 * as stark-backend's SymbolicDagBuilder does (docs/protocol.md, 'Constraint DAG'):
 * post-order (left before right), structural interning of every node (the
 * key includes degree_multiple), and these simplifications, applied after
 * both children are interned:
 *   const op const -> const;  0 + x, x + 0, x - 0 -> x;  x + (-y) -> x - y;
 *   x - (-y) -> x + y;  0 * x, x * 1 -> left;  x * 0, 1 * x -> right;
 *   -const -> const.
 * Constraint roots are then sorted and deduplicated; interaction message
 * fields and counts are added after all constraints. */
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"

void gs_dag_free(gs_dag *dag)
{
    if (!dag)
        return;
    for (size_t i = 0; i < dag->num_interactions; i++)
        free(dag->interactions[i].message);
    free(dag->interactions);
    free(dag->constraint_idx);
    free(dag->nodes);
    memset(dag, 0, sizeof *dag);
}

uint32_t gs_dag_max_rotation(const gs_dag *dag)
{
    uint32_t r = 0;
    for (size_t i = 0; i < dag->num_nodes; i++) {
        const gs_dag_node *n = &dag->nodes[i];
        if (n->kind == GS_NODE_VAR &&
            (n->var.entry == GS_ENTRY_MAIN || n->var.entry == GS_ENTRY_PREPROCESSED) &&
            n->var.offset > r)
            r = n->var.offset;
    }
    return r;
}

/* ---- interning table: open addressing over node indices ---- */
typedef struct interner {
    gs_dag_node *nodes;
    size_t num, cap;
    uint32_t *slots; /* node index + 1, 0 = empty */
    size_t slot_mask;
} interner;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static uint64_t node_hash(const gs_dag_node *n)
{
    uint64_t h = n->kind;
    h = mix(h, n->left);
    h = mix(h, n->right);
    h = mix(h, n->dm);
    h = mix(h, n->var.entry);
    h = mix(h, n->var.part_index);
    h = mix(h, n->var.offset);
    h = mix(h, n->var.index);
    h = mix(h, n->constant);
    return h;
}

static int node_eq(const gs_dag_node *a, const gs_dag_node *b)
{
    return a->kind == b->kind && a->left == b->left && a->right == b->right && a->dm == b->dm &&
           a->var.entry == b->var.entry && a->var.part_index == b->var.part_index &&
           a->var.offset == b->var.offset && a->var.index == b->var.index &&
           a->constant == b->constant;
}

static int rehash(interner *in, size_t nslots)
{
    uint32_t *s = calloc(nslots, sizeof *s);
    if (!s)
        return 0;
    for (size_t i = 0; i < in->num; i++) {
        size_t j = (size_t)node_hash(&in->nodes[i]) & (nslots - 1);
        while (s[j])
            j = (j + 1) & (nslots - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(in->slots);
    in->slots = s;
    in->slot_mask = nslots - 1;
    return 1;
}

/* Returns the node's index, appending it if new; UINT32_MAX on OOM. */
static uint32_t intern(interner *in, const gs_dag_node *n)
{
    if ((in->num + 1) * 2 > in->slot_mask + 1) {
        if (!rehash(in, (in->slot_mask + 1) * 2))
            return UINT32_MAX;
    }
    size_t j = (size_t)node_hash(n) & in->slot_mask;
    while (in->slots[j]) {
        uint32_t idx = in->slots[j] - 1;
        if (node_eq(&in->nodes[idx], n))
            return idx;
        j = (j + 1) & in->slot_mask;
    }
    if (in->num == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 256;
        gs_dag_node *p = realloc(in->nodes, cap * sizeof *p);
        if (!p)
            return UINT32_MAX;
        in->nodes = p;
        in->cap = cap;
    }
    in->nodes[in->num] = *n;
    in->slots[j] = (uint32_t)(in->num + 1);
    return (uint32_t)in->num++;
}

static gs_dag_node const_node(bb_t c)
{
    gs_dag_node n;
    memset(&n, 0, sizeof n);
    n.kind = GS_NODE_CONST;
    n.constant = c;
    return n;
}

static int is_const(const interner *in, uint32_t i, bb_t *c)
{
    if (in->nodes[i].kind != GS_NODE_CONST)
        return 0;
    *c = in->nodes[i].constant;
    return 1;
}

/* One tree node whose children are already interned. */
static uint32_t add_node(interner *in, const gs_expr_node *e, uint32_t L, uint32_t R)
{
    gs_dag_node n;
    memset(&n, 0, sizeof n);
    bb_t a = 0, b = 0;
    int ca, cb;
    switch (e->kind) {
    case GS_NODE_VAR:
        n.kind = GS_NODE_VAR;
        n.var = e->var;
        return intern(in, &n);
    case GS_NODE_IS_FIRST_ROW:
    case GS_NODE_IS_LAST_ROW:
    case GS_NODE_IS_TRANSITION:
        n.kind = e->kind;
        return intern(in, &n);
    case GS_NODE_CONST:
        n = const_node(e->constant);
        return intern(in, &n);
    case GS_NODE_NEG:
        if (is_const(in, L, &a)) {
            n = const_node(bb_neg(a));
            return intern(in, &n);
        }
        n.kind = GS_NODE_NEG;
        n.left = L;
        n.dm = e->dm;
        return intern(in, &n);
    case GS_NODE_ADD:
        ca = is_const(in, L, &a);
        cb = is_const(in, R, &b);
        if (ca && cb) {
            n = const_node(bb_add(a, b));
            return intern(in, &n);
        }
        if (ca && a == 0)
            return R;
        if (cb && b == 0)
            return L;
        n.kind = GS_NODE_ADD;
        if (in->nodes[R].kind == GS_NODE_NEG) {
            n.kind = GS_NODE_SUB;
            R = in->nodes[R].left;
        }
        n.left = L;
        n.right = R;
        n.dm = e->dm;
        return intern(in, &n);
    case GS_NODE_SUB:
        ca = is_const(in, L, &a);
        cb = is_const(in, R, &b);
        if (ca && cb) {
            n = const_node(bb_sub(a, b));
            return intern(in, &n);
        }
        if (cb && b == 0)
            return L;
        n.kind = GS_NODE_SUB;
        if (in->nodes[R].kind == GS_NODE_NEG) {
            n.kind = GS_NODE_ADD;
            R = in->nodes[R].left;
        }
        n.left = L;
        n.right = R;
        n.dm = e->dm;
        return intern(in, &n);
    case GS_NODE_MUL:
        ca = is_const(in, L, &a);
        cb = is_const(in, R, &b);
        if (ca && cb) {
            n = const_node(bb_mul(a, b));
            return intern(in, &n);
        }
        if ((ca && a == 0) || (cb && b == bb_one()))
            return L;
        if ((cb && b == 0) || (ca && a == bb_one()))
            return R;
        n.kind = GS_NODE_MUL;
        n.left = L;
        n.right = R;
        n.dm = e->dm;
        return intern(in, &n);
    default:
        return UINT32_MAX;
    }
}

/* add_expr of the reference, iteratively (user expressions may be deep
 * chains). memo[id-1] caches results per tree node, like the reference's
 * cache by Arc address; it never changes the result, only the cost. */
static glstark_status add_expr(const glstark_air *air, interner *in, uint32_t *memo,
                               uint32_t **stack, size_t *stack_cap, uint32_t root,
                               uint32_t *out, gs_error *err)
{
    if (memo[root - 1] != UINT32_MAX) {
        *out = memo[root - 1];
        return GLSTARK_OK;
    }
    size_t sp = 0;
    (*stack)[sp++] = root;
    while (sp) {
        uint32_t id = (*stack)[sp - 1];
        if (memo[id - 1] != UINT32_MAX) {
            sp--;
            continue;
        }
        const gs_expr_node *e = &air->exprs[id - 1];
        int binary = e->kind == GS_NODE_ADD || e->kind == GS_NODE_SUB || e->kind == GS_NODE_MUL;
        int unary = e->kind == GS_NODE_NEG;
        /* push children still to do; right first so left is finished first */
        uint32_t pend[2];
        size_t np = 0;
        if (binary && memo[e->b - 1] == UINT32_MAX)
            pend[np++] = e->b;
        if ((binary || unary) && memo[e->a - 1] == UINT32_MAX)
            pend[np++] = e->a;
        if (np) {
            if (sp + np > *stack_cap) {
                size_t cap = *stack_cap * 2 + np;
                uint32_t *s = realloc(*stack, cap * sizeof *s);
                if (!s)
                    return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                                        "building the constraint DAG: out of memory");
                *stack = s;
                *stack_cap = cap;
            }
            for (size_t k = 0; k < np; k++)
                (*stack)[sp++] = pend[k];
            continue;
        }
        uint32_t L = (binary || unary) ? memo[e->a - 1] : 0;
        uint32_t R = binary ? memo[e->b - 1] : 0;
        uint32_t r = add_node(in, e, L, R);
        if (r == UINT32_MAX)
            return gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY,
                                "building the constraint DAG: out of memory");
        memo[id - 1] = r;
        sp--;
    }
    *out = memo[root - 1];
    return GLSTARK_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

glstark_status gs_dag_build(const glstark_air *air, gs_dag *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    glstark_status st = GLSTARK_OK;
    interner in;
    memset(&in, 0, sizeof in);
    uint32_t *memo = NULL, *stack = NULL;
    size_t stack_cap = 64;
    in.slots = calloc(256, sizeof(uint32_t));
    in.slot_mask = 255;
    memo = malloc((air->num_exprs ? air->num_exprs : 1) * sizeof *memo);
    stack = malloc(stack_cap * sizeof *stack);
    out->constraint_idx = malloc((air->num_constraints ? air->num_constraints : 1) * sizeof(uint32_t));
    out->interactions = calloc(air->num_interactions ? air->num_interactions : 1,
                               sizeof(gs_dag_interaction));
    if (!in.slots || !memo || !stack || !out->constraint_idx || !out->interactions) {
        st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "building the constraint DAG: out of memory");
        goto done;
    }
    for (size_t i = 0; i < air->num_exprs; i++)
        memo[i] = UINT32_MAX;
    for (size_t i = 0; i < air->num_constraints; i++) {
        st = add_expr(air, &in, memo, &stack, &stack_cap, air->constraints[i],
                      &out->constraint_idx[i], err);
        if (st)
            goto done;
    }
    qsort(out->constraint_idx, air->num_constraints, sizeof(uint32_t), cmp_u32);
    size_t nc = 0;
    for (size_t i = 0; i < air->num_constraints; i++)
        if (nc == 0 || out->constraint_idx[nc - 1] != out->constraint_idx[i])
            out->constraint_idx[nc++] = out->constraint_idx[i];
    out->num_constraints = nc;
    for (size_t i = 0; i < air->num_interactions; i++) {
        const gs_air_interaction *it = &air->interactions[i];
        gs_dag_interaction *d = &out->interactions[i];
        d->message = malloc(it->num_fields * sizeof(uint32_t));
        if (!d->message) {
            st = gs_error_set(err, GLSTARK_ERR_OUT_OF_MEMORY, "building the constraint DAG: out of memory");
            goto done;
        }
        out->num_interactions = i + 1;
        d->message_len = it->num_fields;
        for (size_t j = 0; j < it->num_fields; j++) {
            st = add_expr(air, &in, memo, &stack, &stack_cap, it->fields[j], &d->message[j], err);
            if (st)
                goto done;
        }
        st = add_expr(air, &in, memo, &stack, &stack_cap, it->count, &d->count, err);
        if (st)
            goto done;
        d->bus_index = it->bus_index;
        d->count_weight = it->count_weight;
    }
    out->num_interactions = air->num_interactions;
    out->nodes = in.nodes;
    out->num_nodes = in.num;
    in.nodes = NULL;
done:
    free(in.slots);
    free(in.nodes);
    free(memo);
    free(stack);
    if (st)
        gs_dag_free(out);
    return st;
}

void gs_dag_eval_row(const gs_dag *dag, const gs_dag_row_env *env, bb_t *vals)
{
    for (size_t i = 0; i < dag->num_nodes; i++) {
        const gs_dag_node *n = &dag->nodes[i];
        bb_t v = 0;
        switch (n->kind) {
        case GS_NODE_VAR: {
            size_t row = n->var.offset ? env->next_row : env->row;
            switch (n->var.entry) {
            case GS_ENTRY_MAIN:
                v = env->main_cols[n->var.part_index][n->var.index][row];
                break;
            case GS_ENTRY_PREPROCESSED:
                v = env->prep_cols[n->var.index][row];
                break;
            case GS_ENTRY_PUBLIC:
                v = env->public_values[n->var.index];
                break;
            default:
                v = 0;
            }
            break;
        }
        case GS_NODE_IS_FIRST_ROW: v = env->is_first_row; break;
        case GS_NODE_IS_LAST_ROW: v = env->is_last_row; break;
        case GS_NODE_IS_TRANSITION: v = env->is_transition; break;
        case GS_NODE_CONST: v = n->constant; break;
        case GS_NODE_ADD: v = bb_add(vals[n->left], vals[n->right]); break;
        case GS_NODE_SUB: v = bb_sub(vals[n->left], vals[n->right]); break;
        case GS_NODE_NEG: v = bb_neg(vals[n->left]); break;
        case GS_NODE_MUL: v = bb_mul(vals[n->left], vals[n->right]); break;
        default: v = 0;
        }
        vals[i] = v;
    }
}

void gs_dag_eval_ext(const gs_dag *dag, const gs_dag_ext_env *env, bb4_t *vals)
{
    for (size_t i = 0; i < dag->num_nodes; i++) {
        const gs_dag_node *n = &dag->nodes[i];
        bb4_t v = bb4_zero();
        switch (n->kind) {
        case GS_NODE_VAR:
            switch (n->var.entry) {
            case GS_ENTRY_MAIN:
                v = (n->var.offset ? env->main_next : env->main_local)[n->var.part_index][n->var.index];
                break;
            case GS_ENTRY_PREPROCESSED:
                v = (n->var.offset ? env->prep_next : env->prep_local)[n->var.index];
                break;
            case GS_ENTRY_PUBLIC:
                v = bb4_from_base(env->public_values[n->var.index]);
                break;
            default:
                break;
            }
            break;
        case GS_NODE_IS_FIRST_ROW: v = env->is_first_row; break;
        case GS_NODE_IS_LAST_ROW: v = env->is_last_row; break;
        case GS_NODE_IS_TRANSITION: v = env->is_transition; break;
        case GS_NODE_CONST: v = bb4_from_base(n->constant); break;
        case GS_NODE_ADD: v = bb4_add(vals[n->left], vals[n->right]); break;
        case GS_NODE_SUB: v = bb4_sub(vals[n->left], vals[n->right]); break;
        case GS_NODE_NEG: v = bb4_neg(vals[n->left]); break;
        case GS_NODE_MUL: v = bb4_mul(vals[n->left], vals[n->right]); break;
        default: break;
        }
        vals[i] = v;
    }
}
