/* SPDX-License-Identifier: MIT */
/* The sampling plan's layouts: the exact form's timelines and block layout
 * (src/clip/plan.c), the packed form's quantized block layout
 * (src/clip/packed.c, made from the exact one), and their AVX2 kernels
 * (src/clip/simd/plan_avx2.c). Not installed. */
#ifndef SINEW_SAMPLER_INTERNAL_H
#define SINEW_SAMPLER_INTERNAL_H

#include "clip/clip_internal.h"

#include <stdint.h>

/* The LINEAR translation, rotation and scale tracks that share key times.
 * Key k's values of all of them form one frame of frame_floats floats,
 * either
 *   - an image: frame float f is pose float image_at + f (a stretch of the
 *     sinew_transform array its tracks mostly fill); or
 *   - packed: each track's values at a multiple of 4 floats, vector tracks
 *     first.
 * Its rotation tracks are entries [rot_first, rot_first + rot_count) of the
 * plan's rotation list. */
typedef struct sinew__timeline {
    const float *times;
    int key_count;
    int hint_track; /* the track whose cursor entry holds this timeline's hint */
    int frame_floats; /* a multiple of 8; frames are 32-byte aligned */
    const float *frames; /* [key][frame_floats] */
    int vec_count;
    const uint32_t *vec_src, *vec_dst; /* per vector track: its first float in a frame, in the pose */
    int rot_first, rot_count;
    bool image;
    uint32_t image_at, image_floats; /* at least 8 floats */
    /* per image float: -1 where a track writes it (a rotation's floats take
     * the vector lerp's value first, then the rotation's), else 0 */
    const int8_t *image_mask;
} sinew__timeline;

enum { SINEW__ROTATION_LANES = 16 }; /* the AVX2 kernel's rotations a step */

/* The rotation tracks of all timelines in one list, timeline after
 * timeline, so that the AVX2 kernel takes them sixteen at a time whatever
 * their timeline (a clip whose joints each have key times of their own, as
 * hand-keyed FBX curves do, has many timelines of one rotation each): entry
 * i's values are floats src[i] .. src[i] + 3 of timeline line[i]'s frames,
 * its sample pose floats dst[i] .. dst[i] + 3. */
typedef struct sinew__rotation_list {
    int count;
    int listed; /* count rounded up to SINEW__ROTATION_LANES, the last entry repeated */
    const uint32_t *src, *dst;
    const int32_t *line;
} sinew__rotation_list;

/* A timeline's keys at one sampling time: frames a and b, and the factor s
 * between them (on a key: s = 0 and b = a). */
typedef struct sinew__keys {
    const float *a, *b;
    float s;
} sinew__keys;

/* The block layout: the plan of a clip made for a skeleton (its
 * sinew_clip_desc.skeleton) whose translation, rotation and scale tracks are
 * all LINEAR on one set of key times (what exporters bake), or constant (one
 * key). Key k's values of every joint form one frame, in the plan's
 * local-to-model schedule (pose_block_avx.h): block b of eight schedule
 * entries holds SINEW__BLOCK_FLOATS floats, float f of sinew_transform
 * (translation x, y, z, rotation x, y, z, w, scale x, y, z) for lane i at
 * f * 8 + i. A float no track writes holds the identity's value in the
 * frames and comes from the pose sampling starts from. Sampling then needs no shuffling of
 * values in, and sinew_clip_sample_model() builds model matrices straight
 * from the sampled blocks.
 *
 * Joints whose tracks hold the same values on every key (constant joints;
 * what no track writes comes from the pose sampling starts from, as
 * elsewhere), and whose descendants are all constant too, are scheduled
 * last (sinew__make_schedule's `late`), so that they fill the last blocks:
 * those blocks (from `animated` on) are stored once, not per key, and are
 * not interpolated.
 *
 * A block some of whose floats no track writes (a partial block) takes them
 * from the pose under the clip: the rest pose of the skeleton it plays on
 * (the identity for an additive clip). The layout keeps a copy of that
 * pose's floats under each partial block, in the block's layout, from the
 * skeleton it was made for, and uses it on a skeleton whose rest pose hashes
 * the same (sinew__skeleton.rest_hash); otherwise the eight joints'
 * transforms are gathered from the skeleton's rest pose and transposed
 * (slower: the copy spares a skeleton of the same rest pose that). A
 * constant block also holds those floats, so that
 * where they come out of its sampling unchanged (no -0 translation or scale
 * among them: between keys those are given plus 0) it needs no blend at
 * all with the copy (its `settled` flag). */
