/* Local pose to model space with AVX2 and FMA (run only where
 * sinew_simd_supported() says so).
 *
 * Joints go in pairs, in the skeleton's schedule (sinew_skeleton.schedule_,
 * made in skeleton.c): the two joints of a pair are computed side by side,
 * one per 128-bit half, and each one's parent belongs to an earlier pair,
 * mostly long before, so consecutive pairs do not wait on each other. A
 * block of four pairs (eight joints) has its rotations, scales and
 * translations transposed into one vector per component and its
 * rotation-scale matrices built in eight lanes (sinew__mat4_from_trs's
 * sums, the same roundings); then each pair multiplies its parents'
 * columns, one parent per half, by its entries spread over each half, in
 * the order of sinew__mat4_mul_affine with fused multiply-adds: each entry
 * within 1e-6 of the size of its terms of the scalar product (measured
 * 2.3e-7; tests/test_sampler.c), 8% faster than separate multiplies and
 * adds. */
#include "../internal.h"

#include "transpose_avx.h"

/* Four floats of joint i and of joint i + 4, at float offset `at`. */
static inline __m256 pair(const float *const *src, int i, int at)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(src[i] + at)), _mm_loadu_ps(src[i + 4] + at), 1);
}

/* The two 128-bit halves from a (low) and b (high). */
static inline __m256 halves(const float *a, const float *b)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1);
}

void sinew__local_to_model_avx2(const int16_t *schedule, int length, const int16_t *parents,
                                const sinew_transform *local, const sinew_mat4 *root, sinew_mat4 *model)
{
    static const sinew_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const sinew_mat4 *top = root ? root : &identity;
    const __m256 xyz = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    const __m256 w1 = _mm256_setr_ps(0, 0, 0, 1, 0, 0, 0, 1), one = _mm256_set1_ps(1.0f);
    enum { ROT = offsetof(sinew_transform, rotation) / sizeof(float) };
    for (int b = 0; b < length; b += 8) {
        const int16_t *joint = schedule + b;
        const float *src[8];
        for (int i = 0; i < 8; ++i) src[i] = &local[joint[i]].translation.x;
        /* (x, y, z, w) of the rotation, (w, sx, sy, sz) and (tx, ty, tz,
         * rotation x): each load stays inside the joint's sinew_transform */
        __m256 q[4], s[4], t[4];
        sinew__transpose_halves(pair(src, 0, ROT), pair(src, 1, ROT), pair(src, 2, ROT), pair(src, 3, ROT), q);
        sinew__transpose_halves(pair(src, 0, ROT + 3), pair(src, 1, ROT + 3), pair(src, 2, ROT + 3),
                                pair(src, 3, ROT + 3), s);
        sinew__transpose_halves(pair(src, 0, 0), pair(src, 1, 0), pair(src, 2, 0), pair(src, 3, 0), t);
        __m256 x = q[0], y = q[1], z = q[2], w = q[3];
        __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
        __m256 xx = _mm256_mul_ps(x, x2), xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2);
        __m256 yy = _mm256_mul_ps(y, y2), yz = _mm256_mul_ps(y, z2), zz = _mm256_mul_ps(z, z2);
        __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
        /* e[c][r]: row r of column c of the block's local matrices */
        __m256 e[4][3] = {
            {_mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), s[1]), _mm256_mul_ps(_mm256_add_ps(xy, wz), s[1]),
             _mm256_mul_ps(_mm256_sub_ps(xz, wy), s[1])},
            {_mm256_mul_ps(_mm256_sub_ps(xy, wz), s[2]), _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), s[2]),
             _mm256_mul_ps(_mm256_add_ps(yz, wx), s[2])},
            {_mm256_mul_ps(_mm256_add_ps(xz, wy), s[3]), _mm256_mul_ps(_mm256_sub_ps(yz, wx), s[3]),
             _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), s[3])},
            {t[0], t[1], t[2]}};
        /* pair i: joints i and i + 4 of the block; a macro, as the in-lane
         * broadcast's selector must be a constant */
#define SINEW__PAIR(i)                                                                                                \
    do {                                                                                                              \
        int ja = joint[i], jc = joint[(i) + 4], pa = parents[ja], pc = parents[jc];                                   \
        const float *ma = (pa >= 0 ? &model[pa] : top)->m, *mc = (pc >= 0 ? &model[pc] : top)->m;                     \
        __m256 p0 = halves(ma, mc), p1 = halves(ma + 4, mc + 4), p2 = halves(ma + 8, mc + 8);                          \
        __m256 col[4];                                                                                                \
        for (int c = 0; c < 3; ++c)                                                                                   \
            col[c] = _mm256_and_ps(                                                                                   \
                _mm256_fmadd_ps(p2, _mm256_permute_ps(e[c][2], (i) * 0x55),                                           \
                                _mm256_fmadd_ps(p1, _mm256_permute_ps(e[c][1], (i) * 0x55),                           \
                                                _mm256_mul_ps(p0, _mm256_permute_ps(e[c][0], (i) * 0x55)))),          \
                xyz);                                                                                                 \
        col[3] = _mm256_or_ps(                                                                                        \
            _mm256_and_ps(                                                                                            \
                _mm256_fmadd_ps(p2, _mm256_permute_ps(e[3][2], (i) * 0x55),                                           \
                                _mm256_fmadd_ps(p1, _mm256_permute_ps(e[3][1], (i) * 0x55),                           \
                                                _mm256_fmadd_ps(p0, _mm256_permute_ps(e[3][0], (i) * 0x55),           \
                                                                halves(ma + 12, mc + 12)))),                          \
                xyz),                                                                                                 \
            w1);                                                                                                      \
        float *oa = model[ja].m, *oc = model[jc].m;                                                                   \
        for (int c = 0; c < 4; ++c) {                                                                                 \
            _mm_storeu_ps(oa + 4 * c, _mm256_castps256_ps128(col[c]));                                                \
            _mm_storeu_ps(oc + 4 * c, _mm256_extractf128_ps(col[c], 1));                                              \
        }                                                                                                             \
    } while (0)
        SINEW__PAIR(0);
        SINEW__PAIR(1);
        SINEW__PAIR(2);
        SINEW__PAIR(3);
#undef SINEW__PAIR
    }
}
