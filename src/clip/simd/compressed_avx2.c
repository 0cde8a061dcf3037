/* A compressed clip's rotations, eight lanes at a time with AVX2 and FMA:
 * rebuilt from their stored slots, then interpolated as the sampling
 * plan's kernels interpolate (rotation_avx.h). */
#include "clip/compressed.h"
#include "clip/simd/rotation_avx.h"

void sinew__compressed_rotations_avx2(const sinew__rotation_chunk *k, float s, bool nlerp)
{
    sinew__rotation_factors f = sinew__rotation_factors_for(_mm256_set1_ps(s), nlerp);
    for (int first = 0; first < k->count; first += 8) {
        __m256 q[2][4];
        /* each sample's dropped component rebuilt from the others (or
         * those scaled back to unit length where they pass it) and put in
         * its place, as sinew__rebuild does; a raw lane (dropped 4) as
         * stored */
        __m256i dropped = _mm256_load_si256((const __m256i *)&k->dropped[first]);
        for (int side = 0; side < 2; ++side) {
            const float(*stored)[SINEW__ROTATION_CHUNK] = side ? k->b : k->a;
            __m256 v[4];
            for (int c = 0; c < 4; ++c) v[c] = _mm256_load_ps(&stored[c][first]);
            __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(v[0], v[0]), _mm256_mul_ps(v[1], v[1])),
                                     _mm256_mul_ps(v[2], v[2]));
            __m256 one = _mm256_set1_ps(1.0f);
            __m256 raw = _mm256_castsi256_ps(_mm256_cmpgt_epi32(dropped, _mm256_set1_epi32(3)));
            __m256 over = _mm256_andnot_ps(raw, _mm256_cmp_ps(d, one, _CMP_GT_OQ));
            __m256 scale = _mm256_blendv_ps(one, _mm256_div_ps(one, _mm256_sqrt_ps(d)), over);
            __m256 w = _mm256_andnot_ps(over, _mm256_sqrt_ps(_mm256_max_ps(_mm256_sub_ps(one, d), _mm256_setzero_ps())));
            __m256 x[4] = {_mm256_mul_ps(v[0], scale), _mm256_mul_ps(v[1], scale), _mm256_mul_ps(v[2], scale), v[3]};
            for (int c = 0; c < 4; ++c) {
                __m256i at = _mm256_set1_epi32(c);
                __m256 here = _mm256_castsi256_ps(_mm256_cmpeq_epi32(dropped, at));
                __m256 after = _mm256_castsi256_ps(_mm256_cmpgt_epi32(at, dropped));
                __m256 slot = c > 0 ? _mm256_blendv_ps(x[c], x[c - 1], after) : x[0];
                q[side][c] = _mm256_blendv_ps(slot, w, here);
            }
        }
        __m256 r[1][4];
        int far = sinew__rotations(1, (const __m256(*)[4]) & q[0], (const __m256(*)[4]) & q[1], &f, 0, r);
        alignas(32) float out[4][8];
        for (int c = 0; c < 4; ++c) _mm256_store_ps(out[c], r[0][c]);
        int lanes = k->count - first < 8 ? k->count - first : 8;
        for (int i = 0; i < lanes; ++i) {
            if (far >> i & 1) {
                /* the reference where the series does not serve */
                float a[4], b[4];
                for (int c = 0; c < 4; ++c) a[c] = k->a[c][first + i], b[c] = k->b[c][first + i];
                sinew_quat qa = sinew__rebuild(a, k->dropped[first + i]), qb = sinew__rebuild(b, k->dropped[first + i]);
                *k->out[first + i] = nlerp ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
                continue;
            }
            *k->out[first + i] = sinew__q(out[0][i], out[1][i], out[2][i], out[3][i]);
        }
    }
}
