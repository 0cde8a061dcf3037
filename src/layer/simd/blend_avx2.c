/* SPDX-License-Identifier: MIT */
/* sinew_blend and sinew_blend_pose with 256-bit vectors (run only where
 * sinew_simd_supported() says so): eight joints a step, one vector per
 * component. sinew_blend's transforms are loaded a joint per 128-bit row
 * and transposed (pose_block_avx.h); a SoA pose's block is those vectors
 * as they lie. Both then run the same lanes: blend.c's sums with fused
 * multiply-adds, the rotation's reciprocal length from the estimate
 * instruction and one Newton step (exact square root and division where
 * the estimate cannot be used), and a joint with one contributor copied as
 * it is, as the scalar reference does.
 *
 * Layers without masks (the common case) weigh every joint alike: which
 * of them count, the rest pose's share and the total weight are the
 * scalar reference's for every joint, so they are worked out once per
 * call, the total's reciprocal by an exact division folded into the
 * weights of the means. The contributors, the rest pose among them when
 * it fills in, go in a short list, unrolled for up to four (a SoA call
 * whose layers all count, with no rest pose to fill in, reads the layers
 * as they lie).
 *
 * With masks, weights differ from lane to lane: the total's reciprocal
 * comes from the estimate and a Newton step, and a layer that does not
 * count for a lane (weight not above 0) adds +0 * +0 to its sums, even
 * where its floats are NaN. A block goes over its layers twice: first the
 * rotations and the total weight (which decides the rest pose's share),
 * then the translations and scales, so that each pass keeps its sums in
 * registers (ten sums, the rest rotations and the weights at once would
 * not fit in sixteen). A transform array's rows split the same way:
 * rotations are floats 3-6, translation and scale floats 0-2 and 7-9, so
 * each pass transposes only what it reads. SoA poses go further, as in
 * the common case: the first pass runs over every block before the second
 * starts, so that one block's rotation chain overlaps other blocks' work,
 * and the joints with one contributor take its floats by vector selects. */
#include "layer/blend_internal.h"

#include "skeleton/simd/pose_block_avx.h"

#include <float.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

/* Layer weights for the eight joints from `first`: `weight` times the
 * mask's; `valid` of them read (the others 0), for a SoA pose's last
 * block. */
INLINE __m256 layer_weight(float weight, const float *mask, int first, int valid)
{
    __m256 w = _mm256_set1_ps(weight);
    if (!mask) return w;
    if (valid == 8) return _mm256_mul_ps(w, _mm256_loadu_ps(mask + first));
    __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_mul_ps(w, _mm256_maskload_ps(mask + first, in));
}

/* w (not negative) where the rotations q are on the side of rr, -w where
 * not: blend.c's other_side, the same products and sums in the same order
 * (a dot product near 0 picks a side, so it must be the scalar one; the
 * build keeps them unfused, -ffp-contract=off), its sign bit moved onto
 * w. */
INLINE __m256 side_weight(__m256 w, const __m256 q[4], const __m256 rr[4])
{
    __m256 dot = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], rr[0]), _mm256_mul_ps(q[1], rr[1])),
                                             _mm256_mul_ps(q[2], rr[2])),
                               _mm256_mul_ps(q[3], rr[3]));
    return _mm256_xor_ps(w, _mm256_and_ps(dot, _mm256_set1_ps(-0.0f)));
}

/* The rotation pass's sums. */
typedef struct rot_sums {
    __m256 q[4], total;
    int any, multi; /* lane bits: some contributor counted, two or more did */
} rot_sums;

/* One contributor's rotations q (weights w, counted where `counts`, lane
 * bits `lanes`), put on the side of the rest rotations rr. */
INLINE void rot_add(rot_sums *s, __m256 w, __m256 counts, int lanes, const __m256 q[4], const __m256 rr[4])
{
    __m256 wq = side_weight(w, q, rr);
    if (lanes == 0xff) {
        for (int c = 0; c < 4; ++c) s->q[c] = _mm256_fmadd_ps(wq, q[c], s->q[c]);
        s->total = _mm256_add_ps(s->total, w);
    } else {
        wq = _mm256_and_ps(wq, counts);
        for (int c = 0; c < 4; ++c) s->q[c] = _mm256_fmadd_ps(wq, _mm256_and_ps(q[c], counts), s->q[c]);
        s->total = _mm256_add_ps(s->total, _mm256_and_ps(w, counts));
    }
    s->multi |= s->any & lanes;
    s->any |= lanes;
}

/* One contributor's translations and scales v (t x y z, s x y z). */
INLINE void move_add(__m256 sum[6], __m256 w, __m256 counts, int lanes, const __m256 v[6])
{
    if (lanes == 0xff) {
        for (int c = 0; c < 6; ++c) sum[c] = _mm256_fmadd_ps(w, v[c], sum[c]);
    } else {
        w = _mm256_and_ps(w, counts);
        for (int c = 0; c < 6; ++c) sum[c] = _mm256_fmadd_ps(w, _mm256_and_ps(v[c], counts), sum[c]);
    }
}

/* r / sqrt(len2) into q by the exact square root and division, the
 * identity where len2 is 0 or not finite (sinew__q_normalize's rule). */
