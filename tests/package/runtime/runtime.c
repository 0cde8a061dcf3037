/* SPDX-License-Identifier: MIT */
/* A game of the runtime alone, built against an installed sinew
 * (scripts/test-package): it links libsinew and nothing of the loaders or
 * the GPU part. The built-in character, one clip sampled into model space,
 * its skin's palette. Prints "ok". */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) return fprintf(stderr, "runtime: %s\n", err.description), 1;
    const sinew_skeleton *sk = a->skeleton;
    const sinew_skin *skin = a->meshes[0].skin;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)sk->joint_count);
    sinew_mat4 *palette = malloc(sizeof *palette * (size_t)skin->joint_count);
    int n = sinew_clip_cursor_size(a->clips[0]);
    sinew_cursor cursor = {calloc((size_t)n, sizeof(int32_t)), n};
    sinew_result r = sinew_clip_sample_model(a->clips[0], sk, 0.25f, SINEW_SAMPLE_LOOP, &cursor, NULL, NULL, model,
                                             sk->joint_count, &err);
    if (r == SINEW_OK) r = sinew_skin_palette(skin, model, sk->joint_count, NULL, palette, skin->joint_count, &err);
    int ok = r == SINEW_OK && strcmp(sinew_version(), SINEW_VERSION_STRING) == 0;
    printf("%s: sinew %s, the runtime alone, %d joints sampled\n", ok ? "ok" : "FAILED", sinew_version(),
           sk->joint_count);
    if (!ok) fprintf(stderr, "runtime: %s\n", err.description);
    sinew_asset_free(a);
    free(model), free(palette), free(cursor.keys);
    return ok ? 0 : 1;
}
