/* SPDX-License-Identifier: MIT */
/* Local to model space for one block of the skeleton's schedule with AVX2
 * and FMA, shared by sinew_local_to_model (local_to_model_avx2.c) and the fused
 * sampling of sinew_clip_sample_model (plan_avx2.c), and the loads and
 * stores of eight transforms as columns (also blend_avx2.c's); include
 * only from files compiled for AVX2 and FMA. With AVX-512 F and DQ also
 * enabled (local_to_model_avx512.c), sinew__model_block_512 does the same
 * multiplications a joint per 512-bit vector.
 *
 * A block is eight joints of the schedule (sinew__skeleton.schedule, made in
 * skeleton.c), four pairs: joints i and i + 4 of the block, each one's
 * parent in an earlier pair, mostly long before, so consecutive pairs do
 * not wait on each other. The block's rotations, scales and translations
 * come in one vector per component (lane i: joint i of the block); their
 * rotation-scale matrices are built in eight lanes (sinew__mat4_from_trs's
 * sums, the same roundings); then each joint, pair after pair, multiplies
 * its parent's columns (each one in both 128-bit halves) by its entries,
 * two columns a vector, one spread over each half, in the order of
 * sinew__mat4_mul_affine with fused multiply-adds: each entry within 1e-6
 * of the size of its terms of the scalar product (tests/test_sampler.c), in
 * fewer dependent steps than separate multiplies and adds. The last row comes out (+0, +0, +0, 1) for
 * finite poses without masking: the parents' last row is (0, 0, 0, 1) (an
 * affine root's zeros may be -0), so each column's fourth float sums zero
 * products onto +0 (columns 0 to 2: the chain starts from +0, and a -0
 * product plus +0 is +0) or onto the parent's 1 (column 3). The masks it
 * replaces cost time on every joint. Two columns of one joint a
 * vector, rather than one column of each joint of a pair, load the
 * parent's columns as broadcasts (no insert) and store whole vectors (no
 * extract), with the same bits: fewer shuffles, which bound this kernel
 * (docs/BENCHMARKS.md). */
#ifndef SINEW_POSE_BLOCK_AVX_H
#define SINEW_POSE_BLOCK_AVX_H

#include "skeleton/skeleton_internal.h"

#include "math/simd/transpose_avx.h"

/* The two 128-bit halves from a (low) and b (high). */
static inline __m256 sinew__halves(const float *a, const float *b)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1);
}

/* Four floats of joint i and of joint i + 4 of a block (rows[i] their
 * first float), from float `at` on. */
static inline __m256 sinew__joint_rows(const float *const *rows, int i, int at)
{
    return sinew__halves(rows[i] + at, rows[i + 4] + at);
}

/* The transforms whose first floats are rows[0 .. 7], float f of
 * sinew_transform (translation x, y, z, rotation x, y, z, w, scale x, y, z)
 * in v[f]: rows from floats 0, 3 and 6, each load inside its transform,
 * turned into columns. */
static inline void sinew__load_rows(const float *const rows[8], __m256 v[10])
{
    __m256 c[3][4];
    for (int k = 0; k < 3; ++k)
        sinew__transpose_halves(sinew__joint_rows(rows, 0, 3 * k), sinew__joint_rows(rows, 1, 3 * k),
                                sinew__joint_rows(rows, 2, 3 * k), sinew__joint_rows(rows, 3, 3 * k), c[k]);
    for (int f = 0; f < 3; ++f) v[f] = c[0][f];
    for (int f = 0; f < 4; ++f) v[3 + f] = c[1][f];
    for (int f = 0; f < 3; ++f) v[7 + f] = c[2][1 + f];
}

/* The transforms pose[joint[0 .. 7]] of a block, as sinew__load_rows. */
static inline void sinew__load_block(const sinew_transform *pose, const int16_t *joint, __m256 v[10])
{
    const float *rows[8];
    for (int i = 0; i < 8; ++i) rows[i] = &pose[joint[i]].translation.x;
    sinew__load_rows(rows, v);
}

/* The inverse of sinew__load_rows: transforms v written to rows[0 .. 7]
 * (a row listed twice is written twice, the same). Floats 0 to 7 of each
 * transform are one 256-bit store: the two 4 x 4 transposes give joint k's
 * floats 0-3 and 4-7 in the low halves and joint k + 4's in the high ones,
 * one cross-half permute each joint joins them; the scale's y and z follow
 * as 64-bit stores from one interleave of v[8] and v[9]. */
