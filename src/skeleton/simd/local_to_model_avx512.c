/* SPDX-License-Identifier: MIT */
/* Local pose to model space with AVX-512 F and DQ (run only where
 * sinew_simd_supported() says so): local_to_model_avx2.c's loads, each
 * block's joints multiplied a joint per 512-bit vector
 * (sinew__model_block_512), with the same bits. */
#include "pose_block_avx.h"

void sinew__local_to_model_avx512(const int16_t *schedule, int length, const int16_t *parents,
                                  const sinew_transform *local, const sinew_mat4 *root, sinew_mat4 *model)
{
    const sinew_mat4 *top = root ? root : &sinew__identity_mat4;
    for (int b = 0; b < length; b += 8) {
        __m256 v[10];
        sinew__load_block(local, schedule + b, v);
        sinew__model_block_512(v, schedule + b, parents, top, model);
    }
}

void sinew__local_to_model_pose_avx512(const int16_t *schedule, int length, const int16_t *parents,
                                       const float *pose, const sinew_mat4 *root, sinew_mat4 *model)
{
    const sinew_mat4 *top = root ? root : &sinew__identity_mat4;
    for (int b = 0; b < length; b += 8, pose += SINEW_POSE_BLOCK_FLOATS) {
        __m256 v[10];
        for (int c = 0; c < 10; ++c) v[c] = _mm256_loadu_ps(pose + 8 * c);
        sinew__model_block_512(v, schedule + b, parents, top, model);
    }
}
