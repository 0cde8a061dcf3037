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
 * result within the tolerances blend_internal.h states (a joint of one
 * contributor bit for bit). Returns the joints it did: all of them, or none
 * for fewer than eight. */
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
 * joint i carries, -1 for a joint between chain joints or for the tail.
 * Bone e of the chain is first_bone + e * bone_stride: the chains that run
 * eight at a time interleave their bones (stride 8), so that bone e of a
 * group's eight chains fills one block of eight. */
typedef struct sinew__spring_chain {
    int first_bone, bone_count, bone_stride;
    int path_start, path_count;
    int below_start, below_count;   /* joints below the path, parents first */
    int collider_start, collider_count; /* into sinew__springs.chain_colliders */
    int center;
    int lanes_share;                /* a group's first chain: SINEW__SHARE_ flags of its eight */
} sinew__spring_chain;

/* What the eight chains of a group share (sinew__spring_chain.lanes_share):
 * the parent of their first joints; their collider lists. */
enum { SINEW__SHARE_PARENT = 1, SINEW__SHARE_COLLIDERS = 2 };

/* Per-bone arrays are kept in blocks of eight bones, field by field
 * (field k of bone b at sinew__spring_at(b, k, fields)): a group's bone e
 * of its eight chains is one vector per field. */
static inline size_t sinew__spring_at(int b, int k, int fields)
{
    return ((size_t)(b >> 3) * (size_t)fields + (size_t)k) * 8 + (size_t)(b & 7);
}
/* The fields of a bone that the kernel reads, in its block array
 * (sinew__springs_run.params): stiffness, drag, hit radius, length,
 * gravity x y z, axis x y z. */
enum { SINEW__SPRING_PARAMS = 10 };

/* The world-space form of a collider that the step reads: center, tail
 * (a sphere's is its center) and radius, 8 floats. */
enum { SINEW__SPRING_COLLIDER_FLOATS = 8 };

/* The parent joint whose frame a kernel took last, its rotation
 * (sinew__model_rotation) and the one scale of its matrix (NaN where the
 * scale differs between axes, or the matrix is skewed or mirrored): the
 * chains of many groups hang from one
 * joint, and no chain run moves a group's parent (it hangs below no
 * chain), so a step keeps it from group to group. `joint` below -1 holds
 * none. */
typedef struct sinew__spring_parent {
    int joint;
    sinew_quat rotation;
    float scale;
} sinew__spring_parent;

/* What one substep reads and writes. State arrays as spring.c keeps them,
 * in blocks (sinew__spring_at): `tails` the current then the previous tail
 * (6 fields), `anim` the animated rotations (4), `params` the bones' fields
 * (SINEW__SPRING_PARAMS); `colliders` the world colliders, one per collider
 * and a last one, far off, that never collides, each float of one (center,
 * tail - center, radius, 1 / |tail - center|^2) eight times: a vector. */
typedef struct sinew__springs_run {
    const int16_t *parents;
    const sinew__spring_chain *chains;
    int group_chains;               /* the first group_chains chains run in groups */
    const int *chain_colliders;     /* per chain entry: a collider index */
    int collider_count;             /* the index of the one that never collides */
    const float *params;
    float *anim;                    /* written in the first substep, read in the others */
    float *tails;
    const float *colliders;
    const int *path;                /* sinew__springs.path: chain joints, tail last */
    /* the groups' paths lane by lane, as byte offsets into local and
     * model: those of the joint at position e of lane l of the group from
     * chains[first] at 2 chains[first].path_start + e * 16 + l and 8 on,
     * so that a joint's eight rows come from one line of eight offsets,
     * each an address without arithmetic */
    const int *lane_path;
    sinew_transform *local;
    sinew_mat4 *model;
    sinew__spring_parent *parent;   /* written by the kernels */
    float dt;
    bool first;                     /* the step's first substep: local holds the animated rotations */
    bool keep;                      /* more substeps follow the first: it keeps those rotations in anim */
} sinew__springs_run;

/* The rotation of a model matrix, its columns' scale divided out (a
 * mirrored frame flips one axis): for IK's joints and the springs' parents,
 * in the scalar and SIMD paths alike (spring.c). */
sinew_quat sinew__model_rotation(const sinew_mat4 *m);

/* A kernel: two groups of eight chains, from run->chains[first] on and from
 * run->chains[second] on (a group: the same bone count, bones interleaved,
 * no joint between chain joints, no center), one substep. The two have the
 * same bone count and do not touch each other's joints; second may be
 * first, which runs that group alone. A kernel takes the paths whose
 * parents' matrices are one positive scale times a rotation and whose
 * joints' scales are the same, not negative, on every axis, the common
 * case: it returns the path position where that stops for some lane,
 * before touching it, and where that position is above 0, lane i's
 * rotation of the joint above it (as spring.c's step_path carries it) in
 * above[i], lanes of first then of second; bone_count + 1 where the paths
 * are done. */
typedef int (*sinew__springs_kernel)(const sinew__springs_run *run, int first, int second, sinew_quat above[16]);

/* The spring kernel of a SIMD level, or NULL where the scalar reference
 * runs (layer/simd/dispatch.c). */
sinew__springs_kernel sinew__springs_kernel_for(int level);

/* src/layer/simd/spring_avx2.c: the scalar reference's formulas eight lanes
 * wide, two groups side by side, with fused multiply-adds and a bone's
 * length and a rotation's normalization by an approximate reciprocal square
 * root and a Newton step, and a parent's matrix taken as one scale times
 * its rotation to 2^-20 of the scale, so the lanes agree with it to
 * rounding, not to the bit (tests/test_spring.c's test_simd bounds the
 * difference). */
int sinew__springs_avx2(const sinew__springs_run *run, int first, int second, sinew_quat above[16]);
/* src/layer/simd/spring_avx512.c: the same kernel with AVX-512's 32 vector
 * registers. */
int sinew__springs_avx512(const sinew__springs_run *run, int first, int second, sinew_quat above[16]);

#endif /* SINEW_LAYER_INTERNAL_H */
