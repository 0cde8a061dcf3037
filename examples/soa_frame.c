/* SPDX-License-Identifier: MIT */
/* A frame of two clips with no transform array anywhere: the built-in
 * character's walk and idle sampled straight into SoA poses in the
 * skeleton's pose order, blended there as the idle fades in, and turned
 * into model matrices from the blend; the same frame made with transform
 * arrays beside it for comparison. The SoA poses are what the SIMD kernels
 * compute in, so this frame does no transposes (docs/ANIMATION.md, "SoA
 * poses"). */
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

    /* Per character, made once: the pose order's lane count, the rest pose
     * in that order (the blend's fill-in), SoA poses of that many lanes. */
    const int lanes = sinew_skeleton_pose_order(sk, NULL);
    const size_t floats = SINEW_POSE_FLOATS(lanes);
    float *rest = malloc(sizeof(float) * floats), *pose_walk = malloc(sizeof(float) * floats);
    float *pose_idle = malloc(sizeof(float) * floats), *blended = malloc(sizeof(float) * floats);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *model_aos = malloc(sizeof *model_aos * (size_t)n);
    sinew_transform *tw = malloc(sizeof *tw * (size_t)n), *ti = malloc(sizeof *ti * (size_t)n);
    sinew_transform *tb = malloc(sizeof *tb * (size_t)n);
    if (!rest || !pose_walk || !pose_idle || !blended || !model || !model_aos || !tw || !ti || !tb) return 1;
    if (sinew_pose_order_from_transforms(sk, sk->rest_pose, n, rest, &err)) {
        fprintf(stderr, "%s\n", err.description);
        return 1;
    }

    double worst = 0.0, size = 0.0;
    for (int frame = 0; frame < 60; ++frame) {
        float t = (float)frame / 30.0f, w = (float)frame / 59.0f; /* the idle fades in over two seconds */
        /* the frame in SoA poses: sample, blend, model space */
        sinew_pose_layer layers[2] = {{pose_walk, 1.0f - w, NULL}, {pose_idle, w, NULL}};
        if (sinew_clip_sample_pose(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, NULL, pose_walk, lanes, &err) ||
            sinew_clip_sample_pose(idle, sk, t, SINEW_SAMPLE_LOOP, NULL, NULL, pose_idle, lanes, &err) ||
            sinew_blend_pose(sk, rest, layers, 2, 0.0f, blended, lanes, &err) ||
            sinew_local_to_model_pose(sk, blended, NULL, model, n, &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
        /* the same frame with transform arrays */
        sinew_blend_layer aos[2] = {{tw, 1.0f - w, NULL}, {ti, w, NULL}};
        if (sinew_clip_sample(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, tw, n, &err) ||
            sinew_clip_sample(idle, sk, t, SINEW_SAMPLE_LOOP, NULL, ti, n, &err) ||
            sinew_blend(sk, aos, 2, 0.0f, tb, n, &err) || sinew_local_to_model(sk, tb, NULL, model_aos, n, &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
        for (int j = 0; j < n; ++j)
            for (int e = 0; e < 16; ++e) {
                worst = fmax(worst, fabs((double)model[j].m[e] - (double)model_aos[j].m[e]));
                if (e >= 12) size = fmax(size, fabs((double)model[j].m[e]));
            }
        if (frame % 20 == 0)
            printf("t %.2f s, idle weight %.2f: hips at (%.3f, %.3f, %.3f)\n", (double)t, (double)w,
                   (double)model[1].m[12], (double)model[1].m[13], (double)model[1].m[14]);
    }
    /* both blends are the same sums; the SIMD kernels round them alike to
     * within sinew_blend's stated tolerance (1e-6 of the largest value) */
    printf("60 frames in SoA poses, no transform array: model matrices within %.2g of the transform-array "
           "frame's (of the model's size %.3g)\n", worst / size, size);
    free(rest), free(pose_walk), free(pose_idle), free(blended), free(model), free(model_aos);
    free(tw), free(ti), free(tb);
    sinew_asset_free(a);
    return worst <= 1e-5 * size ? 0 : 1;
}
