/* The sampling plan's kernel with 256-bit vectors and FMA (run only where
 * sinew_simd_supported() says so): vectors as the reference's
 * a + (b - a) s, a separate multiply and add, rotations with fused ones.
 * See sampler.c for the layout and the agreement with the reference. */
#include "sampler_internal.h"

#include "transpose_avx.h"

#include <float.h>

/* The four floats at src[i] and at src[i + 4] of frame f, in the low and
 * high halves. */
static inline __m256 pair(const float *f, const uint32_t *src, int i)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + src[i])), _mm_loadu_ps(f + src[i + 4]), 1);
}

/* The series of sampler.c for one factor t: sin(t a) / sin(a) =
 * t (1 + u b_1 (1 + u b_2 (1 + u b_3 (1 + u b_4)))) with u = cos(a) - 1 and
 * b_i = (t^2 - i^2) / (i (2i + 1)), the same for every lane. */
typedef struct series {
    __m256 t, b[4];
} series;

static series series_for(float t)
{
    static const float c[4] = {1.0f / 3.0f, 1.0f / 10.0f, 1.0f / 21.0f, 1.0f / 36.0f};
    series r = {.t = _mm256_set1_ps(t)};
    for (int i = 0; i < 4; ++i) r.b[i] = _mm256_set1_ps((t * t - (float)((i + 1) * (i + 1))) * c[i]);
    return r;
}

/* Horner's steps as fused multiply-adds, the products u b_i off the chain */
static inline __m256 slerp_weight(const series *w, __m256 u)
{
    __m256 one = _mm256_set1_ps(1.0f), r = one;
    for (int i = 3; i >= 0; --i) r = _mm256_fmadd_ps(_mm256_mul_ps(u, w->b[i]), r, one);
    return _mm256_mul_ps(w->t, r);
}

/* a . b as two pairs summed: a shorter chain than the reference's order */
static inline __m256 dot4(const __m256 a[4], const __m256 b[4])
{
    return _mm256_add_ps(_mm256_fmadd_ps(a[1], b[1], _mm256_mul_ps(a[0], b[0])),
                         _mm256_fmadd_ps(a[3], b[3], _mm256_mul_ps(a[2], b[2])));
}

/* Sixteen rotation tracks (src, dst) between frames a and b at factor s, as
 * two groups of eight whose steps alternate (each step waits on the one
 * before, so one group alone leaves the CPU idle). Fused multiply-adds and
 * a reciprocal square root with one Newton step: within 1e-6 of the
 * reference (measured 3e-7), the kernel being bound by its chain of
 * dependent steps, which these shorten. */
