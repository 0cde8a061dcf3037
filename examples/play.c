/* SPDX-License-Identifier: MIT */
/* The runtime pipeline step by step: build the demo character, play its walk
 * clip for one second (sample, model space, palette) and skin its mesh with
 * linear blend skinning. The README's frame shows the same steps; this program is compiled with the project so
 * it stays correct. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"

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
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk");
    const sinew_mesh *mesh = &a->meshes[0];
    const sinew_skin *skin = mesh->skin;

    /* Per character: caller-owned state and buffers. Nothing below allocates. */
    int key_count = sinew_clip_cursor_size(walk);
    int32_t *keys = calloc((size_t)key_count, sizeof *keys);
    sinew_cursor cursor = {keys, key_count};
    sinew_transform *local = malloc(sizeof *local * (size_t)sk->joint_count);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)sk->joint_count);
    sinew_mat4 *palette = malloc(sizeof *palette * (size_t)skin->joint_count);
    float *positions = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
    float *normals = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
    if (!keys || !local || !model || !palette || !positions || !normals) return 1;

    for (int frame = 0; frame < 60; ++frame) {
        float t = (float)frame / 60.0f;
        if (sinew_clip_sample(walk, sk, t, SINEW_SAMPLE_LOOP, &cursor, local, sk->joint_count, &err) ||
            sinew_local_to_model(sk, local, NULL, model, sk->joint_count, &err) ||
            sinew_skin_palette(skin, model, sk->joint_count, NULL, palette, skin->joint_count, &err) ||
            sinew_skin_lbs(&(sinew_skin_job){.skin = skin, .palette = palette, .palette_count = skin->joint_count,
                                             .positions = mesh->positions, .normals = mesh->normals,
                                             .out_positions = positions, .out_normals = normals},
                           &err)) {
            fprintf(stderr, "frame %d: %s\n", frame, err.description);
            return 1;
        }
    }
    printf("skinned %d vertices of \"%s\" for 60 frames; vertex 0 ends at (%.3f, %.3f, %.3f)\n", mesh->vertex_count,
           a->name, (double)positions[0], (double)positions[1], (double)positions[2]);
    free(keys), free(local), free(model), free(palette), free(positions), free(normals);
    sinew_asset_free(a);
    return 0;
}
