/* SPDX-License-Identifier: MIT */
/* Morph targets: weighted sums of per-target vertex deltas. */
#include "skin/skin_internal.h"

/* out[v] = base[v] + sum_t w[t] * delta[t][v] over `n` vertices of `c`
 * floats (the first 3 morphed, the rest copied). */
static void morph_stream(const sinew_morph *m, const float *w, const float *base, const float *delta, int c,
                         float *out)
{
    size_t n = (size_t)m->vertex_count;
    if (out != base) memcpy(out, base, sizeof(float) * n * (size_t)c);
    if (!delta) return;
    for (int t = 0; t < m->target_count; ++t) {
        float wt = w[t];
        if (wt == 0.0f) continue;
        const float *d = &delta[(size_t)t * n * 3];
        for (size_t v = 0; v < n; ++v) {
            out[v * (size_t)c + 0] += wt * d[v * 3 + 0];
            out[v * (size_t)c + 1] += wt * d[v * 3 + 1];
            out[v * (size_t)c + 2] += wt * d[v * 3 + 2];
        }
    }
}

sinew_result sinew_morph_apply(const sinew_morph *m, const float *weights, int weight_count,
                               const float *base_positions, const float *base_normals, const float *base_tangents,
                               float *positions, float *normals, float *tangents, sinew_error *err)
{
    if (!m || (!weights && weight_count > 0) || (positions && !base_positions) || (normals && !base_normals) ||
        (tangents && !base_tangents))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_morph_apply: the targets, the weights and a base for every output are required");
    if (weight_count != m->target_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "sinew_morph_apply: %d weights for %d targets", weight_count,
                           m->target_count);
    if (positions) morph_stream(m, weights, base_positions, m->positions, 3, positions);
    if (normals) morph_stream(m, weights, base_normals, m->normals, 3, normals);
    if (tangents) morph_stream(m, weights, base_tangents, m->tangents, 4, tangents);
    sinew__ok(err);
    return SINEW_OK;
}
