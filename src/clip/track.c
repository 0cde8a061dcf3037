/* SPDX-License-Identifier: MIT */
/* A track on its own: its components, the key search, and the reference
 * sampler (sinew_track_sample), whose formulas every form of a clip
 * matches. The bottom of the clip room: it calls no other file of it. */
#include "clip/clip_internal.h"

int sinew_track_components(const sinew_track *t)
{
    switch (t->target) {
    case SINEW_TARGET_ROTATION: return 4;
    case SINEW_TARGET_WEIGHTS: return t->width;
    default: return 3;
    }
}

/* Returns k with times[k] <= t < times[k + 1], given n >= 2 and
 * times[0] <= t < times[n - 1] (any t, NaN included, gives some k in
 * [0, n - 2]). Tries the hint and the few intervals after it before a binary
 * search: forward playback is amortized O(1), a seek O(log n). */
int sinew__find_key(const float *times, int n, float t, int32_t *hint)
{
    int k = hint ? *hint : 0;
    if (k < 0 || k > n - 2) k = 0;
    if (times[k] <= t) {
        for (int step = 0; step < 4 && k <= n - 2; ++step, ++k) {
            if (t < times[k + 1]) {
                if (hint) *hint = k;
                return k;
            }
        }
    }
    int lo = 0, hi = n - 2; /* answer in [lo, hi] */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (times[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (hint) *hint = lo;
    return lo;
}

void sinew__lerp_key(const float *a, const float *b, int c, bool rotation, float s, unsigned flags, float *out)
{
    if (rotation) {
        sinew_quat qa = sinew__q(a[0], a[1], a[2], a[3]), qb = sinew__q(b[0], b[1], b[2], b[3]);
        sinew_quat q = (flags & SINEW_SAMPLE_NLERP) ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    } else {
        for (int i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * s;
    }
}

void sinew_track_sample(const sinew_track *tr, float t, unsigned flags, int32_t *hint, float *out)
{
    int c = sinew_track_components(tr);
    int n = tr->key_count;
    bool cubic = tr->interpolation == SINEW_INTERP_CUBICSPLINE;
    int stride = cubic ? 3 * c : c;  /* floats per key */
    int value_at = cubic ? c : 0;    /* the value inside a key's floats */
    const float *v = tr->values;

    int k;
    if (n == 1 || t <= tr->times[0]) {
        memcpy(out, &v[value_at], sizeof(float) * (size_t)c);
        return;
    }
    if (t >= tr->times[n - 1]) {
        memcpy(out, &v[(size_t)(n - 1) * stride + value_at], sizeof(float) * (size_t)c);
        return;
    }
    k = sinew__find_key(tr->times, n, t, hint);
    const float *a = &v[(size_t)k * stride];
    const float *b = &v[(size_t)(k + 1) * stride];
    float t0 = tr->times[k], td = tr->times[k + 1] - t0;
    if (t == t0) { /* on a key: its stored value, bit for bit, whatever the interpolation */
        memcpy(out, a + value_at, sizeof(float) * (size_t)c);
        return;
    }
    float s = (t - t0) / td;

    switch (tr->interpolation) {
    case SINEW_INTERP_STEP:
        memcpy(out, a, sizeof(float) * (size_t)c);
        return;
    case SINEW_INTERP_LINEAR:
        sinew__lerp_key(a, b, c, tr->target == SINEW_TARGET_ROTATION, s, flags, out);
        return;
    case SINEW_INTERP_CUBICSPLINE: {
        /* glTF: p(s) = (2s^3 - 3s^2 + 1) v_k + td (s^3 - 2s^2 + s) b_k
         *            + (-2s^3 + 3s^2) v_k+1 + td (s^3 - s^2) a_k+1,
         * with b_k the out-tangent of key k and a_k+1 the in-tangent of k+1. */
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f;
        float h10 = (s3 - 2.0f * s2 + s) * td;
        float h01 = -2.0f * s3 + 3.0f * s2;
        float h11 = (s3 - s2) * td;
        const float *va = a + c, *out_tangent = a + 2 * c;
        const float *in_tangent = b, *vb = b + c;
        for (int i = 0; i < c; ++i)
            out[i] = h00 * va[i] + h10 * out_tangent[i] + h01 * vb[i] + h11 * in_tangent[i];
        if (tr->target == SINEW_TARGET_ROTATION) {
            sinew_quat q = sinew__q_normalize(sinew__q(out[0], out[1], out[2], out[3]));
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        }
        return;
    }
    }
}
