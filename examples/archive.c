/* SPDX-License-Identifier: MIT */
/* The offline -> runtime split. A tool writes an archive once (what `sinew
 * convert hero.fbx -o hero.sinew --prepare` does for a file); the game
 * loads it with nothing but libsinew, every byte checked before use, and
 * plays it; then views the same bytes where an engine's own buffer holds
 * them. Without a path, the built-in character is written first to
 * example.sinew beside this program (the build folder, not the folder it
 * runs from). usage: example_archive [FILE.sinew] */
#include "sinew/sinew_archive.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    sinew_error err = {0};
    char beside[4096]; /* argv[0]'s folder, '/' or (Windows) '\\' ended */
    const char *slash = strrchr(argv[0], '/'), *back = strrchr(argv[0], '\\');
    if (back && (!slash || back > slash)) slash = back;
    snprintf(beside, sizeof beside, "%.*sexample.sinew", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    const char *path = argc > 1 ? argv[1] : beside;
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
    if (err.result != SINEW_OK) return 1;
    /* an engine that reads its own files (a pack, a stream): the bytes on a
     * 64-byte boundary, viewed where they lie, kept until the asset goes */
    FILE *f = fopen(path, "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    unsigned char *block = size > 0 ? malloc((size_t)size + 63) : NULL;
    unsigned char *bytes = block ? block + (64 - (uintptr_t)block % 64) % 64 : NULL;
    if (!f || !bytes || fseek(f, 0, SEEK_SET) != 0 || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read it again\n", path);
        if (f) fclose(f);
        free(block);
        return 1;
    }
    fclose(f);
    sinew_asset *viewed = sinew_archive_view(bytes, (size_t)size, NULL, &err);
    if (viewed)
        printf("viewed in place: %d vertices in mesh 0, its positions inside the engine's buffer: %s\n",
               viewed->mesh_count ? viewed->meshes[0].vertex_count : 0,
               viewed->mesh_count && (const unsigned char *)viewed->meshes[0].positions >= bytes &&
                       (const unsigned char *)viewed->meshes[0].positions < bytes + size
                   ? "yes"
                   : "no");
    else
        fprintf(stderr, "%s\n", err.description);
    sinew_asset_free(viewed); /* first the asset, then its bytes */
    free(block);
    return viewed ? 0 : 1;
}
