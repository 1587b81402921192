// Work-group sums of extension-field values (glsl/whir.comp, glsl/gkr.comp).
// Every invocation of the work group must call gs_group_sum (it has
// barriers), and every invocation gets the sum. Include it after the
// layout(local_size_x = ...) declaration: NVIDIA's compiler derives
// gl_NumSubgroups from the work-group size and rejects it before that.
//
// Without subgroups: a shared-memory tree, one barrier per halving
// (GS_LOCAL_SIZE is a power of two). With GS_SUBGROUP_REDUCE (the prelude
// defines it where src/gles/caps.c chose subgroup reductions): a butterfly
// of subgroupShuffleXor inside each subgroup (log2 of its size steps, field
// additions, no shared memory), one value per subgroup through shared
// memory, then subgroup 0 adds those up: two barriers whatever the group
// size.

shared uvec4 gs_red[GS_LOCAL_SIZE];

#ifdef GS_SUBGROUP_REDUCE
shared uvec4 gs_red_total;

// Every lane ends with the sum of the subgroup (its size is a power of two;
// all lanes take part: callers are in uniform control flow).
uvec4 bb4_subgroup_sum(uvec4 v)
{
    for (uint m = 1u; m < gl_SubgroupSize; m <<= 1)
        v = bb4_add(v, subgroupShuffleXor(v, m));
    return v;
}

uvec4 gs_group_sum(uvec4 v)
{
    v = bb4_subgroup_sum(v);
    if (subgroupElect())
        gs_red[gl_SubgroupID] = v;
    barrier();
    if (gl_SubgroupID == 0u) {
        // the subgroup size is whatever the driver chose for this kernel, so
        // any number of subgroup partials is folded in
        uvec4 r = uvec4(0u);
        for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize)
            r = bb4_add(r, gs_red[k]);
        r = bb4_subgroup_sum(r);
        if (subgroupElect())
            gs_red_total = r;
    }
    barrier();
    // a following call writes gs_red_total only after its first barrier,
    // which every invocation reaches after reading this one
    return gs_red_total;
}
#else
uvec4 gs_group_sum(uvec4 v)
{
    uint l = gl_LocalInvocationID.x;
    gs_red[l] = v;
    barrier();
    for (uint h = uint(GS_LOCAL_SIZE) / 2u; h > 0u; h >>= 1) {
        if (l < h)
            gs_red[l] = bb4_add(gs_red[l], gs_red[l + h]);
        barrier();
    }
    uvec4 r = gs_red[0];
    barrier();
    return r;
}
#endif
