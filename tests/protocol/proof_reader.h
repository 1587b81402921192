/* OpenVM's proofs in the tests: a cursor over the proof bytes for the tests
 * that replay parts of a proof (little-endian words and extension elements,
 * in canonical form; a read past the end fails the test with the offset),
 * and a whole proof of tests/data/openvm decoded. */
#ifndef TEST_PROOF_READER_H
#define TEST_PROOF_READER_H

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>

#include "field/ext4.h"
#include "common/proof.h"
#include "../util/test_files.h"

typedef struct rd {
    const uint8_t *b;
    size_t n, i;
} rd;

static inline uint32_t u32at(rd *r)
{
    cr_assert(r->i + 4 <= r->n, "proof truncated at %zu", r->i);
    uint32_t v = (uint32_t)r->b[r->i] | (uint32_t)r->b[r->i + 1] << 8 | (uint32_t)r->b[r->i + 2] << 16 |
                 (uint32_t)r->b[r->i + 3] << 24;
    r->i += 4;
    return v;
}

static inline bb4_t efat(rd *r)
{
    uint32_t c[4];
    for (int k = 0; k < 4; k++)
        c[k] = u32at(r);
    return bb4_from_canonical(c);
}

/* tests/data/openvm/<spec>.proof.bin, decoded into p. */
static inline void load_proof(const char *spec, gs_proof *p)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/openvm/%s.proof.bin", GLSTARK_TEST_DATA, spec);
    size_t len;
    uint8_t *bytes = tf_read_path(path, &len);
    gs_error err;
    cr_assert_eq(gs_proof_decode(bytes, len, p, &err), GLSTARK_OK, "%s", err.msg);
    free(bytes);
}

#endif
