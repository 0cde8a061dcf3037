/* SPDX-License-Identifier: MIT */
/* sinew_clip_make_additive: a clip's keys as differences over a reference
 * pose. */
#include "offline/offline_internal.h"

/* The linear map that turns a value (or a tangent) of `target` into its
 * difference over the reference value `ref`: translations subtract (tangents
 * are unchanged: the derivative of v - ref is v's), rotations take
 * conj(ref) * v, scales divide. */
static void additive_map(sinew_track_target target, const float *ref, bool tangent, float *v)
{
    switch (target) {
    case SINEW_TARGET_TRANSLATION:
        if (!tangent)
            for (int k = 0; k < 3; ++k) v[k] -= ref[k];
        break;
    case SINEW_TARGET_ROTATION: {
        sinew_quat q = sinew__q_mul(sinew__q(-ref[0], -ref[1], -ref[2], ref[3]), sinew__q(v[0], v[1], v[2], v[3]));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        break;
    }
    case SINEW_TARGET_SCALE:
        for (int k = 0; k < 3; ++k) v[k] = ref[k] != 0.0f ? v[k] / ref[k] : (tangent ? 0.0f : 1.0f);
        break;
    case SINEW_TARGET_WEIGHTS: break;
    }
}

sinew_clip *sinew_clip_make_additive(const sinew_clip *clip, const sinew_skeleton *sk,
                                     sinew_additive_reference reference, const sinew_options *options,
                                     sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !sk || (reference != SINEW_ADDITIVE_FIRST_FRAME && reference != SINEW_ADDITIVE_REST_POSE)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                    "sinew_clip_make_additive: a clip, its skeleton and a known reference");
        return NULL;
    }
    if (sinew__refuse_clip_for(clip, sk->joint_count, "sinew_clip_make_additive", "the skeleton", err)) return NULL;
    if (clip->additive) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_clip_make_additive: clip \"%s\" is additive already",
                    clip->name);
        return NULL;
    }
    sinew_allocator alloc = sinew__allocator(options);
    sinew__layout l = {0, false};
    size_t off_tracks = sinew__layout_add(&l, (size_t)clip->track_count, sizeof(sinew_track), 8);
    for (int i = 0; i < clip->track_count; ++i) sinew__layout_add(&l, sinew__track_floats(&clip->tracks[i]), sizeof(float), 4);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total ? l.total : 1);
    if (!block) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_make_additive: clip \"%s\": out of memory", clip->name);
        return NULL;
    }
    sinew_track *tracks = (sinew_track *)(block + off_tracks);
    sinew__layout l2 = {off_tracks + (size_t)clip->track_count * sizeof(sinew_track), false};
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *src = &clip->tracks[i];
        size_t nv = sinew__track_floats(src);
        float *values = (float *)(block + sinew__layout_add(&l2, nv, sizeof(float), 4));
        memcpy(values, src->values, sizeof(float) * nv);
        tracks[i] = *src;
        tracks[i].values = values;
        if (src->target == SINEW_TARGET_WEIGHTS) continue;
        float ref[4];
        if (reference == SINEW_ADDITIVE_FIRST_FRAME) {
            sinew_track_sample(src, 0.0f, 0, NULL, ref);
        } else {
            const sinew_transform *r = &sk->rest_pose[src->joint];
            const float *from = src->target == SINEW_TARGET_TRANSLATION ? &r->translation.x
                                : src->target == SINEW_TARGET_ROTATION  ? &r->rotation.x
                                                                        : &r->scale.x;
            memcpy(ref, from, sizeof(float) * (size_t)sinew_track_components(src));
        }
        int width = sinew_track_components(src);
        bool cubic = src->interpolation == SINEW_INTERP_CUBICSPLINE;
        for (size_t at = 0, e = 0; at < nv; at += (size_t)width, ++e)
            additive_map(src->target, ref, cubic && e % 3 != 1, &values[at]);
    }
    sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count,
        .duration = clip->duration, .track_count = clip->track_count, .tracks = tracks, .additive = true,
        .skeleton = sk};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    if (!out) sinew__error_lead(err, "sinew_clip_make_additive");
    sinew__free(&alloc, block);
    return out;
}

