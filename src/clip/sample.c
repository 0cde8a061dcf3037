/* SPDX-License-Identifier: MIT */
/* Sampling a clip: the checks, the clip's time and the cursor's key hints,
 * then one call through the clip's form (clip_internal.h), chosen here once
 * a call: a whole pose, straight into model space, one joint; and morph
 * target weights, which stay tracks in every form. The top of the clip
 * room: no file of it calls this one. */
#include "clip/clip_internal.h"

#include <stdalign.h>

int sinew_clip_cursor_size(const sinew_clip *clip) { return clip ? clip->track_count + clip->packed : 0; }

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

void sinew__clip_sample_joint(const sinew_clip *clip, float t, unsigned flags, const sinew_skeleton *sk, int joint,
                              sinew_transform *out)
{
    sinew__clip_of(clip)->form->sample_joint(clip, t, flags, sk, joint, out);
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
    sinew__clip_of(clip)->form->sample_pose(clip, t, flags, hints, sk, out);
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
    const sinew__clip_form *form = sinew__clip_of(clip)->form;
    if (form->sample_model && form->sample_model(clip, t, flags, hints, sk, root, local, model)) {
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
        form->sample_pose(clip, t, flags, hints, sk, local);
        return sinew_local_to_model(sk, local, root, model, count, err);
    }
    /* larger skeletons: sampled into model's last 40 bytes per joint, each
     * transform read before its matrix is written over it */
    _Static_assert(sizeof(sinew_mat4) == 64 && sizeof(sinew_transform) == 40, "the in-place layout's sizes");
    sinew_transform *in_place = (sinew_transform *)((unsigned char *)model + 24 * (size_t)count);
    form->sample_pose(clip, t, flags, hints, sk, in_place);
    sinew__local_to_model_in_order(sk, in_place, root, model, count);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_clip_sample_pose(const sinew_clip *clip, const sinew_skeleton *sk, float time, unsigned flags,
                                    sinew_cursor *cursor, sinew_transform *local, float *pose, int lanes,
                                    sinew_error *err)
{
    int32_t *hints;
    sinew_result r = check_sample(clip, sk, time, cursor, pose, sk ? sk->joint_count : 0, &hints,
                                  "sinew_clip_sample_pose", err);
    if (r != SINEW_OK) return r;
    int order = sinew_skeleton_pose_order(sk, NULL);
    if (lanes != order)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                           "sinew_clip_sample_pose: clip \"%s\": the pose holds %d lanes, the skeleton's pose order %d",
                           clip->name, lanes, order);
    float t = sinew_clip_time(clip, time, flags);
    const sinew__clip_form *form = sinew__clip_of(clip)->form;
    if (form->sample_pose_order && form->sample_pose_order(clip, t, flags, hints, sk, pose)) {
        sinew__ok(err);
        return SINEW_OK;
    }
    /* through transforms: the caller's, or on the stack */
    alignas(64) sinew_transform stack_pose[SINEW_SAMPLE_STACK_JOINTS];
    if (!local && sk->joint_count <= SINEW_SAMPLE_STACK_JOINTS) local = stack_pose;
    if (!local)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                           "sinew_clip_sample_pose: clip \"%s\": sampling it for %d joints (more than %d) takes `local`",
                           clip->name, sk->joint_count, SINEW_SAMPLE_STACK_JOINTS);
    form->sample_pose(clip, t, flags, hints, sk, local);
    return sinew_pose_order_from_transforms(sk, local, sk->joint_count, pose, err);
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