static void rotations(const float *a, const float *b, const uint32_t *src, const uint32_t *dst, float s, bool nlerp,
                      const series w[2], float *out)
{
    enum { G = 2 };
    __m256 qa[G][4], qb[G][4], d[G], r[G][4];
    __m256 zero = _mm256_setzero_ps(), ta = _mm256_set1_ps(1.0f - s), tb = _mm256_set1_ps(s);
    __m256 wa[G] = {ta, ta}, wb[G] = {tb, tb};
    int far = 0; /* lanes for the reference slerp */
    for (int g = 0; g < G; ++g) {
        const uint32_t *at = src + 8 * g;
        sinew__transpose_halves(pair(a, at, 0), pair(a, at, 1), pair(a, at, 2), pair(a, at, 3), qa[g]);
        sinew__transpose_halves(pair(b, at, 0), pair(b, at, 1), pair(b, at, 2), pair(b, at, 3), qb[g]);
    }
    /* the shorter way round: b's weight negated where the keys' dot is negative */
    __m256 sign[G];
    for (int g = 0; g < G; ++g) {
        d[g] = dot4(qa[g], qb[g]);
        sign[g] = _mm256_and_ps(_mm256_cmp_ps(d[g], zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
        d[g] = _mm256_xor_ps(d[g], sign[g]);
    }
    if (!nlerp) {
        /* lanes whose keys are closer than the reference's nlerp threshold
         * keep the nlerp weights, the others take the series' */
        for (int g = 0; g < G; ++g) {
            __m256 near = _mm256_cmp_ps(d[g], _mm256_set1_ps(0.9995f), _CMP_GT_OQ);
            __m256 u = _mm256_sub_ps(d[g], _mm256_set1_ps(1.0f));
            far |= _mm256_movemask_ps(_mm256_cmp_ps(d[g], _mm256_set1_ps(0.9f), _CMP_LT_OQ)) << (8 * g);
            wa[g] = _mm256_blendv_ps(slerp_weight(&w[0], u), ta, near);
            wb[g] = _mm256_blendv_ps(slerp_weight(&w[1], u), tb, near);
        }
    }
    /* normalized by an estimate of 1 / sqrt and one Newton step; a
     * degenerate sum goes to the reference, which gives the identity */
    for (int g = 0; g < G; ++g) {
        __m256 q[4], wbs = _mm256_xor_ps(wb[g], sign[g]);
        for (int c = 0; c < 4; ++c) q[c] = _mm256_fmadd_ps(qa[g][c], wa[g], _mm256_mul_ps(qb[g][c], wbs));
        __m256 len2 = dot4(q, q), e = _mm256_rsqrt_ps(len2);
        __m256 inv = _mm256_mul_ps(_mm256_mul_ps(e, _mm256_set1_ps(0.5f)),
                                   _mm256_fnmadd_ps(_mm256_mul_ps(len2, e), e, _mm256_set1_ps(3.0f)));
        __m256 sane = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(FLT_MIN), _CMP_GE_OQ),
                                    _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
        far |= (~_mm256_movemask_ps(sane) & 0xff) << (8 * g);
        sinew__transpose_halves(_mm256_mul_ps(q[0], inv), _mm256_mul_ps(q[1], inv), _mm256_mul_ps(q[2], inv),
                                _mm256_mul_ps(q[3], inv), r[g]);
    }
    for (int g = 0; g < G; ++g)
        for (int k = 0; k < 4; ++k) {
            _mm_storeu_ps(out + dst[8 * g + k], _mm256_castps256_ps128(r[g][k]));
            _mm_storeu_ps(out + dst[8 * g + k + 4], _mm256_extractf128_ps(r[g][k], 1));
        }
    for (int lane = 0; far; ++lane, far >>= 1)
        if (far & 1) sinew__rotation_reference(a + src[lane], b + src[lane], s, nlerp, out + dst[lane]);
}

void sinew__timeline_lerp_avx2(const sinew__timeline *x, const float *a, const float *b, float s, bool nlerp,
                               const float *under, float *out)
{
    __m256 s8 = _mm256_set1_ps(s);
    if (x->image) {
        /* whole runs of eight pose floats, what no track writes taken from
         * `under` (a rotation's floats too: the rotations below overwrite
         * them); the last run moved back to end with the stretch (its
         * overlap written twice, the same) */
        float *o = out + x->image_at;
        const float *u = under + x->image_at;
        uint32_t n = x->image_floats;
        for (uint32_t f = 0; f < n; f += 8) {
            uint32_t g = f + 8 <= n ? f : n - 8;
            __m256 fa = _mm256_loadu_ps(a + g), fb = _mm256_loadu_ps(b + g);
            __m256 v = _mm256_add_ps(fa, _mm256_mul_ps(_mm256_sub_ps(fb, fa), s8));
            uint64_t written;
            memcpy(&written, x->image_mask + g, sizeof written);
            if (written == UINT64_MAX) { /* every float of the run (a fully animated joint's) */
                _mm256_storeu_ps(o + g, v);
                continue;
            }
            __m256 tracked = _mm256_castsi256_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128((long long)written)));
            _mm256_storeu_ps(o + g, _mm256_blendv_ps(_mm256_loadu_ps(u + g), v, tracked));
        }
    } else {
        __m128 s4 = _mm256_castps256_ps128(s8);
        for (int i = 0; i < x->vec_count; ++i) { /* packed: four floats a track */
            __m128 fa = _mm_load_ps(a + x->vec_src[i]), fb = _mm_load_ps(b + x->vec_src[i]);
            __m128 v = _mm_add_ps(fa, _mm_mul_ps(_mm_sub_ps(fb, fa), s4));
            float *o = out + x->vec_dst[i];
            _mm_storel_pi((__m64 *)o, v);
            _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
        }
    }
    series w[2] = {series_for(1.0f - s), series_for(s)};
    for (int i = 0; i < x->rot_count; i += SINEW__ROTATION_LANES)
        rotations(a, b, x->rot_src + i, x->rot_dst + i, s, nlerp, w, out);
}
