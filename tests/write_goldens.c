/* SPDX-License-Identifier: MIT */
/* The golden clip archives in tests/archive, which every build reads (the
 * cross builds, which have no loaders, too): the built-in character's
 * skeleton with
 *   demo-packed.sinew      its walk on one set of key times (the 31 of its
 *                          hips: packing takes nothing else), packed by
 *                          sinew_clip_pack as `sinew convert --pack` does;
 *   demo-compressed.sinew  its clips as `sinew convert --compress` leaves
 *                          them: the walk compressed to 0.01 cm, the idle
 *                          (smaller as it is) as it is.
 * Everything is made at the scalar SIMD level, so that any build machine
 * makes the same bytes.
 *
 * `write_goldens DIR` writes them into DIR. `write_goldens --check DIR`
 * holds those in DIR against what it makes now: the same bytes pass; other
 * bytes with the same clips (the same kinds, names, durations, and samples
 * bit for bit: the format moved on, the clips did not) pass with a note;
 * anything else fails, naming the command that writes them anew. */
#include "sinew/sinew_archive.h"
#include "check.h"
#include "write_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct golden {
    const char *name;
    sinew_asset asset;           /* the built-in character's skeleton with `clips` */
    const sinew_clip *clips[4];
    sinew_clip *owned[4];
} golden;

/* `clip` sampled at the 31 key times of its tracks of 31 keys, each track
 * kept on its joint and target: LINEAR tracks on one set of key times. */
static sinew_clip *resampled(const sinew_clip *clip, const sinew_skeleton *sk, const sinew_options *o,
                             sinew_error *err)
{
    enum { KEYS = 31 };
    const float *times = NULL;
    for (int i = 0; i < clip->track_count && !times; ++i)
        if (clip->tracks[i].key_count == KEYS) times = clip->tracks[i].times;
    int n = sk->joint_count, count = clip->track_count;
    sinew_transform *poses = malloc(sizeof *poses * (size_t)n * KEYS);
    sinew_track *tracks = malloc(sizeof *tracks * (size_t)count);
    float *values = malloc(sizeof(float) * 4 * KEYS * (size_t)count);
    sinew_clip *out = NULL;
    if (!times || !poses || !tracks || !values) {
        snprintf(err->description, sizeof err->description, "no track of %d keys, or out of memory", KEYS);
        goto done;
    }
    for (int k = 0; k < KEYS; ++k)
        sinew_clip_sample(clip, sk, times[k], 0, NULL, poses + (size_t)k * (size_t)n, n, NULL);
    for (int i = 0; i < count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        int c = t->target == SINEW_TARGET_ROTATION ? 4 : 3;
        float *v = values + (size_t)i * 4 * KEYS;
        for (int k = 0; k < KEYS; ++k) {
            const sinew_transform *p = &poses[(size_t)k * (size_t)n + (size_t)t->joint];
            const float *from = t->target == SINEW_TARGET_TRANSLATION ? &p->translation.x
                                : t->target == SINEW_TARGET_ROTATION  ? &p->rotation.x
                                                                      : &p->scale.x;
            memcpy(v + c * k, from, sizeof(float) * (size_t)c);
        }
        tracks[i] = (sinew_track){.joint = t->joint, .target = t->target, .interpolation = SINEW_INTERP_LINEAR,
                                  .key_count = KEYS, .times = times, .values = v};
    }
    sinew_clip_desc d = {.name = clip->name, .duration = clip->duration, .joint_count = clip->joint_count,
                         .track_count = count, .tracks = tracks, .skeleton = sk};
    out = sinew_clip_create(&d, o, err);
done:
    free(poses), free(tracks), free(values);
    return out;
}

/* The two goldens made from `demo`; false, with a sentence, when a step fails. */
static bool make(const sinew_asset *demo, const sinew_options *o, golden g[2], sinew_error *err)
{
    const sinew_skeleton *sk = demo->skeleton;
    g[0].name = "demo-packed.sinew";
    const sinew_clip *walk = sinew_asset_find_clip(demo, "walk");
    sinew_clip *even = walk ? resampled(walk, sk, o, err) : NULL;
    g[0].owned[0] = even ? sinew_clip_pack(even, sk, o, NULL, err) : NULL;
    sinew_clip_free(even);
    if (!g[0].owned[0]) return false;
    g[0].clips[0] = g[0].owned[0];
    g[0].asset = (sinew_asset){.name = "sinew_demo", .skeleton = sk, .clip_count = 1, .clips = g[0].clips};
    /* --compress: 0.01 cm in a file measured in meters, the default shell */
    g[1].name = "demo-compressed.sinew";
    sinew_compress_options co = {.meters_per_unit = 1.0f, .error_bound = 1e-4f};
    for (int c = 0; c < demo->clip_count && c < 4; ++c) {
        sinew_compress_report r;
        sinew_clip *z = sinew_clip_compress(demo->clips[c], sk, &co, o, &r, err);
        if (!z) return false;
        if (r.bytes >= sinew_clip_bytes(demo->clips[c])) {
            sinew_clip_free(z); /* a clip of few keys holds less than its samples: it stays */
            g[1].clips[c] = demo->clips[c];
        } else {
            g[1].clips[c] = g[1].owned[c] = z;
        }
    }
    g[1].asset = (sinew_asset){.name = "sinew_demo", .skeleton = sk, .clip_count = demo->clip_count < 4 ? demo->clip_count : 4,
                               .clips = g[1].clips};
    return true;
}

