/* Seeded Keccak inputs as OpenVM's keccakf example draws them. */
#include "glstark/airs.h"
#include "util/stdrng.h"

void glstark_keccak_inputs_from_seed(uint64_t seed, size_t num_permutations, uint64_t (*inputs)[25])
{
    gs_stdrng rng;
    gs_stdrng_seed_from_u64(&rng, seed);
    for (size_t p = 0; p < num_permutations; p++)
        for (int i = 0; i < 25; i++)
            inputs[p][i] = gs_stdrng_next_u64(&rng);
}
