/* SPDX-License-Identifier: MIT */
/* SoA poses: conversions from and to transform arrays. */
#include "layer/blend_internal.h"

/* The identity's ten components, in a SoA block's order. */
static const float identity[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};

void sinew__pose_pad(float *pose, int count)
{
    for (int j = count; j & 7; ++j)
        for (int c = 0; c < 10; ++c) pose[sinew__pose_at(j, c)] = identity[c];
}

sinew_result sinew_pose_from_transforms(const sinew_transform *transforms, int count, float *pose, sinew_error *err)
{
    if (!transforms || !pose || count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_pose_from_transforms: transforms, a pose and a count >= 0");
    for (int j = 0; j < count; ++j) sinew__pose_set_joint(pose, j, &transforms[j]);
    sinew__pose_pad(pose, count);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_pose_to_transforms(const float *pose, int count, sinew_transform *out, sinew_error *err)
{
    if (!pose || !out || count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_pose_to_transforms: a pose, transforms and a count >= 0");
    for (int j = 0; j < count; ++j) out[j] = sinew__pose_joint(pose, j);
    sinew__ok(err);
    return SINEW_OK;
}