INLINE void divide_by_length(const __m256 r[4], __m256 len2, __m256 q[4])
{
    __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(len2));
    __m256 sane = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_GT_OQ),
                                _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
    for (int c = 0; c < 4; ++c)
        q[c] = _mm256_blendv_ps(_mm256_set1_ps(c == 3 ? 1.0f : 0.0f), _mm256_mul_ps(r[c], inv), sane);
}

/* Rotation sums normalized as sinew__q_normalize (the identity where the
 * length is 0 or not finite). The estimate y of 1 / sqrt(len2) is refined
 * by y (1.5 - 0.5 len2 y^2); where len2 is 0, too small for the estimate
 * (it reads denormals as 0), infinite or NaN, len2 y is infinite or NaN,
 * and the block takes the exact square root and division instead. */
INLINE void normalize(const __m256 r[4], __m256 q[4])
{
    __m256 len2 = _mm256_add_ps(_mm256_fmadd_ps(r[1], r[1], _mm256_mul_ps(r[0], r[0])),
                                _mm256_fmadd_ps(r[3], r[3], _mm256_mul_ps(r[2], r[2])));
    __m256 y = _mm256_rsqrt_ps(len2), len2_y = _mm256_mul_ps(len2, y);
    if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(len2_y, _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ)) != 0, 0)) {
        divide_by_length(r, len2, q);
        return;
    }
    __m256 inv_len = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y),
                                   _mm256_fnmadd_ps(len2_y, y, _mm256_set1_ps(3.0f)));
    for (int c = 0; c < 4; ++c) q[c] = _mm256_mul_ps(r[c], inv_len);
}

/* The end of the rotation pass: the rotations normalized into q, and the
 * total weight's reciprocal (exact outside the estimate's range, as
 * above). */
INLINE __m256 rot_finish(const rot_sums *s, __m256 q[4])
{
    const __m256 total = s->total;
    __m256 outside = _mm256_or_ps(_mm256_cmp_ps(total, _mm256_set1_ps(1e-30f), _CMP_LT_OQ),
                                  _mm256_cmp_ps(total, _mm256_set1_ps(1e30f), _CMP_GT_OQ));
    __m256 inv;
    if (__builtin_expect(_mm256_movemask_ps(outside) != 0, 0)) {
        inv = _mm256_div_ps(_mm256_set1_ps(1.0f), total);
    } else {
        __m256 e = _mm256_rcp_ps(total);
        inv = _mm256_mul_ps(e, _mm256_fnmadd_ps(total, e, _mm256_set1_ps(2.0f)));
    }
    normalize(s->q, q);
    return inv;
}

/* The layer that alone counts for joint j where `from_layers`, else the
 * rest pose (layer_count): the same products the lanes compared with 0. */
#define ONLY_LAYER(layers, layer_count, from_layers, i, j, l)                                                        \
    do {                                                                                                              \
        l = layer_count;                                                                                              \
        if ((from_layers) >> (i) & 1)                                                                                 \
            for (l = 0; l < (layer_count); ++l)                                                                       \
                if ((layers)[l].weight * ((layers)[l].joint_weights ? (layers)[l].joint_weights[j] : 1.0f) > 0.0f)    \
                    break;                                                                                            \
    } while (0)

/* Layers without masks weigh every joint the same, so the scalar
 * reference's per-joint sums of weights are the same for every joint:
 * which layers count, the rest pose's share, the total and its reciprocal
 * are worked out once, as the reference does per joint (the division
 * exact), and the blocks only sum the poses. */
typedef struct uniform {
    float total_inv, rest_weight;
    bool rest_counts;
    int contributors, only; /* only: the last contributor (layer_count: the rest pose) */
} uniform;

/* The layers' uniform weights, or false where a layer has a mask. */
static bool uniform_weights(const float *weight_of, const float *const *mask_of, size_t stride, int layer_count,
                            float threshold, uniform *u)
{
    float total = 0.0f;
    u->contributors = 0, u->only = layer_count;
    for (int i = 0; i < layer_count; ++i) {
        const float *w = (const float *)((const char *)weight_of + (size_t)i * stride);
        if (*(const float *const *)((const char *)mask_of + (size_t)i * stride)) return false;
        if (!(*w > 0.0f)) continue;
        total += *w, ++u->contributors, u->only = i;
    }
    u->rest_weight = threshold - total;
    u->rest_counts = u->rest_weight > 0.0f;
    if (u->rest_counts) total += u->rest_weight, ++u->contributors, u->only = layer_count;
    u->total_inv = 1.0f / total;
    return true;
}

/* The rotation pass's sums with a uniform weight w: as rot_add. */
INLINE void rot_add_uniform(__m256 sum[4], float w, const __m256 q[4], const __m256 rr[4])
{
    __m256 wq = side_weight(_mm256_set1_ps(w), q, rr);
    for (int c = 0; c < 4; ++c) sum[c] = _mm256_fmadd_ps(wq, q[c], sum[c]);
}

/* ---- sinew_blend: transforms in and out ----------------------------------- */

/* Four floats from float `at` of eight consecutive transforms, one vector
 * per float. */
