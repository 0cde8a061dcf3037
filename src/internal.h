/* Internal helpers shared by the library's sources. Not installed. */
#ifndef SINEW_INTERNAL_H
#define SINEW_INTERNAL_H

#include "sinew/sinew.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__)
#define SINEW__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SINEW__PRINTF(fmt, args)
#endif

/* Internal functions the other sinew libraries (libsinew_import,
 * libsinew_gpu) call: exported from the shared libsinew, named sinew__ and
 * declared in no public header. */
#if defined(__GNUC__) && !defined(_WIN32)
#define SINEW__SHARED __attribute__((visibility("default")))
#else
#define SINEW__SHARED
#endif

/* ---- errors and warnings ------------------------------------------------ */

/* Fills `err` (when not NULL) and returns `result`. */
SINEW__SHARED sinew_result sinew__fail(sinew_error *err, sinew_result result, const char *fmt, ...)
    SINEW__PRINTF(3, 4);

/* Sends a formatted warning to the options' logger, if any. */
SINEW__SHARED void sinew__warn(const sinew_options *options, const char *fmt, ...) SINEW__PRINTF(2, 3);

/* Clears `err` to SINEW_OK. */
static inline void sinew__ok(sinew_error *err)
{
    if (err) {
        err->result = SINEW_OK;
        err->description[0] = '\0';
    }
}

/* ---- allocation ---------------------------------------------------------- */

SINEW__SHARED sinew_allocator sinew__allocator(const sinew_options *options);
SINEW__SHARED void *sinew__alloc(const sinew_allocator *a, size_t size);
SINEW__SHARED void sinew__free(const sinew_allocator *a, void *ptr);
/* `size` bytes starting on a cache line (SINEW__ALIGN bytes), whatever the
 * allocator's own alignment: for arrays the kernels read in vectors, so
 * that their speed does not depend on where the allocator put them. Free
 * with sinew__free_aligned. */
enum { SINEW__ALIGN = 64 };
SINEW__SHARED void *sinew__alloc_aligned(const sinew_allocator *a, size_t size);
SINEW__SHARED void sinew__free_aligned(const sinew_allocator *a, void *ptr);

/* Lays out several arrays in one allocation: call sinew__layout_add for each
 * (returns its offset), then allocate `total` bytes. */
typedef struct sinew__layout {
    size_t total;
    bool overflow;
} sinew__layout;
size_t sinew__layout_add(sinew__layout *l, size_t count, size_t elem_size, size_t align);

/* ---- clip sampling --------------------------------------------------------- */

/* Returns k with times[k] <= t < times[k + 1], given n >= 2 and
 * times[0] <= t < times[n - 1]; `hint` (optional) is tried first and updated. */
int sinew__find_key(const float *times, int n, float t, int32_t *hint);

/* Entries local to model's schedule (sinew__make_schedule) can take for n
 * joints: a pair per joint at most, in whole blocks of four pairs. */
size_t sinew__schedule_capacity(int n);

/* Local to model's schedule (src/runtime/pose_avx2.c, which also serves the
 * AVX-512 level: a kernel taking four joints at a time in 512-bit vectors
 * measured 45% slower, for reasons not yet found; and the sampler's block
 * layout): joints in pairs that it computes side by side, each joint's
 * parent in an earlier pair. Joints are taken first in, first out as their
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

/* A 64-bit hash of `size` bytes (sinew_skeleton.rest_hash_ and
 * parents_hash_): a clip made for a skeleton keeps a copy of its rest pose
 * in its block layout, and uses the copy when the skeleton it plays on has
 * the same rest hash; its schedule serves skeletons of the same parents
 * hash. */
uint64_t sinew__hash_bytes(const void *data, size_t size);

typedef struct sinew__sampler sinew__sampler;

/* A clip's sampling plan (src/runtime/sampler.c): its LINEAR tracks laid out
 * per shared timeline for sampling many at once, or, for a clip made for
 * `skeleton` (optional) whose tracks allow it, in that skeleton's blocks
 * (sampler_internal.h). NULL when out of memory; lives in the clip's
 * allocation scheme and is freed with sinew__free_aligned. `simd`: the
 * sinew_simd level its kernel runs. */