enum { SINEW__BLOCK_FLOATS = 80 }; /* a block: 8 lanes of the 10 floats of sinew_transform */

/* A packed block layout's keys (sinew_clip_pack): of each animated block,
 * the float vectors (float f of its eight lanes) whose values vary over the
 * keys are stored per key as 16-bit integers q, each lane's value being
 * offset + q step, step a power of two (so that the product is exact and a
 * fused multiply-add gives the separate multiply and add's result); the
 * others are stored once, in `fixed`. */
typedef struct sinew__packed_keys {
    const uint16_t *varying; /* per animated block: bit f set where vector f is stored per key */
    const int32_t *first;    /* per animated block: its first stored vector */
    int stored;              /* stored vectors per key, over all animated blocks */
    const float *fixed;      /* [animated][SINEW__BLOCK_FLOATS]: the vectors that do not vary (0 elsewhere) */
    const float *step, *offset; /* [stored][8] */
    const uint16_t *keys;    /* [key][stored][8] */
} sinew__packed_keys;

typedef struct sinew__blocks {
    const float *times;
    int key_count;
    int hint_track;           /* the track whose cursor entry holds the hint */
    int length;               /* schedule entries, a multiple of 8 */
    const int16_t *schedule;  /* the plan's */
    int joint_count;
    uint64_t parents_hash;    /* of the skeleton the plan was made for (the schedule serves any with its parents) */
    int animated;             /* blocks with values per key: the first ones */
    const float *frames;      /* [key][animated][SINEW__BLOCK_FLOATS], on cache lines; NULL when packed */
    const float *constants;   /* [length / 8 - animated][SINEW__BLOCK_FLOATS]: the constant blocks, once */
    const int8_t *mask;       /* [length / 8][SINEW__BLOCK_FLOATS]: -1 where a track writes the float */
    const int32_t *under_slot; /* per block: its copy in `under`, -1 for a block that is not partial */
    const uint8_t *settled;   /* per block: 1 for a partial constant block that holds the copy's values as sampled */
    const float *under;       /* [partial blocks][SINEW__BLOCK_FLOATS]: the pose under them, on cache lines */
    uint64_t under_hash;      /* the rest pose `under` copies: its skeleton's rest_hash_ */
    const sinew__packed_keys *packed; /* the animated blocks' keys of a packed layout, else NULL */
    /* the skeleton's pose order (sinew_skeleton_pose_order), from its
     * parents: block b's lanes go there by parts pose_parts[pose_first[b]
     * .. pose_first[b + 1]) */
    int pose_lanes;
    const int32_t *pose_first;        /* [length / 8 + 1] */
    const struct sinew__pose_part *pose_parts;
} sinew__blocks;

/* What one block of a layout gives one block of the skeleton's pose order:
 * pose block `to` takes, in each lane i whose mask[i] is -1, lane lane[i]
 * of the layout's block (a permutation and a blend of each of its ten
 * vectors; `whole` where the part gives all eight lanes, so that nothing
 * is blended, and `same` where it gives lane i in lane i too, so that the
 * vectors are stored as they are). Every lane of the pose order is given
 * by exactly one part: a joint the layout lists twice gives its first
 * lane. */
typedef struct sinew__pose_part {
    int32_t lane[8];
    int32_t mask[8];
    int32_t to;
    int16_t whole, same;
} sinew__pose_part;