INLINE void load8(const sinew_transform *pose, int at, __m256 v[4])
{
    const float *rows[8];
    for (int i = 0; i < 8; ++i) rows[i] = &pose[i].translation.x;
    sinew__transpose_halves(sinew__joint_rows(rows, 0, at), sinew__joint_rows(rows, 1, at),
                            sinew__joint_rows(rows, 2, at), sinew__joint_rows(rows, 3, at), v);
}

/* Translation and scale of eight consecutive transforms: floats 0-3 and
 * 6-9 (rotation x and w left out). */
INLINE void load8_moves(const sinew_transform *pose, __m256 v[6])
{
    __m256 a[4], b[4];
    load8(pose, 0, a), load8(pose, 6, b);
    v[0] = a[0], v[1] = a[1], v[2] = a[2], v[3] = b[1], v[4] = b[2], v[5] = b[3];
}

/* The first joint of block b: the last block ends with the last joint,
 * recomputing some of the block before it (the same values). */
static int block_first(int b, int count) { return 8 * b + 8 <= count ? 8 * b : count - 8; }

/* sinew__blend_avx2 for n uniform contributors pose[k] with weight[k] (n
 * a constant where inlined, so that the loops over them unroll). */
INLINE void blend_uniform_aos(const sinew_transform *const *pose, const float *weight, int n,
                              const sinew_transform *rest_pose, float total_inv, sinew_transform *out, int count)
{
    int blocks = (count + 7) / 8;
    __m256 w[4], mean_w[4]; /* mean_w: weight / total, for the weighted means */
    for (int k = 0; k < n; ++k) w[k] = _mm256_set1_ps(weight[k]), mean_w[k] = _mm256_set1_ps(weight[k] * total_inv);
    for (int b = 0; b < blocks; ++b) {
        int first = block_first(b, count);
        __m256 rr[4], q[4], r[4], v[10], m[6];
        load8(rest_pose + first, 3, rr);
        for (int k = 0; k < n; ++k) {
            load8(pose[k] + first, 3, q);
            __m256 wq = side_weight(w[k], q, rr);
            for (int c = 0; c < 4; ++c) r[c] = k ? _mm256_fmadd_ps(wq, q[c], r[c]) : _mm256_mul_ps(wq, q[c]);
        }
        normalize(r, v + 3);
        for (int k = 0; k < n; ++k) {
            load8_moves(pose[k] + first, m);
            for (int c = 0; c < 6; ++c) {
                int to = c < 3 ? c : c + 4;
                v[to] = k ? _mm256_fmadd_ps(mean_w[k], m[c], v[to]) : _mm256_mul_ps(mean_w[k], m[c]);
            }
        }
        float *rows[8];
        for (int i = 0; i < 8; ++i) rows[i] = &out[first + i].translation.x;
        sinew__store_rows(v, rows);
    }
}

