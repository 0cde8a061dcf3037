/* SPDX-License-Identifier: MIT */
/* Clips from other files on a character: load a character and two
 * animation-only files (a walk and a run, say), retarget their clips onto
 * the character by joint name, speed up from walk to run over two seconds
 * (a blend whose cycles stay in step), then crossfade back to the walk, and
 * skin the mesh every frame. Prints a few numbers twice a second.
 * usage: example_clips [CHARACTER WALK RUN]   (any format sinew reads; the
 * default is the pab rig of the shared assets: arnaud.fbx, walk.fbx, run.fbx) */
#include "sinew/sinew_import.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SINEW_ASSETS
#define SINEW_ASSETS "../shared/assets"
#endif
#define PAB SINEW_ASSETS "/fbx/pab/"

/* The first clip of `path`, remade for `character`'s skeleton by joint name. */
static sinew_clip *clip_for(const sinew_skeleton *character, const char *path, sinew_error *err)
{
    sinew_asset *anim = sinew_load_file(path, NULL, err);
    if (!anim) return NULL;
    sinew_retarget_report r = {0};
    sinew_clip *c = anim->clip_count ? sinew_clip_retarget(anim->clips[0], anim->skeleton, character, NULL, &r, err)
                                     : NULL;
    if (c) printf("%s: \"%s\", %.3f s: %d tracks matched, %d dropped, %d joints keep their rest pose\n", path,
                  c->name, (double)c->duration, r.matched_tracks, r.dropped_tracks, r.unanimated_joints);
    else if (!anim->clip_count) snprintf(err->description, sizeof err->description, "%s has no animation", path);
    sinew_asset_free(anim);
    return c;
}

int main(int argc, char **argv)
{
    const char *paths[3] = {PAB "arnaud.fbx", PAB "walk.fbx", PAB "run.fbx"};
    if (argc == 4) paths[0] = argv[1], paths[1] = argv[2], paths[2] = argv[3];
    else if (argc != 1) {
        fprintf(stderr, "usage: %s [CHARACTER WALK RUN]\n", argv[0]);
        return 2;
    }
    FILE *f = argc == 1 ? fopen(paths[0], "rb") : NULL;
    if (argc == 1 && !f) { /* the tests skip (77) without the shared assets */
        printf("skip: %s not found (give CHARACTER WALK RUN)\n", paths[0]);
        return 77;
    }
    if (f) fclose(f);

    sinew_error err = {0};
    sinew_asset *hero = sinew_load_file(paths[0], NULL, &err);
    const sinew_skeleton *sk = hero ? hero->skeleton : NULL;
    sinew_clip *walk = sk ? clip_for(sk, paths[1], &err) : NULL;
    sinew_clip *run = walk ? clip_for(sk, paths[2], &err) : NULL;
    if (!run || !hero->mesh_count || !hero->meshes[0].skin) {
        fprintf(stderr, "%s\n", run ? "the character has no skinned mesh" : err.description);
        return 1;
    }
    const sinew_mesh *mesh = &hero->meshes[0];
    const int n = sk->joint_count, vn = mesh->vertex_count;

    /* Per character, made once: two sampled poses, the blend, matrices, vertices. */
    const size_t pose_bytes = sizeof(sinew_transform) * (size_t)n;
    sinew_transform *pose[2] = {malloc(pose_bytes), malloc(pose_bytes)}, *local = malloc(pose_bytes);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    sinew_mat4 *palette = malloc(sizeof *palette * (size_t)mesh->skin->joint_count);
    float *skinned = malloc(sizeof(float) * 3 * (size_t)vn);
    if (!pose[0] || !pose[1] || !local || !model || !palette || !skinned) return 1;

    sinew_playback both[2] = {sinew_playback_start(walk, true), sinew_playback_start(run, true)};
    sinew_crossfade fade = {0};
    const float dt = 1.0f / 30.0f;
    for (int frame = 0; frame <= 120; ++frame) { /* four seconds at 30 fps */
        float t = frame * dt, w;                   /* w: the weight of the second pose */
        const sinew_playback *p[2];
        if (frame < 60) { /* 0-2 s: walk speeding up to a run, both cycles at one phase */
            w = t / 2.0f;
            if (frame > 0) sinew_playback_advance_synced(both, (float[]){1.0f - w, w}, 2, dt, NULL, &err);
            if (fabsf(sinew_playback_phase(&both[0]) - sinew_playback_phase(&both[1])) > 1e-4f) {
                fprintf(stderr, "t=%.2f: walk and run out of step\n", (double)t);
                return 1;
            }
            p[0] = &both[0], p[1] = &both[1];
        } else { /* from 2 s: back to the walk over half a second, the walk joining at the run's phase */
            if (!fade.from.clip) fade = sinew_crossfade_start(both[1], sinew_playback_start(walk, true), 0.5f, true);
            else sinew_crossfade_advance(&fade, dt, NULL);
            w = sinew_crossfade_weight(&fade);
            p[0] = &fade.from, p[1] = &fade.to;
        }
        for (int k = 0; k < 2; ++k)
            sinew_clip_sample(p[k]->clip, sk, p[k]->time, SINEW_SAMPLE_LOOP, NULL, pose[k], n, &err);
        sinew_blend_layer layers[2] = {{pose[0], 1.0f - w, NULL}, {pose[1], w, NULL}};
        if (sinew_blend(sk, layers, 2, 0.0f, local, n, &err) ||
            sinew_local_to_model(sk, local, NULL, model, n, &err) ||
            sinew_skin_palette(mesh->skin, model, n, NULL, palette, mesh->skin->joint_count, &err) ||
            sinew_skin_lbs(&(sinew_skin_job){.skin = mesh->skin, .palette = palette,
                                             .palette_count = mesh->skin->joint_count,
                                             .positions = mesh->positions, .out_positions = skinned},
                           &err)) {
            fprintf(stderr, "t=%.2f: %s\n", (double)t, err.description);
            return 1;
        }
        /* what a game would draw: here, the skinned mesh's height (in the file's units: cm for pab) */
        float lo = INFINITY, hi = -INFINITY;
        for (int v = 0; v < vn; ++v) lo = fminf(lo, skinned[3 * v + 1]), hi = fmaxf(hi, skinned[3 * v + 1]);
        if (!(hi - lo > 0.0f)) {
            fprintf(stderr, "t=%.2f: the skinned mesh is flat or not finite\n", (double)t);
            return 1;
        }
        if (frame % 15 == 0)
            printf("t=%.1f s  %-8s %s %.2f + %s %.2f  phase %.2f  mesh height %.1f\n", (double)t,
                   frame < 60 ? "blend" : "fade", p[0]->clip->name, (double)(1.0f - w), p[1]->clip->name, (double)w,
                   (double)sinew_playback_phase(p[0]), (double)(hi - lo));
    }
    printf("crossfade %s -> %s done: weight %.2f\n", fade.from.clip->name, fade.to.clip->name,
           (double)sinew_crossfade_weight(&fade));
    free(pose[0]), free(pose[1]), free(local), free(model), free(palette), free(skinned);
    sinew_clip_free(walk), sinew_clip_free(run);
    sinew_asset_free(hero);
    return 0;
}
