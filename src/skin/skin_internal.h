/* SPDX-License-Identifier: MIT */
/* Shared by the skin sources: reading a vertex's influences and addressing
 * strided streams. */
#ifndef SINEW_SKIN_INTERNAL_H
#define SINEW_SKIN_INTERNAL_H

#include "skeleton/skeleton_internal.h"

/* Bytes of one stored joint index and of one stored weight. */
static inline size_t sinew__index_bytes(sinew_index_type t) { return t == SINEW_INDEX_U8 ? 1 : 2; }
static inline size_t sinew__weight_bytes(sinew_weight_type t)
{
    return t == SINEW_WEIGHT_F32 ? 4 : t == SINEW_WEIGHT_UNORM8 ? 1 : 2;
}

/* Weights stored per vertex: the influence count, one less when the last
 * is implied; of a skin, and of a description before its skin is made. */
static inline int sinew__stored_weights(int influence_count, bool last_weight_implied)
{
    return influence_count - (last_weight_implied ? 1 : 0);
}
static inline int sinew__skin_stored_weights(const sinew_skin *s)
{
    return sinew__stored_weights(s->influence_count, s->last_weight_implied);
}

/* Vertex v's implied last weight in the units the skin stores weights in
 * (1 for float, 255 or 65535 for unorm): what its stored weights leave of
 * the full sum, 0 where they reach past it. */
static inline double sinew__skin_implied_weight(const sinew_skin *s, int v)
{
    int k = sinew__skin_stored_weights(s);
    size_t base = (size_t)v * (size_t)k;
    double rest;
    switch (s->weight_type) {
    case SINEW_WEIGHT_F32: {
        const float *p = (const float *)s->weights + base;
        rest = 1.0;
        for (int i = 0; i < k; ++i) rest -= p[i];
        break;
    }
    case SINEW_WEIGHT_UNORM8: {
        const uint8_t *p = (const uint8_t *)s->weights + base;
        rest = 255.0;
        for (int i = 0; i < k; ++i) rest -= p[i];
        break;
    }
    default: {
        const uint16_t *p = (const uint16_t *)s->weights + base;
        rest = 65535.0;
        for (int i = 0; i < k; ++i) rest -= p[i];
        break;
    }
    }
    return rest > 0.0 ? rest : 0.0;
}

/* Decodes vertex v's influences, an implied last weight written out;
 * returns the influence count (zero weights included: callers skip them). */
static inline int sinew__skin_fetch(const sinew_skin *s, int v, int *idx, float *w)
{
    int n = s->influence_count, k = sinew__skin_stored_weights(s);
    size_t base = (size_t)v * (size_t)n, wbase = (size_t)v * (size_t)k;
    if (s->index_type == SINEW_INDEX_U8) {
        const uint8_t *p = (const uint8_t *)s->indices + base;
        for (int i = 0; i < n; ++i) idx[i] = p[i];
    } else {
        const uint16_t *p = (const uint16_t *)s->indices + base;
        for (int i = 0; i < n; ++i) idx[i] = p[i];
    }
    float unit;
    switch (s->weight_type) {
    case SINEW_WEIGHT_F32: {
        const float *p = (const float *)s->weights + wbase;
        for (int i = 0; i < k; ++i) w[i] = p[i];
        unit = 1.0f;
        break;
    }
    case SINEW_WEIGHT_UNORM8: {
        const uint8_t *p = (const uint8_t *)s->weights + wbase;
        unit = 1.0f / 255.0f;
        for (int i = 0; i < k; ++i) w[i] = (float)p[i] * unit;
        break;
    }
    default: {
        const uint16_t *p = (const uint16_t *)s->weights + wbase;
        unit = 1.0f / 65535.0f;
        for (int i = 0; i < k; ++i) w[i] = (float)p[i] * unit;
        break;
    }
    }
    if (k < n) w[n - 1] = (float)sinew__skin_implied_weight(s, v) * unit;
    return n;
}

static inline const float *sinew__in(const float *base, size_t stride, int v)
{
    return (const float *)((const char *)base + (size_t)v * stride);
}

static inline float *sinew__out(float *base, size_t stride, int v)
{
    return (float *)((char *)base + (size_t)v * stride);
}