int sinew__blend_avx2(const sinew_transform *rest_pose, const sinew_blend_layer *layers, int layer_count,
                      float threshold, sinew_transform *out, int count)
{
    if (count < 8) return 0;
    int blocks = (count + 7) / 8;
    const __m256 zero = _mm256_setzero_ps();
    uniform u;
    if (uniform_weights(&layers[0].weight, &layers[0].joint_weights, sizeof *layers, layer_count, threshold, &u)) {
        if (u.contributors == 1) { /* one pose: itself, bit for bit */
            memcpy(out, u.only < layer_count ? layers[u.only].pose : rest_pose, sizeof *out * (size_t)count);
            return count;
        }
        enum { FEW = 4 }; /* as sinew__blend_pose_avx2 */
        if (u.contributors <= FEW) {
            const sinew_transform *pose[FEW] = {NULL};
            float weight[FEW] = {0};
            int n = 0;
            for (int i = 0; i < layer_count; ++i)
                if (layers[i].weight > 0.0f) pose[n] = layers[i].pose, weight[n++] = layers[i].weight;
            if (u.rest_counts) pose[n] = rest_pose, weight[n++] = u.rest_weight;
            if (n == 2) blend_uniform_aos(pose, weight, 2, rest_pose, u.total_inv, out, count);
            else if (n == 3) blend_uniform_aos(pose, weight, 3, rest_pose, u.total_inv, out, count);
            else blend_uniform_aos(pose, weight, 4, rest_pose, u.total_inv, out, count);
            return count;
        }
        for (int b = 0; b < blocks; ++b) {
            int first = block_first(b, count);
            __m256 rr[4], q[4], v[10], sum[6] = {zero, zero, zero, zero, zero, zero}, m[6];
            __m256 r[4] = {zero, zero, zero, zero};
            load8(rest_pose + first, 3, rr);
            for (int i = 0; i < layer_count; ++i) {
                if (!(layers[i].weight > 0.0f)) continue;
                load8(layers[i].pose + first, 3, q);
                rot_add_uniform(r, layers[i].weight, q, rr);
            }
            if (u.rest_counts) rot_add_uniform(r, u.rest_weight, rr, rr);
            normalize(r, v + 3);
            for (int i = 0; i < layer_count; ++i) {
                if (!(layers[i].weight > 0.0f)) continue;
                load8_moves(layers[i].pose + first, m);
                for (int c = 0; c < 6; ++c) sum[c] = _mm256_fmadd_ps(_mm256_set1_ps(layers[i].weight), m[c], sum[c]);
            }
            if (u.rest_counts) {
                load8_moves(rest_pose + first, m);
                for (int c = 0; c < 6; ++c) sum[c] = _mm256_fmadd_ps(_mm256_set1_ps(u.rest_weight), m[c], sum[c]);
            }
            __m256 inv = _mm256_set1_ps(u.total_inv);
            for (int c = 0; c < 3; ++c) v[c] = _mm256_mul_ps(sum[c], inv), v[7 + c] = _mm256_mul_ps(sum[3 + c], inv);
            float *rows[8];
            for (int i = 0; i < 8; ++i) rows[i] = &out[first + i].translation.x;
            sinew__store_rows(v, rows);
        }
        return count;
    }
    for (int b = 0; b < blocks; ++b) {
        int first = block_first(b, count);
        __m256 rr[4], v[10];
        load8(rest_pose + first, 3, rr);
        rot_sums s = {{zero, zero, zero, zero}, zero, 0, 0};
        for (int i = 0; i < layer_count; ++i) {
            __m256 w = layer_weight(layers[i].weight, layers[i].joint_weights, first, 8);
            __m256 counts = _mm256_cmp_ps(w, zero, _CMP_GT_OQ);
            int lanes = _mm256_movemask_ps(counts);
            if (!lanes) continue;
            __m256 q[4];
            load8(layers[i].pose + first, 3, q);
            rot_add(&s, w, counts, lanes, q, rr);
        }
        int from_layers = s.any;
        __m256 rest_w = _mm256_sub_ps(_mm256_set1_ps(threshold), s.total);
        __m256 rest_counts = _mm256_cmp_ps(rest_w, zero, _CMP_GT_OQ);
        int rest_lanes = _mm256_movemask_ps(rest_counts);
        if (rest_lanes) rot_add(&s, rest_w, rest_counts, rest_lanes, rr, rr);
        __m256 inv = rot_finish(&s, v + 3);
        __m256 sum[6] = {zero, zero, zero, zero, zero, zero}, m[6];
        for (int i = 0; i < layer_count; ++i) {
            __m256 w = layer_weight(layers[i].weight, layers[i].joint_weights, first, 8);
            __m256 counts = _mm256_cmp_ps(w, zero, _CMP_GT_OQ);
            int lanes = _mm256_movemask_ps(counts);
            if (!lanes) continue;
            load8_moves(layers[i].pose + first, m);
            move_add(sum, w, counts, lanes, m);
        }
        if (rest_lanes) {
            load8_moves(rest_pose + first, m);
            move_add(sum, rest_w, rest_counts, rest_lanes, m);
        }
        for (int c = 0; c < 3; ++c) v[c] = _mm256_mul_ps(sum[c], inv), v[7 + c] = _mm256_mul_ps(sum[3 + c], inv);
        float *rows[8];
        for (int i = 0; i < 8; ++i) rows[i] = &out[first + i].translation.x;
        sinew__store_rows(v, rows);
        int single = s.any & ~s.multi;
        for (int i = 0; single && i < 8; ++i) {
            if (!(single >> i & 1)) continue;
            int j = first + i, l;
            ONLY_LAYER(layers, layer_count, from_layers, i, j, l);
            out[j] = l < layer_count ? layers[l].pose[j] : rest_pose[j];
        }
    }
    return count;
}

/* ---- sinew_blend_pose: SoA poses in and out ------------------------------- */

/* Components from .. from + n - 1 (v[0 .. n - 1]) of the last block of a
 * SoA pose of `count` joints, with the identity's in the padding lanes. */
INLINE void pad_block(__m256 *v, int from, int n, int count)
{
    int valid = count - (count - 1) / 8 * 8;
    if (valid == 8) return;
    __m256 in = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(valid), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
    for (int k = 0; k < n; ++k) v[k] = _mm256_blendv_ps(_mm256_set1_ps(from + k >= 6 ? 1.0f : 0.0f), v[k], in);
}

/* Floats from `from` of a SoA block. */
INLINE void load_soa(const float *block, int from, int n, __m256 *v)
{
    for (int c = 0; c < n; ++c) v[c] = _mm256_loadu_ps(block + 8 * (from + c));
}

/* load_soa with each float loaded once: GCC otherwise folds a load into
 * every use of its value as a memory operand, so a rotation read by its
 * side test and by its sum is loaded twice, and the rotation pass is bound
 * by its loads. */
INLINE void load_soa_once(const float *block, int from, int n, __m256 *v)
{
    for (int c = 0; c < n; ++c) {
        v[c] = _mm256_loadu_ps(block + 8 * (from + c));
        __asm__("" : "+x"(v[c]));
    }
}

INLINE void load_soa_moves(const float *block, __m256 v[6])
{
    load_soa(block, 0, 3, v), load_soa(block, 7, 3, v + 3);
}

