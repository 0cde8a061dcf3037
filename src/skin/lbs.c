/* SPDX-License-Identifier: MIT */
/* Linear blend skinning: the scalar reference and the dispatch to the SIMD
 * kernels (simd/skin_kernels.h for x86, simd/skin_neon.c for Arm). */
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
    if (kernels && kernels->lbs) {
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
        sinew__lbs_vertex(job, &st, mode, v, m);
    }
    return SINEW_OK;
}
