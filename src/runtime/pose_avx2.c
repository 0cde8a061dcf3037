/* Local pose to model space with AVX (compiled with -mavx2 and no FMA; run
 * only where sinew_simd_supported() says so).
 *
 * Joints go in the skeleton's depth order (sinew_skeleton.depth_order_: all
 * joints of depth 0, then depth 1, ...), so consecutive joints do not wait on
 * each other: a joint's parent was finished a level earlier and its columns
 * come from memory. Eight joints at a time, their rotations and scales are
 * transposed into one vector per component and their rotation-scale
 * matrices built side by side (sinew__mat4_from_trs's sums, eight lanes);
 * then each joint's matrix multiplies its parent's columns with the entries
 * broadcast from memory (loads, not shuffles), summed in the order of
 * sinew__mat4_mul_affine. Separate multiplies and adds: the result is the
 * scalar one bit for bit (up to the sign of a zero). */
#include "../internal.h"

#include <immintrin.h>

/* Rows r0..r3 (joint i in the low half, joint i + 4 in the high half) to
 * columns: c[k] lane i is component k of joint i. */
static inline void transpose(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 c[4])
{
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpacklo_ps(r2, r3);
    __m256 t2 = _mm256_unpackhi_ps(r0, r1), t3 = _mm256_unpackhi_ps(r2, r3);
    c[0] = _mm256_shuffle_ps(t0, t1, 0x44), c[1] = _mm256_shuffle_ps(t0, t1, 0xee);
    c[2] = _mm256_shuffle_ps(t2, t3, 0x44), c[3] = _mm256_shuffle_ps(t2, t3, 0xee);
}

/* Four floats of joint i and of joint i + 4, at float offset `at`. */
static inline __m256 pair(const float *const *src, int i, int at)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(src[i] + at)), _mm_loadu_ps(src[i + 4] + at), 1);
}

void sinew__local_to_model_avx2(const int16_t *order, const int16_t *parents, const sinew_transform *local,
                                const sinew_mat4 *root, sinew_mat4 *model, int count)
{
    static const sinew_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const sinew_mat4 *top = root ? root : &identity;
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)), w1 = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
    enum { ROT = offsetof(sinew_transform, rotation) / sizeof(float) };
    _Alignas(32) float rs[9][8]; /* the block's rotation-scale entries, [entry][joint] */
    for (int b = 0; b < count; b += 8) {
        int n = count - b < 8 ? count - b : 8;
        const float *src[8]; /* a short last block repeats its last joint */
        for (int i = 0; i < 8; ++i) src[i] = &local[order[b + (i < n ? i : n - 1)]].translation.x;
        /* (x, y, z, w) of the rotation, and (w, sx, sy, sz): both loads stay
         * inside the joint's sinew_transform */
        __m256 q[4], s[4];
        transpose(pair(src, 0, ROT), pair(src, 1, ROT), pair(src, 2, ROT), pair(src, 3, ROT), q);
        transpose(pair(src, 0, ROT + 3), pair(src, 1, ROT + 3), pair(src, 2, ROT + 3), pair(src, 3, ROT + 3), s);
        __m256 x = q[0], y = q[1], z = q[2], w = q[3], one = _mm256_set1_ps(1.0f);
        __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
        __m256 xx = _mm256_mul_ps(x, x2), xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2);
        __m256 yy = _mm256_mul_ps(y, y2), yz = _mm256_mul_ps(y, z2), zz = _mm256_mul_ps(z, z2);
        __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
        _mm256_store_ps(rs[0], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), s[1]));
        _mm256_store_ps(rs[1], _mm256_mul_ps(_mm256_add_ps(xy, wz), s[1]));
        _mm256_store_ps(rs[2], _mm256_mul_ps(_mm256_sub_ps(xz, wy), s[1]));
        _mm256_store_ps(rs[3], _mm256_mul_ps(_mm256_sub_ps(xy, wz), s[2]));
        _mm256_store_ps(rs[4], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), s[2]));
        _mm256_store_ps(rs[5], _mm256_mul_ps(_mm256_add_ps(yz, wx), s[2]));
        _mm256_store_ps(rs[6], _mm256_mul_ps(_mm256_add_ps(xz, wy), s[3]));
        _mm256_store_ps(rs[7], _mm256_mul_ps(_mm256_sub_ps(yz, wx), s[3]));
        _mm256_store_ps(rs[8], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), s[3]));
        for (int i = 0; i < n; ++i) {
            int j = order[b + i], p = parents[j];
            const float *a = (p >= 0 ? &model[p] : top)->m, *t = &local[j].translation.x;
            __m128 p0 = _mm_loadu_ps(a), p1 = _mm_loadu_ps(a + 4), p2 = _mm_loadu_ps(a + 8), p3 = _mm_loadu_ps(a + 12);
#define SINEW__COLUMN(e0, e1, e2)                                                                        \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_broadcast_ss(e0)), _mm_mul_ps(p1, _mm_broadcast_ss(e1))), \
               _mm_mul_ps(p2, _mm_broadcast_ss(e2)))
            float *o = model[j].m;
            _mm_storeu_ps(o, _mm_and_ps(SINEW__COLUMN(&rs[0][i], &rs[1][i], &rs[2][i]), xyz));
            _mm_storeu_ps(o + 4, _mm_and_ps(SINEW__COLUMN(&rs[3][i], &rs[4][i], &rs[5][i]), xyz));
            _mm_storeu_ps(o + 8, _mm_and_ps(SINEW__COLUMN(&rs[6][i], &rs[7][i], &rs[8][i]), xyz));
            _mm_storeu_ps(o + 12, _mm_or_ps(_mm_and_ps(_mm_add_ps(SINEW__COLUMN(t, t + 1, t + 2), p3), xyz), w1));
#undef SINEW__COLUMN
        }
    }
}
