/* Deleted buffers' memory handed back before a new buffer takes its own,
 * where the GPU's memory is the host's (devices that are not desktop-class,
 * software renderers included).
 *
 * glDeleteBuffers alone does not free the memory at once. Mesa's drivers
 * hold the buffers bound for the last dispatch until a later dispatch binds
 * those slots again, and a kernel that binds fewer slots than the one before
 * leaves the rest held. On llvmpipe the board profile's round 0 freed 64 MiB
 * that stayed in the process until after the multilinear rounds' 89 MiB
 * table had been made, and the same happened at every phase boundary
 * (docs/performance.md, "deleted buffers let go"). So before a fresh
 * allocation that follows deletions, glsl/unbind.comp binds a 16-byte buffer
 * at every slot a kernel here uses (0-3), which makes the driver drop the
 * deleted ones.
 *
 * On a software renderer the buffers are the C heap's. glibc keeps freed
 * blocks below its mmap threshold, which rises up to 32 MiB as large blocks
 * are freed, and returns only the heap's top; malloc_trim hands the free
 * pages back. */
#include "engine/gles/gles_engine.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Deleted bytes below this are not worth a dispatch. */
#define LET_GO_MIN_BYTES ((size_t)1 << 20)
#define UNBIND_SLOTS 4u
#define UNBIND_BUFFER_BYTES 16

void gs_gles_buffer_deleted(gs_engine *eng, size_t bytes)
{
    gs_gles_state *s = eng->impl;
    s->deleted_bytes += bytes;
}

/* The program and bindings a caller may have set before making a buffer. */
typedef struct gl_binding_state {
    GLint program;
    GLint name[UNBIND_SLOTS];
    GLint64 start[UNBIND_SLOTS], size[UNBIND_SLOTS];
} gl_binding_state;

static void save_bindings(gl_binding_state *b)
{
    glGetIntegerv(GL_CURRENT_PROGRAM, &b->program);
    for (GLuint i = 0; i < UNBIND_SLOTS; i++) {
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &b->name[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &b->start[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &b->size[i]);
    }
}

static void restore_bindings(const gl_binding_state *b)
{
    for (GLuint i = 0; i < UNBIND_SLOTS; i++) {
        if (b->size[i] > 0)
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, (GLuint)b->name[i], (GLintptr)b->start[i],
                              (GLsizeiptr)b->size[i]);
        else
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, (GLuint)b->name[i]);
    }
    glUseProgram((GLuint)b->program);
}

glstark_status gs_gles_let_go_deleted(gs_engine *eng)
{
    gs_gles_state *s = eng->impl;
    gs_gl_device *dev = s->dev;
    if (!s->let_go_deleted || s->deleted_bytes < LET_GO_MIN_BYTES)
        return GLSTARK_OK;
    gs_gl_program *prog;
    glstark_status st = gs_gl_program_get(dev, "unbind.comp", NULL, &prog, &eng->err);
    if (st) {
        gs_error_prefix(&eng->err, "letting deleted buffers go");
        return st;
    }
    if (!s->unbind_buffer) {
        glGenBuffers(1, &s->unbind_buffer);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->unbind_buffer);
        glBufferData(GL_SHADER_STORAGE_BUFFER, UNBIND_BUFFER_BYTES, NULL, GL_DYNAMIC_COPY);
    }
    gl_binding_state saved;
    save_bindings(&saved);
    for (GLuint i = 0; i < UNBIND_SLOTS; i++)
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, s->unbind_buffer);
    glUseProgram(gs_gl_program_name(prog));
    glDispatchCompute(1, 1, 1);
    restore_bindings(&saved);
    st = gs_gl_check(dev, &eng->err, "letting deleted buffers go (glsl/unbind.comp)");
    if (st)
        return st;
    s->unbind_dispatches++;
    s->deleted_bytes = 0;
#if defined(__GLIBC__)
    if (dev->is_software)
        malloc_trim(0);
#endif
    return GLSTARK_OK;
}

void gs_gles_buffer_release_free(gs_engine *eng)
{
    gs_gles_state *s = eng->impl;
    if (s->unbind_buffer)
        glDeleteBuffers(1, &s->unbind_buffer);
    s->unbind_buffer = 0;
}