/* Pointer p's value hidden from the compiler, so that the loads through it
 * are addressed by p alone: pointers that move in step, or a block's offset
 * added to several layers' poses, would otherwise become one shared index
 * added to each base, and many Intel cores split a load addressed by base
 * plus index from the multiply or add it feeds (unlamination), which costs
 * the blends' first pass a fifth more micro-ops. */
#define HIDE(p) __asm__("" : "+r"(p))

/* The SoA blocks of pose[0 .. n - 1] (n at most 4), the rest pose and the
 * output, walked block by block through pointers of their own. */
typedef struct block_walk {
    const float *pose[4], *rest;
    float *out;
} block_walk;

INLINE void walk_next(block_walk *wk, int n)
{
    for (int k = 0; k < n; ++k) {
        wk->pose[k] += SINEW_POSE_BLOCK_FLOATS;
        HIDE(wk->pose[k]);
    }
    wk->rest += SINEW_POSE_BLOCK_FLOATS, wk->out += SINEW_POSE_BLOCK_FLOATS;
    HIDE(wk->rest);
    HIDE(wk->out);
}

/* Block `at` of a pose whose blocks are read through a pointer each (HIDE). */
INLINE const float *block_at(const float *pose, size_t at)
{
    const float *p = pose + at;
    HIDE(p);
    return p;
}

/* A blend of n contributors few[0 .. n - 1] that each count in every joint
 * with their weight (masks not read; n a constant where inlined, so that
 * the loops over them unroll), total_inv the reciprocal of their total as
 * uniform_weights finds it, in two passes over the blocks. The first
 * sums the rotations and stores the sums in `out` (which aliases no
 * input); the second normalizes them and sums the translations and
 * scales. A block's rotation chain (dot products, sums, the reciprocal
 * square root and its Newton step) is long and short of work: cut in two,
 * each half overlaps the blocks around it and the independent sums of the
 * second pass (docs/BENCHMARKS.md: one pass over all of it, or the
 * normalization in the first pass, is slower). */
INLINE void blend_uniform(const sinew_pose_layer *few, int n, const float *rest, float total_inv, float *out,
                          int count)
{
    int blocks = (count + 7) / 8;
    __m256 w[4];
    block_walk start = {.rest = rest, .out = out}, wk;
    for (int k = 0; k < n; ++k) w[k] = _mm256_set1_ps(few[k].weight), start.pose[k] = few[k].pose;
    wk = start;
    for (int b = 0; b < blocks; ++b, walk_next(&wk, n)) {
        __m256 rr[4], q[4], r[4];
        load_soa_once(wk.rest, 3, 4, rr);
        for (int k = 0; k < n; ++k) {
            load_soa_once(wk.pose[k], 3, 4, q);
            __m256 wq = side_weight(w[k], q, rr);
            for (int c = 0; c < 4; ++c) r[c] = k ? _mm256_fmadd_ps(wq, q[c], r[c]) : _mm256_mul_ps(wq, q[c]);
        }
        for (int c = 0; c < 4; ++c) _mm256_storeu_ps(wk.out + 8 * (3 + c), r[c]);
    }
    /* the weighted means as sums of the poses times weight / total */
    for (int k = 0; k < n; ++k) w[k] = _mm256_set1_ps(few[k].weight * total_inv);
    wk = start;
    for (int b = 0; b < blocks; ++b, walk_next(&wk, n)) {
        __m256 q[4], r[4], v[6], m[6];
        load_soa(wk.out, 3, 4, r);
        normalize(r, q);
        for (int k = 0; k < n; ++k) {
            load_soa_moves(wk.pose[k], m);
            for (int c = 0; c < 6; ++c) v[c] = k ? _mm256_fmadd_ps(w[k], m[c], v[c]) : _mm256_mul_ps(w[k], m[c]);
        }
        if (b == blocks - 1) pad_block(q, 3, 4, count), pad_block(v, 0, 3, count), pad_block(v + 3, 7, 3, count);
        for (int c = 0; c < 4; ++c) _mm256_storeu_ps(wk.out + 8 * (3 + c), q[c]);
        for (int c = 0; c < 3; ++c) {
            _mm256_storeu_ps(wk.out + 8 * c, v[c]);
            _mm256_storeu_ps(wk.out + 8 * (7 + c), v[3 + c]);
        }
    }
}

/* sinew__blend_pose_avx2 with masks, over layers[0 .. n - 1] (n a constant
 * where inlined, so that the loops over them unroll), in two passes as
 * blend_uniform: the first sums each block's rotations and weights and
 * keeps them in the block's output (rotation sums, the total weight in the
 * x translations, the rest pose's weight in the y translations, the lane
 * bits of contributors in the x scale's first float); the second finishes
 * the block. */
