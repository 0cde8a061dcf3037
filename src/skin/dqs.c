/* SPDX-License-Identifier: MIT */
/* Dual quaternion skinning, scalar reference, with the stretch that dual
 * quaternions cannot carry blended linearly and applied first; the dispatch
 * to the SIMD kernels (simd/skin_kernels.h). */
#include "skin/skin_internal.h"

sinew_result sinew_dq_palette(const sinew_mat4 *palette, int count, sinew_dq_transform *out, sinew_error *err)
{
    if (!palette || !out || count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_dq_palette: palette and output are required");
    sinew_result result = SINEW_OK;
    sinew__ok(err);
    for (int j = 0; j < count; ++j) {
        const float *m = palette[j].m;
        sinew_vec3 c0 = sinew__v3(m[0], m[1], m[2]), c1 = sinew__v3(m[4], m[5], m[6]), c2 = sinew__v3(m[8], m[9], m[10]);
        /* A proper rotation from the axes (Gram-Schmidt from x); S = R^T A
         * holds everything else, a mirror included, so R S = A exactly. */
        sinew_vec3 x = sinew__v3_normalize(c0);
        sinew_vec3 y = sinew__v3_normalize(sinew__v3_sub(c1, sinew__v3_scale(x, sinew__v3_dot(x, c1))));
        sinew_vec3 z = sinew__v3_cross(x, y);
        sinew_dq_transform *d = &out[j];
        if (sinew__v3_dot(x, x) == 0.0f || sinew__v3_dot(y, y) == 0.0f || !isfinite(sinew__v3_dot(z, c2)) ||
            sinew__v3_dot(z, c2) == 0.0f) {
            static const float identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            d->real = sinew__q(0.0f, 0.0f, 0.0f, 1.0f);
            d->dual = sinew__q(0.0f, 0.0f, 0.0f, 0.0f);
            memcpy(d->stretch, identity, sizeof identity);
            if (result == SINEW_OK)
                result = sinew__fail(err, SINEW_ERROR_SINGULAR, "sinew_dq_palette: matrix %d is singular or not finite",
                                     j);
            continue;
        }
        float r[9] = {x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z};
        sinew_vec3 cols[3] = {c0, c1, c2};
        for (int c = 0; c < 3; ++c) {
            d->stretch[c * 3 + 0] = sinew__v3_dot(x, cols[c]);
            d->stretch[c * 3 + 1] = sinew__v3_dot(y, cols[c]);
            d->stretch[c * 3 + 2] = sinew__v3_dot(z, cols[c]);
        }
        d->real = sinew_quat_from_mat3(r);
        /* dual = 1/2 (t, 0) * real */
        sinew_quat t = sinew__q(m[12], m[13], m[14], 0.0f);
        sinew_quat dq = sinew__q_mul(t, d->real);
        d->dual = sinew__q(0.5f * dq.x, 0.5f * dq.y, 0.5f * dq.z, 0.5f * dq.w);
    }
    return result;
}

static bool stretch_is_identity(const float s[9])
{
    static const float identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; ++i)
        if (!(fabsf(s[i] - identity[i]) <= 1e-6f)) return false;
    return true;
}

/* A positive multiple of the identity (S[0] = |x axis| is never negative). */
static bool stretch_is_uniform(const float s[9])
{
    float d = s[0], tol = 1e-5f * fabsf(d);
    return fabsf(s[1]) <= tol && fabsf(s[2]) <= tol && fabsf(s[3]) <= tol && fabsf(s[5]) <= tol &&
           fabsf(s[6]) <= tol && fabsf(s[7]) <= tol && fabsf(s[4] - d) <= tol && fabsf(s[8] - d) <= tol;
}