/* Entry e's values (its block's lane, float f of sinew_transform in x[f])
 * of a packed layout at key k: offset + q step where the value varies, the
 * fixed one elsewhere, a constant block's as stored. */
static inline void sinew__packed_lane(const sinew__blocks *p, int e, size_t k, float x[10])
{
    int block = e / 8, lane = e % 8;
    if (block >= p->animated) {
        const float *c = p->constants + (size_t)(block - p->animated) * SINEW__BLOCK_FLOATS;
        for (int f = 0; f < 10; ++f) x[f] = c[8 * f + lane];
        return;
    }
    const sinew__packed_keys *q = p->packed;
    size_t v = (size_t)q->first[block];
    for (int f = 0; f < 10; ++f) {
        if (!(q->varying[block] >> f & 1)) {
            x[f] = q->fixed[(size_t)block * SINEW__BLOCK_FLOATS + 8 * f + lane];
            continue;
        }
        uint16_t n = q->keys[(k * (size_t)q->stored + v) * 8 + lane];
        x[f] = q->offset[8 * v + lane] + (float)n * q->step[8 * v + lane];
        ++v;
    }
}

/* Samples the block layout between frames a and b at factor 0 <= s < 1
 * (s == 0: frame a's values as stored; the constant blocks' values as
 * stored, between keys their translations and scales plus 0 as the lerp
 * would give) with 256-bit vectors (run only where the CPU runs AVX2), the
 * floats no track writes taken from `under` (from the layout's copy of it
 * where `copied`: `under` is then the pose the copy was made from, and is
 * not read: NULL for an additive clip), into
 * `local` (optional), into `pose` (optional: a SoA pose in the skeleton's
 * pose order, by the layout's pose parts) and, when `model` is not NULL,
 * on into model space as
 * sinew__local_to_model_avx2() computes it (`parents` the skeleton's, `root`
 * affine or NULL). Agreement with the reference as the timeline kernel's. */
void sinew__blocks_run_avx2(const sinew__blocks *p, const float *a, const float *b, float s, bool nlerp,
                            const sinew_transform *under, bool copied, const int16_t *parents,
                            const sinew_mat4 *root, sinew_transform *local, float *pose, sinew_mat4 *model);

/* sinew__blocks_run_avx2() on a packed layout between keys ka and kb (kb
 * == ka where s == 0), each animated block unpacked as sinew__packed_lane()
 * gives its lanes; on a key the rotations go through the interpolation at
 * 0, which normalizes them. */
void sinew__packed_run_avx2(const sinew__blocks *p, size_t ka, size_t kb, float s, bool nlerp,
                            const sinew_transform *under, bool copied, const int16_t *parents,
                            const sinew_mat4 *root, sinew_transform *local, float *pose, sinew_mat4 *model);

/* The plan's kernels of one SIMD level (described with the AVX2 ones
 * below). */
typedef struct sinew__plan_kernels {
    void (*blocks_run)(const sinew__blocks *p, const float *a, const float *b, float s, bool nlerp,
                       const sinew_transform *under, bool copied, const int16_t *parents, const sinew_mat4 *root,
                       sinew_transform *local, float *pose, sinew_mat4 *model);
    void (*packed_run)(const sinew__blocks *p, size_t ka, size_t kb, float s, bool nlerp,
                       const sinew_transform *under, bool copied, const int16_t *parents, const sinew_mat4 *root,
                       sinew_transform *local, float *pose, sinew_mat4 *model);
    void (*timeline_vectors)(const sinew__timeline *x, const float *a, const float *b, float s, const float *under,
                             float *out);
    void (*rotations)(const sinew__rotation_list *list, int first, int end, const sinew__keys *keys, int line0,
                      bool nlerp, float *out);
} sinew__plan_kernels;

/* The kernels of a SIMD level (a sinew_simd), or NULL where the reference
 * formulas run (clip/simd/dispatch.c: the only place that knows which
 * kernels were built). */
const sinew__plan_kernels *sinew__plan_kernels_for(int level);

/* One rotation track between keys a and b at factor s, as the reference
 * sampler (sinew_track_sample) computes it. */