static inline void sinew__store_rows(const __m256 v[10], float *const rows[8])
{
    __m256 r[2][4];
    sinew__transpose_halves(v[0], v[1], v[2], v[3], r[0]);
    sinew__transpose_halves(v[4], v[5], v[6], v[7], r[1]);
    /* scale y, z of joints 0, 1 (4, 5 high) and of joints 2, 3 (6, 7 high) */
    __m256 yz[2] = {_mm256_unpacklo_ps(v[8], v[9]), _mm256_unpackhi_ps(v[8], v[9])};
    for (int k = 0; k < 4; ++k) {
        _mm256_storeu_ps(rows[k], _mm256_permute2f128_ps(r[0][k], r[1][k], 0x20));
        _mm256_storeu_ps(rows[k + 4], _mm256_permute2f128_ps(r[0][k], r[1][k], 0x31));
    }
    for (int h = 0; h < 2; ++h) {
        __m128 lo = _mm256_castps256_ps128(yz[h]), hi = _mm256_extractf128_ps(yz[h], 1);
        _mm_storel_pi((__m64 *)(rows[2 * h] + 8), lo);
        _mm_storeh_pi((__m64 *)(rows[2 * h + 1] + 8), lo);
        _mm_storel_pi((__m64 *)(rows[2 * h + 4] + 8), hi);
        _mm_storeh_pi((__m64 *)(rows[2 * h + 5] + 8), hi);
    }
}

/* The transforms v written to pose[joint[0 .. 7]], as sinew__store_rows. */
static inline void sinew__store_block(const __m256 v[10], const int16_t *joint, sinew_transform *pose)
{
    float *rows[8];
    for (int i = 0; i < 8; ++i) rows[i] = &pose[joint[i]].translation.x;
    sinew__store_rows(v, rows);
}

/* The rotation-scale matrices and translations of the block's transforms v
 * (as sinew__load_block gives them), in eight lanes: e[c][r] is row r of
 * column c (column 3: the translation), with sinew__mat4_from_trs's sums
 * (the same roundings). */
static inline __attribute__((always_inline)) void sinew__block_entries(const __m256 v[10], __m256 e[4][3])
{
    const __m256 *t = v, *q = v + 3, *s = v + 7;
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 x = q[0], y = q[1], z = q[2], w = q[3];
    __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
    __m256 xx = _mm256_mul_ps(x, x2), xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2);
    __m256 yy = _mm256_mul_ps(y, y2), yz = _mm256_mul_ps(y, z2), zz = _mm256_mul_ps(z, z2);
    __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
    e[0][0] = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), s[0]);
    e[0][1] = _mm256_mul_ps(_mm256_add_ps(xy, wz), s[0]);
    e[0][2] = _mm256_mul_ps(_mm256_sub_ps(xz, wy), s[0]);
    e[1][0] = _mm256_mul_ps(_mm256_sub_ps(xy, wz), s[1]);
    e[1][1] = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), s[1]);
    e[1][2] = _mm256_mul_ps(_mm256_add_ps(yz, wx), s[1]);
    e[2][0] = _mm256_mul_ps(_mm256_add_ps(xz, wy), s[2]);
    e[2][1] = _mm256_mul_ps(_mm256_sub_ps(yz, wx), s[2]);
    e[2][2] = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), s[2]);
    for (int r = 0; r < 3; ++r) e[3][r] = t[r];
}

/* Model matrices of the block's joints `joint` (eight schedule entries) from
 * their transforms v (as sinew__load_block gives them); a root's parent is
 * `top`. */
static inline __attribute__((always_inline)) void sinew__model_block(const __m256 v[10], const int16_t *joint,
                                                                     const int16_t *parents, const sinew_mat4 *top,
                                                                     sinew_mat4 *model)
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 e[4][3];
    sinew__block_entries(v, e);
    /* f[h][k]: row k of columns 0 and 1 (f[h][k]) and of columns 2 and 3
     * (f[h][3 + k]) of joints 4h to 4h + 3, one column per half: an in-lane
     * broadcast of lane i then spreads joint 4h + i's over each half */
    __m256 f[2][6];
    for (int k = 0; k < 3; ++k) {
        f[0][k] = _mm256_permute2f128_ps(e[0][k], e[1][k], 0x20);
        f[1][k] = _mm256_permute2f128_ps(e[0][k], e[1][k], 0x31);
        f[0][3 + k] = _mm256_permute2f128_ps(e[2][k], e[3][k], 0x20);
        f[1][3 + k] = _mm256_permute2f128_ps(e[2][k], e[3][k], 0x31);
    }
    /* joint 4h + i: its parent's columns in both halves times its entries,
     * two columns per vector; column 3 starts from the parent's (the high
     * half), the others from +0. Joints in pair order (i, i + 4, i + 1,
     * ...): each one's parent is in an earlier pair. A macro, as the
     * in-lane broadcast's selector must be a constant. */