sinew_result sinew_skin_dqs(const sinew_skin_job *job, sinew_error *err)
{
    sinew_result res = sinew__skin_job_check(job, true, "sinew_skin_dqs", err);
    if (res != SINEW_OK) return res;
    const sinew_skin *s = job->skin;
    const sinew_dq_transform *pal = job->dq_palette;
    sinew__job_streams st = sinew__job_resolve(job);

    /* Decided once per call: skip the stretch when every joint is rigid; use
     * the cheap normal path when every stretch is a uniform scale. */
    bool rigid = true, uniform = true;
    for (int j = 0; j < s->joint_count; ++j) {
        rigid = rigid && stretch_is_identity(pal[j].stretch);
        uniform = uniform && stretch_is_uniform(pal[j].stretch);
    }
    if (job->normal_mode == SINEW_NORMALS_FAST) uniform = true;
    if (job->normal_mode == SINEW_NORMALS_INVERSE_TRANSPOSE) uniform = false;
    const sinew__skin_kernels *kernels = sinew__skin_kernels_for(sinew__skin_job_level(job));
    if (kernels && kernels->dqs) {
        kernels->dqs(job, &st, rigid, uniform);
        return SINEW_OK;
    }

    for (int v = st.begin; v < st.end; ++v) {
        int idx[SINEW_MAX_INFLUENCES];
        float w[SINEW_MAX_INFLUENCES];
        int n = sinew__skin_fetch(s, v, idx, w);
        sinew_quat br = {0, 0, 0, 0}, bd = {0, 0, 0, 0}, first = {0, 0, 0, 0};
        float S[9] = {0};
        bool have_first = false;
        for (int i = 0; i < n; ++i) {
            if (w[i] == 0.0f) continue;
            const sinew_dq_transform *d = &pal[idx[i]];
            if (!have_first) {
                first = d->real;
                have_first = true;
            }
            /* Antipodality: align every rotation with the first influence's. */
            float wi = sinew__q_dot(first, d->real) < 0.0f ? -w[i] : w[i];
            br.x += wi * d->real.x, br.y += wi * d->real.y, br.z += wi * d->real.z, br.w += wi * d->real.w;
            bd.x += wi * d->dual.x, bd.y += wi * d->dual.y, bd.z += wi * d->dual.z, bd.w += wi * d->dual.w;
            if (!rigid)
                for (int k = 0; k < 9; ++k) S[k] += w[i] * d->stretch[k];
        }
        float len2 = sinew__q_dot(br, br);
        float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
        sinew_quat r = sinew__q(br.x * inv, br.y * inv, br.z * inv, br.w * inv);
        sinew_quat d = sinew__q(bd.x * inv, bd.y * inv, bd.z * inv, bd.w * inv);
        /* translation = 2 dual * conjugate(real), vector part */
        sinew_vec3 rv = sinew__v3(r.x, r.y, r.z), dv = sinew__v3(d.x, d.y, d.z);
        sinew_vec3 t = sinew__v3_scale(
            sinew__v3_add(sinew__v3_sub(sinew__v3_scale(dv, r.w), sinew__v3_scale(rv, d.w)), sinew__v3_cross(rv, dv)),
            2.0f);

        if (st.positions) {
            sinew_vec3 q = sinew__read_input(st.prepared_positions, st.slot, job->positions, st.position_stride, v);
            if (!rigid) q = sinew__mat3_apply(S, q);
            q = sinew__v3_add(sinew__q_rotate(r, q), t);
            float *o = sinew__out(job->out_positions, st.out_position_stride, v);
            o[0] = q.x, o[1] = q.y, o[2] = q.z;
        }
        if (st.normals) {
            sinew_vec3 nv = sinew__read_input(st.prepared_normals, st.slot, job->normals, st.normal_stride, v);
            if (!rigid && !uniform) nv = sinew__mat3_transform_normal(S, nv);
            nv = sinew__q_rotate(r, nv);
            if (!job->skip_renormalize) nv = sinew__v3_normalize(nv);
            float *o = sinew__out(job->out_normals, st.out_normal_stride, v);
            o[0] = nv.x, o[1] = nv.y, o[2] = nv.z;
        }
        if (job->tangents) {
            const float *p = sinew__in(job->tangents, st.tangent_stride, v);
            float handedness = p[3];
            sinew_vec3 tv = sinew__v3(p[0], p[1], p[2]);
            if (!rigid) tv = sinew__mat3_apply(S, tv);
            tv = sinew__q_rotate(r, tv);
            if (!job->skip_renormalize) tv = sinew__v3_normalize(tv);
            float *o = sinew__out(job->out_tangents, st.out_tangent_stride, v);
            o[0] = tv.x, o[1] = tv.y, o[2] = tv.z, o[3] = handedness;
        }
    }
    return SINEW_OK;
}
