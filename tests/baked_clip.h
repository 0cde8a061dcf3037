/* SPDX-License-Identifier: MIT */
/* Test and benchmark helper: a clip baked as exporters bake, every joint's
 * translation, rotation and scale keyed on one set of key times. */
#ifndef SINEW_TEST_BAKED_CLIP_H
#define SINEW_TEST_BAKED_CLIP_H

#include "sinew/sinew.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* `clip` of sk sampled at `keys` keys, 30 a second, looping, as LINEAR
 * tracks named `name`; NULL out of memory or with `err` set. */
static inline sinew_clip *baked_clip(const sinew_clip *clip, const sinew_skeleton *sk, int keys, const char *name,
                                     sinew_error *err)
{
    int joints = sk->joint_count;
    float *times = malloc(sizeof(float) * (size_t)keys);
    float *values = malloc(sizeof(float) * 10 * (size_t)keys * (size_t)joints);
    sinew_track *tracks = malloc(sizeof *tracks * 3 * (size_t)joints);
    sinew_transform *pose = malloc(sizeof *pose * (size_t)joints);
    sinew_clip *out = NULL;
    if (times && values && tracks && pose) {
        for (int k = 0; k < keys; ++k) {
            times[k] = (float)k / 30.0f;
            float t = clip->duration > 0.0f ? fmodf(times[k], clip->duration) : 0.0f;
            sinew_clip_sample(clip, sk, t, 0, NULL, pose, joints, NULL);
            for (int j = 0; j < joints; ++j) {
                float *v = values + 10 * (size_t)keys * (size_t)j;
                memcpy(v + 3 * (size_t)k, &pose[j].translation, 12);
                memcpy(v + 3 * (size_t)keys + 4 * (size_t)k, &pose[j].rotation, 16);
                memcpy(v + 7 * (size_t)keys + 3 * (size_t)k, &pose[j].scale, 12);
            }
        }
        for (int j = 0; j < joints; ++j)
            for (int target = 0; target < 3; ++target)
                tracks[3 * j + target] = (sinew_track){
                    .joint = j, .target = (sinew_track_target)target, .interpolation = SINEW_INTERP_LINEAR,
                    .key_count = keys, .times = times,
                    .values = values + 10 * (size_t)keys * (size_t)j +
                              (target == 0 ? 0 : target == 1 ? 3 * (size_t)keys : 7 * (size_t)keys)};
        sinew_clip_desc d = {.name = name, .joint_count = joints, .track_count = 3 * joints, .tracks = tracks,
                             .skeleton = sk};
        out = sinew_clip_create(&d, NULL, err);
    }
    free(times), free(values), free(tracks), free(pose);
    return out;
}

#endif
