/* SPDX-License-Identifier: MIT */
/* Eight rotation lanes between two keys with AVX2 and FMA, shared by the
 * sampling kernels of plan_avx2.c; include only from files compiled for
 * AVX2 and FMA. The formulas and their agreement with the reference are
 * described in plan.c. */
#ifndef SINEW_ROTATION_AVX_H
#define SINEW_ROTATION_AVX_H

#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>

/* The series of plan.c for factors t (one per lane): sin(t a) / sin(a) =
 * t (1 + u b_1 (1 + u b_2 (1 + u b_3 (1 + u b_4)))) with u = cos(a) - 1 and
 * b_i = (t^2 - i^2) / (i (2i + 1)). */
typedef struct sinew__series {
    __m256 t, b[4];
} sinew__series;

static inline sinew__series sinew__series_for(__m256 t)
{
    static const float c[4] = {1.0f / 3.0f, 1.0f / 10.0f, 1.0f / 21.0f, 1.0f / 36.0f};
    sinew__series r = {.t = t};
    __m256 t2 = _mm256_mul_ps(t, t);
    for (int i = 0; i < 4; ++i)
        r.b[i] = _mm256_mul_ps(_mm256_sub_ps(t2, _mm256_set1_ps((float)((i + 1) * (i + 1)))), _mm256_set1_ps(c[i]));
    return r;
}

/* The factors of eight lanes' sampling times (s: each lane's factor between
 * its keys): the nlerp weights 1 - s (key a's) and s (key b's), which the
 * slerp series take as their t where a lane needs them. */
typedef struct sinew__rotation_factors {
    __m256 ta, tb;
    bool nlerp;
} sinew__rotation_factors;

static inline sinew__rotation_factors sinew__rotation_factors_for(__m256 s, bool nlerp)
{
    return (sinew__rotation_factors){.ta = _mm256_sub_ps(_mm256_set1_ps(1.0f), s), .tb = s, .nlerp = nlerp};
}

/* Horner's steps as fused multiply-adds, the products u b_i off the chain */
static inline __m256 sinew__slerp_weight(const sinew__series *w, __m256 u)
{
    __m256 one = _mm256_set1_ps(1.0f), r = one;
    for (int i = 3; i >= 0; --i) r = _mm256_fmadd_ps(_mm256_mul_ps(u, w->b[i]), r, one);
    return _mm256_mul_ps(w->t, r);
}

/* a . b as two pairs summed: a shorter chain than the reference's order */
static inline __m256 sinew__dot4(const __m256 a[4], const __m256 b[4])
{
    return _mm256_add_ps(_mm256_fmadd_ps(a[1], b[1], _mm256_mul_ps(a[0], b[0])),
                         _mm256_fmadd_ps(a[3], b[3], _mm256_mul_ps(a[2], b[2])));
}

/* Rotations in `groups` groups of eight lanes (group g, lane i: component
 * c in qa[g][c] and qb[g][c]) between keys a and b at the factors
 * f[g * f_step] (f_step 0: the same for every group) into r.
 * The groups' steps alternate: each step waits on the one before, so one
 * group alone leaves the CPU idle (inlined with a constant count). Fused
 * multiply-adds and a reciprocal square root with one Newton step: within
 * 1e-6 of the reference (tests/test_sampler.c), the kernel being bound by
 * its chain of dependent steps, which these shorten. Returns the lanes (bit 8 g + i) the caller must take
 * from the reference slerp instead: keys further apart than the series
 * serves, or a degenerate sum (the reference gives the identity). */
static inline int sinew__rotations(int groups, const __m256 (*qa)[4], const __m256 (*qb)[4],
                                   const sinew__rotation_factors *f, int f_step, __m256 (*r)[4])
{
    enum { MAX = 2 };
    __m256 zero = _mm256_setzero_ps(), d[MAX], sign[MAX], wa[MAX], wb[MAX];
    int far = 0;
    /* the shorter way round: b's weight negated where the keys' dot is negative */
    for (int g = 0; g < groups; ++g) {
        d[g] = sinew__dot4(qa[g], qb[g]);
        sign[g] = _mm256_and_ps(_mm256_cmp_ps(d[g], zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
        d[g] = _mm256_xor_ps(d[g], sign[g]);
        wa[g] = f[g * f_step].ta, wb[g] = f[g * f_step].tb;
    }
    if (!f[0].nlerp) {
        /* lanes whose keys are closer than the reference's nlerp threshold
         * keep the nlerp weights, the others take the series'; where every
         * lane is that close (a bake's keys mostly are: three groups in four
         * on the pab walk), the series is not computed at all, its
         * coefficients neither */
        __m256 near[MAX];
        int all_near = 1;
        for (int g = 0; g < groups; ++g) {
            near[g] = _mm256_cmp_ps(d[g], _mm256_set1_ps(0.9995f), _CMP_GT_OQ);
            all_near &= _mm256_movemask_ps(near[g]) == 0xff;
        }
        for (int g = 0; g < groups && !all_near; ++g) {
            __m256 u = _mm256_sub_ps(d[g], _mm256_set1_ps(1.0f));
            far |= _mm256_movemask_ps(_mm256_cmp_ps(d[g], _mm256_set1_ps(0.9f), _CMP_LT_OQ)) << (8 * g);
            sinew__series series_a = sinew__series_for(wa[g]), series_b = sinew__series_for(wb[g]);
            wa[g] = _mm256_blendv_ps(sinew__slerp_weight(&series_a, u), wa[g], near[g]);
            wb[g] = _mm256_blendv_ps(sinew__slerp_weight(&series_b, u), wb[g], near[g]);
        }
    }
    /* normalized by an estimate of 1 / sqrt and one Newton step */
    for (int g = 0; g < groups; ++g) {
        __m256 q[4], wbs = _mm256_xor_ps(wb[g], sign[g]);
        for (int c = 0; c < 4; ++c) q[c] = _mm256_fmadd_ps(qa[g][c], wa[g], _mm256_mul_ps(qb[g][c], wbs));
        __m256 len2 = sinew__dot4(q, q), e = _mm256_rsqrt_ps(len2);
        __m256 inv = _mm256_mul_ps(_mm256_mul_ps(e, _mm256_set1_ps(0.5f)),
                                   _mm256_fnmadd_ps(_mm256_mul_ps(len2, e), e, _mm256_set1_ps(3.0f)));
        __m256 sane = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(FLT_MIN), _CMP_GE_OQ),
                                    _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
        far |= (~_mm256_movemask_ps(sane) & 0xff) << (8 * g);
        for (int c = 0; c < 4; ++c) r[g][c] = _mm256_mul_ps(q[c], inv);
    }
    return far;
}

#endif
