/* Range binding, 1-D dispatch folded into 2-D grids, barriers and syncs. */
#include "gles/gl_device.h"

#include <inttypes.h>

glstark_status gs_gl_bind_range(gs_gl_device *dev, GLuint binding, GLuint name, uint64_t offset, uint64_t size,
                                gs_error *err)
{
    const gs_gl_caps *c = &dev->caps;
    if (offset % c->binding_offset_align)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                            "bind range: offset %" PRIu64 " is not a multiple of the SSBO offset alignment %u",
                            offset, c->binding_offset_align);
    if (size == 0 || size > c->max_binding_bytes)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                            "bind range: %" PRIu64 " bytes exceeds the per-binding limit of %" PRIu64
                            " bytes (or is 0); the caller must split the range",
                            size, c->max_binding_bytes);
    if (binding >= c->max_storage_blocks)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "bind range: binding %u is beyond the %u storage blocks usable",
                            binding, c->max_storage_blocks);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, name, (GLintptr)offset, (GLsizeiptr)size);
    return GLSTARK_OK;
}

uint64_t gs_gl_chunk_elems(const gs_gl_device *dev, uint32_t elem_bytes)
{
    /* Element sizes and alignments are powers of two here, so a chunk whose
     * byte size is a multiple of the larger of the two keeps both. */
    uint64_t unit = dev->caps.binding_offset_align > elem_bytes ? dev->caps.binding_offset_align : elem_bytes;
    uint64_t bytes = dev->caps.max_binding_bytes - dev->caps.max_binding_bytes % unit;
    return bytes / elem_bytes;
}

static void grid_for_local(const gs_gl_caps *caps, uint64_t count, uint64_t local, uint32_t *gx, uint32_t *gy)
{
    uint64_t groups = (count + local - 1) / local;
    uint64_t maxx = caps->max_group_count[0];
    if (groups <= maxx) {
        *gx = (uint32_t)groups;
        *gy = 1;
        return;
    }
    uint64_t y = (groups + maxx - 1) / maxx;
    uint64_t x = (groups + y - 1) / y; /* balance rows so little is wasted */
    *gx = (uint32_t)x;
    *gy = (uint32_t)y;
}

void gs_gl_grid_for(const gs_gl_caps *caps, uint64_t count, uint32_t *gx, uint32_t *gy)
{
    grid_for_local(caps, count, caps->local_size, gx, gy);
}

void gs_gl_barrier_for(gs_gl_device *dev, GLbitfield bits)
{
    if (dev->pending_barrier & bits) {
        glMemoryBarrier(dev->pending_barrier & bits);
        dev->pending_barrier &= ~bits;
    }
}

glstark_status gs_gl_dispatch_1d(gs_gl_device *dev, const gs_gl_program *prog, uint64_t count, gs_error *err)
{
    return gs_gl_dispatch_1d_local(dev, prog, count, dev->caps.local_size, err);
}

glstark_status gs_gl_dispatch_1d_local(gs_gl_device *dev, const gs_gl_program *prog, uint64_t count, uint32_t local,
                                       gs_error *err)
{
    return gs_gl_dispatch_1d_weighted(dev, prog, count, local, 1, err);
}

