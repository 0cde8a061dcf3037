/* SPDX-License-Identifier: MIT */
/* Which sampling-plan kernels a SIMD level runs. Compiled for the baseline
 * instruction set: it runs on every CPU, before any kernel is chosen. */
#include "clip/compressed.h"
#include "clip/plan.h"

const sinew__plan_kernels *sinew__plan_kernels_for(int level)
{
#if defined(SINEW_X86_SIMD)
    /* the AVX2 kernels serve the AVX-512 level too */
    static const sinew__plan_kernels avx2 = {sinew__blocks_run_avx2, sinew__packed_run_avx2,
                                             sinew__timeline_vectors_avx2, sinew__rotations_avx2};
    if (level >= SINEW_SIMD_AVX2) return &avx2;
#endif
    (void)level;
    return NULL;
}

sinew__animated_kernel sinew__compressed_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX2) return sinew__compressed_animated_avx2;
#endif
    (void)level;
    return NULL;
}
