/* SPDX-License-Identifier: MIT */
/* Local pose to model space, one pass over parents-first joints. */
#include "skeleton/skeleton_internal.h"

static sinew_result check_pose_args(const sinew_skeleton *sk, const void *a, const void *b, int count,
                                    const char *what, sinew_error *err)
{
    if (!sk || !a || !b) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: NULL argument", what);
    if (count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: buffer holds %d joints, skeleton has %d", what, count,
                           sk->joint_count);
    return SINEW_OK;
}

#if defined(__SSE2__)
/* The affine case in SSE registers: each joint's TRS matrix (the sums of
 * sinew__mat4_from_trs) times its parent's columns (the sums of
 * sinew__mat4_mul_affine, in the same order), so the result is the scalar
 * one bit for bit. */
static void local_to_model_sse(const int16_t *parents, const sinew_transform *local, const sinew_mat4 *root,
                               sinew_mat4 *model, int count)
{
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)), w1 = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
    __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0; /* the last joint's columns */
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 trs; /* stays in registers: only its entries are read */
        sinew__mat4_from_trs(&trs, x->translation, x->rotation, x->scale);
        const float *m = trs.m;
        /* the parent's columns: a joint that follows its parent takes them
         * from registers, so the chain down a limb does not wait on stores;
         * a root without a root matrix uses the identity */
        int p = parents[j];
        const sinew_mat4 *parent = p >= 0 ? &model[p] : root;
        __m128 p0 = c0, p1 = c1, p2 = c2, p3 = c3;
        if (!parent) {
            p0 = _mm_set_ps(0.0f, 0.0f, 0.0f, 1.0f), p1 = _mm_set_ps(0.0f, 0.0f, 1.0f, 0.0f);
            p2 = _mm_set_ps(0.0f, 1.0f, 0.0f, 0.0f), p3 = w1;
        } else if (p < 0 || p != j - 1) { /* joint 0 (p == j - 1 == -1) too */
            p0 = _mm_loadu_ps(parent->m), p1 = _mm_loadu_ps(parent->m + 4);
            p2 = _mm_loadu_ps(parent->m + 8), p3 = _mm_loadu_ps(parent->m + 12);
        }
#define SINEW__COLUMN(a, b, c) \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(a)), _mm_mul_ps(p1, _mm_set1_ps(b))), _mm_mul_ps(p2, _mm_set1_ps(c)))
        c0 = _mm_and_ps(SINEW__COLUMN(m[0], m[1], m[2]), xyz);
        c1 = _mm_and_ps(SINEW__COLUMN(m[4], m[5], m[6]), xyz);
        c2 = _mm_and_ps(SINEW__COLUMN(m[8], m[9], m[10]), xyz);
        c3 = _mm_or_ps(_mm_and_ps(_mm_add_ps(SINEW__COLUMN(m[12], m[13], m[14]), p3), xyz), w1);
#undef SINEW__COLUMN
        float *o = model[j].m;
        _mm_storeu_ps(o, c0), _mm_storeu_ps(o + 4, c1), _mm_storeu_ps(o + 8, c2), _mm_storeu_ps(o + 12, c3);
    }
}
#elif defined(__aarch64__)
#include <arm_neon.h>
/* The affine case in NEON registers, as local_to_model_sse does it: the
 * same products and sums in the same order (no fused multiply-adds), so
 * the result is the scalar one bit for bit. */
static void local_to_model_neon(const int16_t *parents, const sinew_transform *local, const sinew_mat4 *root,
                                sinew_mat4 *model, int count)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float32x4_t c0 = vdupq_n_f32(0.0f), c1 = c0, c2 = c0, c3 = c0; /* the last joint's columns */
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 trs;
        sinew__mat4_from_trs(&trs, x->translation, x->rotation, x->scale);
        const float *m = trs.m;
        int p = parents[j];
        const sinew_mat4 *parent = p >= 0 ? &model[p] : root;
        float32x4_t p0 = c0, p1 = c1, p2 = c2, p3 = c3;
        if (!parent || p < 0 || p != j - 1) {
            const float *q = parent ? parent->m : identity;
            p0 = vld1q_f32(q), p1 = vld1q_f32(q + 4), p2 = vld1q_f32(q + 8), p3 = vld1q_f32(q + 12);
        }
#define SINEW__COLUMN(a, b, c) \
    vaddq_f32(vaddq_f32(vmulq_n_f32(p0, a), vmulq_n_f32(p1, b)), vmulq_n_f32(p2, c))
        c0 = vsetq_lane_f32(0.0f, SINEW__COLUMN(m[0], m[1], m[2]), 3);
        c1 = vsetq_lane_f32(0.0f, SINEW__COLUMN(m[4], m[5], m[6]), 3);
        c2 = vsetq_lane_f32(0.0f, SINEW__COLUMN(m[8], m[9], m[10]), 3);
        c3 = vsetq_lane_f32(1.0f, vaddq_f32(SINEW__COLUMN(m[12], m[13], m[14]), p3), 3);
#undef SINEW__COLUMN
        float *o = model[j].m;
        vst1q_f32(o, c0), vst1q_f32(o + 4, c1), vst1q_f32(o + 8, c2), vst1q_f32(o + 12, c3);
    }
}
#endif

void sinew__local_to_model_in_order(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                    sinew_mat4 *model, int count)
{
    /* Every TRS matrix is affine; so is the whole pose unless the root
     * matrix is projective, which the general product then carries down. */
    bool affine = sinew__affine_root(root);
#if defined(__SSE2__)
    if (affine) {
        local_to_model_sse(sk->parents, local, root, model, count);
        return;
    }
#elif defined(__aarch64__)
    if (affine) {
        local_to_model_neon(sk->parents, local, root, model, count);
        return;
    }
#endif
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 m;
        sinew__mat4_from_trs(&m, x->translation, x->rotation, x->scale);
        int p = sk->parents[j];
        const sinew_mat4 *parent = p >= 0 ? &model[p] : root;
        if (!parent)
            model[j] = m;
        else if (affine)
            sinew__mat4_mul_affine(&model[j], parent, &m);
        else
            sinew__mat4_mul(&model[j], parent, &m);
    }
}

sinew_result sinew_local_to_model(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                  sinew_mat4 *model, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, local, model, count, "sinew_local_to_model", err);
    if (r != SINEW_OK) return r;
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    if (s->local_to_model && sinew__affine_root(root))
        s->local_to_model(s->schedule, s->schedule_length, sk->parents, local, root, model);
    else
        sinew__local_to_model_in_order(sk, local, root, model, count);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_rest_pose(const sinew_skeleton *sk, sinew_transform *out, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, sk ? sk->rest_pose : NULL, out, count, "sinew_rest_pose", err);
    if (r != SINEW_OK) return r;
    memcpy(out, sk->rest_pose, sizeof(sinew_transform) * (size_t)count);
    sinew__ok(err);
    return SINEW_OK;
}
