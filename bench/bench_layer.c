#define _POSIX_C_SOURCE 200809L
/* The animation layer's kernels on a real rig, the figures issue 6 sets
 * against ozz-animation 0.16: 2-layer and 3-layer blends and two-bone IK on
 * the pab skeleton (67 joints), plus sampling and local-to-model for scale.
 * Median over the repetitions, each timing a batch of calls; prints ns per
 * call and per joint, and one JSON line.
 * usage: bench_layer [--reps N] SKELETON.fbx WALK.fbx JOG.fbx RUN.fbx */
#include "bench.h"
#include "sinew/sinew_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH = 2000, MAX_REPS = 201, KERNELS = 5 };
static const char *const names[KERNELS] = {"blend 2 layers", "blend 3 layers", "two-bone IK", "sample (walk)",
                                           "local to model"};

/* keeps the compiler from dropping the work */
static volatile float sink;

int main(int argc, char **argv)
{
    int reps = 31, first = 1;
    if (argc > 2 && strcmp(argv[1], "--reps") == 0) {
        reps = atoi(argv[2]);
        first = 3;
    }
    if (argc - first != 4 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: bench_layer [--reps 1..%d] SKELETON.fbx WALK.fbx JOG.fbx RUN.fbx\n", MAX_REPS);
        return 2;
    }
    sinew_error err = {0};
    sinew_asset *rig = sinew_load_file(argv[first], NULL, &err);
    if (!rig) {
        fprintf(stderr, "bench_layer: %s: %s\n", argv[first], err.description);
        return 1;
    }
    const sinew_skeleton *sk = rig->skeleton;
    int n = sk->joint_count;
    sinew_clip *clips[3] = {0};
    for (int c = 0; c < 3; ++c) {
        sinew_asset *a = sinew_load_file(argv[first + 1 + c], NULL, &err);
        if (!a || a->clip_count < 1) {
            fprintf(stderr, "bench_layer: %s: %s\n", argv[first + 1 + c], a ? "no clip" : err.description);
            return 1;
        }
        clips[c] = sinew_clip_retarget(a->clips[0], a->skeleton, sk, NULL, NULL, &err);
        sinew_asset_free(a);
        if (!clips[c]) {
            fprintf(stderr, "bench_layer: retarget: %s\n", err.description);
            return 1;
        }
    }
    sinew_transform *poses = malloc(sizeof *poses * (size_t)n * 4), *out = poses + 3 * n;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    int32_t *keys = calloc((size_t)clips[0]->track_count, sizeof *keys);
    for (int c = 0; c < 3; ++c) sinew_clip_sample(clips[c], sk, 0.3f, SINEW_SAMPLE_LOOP, NULL, poses + c * n, n, &err);
    sinew_local_to_model(sk, poses, NULL, model, n, &err);
    int foot = sinew_skeleton_find_joint(sk, "LeftFoot"), leg = sinew_skeleton_find_joint(sk, "LeftLeg"),
        thigh = sinew_skeleton_find_joint(sk, "LeftUpLeg");
    if (foot < 0 || leg < 0 || thigh < 0) {
        fprintf(stderr, "bench_layer: %s has no LeftUpLeg/LeftLeg/LeftFoot\n", argv[first]);
        return 1;
    }
    const float *f = model[foot].m;
    sinew_vec3 target = sinew_vec3_make(f[12] + 5.0f, f[13] + 12.0f, f[14] + 3.0f);
    sinew_blend_layer layers[3] = {{poses, 0.5f, NULL}, {poses + n, 0.3f, NULL}, {poses + 2 * n, 0.2f, NULL}};
    sinew_cursor cursor = {keys, clips[0]->track_count};

    static double samples[KERNELS][MAX_REPS];
    for (int r = 0; r < reps; ++r) {
        for (int k = 0; k < KERNELS; ++k) {
            double t0 = bench_now();
            for (int b = 0; b < BATCH; ++b) {
                switch (k) {
                case 0: sinew_blend(sk, layers, 2, 0.0f, out, n, NULL); break;
                case 1: sinew_blend(sk, layers, 3, 0.0f, out, n, NULL); break;
                case 2: {
                    memcpy(out, poses, sizeof *out * (size_t)n); /* measured alone below and subtracted */
                    sinew_ik_two_bone_job job = {.skeleton = sk, .model = model, .local = out, .count = n,
                                                 .start_joint = thigh, .mid_joint = leg, .end_joint = foot,
                                                 .target = target, .weight = 1.0f};
                    sinew_ik_two_bone(&job, NULL);
                    break;
                }
                case 3:
                    sinew_clip_sample(clips[0], sk, (float)b * (1.0f / 120.0f), SINEW_SAMPLE_LOOP, &cursor, out, n,
                                      NULL);
                    break;
                case 4: sinew_local_to_model(sk, poses, NULL, model, n, NULL); break;
                }
                sink = out[1].rotation.w;
            }
            samples[k][r] = (bench_now() - t0) / BATCH;
        }
    }
    /* the pose copy the IK loop makes, timed on its own */
    double copy[MAX_REPS];
    for (int r = 0; r < reps; ++r) {
        double t0 = bench_now();
        for (int b = 0; b < BATCH; ++b) {
            memcpy(out, poses + (b & 1) * n, sizeof *out * (size_t)n);
            sink = out[1].rotation.w;
        }
        copy[r] = (bench_now() - t0) / BATCH;
    }
    double copy_ns = 1e9 * bench_median(copy, reps);
    printf("bench_layer: %s, %d joints, %d repetitions of %d calls, median\n", argv[first], n, reps, BATCH);
    printf("  %-16s %12s %14s\n", "kernel", "ns per call", "ns per joint");
    double ns[KERNELS];
    for (int k = 0; k < KERNELS; ++k) {
        ns[k] = 1e9 * bench_median(samples[k], reps) - (k == 2 ? copy_ns : 0.0);
        printf("  %-16s %12.1f %14.2f\n", names[k], ns[k], ns[k] / n);
    }
    printf("{\"joints\": %d", n);
    for (int k = 0; k < KERNELS; ++k) printf(", \"%s ns\": %.1f", names[k], ns[k]);
    printf("}\n");
    for (int c = 0; c < 3; ++c) sinew_clip_free(clips[c]);
    free(poses), free(model), free(keys);
    sinew_asset_free(rig);
    return 0;
}
