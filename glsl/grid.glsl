// The logical 1-D id of this invocation under gs_gl_dispatch_1d (src/gles/
// dispatch.c): large grids are folded into 2-D rows of gs_row_pitch
// invocations, and grids beyond the group-count limit in both dimensions are
// issued as several dispatches starting at gs_base. Kernels return early
// when gs_linear_id() >= gs_count (the logical count).
uniform uint gs_row_pitch;
uniform uint gs_count;
uniform uint gs_base;

uint gs_linear_id() { return gs_base + gl_GlobalInvocationID.y * gs_row_pitch + gl_GlobalInvocationID.x; }
