/* SPDX-License-Identifier: MIT */
/* sinew_clip_optimize: keyframe reduction to a tolerance per target. */
#include "offline/offline_internal.h"

/* How far key value v lies from the value kept, k (a target's own measure:
 * distance, rotation angle, largest component difference), in double. */
static double deviation(sinew_track_target target, const float *v, const float *k)
{
    double d = 0.0;
    if (target == SINEW_TARGET_ROTATION) {
        /* the angle between unit quaternions a and +-b is 4 atan2(|a - b|, |a + b|) (b on a's side) */
        double a[4], b[4], la = 0.0, lb = 0.0, dot = 0.0, minus = 0.0, plus = 0.0;
        for (int c = 0; c < 4; ++c) a[c] = v[c], b[c] = k[c], la += a[c] * a[c], lb += b[c] * b[c];
        la = sqrt(la), lb = sqrt(lb);
        for (int c = 0; c < 4; ++c) a[c] /= la, b[c] /= lb, dot += a[c] * b[c];
        for (int c = 0; c < 4; ++c) {
            double bc = dot < 0.0 ? -b[c] : b[c];
            minus += (a[c] - bc) * (a[c] - bc), plus += (a[c] + bc) * (a[c] + bc);
        }
        return 4.0 * atan2(sqrt(minus), sqrt(plus));
    }
    for (int c = 0; c < 3; ++c) {
        double e = (double)v[c] - (double)k[c];
        if (target == SINEW_TARGET_TRANSLATION)
            d += e * e;
        else if (fabs(e) > d)
            d = fabs(e);
    }
    return target == SINEW_TARGET_TRANSLATION ? sqrt(d) : d;
}

sinew_clip *sinew_clip_optimize(const sinew_clip *clip, const sinew_clip_tolerance *tolerance,
                                const sinew_skeleton *skeleton, const sinew_options *options,
                                sinew_optimize_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !tolerance) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_clip_optimize: a clip and a tolerance are required");
        return NULL;
    }
    if (sinew__refuse_packed(clip, "sinew_clip_optimize", err)) return NULL;
    const float limit[3] = {tolerance->translation, tolerance->rotation, tolerance->scale};
    for (int target = 0; target < 3; ++target)
        if (!(limit[target] >= 0.0f)) {
            sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                        "sinew_clip_optimize: clip \"%s\": the %s tolerance %g is not >= 0", clip->name,
                        sinew__target_names[target], (double)limit[target]);
            return NULL;
        }
    sinew_allocator alloc = sinew__allocator(options);
    size_t n = (size_t)clip->track_count;
    sinew_track *tracks = sinew__alloc(&alloc, sizeof *tracks * (n + 1));
    float *kept = sinew__alloc(&alloc, sizeof *kept * 4 * (n + 1)); /* the one key of each reduced track */
    if (!tracks || !kept) {
        sinew__free(&alloc, tracks), sinew__free(&alloc, kept);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_optimize: clip \"%s\": out of memory", clip->name);
        return NULL;
    }
    sinew_optimize_report r = {0};
    float *worst[3] = {&r.translation_error, &r.rotation_error, &r.scale_error};
    for (size_t i = 0; i < n; ++i) {
        const sinew_track *t = &clip->tracks[i];
        tracks[i] = *t;
        if (t->target == SINEW_TARGET_WEIGHTS || t->interpolation == SINEW_INTERP_CUBICSPLINE || t->key_count < 2)
            continue;
        int width = sinew_track_components(t);
        double far = 0.0;
        for (int k = 1; k < t->key_count && far <= limit[t->target]; ++k) {
            double d = deviation(t->target, t->values + (size_t)k * (size_t)width, t->values);
            if (d > far) far = d;
        }
        if (!(far <= limit[t->target])) continue;
        float *v = kept + 4 * i;
        for (int c = 0; c < width; ++c) v[c] = t->target == SINEW_TARGET_ROTATION ? t->values[c] : t->values[c] + 0.0f;
        tracks[i].key_count = 1, tracks[i].values = v;
        r.constant_tracks += 1, r.removed_keys += t->key_count - 1;
        if ((float)far > *worst[t->target]) *worst[t->target] = (float)far;
    }
    sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count, .duration = clip->duration,
                         .track_count = clip->track_count, .tracks = tracks, .additive = clip->additive,
                         .skeleton = skeleton};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    if (!out) sinew__error_lead(err, "sinew_clip_optimize");
    if (out && report) *report = r;
    sinew__free(&alloc, tracks), sinew__free(&alloc, kept);
    return out;
}