/* The influences of SINEW__BLOCK consecutive vertices regrouped by joint:
 * block b holds vertices [b * SINEW__BLOCK, (b + 1) * SINEW__BLOCK), acted on
 * by n distinct skin joints, joint k of them with one weight per vertex (0
 * where it does not act, the sum where a vertex lists it twice). Blended
 * this way the palette is read once per joint and block and nothing needs
 * transposing: each weight row is one vector. Blocks are grouped by n, each
 * group stored in the order the kernels visit it (ascending block index),
 * so a group runs an unrolled loop the branch predictor learns over records
 * that follow one another in memory. Built by sinew_skin_create. */
enum { SINEW__BLOCK = 8, SINEW__BLOCK_MAX_JOINTS = SINEW__BLOCK * SINEW_MAX_INFLUENCES };

typedef struct sinew__block_group {
    int count;               /* blocks with this many joints */
    const uint32_t *block;   /* their indices, ascending */
    const uint16_t *joints;  /* n skin joints per block */
    const float *weights;    /* n rows of SINEW__BLOCK per block, 32-byte aligned */
    /* per block, per vertex: the row of its first weighted influence, the
     * one DQS aligns the others' rotations with (0 past the last vertex) */
    const uint8_t *pivot;
} sinew__block_group;

/* group[k] holds the blocks of k joints, but for k = 0 (SINEW__UNIT_GROUP):
 * blocks whose every vertex follows one joint with weight exactly 1 (a
 * hand, a prop), stored as one-joint blocks, their weight rows all 1. LBS
 * takes that joint's palette matrix as the blend, without multiplying; the
 * other kernels run them as one-joint blocks. */
enum { SINEW__UNIT_GROUP = 0 };

/* The joints per block of group k. */
static inline int sinew__group_joints(int k) { return k == SINEW__UNIT_GROUP ? 1 : k; }

/* A skin's blocks as a file stores them (see sinew__skin_blocks below):
 * per group, its block count and its arrays as bytes, little-endian, at
 * any alignment (copied before they are read). */
typedef struct sinew__stored_blocks {
    int count[SINEW__BLOCK_MAX_JOINTS + 1];
    const void *block[SINEW__BLOCK_MAX_JOINTS + 1];   /* count uint32 */
    const void *joints[SINEW__BLOCK_MAX_JOINTS + 1];  /* count * n uint16 */
    const void *weights[SINEW__BLOCK_MAX_JOINTS + 1]; /* count * n * SINEW__BLOCK float */
    const void *pivot[SINEW__BLOCK_MAX_JOINTS + 1];   /* count * SINEW__BLOCK uint8 */
} sinew__stored_blocks;

enum { SINEW__PALETTE_LANE_FLOATS = 40 };

typedef struct sinew__skin_blocks {
    sinew__block_group group[SINEW__BLOCK_MAX_JOINTS + 1]; /* by joint count, see SINEW__UNIT_GROUP */
    /* the inverse bind matrices as the palette kernel reads them,
     * SINEW__PALETTE_LANE_FLOATS per joint, 32-byte aligned: vector i
     * (0..3) holds element i of column 0 in lanes 0-3, of column 1 in 4-7,
     * then columns 2 and 3 as they are; elements that are subnormal or
     * below 2^-64 of their matrix's largest are zeros */
    const float *inverse_bind_lanes;
    int joint_end;  /* 1 + the highest skeleton joint the skin uses */
    /* every inverse bind matrix's last row is (0, 0, 0, 1): the palette's
     * products drop the terms it would multiply by 0 */
    bool inverse_bind_affine;
} sinew__skin_blocks;

/* A skin as sinew_skin_create makes it: the public struct first, then what
 * only the library reads, so that the public struct's layout does not
 * change with it. */
typedef struct sinew__skin {
    sinew_skin base;
    sinew__skin_blocks *blocks; /* the influences regrouped for the SIMD kernels */
    int simd;                   /* the sinew_simd the skin's kernels run */
    sinew_allocator allocator;
} sinew__skin;

/* sinew_skin_create() with the SIMD blocks taken from `stored` (a file's) instead of built from the
 * influences: copied, then checked to hold what the kernels rely on to stay
 * within their arrays (every block once, ascending in its group, joints
 * below the skin's joint count, pivot rows below the block's joints) and
 * finite weights (a unit group's all 1); that the rows are the influences
 * regrouped is the writer's word, not checked. NULL `stored`: as
 * sinew_skin_create(). */
