/* The host transpose of a row-major block of words into columns, written
 * once for the CPU engine's gs_buf_transpose and the context reader's
 * column-major copies. */
#ifndef GS_UTIL_TRANSPOSE_H
#define GS_UTIL_TRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

/* Columns [c_begin, c_end) of a rows x cols block (src row r at
 * src + r * cols): word (r, c) goes to dst[c * dst_stride + r]. Tiles of
 * 32 rows x 64 columns keep the rows read and the columns written in
 * cache. */
static inline void gs_transpose_columns(uint32_t *dst, size_t dst_stride, const uint32_t *src, size_t rows,
                                        size_t cols, size_t c_begin, size_t c_end)
{
    enum { TR = 32, TC = 64 };
    for (size_t r0 = 0; r0 < rows; r0 += TR) {
        const size_t r1 = r0 + TR < rows ? r0 + TR : rows;
        for (size_t c0 = c_begin; c0 < c_end; c0 += TC) {
            const size_t c1 = c0 + TC < c_end ? c0 + TC : c_end;
            for (size_t r = r0; r < r1; r++)
                for (size_t c = c0; c < c1; c++)
                    dst[c * dst_stride + r] = src[r * cols + c];
        }
    }
}

#endif
