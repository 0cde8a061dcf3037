/* SPDX-License-Identifier: MIT */
/* A crowd on an NVIDIA GPU: 500 instances of the built-in character, each
 * blending its walk with its idle at its own times and weight, posed and
 * skinned by one sinew_cuda_frame call. One instance is downloaded and its
 * first vertex checked against the same pose computed on the CPU.
 * Needs a build with -DSINEW_CUDA=ON. usage: example_cuda_crowd */
#include "sinew/sinew_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { COUNT = 500, SHOWN = 123 };

static int fail(const char *why)
{
    fprintf(stderr, "%s\n", why);
    return 1;
}

int main(void)
{
    sinew_error err = {0};
    if (!sinew_cuda_available(&err)) { /* the tests skip (77) without a GPU */
        printf("skip: no CUDA device: %s\n", err.description);
        return 77;
    }
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) return fail(err.description);
    const int walk = 0, idle = 1; /* the demo's clips: a->clips[0] "walk", a->clips[1] "idle" */

    /* Once: the crowd, and the character (skeleton, clips, skinned mesh) uploaded. */
    sinew_cuda_crowd *crowd = sinew_cuda_crowd_create(0, &err); /* device 0 */
    int hero;
    if (!crowd || sinew_cuda_character_add(crowd,
                                           &(sinew_cuda_character_desc){.skeleton = a->skeleton, .clips = a->clips,
                                                                        .clip_count = a->clip_count,
                                                                        .mesh = &a->meshes[0]},
                                           &hero, &err) != SINEW_OK)
        return fail(err.description);

    /* Per frame: each instance's clips, times and blend weight (the idle's share). */
    static sinew_cuda_instance crowd_state[COUNT];
    for (int i = 0; i < COUNT; ++i)
        crowd_state[i] = (sinew_cuda_instance){.character = hero, .clips = {walk, idle},
                                               .times = {0.013f * i, 0.029f * i}, .weight = (i % 5) / 4.0f};
    sinew_cuda_frame_desc how = {.method = SINEW_SKINNING_LBS, .normals = true, .sample_flags = SINEW_SAMPLE_LOOP};
    if (sinew_cuda_frame(crowd, crowd_state, COUNT, &how, &err) != SINEW_OK) return fail(err.description);
    sinew_cuda_timing timing = sinew_cuda_last_timing(crowd);
    printf("%d instances of %d vertices posed and skinned in %.3f ms on the GPU\n", COUNT,
           a->meshes[0].vertex_count, (double)timing.frame_ms);

    /* One instance back to the host (sinew_cuda_output gives the device pointers, for a renderer). */
    const sinew_mesh *mesh = &a->meshes[0];
    float *gpu = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
    if (!gpu || sinew_cuda_download(crowd, SHOWN, gpu, NULL, &err) != SINEW_OK) return fail(err.description);

    /* The same instance on the CPU: both clips sampled, blended, to model space, skinned. */
    const sinew_skeleton *sk = a->skeleton;
    const int n = sk->joint_count, joints = mesh->skin->joint_count;
    const sinew_cuda_instance *s = &crowd_state[SHOWN];
    sinew_transform *pose = malloc(sizeof *pose * 3 * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *palette = malloc(sizeof *palette * (size_t)joints);
    float cpu[3];
    if (!pose || !model || !palette) return 1;
    for (int k = 0; k < 2; ++k)
        sinew_clip_sample(a->clips[s->clips[k]], sk, s->times[k], SINEW_SAMPLE_LOOP, NULL, pose + k * n, n, NULL);
    sinew_blend_layer layers[2] = {{pose, 1.0f - s->weight, NULL}, {pose + n, s->weight, NULL}};
    sinew_blend(sk, layers, 2, 0.0f, pose + 2 * n, n, NULL);
    sinew_local_to_model(sk, pose + 2 * n, NULL, model, n, NULL);
    sinew_skin_palette(mesh->skin, model, n, NULL, palette, joints, NULL);
    sinew_skin_lbs(&(sinew_skin_job){.skin = mesh->skin, .palette = palette, .palette_count = joints,
                                     .positions = mesh->positions, .vertex_count = 1, .out_positions = cpu},
                   NULL);

    float gap = fmaxf(fmaxf(fabsf(gpu[0] - cpu[0]), fabsf(gpu[1] - cpu[1])), fabsf(gpu[2] - cpu[2]));
    printf("instance %d, vertex 0: GPU (%.5f, %.5f, %.5f), CPU (%.5f, %.5f, %.5f), %.1e apart\n", SHOWN,
           (double)gpu[0], (double)gpu[1], (double)gpu[2], (double)cpu[0], (double)cpu[1], (double)cpu[2],
           (double)gap);
    free(gpu), free(pose), free(model), free(palette);
    sinew_cuda_crowd_free(crowd);
    sinew_asset_free(a);
    return gap < 1e-4f ? 0 : 1;
}