glstark_status gs_gl_dispatch_1d_weighted(gs_gl_device *dev, const gs_gl_program *prog, uint64_t count, uint32_t local,
                                          uint64_t weight, gs_error *err)
{
    if (local == 0 || (local & (local - 1)) || local > dev->caps.local_size)
        return gs_error_set(err, GLSTARK_ERR_INTERNAL, "dispatch: local size %u is not a power of two <= %u", local,
                            dev->caps.local_size);
    if (count == 0)
        return GLSTARK_OK;
    if (count > UINT32_MAX)
        return gs_error_set(err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "dispatch: %" PRIu64 " invocations exceed the 32-bit ids kernels use; split the work",
                            count);
    if (weight == 0)
        weight = 1;
    const gs_gl_caps *c = &dev->caps;
    /* Most one dispatch can cover: a full maxx x maxy grid. */
    uint64_t cap = (uint64_t)c->max_group_count[0] * c->max_group_count[1] * local;
    const uint64_t budget = dev->dispatch_budget_ns;
    gs_dispatch_rate *rate = gs_gl_program_rate(prog);
    rate->parallel = c->parallel_groups;
    rate->local = local;
    GLuint p = gs_gl_program_name(prog);
    if (dev->prof)
        gs_gl_profile_begin(dev);
    uint64_t dispatches = 0, longest = 0, longest_cpu = 0, first = 0;
    uint64_t call_cap = cap; /* this call's own pace, once a probe found it slower */
    glUseProgram(p);
    GLint loc_pitch = glGetUniformLocation(p, "gs_row_pitch");
    GLint loc_count = glGetUniformLocation(p, "gs_count");
    GLint loc_base = glGetUniformLocation(p, "gs_base");
    for (uint64_t base = 0, part; base < count; base += part) {
        /* whole work groups: base stays a multiple of local */
        uint64_t most = budget ? gs_dispatch_next(rate, budget, weight, local, cap) : cap;
        if (most > call_cap)
            most = call_cap;
        /* a call of several chunks starts with a short, timed one: its cost
         * per unit may differ from the calls the rate came from */
        const int probe = base == 0 && gs_dispatch_should_probe(rate, budget, count, most);
        if (probe)
            most = gs_dispatch_probe_chunk(most, local);
        part = count - base < most ? count - base : most;
        if (base > 0 && loc_base < 0)
            return gs_error_set(err, GLSTARK_ERR_INTERNAL,
                                "dispatch: %" PRIu64 " invocations need several dispatches but the kernel does not "
                                "use gs_base (include grid.glsl and use gs_linear_id())",
                                count);
        if (part < count - base && count - base <= cap)
            dev->budget_splits++;
        uint32_t gx, gy;
        grid_for_local(c, part, local, &gx, &gy);
        /* A folded grid can hold more groups than the chunk has (gx x gy
         * rounds up): kernels skip ids >= gs_count, so gs_count is this
         * chunk's end, not the call's, or those ids would run again in the
         * next chunk (twice over for in-place and accumulating kernels). */
        if (loc_count >= 0)
            glUniform1ui(loc_count, (GLuint)(base + part));
        if (loc_pitch >= 0)
            glUniform1ui(loc_pitch, gx * local);
        if (loc_base >= 0)
            glUniform1ui(loc_base, (GLuint)base);
        /* Earlier dispatches' SSBO writes must be visible to this one. */
        gs_gl_barrier_for(dev, GL_SHADER_STORAGE_BARRIER_BIT);
        /* Calibration: time this chunk alone (the glFinish before it waits
         * for earlier work; neither is a proof's host sync). The profile
         * times every dispatch the same way for its longest one. */
        /* the rest of the call, and the growth allowed more: timed too
         * while calibrating, since it ends the calibration (a call this
         * short says the program's calls are short) */
        const int call_end = base + part == count && part < most;
        int calib = gs_dispatch_should_time(rate, budget, part) ||
                    (call_end && budget && !rate->calibrated && rate->dispatches > 0);
        /* the first chunks planned at the full budget: checked once */
        int check = !calib && !probe && gs_dispatch_should_check(rate, budget, part, weight);
        /* and one in GS_DRIFT_CHECK_EVERY after that, to follow a drift */
        int drift = !calib && !check && !probe && gs_dispatch_should_check_drift(rate, budget);
        const int prof_times = gs_gl_profile_finishes(dev);
        int timed = calib || check || drift || probe || prof_times || (budget && rate->dispatches == 0);
        uint64_t t0 = 0, c0 = 0;
        if (timed) {
            glFinish();
            t0 = gs_monotonic_ns();
            c0 = prof_times ? gs_process_cpu_ns() : 0;
        }
        glDispatchCompute(gx, gy, 1);
        dev->pending_barrier |= GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT;
        dispatches++;
        int warmup = rate->dispatches == 0;
        gs_dispatch_count(rate);
        if (timed) {
            glFinish();
            uint64_t dt = gs_monotonic_ns() - t0;
            uint64_t dc = prof_times ? gs_process_cpu_ns() - c0 : 0;
            /* the program's first dispatch on the device stands apart: on
             * llvmpipe it includes the driver's shader compile */
            if (warmup)
                first = dt;
            else if (dt > longest)
                longest = dt;
            if (!warmup && dc > longest_cpu)
                longest_cpu = dc;
            if (budget && warmup)
                dev->calib_syncs += 2;
            if (calib) {
                dev->calib_syncs += 2;
                dev->calib_chunks++;
                gs_dispatch_rate_record(rate, part, weight, dt, budget, call_end);
            }
            if (check) {
                dev->calib_syncs += 2;
                dev->calib_chunks++;
                gs_dispatch_rate_check(rate, part, weight, dt, budget);
            }
            if (drift) {
                dev->calib_syncs += 2;
                dev->calib_chunks++;
                gs_dispatch_rate_drift(rate, part, weight, dt, budget);
            }
            if (probe) {
                dev->calib_syncs += 2;
                dev->calib_chunks++;
                call_cap = gs_dispatch_probe_cap(rate, budget, part, weight, dt, local, cap);
            }
        }
    }
    if (dev->prof) {
        char label[96];
        gs_gl_program_label(prog, label, sizeof label);
        gs_gl_profile_end_split(dev, label, count, dispatches, longest, longest_cpu, first);
    }
    return gs_gl_check(dev, err, "glDispatchCompute");
}

glstark_status gs_gl_wait_sync(gs_gl_device *dev, GLsync f, const char *who, gs_error *err)
{
    for (;;) {
        GLenum r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000ull);
        if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED)
            return GLSTARK_OK;
        if (r == GL_WAIT_FAILED) {
            glstark_status st = gs_gl_check(dev, err, who);
            return st ? st : gs_error_set(err, GLSTARK_ERR_GPU, "%s: glClientWaitSync failed", who);
        }
        glstark_status st = gs_gl_check(dev, err, who); /* timed out: still alive? */
        if (st)
            return st;
    }
}

glstark_status gs_gl_finish(gs_gl_device *dev, gs_error *err)
{
    glFinish();
    dev->host_syncs++;
    return gs_gl_check(dev, err, "glFinish");
}

void *gs_gl_map_persistent(gs_gl_device *dev, GLenum target, size_t size, GLbitfield access, GLuint *name)
{
    const GLbitfield flags = access | GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_COHERENT_BIT_EXT;
    void *map = NULL;
    glGenBuffers(1, name);
    glBindBuffer(target, *name);
    dev->BufferStorage(target, (GLsizeiptr)size, NULL, flags | GL_CLIENT_STORAGE_BIT_EXT);
    if (glGetError() == GL_NO_ERROR)
        map = glMapBufferRange(target, 0, (GLsizeiptr)size, flags);
    if (!map) {
        while (glGetError() != GL_NO_ERROR) {
        }
        glDeleteBuffers(1, name);
        *name = 0;
    }
    return map;
}

void gs_gl_unmap_delete(GLenum target, GLuint name, const void *map)
{
    if (!name)
        return;
    if (map) {
        glBindBuffer(target, name);
        glUnmapBuffer(target);
    }
    glDeleteBuffers(1, &name);
}
