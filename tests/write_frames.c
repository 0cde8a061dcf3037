/* SPDX-License-Identifier: MIT */
/* Writes seeds for the wall's and the archive's fuzzers into a folder: the
 * built-in character as the stream the Assimp child sends (demo.frames,
 * with a warning and Assimp's messages, one of them dropped data)
 * and as an archive (demo.sinew; its clips only: demo-clips.sinew; with
 * its skins' blocks: demo-prepared.sinew; its clips compressed:
 * demo-compressed.sinew), and a
 * small BVH (small.bvh). usage: write_frames DIR */
#include "sinew/sinew_archive.h"
#include "sinew/sinew_asset.h"

#include "import/wall.h"

#include <stdio.h>
#include <stdlib.h>

static const char small_bvh[] =
    "HIERARCHY\nROOT hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
    "Yrotation\n\tJOINT knee\n\t{\n\t\tOFFSET 0 -1 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\tEnd Site\n"
    "\t\t{\n\t\t\tOFFSET 0 -1 0\n\t\t}\n\t}\n}\nMOTION\nFrames: 3\nFrame Time: 0.1\n0 1 0 0 0 0 0 0 0\n"
    "0 1 0 0 0 0 45 0 0\n0 1 0 0 0 0 90 0 0\n";

static int save(const char *dir, const char *name, const void *bytes, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size) {
        fprintf(stderr, "write_frames: cannot write %s\n", path);
        if (f) fclose(f);
        return 1;
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_frames DIR\n");
        return 2;
    }
    sinew_error err;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    if (!demo) {
        fprintf(stderr, "write_frames: %s\n", err.description);
        return 1;
    }
    sinew__frames f = {0};
    sinew__frames_begin(&f);
    sinew__frames_warning(&f, "a warning the child forwards");
    /* what Assimp's logger says, as the child sends it */
    sinew__heard heard = {{0, 0}, {0, 0}, {{""}}};
    static const char dropped[] = "FBX-Parser (TOK_KEY, offset 0x53287) Invalid read size (binary)",
                      note[] = "FBX-DOM: unsupported, newer format version";
    sinew__heard_add(&heard, SINEW__HEARD_DROPPED, dropped, sizeof dropped - 1, 1);
    sinew__heard_add(&heard, SINEW__HEARD_NOTE, note, sizeof note - 1, 3);
    sinew__frames_heard(&f, &heard);
    sinew__frames_asset(&f, demo);
    sinew__frames_seal(&f);
    int status = f.failed ? 1 : save(argv[1], "demo.frames", f.bytes, f.size);
    status |= save(argv[1], "small.bvh", small_bvh, sizeof small_bvh - 1);
    char path[1024];
    snprintf(path, sizeof path, "%s/demo.sinew", argv[1]);
    status |= sinew_archive_save(demo, path, NULL, &err) != SINEW_OK;
    snprintf(path, sizeof path, "%s/demo-clips.sinew", argv[1]);
    status |= sinew_archive_save(demo, path, &(sinew_archive_write_options){.clips_only = true}, &err) != SINEW_OK;
    snprintf(path, sizeof path, "%s/demo-prepared.sinew", argv[1]);
    status |= sinew_archive_save(demo, path, &(sinew_archive_write_options){.skin_blocks = true}, &err) != SINEW_OK;
    sinew_clip **compressed = calloc((size_t)demo->clip_count + 1, sizeof *compressed);
    sinew_asset small = *demo;
    small.clips = (const sinew_clip *const *)compressed;
    for (int c = 0; compressed && c < demo->clip_count; ++c) {
        compressed[c] = sinew_clip_compress(demo->clips[c], demo->skeleton, NULL, NULL, NULL, &err);
        status |= compressed[c] == NULL;
    }
    snprintf(path, sizeof path, "%s/demo-compressed.sinew", argv[1]);
    status |= !compressed || sinew_archive_save(&small, path, &(sinew_archive_write_options){.clips_only = true},
                                                &err) != SINEW_OK;
    for (int c = 0; compressed && c < demo->clip_count; ++c) sinew_clip_free(compressed[c]);
    free(compressed);
    free(f.bytes);
    sinew_asset_free(demo);
    return status;
}