static inline void sinew__rotation_reference(const float *a, const float *b, float s, bool nlerp, float *out)
{
    sinew_quat qa = sinew__q(a[0], a[1], a[2], a[3]), qb = sinew__q(b[0], b[1], b[2], b[3]);
    sinew_quat q = nlerp ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
    memcpy(out, &q, sizeof q);
}

/* A plan: the exact form's (its timelines, or its block layout) or the
 * packed form's (a packed block layout). */
struct sinew__sampler {
    const sinew__blocks *blocks;      /* the block layout, or NULL: then the timelines */
    int timeline_count;
    const sinew__timeline *timelines; /* the primary one first */
    sinew__rotation_list rotations;   /* the timelines' rotation tracks */
    int pose_floats;                  /* the clip's joints' sinew_transforms */
    bool primary;                     /* timelines[0] is the largest image: it fills its stretch itself */
    bool additive;                    /* the clip starts from the identity, not the rest pose */
    const sinew_transform *identity;  /* the pose additive clips start from (the timelines' only) */
    int other_count;
    const int *other_tracks; /* tracks the reference sampler takes */
    const sinew__plan_kernels *kernels; /* NULL: the reference's formulas */
    size_t bytes;
    int key_counts[3]; /* packed: the clip's translation, rotation and scale keys before packing */
};

/* The pose additive clips start from (per joint), and the block layout's
 * frames where no track writes (plan.c). */
extern const sinew_transform sinew__identity_transform;

/* The first float of a target's value inside a sinew_transform (a
 * translation, rotation or scale target). */
static inline uint32_t sinew__target_float(int target)
{
    switch (target) {
    case SINEW_TARGET_ROTATION: return (uint32_t)(offsetof(sinew_transform, rotation) / sizeof(float));
    case SINEW_TARGET_SCALE: return (uint32_t)(offsetof(sinew_transform, scale) / sizeof(float));
    default: return (uint32_t)(offsetof(sinew_transform, translation) / sizeof(float));
    }
}

/* Key ka and the factor s to the next key (returned) for time t, the
 * reference's choices: one key (s = 0) before the first, after the last,
 * on a key. */
static inline float sinew__locate(const float *times, int n, float t, int32_t *hint, int *ka)
{
    if (n == 1 || t <= times[0]) {
        *ka = 0;
        return 0.0f;
    }
    if (t >= times[n - 1]) {
        *ka = n - 1;
        return 0.0f;
    }
    int k = sinew__find_key(times, n, t, hint);
    *ka = k;
    float t0 = times[k];
    return t == t0 ? 0.0f : (t - t0) / (times[k + 1] - t0);
}

/* A block layout's tables kept whatever its keys hold (sinew__blocks's
 * fields of these names): the constant blocks, the masks, and the pose
 * under the partial blocks; laid out alike in the exact and packed
 * layouts. */
typedef struct sinew__block_tables {
    float *constants;
    int8_t *mask;
    int32_t *under_slot;
    uint8_t *settled;
    float *under;
    int32_t *pose_first;
    sinew__pose_part *pose_parts;
} sinew__block_tables;

/* Their places in a layout (byte offsets from its start). */
typedef struct sinew__block_tables_at {
    size_t constants, mask, under_slot, settled, under, pose_first, pose_parts;
} sinew__block_tables_at;

static inline sinew__block_tables_at sinew__lay_out_tables(sinew__layout *lay, int count, int animated,
                                                           int partial_count, int part_count)
{
    sinew__block_tables_at at;
    at.constants = sinew__layout_add(lay, (size_t)(count - animated) * SINEW__BLOCK_FLOATS, sizeof(float), SINEW__ALIGN);
    at.mask = sinew__layout_add(lay, (size_t)count * SINEW__BLOCK_FLOATS, sizeof(int8_t), 8);
    at.under_slot = sinew__layout_add(lay, (size_t)count, sizeof(int32_t), 4);
    at.settled = sinew__layout_add(lay, (size_t)count, sizeof(uint8_t), 1);
    at.under = sinew__layout_add(lay, (size_t)partial_count * SINEW__BLOCK_FLOATS, sizeof(float), SINEW__ALIGN);
    at.pose_first = sinew__layout_add(lay, (size_t)count + 1, sizeof(int32_t), 4);
    at.pose_parts = sinew__layout_add(lay, (size_t)part_count, sizeof(sinew__pose_part), 4);
    return at;
}

