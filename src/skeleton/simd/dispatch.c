/* SPDX-License-Identifier: MIT */
/* Which local-to-model kernel a SIMD level runs. Compiled for the baseline
 * instruction set: it runs on every CPU, before any kernel is chosen. */
#include "skeleton/skeleton_internal.h"

sinew__local_to_model_kernel sinew__local_to_model_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX512) return sinew__local_to_model_avx512;
    if (level >= SINEW_SIMD_AVX2) return sinew__local_to_model_avx2;
#endif
    (void)level;
    return NULL;
}

sinew__local_to_model_pose_kernel sinew__local_to_model_pose_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX512) return sinew__local_to_model_pose_avx512;
    if (level >= SINEW_SIMD_AVX2) return sinew__local_to_model_pose_avx2;
#endif
    (void)level;
    return NULL;
}
