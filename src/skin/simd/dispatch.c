/* SPDX-License-Identifier: MIT */
/* Which skinning kernels a SIMD level runs. Compiled for the baseline
 * instruction set: it runs on every CPU, before any kernel is chosen. */
#include "skin/skin_internal.h"

const sinew__skin_kernels *sinew__skin_kernels_for(int level)
{
#if defined(SINEW_X86_SIMD)
    /* the palette kernel's 256-bit products serve the AVX-512 level too */
    static const sinew__skin_kernels avx512 = {sinew__skin_lbs_avx512, sinew__skin_dqs_avx512,
                                               sinew__skin_palette_avx2};
    static const sinew__skin_kernels avx2 = {sinew__skin_lbs_avx2, sinew__skin_dqs_avx2, sinew__skin_palette_avx2};
    if (level >= SINEW_SIMD_AVX512) return &avx512;
    if (level >= SINEW_SIMD_AVX2) return &avx2;
#endif
#if defined(__aarch64__)
    /* the blend in NEON; DQS and the palette by the scalar reference */
    static const sinew__skin_kernels neon = {sinew__skin_lbs_neon, NULL, NULL};
    if (level == SINEW_SIMD_NEON) return &neon;
#endif
    (void)level;
    return NULL;
}
