/* Challenge and round-sum locations (engine/challenge.h). */
#include "engine/challenge.h"

#include <string.h>

#include "engine/engine.h"

glstark_status gs_chal_check(gs_engine *eng, gs_chal c, const char *op)
{
    if (!c.buf)
        return GLSTARK_OK;
    if (!gs_buf_holds(c.buf, eng, c.index, 1, sizeof(bb4_t)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: the challenge at element %zu is not inside a %zu-byte buffer of this engine", op,
                            c.index, c.buf->size);
    return GLSTARK_OK;
}

glstark_status gs_sums_dst_check(gs_engine *eng, gs_sums_dst d, unsigned n, const char *op)
{
    if (!d.buf)
        return d.out ? GLSTARK_OK
                     : gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT, "%s: no place for the round sums", op);
    if (!gs_buf_holds(d.buf, eng, d.index, n, sizeof(bb4_t)))
        return gs_error_set(&eng->err, GLSTARK_ERR_INVALID_ARGUMENT,
                            "%s: the round's %u sums from element %zu are not inside a %zu-byte buffer of this engine",
                            op, n, d.index, d.buf->size);
    return GLSTARK_OK;
}

bb4_t gs_chal_host_value(gs_chal c)
{
    if (!c.buf)
        return c.value;
    bb4_t v;
    memcpy(&v, (const char *)c.buf->host + c.index * sizeof v, sizeof v);
    return v;
}

glstark_status gs_sums_store(gs_sums_dst d, const bb4_t *v, unsigned n)
{
    if (d.buf)
        return gs_buf_write(d.buf, d.index * sizeof *v, v, n * sizeof *v);
    memcpy(d.out, v, n * sizeof *v);
    return GLSTARK_OK;
}
