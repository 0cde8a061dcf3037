/* SPDX-License-Identifier: MIT */
/* LBS with Arm Advanced SIMD (AArch64, where every CPU has it): each block
 * of eight vertices blends its joints' palette matrices in two four-lane
 * halves, a fused multiply-add per matrix entry and joint from the skin's
 * weight rows (the block layout of skin_internal.h), then each vertex goes
 * through the scalar reference's per-vertex work (sinew__lbs_vertex) with
 * its blended matrix. The blend sums each block's joints in the layout's
 * order with one rounding a step, so results agree with the scalar
 * reference within the tolerance the x86 kernels keep (tests/test_skin_simd.c),
 * not bit for bit. */
#include "skin/skin_internal.h"

#include <arm_neon.h>

void sinew__skin_lbs_neon(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode)
{
    const sinew__skin_blocks *blocks = sinew__skin_of(job->skin)->blocks;
    const sinew_mat4 *palette = job->palette;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        const sinew__block_group *g = &blocks->group[k];
        size_t n = (size_t)sinew__group_joints(k), i, end;
        if (!g->count) continue;
        sinew__group_span(g, st, &i, &end);
        for (; i < end; ++i) {
            int first = (int)g->block[i] * SINEW__BLOCK;
            int lo = first > st->begin ? first : st->begin;
            int hi = first + SINEW__BLOCK < st->end ? first + SINEW__BLOCK : st->end;
            if (lo >= hi) continue;
            const uint16_t *joints = g->joints + (size_t)i * n;
            const float *weights = g->weights + (size_t)i * n * SINEW__BLOCK;
            /* entry e (column c, row r: e = 3c + r) of the eight vertices'
             * blended 3x4 matrices, lanes 0-3 and 4-7 */
            float32x4_t lanes[12][2];
            for (int e = 0; e < 12; ++e) lanes[e][0] = lanes[e][1] = vdupq_n_f32(0.0f);
            for (size_t j = 0; j < n; ++j) {
                const float *p = palette[joints[j]].m;
                float32x4_t w0 = vld1q_f32(weights + j * SINEW__BLOCK), w1 = vld1q_f32(weights + j * SINEW__BLOCK + 4);
                for (int c = 0; c < 4; ++c)
                    for (int r = 0; r < 3; ++r) {
                        lanes[3 * c + r][0] = vfmaq_n_f32(lanes[3 * c + r][0], w0, p[4 * c + r]);
                        lanes[3 * c + r][1] = vfmaq_n_f32(lanes[3 * c + r][1], w1, p[4 * c + r]);
                    }
            }
            float m[12][SINEW__BLOCK];
            for (int e = 0; e < 12; ++e) vst1q_f32(m[e], lanes[e][0]), vst1q_f32(m[e] + 4, lanes[e][1]);
            for (int v = lo; v < hi; ++v) {
                float mv[12];
                for (int e = 0; e < 12; ++e) mv[e] = m[e][v - first];
                sinew__lbs_vertex(job, st, mode, v, mv);
            }
        }
    }
}
