/* SPDX-License-Identifier: MIT */
/* A frame of two clips with no transform array anywhere: the built-in
 * character's walk and idle sampled straight into SoA poses in the
 * skeleton's pose order, blended there as the idle fades in, an additive
 * layer on top (the idle's motion over its first frame, at half weight),
 * the left foot lifted 5 cm by two-bone IK, and model matrices made from
 * the result; the same frame made with transform arrays beside it for
 * comparison. The SoA poses are what the SIMD kernels compute in, so this
 * frame does no transposes (docs/ANIMATION.md, "SoA poses"). */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) {
        fprintf(stderr, "%s\n", err.description);
        return 1;
    }
    const sinew_skeleton *sk = a->skeleton;
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk"), *idle = sinew_asset_find_clip(a, "idle");
    const int n = sk->joint_count;
    const int leg[3] = {sinew_skeleton_find_joint(sk, "thigh_l"), sinew_skeleton_find_joint(sk, "shin_l"),
                        sinew_skeleton_find_joint(sk, "foot_l")};
    /* made once, offline in a real game: the idle's breathing as an additive clip */
    sinew_clip *breath = sinew_clip_make_additive(idle, sk, SINEW_ADDITIVE_FIRST_FRAME, NULL, &err);
    if (!breath) {
        fprintf(stderr, "%s\n", err.description);
        return 1;
    }

    /* Per character, made once: the pose order's lane count, the rest pose
     * in that order (the blend's fill-in), SoA poses of that many lanes. */
    const int lanes = sinew_skeleton_pose_order(sk, NULL);
    const size_t floats = SINEW_POSE_FLOATS(lanes);
    float *rest = malloc(sizeof(float) * floats), *pose_walk = malloc(sizeof(float) * floats);
    float *pose_idle = malloc(sizeof(float) * floats), *blended = malloc(sizeof(float) * floats);
    float *delta = malloc(sizeof(float) * floats);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *model_aos = malloc(sizeof *model_aos * (size_t)n);
    sinew_transform *tw = malloc(sizeof *tw * (size_t)n), *ti = malloc(sizeof *ti * (size_t)n);
    sinew_transform *tb = malloc(sizeof *tb * (size_t)n), *td = malloc(sizeof *td * (size_t)n);
    if (!rest || !pose_walk || !pose_idle || !blended || !delta || !model || !model_aos || !tw || !ti || !tb || !td)
        return 1;
    if (sinew_pose_order_from_transforms(sk, sk->rest_pose, n, rest, &err)) {
        fprintf(stderr, "%s\n", err.description);
        return 1;
    }

    double worst = 0.0, size = 0.0;
    for (int frame = 0; frame < 60; ++frame) {
        float t = (float)frame / 30.0f, w = (float)frame / 59.0f; /* the idle fades in over two seconds */
        /* the frame in SoA poses: sample, blend, add, model space, IK on
         * the pose from those matrices, model space again */
        sinew_pose_layer layers[2] = {{pose_walk, 1.0f - w, NULL}, {pose_idle, w, NULL}};
        if (sinew_clip_sample_pose(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, NULL, pose_walk, lanes, &err) ||
            sinew_clip_sample_pose(idle, sk, t, SINEW_SAMPLE_LOOP, NULL, NULL, pose_idle, lanes, &err) ||
            sinew_clip_sample_pose(breath, sk, t, SINEW_SAMPLE_LOOP, NULL, NULL, delta, lanes, &err) ||
            sinew_blend_pose(sk, rest, layers, 2, 0.0f, blended, lanes, &err) ||
            sinew_additive_apply_pose(sk, blended, delta, lanes, 0.5f, NULL, blended, &err) ||
            sinew_local_to_model_pose(sk, blended, NULL, model, n, &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
        const float *ankle = model[leg[2]].m + 12;
        sinew_ik_two_bone_job ik = {.skeleton = sk, .model = model, .count = n, .start_joint = leg[0],
                                    .mid_joint = leg[1], .end_joint = leg[2],
                                    .target = sinew_vec3_make(ankle[0], ankle[1] + 0.05f, ankle[2]),
                                    .pole = sinew_vec3_make(0.0f, 0.0f, 1.0f), .weight = 1.0f};
        if (sinew_ik_two_bone_pose(&ik, blended, &err) ||
            sinew_local_to_model_pose(sk, blended, NULL, model, n, &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
        /* the same frame with transform arrays */
        sinew_blend_layer aos[2] = {{tw, 1.0f - w, NULL}, {ti, w, NULL}};
        if (sinew_clip_sample(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, tw, n, &err) ||
            sinew_clip_sample(idle, sk, t, SINEW_SAMPLE_LOOP, NULL, ti, n, &err) ||
            sinew_clip_sample(breath, sk, t, SINEW_SAMPLE_LOOP, NULL, td, n, &err) ||
            sinew_blend(sk, aos, 2, 0.0f, tb, n, &err) || sinew_additive_apply(tb, td, n, 0.5f, NULL, tb, &err) ||
            sinew_local_to_model(sk, tb, NULL, model_aos, n, &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
        ankle = model_aos[leg[2]].m + 12;
        ik.model = model_aos, ik.local = tb, ik.target = sinew_vec3_make(ankle[0], ankle[1] + 0.05f, ankle[2]);
        if (sinew_ik_two_bone(&ik, &err) || sinew_local_to_model(sk, tb, NULL, model_aos, n, &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
        for (int j = 0; j < n; ++j)
            for (int e = 0; e < 16; ++e) {
                worst = fmax(worst, fabs((double)model[j].m[e] - (double)model_aos[j].m[e]));
                if (e >= 12) size = fmax(size, fabs((double)model[j].m[e]));
            }
        if (frame % 20 == 0)
            printf("t %.2f s, idle weight %.2f: hips at (%.3f, %.3f, %.3f), left ankle %.3f m up\n", (double)t,
                   (double)w, (double)model[1].m[12], (double)model[1].m[13], (double)model[1].m[14],
                   (double)model[leg[2]].m[13]);
    }
    /* the blends are the same sums, which the SIMD kernels round alike to
     * within sinew_blend's stated tolerance (1e-6 of the largest value);
     * the additive layer and the IK give the same bits in both forms */
    printf("60 frames in SoA poses, no transform array: model matrices within %.2g of the transform-array "
           "frame's (of the model's size %.3g)\n", worst / size, size);
    free(rest), free(pose_walk), free(pose_idle), free(blended), free(delta), free(model), free(model_aos);
    free(tw), free(ti), free(tb), free(td);
    sinew_clip_free(breath);
    sinew_asset_free(a);
    return worst <= 1e-5 * size ? 0 : 1;
}
