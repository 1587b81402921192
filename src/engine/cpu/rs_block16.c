/* 16-row Reed-Solomon message blocks in vectors (rs_block16.h). */
#include "engine/cpu/rs_block16.h"

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

int gs_rs_block16_run(const gs_rs_block16 *p, gs_simd_isa isa, bb_t *x, size_t nblocks)
{
    if (isa == GS_SIMD_NONE || !gs_simd_available(isa))
        return 0;
#ifdef GS_HAVE_X86_SIMD
    if (isa == GS_SIMD_AVX512)
        rs_blocks_avx512(p, x, nblocks);
    else
        rs_blocks_avx2(p, x, nblocks);
    return 1;
#elif defined(GS_HAVE_NEON_SIMD)
    rs_blocks_neon(p, x, nblocks);
    return 1;
#else
    (void)p, (void)x, (void)nblocks;
    return 0;
#endif
}
