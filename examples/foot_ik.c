/* SPDX-License-Identifier: MIT */
/* Foot IK on uneven ground: the built-in character's walk, authored on a
 * flat floor, played over a slope with bumps. Each frame the walk is
 * sampled, each foot that would sink into the ground is raised onto it
 * with two-bone IK (thigh, shin, foot), and the pose is rebuilt. Prints
 * each foot's height above the ground before and after. usage:
 * example_foot_ik */
#include "sinew/sinew_asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The ground's height at (x, z), metres: a gentle slope with bumps, above
 * the animation's floor (y = 0) where the character walks. IK raises feet
 * here; ground below the floor would need the hips lowered first. */
static float ground(float x, float z)
{
    return 0.04f + 0.03f * z + 0.03f * sinf(5.0f * z + 2.0f * x);
}

int main(void)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) {
        fprintf(stderr, "%s\n", err.description);
        return 1;
    }
    const sinew_skeleton *sk = a->skeleton;
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk");
    const int n = sk->joint_count;

    /* The legs, found by name (`sinew info` lists a character's joints). */
    const char *names[2][3] = {{"thigh_l", "shin_l", "foot_l"}, {"thigh_r", "shin_r", "foot_r"}};
    int leg[2][3];
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k)
            if ((leg[s][k] = sinew_skeleton_find_joint(sk, names[s][k])) < 0) {
                fprintf(stderr, "no joint \"%s\"\n", names[s][k]);
                return 1;
            }

    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    if (!local || !model) return 1;
    /* The ankle's height in the rest pose, standing on the floor: a foot's
     * height above the ground is then its ankle's height less this. */
    sinew_rest_pose(sk, local, n, NULL);
    sinew_local_to_model(sk, local, NULL, model, n, NULL);
    const float ankle_rest = model[leg[0][2]].m[13];

    int raised = 0, failed = 0;
    for (int frame = 0; frame < 90; ++frame) { /* three walk cycles at 30 fps */
        float t = frame / 30.0f, before[2], after[2];
        /* The walk loops back every cycle after 1.3 m forward: a root matrix
         * carries the character on by that much a loop, over new ground. */
        sinew_mat4 root = sinew_mat4_identity();
        root.m[14] = 1.3f * floorf(t / walk->duration);
        sinew_clip_sample(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, local, n, &err);
        sinew_local_to_model(sk, local, &root, model, n, &err);
        for (int s = 0; s < 2; ++s) {
            const float *ankle = &model[leg[s][2]].m[12]; /* the foot joint's position */
            before[s] = ankle[1] - ankle_rest - ground(ankle[0], ankle[2]);
            if (before[s] >= 0.0f) continue; /* above the ground: the walk as it is */
            /* Into the ground: put the ankle that much higher, the knee bending
             * forward. Both legs read the same model pose: chains in distinct
             * subtrees may share one. */
            sinew_ik_two_bone_job ik = {
                .skeleton = sk, .model = model, .local = local, .count = n,
                .start_joint = leg[s][0], .mid_joint = leg[s][1], .end_joint = leg[s][2],
                .target = sinew_vec3_make(ankle[0], ankle[1] - before[s], ankle[2]),
                .pole = sinew_vec3_make(0.0f, 0.0f, 1.0f), .weight = 1.0f};
            if (sinew_ik_two_bone(&ik, &err) != SINEW_OK) {
                fprintf(stderr, "%s\n", err.description);
                return 1;
            }
        }
        sinew_local_to_model(sk, local, &root, model, n, &err); /* the corrected pose */

        for (int s = 0; s < 2; ++s) {
            const float *ankle = &model[leg[s][2]].m[12];
            after[s] = ankle[1] - ankle_rest - ground(ankle[0], ankle[2]);
            /* a raised foot must now stand on the ground; no foot may be in it */
            if (before[s] < 0.0f) raised++, failed += fabsf(after[s]) > 1e-3f;
            failed += after[s] < -1e-3f;
        }
        if (frame % 6 == 0)
            printf("t=%.1f s  feet above the ground (mm): left %6.1f -> %5.1f   right %6.1f -> %5.1f\n", (double)t,
                   1e3 * before[0], 1e3 * after[0], 1e3 * before[1], 1e3 * after[1]);
    }
    printf("%d feet raised onto the ground, %d off it by more than 1 mm\n", raised, failed);
    free(local), free(model);
    sinew_asset_free(a);
    return raised > 0 && failed == 0 ? 0 : 1;
}
