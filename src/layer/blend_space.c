/* SPDX-License-Identifier: MIT */
/* Blend-space weights: a point's weights over clips placed on a line or in
 * a plane. */
#include "layer/layer_internal.h"

sinew_result sinew_blend_space_1d(const float *pos, int count, float x, float *weights, sinew_error *err)
{
    if (!pos || !weights || count < 1 || !isfinite(x))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_blend_space_1d: positions, weights and a finite x");
    for (int i = 0; i < count; ++i) {
        if (!isfinite(pos[i]))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_blend_space_1d: position %d is not finite", i);
        if (i > 0 && !(pos[i] > pos[i - 1]))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_blend_space_1d: position %d (%g) is not above position %d (%g)", i,
                               (double)pos[i], i - 1, (double)pos[i - 1]);
    }
    for (int i = 0; i < count; ++i) weights[i] = 0.0f;
    if (x <= pos[0]) {
        weights[0] = 1.0f;
    } else if (x >= pos[count - 1]) {
        weights[count - 1] = 1.0f;
    } else {
        int hi = 1;
        while (pos[hi] < x) ++hi;
        float f = (x - pos[hi - 1]) / (pos[hi] - pos[hi - 1]);
        weights[hi - 1] = 1.0f - f;
        weights[hi] = f;
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* The gradient-band vector from sample a to point p, as the pair (a, b)
 * measures it: plain differences, or polar (length difference over the
 * pair's mean length, twice the signed angle from a). */
static void band_vector(sinew_blend_space_mode mode, const float *a, const float *b, float px, float py, double out[2])
{
    if (mode == SINEW_BLEND_SPACE_CARTESIAN) {
        out[0] = (double)px - a[0];
        out[1] = (double)py - a[1];
        return;
    }
    double la = hypot(a[0], a[1]), lb = hypot(b[0], b[1]), lp = hypot(px, py);
    double mean = 0.5 * (la + lb);
    double angle = 0.0;
    if (la > 0.0 && lp > 0.0) angle = atan2((double)a[0] * py - (double)a[1] * px, (double)a[0] * px + (double)a[1] * py);
    out[0] = (lp - la) / mean;
    out[1] = 2.0 * angle;
}

sinew_result sinew_blend_space_2d(const float *pts, int count, float x, float y, sinew_blend_space_mode mode,
                                  float *weights, sinew_error *err)
{
    if (!pts || !weights || count < 1 || !isfinite(x) || !isfinite(y) ||
        (mode != SINEW_BLEND_SPACE_CARTESIAN && mode != SINEW_BLEND_SPACE_DIRECTIONAL))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_blend_space_2d: points, weights, a finite x and y, a known mode");
    for (int i = 0; i < count; ++i) {
        if (!isfinite(pts[2 * i]) || !isfinite(pts[2 * i + 1]))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_blend_space_2d: point %d is not finite", i);
        for (int j = 0; j < i; ++j)
            if (pts[2 * i] == pts[2 * j] && pts[2 * i + 1] == pts[2 * j + 1])
                return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                                   "sinew_blend_space_2d: points %d and %d are both (%g, %g)", j, i, (double)pts[2 * i],
                                   (double)pts[2 * i + 1]);
    }
    double sum = 0.0;
    for (int i = 0; i < count; ++i) {
        const float *a = &pts[2 * i];
        double h = 1.0;
        for (int j = 0; j < count && h > 0.0; ++j) {
            if (j == i) continue;
            const float *b = &pts[2 * j];
            double ab[2], ap[2];
            band_vector(mode, a, b, b[0], b[1], ab);
            band_vector(mode, a, b, x, y, ap);
            double len2 = ab[0] * ab[0] + ab[1] * ab[1];
            double hj = 1.0 - (ap[0] * ab[0] + ap[1] * ab[1]) / len2;
            if (hj < h) h = hj;
        }
        if (h < 0.0) h = 0.0;
        weights[i] = (float)h;
        sum += h;
    }
    if (!(sum > 0.0)) { /* cannot happen for distinct points; keep the promise anyway */
        for (int i = 0; i < count; ++i) weights[i] = 1.0f / (float)count;
    } else {
        for (int i = 0; i < count; ++i) weights[i] = (float)((double)weights[i] / sum);
    }
    sinew__ok(err);
    return SINEW_OK;
}
