/* SPDX-License-Identifier: MIT */
/* The skeleton room's interface to the rooms above it (clips, layer, skins):
 * the local-to-model schedule and its kernels. Not installed. */
#ifndef SINEW_SKELETON_INTERNAL_H
#define SINEW_SKELETON_INTERNAL_H

#include "math/math_internal.h"

/* A local-to-model kernel: local to model space for an affine root (or
 * none), in the order of `schedule` (sinew__skeleton.schedule, `length`
 * entries). */
typedef void (*sinew__local_to_model_kernel)(const int16_t *schedule, int length, const int16_t *parents,
                                             const sinew_transform *local, const sinew_mat4 *root,
                                             sinew_mat4 *model);

/* The local-to-model kernel of a SIMD level (a sinew_simd), or NULL where
 * the scalar reference runs (skeleton/simd/dispatch.c: the only place that
 * knows which kernels were built). */
sinew__local_to_model_kernel sinew__local_to_model_kernel_for(int level);

/* The same kernel reading a SoA pose in the skeleton's pose order
 * (sinew_local_to_model_pose): lane i of the pose is schedule entry i. */
typedef void (*sinew__local_to_model_pose_kernel)(const int16_t *schedule, int length, const int16_t *parents,
                                                  const float *pose, const sinew_mat4 *root, sinew_mat4 *model);

/* The SoA kernel of a SIMD level, NULL where the reference runs. */
sinew__local_to_model_pose_kernel sinew__local_to_model_pose_kernel_for(int level);

/* A skeleton as sinew_skeleton_create makes it: the public struct first,
 * then what only the library reads, so that the public struct's layout does
 * not change with it. */
typedef struct sinew__skeleton {
    sinew_skeleton base;
    const int32_t *lookup;     /* name hash table: joint indices, -1 empty */
    uint32_t lookup_mask;
    const int16_t *schedule;   /* local to model's order (sinew__make_schedule) */
    int schedule_length;
    const int32_t *last_lane;  /* per joint, its last entry in `schedule` (the one
                                  sinew_pose_order_to_transforms reads); a joint's other
                                  entries (a pair with one joint, the last block's fill) lie in
                                  that entry's block of eight */
    int simd;                  /* the sinew_simd it runs */
    sinew__local_to_model_kernel local_to_model; /* its kernel, NULL for the scalar reference */
    sinew__local_to_model_pose_kernel local_to_model_pose; /* the same on SoA poses */
    uint64_t rest_hash;        /* of rest_pose's bytes: clips made for the skeleton keep a copy of it */
    uint64_t parents_hash;     /* of parents' bytes: clips made for the skeleton are laid out in its order */
    sinew_allocator allocator;
} sinew__skeleton;

/* The library's view of a skeleton it made (written only while it is made). */
static inline sinew__skeleton *sinew__skeleton_of(const sinew_skeleton *sk)
{
    return (sinew__skeleton *)(uintptr_t)sk;
}

/* Entries local to model's schedule (sinew__make_schedule) can take for n
 * joints: a pair per joint at most, in whole blocks of four pairs. */
size_t sinew__schedule_capacity(int n);

/* Local to model's schedule (skeleton/simd/local_to_model_avx2.c and
 * local_to_model_avx512.c, and the sampler's block layout): joints in pairs
 * that it computes side by side, each joint's parent in an earlier pair. Joints are taken first in, first out as their
 * parent is scheduled (roots first), so that a joint comes long after its
 * parent wherever the tree allows; joints marked in `late` (optional; a
 * marked joint's children must be marked too) wait until every unmarked
 * joint is taken, so that they fill the last blocks. A pair with no second
 * joint ready repeats its first (computed and stored twice, the same), and
 * the last block is filled with the last pair. Stored by blocks of four
 * pairs: a0 a1 a2 a3 c0 c1 c2 c3, into `out` (sinew__schedule_capacity(n)
 * entries). `queue` holds n ints (2n with `late`), `links` 2n. Returns the
 * entry count. */
int sinew__make_schedule(const int16_t *parents, int n, const uint8_t *late, int *queue, int *links, int16_t *out);

/* sinew_local_to_model() by the reference's formulas (SSE2 where the
 * pose is affine, bit for bit the scalar code), joint after joint: joint j's
 * transform is read before its matrix is written, and no transform of a
 * joint before j is read after. So the transforms may lie in `model`'s own
 * bytes, from byte 24 * count on (the last 40 * count bytes: what
 * sinew_clip_sample_model does without a local pose): writing model[j]
 * (bytes 64 j to 64 j + 63) then overwrites transforms of joints up to j
 * only, all read already. */
void sinew__local_to_model_in_order(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                    sinew_mat4 *model, int count);

/* Whether a root matrix keeps the pose affine: NULL (the identity) or a
 * last row of (0, 0, 0, 1). Local to model's fast paths need it. */
static inline bool sinew__affine_root(const sinew_mat4 *root)
{
    return !root || (root->m[3] == 0.0f && root->m[7] == 0.0f && root->m[11] == 0.0f && root->m[15] == 1.0f);
}

/* Local to model space for an affine root (or none) with AVX
 * (src/skeleton/simd/local_to_model_avx2.c; only where the CPU runs AVX2), in the order of
 * `schedule` (sinew__skeleton.schedule, `length` entries). */
void sinew__local_to_model_avx2(const int16_t *schedule, int length, const int16_t *parents,
                                const sinew_transform *local, const sinew_mat4 *root, sinew_mat4 *model);

/* The same from a SoA pose in the skeleton's pose order
 * (sinew_local_to_model_pose): each block's ten components, one load each. */
void sinew__local_to_model_pose_avx2(const int16_t *schedule, int length, const int16_t *parents, const float *pose,
                                     const sinew_mat4 *root, sinew_mat4 *model);

/* The two with AVX-512 F and DQ (src/skeleton/simd/local_to_model_avx512.c;
 * only where the CPU runs them): the same bits. */
void sinew__local_to_model_avx512(const int16_t *schedule, int length, const int16_t *parents,
                                  const sinew_transform *local, const sinew_mat4 *root, sinew_mat4 *model);
void sinew__local_to_model_pose_avx512(const int16_t *schedule, int length, const int16_t *parents,
                                       const float *pose, const sinew_mat4 *root, sinew_mat4 *model);

#endif /* SINEW_SKELETON_INTERNAL_H */
