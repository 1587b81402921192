/* Reading a whole file into memory, with a size limit: the body of the public
 * glstark_read_file (which passes GLSTARK_READ_FILE_MAX), and of tests that
 * check the limit without allocating a gigabyte. */
#ifndef GS_UTIL_READ_FILE_H
#define GS_UTIL_READ_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "glstark/status.h"

/* *bytes (malloc'd) and *len on success; NULL and 0 on failure, with the
 * reason in msg (may be NULL). GLSTARK_ERR_IO when the file cannot be opened
 * or read, or holds more than max bytes (found before more than max + 1
 * bytes are held); GLSTARK_ERR_OUT_OF_MEMORY. */
glstark_status gs_read_file(const char *path, size_t max, uint8_t **bytes, size_t *len, char *msg, size_t msg_size);

#endif
