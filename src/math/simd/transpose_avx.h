/* SPDX-License-Identifier: MIT */
/* A helper shared by the AVX kernels (local_to_model_avx2.c, plan_avx2.c); include
 * only from files compiled for AVX. */
#ifndef SINEW_TRANSPOSE_AVX_H
#define SINEW_TRANSPOSE_AVX_H

#include <immintrin.h>

/* 4 x 4 transposes in each 128-bit half: rows r0..r3 (item i in the low
 * half, item i + 4 in the high half) to columns, c[k] lane i holding
 * component k of item i. */
static inline void sinew__transpose_halves(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 c[4])
{
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpacklo_ps(r2, r3);
    __m256 t2 = _mm256_unpackhi_ps(r0, r1), t3 = _mm256_unpackhi_ps(r2, r3);
    c[0] = _mm256_shuffle_ps(t0, t1, 0x44), c[1] = _mm256_shuffle_ps(t0, t1, 0xee);
    c[2] = _mm256_shuffle_ps(t2, t3, 0x44), c[3] = _mm256_shuffle_ps(t2, t3, 0xee);
}

#endif