static inline sinew__block_tables sinew__tables_in(unsigned char *base, const sinew__block_tables_at *at)
{
    return (sinew__block_tables){(float *)(base + at->constants), (int8_t *)(base + at->mask),
                                 (int32_t *)(base + at->under_slot), base + at->settled, (float *)(base + at->under),
                                 (int32_t *)(base + at->pose_first), (sinew__pose_part *)(base + at->pose_parts)};
}

/* p's tables pointed at t. */
static inline void sinew__use_tables(sinew__blocks *p, const sinew__block_tables *t)
{
    p->constants = t->constants, p->mask = t->mask, p->under_slot = t->under_slot, p->settled = t->settled;
    p->under = t->under, p->pose_first = t->pose_first, p->pose_parts = t->pose_parts;
}

/* The first of the clip's translation, rotation and scale tracks that the
 * block layout cannot take, with the reason in *why (and in *other the
 * track whose key times it does not share); -1 where it takes them all
 * (plan.c). Packing takes what the layout takes. */
int sinew__layout_refusal(const sinew_clip *clip, const char **why, int *other);

/* The exact plan of `clip` in sk's block layout, for a clip the layout
 * takes (sinew__layout_refusal), at SIMD level `simd`; NULL when out of
 * memory (plan.c). The packed form quantizes it. */
sinew__sampler *sinew__blocks_create(const sinew_clip *clip, const sinew_skeleton *sk, const sinew_allocator *alloc,
                                     int simd);

/* Whether a plan's block layout can run in one pass into model space on
 * sk (its parents and joint count, sk's local-to-model kernel, the plan's
 * kernels, `root` affine or NULL). */
static inline bool sinew__blocks_one_pass(const sinew__sampler *sm, const sinew_skeleton *sk, const sinew_mat4 *root)
{
    const sinew__blocks *p = sm->blocks;
    return p && sm->kernels && sinew__affine_root(root) && sinew__skeleton_of(sk)->local_to_model &&
           sk->joint_count == p->joint_count && sinew__skeleton_of(sk)->parents_hash == p->parents_hash;
}

/* Whether a plan's block layout writes sk's pose order itself: sk has the
 * parents it was made for (so the same pose order) and the plan runs its
 * kernels. */
static inline bool sinew__blocks_pose_order(const sinew__sampler *sm, const sinew_skeleton *sk)
{
    const sinew__blocks *p = sm->blocks;
    return p && sm->kernels && sk->joint_count == p->joint_count &&
           sinew__skeleton_of(sk)->parents_hash == p->parents_hash;
}

/* Writes timeline x's vector tracks between frames a and b at factor
 * 0 < s < 1 into the pose floats `out` with 256-bit vectors (run only where
 * the CPU runs AVX2), bit for bit a + (b - a) s. An image's floats that no
 * track writes come from `under` (the pose floats, `out` itself or the pose
 * it starts from), its rotations' floats too (the rotations overwrite them). */
void sinew__timeline_vectors_avx2(const sinew__timeline *x, const float *a, const float *b, float s,
                                  const float *under, float *out);

/* Writes entries [first, end) of the rotation list, each between its
 * timeline's keys (keys[line - line0]), into the pose floats `out` with
 * 256-bit vectors (run only where the CPU runs AVX2): within 1e-6 of the
 * reference (see plan.c), on a key the key as stored. */
void sinew__rotations_avx2(const sinew__rotation_list *list, int first, int end, const sinew__keys *keys,
                           int line0, bool nlerp, float *out);

#endif