INLINE void blend_masked(const sinew_pose_layer *layers, int n, const float *rest, float threshold, float *out,
                         int count)
{
    int blocks = (count + 7) / 8;
    const __m256 zero = _mm256_setzero_ps();
    for (int b = 0; b < blocks; ++b) {
        size_t at = (size_t)b * SINEW_POSE_BLOCK_FLOATS;
        int first = 8 * b, valid = count - first < 8 ? count - first : 8;
        float *o = out + at;
        HIDE(o);
        __m256 rr[4];
        load_soa_once(block_at(rest, at), 3, 4, rr);
        rot_sums s = {{zero, zero, zero, zero}, zero, 0, 0};
        for (int i = 0; i < n; ++i) {
            __m256 w = layer_weight(layers[i].weight, layers[i].joint_weights, first, valid);
            __m256 counts = _mm256_cmp_ps(w, zero, _CMP_GT_OQ);
            int lanes = _mm256_movemask_ps(counts);
            if (!lanes) continue;
            __m256 q[4];
            load_soa_once(block_at(layers[i].pose, at), 3, 4, q);
            rot_add(&s, w, counts, lanes, q, rr);
        }
        __m256 rest_w = _mm256_sub_ps(_mm256_set1_ps(threshold), s.total);
        __m256 rest_counts = _mm256_cmp_ps(rest_w, zero, _CMP_GT_OQ);
        int rest_lanes = _mm256_movemask_ps(rest_counts);
        if (rest_lanes) rot_add(&s, rest_w, rest_counts, rest_lanes, rr, rr);
        for (int c = 0; c < 4; ++c) _mm256_storeu_ps(o + 8 * (3 + c), s.q[c]);
        _mm256_storeu_ps(o, s.total);
        _mm256_storeu_ps(o + 8, rest_w);
        int32_t bits = s.any | s.multi << 8;
        memcpy(o + 8 * 7, &bits, sizeof bits);
    }
    for (int b = 0; b < blocks; ++b) {
        size_t at = (size_t)b * SINEW_POSE_BLOCK_FLOATS;
        int first = 8 * b, valid = count - first < 8 ? count - first : 8;
        const float *rest_block = block_at(rest, at);
        float *o = out + at;
        HIDE(o);
        rot_sums s;
        load_soa(o, 3, 4, s.q);
        s.total = _mm256_loadu_ps(o);
        __m256 rest_w = _mm256_loadu_ps(o + 8), v[10];
        int32_t bits;
        memcpy(&bits, o + 8 * 7, sizeof bits);
        __m256 inv = rot_finish(&s, v + 3);
        __m256 rest_counts = _mm256_cmp_ps(rest_w, zero, _CMP_GT_OQ);
        int rest_lanes = _mm256_movemask_ps(rest_counts);
        __m256 sum[6] = {zero, zero, zero, zero, zero, zero}, m[6];
        for (int i = 0; i < n; ++i) {
            __m256 w = layer_weight(layers[i].weight, layers[i].joint_weights, first, valid);
            __m256 counts = _mm256_cmp_ps(w, zero, _CMP_GT_OQ);
            int lanes = _mm256_movemask_ps(counts);
            if (!lanes) continue;
            load_soa_moves(block_at(layers[i].pose, at), m);
            move_add(sum, w, counts, lanes, m);
        }
        if (rest_lanes) {
            load_soa_moves(rest_block, m);
            move_add(sum, rest_w, rest_counts, rest_lanes, m);
        }
        for (int c = 0; c < 3; ++c) v[c] = _mm256_mul_ps(sum[c], inv), v[7 + c] = _mm256_mul_ps(sum[3 + c], inv);
        /* joints of one contributor take its transform as it is: the
         * contributors' floats where they count, or'ed together, are that
         * one's bits in those lanes */
        int single = (bits & 0xff) & ~(bits >> 8) & ((1 << valid) - 1);
        if (single) {
            __m256 only[10] = {zero, zero, zero, zero, zero, zero, zero, zero, zero, zero};
            for (int i = 0; i <= n; ++i) {
                __m256 counts = rest_counts;
                const float *src = rest_block;
                if (i < n) {
                    __m256 w = layer_weight(layers[i].weight, layers[i].joint_weights, first, valid);
                    counts = _mm256_cmp_ps(w, zero, _CMP_GT_OQ), src = block_at(layers[i].pose, at);
                }
                if (!_mm256_movemask_ps(counts)) continue;
                for (int c = 0; c < 10; ++c)
                    only[c] = _mm256_or_ps(only[c], _mm256_and_ps(_mm256_loadu_ps(src + 8 * c), counts));
            }
            __m256 pick = _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                _mm256_and_si256(_mm256_set1_epi32(single), _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)),
                _mm256_setzero_si256()));
            for (int c = 0; c < 10; ++c) v[c] = _mm256_blendv_ps(v[c], only[c], pick);
        }
        if (b == blocks - 1) pad_block(v, 0, 10, count);
        for (int c = 0; c < 10; ++c) _mm256_storeu_ps(o + 8 * c, v[c]);
    }
}

/* sinew__blend_pose_avx2 for more than four uniform contributors: the
 * same sums, a layer at a time. */
