/* SPDX-License-Identifier: MIT */
/* Root motion: a clip's root joint as a moving frame on the ground (position
 * across `up`, heading about it), and the deltas of that frame per update. */
#include "layer/layer_internal.h"

/* A rigid motion in the ground plane: translation (across up), then yaw. */
typedef struct frame {
    sinew_vec3 t;
    float yaw;
} frame;

static sinew_quat yaw_rotation(sinew_vec3 up, float yaw)
{
    float s = sinf(0.5f * yaw);
    return sinew__q(up.x * s, up.y * s, up.z * s, cosf(0.5f * yaw));
}

/* a then b (b expressed in a's frame). */
static frame compose(sinew_vec3 up, frame a, frame b)
{
    frame r = {sinew__v3_add(a.t, sinew__q_rotate(yaw_rotation(up, a.yaw), b.t)), a.yaw + b.yaw};
    return r;
}

static frame inverse(sinew_vec3 up, frame a)
{
    frame r = {sinew__q_rotate(yaw_rotation(up, -a.yaw), sinew__v3_scale(a.t, -1.0f)), -a.yaw};
    return r;
}

/* b seen from a, its yaw difference kept within half a turn. */
static frame between(sinew_vec3 up, frame a, frame b)
{
    frame d = compose(up, inverse(up, a), b);
    d.yaw = remainderf(b.yaw - a.yaw, 6.28318530717959f);
    return d;
}

/* f composed with itself k times (k >= 0), by squaring: a step of a
 * billion loops costs 30 compositions. */
static frame power(sinew_vec3 up, frame f, int k)
{
    frame r = {{0, 0, 0}, 0.0f};
    while (k > 0) {
        if (k & 1) r = compose(up, r, f);
        f = compose(up, f, f);
        k >>= 1;
    }
    return r;
}

/* The joint's motion frame for its local transform x: position across up,
 * and heading, the twist about up of the turn from the rest rotation to
 * x's (so the rest pose faces heading 0 whatever its joint's axes). */
static frame frame_of(sinew_vec3 up, const sinew_transform *x, sinew_quat rest)
{
    frame f;
    f.t = sinew__v3_sub(x->translation, sinew__v3_scale(up, sinew__v3_dot(up, x->translation)));
    sinew_quat q = sinew__q_mul(x->rotation, sinew__q(-rest.x, -rest.y, -rest.z, rest.w));
    /* the twist about up: the angle of (q.xyz . up, q.w) doubled */
    f.yaw = 2.0f * atan2f(q.x * up.x + q.y * up.y + q.z * up.z, q.w);
    return f;
}

static frame frame_at(const sinew_clip *clip, const sinew_skeleton *sk, int joint, sinew_vec3 up, float t)
{
    /* the joint's local transform through the clip's form: its tracks over
     * the rest pose (an additive clip's over the identity) */
    sinew_transform x;
    sinew__clip_sample_joint(clip, t, 0, sk, joint, &x);
    return frame_of(up, &x, sk->rest_pose[joint].rotation);
}

sinew_result sinew_root_motion(sinew_root_motion_job *job, sinew_error *err)
{
    if (!job || !job->clip || !job->skeleton)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_root_motion: a job with a clip and a skeleton");
    const sinew_clip *clip = job->clip;
    const sinew_skeleton *sk = job->skeleton;
    if (clip->joint_count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                           "sinew_root_motion: clip \"%s\" animates %d joints, skeleton has %d", clip->name,
                           clip->joint_count, sk->joint_count);
    if (job->joint < 0 || job->joint >= sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX, "sinew_root_motion: joint %d is not in the skeleton's %d",
                           job->joint, sk->joint_count);
    if (!isfinite(job->from) || !isfinite(job->to) || !isfinite(job->up.x) || !isfinite(job->up.y) ||
        !isfinite(job->up.z))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_root_motion: times and up must be finite");
    if (job->in_place && (!job->local || job->count != sk->joint_count))
        return sinew__fail(err, job->local ? SINEW_ERROR_SIZE_MISMATCH : SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_root_motion: in place needs the pose (%d transforms for %d joints)", job->count,
                           sk->joint_count);
    sinew_vec3 up = job->up;
    if (up.x == 0.0f && up.y == 0.0f && up.z == 0.0f) up = sinew__v3(0, 1, 0);
    up = sinew__v3_normalize(up);
    if (sinew__v3_dot(up, up) == 0.0f)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_root_motion: up has no length");

    const int joint = job->joint;
    float end = clip->duration;
    float from = sinew_clip_time(clip, job->from, 0), to = sinew_clip_time(clip, job->to, 0);
    frame f_from = frame_at(clip, sk, joint, up, from), f_to = frame_at(clip, sk, joint, up, to);
    frame d;
    if (job->wraps == 0) {
        d = between(up, f_from, f_to);
    } else {
        frame f_start = frame_at(clip, sk, joint, up, 0.0f), f_end = frame_at(clip, sk, joint, up, end);
        bool forward = job->wraps > 0;
        /* to the end the step leaves by, then whole loops, then on from the other end */
        frame loop = forward ? between(up, f_start, f_end) : between(up, f_end, f_start);
        d = between(up, f_from, forward ? f_end : f_start);
        int loops = forward ? job->wraps - 1 : -job->wraps - 1;
        d = compose(up, d, power(up, loop, loops));
        d = compose(up, d, between(up, forward ? f_start : f_end, f_to));
    }
    job->translation = d.t;
    job->yaw = d.yaw;

    if (job->in_place) {
        sinew_transform *x = &job->local[joint];
        frame f = frame_of(up, x, sk->rest_pose[joint].rotation);
        sinew_quat unturn = yaw_rotation(up, -f.yaw);
        x->translation = sinew__q_rotate(unturn, sinew__v3_sub(x->translation, f.t));
        x->rotation = sinew__q_normalize(sinew__q_mul(unturn, x->rotation));
    }
    sinew__ok(err);
    return SINEW_OK;
}