/* `borrow`: the skin keeps `d`'s indices, weights and inverse bind matrices
 * and `stored`'s arrays where they lie instead of copying them (the
 * caller keeps them alive and unchanged for the skin's life; the blocks'
 * weight rows 32-byte aligned, else they are copied), and refuses
 * influences that would need repairing, which it cannot write. */
sinew_skin *sinew__skin_create_stored(const sinew_skeleton *sk, const sinew_skin_desc *d,
                                      const sinew__stored_blocks *stored, bool borrow, const sinew_options *options,
                                      sinew_skin_report *report, sinew_error *err);

/* The library's view of a skin it made (written only while it is made). */
static inline sinew__skin *sinew__skin_of(const sinew_skin *skin) { return (sinew__skin *)(uintptr_t)skin; }

/* sinew_skin_inputs: a block's positions (or normals) are 24 floats, x of
 * its 8 vertices, then y, then z (0 past the skin's last vertex), 32-byte
 * aligned; the blocks in the kernels' order, group by group (group k's
 * entry i at slot group_first[k] + i). */
enum { SINEW__PREPARED_FLOATS = 3 * SINEW__BLOCK };

struct sinew_skin_inputs {
    const sinew_skin *skin;
    sinew_allocator allocator;  /* the skin's, kept: the inputs may outlive it */
    float *positions, *normals; /* NULL where not given */
    uint32_t *slot;             /* each block's slot, by block index */
    uint32_t group_first[SINEW__BLOCK_MAX_JOINTS + 1];
};

/* The level a job runs: what it asks for, capped by the skin's level. */
static inline sinew_simd sinew__skin_job_level(const sinew_skin_job *job)
{
    return (sinew_simd)sinew__simd_cap((int)job->simd, sinew__skin_of(job->skin)->simd);
}

/* sinew_skin_job_validate for the public function `who`, whose name starts
 * the error sentence (sinew_skin_lbs, sinew_skin_dqs_parallel, ...). */
sinew_result sinew__skin_job_check(const sinew_skin_job *job, bool dqs, const char *who, sinew_error *err);

/* The range [*begin, *end) of a validated job, strides with 0 resolved,
 * and where its positions and normals come from. */
typedef struct sinew__job_streams {
    int begin, end;
    /* bytes from one vertex to the next in each stream, in and out */
    size_t position_stride, normal_stride, tangent_stride;
    size_t out_position_stride, out_normal_stride, out_tangent_stride;
    bool positions, normals; /* skinned, from the job's streams or its inputs */
    /* the job's sinew_skin_inputs, NULL without: */
    const float *prepared_positions, *prepared_normals;
    const uint32_t *slot, *group_first;
} sinew__job_streams;

/* The first entry of group g in [lo, hi) whose block is at or after
 * `block`, hi where none is (a group lists its blocks in increasing order):
 * a binary search, as a group may list hundreds of blocks. */
static inline size_t sinew__group_lower_bound(const sinew__block_group *g, size_t lo, size_t hi, uint32_t block)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->block[mid] < block)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The entries [*lo_out, *end_out) of group g whose blocks meet the job's
 * range. */
static inline void sinew__group_span(const sinew__block_group *g, const sinew__job_streams *st, size_t *lo_out,
                                     size_t *end_out)
{
    uint32_t first = (uint32_t)(st->begin / SINEW__BLOCK);
    uint32_t end = (uint32_t)((st->end - 1) / SINEW__BLOCK) + 1;
    *lo_out = sinew__group_lower_bound(g, 0, (size_t)g->count, first);
    *end_out = sinew__group_lower_bound(g, *lo_out, (size_t)g->count, end);
}

/* Vertex v's position or normal: from its block's prepared copy when
 * `prepared`, else from the stream. */
static inline sinew_vec3 sinew__read_input(const float *prepared, const uint32_t *slot, const float *stream,
                                           size_t stride, int v)
{
    if (prepared) {
        const float *p = prepared + (size_t)slot[v / SINEW__BLOCK] * SINEW__PREPARED_FLOATS + v % SINEW__BLOCK;
        return sinew__v3(p[0], p[SINEW__BLOCK], p[2 * SINEW__BLOCK]);
    }
    const float *p = sinew__in(stream, stride, v);
    return sinew__v3(p[0], p[1], p[2]);
}

