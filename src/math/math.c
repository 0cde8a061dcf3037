/* SPDX-License-Identifier: MIT */
/* Vector, quaternion and matrix math: the public wrappers over internal.h's
 * inline helpers, and the heavier routines (inverse, decomposition, slerp). */
#include "math/math_internal.h"

sinew_vec3 sinew_vec3_make(float x, float y, float z) { return sinew__v3(x, y, z); }
sinew_vec3 sinew_vec3_add(sinew_vec3 a, sinew_vec3 b) { return sinew__v3_add(a, b); }
sinew_vec3 sinew_vec3_sub(sinew_vec3 a, sinew_vec3 b) { return sinew__v3_sub(a, b); }
sinew_vec3 sinew_vec3_scale(sinew_vec3 a, float s) { return sinew__v3_scale(a, s); }
float sinew_vec3_dot(sinew_vec3 a, sinew_vec3 b) { return sinew__v3_dot(a, b); }
sinew_vec3 sinew_vec3_cross(sinew_vec3 a, sinew_vec3 b) { return sinew__v3_cross(a, b); }
float sinew_vec3_length(sinew_vec3 a) { return sqrtf(sinew__v3_dot(a, a)); }
sinew_vec3 sinew_vec3_normalize(sinew_vec3 a) { return sinew__v3_normalize(a); }

sinew_vec3 sinew_vec3_lerp(sinew_vec3 a, sinew_vec3 b, float t)
{
    return sinew__v3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

sinew_quat sinew_quat_identity(void) { return sinew__q(0.0f, 0.0f, 0.0f, 1.0f); }

sinew_quat sinew_quat_from_axis_angle(sinew_vec3 axis, float radians)
{
    sinew_vec3 n = sinew__v3_normalize(axis);
    if (n.x == 0.0f && n.y == 0.0f && n.z == 0.0f) return sinew_quat_identity();
    float s = sinf(0.5f * radians);
    return sinew__q(n.x * s, n.y * s, n.z * s, cosf(0.5f * radians));
}

sinew_quat sinew_quat_mul(sinew_quat a, sinew_quat b) { return sinew__q_mul(a, b); }
sinew_quat sinew_quat_conjugate(sinew_quat q) { return sinew__q(-q.x, -q.y, -q.z, q.w); }
float sinew_quat_dot(sinew_quat a, sinew_quat b) { return sinew__q_dot(a, b); }
sinew_quat sinew_quat_normalize(sinew_quat q) { return sinew__q_normalize(q); }
sinew_vec3 sinew_quat_rotate(sinew_quat q, sinew_vec3 v) { return sinew__q_rotate(q, v); }

sinew_quat sinew_quat_nlerp(sinew_quat a, sinew_quat b, float t)
{
    float sign = sinew__q_dot(a, b) < 0.0f ? -1.0f : 1.0f;
    float ta = 1.0f - t, tb = t * sign;
    return sinew__q_normalize(
        sinew__q(a.x * ta + b.x * tb, a.y * ta + b.y * tb, a.z * ta + b.z * tb, a.w * ta + b.w * tb));
}

sinew_quat sinew_quat_slerp(sinew_quat a, sinew_quat b, float t)
{
    float d = sinew__q_dot(a, b);
    if (d < 0.0f) {
        d = -d;
        b = sinew__q(-b.x, -b.y, -b.z, -b.w);
    }
    if (t == 0.0f) return a;
    /* Below about 1.8 degrees of half-angle the sine is too small to divide by
     * in float; nlerp is within 1e-7 there. */
    if (d > 0.9995f) return sinew_quat_nlerp(a, b, t);
    float theta = acosf(d);
    float inv_sin = 1.0f / sinf(theta);
    float wa = sinf((1.0f - t) * theta) * inv_sin;
    float wb = sinf(t * theta) * inv_sin;
    return sinew__q(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb);
}

sinew_quat sinew_quat_from_mat3(const float r[9])
{
    /* r[c * 3 + row] */
    float m00 = r[0], m10 = r[1], m20 = r[2];
    float m01 = r[3], m11 = r[4], m21 = r[5];
    float m02 = r[6], m12 = r[7], m22 = r[8];
    float trace = m00 + m11 + m22;
    sinew_quat q;
    if (trace > 0.0f) {
        float s = sqrtf(trace + 1.0f) * 2.0f;
        q = sinew__q((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25f * s);
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q = sinew__q(0.25f * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s);
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q = sinew__q((m01 + m10) / s, 0.25f * s, (m12 + m21) / s, (m02 - m20) / s);
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q = sinew__q((m02 + m20) / s, (m12 + m21) / s, 0.25f * s, (m10 - m01) / s);
    }
    return sinew__q_normalize(q);
}

sinew_transform sinew_transform_identity(void)
{
    sinew_transform t = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 1.0f, 1.0f}};
    return t;
}

