/* Poseidon2-16 over BabyBear (spec: commitment-layer.md section 3).
 *
 * permute(s): ME; 4 x {add RC, x^7 on all cells, ME};
 *             13 x {add RC to cell 0, x^7 on cell 0, MI};
 *             4 x {add RC, x^7 on all cells, ME}.
 * ME = Plonky3's MDSMat4 on each group of 4 cells, then add the column sums
 * of the 4 groups. MI = all-ones matrix + diag(V) in true field values. */
#include "hash/poseidon2.h"

#include <string.h>

#include "hash/poseidon2_constants.h"

/* x * 2^-k for 1 <= k <= 31, in Montgomery form: the Montgomery reduction
 * of x * 2^(32-k) divides by 2^32, leaving x * 2^-k (x < 2^31, so the
 * shifted value stays below 2^32 * p as the reduction requires). */
static inline bb_t div_2exp(bb_t x, unsigned k) { return bb_monty_reduce((uint64_t)x << (32 - k)); }

static inline bb_t sbox(bb_t x)
{
    bb_t x2 = bb_mul(x, x);
    bb_t x3 = bb_mul(x2, x);
    bb_t x4 = bb_mul(x2, x2);
    return bb_mul(x3, x4);
}

/* M4(x) = (2x0+3x1+x2+x3, x0+2x1+3x2+x3, x0+x1+2x2+3x3, 3x0+x1+x2+2x3);
 * with s = x0+x1+x2+x3 each output is s + x_i + 2 x_(i+1). */
static inline void mat4(bb_t *x)
{
    bb_t s = bb_add(bb_add(x[0], x[1]), bb_add(x[2], x[3]));
    bb_t y0 = bb_add(bb_add(s, x[0]), bb_double(x[1]));
    bb_t y1 = bb_add(bb_add(s, x[1]), bb_double(x[2]));
    bb_t y2 = bb_add(bb_add(s, x[2]), bb_double(x[3]));
    bb_t y3 = bb_add(bb_add(s, x[3]), bb_double(x[0]));
    x[0] = y0;
    x[1] = y1;
    x[2] = y2;
    x[3] = y3;
}

static inline void external_layer(bb_t st[16])
{
    for (int b = 0; b < 4; b++)
        mat4(st + 4 * b);
    for (int c = 0; c < 4; c++) {
        bb_t t = bb_add(bb_add(st[c], st[4 + c]), bb_add(st[8 + c], st[12 + c]));
        st[c] = bb_add(st[c], t);
        st[4 + c] = bb_add(st[4 + c], t);
        st[8 + c] = bb_add(st[8 + c], t);
        st[12 + c] = bb_add(st[12 + c], t);
    }
}

/* y_i = S + V_i s_i with
 * V = [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/2^8, 1/4, 1/8, 1/2^27, -1/2^8, -1/16, -1/2^27]. */
static inline void internal_layer(bb_t st[16])
{
    bb_t s = st[0];
    for (int i = 1; i < 16; i++)
        s = bb_add(s, st[i]);
    bb_t d[16];
    d[0] = bb_neg(bb_double(st[0]));
    d[1] = st[1];
    d[2] = bb_double(st[2]);
    d[3] = bb_halve(st[3]);
    d[4] = bb_add(bb_double(st[4]), st[4]);
    d[5] = bb_double(bb_double(st[5]));
    d[6] = bb_neg(bb_halve(st[6]));
    d[7] = bb_neg(bb_add(bb_double(st[7]), st[7]));
    d[8] = bb_neg(bb_double(bb_double(st[8])));
    d[9] = div_2exp(st[9], 8);
    d[10] = div_2exp(st[10], 2);
    d[11] = div_2exp(st[11], 3);
    d[12] = div_2exp(st[12], 27);
    d[13] = bb_neg(div_2exp(st[13], 8));
    d[14] = bb_neg(div_2exp(st[14], 4));
    d[15] = bb_neg(div_2exp(st[15], 27));
    for (int i = 0; i < 16; i++)
        st[i] = bb_add(s, d[i]);
}

void gs_poseidon2_permute(bb_t st[GS_P2_WIDTH])
{
    external_layer(st);
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++)
            st[i] = sbox(bb_add(st[i], gs_p2_rc_initial[r][i]));
        external_layer(st);
    }
    for (int r = 0; r < 13; r++) {
        st[0] = sbox(bb_add(st[0], gs_p2_rc_internal[r]));
        internal_layer(st);
    }
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 16; i++)
            st[i] = sbox(bb_add(st[i], gs_p2_rc_terminal[r][i]));
        external_layer(st);
    }
}

void gs_poseidon2_permute_batch(bb_t st[GS_P2_WIDTH][GS_P2_LANES])
{
    /* Straightforward for now: transpose each state out and back. */
    for (int l = 0; l < GS_P2_LANES; l++) {
        bb_t s[16];
        for (int i = 0; i < 16; i++)
            s[i] = st[i][l];
        gs_poseidon2_permute(s);
        for (int i = 0; i < 16; i++)
            st[i][l] = s[i];
    }
}

void gs_poseidon2_hash(const bb_t *in, size_t n, bb_t out[GS_DIGEST_LEN])
{
    bb_t st[GS_P2_WIDTH] = {0};
    for (size_t off = 0; off < n; off += GS_P2_RATE) {
        size_t m = n - off < GS_P2_RATE ? n - off : GS_P2_RATE;
        memcpy(st, in + off, m * sizeof(bb_t));
        gs_poseidon2_permute(st);
    }
    memcpy(out, st, GS_DIGEST_LEN * sizeof(bb_t));
}

void gs_poseidon2_compress(const bb_t left[GS_DIGEST_LEN], const bb_t right[GS_DIGEST_LEN],
                           bb_t out[GS_DIGEST_LEN])
{
    bb_t st[GS_P2_WIDTH];
    memcpy(st, left, GS_DIGEST_LEN * sizeof(bb_t));
    memcpy(st + GS_DIGEST_LEN, right, GS_DIGEST_LEN * sizeof(bb_t));
    gs_poseidon2_permute(st);
    memcpy(out, st, GS_DIGEST_LEN * sizeof(bb_t));
}