static void blend_many(const float *rest, const sinew_pose_layer *layers, int layer_count, const uniform *u,
                       float *out, int count)
{
    int blocks = (count + 7) / 8;
    const __m256 zero = _mm256_setzero_ps();
    for (int b = 0; b < blocks; ++b) {
        size_t at = (size_t)b * SINEW_POSE_BLOCK_FLOATS;
        __m256 rr[4], q[4], r[4] = {zero, zero, zero, zero};
        load_soa_once(block_at(rest, at), 3, 4, rr);
        for (int i = 0; i < layer_count; ++i) {
            if (!(layers[i].weight > 0.0f)) continue;
            load_soa_once(block_at(layers[i].pose, at), 3, 4, q);
            rot_add_uniform(r, layers[i].weight, q, rr);
        }
        if (u->rest_counts) rot_add_uniform(r, u->rest_weight, rr, rr);
        normalize(r, q);
        if (b == blocks - 1) pad_block(q, 3, 4, count);
        for (int c = 0; c < 4; ++c) _mm256_storeu_ps(out + at + 8 * (3 + c), q[c]);
    }
    const __m256 inv = _mm256_set1_ps(u->total_inv);
    for (int b = 0; b < blocks; ++b) {
        size_t at = (size_t)b * SINEW_POSE_BLOCK_FLOATS;
        __m256 sum[6] = {zero, zero, zero, zero, zero, zero}, m[6];
        for (int i = 0; i < layer_count; ++i) {
            if (!(layers[i].weight > 0.0f)) continue;
            load_soa_moves(block_at(layers[i].pose, at), m);
            for (int c = 0; c < 6; ++c) sum[c] = _mm256_fmadd_ps(_mm256_set1_ps(layers[i].weight), m[c], sum[c]);
        }
        if (u->rest_counts) {
            load_soa_moves(block_at(rest, at), m);
            for (int c = 0; c < 6; ++c) sum[c] = _mm256_fmadd_ps(_mm256_set1_ps(u->rest_weight), m[c], sum[c]);
        }
        __m256 v[10];
        for (int c = 0; c < 3; ++c) v[c] = _mm256_mul_ps(sum[c], inv), v[7 + c] = _mm256_mul_ps(sum[3 + c], inv);
        if (b == blocks - 1) pad_block(v, 0, 3, count), pad_block(v + 7, 7, 3, count);
        for (int c = 0; c < 3; ++c) {
            _mm256_storeu_ps(out + at + 8 * c, v[c]);
            _mm256_storeu_ps(out + at + 8 * (7 + c), v[7 + c]);
        }
    }
}

/* sinew__blend_pose_avx2 with masks: the layers that count somewhere in a
 * short list, few of them (the common case) unrolled. */
INLINE void blend_pose_masked(const float *rest, const sinew_pose_layer *layers, int layer_count, float threshold,
                              float *out, int count)
{
    sinew_pose_layer list[4];
    int n = 0;
    for (int i = 0; i < layer_count && n <= 4; ++i) {
        if (!(layers[i].weight > 0.0f)) continue; /* counts nowhere */
        if (n < 4) list[n] = layers[i];
        ++n;
    }
    switch (n) {
    case 0: blend_masked(list, 0, rest, threshold, out, count); break; /* the rest pose in every joint */
    case 1: blend_masked(list, 1, rest, threshold, out, count); break;
    case 2: blend_masked(list, 2, rest, threshold, out, count); break;
    case 3: blend_masked(list, 3, rest, threshold, out, count); break;
    case 4: blend_masked(list, 4, rest, threshold, out, count); break;
    default: blend_masked(layers, layer_count, rest, threshold, out, count); /* more than four */
    }
}

void sinew__blend_pose_avx2(const float *rest, const sinew_pose_layer *layers, int layer_count, float threshold,
                            float *out, int count)
{
    /* The common call: two to four layers that each count in every joint
     * (no mask, weight above 0) with a total that reaches the threshold (no
     * rest pose fills in). Its contributors are the layers as they lie:
     * the list the other calls build costs a short call its stores and
     * loads. */
    enum { FEW = 4 };
    float total = 0.0f;
    bool plain = layer_count >= 2 && layer_count <= FEW;
    for (int i = 0; plain && i < layer_count; ++i)
        plain = !layers[i].joint_weights && layers[i].weight > 0.0f, total += layers[i].weight;
    const sinew_pose_layer *few = layers;
    int n = layer_count;
    float total_inv;
    sinew_pose_layer list[FEW];
    if (plain && !(threshold - total > 0.0f)) {
        total_inv = 1.0f / total; /* uniform_weights' sum, in its order */
    } else {
        uniform u;
        if (!uniform_weights(&layers[0].weight, &layers[0].joint_weights, sizeof *layers, layer_count, threshold, &u)) {
            blend_pose_masked(rest, layers, layer_count, threshold, out, count);
            return;
        }
        if (u.contributors == 1) { /* one pose: itself, bit for bit */
            memcpy(out, u.only < layer_count ? layers[u.only].pose : rest, sizeof *out * SINEW_POSE_FLOATS(count));
            sinew__pose_pad(out, count);
            return;
        }
        if (u.contributors > FEW) {
            blend_many(rest, layers, layer_count, &u, out, count);
            return;
        }
        /* the contributors in a list, the rest pose an ordinary one (on its
         * own side) */
        n = 0;
        for (int i = 0; i < layer_count; ++i)
            if (layers[i].weight > 0.0f) list[n++] = (sinew_pose_layer){layers[i].pose, layers[i].weight, NULL};
        if (u.rest_counts) list[n++] = (sinew_pose_layer){rest, u.rest_weight, NULL};
        few = list, total_inv = u.total_inv;
    }
    /* few contributors, unrolled */
    if (n == 2) blend_uniform(few, 2, rest, total_inv, out, count);
    else if (n == 3) blend_uniform(few, 3, rest, total_inv, out, count);
    else blend_uniform(few, 4, rest, total_inv, out, count);
}