sinew__sampler *sinew__sampler_create(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                      const sinew_allocator *alloc, int simd);

/* What sinew__sampler_pack() found. */
typedef struct sinew__pack_result {
    int refused_track; /* the first track a packed layout cannot take (-1: none) */
    const char *why;   /* why it cannot */
    int other_track;   /* for "other key times": the track whose key times the layout took (-1: none) */
    int wide_joint;    /* a joint whose values span too much for 16 bits (-1: none) */
    float errors[3];   /* translation distance, rotation angle, scale component: furthest a packed key lies from the clip's */
    int varying_floats; /* floats stored per key */
    int key_counts[3]; /* of the clip's translation, rotation and scale tracks */
} sinew__pack_result;

/* The plan of sinew_clip_pack(): the clip's translation, rotation and
 * scale tracks in sk's block layout, its animated blocks' values quantized
 * (sampler_internal.h), sampled at any SIMD level and read through no
 * track (its key hint at cursor entry `hint_slot`). NULL when the layout
 * cannot take the clip (res->refused_track, res->wide_joint) or out of
 * memory (neither). */
sinew__sampler *sinew__sampler_pack(const sinew_clip *clip, const sinew_skeleton *sk, int hint_slot,
                                    const sinew_allocator *alloc, int simd, sinew__pack_result *res);

/* Joint `joint`'s local transform in a packed plan at clip time t (wrapped
 * already), by the reference's formulas, what the plan leaves out from sk's
 * rest pose (the identity for an additive clip). */
void sinew__sampler_joint(const sinew__sampler *sampler, float t, unsigned flags, const sinew_skeleton *sk,
                          int joint, sinew_transform *out);

/* Bytes the plan holds. */
size_t sinew__sampler_bytes(const sinew__sampler *sampler);

/* The blocks of the plan's block layout stored once, not per key (its
 * constant blocks; 0 without the block layout). */
int sinew__sampler_constant_blocks(const sinew__sampler *sampler);

/* Writes the pose of `clip` at clip time t (wrapped already): every
 * translation, rotation and scale track, and from sk's rest pose what they
 * leave out (for additive clips: from the identity). `hints`: the cursor's
 * keys or NULL. */
void sinew__sampler_run(const sinew__sampler *sampler, const sinew_clip *clip, float t, unsigned flags,
                        int32_t *hints, const sinew_skeleton *sk, sinew_transform *pose);

/* As sinew__sampler_run() into `local`, and on into model space as
 * sinew_local_to_model(sk, local, root, model) computes it, when the plan
 * can do both in one pass: it is in the block layout of a skeleton with
 * sk's parents, both run at the AVX2 level or above and `root` is affine
 * (or NULL). Returns false, having written nothing, otherwise. */
bool sinew__sampler_run_model(const sinew__sampler *sampler, float t, unsigned flags, int32_t *hints,
                              const sinew_skeleton *sk, const sinew_mat4 *root, sinew_transform *local,
                              sinew_mat4 *model);

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

/* The level `want` asks for (a sinew_simd; AUTO: the best) capped by `cap`. */
static inline int sinew__simd_cap(int want, int cap) { return want <= SINEW_SIMD_AUTO || want > cap ? cap : want; }

/* The SIMD level an object made with these options runs (a sinew_simd):
 * options->simd capped by sinew_simd_supported(). */
int sinew__simd_level(const sinew_options *options);

/* Local to model space for an affine root (or none) with AVX
 * (src/runtime/pose_avx2.c; only where the CPU runs AVX2), in the order of
 * `schedule` (sinew_skeleton.schedule_, `length` entries). */
void sinew__local_to_model_avx2(const int16_t *schedule, int length, const int16_t *parents,
                                const sinew_transform *local, const sinew_mat4 *root, sinew_mat4 *model);

/* sinew_blend's loop over the joints with AVX (src/runtime/blend_avx2.c;
 * only where the CPU runs AVX2), its arguments checked: the scalar loop's
 * result bit for bit. Returns the joints it did: all of them, or none for
 * fewer than eight. */
