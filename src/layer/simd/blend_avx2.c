/* SPDX-License-Identifier: MIT */
/* sinew_blend with 256-bit vectors (run only where sinew_simd_supported()
 * says so): eight consecutive joints a step, each layer's transforms, and
 * the rest pose's, loaded a joint per 128-bit row and transposed into one
 * vector per component (pose_block_avx.h). Every lane does what blend.c's
 * loop does for its joint, in the same order with the same separate
 * multiplies, adds, division and square root, so the result is the scalar
 * one bit for bit: a layer that does not count for a joint (weight not
 * above 0) adds +0 to its sums, which leaves them as they are (they start
 * at +0 and so are never -0), and a joint with one contributor takes its
 * transform as it is. */
#include "layer/layer_internal.h"

#include "skeleton/simd/pose_block_avx.h"

/* The rows of eight consecutive transforms from pose[0]. */
static inline void rows8(const sinew_transform *pose, const float *rows[8])
{
    for (int i = 0; i < 8; ++i) rows[i] = &pose[i].translation.x;
}

/* The rotations of eight consecutive transforms, one vector per component. */
static inline void load8_rotations(const sinew_transform *pose, __m256 q[4])
{
    const float *rows[8];
    for (int i = 0; i < 8; ++i) rows[i] = &pose[i].rotation.x;
    sinew__transpose_halves(sinew__joint_rows(rows, 0, 0), sinew__joint_rows(rows, 1, 0),
                            sinew__joint_rows(rows, 2, 0), sinew__joint_rows(rows, 3, 0), q);
}

/* Layer l's weight for eight joints from `first`: its weight times its
 * mask's. */
static inline __m256 layer_weight(const sinew_blend_layer *l, int first)
{
    __m256 w = _mm256_set1_ps(l->weight);
    return l->joint_weights ? _mm256_mul_ps(w, _mm256_loadu_ps(l->joint_weights + first)) : w;
}

/* A block's sums: the weighted sums of each float and the total weight,
 * per lane the contributor count and the last contributing layer. */
typedef struct sums {
    __m256 sum[10], total;
    __m256i contributors, last;
} sums;

/* The layers, then the rest pose with what the threshold leaves, summed
 * for the eight joints from `first`. */
static void sum_block(const sinew_transform *rest_pose, const sinew_blend_layer *layers, int layer_count,
                      float threshold, int first, sums *o)
{
    const __m256 zero = _mm256_setzero_ps(), negative_zero = _mm256_set1_ps(-0.0f);
    __m256 total = zero, sum[10], rest_rotation[4];
    __m256i contributors = _mm256_setzero_si256(), last = contributors;
    for (int c = 0; c < 10; ++c) sum[c] = zero;
    load8_rotations(rest_pose + first, rest_rotation);
    for (int i = 0; i <= layer_count; ++i) {
        __m256 w = i < layer_count ? layer_weight(&layers[i], first) : _mm256_sub_ps(_mm256_set1_ps(threshold), total);
        __m256 counts = _mm256_cmp_ps(w, zero, _CMP_GT_OQ), p[10];
        int lanes = _mm256_movemask_ps(counts);
        if (!lanes) continue;
        const float *rows[8];
        rows8((i < layer_count ? layers[i].pose : rest_pose) + first, rows);
        sinew__load_rows(rows, p);
        total = _mm256_add_ps(total, _mm256_and_ps(w, counts));
        contributors = _mm256_sub_epi32(contributors, _mm256_castps_si256(counts));
        last = _mm256_blendv_epi8(last, _mm256_set1_epi32(i), _mm256_castps_si256(counts));
        /* the rotation on the rest rotation's side: the weight negated
         * where their dot product, summed in sinew__q_dot's order, is
         * negative */
        __m256 dot = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p[3], rest_rotation[0]), _mm256_mul_ps(p[4], rest_rotation[1])),
                          _mm256_mul_ps(p[5], rest_rotation[2])),
            _mm256_mul_ps(p[6], rest_rotation[3]));
        __m256 wq = _mm256_xor_ps(w, _mm256_and_ps(_mm256_cmp_ps(dot, zero, _CMP_LT_OQ), negative_zero));
        for (int c = 0; c < 10; ++c) {
            __m256 term = _mm256_mul_ps(c >= 3 && c < 7 ? wq : w, p[c]);
            if (lanes != 0xff) term = _mm256_and_ps(term, counts); /* +0 where the layer does not count */
            sum[c] = _mm256_add_ps(sum[c], term);
        }
    }
    for (int c = 0; c < 10; ++c) o->sum[c] = sum[c];
    o->total = total, o->contributors = contributors, o->last = last;
}

/* The blend from a block's sums written to out[first .. first + 7]: the
 * means, the rotation normalized as sinew__q_normalize (the identity where
 * its length is 0 or not finite), and a joint with one contributor its
 * transform as it is. */
static void finish_block(const sums *b, const sinew_transform *rest_pose, const sinew_blend_layer *layers,
                         int layer_count, int first, sinew_transform *out)
{
    __m256 v[10], inv = _mm256_div_ps(_mm256_set1_ps(1.0f), b->total);
    for (int c = 0; c < 10; ++c)
        if (c < 3 || c >= 7) v[c] = _mm256_mul_ps(b->sum[c], inv);
    const __m256 *q = b->sum + 3;
    __m256 len2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], q[0]), _mm256_mul_ps(q[1], q[1])),
                                              _mm256_mul_ps(q[2], q[2])),
                                _mm256_mul_ps(q[3], q[3]));
    __m256 sane = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_GT_OQ),
                                _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
    __m256 inv_len = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(len2));
    for (int c = 0; c < 4; ++c)
        v[3 + c] = _mm256_blendv_ps(_mm256_set1_ps(c == 3 ? 1.0f : 0.0f), _mm256_mul_ps(q[c], inv_len), sane);
    float *rows[8];
    for (int i = 0; i < 8; ++i) rows[i] = &out[first + i].translation.x;
    sinew__store_rows(v, rows);
    int single = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(b->contributors, _mm256_set1_epi32(1))));
    if (!single) return;
    int32_t layer[8];
    _mm256_storeu_si256((__m256i *)layer, b->last);
    for (int i = 0; i < 8; ++i)
        if (single >> i & 1) {
            int j = first + i;
            out[j] = layer[i] < layer_count ? layers[layer[i]].pose[j] : rest_pose[j];
        }
}

/* The first joint of block b: the last block ends with the last joint,
 * recomputing some of the block before it (the same values). */
static int block_first(int b, int count) { return 8 * b + 8 <= count ? 8 * b : count - 8; }

int sinew__blend_avx2(const sinew_transform *rest_pose, const sinew_blend_layer *layers, int layer_count,
                      float threshold, sinew_transform *out, int count)
{
    /* Blocks go in chunks: first each block's sums, then each is finished
     * (a division and a square root at the end of a long chain), so that
     * the processor overlaps one block's chain with the next's. */
    enum { CHUNK = 4 };
    if (count < 8) return 0;
    int blocks = (count + 7) / 8;
    for (int c0 = 0; c0 < blocks; c0 += CHUNK) {
        int chunk = blocks - c0 < CHUNK ? blocks - c0 : CHUNK;
        sums b[CHUNK];
        for (int g = 0; g < chunk; ++g)
            sum_block(rest_pose, layers, layer_count, threshold, block_first(c0 + g, count), &b[g]);
        for (int g = 0; g < chunk; ++g)
            finish_block(&b[g], rest_pose, layers, layer_count, block_first(c0 + g, count), out);
    }
    return count;
}