/* Whether two loaded goldens hold the same clips, sampling bit for bit. */
static bool same_clips(const sinew_asset *a, const sinew_asset *b)
{
    int n = a->skeleton->joint_count;
    if (a->clip_count != b->clip_count || n != b->skeleton->joint_count) return false;
    sinew_transform *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)n);
    bool same = x && y;
    for (int c = 0; same && c < a->clip_count; ++c) {
        const sinew_clip *p = a->clips[c], *q = b->clips[c];
        same = strcmp(p->name, q->name) == 0 && p->duration == q->duration && p->packed == q->packed &&
               p->compressed == q->compressed;
        for (int f = 0; same && f <= 240; ++f) {
            float t = p->duration * (float)f / 240.0f;
            sinew_clip_sample(p, a->skeleton, t, 0, NULL, x, n, NULL);
            sinew_clip_sample(q, b->skeleton, t, 0, NULL, y, n, NULL);
            same = memcmp(x, y, sizeof *x * (size_t)n) == 0;
        }
    }
    free(x), free(y);
    return same;
}

/* Holds DIR/NAME against `made`: 0 when it passes, 1 when not. */
static int check(const char *dir, const golden *g, const memory *made)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, g->name);
    FILE *f = fopen(path, "rb");
    memory file = {NULL, 0};
    unsigned char chunk[4096];
    for (size_t n; f && (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
        if (!to_memory(&file, chunk, n)) break;
    if (f) fclose(f);
    if (file.size == made->size && memcmp(file.bytes, made->bytes, made->size) == 0) {
        printf("%s: the bytes written today\n", path);
        free(file.bytes);
        return 0;
    }
    sinew_error err;
    sinew_asset *old = f ? sinew_archive_load(file.bytes, file.size, NULL, &err) : NULL;
    sinew_asset *now = sinew_archive_load(made->bytes, made->size, NULL, &err);
    int failed = !(old && now && same_clips(old, now));
    if (failed)
        printf("%s: %s than the built-in character makes today: write them anew with "
               "`build/tests/write_goldens tests/archive` (tests/archive/README)\n",
               path, old ? "other clips" : "missing or not an archive, other");
    else
        printf("%s: other bytes than today's writer's (%zu, not %zu), the same clips; "
               "`build/tests/write_goldens tests/archive` writes today's\n",
               path, file.size, made->size);
    sinew_asset_free(old), sinew_asset_free(now);
    free(file.bytes);
    return failed;
}

int main(int argc, char **argv)
{
    bool checking = argc == 3 && strcmp(argv[1], "--check") == 0;
    if (argc != 2 && !checking) {
        fprintf(stderr, "usage: write_goldens DIR | write_goldens --check DIR\n");
        return 2;
    }
    const char *dir = argv[argc - 1];
    sinew_options o = {.simd = SINEW_SIMD_SCALAR};
    sinew_error err = {0};
    sinew_asset *demo = sinew_demo_create(&o, &err);
    golden g[2];
    memset(g, 0, sizeof g);
    int status = 0;
    if (!demo || !make(demo, &o, g, &err)) {
        fprintf(stderr, "write_goldens: %s\n", err.description);
        status = 1;
    }
    for (int i = 0; i < 2 && status == 0; ++i) {
        memory made = {NULL, 0};
        sinew_archive_write_options w = {.clips_only = true};
        if (sinew_archive_write(&g[i].asset, &w, to_memory, &made, &err) != SINEW_OK) {
            fprintf(stderr, "write_goldens: %s: %s\n", g[i].name, err.description);
            status = 1;
        } else if (checking) {
            status |= check(dir, &g[i], &made);
        } else {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, g[i].name);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(made.bytes, 1, made.size, f) != made.size) status = 1;
            if (f && fclose(f) != 0) status = 1;
            printf("%s: %zu bytes%s\n", path, made.size, status ? ": cannot write it" : "");
        }
        free(made.bytes);
    }
    for (int i = 0; i < 2; ++i)
        for (int c = 0; c < 4; ++c) sinew_clip_free(g[i].owned[c]);
    sinew_asset_free(demo);
    return status;
}
