/* SPDX-License-Identifier: MIT */
/* The layer room's private declarations: its SIMD kernels. Not installed. */
#ifndef SINEW_LAYER_INTERNAL_H
#define SINEW_LAYER_INTERNAL_H

#include "clip/clip_internal.h"

/* A blend kernel: sinew_blend's loop over the joints, its arguments
 * checked; returns the joints it did (the scalar loop does the rest). */
typedef int (*sinew__blend_kernel)(const sinew_transform *rest_pose, const sinew_blend_layer *layers,
                                   int layer_count, float threshold, sinew_transform *out, int count);

/* The blend kernel of a SIMD level (a sinew_simd), or NULL where the scalar
 * loop runs (layer/simd/dispatch.c: the only place that knows which kernels
 * were built). */
sinew__blend_kernel sinew__blend_kernel_for(int level);

/* sinew_blend's loop over the joints with AVX (src/layer/simd/blend_avx2.c;
 * only where the CPU runs AVX2), its arguments checked: the scalar loop's
 * result bit for bit. Returns the joints it did: all of them, or none for
 * fewer than eight. */
int sinew__blend_avx2(const sinew_transform *rest_pose, const sinew_blend_layer *layers, int layer_count,
                      float threshold, sinew_transform *out, int count);

/* ---- spring bones (spring.c) ---------------------------------------------- */

/* One simulated bone: a chain joint and the next joint of its chain. */
typedef struct sinew__spring_bone {
    int joint, tail;
    float stiffness, drag, hit_radius, length;
    sinew_vec3 gravity;       /* direction times power */
    sinew_vec3 axis;          /* unit: the tail in the joint's rest space */
} sinew__spring_bone;

/* A chain as the step runs it. `path` lists the joints from the first to
 * the tail, each the child of the one before: path_bone[i] is the bone that
 * joint i carries, -1 for a joint between chain joints or for the tail. */
typedef struct sinew__spring_chain {
    int first_bone, bone_count;
    int path_start, path_count;
    int below_start, below_count;   /* joints below the path, parents first */
    int collider_start, collider_count; /* into sinew__springs.chain_colliders */
    int center;
} sinew__spring_chain;

/* The world-space form of a collider that the step reads: center, tail
 * (a sphere's is its center) and radius, 8 floats. */
enum { SINEW__SPRING_COLLIDER_FLOATS = 8 };

/* The AVX2 kernel: eight chains at once (`chains`, their indices), each
 * with `bone_count` bones and no joint between its chain joints and no
 * center; one substep of length dt. State arrays as spring.c keeps them:
 * `tails` holds per bone the current then the previous tail (6 floats),
 * `anim` the animated rotations, `colliders` the world colliders, one
 * per entry of chain_colliders plus a last one that never collides. */
typedef struct sinew__springs_run {
    const int16_t *parents;
    const sinew__spring_bone *bones;
    const sinew__spring_chain *chains;
    const int *chain_colliders;     /* per chain entry: a world collider index */
    int collider_count;             /* the index of the one that never collides */
    const sinew_quat *anim;
    float *tails;
    const float *colliders;
    sinew_transform *local;
    sinew_mat4 *model;
    float dt;
} sinew__springs_run;

typedef void (*sinew__springs_kernel)(const sinew__springs_run *run, const int *chains, int bone_count);

/* The spring kernel of a SIMD level, or NULL where the scalar reference
 * runs (layer/simd/dispatch.c). */
sinew__springs_kernel sinew__springs_kernel_for(int level);

/* src/layer/simd/spring_avx2.c: the scalar reference's formulas eight lanes
 * wide (no fused multiply-add, sqrt and division exact), so the lanes agree
 * with it to rounding only. */
void sinew__springs_avx2(const sinew__springs_run *run, const int *chains, int bone_count);

#endif /* SINEW_LAYER_INTERNAL_H */