sinew_mat4 sinew_mat4_identity(void)
{
    sinew_mat4 m = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return m;
}

sinew_mat4 sinew_mat4_mul(const sinew_mat4 *a, const sinew_mat4 *b)
{
    sinew_mat4 r;
    sinew__mat4_mul(&r, a, b);
    return r;
}

sinew_mat4 sinew_mat4_transpose(const sinew_mat4 *a)
{
    sinew_mat4 r;
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) r.m[c * 4 + row] = a->m[row * 4 + c];
    return r;
}

/* The 2x2 sub-determinants shared by the determinant and the inverse
 * (Laplace expansion along the first two rows against the last two). */
typedef struct {
    float s[6], c[6];
} minors;

static minors mat4_minors(const float *m)
{
    /* element (row, col) = m[col * 4 + row] */
#define E(r, c) m[(c) * 4 + (r)]
    minors k;
    k.s[0] = E(0, 0) * E(1, 1) - E(1, 0) * E(0, 1);
    k.s[1] = E(0, 0) * E(1, 2) - E(1, 0) * E(0, 2);
    k.s[2] = E(0, 0) * E(1, 3) - E(1, 0) * E(0, 3);
    k.s[3] = E(0, 1) * E(1, 2) - E(1, 1) * E(0, 2);
    k.s[4] = E(0, 1) * E(1, 3) - E(1, 1) * E(0, 3);
    k.s[5] = E(0, 2) * E(1, 3) - E(1, 2) * E(0, 3);
    k.c[5] = E(2, 2) * E(3, 3) - E(3, 2) * E(2, 3);
    k.c[4] = E(2, 1) * E(3, 3) - E(3, 1) * E(2, 3);
    k.c[3] = E(2, 1) * E(3, 2) - E(3, 1) * E(2, 2);
    k.c[2] = E(2, 0) * E(3, 3) - E(3, 0) * E(2, 3);
    k.c[1] = E(2, 0) * E(3, 2) - E(3, 0) * E(2, 2);
    k.c[0] = E(2, 0) * E(3, 1) - E(3, 0) * E(2, 1);
#undef E
    return k;
}

static float minors_det(const minors *k)
{
    return k->s[0] * k->c[5] - k->s[1] * k->c[4] + k->s[2] * k->c[3] + k->s[3] * k->c[2] -
           k->s[4] * k->c[1] + k->s[5] * k->c[0];
}

float sinew_mat4_determinant(const sinew_mat4 *a)
{
    minors k = mat4_minors(a->m);
    return minors_det(&k);
}

sinew_result sinew_mat4_inverse(const sinew_mat4 *a, sinew_mat4 *out)
{
    const float *m = a->m;
    minors k = mat4_minors(m);
    float det = minors_det(&k);
    if (det == 0.0f || !isfinite(det)) return SINEW_ERROR_SINGULAR;
    float inv = 1.0f / det;
    const float *s = k.s, *c = k.c;
#define E(r, col) m[(col) * 4 + (r)]
    float r[4][4]; /* r[row][col] */
    r[0][0] = (E(1, 1) * c[5] - E(1, 2) * c[4] + E(1, 3) * c[3]) * inv;
    r[0][1] = (-E(0, 1) * c[5] + E(0, 2) * c[4] - E(0, 3) * c[3]) * inv;
    r[0][2] = (E(3, 1) * s[5] - E(3, 2) * s[4] + E(3, 3) * s[3]) * inv;
    r[0][3] = (-E(2, 1) * s[5] + E(2, 2) * s[4] - E(2, 3) * s[3]) * inv;
    r[1][0] = (-E(1, 0) * c[5] + E(1, 2) * c[2] - E(1, 3) * c[1]) * inv;
    r[1][1] = (E(0, 0) * c[5] - E(0, 2) * c[2] + E(0, 3) * c[1]) * inv;
    r[1][2] = (-E(3, 0) * s[5] + E(3, 2) * s[2] - E(3, 3) * s[1]) * inv;
    r[1][3] = (E(2, 0) * s[5] - E(2, 2) * s[2] + E(2, 3) * s[1]) * inv;
    r[2][0] = (E(1, 0) * c[4] - E(1, 1) * c[2] + E(1, 3) * c[0]) * inv;
    r[2][1] = (-E(0, 0) * c[4] + E(0, 1) * c[2] - E(0, 3) * c[0]) * inv;
    r[2][2] = (E(3, 0) * s[4] - E(3, 1) * s[2] + E(3, 3) * s[0]) * inv;
    r[2][3] = (-E(2, 0) * s[4] + E(2, 1) * s[2] - E(2, 3) * s[0]) * inv;
    r[3][0] = (-E(1, 0) * c[3] + E(1, 1) * c[1] - E(1, 2) * c[0]) * inv;
    r[3][1] = (E(0, 0) * c[3] - E(0, 1) * c[1] + E(0, 2) * c[0]) * inv;
    r[3][2] = (-E(3, 0) * s[3] + E(3, 1) * s[1] - E(3, 2) * s[0]) * inv;
    r[3][3] = (E(2, 0) * s[3] - E(2, 1) * s[1] + E(2, 2) * s[0]) * inv;
#undef E
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row) out->m[col * 4 + row] = r[row][col];
    return SINEW_OK;
}

