/* SPDX-License-Identifier: MIT */
/* A program outside the sinew tree, built against an installed sinew
 * (scripts/test-package): the runtime on the built-in character, the
 * loader on a glTF it writes, the GPU part's shader text. Prints "ok". */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "sinew/sinew_gpu.h"
#include "sinew/sinew_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    sinew_error err;
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) return fprintf(stderr, "consumer: %s\n", err.description), 1;
    const sinew_skeleton *sk = a->skeleton;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)sk->joint_count);
    int n = sinew_clip_cursor_size(a->clips[0]);
    sinew_cursor cursor = {calloc((size_t)n, sizeof(int32_t)), n};
    sinew_result r = sinew_clip_sample_model(a->clips[0], sk, 0.25f, SINEW_SAMPLE_LOOP, &cursor, NULL, NULL, model,
                                             sk->joint_count, &err);
    static const char gltf[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"root\"}]}";
    sinew_asset *b = r == SINEW_OK ? sinew_load_memory(gltf, sizeof gltf - 1, NULL, NULL, &err) : NULL;
    size_t shader = sinew_glsl_compose(&(sinew_glsl_options){0}, NULL, 0);
    int ok = r == SINEW_OK && b && b->skeleton->joint_count == 1 && shader > 100 &&
             strcmp(sinew_version(), SINEW_VERSION_STRING) == 0;
    printf("%s: sinew %s, %d joints, shader %zu bytes\n", ok ? "ok" : "FAILED", sinew_version(), sk->joint_count,
           shader);
    if (!ok) fprintf(stderr, "consumer: %s\n", err.description);
    sinew_asset_free(b);
    sinew_asset_free(a);
    free(model), free(cursor.keys);
    return ok ? 0 : 1;
}
