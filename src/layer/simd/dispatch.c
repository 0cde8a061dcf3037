/* SPDX-License-Identifier: MIT */
/* Which blend, additive and spring kernels a SIMD level runs. Compiled for
 * the baseline instruction set: it runs on every CPU, before any kernel is
 * chosen. */
#include "layer/blend_internal.h"

sinew__blend_kernel sinew__blend_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX2) return sinew__blend_avx2;
#endif
    (void)level;
    return NULL;
}

sinew__blend_pose_kernel sinew__blend_pose_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX2) return sinew__blend_pose_avx2;
#endif
    (void)level;
    return NULL;
}

sinew__additive_pose_kernel sinew__additive_pose_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX2) return sinew__additive_pose_avx2;
#endif
    (void)level;
    return NULL;
}

sinew__additive_kernel sinew__additive_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX2) return sinew__additive_avx2;
#endif
    (void)level;
    return NULL;
}

sinew__springs_kernel sinew__springs_kernel_for(int level)
{
#if defined(SINEW_X86_SIMD)
    if (level >= SINEW_SIMD_AVX512) return sinew__springs_avx512;
    if (level >= SINEW_SIMD_AVX2) return sinew__springs_avx2;
#endif
    (void)level;
    return NULL;
}