sinew_vec3 sinew_mat4_transform_point(const sinew_mat4 *m, sinew_vec3 p)
{
    const float *a = m->m;
    return sinew__v3(a[0] * p.x + a[4] * p.y + a[8] * p.z + a[12], a[1] * p.x + a[5] * p.y + a[9] * p.z + a[13],
                     a[2] * p.x + a[6] * p.y + a[10] * p.z + a[14]);
}

sinew_vec3 sinew_mat4_transform_vector(const sinew_mat4 *m, sinew_vec3 v)
{
    const float *a = m->m;
    return sinew__v3(a[0] * v.x + a[4] * v.y + a[8] * v.z, a[1] * v.x + a[5] * v.y + a[9] * v.z,
                     a[2] * v.x + a[6] * v.y + a[10] * v.z);
}

sinew_mat4 sinew_mat4_from_transform(const sinew_transform *t)
{
    sinew_mat4 m;
    sinew__mat4_from_trs(&m, t->translation, sinew__q_normalize(t->rotation), t->scale);
    return m;
}

sinew_result sinew_mat4_decompose(const sinew_mat4 *m, sinew_transform *out, float *shear)
{
    const float *a = m->m;
    sinew_vec3 c[3] = {sinew__v3(a[0], a[1], a[2]), sinew__v3(a[4], a[5], a[6]), sinew__v3(a[8], a[9], a[10])};
    float len[3];
    for (int i = 0; i < 3; ++i) len[i] = sqrtf(sinew__v3_dot(c[i], c[i]));

    /* Largest |cosine| between two axes: 0 for a TRS. */
    float worst = 0.0f;
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            if (len[i] > 0.0f && len[j] > 0.0f) {
                float cosine = fabsf(sinew__v3_dot(c[i], c[j])) / (len[i] * len[j]);
                if (cosine > worst) worst = cosine;
            }
        }
    }
    if (shear) *shear = worst;

    out->translation = sinew__v3(a[12], a[13], a[14]);
    /* Gram-Schmidt from x gives the rotation closest to the axes' directions;
     * for a TRS it is exact. */
    sinew_vec3 x = sinew__v3_normalize(c[0]);
    sinew_vec3 y = sinew__v3_normalize(sinew__v3_sub(c[1], sinew__v3_scale(x, sinew__v3_dot(x, c[1]))));
    sinew_vec3 z = sinew__v3_cross(x, y);
    float sx = sinew__v3_dot(x, c[0]), sy = sinew__v3_dot(y, c[1]), sz = sinew__v3_dot(z, c[2]);
    bool singular = !(len[0] > 0.0f) || !(len[1] > 0.0f) || !(len[2] > 0.0f) ||
                    !(sinew__v3_dot(y, y) > 0.0f);
    if (singular) {
        out->rotation = sinew__q(0.0f, 0.0f, 0.0f, 1.0f);
        out->scale = sinew__v3(len[0], len[1], len[2]);
        return SINEW_ERROR_SINGULAR;
    }
    /* A mirror (negative determinant) becomes a negative x scale: flip x and
     * keep the frame right-handed. */
    if (sz < 0.0f) {
        x = sinew__v3_scale(x, -1.0f);
        sx = -sx;
        z = sinew__v3_cross(x, y);
        sz = sinew__v3_dot(z, c[2]);
    }
    float r[9] = {x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z};
    out->rotation = sinew_quat_from_mat3(r);
    out->scale = sinew__v3(sx, sy, sz);

    float size = fmaxf(fmaxf(len[0], len[1]), len[2]);
    bool projective = fabsf(a[3]) > 1e-6f * size || fabsf(a[7]) > 1e-6f * size ||
                      fabsf(a[11]) > 1e-6f * size || fabsf(a[15] - 1.0f) > 1e-6f;
    if (worst > 1e-4f || projective) return SINEW_ERROR_SHEAR;
    return SINEW_OK;
}

/* Eigen-decomposition of a symmetric 3x3 (row-major s, overwritten with
 * its diagonal form) by cyclic Jacobi rotations; v receives the
 * eigenvectors as columns (row-major). */
