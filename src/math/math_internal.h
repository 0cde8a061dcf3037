/* SPDX-License-Identifier: MIT */
/* The math room's inline helpers for the hot paths (the public sinew_vec3_*,
 * sinew_quat_* and sinew_mat4_* functions are in math.c). Not installed. */
#ifndef SINEW_MATH_INTERNAL_H
#define SINEW_MATH_INTERNAL_H

#include "base/base_internal.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* Whether every float is finite: an exponent of all ones is a NaN or an
 * infinity. Branch-free over the bits, so that the compiler vectorizes it
 * (archives check every stream they load this way). */
static inline bool sinew__finite_n(const float *v, size_t n)
{
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        bad |= (bits & 0x7f800000u) == 0x7f800000u;
    }
    return !bad;
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

#endif /* SINEW_MATH_INTERNAL_H */