#define SINEW__JOINT(h, i)                                                                                            \
    do {                                                                                                              \
        int jo = joint[4 * (h) + (i)], pj = parents[jo];                                                              \
        const float *m = (pj >= 0 ? &model[pj] : top)->m;                                                             \
        __m256 p0 = _mm256_broadcast_ps((const __m128 *)m), p1 = _mm256_broadcast_ps((const __m128 *)(m + 4));       \
        __m256 p2 = _mm256_broadcast_ps((const __m128 *)(m + 8));                                                     \
        __m256 p3 = _mm256_blend_ps(zero, _mm256_broadcast_ps((const __m128 *)(m + 12)), 0xf0);                       \
        __m256 c01 = _mm256_fmadd_ps(p2, _mm256_permute_ps(f[h][2], (i) * 0x55),                                      \
                                     _mm256_fmadd_ps(p1, _mm256_permute_ps(f[h][1], (i) * 0x55),                      \
                                                     _mm256_fmadd_ps(p0, _mm256_permute_ps(f[h][0], (i) * 0x55),      \
                                                                     zero)));                                         \
        __m256 c23 = _mm256_fmadd_ps(p2, _mm256_permute_ps(f[h][5], (i) * 0x55),                                      \
                                     _mm256_fmadd_ps(p1, _mm256_permute_ps(f[h][4], (i) * 0x55),                      \
                                                     _mm256_fmadd_ps(p0, _mm256_permute_ps(f[h][3], (i) * 0x55),      \
                                                                     p3)));                                           \
        _mm256_storeu_ps(model[jo].m, c01);                                                                           \
        _mm256_storeu_ps(model[jo].m + 8, c23);                                                                       \
    } while (0)
    SINEW__JOINT(0, 0);
    SINEW__JOINT(1, 0);
    SINEW__JOINT(0, 1);
    SINEW__JOINT(1, 1);
    SINEW__JOINT(0, 2);
    SINEW__JOINT(1, 2);
    SINEW__JOINT(0, 3);
    SINEW__JOINT(1, 3);
#undef SINEW__JOINT
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)
/* sinew__model_block with AVX-512: each joint's four columns in one 512-bit
 * vector, its parent's columns broadcast to the four 128-bit lanes, the
 * entries of row k of its four columns spread over them by one two-source
 * permute of the block's rows k (columns 0 and 1 in one vector, 2 and 3 in
 * the other). The same products in the same order as sinew__model_block:
 * the same bits, in three shuffles a joint and six a block where that one
 * takes six a joint and twelve a block (the shuffle port bounds both). A
 * matrix is stored as two 256-bit halves: one 512-bit store crosses a cache
 * line wherever the array is not 64-byte aligned, and is slower even where
 * it is (docs/BENCHMARKS.md). */
static inline __attribute__((always_inline)) void sinew__model_block_512(const __m256 v[10], const int16_t *joint,
                                                                         const int16_t *parents, const sinew_mat4 *top,
                                                                         sinew_mat4 *model)
{
    __m256 e[4][3];
    sinew__block_entries(v, e);
    __m512 lo[3], hi[3]; /* lo[k]: row k of columns 0 (low half) and 1; hi[k]: of columns 2 and 3 */
    for (int k = 0; k < 3; ++k) {
        lo[k] = _mm512_insertf32x8(_mm512_castps256_ps512(e[0][k]), e[1][k], 1);
        hi[k] = _mm512_insertf32x8(_mm512_castps256_ps512(e[2][k]), e[3][k], 1);
    }
    /* joints in pair order (0, 4, 1, 5, ...), as sinew__model_block */
    for (int p = 0; p < 8; ++p) {
        int i = (p >> 1) + 4 * (p & 1);
        const __m512i spread = _mm512_set_epi32(24 + i, 24 + i, 24 + i, 24 + i, 16 + i, 16 + i, 16 + i, 16 + i,
                                                8 + i, 8 + i, 8 + i, 8 + i, i, i, i, i);
        int jo = joint[i], pj = parents[jo];
        const float *m = (pj >= 0 ? &model[pj] : top)->m;
        __m512 c = _mm512_maskz_broadcast_f32x4(0xf000, _mm_loadu_ps(m + 12));
        c = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(m)), _mm512_permutex2var_ps(lo[0], spread, hi[0]), c);
        c = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(m + 4)), _mm512_permutex2var_ps(lo[1], spread, hi[1]),
                            c);
        c = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(m + 8)), _mm512_permutex2var_ps(lo[2], spread, hi[2]),
                            c);
        _mm256_storeu_ps(model[jo].m, _mm512_castps512_ps256(c));
        _mm256_storeu_ps(model[jo].m + 8, _mm512_extractf32x8_ps(c, 1));
    }
}
#endif

/* The identity, the parent of roots when there is no root matrix. */
static const sinew_mat4 sinew__identity_mat4 = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};

#endif
