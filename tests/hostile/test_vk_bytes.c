/* Hostile verifying-key bytes (u32 version || u64 length || postcard):
 *  - every truncation of every shared key is MALFORMED (keccak's 283 KB key:
 *    the first and last 4 KiB and a prime stride between);
 *  - exhaustive single-byte mutations (all 255 other values at every byte)
 *    of the three small keys: MALFORMED, or a key whose re-encoding is a
 *    fixed point of decode -> encode and whose pre-hash can be computed;
 *  - huge varint lengths spliced in at every byte: MALFORMED, no allocation
 *    larger than the input. */
#include "hostile_util.h"

#include "air/keygen.h"

static size_t g_ok, g_bad;

static glstark_status decode_checked(const uint8_t *b, size_t n, const char *what, size_t at)
{
    gs_multi_vk vk;
    gs_error err;
    gs_error_clear(&err);
    glstark_status st = gs_vk_from_prevk_bytes(b, n, &vk, &err);
    if (st != GLSTARK_OK) {
        cr_assert_eq(st, GLSTARK_ERR_MALFORMED, "%s @%zu: %s (%s)", what, at, glstark_status_name(st), err.msg);
        cr_assert(err.msg[0] != 0, "%s @%zu: no message", what, at);
        g_bad++;
        return st;
    }
    uint8_t *e1 = NULL, *e2 = NULL;
    size_t l1 = 0, l2 = 0;
    cr_assert_eq(gs_vk_prevk_bytes(&vk, &e1, &l1, &err), GLSTARK_OK, "%s @%zu: %s", what, at, err.msg);
    cr_assert_eq(gs_vk_compute_pre_hash(&vk, &err), GLSTARK_OK, "%s @%zu: %s", what, at, err.msg);
    gs_multi_vk again;
    cr_assert_eq(gs_vk_from_prevk_bytes(e1, l1, &again, &err), GLSTARK_OK, "%s @%zu: re-encoding does not decode: %s",
                 what, at, err.msg);
    cr_assert_eq(gs_vk_prevk_bytes(&again, &e2, &l2, &err), GLSTARK_OK);
    cr_assert(l1 == l2 && memcmp(e1, e2, l1) == 0, "%s @%zu: encode(decode(x)) is not a fixed point", what, at);
    free(e1);
    free(e2);
    gs_multi_vk_free(&again);
    gs_multi_vk_free(&vk);
    g_ok++;
    return st;
}

static const char *const KEYS[] = {"fib-small.prevk.bin", "interactions-small.prevk.bin", "fib-app18.prevk.bin",
                                   "keccak-app21.prevk.bin"};

Test(hostile_vk, every_truncation)
{
    for (size_t k = 0; k < 4; k++) {
        size_t len;
        uint8_t *b = hu_read(KEYS[k], &len);
        size_t tried = 0;
        for (size_t cut = 0; cut < len;) {
            uint8_t *c = hu_copy(b, cut);
            cr_assert_eq(decode_checked(c, cut, KEYS[k], cut), GLSTARK_ERR_MALFORMED, "%s truncated to %zu accepted",
                         KEYS[k], cut);
            /* the postcard part alone, with a consistent header length */
            if (cut >= 12) {
                gs_multi_vk vk;
                gs_error err;
                cr_assert_eq(gs_vk_from_postcard(c + 12, cut - 12, &vk, &err), GLSTARK_ERR_MALFORMED,
                             "%s postcard truncated to %zu accepted", KEYS[k], cut - 12);
            }
            free(c);
            tried++;
            cut += (cut < 4096 || cut + 4096 >= len) ? 1 : 263;
        }
        cr_log_info("%s: %zu of %zu truncations MALFORMED", KEYS[k], tried, len);
        free(b);
    }
}

Test(hostile_vk, exhaustive_single_byte_mutations)
{
    for (size_t k = 0; k < 3; k++) {
        size_t len;
        uint8_t *b = hu_read(KEYS[k], &len);
        uint8_t *c = hu_copy(b, len);
        g_ok = g_bad = 0;
        for (size_t at = 0; at < len; at++) {
            for (unsigned v = 0; v < 256; v++) {
                if (v == b[at])
                    continue;
                c[at] = (uint8_t)v;
                decode_checked(c, len, KEYS[k], at);
            }
            c[at] = b[at];
        }
        cr_log_info("%s: %zu single-byte mutations: %zu decoded (re-encoding a fixed point), %zu MALFORMED", KEYS[k],
                    g_ok + g_bad, g_ok, g_bad);
        cr_assert_eq(g_ok + g_bad, len * 255);
        free(c);
        free(b);
    }
}

/* A 10-byte varint of 2^63 - 1 (and of 2^32) spliced in at every byte of the
 * postcard part, the header length adjusted: a length field there must be
 * refused before anything is allocated for it. */
Test(hostile_vk, huge_varints_spliced_in)
{
    static const uint8_t huge[2][10] = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0},
                                        {0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0, 0}};
    static const size_t hl[2] = {9, 5};
    for (size_t k = 0; k < 3; k++) {
        size_t len;
        uint8_t *b = hu_read(KEYS[k], &len);
        g_ok = g_bad = 0;
        for (size_t h = 0; h < 2; h++) {
            for (size_t at = 12; at < len; at++) {
                size_t n = len + hl[h];
                uint8_t *c = malloc(n);
                memcpy(c, b, at);
                memcpy(c + at, huge[h], hl[h]);
                memcpy(c + at + hl[h], b + at, len - at);
                uint64_t pl = n - 12;
                for (int i = 0; i < 8; i++)
                    c[4 + i] = (uint8_t)(pl >> (8 * i));
                decode_checked(c, n, KEYS[k], at);
                free(c);
            }
        }
        cr_log_info("%s: huge varints at every offset: %zu decoded, %zu MALFORMED", KEYS[k], g_ok, g_bad);
        cr_assert_gt(g_bad, 0);
        free(b);
    }
}