sinew__job_streams sinew__job_resolve(const sinew_skin_job *job);

/* The normal mode an LBS job runs: SINEW_NORMALS_AUTO decided by the
 * palette (sinew_palette_is_conformal, once a call), else the job's. */
sinew_normal_mode sinew__lbs_normal_mode(const sinew_skin_job *job, const sinew__job_streams *st);

/* LBS of vertex v by its blended matrix m (3x4, column-major without the
 * last row): the scalar reference's per-vertex work, which the NEON kernel
 * shares after blending eight vertices' matrices at once. */
static inline void sinew__lbs_vertex(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode,
                                     int v, const float m[12])
{
    if (st->positions) {
        sinew_vec3 q = sinew__mat3_apply(m, sinew__read_input(st->prepared_positions, st->slot, job->positions,
                                                              st->position_stride, v));
        float *o = sinew__out(job->out_positions, st->out_position_stride, v);
        o[0] = q.x + m[9];
        o[1] = q.y + m[10];
        o[2] = q.z + m[11];
    }
    if (st->normals) {
        sinew_vec3 nv = sinew__read_input(st->prepared_normals, st->slot, job->normals, st->normal_stride, v);
        nv = mode == SINEW_NORMALS_FAST ? sinew__mat3_apply(m, nv) : sinew__mat3_transform_normal(m, nv);
        if (!job->skip_renormalize) nv = sinew__v3_normalize(nv);
        float *o = sinew__out(job->out_normals, st->out_normal_stride, v);
        o[0] = nv.x, o[1] = nv.y, o[2] = nv.z;
    }
    if (job->tangents) {
        const float *p = sinew__in(job->tangents, st->tangent_stride, v);
        float handedness = p[3];
        sinew_vec3 t = sinew__mat3_apply(m, sinew__v3(p[0], p[1], p[2]));
        if (!job->skip_renormalize) t = sinew__v3_normalize(t);
        float *o = sinew__out(job->out_tangents, st->out_tangent_stride, v);
        o[0] = t.x, o[1] = t.y, o[2] = t.z, o[3] = handedness;
    }
}

/* The kernels of one SIMD level: LBS (validated job, normal mode decided),
 * DQS (validated job; `rigid`: every stretch is the identity; `uniform`:
 * normals skip the stretch) and the palette (checked joints, no left
 * matrix). */
typedef struct sinew__skin_kernels {
    void (*lbs)(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode);
    void (*dqs)(const sinew_skin_job *job, const sinew__job_streams *st, bool rigid, bool uniform);
    void (*palette)(const sinew_skin *skin, const sinew_mat4 *model, sinew_mat4 *palette);
} sinew__skin_kernels;

/* The kernels of a SIMD level (a sinew_simd), or NULL where the scalar
 * reference runs (skin/simd/dispatch.c: the only place that knows which
 * kernels were built); a level's table may leave an entry NULL, the
 * scalar reference then running that step. */
const sinew__skin_kernels *sinew__skin_kernels_for(int level);

/* The NEON kernel of sinew_skin_lbs (AArch64). */
void sinew__skin_lbs_neon(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode);
/* The SIMD kernels of sinew_skin_lbs. */
void sinew__skin_lbs_avx2(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode);
void sinew__skin_lbs_avx512(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode);
/* The SIMD kernels of sinew_skin_dqs (validated job; `rigid`: every stretch
 * is the identity; `uniform`: normals skip the stretch). */
void sinew__skin_dqs_avx2(const sinew_skin_job *job, const sinew__job_streams *st, bool rigid, bool uniform);
void sinew__skin_dqs_avx512(const sinew_skin_job *job, const sinew__job_streams *st, bool rigid, bool uniform);

/* palette[j] = model[skin->joints[j]] * inverse_bind[j] for every skin joint,
 * sinew__mat4_mul's sums with fused multiply-adds (checked joints, no left
 * matrix), from
 * sinew__skin_of(skin)->blocks->inverse_bind_lanes. */
void sinew__skin_palette_avx2(const sinew_skin *skin, const sinew_mat4 *model, sinew_mat4 *palette);

#endif
