/* SPDX-License-Identifier: MIT */
/* The skinning palette with 256-bit vectors and fused multiply-adds
 * (compiled with -mavx2 -mfma; run only where sinew_simd_supported() says
 * so). Two columns of a product per vector, the model matrix's columns
 * repeated in both halves. The inverse bind matrices come from the skin's
 * inverse_bind_lanes: columns 0 and 1 already spread over each half's
 * lanes (a load per step), columns 2 and 3 spread with in-lane permutes:
 * the mix keeps the load and shuffle units equally busy, where either way
 * alone leaves one idle. Each entry is summed in
 * sinew__mat4_mul's order, each step one rounding instead of two: within
 * 1e-6 of the size of its terms of the scalar product
 * (tests/test_skin_simd.c), and the FMAs shorten the chain of dependent
 * additions that bounds the loop. */
#include "skin/skin_internal.h"

#include <immintrin.h>

/* Where every inverse bind matrix is affine: their last row (0, 0, 0, 1)
 * makes the model matrix's column 3 count only in the product's column 3,
 * with weight 1, so columns 0 and 1 take three products, and column 3
 * starts from the model's column 3 where column 2 starts from +0 (the
 * terms dropped are exact zeros for finite matrices): six multiply-adds a
 * matrix instead of eight, and no load of the lanes' fourth vector. */
static void palette_affine(const sinew_skin *skin, const sinew_mat4 *model, sinew_mat4 *palette)
{
    const int16_t *joints = skin->joints;
    const float *lanes = sinew__skin_of(skin)->blocks->inverse_bind_lanes;
    int count = skin->joint_count;
    const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 2
    for (int j = 0; j < count; ++j, lanes += SINEW__PALETTE_LANE_FLOATS) {
        const float *a = model[joints[j]].m;
        __m256 a0 = _mm256_broadcast_ps((const __m128 *)a), a1 = _mm256_broadcast_ps((const __m128 *)(a + 4)),
               a2 = _mm256_broadcast_ps((const __m128 *)(a + 8));
        __m256 a3 = _mm256_blend_ps(zero, _mm256_broadcast_ps((const __m128 *)(a + 12)), 0xf0);
        __m256 t = _mm256_mul_ps(a0, _mm256_load_ps(lanes));
        t = _mm256_fmadd_ps(a1, _mm256_load_ps(lanes + 8), t);
        t = _mm256_fmadd_ps(a2, _mm256_load_ps(lanes + 16), t);
        _mm256_storeu_ps(palette[j].m, t);
        __m256 b = _mm256_load_ps(lanes + 32);
        t = _mm256_fmadd_ps(a0, _mm256_permute_ps(b, 0x00), a3);
        t = _mm256_fmadd_ps(a1, _mm256_permute_ps(b, 0x55), t);
        t = _mm256_fmadd_ps(a2, _mm256_permute_ps(b, 0xaa), t);
        _mm256_storeu_ps(palette[j].m + 8, t);
    }
}

void sinew__skin_palette_avx2(const sinew_skin *skin, const sinew_mat4 *model, sinew_mat4 *palette)
{
    if (sinew__skin_of(skin)->blocks->inverse_bind_affine) {
        palette_affine(skin, model, palette);
        return;
    }
    const int16_t *joints = skin->joints;
    const float *lanes = sinew__skin_of(skin)->blocks->inverse_bind_lanes;
    /* read once: the vector stores may alias anything, the skin struct
     * too, so a field read in the loop is read again after every store */
    int count = skin->joint_count;
#pragma GCC unroll 2
    for (int j = 0; j < count; ++j, lanes += SINEW__PALETTE_LANE_FLOATS) {
        const float *a = model[joints[j]].m;
        __m256 a0 = _mm256_broadcast_ps((const __m128 *)a), a1 = _mm256_broadcast_ps((const __m128 *)(a + 4)),
               a2 = _mm256_broadcast_ps((const __m128 *)(a + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(a + 12));
        __m256 t = _mm256_mul_ps(a0, _mm256_load_ps(lanes));
        t = _mm256_fmadd_ps(a1, _mm256_load_ps(lanes + 8), t);
        t = _mm256_fmadd_ps(a2, _mm256_load_ps(lanes + 16), t);
        t = _mm256_fmadd_ps(a3, _mm256_load_ps(lanes + 24), t);
        _mm256_storeu_ps(palette[j].m, t);
        __m256 b = _mm256_load_ps(lanes + 32);
        t = _mm256_mul_ps(a0, _mm256_permute_ps(b, 0x00));
        t = _mm256_fmadd_ps(a1, _mm256_permute_ps(b, 0x55), t);
        t = _mm256_fmadd_ps(a2, _mm256_permute_ps(b, 0xaa), t);
        t = _mm256_fmadd_ps(a3, _mm256_permute_ps(b, 0xff), t);
        _mm256_storeu_ps(palette[j].m + 8, t);
    }
}