/* ---- sinew_additive_apply_pose ---------------------------------------------- */

/* q / |q| as sinew__q_normalize (the identity where |q|^2 is 0 or not
 * finite): the same sum of squares, the exact square root and division. */
INLINE void normalize_exact(__m256 q[4])
{
    __m256 len2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], q[0]), _mm256_mul_ps(q[1], q[1])),
                                              _mm256_mul_ps(q[2], q[2])),
                                _mm256_mul_ps(q[3], q[3]));
    divide_by_length(q, len2, q);
}

/* blend.c's additive_joint for the eight lanes of bv (base) and d (delta)
 * at weights w, into o. */
INLINE void additive_block(const __m256 bv[10], const __m256 d[10], __m256 w, __m256 o[10])
{
    const __m256 one = _mm256_set1_ps(1.0f);
    /* the delta rotation on the identity's side (w below 0: flipped) */
    __m256 flip = _mm256_and_ps(_mm256_cmp_ps(d[6], _mm256_setzero_ps(), _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
    __m256 part[4];
    for (int c = 0; c < 3; ++c) part[c] = _mm256_mul_ps(w, _mm256_xor_ps(d[3 + c], flip));
    part[3] = _mm256_add_ps(_mm256_sub_ps(one, w), _mm256_mul_ps(w, _mm256_xor_ps(d[6], flip)));
    normalize_exact(part);
    /* base rotation times part, in sinew__q_mul's order */
    const __m256 ax = bv[3], ay = bv[4], az = bv[5], aw = bv[6];
    __m256 *r = o + 3;
    r[0] = _mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(aw, part[0]), _mm256_mul_ps(ax, part[3])),
                                       _mm256_mul_ps(ay, part[2])),
                         _mm256_mul_ps(az, part[1]));
    r[1] = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(_mm256_mul_ps(aw, part[1]), _mm256_mul_ps(ax, part[2])),
                                       _mm256_mul_ps(ay, part[3])),
                         _mm256_mul_ps(az, part[0]));
    r[2] = _mm256_add_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(aw, part[2]), _mm256_mul_ps(ax, part[1])),
                                       _mm256_mul_ps(ay, part[0])),
                         _mm256_mul_ps(az, part[3]));
    r[3] = _mm256_sub_ps(_mm256_sub_ps(_mm256_sub_ps(_mm256_mul_ps(aw, part[3]), _mm256_mul_ps(ax, part[0])),
                                       _mm256_mul_ps(ay, part[1])),
                         _mm256_mul_ps(az, part[2]));
    normalize_exact(r);
    for (int c = 0; c < 3; ++c) {
        o[c] = _mm256_add_ps(bv[c], _mm256_mul_ps(w, d[c]));
        o[7 + c] = _mm256_mul_ps(bv[7 + c], _mm256_add_ps(one, _mm256_mul_ps(w, _mm256_sub_ps(d[7 + c], one))));
    }
}

/* weight * mask for the eight joints from `first` (`valid` of them read),
 * as the reference: times 1 without a mask. */
INLINE __m256 additive_weight(float weight, const float *mask, int first, int valid)
{
    return _mm256_mul_ps(_mm256_set1_ps(weight), mask ? layer_weight(1.0f, mask, first, valid) : _mm256_set1_ps(1.0f));
}

void sinew__additive_pose_avx2(const float *base, const float *delta, int count, float weight, const float *mask,
                               float *out)
{
    int blocks = (count + 7) / 8;
    for (int b = 0; b < blocks; ++b) {
        size_t at = (size_t)b * SINEW_POSE_BLOCK_FLOATS;
        int first = 8 * b, valid = count - first < 8 ? count - first : 8;
        __m256 bv[10], d[10], o[10];
        load_soa(base + at, 0, 10, bv), load_soa(delta + at, 0, 10, d);
        additive_block(bv, d, additive_weight(weight, mask, first, valid), o);
        for (int c = 0; c < 10; ++c) _mm256_storeu_ps(out + at + 8 * c, o[c]);
    }
}

int sinew__additive_avx2(const sinew_transform *base, const sinew_transform *delta, int count, float weight,
                         const float *mask, sinew_transform *out)
{
    int blocks = count / 8;
    for (int b = 0; b < blocks; ++b) {
        const float *base_rows[8], *delta_rows[8];
        float *out_rows[8];
        for (int i = 0; i < 8; ++i) {
            base_rows[i] = &base[8 * b + i].translation.x, delta_rows[i] = &delta[8 * b + i].translation.x;
            out_rows[i] = &out[8 * b + i].translation.x;
        }
        __m256 bv[10], d[10], o[10];
        sinew__load_rows(base_rows, bv), sinew__load_rows(delta_rows, d);
        additive_block(bv, d, additive_weight(weight, mask, 8 * b, 8), o);
        sinew__store_rows(o, out_rows);
    }
    return 8 * blocks;
}