int sinew__blend_avx2(const sinew_transform *rest_pose, const sinew_blend_layer *layers, int layer_count,
                      float threshold, sinew_transform *out, int count);

/* ---- inline math used by the hot paths ---------------------------------- */

static inline sinew_vec3 sinew__v3(float x, float y, float z)
{
    sinew_vec3 r = {x, y, z};
    return r;
}
static inline sinew_vec3 sinew__v3_add(sinew_vec3 a, sinew_vec3 b) { return sinew__v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sinew_vec3 sinew__v3_sub(sinew_vec3 a, sinew_vec3 b) { return sinew__v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sinew_vec3 sinew__v3_scale(sinew_vec3 a, float s) { return sinew__v3(a.x * s, a.y * s, a.z * s); }
static inline float sinew__v3_dot(sinew_vec3 a, sinew_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sinew_vec3 sinew__v3_cross(sinew_vec3 a, sinew_vec3 b)
{
    return sinew__v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline sinew_vec3 sinew__v3_normalize(sinew_vec3 a)
{
    float len2 = sinew__v3_dot(a, a);
    if (!(len2 > 0.0f)) return sinew__v3(0.0f, 0.0f, 0.0f);
    return sinew__v3_scale(a, 1.0f / sqrtf(len2));
}

static inline sinew_quat sinew__q(float x, float y, float z, float w)
{
    sinew_quat r = {x, y, z, w};
    return r;
}
static inline float sinew__q_dot(sinew_quat a, sinew_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline sinew_quat sinew__q_mul(sinew_quat a, sinew_quat b)
{
    return sinew__q(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                    a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                    a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                    a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline sinew_quat sinew__q_normalize(sinew_quat q)
{
    float len2 = sinew__q_dot(q, q);
    if (!(len2 > 0.0f) || !isfinite(len2)) return sinew__q(0.0f, 0.0f, 0.0f, 1.0f);
    float inv = 1.0f / sqrtf(len2);
    return sinew__q(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}
/* v' = v + 2 w (u x v) + 2 u x (u x v), u = q.xyz: unit quaternions only. */
static inline sinew_vec3 sinew__q_rotate(sinew_quat q, sinew_vec3 v)
{
    sinew_vec3 u = sinew__v3(q.x, q.y, q.z);
    sinew_vec3 t = sinew__v3_scale(sinew__v3_cross(u, v), 2.0f);
    return sinew__v3_add(sinew__v3_add(v, sinew__v3_scale(t, q.w)), sinew__v3_cross(u, t));
}

/* Rotation part of T*R*S as 3 columns, scaled. */
static inline void sinew__mat4_from_trs(sinew_mat4 *out, sinew_vec3 t, sinew_quat q, sinew_vec3 s)
{
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, xy = q.x * y2, xz = q.x * z2;
    float yy = q.y * y2, yz = q.y * z2, zz = q.z * z2;
    float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    float *m = out->m;
    m[0] = (1.0f - (yy + zz)) * s.x;
    m[1] = (xy + wz) * s.x;
    m[2] = (xz - wy) * s.x;
    m[3] = 0.0f;
    m[4] = (xy - wz) * s.y;
    m[5] = (1.0f - (xx + zz)) * s.y;
    m[6] = (yz + wx) * s.y;
    m[7] = 0.0f;
    m[8] = (xz + wy) * s.z;
    m[9] = (yz - wx) * s.z;
    m[10] = (1.0f - (xx + yy)) * s.z;
    m[11] = 0.0f;
    m[12] = t.x;
    m[13] = t.y;
    m[14] = t.z;
    m[15] = 1.0f;
}

static inline void sinew__mat4_mul(sinew_mat4 *out, const sinew_mat4 *a, const sinew_mat4 *b)
{
#if defined(__SSE2__)
    /* the same products summed in the same order as below, four rows at a
     * time: bit for bit the scalar result (no fused multiply-add) */
    __m128 a0 = _mm_loadu_ps(a->m), a1 = _mm_loadu_ps(a->m + 4), a2 = _mm_loadu_ps(a->m + 8),
           a3 = _mm_loadu_ps(a->m + 12);
    __m128 r[4];
    for (int c = 0; c < 4; ++c) {
        __m128 bc = _mm_loadu_ps(b->m + c * 4);
        __m128 t = _mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bc, bc, 0x00)), _mm_mul_ps(a1, _mm_shuffle_ps(bc, bc, 0x55)));
        t = _mm_add_ps(t, _mm_mul_ps(a2, _mm_shuffle_ps(bc, bc, 0xaa)));
        r[c] = _mm_add_ps(t, _mm_mul_ps(a3, _mm_shuffle_ps(bc, bc, 0xff)));
    }
    for (int c = 0; c < 4; ++c) _mm_storeu_ps(out->m + c * 4, r[c]);
#else
    sinew_mat4 r;
    for (int c = 0; c < 4; ++c) {
        const float *bc = &b->m[c * 4];
        for (int row = 0; row < 4; ++row) {
            r.m[c * 4 + row] = a->m[row] * bc[0] + a->m[4 + row] * bc[1] + a->m[8 + row] * bc[2] +
                               a->m[12 + row] * bc[3];
        }
    }
    *out = r;
#endif
}

/* Affine product: both last rows are (0, 0, 0, 1). */
static inline void sinew__mat4_mul_affine(sinew_mat4 *out, const sinew_mat4 *a, const sinew_mat4 *b)
{
    sinew_mat4 r;
    for (int c = 0; c < 4; ++c) {
        const float *bc = &b->m[c * 4];
        for (int row = 0; row < 3; ++row) {
            r.m[c * 4 + row] = a->m[row] * bc[0] + a->m[4 + row] * bc[1] + a->m[8 + row] * bc[2];
        }
        r.m[c * 4 + 3] = 0.0f;
    }
    r.m[12] += a->m[12];
    r.m[13] += a->m[13];
    r.m[14] += a->m[14];
    r.m[15] = 1.0f;
    *out = r;
}

static inline bool sinew__finite_n(const float *v, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i])) return false;
    return true;
}

/* Cofactor matrix of a column-major 3x3: cof(A) = det(A) * A^-T, so it maps
 * normals of A-transformed surfaces without a division. */
static inline void sinew__mat3_cofactor(const float a[9], float out[9])
{
    sinew_vec3 c0 = sinew__v3(a[0], a[1], a[2]);
    sinew_vec3 c1 = sinew__v3(a[3], a[4], a[5]);
    sinew_vec3 c2 = sinew__v3(a[6], a[7], a[8]);
    sinew_vec3 r0 = sinew__v3_cross(c1, c2);
    sinew_vec3 r1 = sinew__v3_cross(c2, c0);
    sinew_vec3 r2 = sinew__v3_cross(c0, c1);
    out[0] = r0.x; out[1] = r0.y; out[2] = r0.z;
    out[3] = r1.x; out[4] = r1.y; out[5] = r1.z;
    out[6] = r2.x; out[7] = r2.y; out[8] = r2.z;
}

static inline sinew_vec3 sinew__mat3_apply(const float a[9], sinew_vec3 v)
{
    return sinew__v3(a[0] * v.x + a[3] * v.y + a[6] * v.z, a[1] * v.x + a[4] * v.y + a[7] * v.z,
                     a[2] * v.x + a[5] * v.y + a[8] * v.z);
}

/* The direction of A^-T n, how a normal follows the linear map A, without a
 * division: cofactor(A) n, flipped when det(A) < 0 (a mirror). Not
 * normalized. */
static inline sinew_vec3 sinew__mat3_transform_normal(const float a[9], sinew_vec3 n)
{
    float cof[9];
    sinew__mat3_cofactor(a, cof);
    sinew_vec3 r = sinew__mat3_apply(cof, n);
    float det = a[0] * cof[0] + a[1] * cof[1] + a[2] * cof[2];
    return det < 0.0f ? sinew__v3_scale(r, -1.0f) : r;
}

#endif /* SINEW_INTERNAL_H */
