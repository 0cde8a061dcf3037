/* The offline -> runtime split. A tool writes an archive once (what `sinew
 * convert hero.fbx -o hero.sinew --prepare` does for a file); the game
 * loads it with nothing but libsinew, every byte checked before use, and
 * plays it. Without a path, the built-in character is written to
 * example.sinew first. usage: example_archive [FILE.sinew] */
#include "sinew/sinew_archive.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    sinew_error err = {0};
    const char *path = argc > 1 ? argv[1] : "example.sinew";
    if (argc < 2) {
        /* offline, once: the skins' SIMD blocks stored too, so that loading need not build them */
        sinew_asset *source = sinew_demo_create(NULL, &err);
        const sinew_archive_write_options options = {.skin_blocks = true};
        sinew_result r = source ? sinew_archive_save(source, path, &options, &err) : err.result;
        sinew_asset_free(source);
        if (r != SINEW_OK) {
            fprintf(stderr, "%s\n", err.description);
            return 1;
        }
    }
    /* in the game: load, then play the first clip */
    sinew_asset *hero = sinew_archive_load_file(path, NULL, &err);
    sinew_instance *inst = hero ? sinew_instance_create(hero, hero->clip_count ? hero->clips[0] : NULL, NULL,
                                                        NULL, &err)
                                : NULL;
    if (inst && sinew_instance_update(inst, 1.0f, &err) == SINEW_OK) {
        const float *p = sinew_instance_positions(inst, 0); /* mesh 0, 3 floats a vertex */
        printf("%s: joints %d, clips %d, meshes %d; at 1 s, vertex 0 at (%.3f, %.3f, %.3f)\n", path,
               hero->skeleton->joint_count, hero->clip_count, hero->mesh_count, p ? p[0] : 0.0, p ? p[1] : 0.0,
               p ? p[2] : 0.0);
    }
    if (err.result != SINEW_OK) fprintf(stderr, "%s\n", err.description);
    sinew_instance_free(inst);
    sinew_asset_free(hero);
    return err.result == SINEW_OK ? 0 : 1;
}
