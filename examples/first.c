/* SPDX-License-Identifier: MIT */
/* The first program: load a character (glTF, FBX, Collada or BVH; the
 * built-in one without a path), play its first clip for two seconds and
 * read the skinned vertices of each frame. usage: example_first [FILE] */
#include "sinew/sinew_import.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    sinew_error err;
    sinew_asset *hero = argc > 1 ? sinew_load_file(argv[1], NULL, &err) : sinew_demo_create(NULL, &err);
    sinew_instance *inst = hero ? sinew_instance_create(hero, hero->clip_count ? hero->clips[0] : NULL, NULL,
                                                        NULL, &err)
                                : NULL;
    for (int frame = 0; inst && frame < 60; ++frame) {
        if (sinew_instance_update(inst, frame / 30.0f, &err) != SINEW_OK) break;
        const float *p = sinew_instance_positions(inst, 0); /* mesh 0, 3 floats a vertex: draw them */
        if (p && frame % 15 == 0) printf("frame %2d: vertex 0 at (%.3f, %.3f, %.3f)\n", frame, p[0], p[1], p[2]);
    }
    if (err.result != SINEW_OK) fprintf(stderr, "%s\n", err.description);
    sinew_instance_free(inst);
    sinew_asset_free(hero);
    return err.result == SINEW_OK ? 0 : 1;
}
