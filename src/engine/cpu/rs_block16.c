/* 16-row Reed-Solomon message blocks in vectors (rs_block16.h). */
#include "engine/cpu/rs_block16.h"

#include "engine/cpu/kernels.h"

#define GS_X16_TEMPLATE "engine/cpu/rs_block16_x16.inc"
#include "field/x16_instantiate.h"

/* Layer l (half-size h = 8 >> l) of the inverse DFT as decimation in
 * frequency: a lane j with bit h set holds (a - b) w^-((j mod h) 16/2h)
 * after the layer, the other lanes a + b (twiddle unused, set to 1). */
void gs_rs_block16_init(gs_rs_block16 *p)
{
    bb_t wi = bb_inv(bb_two_adic_generator(4)), pw[8];
    pw[0] = bb_one();
    for (int k = 1; k < 8; k++)
        pw[k] = bb_mul(pw[k - 1], wi);
    for (int l = 0; l < 4; l++) {
        int h = 8 >> l;
        for (int j = 0; j < 16; j++)
            p->lanes[16 * l + j] = (j & h) ? pw[(j & (h - 1)) * (16 / (2 * h))] : bb_one();
    }
    p->scale = bb_inv(bb_from_u32(16));
}

int gs_rs_block16_run(const gs_rs_block16 *p, const gs_cpu_kernels *k, bb_t *x, size_t nblocks)
{
    if (!k || !k->rs_blocks)
        return 0;
    k->rs_blocks(p, x, nblocks);
    return 1;
}
