/* SPDX-License-Identifier: MIT */
/* The blends' private declarations: the SoA pose's layout and the kernels
 * of sinew_blend_pose. Not installed. layer_internal.h declares
 * sinew_blend's kernel (sinew__blend_avx2); what its lanes promise is
 * written here, beside the SoA kernel that shares its code. */
#ifndef SINEW_BLEND_INTERNAL_H
#define SINEW_BLEND_INTERNAL_H

#include "layer/layer_internal.h"

/* Float `component` (0-9: translation x y z, rotation x y z w, scale x y z)
 * of joint j in a SoA pose (sinew.h, "SoA poses"). */
static inline size_t sinew__pose_at(int j, int component)
{
    return (size_t)(j >> 3) * SINEW_POSE_BLOCK_FLOATS + (size_t)component * 8 + (size_t)(j & 7);
}

/* Joint j of a SoA pose, read and written. */
static inline sinew_transform sinew__pose_joint(const float *pose, int j)
{
    float f[10];
    for (int c = 0; c < 10; ++c) f[c] = pose[sinew__pose_at(j, c)];
    return (sinew_transform){{f[0], f[1], f[2]}, {f[3], f[4], f[5], f[6]}, {f[7], f[8], f[9]}};
}

static inline void sinew__pose_set_joint(float *pose, int j, const sinew_transform *t)
{
    const float f[10] = {t->translation.x, t->translation.y, t->translation.z, t->rotation.x, t->rotation.y,
                         t->rotation.z,    t->rotation.w,    t->scale.x,       t->scale.y,    t->scale.z};
    for (int c = 0; c < 10; ++c) pose[sinew__pose_at(j, c)] = f[c];
}

/* The identity transform in the padding lanes of a SoA pose of `count`
 * joints (pose.c). */
void sinew__pose_pad(float *pose, int count);

/* A SoA blend kernel: sinew_blend_pose over every block, its arguments
 * checked (count the joint count, rest the SoA rest pose). */
typedef void (*sinew__blend_pose_kernel)(const float *rest, const sinew_pose_layer *layers, int layer_count,
                                         float threshold, float *out, int count);

/* The SoA blend kernel of a SIMD level, or NULL where the scalar reference
 * runs (layer/simd/dispatch.c). */
sinew__blend_pose_kernel sinew__blend_pose_kernel_for(int level);

/* src/layer/simd/blend_avx2.c, both kernels (sinew__blend_avx2 for
 * sinew_blend, this one for sinew_blend_pose): the scalar reference's sums
 * eight joints at a time with fused multiply-adds, one reciprocal of the
 * total weight and one reciprocal square root for the rotation's length,
 * each refined by one Newton step, so the lanes agree with the scalar
 * reference to the tolerances sinew.h states; a joint with one contributor
 * takes its transform bit for bit, as the reference does. */
void sinew__blend_pose_avx2(const float *rest, const sinew_pose_layer *layers, int layer_count, float threshold,
                            float *out, int count);

/* A SoA additive kernel: sinew_additive_apply_pose over every block, its
 * arguments checked (mask NULL or `count` weights); the caller then sets
 * the padding lanes. */
typedef void (*sinew__additive_pose_kernel)(const float *base, const float *delta, int count, float weight,
                                            const float *mask, float *out);

/* The SoA additive kernel of a SIMD level, or NULL where the scalar
 * reference runs (layer/simd/dispatch.c). */
sinew__additive_pose_kernel sinew__additive_pose_kernel_for(int level);

/* src/layer/simd/blend_avx2.c: blend.c's additive_joint eight lanes at a
 * time, the same operations in the same order (no fused multiply-adds,
 * the square roots and divisions exact), so its lanes are the scalar
 * reference's bit for bit. */
void sinew__additive_pose_avx2(const float *base, const float *delta, int count, float weight, const float *mask,
                               float *out);

/* The same on transform arrays (sinew_additive_apply), the blocks turned
 * into columns and back as sinew_blend's kernel does: joints 0 to a
 * multiple of 8, whose count it returns (blend.c does the rest). */
int sinew__additive_avx2(const sinew_transform *base, const sinew_transform *delta, int count, float weight,
                         const float *mask, sinew_transform *out);

/* sinew_additive_apply's kernel for a SIMD level, or NULL. */
typedef int (*sinew__additive_kernel)(const sinew_transform *base, const sinew_transform *delta, int count,
                                      float weight, const float *mask, sinew_transform *out);
sinew__additive_kernel sinew__additive_kernel_for(int level);

#endif /* SINEW_BLEND_INTERNAL_H */
