/* SPDX-License-Identifier: MIT */
/* The skinning palette (model matrices times inverse bind matrices) and the
 * conformal test that picks LBS's normal formula. */
#include "skin/skin_internal.h"

#include <float.h>

sinew_result sinew_skin_palette(const sinew_skin *skin, const sinew_mat4 *model, int model_count,
                                const sinew_mat4 *left, sinew_mat4 *palette, int palette_count, sinew_error *err)
{
    if (!skin || !model || !palette)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_skin_palette: skin, model and palette are required");
    if (palette_count < skin->joint_count)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                           "sinew_skin_palette: palette holds %d matrices, skin has %d joints", palette_count,
                           skin->joint_count);
    for (int j = 0; sinew__skin_of(skin)->blocks->joint_end > model_count && j < skin->joint_count; ++j)
        if (skin->joints[j] >= model_count)
            return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                               "sinew_skin_palette: skin joint %d uses skeleton joint %d, model holds %d", j,
                               skin->joints[j], model_count);
    const sinew__skin_kernels *kernels = sinew__skin_kernels_for(sinew__skin_of(skin)->simd);
    if (kernels && kernels->palette && !left) {
        kernels->palette(skin, model, palette);
        sinew__ok(err);
        return SINEW_OK;
    }
    for (int j = 0; j < skin->joint_count; ++j) {
        sinew__mat4_mul(&palette[j], &model[skin->joints[j]], &skin->inverse_bind[j]);
        if (left) sinew__mat4_mul(&palette[j], left, &palette[j]);
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* Whether one matrix's 3x3 part is a rotation times a uniform scale, as
 * sinew_palette_is_conformal() tests it (not where a squared column length
 * is infinite or NaN). */
static bool matrix_is_conformal(const float *m, float tolerance)
{
    sinew_vec3 c[3] = {sinew__v3(m[0], m[1], m[2]), sinew__v3(m[4], m[5], m[6]), sinew__v3(m[8], m[9], m[10])};
    float l2[3] = {sinew__v3_dot(c[0], c[0]), sinew__v3_dot(c[1], c[1]), sinew__v3_dot(c[2], c[2])};
    float big = fmaxf(fmaxf(l2[0], l2[1]), l2[2]);
    float tol = 2.0f * tolerance * big; /* on squared lengths: (1 + e)^2 ~ 1 + 2e */
    return big <= FLT_MAX && fabsf(l2[0] - l2[1]) <= tol && fabsf(l2[0] - l2[2]) <= tol &&
           fabsf(sinew__v3_dot(c[0], c[1])) <= tolerance * big && fabsf(sinew__v3_dot(c[0], c[2])) <= tolerance * big &&
           fabsf(sinew__v3_dot(c[1], c[2])) <= tolerance * big;
}

#if defined(__SSE2__)
/* Four matrices' column c as x, y and z vectors (lane i: matrix i). */
static inline void column_lanes(const sinew_mat4 *m, int c, __m128 xyz[3])
{
    __m128 m0 = _mm_loadu_ps(m[0].m + 4 * c), m1 = _mm_loadu_ps(m[1].m + 4 * c);
    __m128 m2 = _mm_loadu_ps(m[2].m + 4 * c), m3 = _mm_loadu_ps(m[3].m + 4 * c);
    __m128 lo01 = _mm_unpacklo_ps(m0, m1), lo23 = _mm_unpacklo_ps(m2, m3); /* x0 x1 y0 y1, x2 x3 y2 y3 */
    __m128 hi01 = _mm_unpackhi_ps(m0, m1), hi23 = _mm_unpackhi_ps(m2, m3); /* z0 z1 w0 w1, z2 z3 w2 w3 */
    xyz[0] = _mm_movelh_ps(lo01, lo23), xyz[1] = _mm_movehl_ps(lo23, lo01), xyz[2] = _mm_movelh_ps(hi01, hi23);
}

/* a . b in each lane, in the scalar's order: (x x + y y) + z z. */
static inline __m128 dot_lanes(const __m128 a[3], const __m128 b[3])
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1])), _mm_mul_ps(a[2], b[2]));
}

/* matrix_is_conformal for four matrices at once, the same operations in
 * each lane (so the same answer: where any length is NaN, the tests on
 * differences fail whichever maximum is taken, fmaxf's or maxps's). */
static bool four_are_conformal(const sinew_mat4 *m, float tolerance)
{
    __m128 c[3][3];
    for (int i = 0; i < 3; ++i) column_lanes(m, i, c[i]);
    __m128 l0 = dot_lanes(c[0], c[0]), l1 = dot_lanes(c[1], c[1]), l2 = dot_lanes(c[2], c[2]);
    __m128 big = _mm_max_ps(_mm_max_ps(l0, l1), l2), abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 tol = _mm_mul_ps(_mm_set1_ps(2.0f * tolerance), big), tol_dot = _mm_mul_ps(_mm_set1_ps(tolerance), big);
    __m128 ok = _mm_and_ps(_mm_cmple_ps(_mm_and_ps(_mm_sub_ps(l0, l1), abs_mask), tol),
                           _mm_cmple_ps(_mm_and_ps(_mm_sub_ps(l0, l2), abs_mask), tol));
    ok = _mm_and_ps(ok, _mm_cmple_ps(big, _mm_set1_ps(FLT_MAX)));
    ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(dot_lanes(c[0], c[1]), abs_mask), tol_dot));
    ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(dot_lanes(c[0], c[2]), abs_mask), tol_dot));
    ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(dot_lanes(c[1], c[2]), abs_mask), tol_dot));
    return _mm_movemask_ps(ok) == 0xf;
}
#endif

bool sinew_palette_is_conformal(const sinew_mat4 *palette, int count, float tolerance)
{
    int j = 0;
#if defined(__SSE2__)
    /* four at a time: every LBS call in the automatic normal mode pays it */
    for (; j + 4 <= count; j += 4)
        if (!four_are_conformal(palette + j, tolerance)) return false;
#endif
    for (; j < count; ++j)
        if (!matrix_is_conformal(palette[j].m, tolerance)) return false;
    return true;
}

