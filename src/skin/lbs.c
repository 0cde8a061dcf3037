/* Linear blend skinning: the scalar reference and the dispatch to the SIMD
 * kernels (simd/skin_kernels.h). */
#include "skin/skin_internal.h"

sinew_normal_mode sinew__lbs_normal_mode(const sinew_skin_job *job, const sinew__job_streams *st)
{
    if (job->normal_mode != SINEW_NORMALS_AUTO || !st->normals) return job->normal_mode;
    return sinew_palette_is_conformal(job->palette, job->skin->joint_count, 1e-4f) ? SINEW_NORMALS_FAST
                                                                                   : SINEW_NORMALS_INVERSE_TRANSPOSE;
}

sinew_result sinew_skin_lbs(const sinew_skin_job *job, sinew_error *err)
{
    sinew_result r = sinew__skin_job_check(job, false, "sinew_skin_lbs", err);
    if (r != SINEW_OK) return r;
    const sinew_skin *s = job->skin;
    const sinew_mat4 *pal = job->palette;
    sinew__job_streams st = sinew__job_resolve(job);

    sinew_normal_mode mode = sinew__lbs_normal_mode(job, &st);
    const sinew__skin_kernels *kernels = sinew__skin_kernels_for(sinew__skin_job_level(job));
    if (kernels) {
        kernels->lbs(job, &st, mode);
        return SINEW_OK;
    }

    for (int v = st.begin; v < st.end; ++v) {
        int idx[SINEW_MAX_INFLUENCES];
        float w[SINEW_MAX_INFLUENCES];
        int n = sinew__skin_fetch(s, v, idx, w);
        float m[12] = {0}; /* blended 3x4, column-major without the last row */
        for (int i = 0; i < n; ++i) {
            if (w[i] == 0.0f) continue;
            const float *p = pal[idx[i]].m;
            for (int c = 0; c < 4; ++c) {
                m[c * 3 + 0] += w[i] * p[c * 4 + 0];
                m[c * 3 + 1] += w[i] * p[c * 4 + 1];
                m[c * 3 + 2] += w[i] * p[c * 4 + 2];
            }
        }
        if (st.positions) {
            sinew_vec3 q = sinew__mat3_apply(m, sinew__read_input(st.prepared_positions, st.slot, job->positions,
                                                                  st.ps, v));
            float *o = sinew__out(job->out_positions, st.ops, v);
            o[0] = q.x + m[9];
            o[1] = q.y + m[10];
            o[2] = q.z + m[11];
        }
        if (st.normals) {
            sinew_vec3 nv = sinew__read_input(st.prepared_normals, st.slot, job->normals, st.ns, v);
            if (mode == SINEW_NORMALS_FAST) {
                nv = sinew__mat3_apply(m, nv);
            } else {
                nv = sinew__mat3_transform_normal(m, nv);
            }
            if (!job->skip_renormalize) nv = sinew__v3_normalize(nv);
            float *o = sinew__out(job->out_normals, st.ons, v);
            o[0] = nv.x, o[1] = nv.y, o[2] = nv.z;
        }
        if (job->tangents) {
            const float *p = sinew__in(job->tangents, st.ts, v);
            float handedness = p[3];
            sinew_vec3 t = sinew__mat3_apply(m, sinew__v3(p[0], p[1], p[2]));
            if (!job->skip_renormalize) t = sinew__v3_normalize(t);
            float *o = sinew__out(job->out_tangents, st.ots, v);
            o[0] = t.x, o[1] = t.y, o[2] = t.z, o[3] = handedness;
        }
    }
    return SINEW_OK;
}
