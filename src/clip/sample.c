/* SPDX-License-Identifier: MIT */
/* Sampling a clip: one track at a time (sinew_track_sample, the reference
 * formulas), a whole pose through the clip's sampling plan, straight into
 * model space, and morph target weights; the cursor's key hints. */
#include "clip/compressed.h"

#include <stdalign.h>

int sinew_clip_cursor_size(const sinew_clip *clip) { return clip ? clip->track_count + clip->packed : 0; }

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
        if (tr->target == SINEW_TARGET_ROTATION) {
            sinew_quat qa = sinew__q(a[0], a[1], a[2], a[3]), qb = sinew__q(b[0], b[1], b[2], b[3]);
            sinew_quat q = (flags & SINEW_SAMPLE_NLERP) ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        } else {
            for (int i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * s;
        }
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

/* The clip's time for `time`: wrapped into [0, duration) with
 * SINEW_SAMPLE_LOOP, clamped to [0, duration] otherwise. */
float sinew_clip_time(const sinew_clip *clip, float time, unsigned flags)
{
    float d = clip->duration;
    if (!(flags & SINEW_SAMPLE_LOOP)) return time < 0.0f ? 0.0f : (time > d ? d : time);
    if (!(d > 0.0f)) return 0.0f;
    float t = fmodf(time, d);
    if (t < 0.0f) t += d;
    return t >= d ? 0.0f : t; /* -tiny + d rounds to d */
}

/* The cursor's hints, NULL for none, or an error when it is too small. */
static sinew_result cursor_hints(const sinew_clip *clip, sinew_cursor *cursor, int32_t **hints, const char *who,
                                 sinew_error *err)
{
    *hints = NULL;
    if (!cursor || !cursor->keys) return SINEW_OK;
    int size = clip->track_count + clip->packed; /* sinew_clip_cursor_size */
    if (cursor->count < size)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                           "%s: clip \"%s\": cursor holds %d keys of the %d it takes", who, clip->name, cursor->count,
                           size);
    *hints = cursor->keys;
    return SINEW_OK;
}

/* The clip's pose at clip time t (wrapped already) into `pose`: its
 * compressed form's, or its sampling plan's. */
static void sample_local(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                         sinew_transform *pose)
{
    const sinew__compressed *c = sinew__clip_of(clip)->compressed;
    if (c)
        sinew__compressed_sample(c, t, flags, clip->additive ? NULL : sk->rest_pose, pose);
    else
        sinew__sampler_run(sinew__clip_of(clip)->sampler, clip, t, flags, hints, sk, pose);
}

/* The checks of sinew_clip_sample(): the cursor's hints into `hints`. */
static sinew_result check_sample(const sinew_clip *clip, const sinew_skeleton *sk, float time, sinew_cursor *cursor,
                                 const void *out, int output_count, int32_t **hints, const char *who, sinew_error *err)
{
    if (!clip || !sk || !out)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: clip, skeleton and output are required", who);
    if (!isfinite(time))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: clip \"%s\": sample time is not finite", who,
                           clip->name);
    if (clip->joint_count != sk->joint_count || output_count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                           "%s: clip \"%s\" animates %d joints, skeleton has %d, output holds %d", who, clip->name,
                           clip->joint_count, sk->joint_count, output_count);
    return cursor_hints(clip, cursor, hints, who, err);
}

sinew_result sinew_clip_sample(const sinew_clip *clip, const sinew_skeleton *sk, float time, unsigned flags,
                               sinew_cursor *cursor, sinew_transform *out, int output_count, sinew_error *err)
{
    int32_t *hints;
    sinew_result r = check_sample(clip, sk, time, cursor, out, output_count, &hints, "sinew_clip_sample", err);
    if (r != SINEW_OK) return r;
    float t = sinew_clip_time(clip, time, flags);
    sample_local(clip, t, flags, hints, sk, out);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_clip_sample_model(const sinew_clip *clip, const sinew_skeleton *sk, float time, unsigned flags,
                                     sinew_cursor *cursor, const sinew_mat4 *root, sinew_transform *local,
                                     sinew_mat4 *model, int count, sinew_error *err)
{
    int32_t *hints;
    sinew_result r = check_sample(clip, sk, time, cursor, model, count, &hints, "sinew_clip_sample_model", err);
    if (r != SINEW_OK) return r;
    float t = sinew_clip_time(clip, time, flags);
    if (!clip->compressed &&
        sinew__sampler_run_model(sinew__clip_of(clip)->sampler, t, flags, hints, sk, root, local, model)) {
        sinew__ok(err);
        return SINEW_OK;
    }
    /* no local pose from the caller: on the stack for skeletons of up to
     * SINEW_SAMPLE_STACK_JOINTS joints (5 KB), so that the two calls run at
     * the SIMD level (the in-place path below goes joint by joint, by the
     * reference's formulas) */
    alignas(64) sinew_transform stack_pose[SINEW_SAMPLE_STACK_JOINTS];
    if (!local && count <= SINEW_SAMPLE_STACK_JOINTS) local = stack_pose;
    if (local) {
        sample_local(clip, t, flags, hints, sk, local);
        return sinew_local_to_model(sk, local, root, model, count, err);
    }
    /* larger skeletons: sampled into model's last 40 bytes per joint, each
     * transform read before its matrix is written over it */
    _Static_assert(sizeof(sinew_mat4) == 64 && sizeof(sinew_transform) == 40, "the in-place layout's sizes");
    sinew_transform *in_place = (sinew_transform *)((unsigned char *)model + 24 * (size_t)count);
    sample_local(clip, t, flags, hints, sk, in_place);
    sinew__local_to_model_in_order(sk, in_place, root, model, count);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_clip_sample_weights(const sinew_clip *clip, float time, unsigned flags, sinew_cursor *cursor,
                                       int joint, float *weights, int count, sinew_error *err)
{
    if (!clip || (!weights && count > 0))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_clip_sample_weights: clip and output are required");
    if (!isfinite(time))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_clip_sample_weights: clip \"%s\": sample time is not finite", clip->name);
    if (joint < 0 || joint >= clip->joint_count)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_clip_sample_weights: clip \"%s\": joint %d is out of range (%d joints)", clip->name,
                           joint, clip->joint_count);
    int32_t *hints;
    sinew_result r = cursor_hints(clip, cursor, &hints, "sinew_clip_sample_weights", err);
    if (r != SINEW_OK) return r;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *tr = &clip->tracks[i];
        if (tr->target != SINEW_TARGET_WEIGHTS || tr->joint != joint) continue;
        if (tr->width != count)
            return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                               "sinew_clip_sample_weights: clip \"%s\": track %d animates %d weights of joint %d, "
                               "the output holds %d", clip->name, i, tr->width, joint, count);
        sinew_track_sample(tr, sinew_clip_time(clip, time, flags), flags, hints ? &hints[i] : NULL, weights);
        break;
    }
    sinew__ok(err);
    return SINEW_OK;
}

