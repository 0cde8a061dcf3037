/* SPDX-License-Identifier: MIT */
/* Local pose to model space with AVX2 and FMA (run only where
 * sinew_simd_supported() says so), block by block of the skeleton's schedule
 * (pose_block_avx.h): from transforms, each block's rotations, scales and
 * translations are loaded a joint per 128-bit row and transposed into one
 * vector per component; from a SoA pose in the skeleton's pose order
 * (sinew_local_to_model_pose), whose blocks are the schedule's, each
 * component is one load. */
#include "pose_block_avx.h"

/* local_to_model_avx512.c compiles this file again with its own names and
 * block */
#ifndef SINEW__L2M_KERNEL
#define SINEW__L2M_KERNEL(name) sinew__##name##_avx2
#define SINEW__L2M_BLOCK sinew__model_block
#endif

void SINEW__L2M_KERNEL(local_to_model)(const int16_t *schedule, int length, const int16_t *parents,
                                       const sinew_transform *local, const sinew_mat4 *root, sinew_mat4 *model)
{
    const sinew_mat4 *top = root ? root : &sinew__identity_mat4;
    for (int b = 0; b < length; b += 8) {
        __m256 v[10];
        sinew__load_block(local, schedule + b, v);
        SINEW__L2M_BLOCK(v, schedule + b, parents, top, model);
    }
}

void SINEW__L2M_KERNEL(local_to_model_pose)(const int16_t *schedule, int length, const int16_t *parents,
                                            const float *pose, const sinew_mat4 *root, sinew_mat4 *model)
{
    const sinew_mat4 *top = root ? root : &sinew__identity_mat4;
    for (int b = 0; b < length; b += 8, pose += SINEW_POSE_BLOCK_FLOATS) {
        __m256 v[10];
        for (int c = 0; c < 10; ++c) v[c] = _mm256_loadu_ps(pose + 8 * c);
        SINEW__L2M_BLOCK(v, schedule + b, parents, top, model);
    }
}