static void jacobi3(double s[3][3], double v[3][3])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v[i][j] = i == j;
    for (int sweep = 0; sweep < 64; ++sweep) {
        double off = fabs(s[0][1]) + fabs(s[0][2]) + fabs(s[1][2]);
        double diag = fabs(s[0][0]) + fabs(s[1][1]) + fabs(s[2][2]);
        if (off <= 1e-300 || off <= diag * 1e-18) break;
        for (int p = 0; p < 2; ++p) {
            for (int q = p + 1; q < 3; ++q) {
                if (s[p][q] == 0.0) continue;
                double theta = (s[q][q] - s[p][p]) / (2.0 * s[p][q]);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
                /* s = J^T s J and v = v J, J the rotation in the (p, q) plane */
                for (int k = 0; k < 3; ++k) {
                    double kp = s[k][p], kq = s[k][q];
                    s[k][p] = c * kp - sn * kq;
                    s[k][q] = sn * kp + c * kq;
                }
                for (int k = 0; k < 3; ++k) {
                    double pk = s[p][k], qk = s[q][k];
                    s[p][k] = c * pk - sn * qk;
                    s[q][k] = sn * pk + c * qk;
                }
                for (int k = 0; k < 3; ++k) {
                    double kp = v[k][p], kq = v[k][q];
                    v[k][p] = c * kp - sn * kq;
                    v[k][q] = sn * kp + c * kq;
                }
            }
        }
    }
}

static sinew_quat quat_from_rows(double r[3][3])
{
    float m[9]; /* column-major */
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) m[c * 3 + k] = (float)r[k][c];
    return sinew_quat_from_mat3(m);
}

sinew_result sinew_mat4_decompose_affine(const sinew_mat4 *m, sinew_transform *outer, sinew_quat *inner)
{
    const float *a = m->m;
    *outer = sinew_transform_identity();
    *inner = sinew_quat_identity();
    for (int i = 0; i < 16; ++i)
        if (!isfinite(a[i])) return SINEW_ERROR_NOT_FINITE;
    double A[3][3]; /* row-major upper 3x3 */
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) A[r][c] = a[c * 4 + r];
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    double size = 0.0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) size = fmax(size, fabs(A[r][c]));
    if (!(fabs(det) > size * size * size * 1e-12)) return SINEW_ERROR_SINGULAR;

    double s[3][3], v[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) s[r][c] = A[0][r] * A[0][c] + A[1][r] * A[1][c] + A[2][r] * A[2][c];
    jacobi3(s, v);
    double vdet = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                  v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
    if (vdet < 0.0)
        for (int k = 0; k < 3; ++k) v[k][2] = -v[k][2];
    /* U = A V S^-1, columns re-orthonormalized; a mirror goes to the last
     * singular value. */
    double sigma[3], u[3][3];
    for (int c = 0; c < 3; ++c) {
        sigma[c] = sqrt(fmax(s[c][c], 0.0));
        for (int r = 0; r < 3; ++r) u[r][c] = (A[r][0] * v[0][c] + A[r][1] * v[1][c] + A[r][2] * v[2][c]) / sigma[c];
    }
    if (det < 0.0) {
        sigma[2] = -sigma[2];
        for (int r = 0; r < 3; ++r) u[r][2] = -u[r][2];
    }
    double n0 = sqrt(u[0][0] * u[0][0] + u[1][0] * u[1][0] + u[2][0] * u[2][0]);
    for (int r = 0; r < 3; ++r) u[r][0] /= n0;
    double d01 = u[0][0] * u[0][1] + u[1][0] * u[1][1] + u[2][0] * u[2][1];
    for (int r = 0; r < 3; ++r) u[r][1] -= d01 * u[r][0];
    double n1 = sqrt(u[0][1] * u[0][1] + u[1][1] * u[1][1] + u[2][1] * u[2][1]);
    for (int r = 0; r < 3; ++r) u[r][1] /= n1;
    u[0][2] = u[1][0] * u[2][1] - u[2][0] * u[1][1];
    u[1][2] = u[2][0] * u[0][1] - u[0][0] * u[2][1];
    u[2][2] = u[0][0] * u[1][1] - u[1][0] * u[0][1];

    double vt[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) vt[r][c] = v[c][r];
    outer->translation = sinew__v3(a[12], a[13], a[14]);
    outer->rotation = quat_from_rows(u);
    outer->scale = sinew__v3((float)sigma[0], (float)sigma[1], (float)sigma[2]);
    *inner = quat_from_rows(vt);
    float tol = 1e-6f * (float)size;
    bool projective = fabsf(a[3]) > tol || fabsf(a[7]) > tol || fabsf(a[11]) > tol || fabsf(a[15] - 1.0f) > 1e-6f;
    return projective ? SINEW_ERROR_SHEAR : SINEW_OK;
}
