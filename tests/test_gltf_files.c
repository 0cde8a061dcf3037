/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* glTF loader on the sample files in ../shared/assets/gltf: what each file
 * holds, and every clip played through the whole pipeline with finite
 * results. Skips, saying so, when the assets are not there. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "shared_asset.h"
#include "mesh_corners.h"

#include <stdlib.h>
#include <unistd.h>

/* The shared glTF file `name` loaded with `options` (NULL: the defaults). */
static sinew_asset *load_with(const char *name, const sinew_load_options *options)
{
    char path[512];
    snprintf(path, sizeof path, "%s/gltf/%s", SINEW_ASSETS, name);
    sinew_error err;
    sinew_asset *a = sinew_load_file(path, options, &err);
    CHECK(a != NULL, "%s loads%s: %s", name, options ? " with its options" : "", err.description);
    return a;
}

static sinew_asset *load(const char *name) { return load_with(name, NULL); }

/* Plays every clip at times before, between and on keys and past the end,
 * skins every mesh; everything stays finite. Rigid meshes follow their joint. */
static void play_all(const sinew_asset *a, const char *name)
{
    check_streams_aligned(a, name);
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    sinew_mat4 palette[256];
    int bad = 0, runs = 0;
    for (int c = 0; c < a->clip_count; ++c) {
        const sinew_clip *clip = a->clips[c];
        for (int k = -2; k <= 42; ++k) {
            float t = clip->duration * (float)k / 40.0f;
            sinew_error err;
            if (sinew_clip_sample(clip, sk, t, 0, NULL, local, n, &err) != SINEW_OK ||
                sinew_local_to_model(sk, local, NULL, model, n, &err) != SINEW_OK) {
                ++bad;
                continue;
            }
            for (int m = 0; m < a->mesh_count; ++m) {
                const sinew_mesh *mesh = &a->meshes[m];
                if (!mesh->skin || mesh->skin->joint_count > 256) continue;
                float *out = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
                sinew_skin_palette(mesh->skin, model, n, NULL, palette, 256, NULL);
                sinew_skin_job job = {.skin = mesh->skin, .palette = palette, .palette_count = mesh->skin->joint_count,
                                      .positions = mesh->positions, .out_positions = out};
                ++runs;
                if (sinew_skin_lbs(&job, NULL) != SINEW_OK) ++bad;
                for (int v = 0; v < mesh->vertex_count * 3; ++v)
                    if (!isfinite(out[v])) {
                        ++bad;
                        break;
                    }
                free(out);
            }
        }
    }
    CHECK(bad == 0, "%s: every clip samples and skins with finite results (%d failures in %d runs)", name, bad, runs);
    free(local), free(model);
}

int main(void)
{
    char probe[512];
    snprintf(probe, sizeof probe, "%s/gltf/cesium_man.gltf", SINEW_ASSETS);
    if (access(probe, R_OK) != 0) {
        printf("skip: the sample assets are not at %s (../shared/assets beside the checkout)\n", SINEW_ASSETS);
        return 77;
    }
    sinew_asset *a = load("cesium_man.gltf");
    if (a) {
        CHECK(a->skeleton->joint_count == 22, "cesium_man: 22 nodes, 22 joints");
        CHECK(a->mesh_count == 1 && a->meshes[0].vertex_count == 3273, "cesium_man: 3,273 vertices");
        CHECK(a->meshes[0].skin && a->meshes[0].skin->joint_count == 19, "cesium_man: skin of 19 joints");
        CHECK(a->clip_count == 1 && fabsf(a->clips[0]->duration - 2.0f) < 0.01f, "cesium_man: one 2 s clip (%g)",
              a->clip_count ? (double)a->clips[0]->duration : 0.0);
        play_all(a, "cesium_man");
        /* order_vertices_for_skinning: the same triangles corner for corner */
        sinew_asset *ordered =
            load_with("cesium_man.gltf", &(sinew_load_options){.order_vertices_for_skinning = true});
        if (ordered) {
            const sinew_mesh *x = &a->meshes[0], *y = &ordered->meshes[0];
            CHECK(y->vertex_count == x->vertex_count && y->index_count == x->index_count && y->texcoord_count == 1 &&
                      corners_differ(x, y, true) == 0,
                  "cesium_man ordered: every triangle corner as read (position, normal, texture coordinates, "
                  "influences)");
            CHECK(memcmp(x->positions, y->positions, sizeof(float) * 3 * (size_t)x->vertex_count) != 0,
                  "cesium_man ordered: the vertices moved");
            play_all(ordered, "cesium_man ordered");
            sinew_asset_free(ordered);
        }
        sinew_asset_free(a);
    }
    a = load("rigged_simple.gltf");
    if (a) {
        CHECK(a->skeleton->joint_count == 5 && a->mesh_count == 1 && a->meshes[0].skin &&
                  a->meshes[0].skin->joint_count == 2,
              "rigged_simple: 5 nodes, a 2-joint skin");
        play_all(a, "rigged_simple");
        sinew_asset_free(a);
    }
    a = load("interpolation_test.gltf");
    if (a) {
        static const struct { const char *name; sinew_interpolation interp; sinew_track_target target; } clips[] = {
            {"Step Scale", SINEW_INTERP_STEP, SINEW_TARGET_SCALE},
            {"CubicSpline Scale", SINEW_INTERP_CUBICSPLINE, SINEW_TARGET_SCALE},
            {"Step Rotation", SINEW_INTERP_STEP, SINEW_TARGET_ROTATION},
            {"CubicSpline Rotation", SINEW_INTERP_CUBICSPLINE, SINEW_TARGET_ROTATION},
            {"Linear Rotation", SINEW_INTERP_LINEAR, SINEW_TARGET_ROTATION},
            {"Step Translation", SINEW_INTERP_STEP, SINEW_TARGET_TRANSLATION},
            {"CubicSpline Translation", SINEW_INTERP_CUBICSPLINE, SINEW_TARGET_TRANSLATION},
            {"Linear Translation", SINEW_INTERP_LINEAR, SINEW_TARGET_TRANSLATION}};
        CHECK(a->clip_count == 9, "interpolation_test: 9 clips");
        for (size_t i = 0; i < sizeof clips / sizeof clips[0]; ++i) {
            const sinew_clip *c = sinew_asset_find_clip(a, clips[i].name);
            CHECK(c && c->track_count == 1 && c->tracks[0].interpolation == clips[i].interp &&
                      c->tracks[0].target == clips[i].target,
                  "interpolation_test: clip \"%s\" has its interpolation and target", clips[i].name);
        }
        CHECK(a->mesh_count == 10, "interpolation_test: 10 rigid meshes");
        play_all(a, "interpolation_test");
        sinew_asset_free(a);
    }
    a = load("box_animated.gltf");
    if (a) {
        CHECK(a->mesh_count == 2 && !a->meshes[0].skin && !a->meshes[1].skin, "box_animated: two rigid meshes");
        /* the animated node carries its mesh: its joint's model matrix changes over the clip */
        const sinew_skeleton *sk = a->skeleton;
        sinew_transform l0[8], l1[8];
        sinew_mat4 m0[8], m1[8];
        sinew_clip_sample(a->clips[0], sk, 0.0f, 0, NULL, l0, sk->joint_count, NULL);
        sinew_clip_sample(a->clips[0], sk, 1.0f, 0, NULL, l1, sk->joint_count, NULL);
        sinew_local_to_model(sk, l0, NULL, m0, sk->joint_count, NULL);
        sinew_local_to_model(sk, l1, NULL, m1, sk->joint_count, NULL);
        int moved = 0;
        for (int m = 0; m < a->mesh_count; ++m) {
            int j = a->meshes[m].joint;
            moved += j >= 0 && memcmp(&m0[j], &m1[j], sizeof m0[j]) != 0;
        }
        CHECK(moved >= 1, "box_animated: an animated node moves the mesh it carries");
        play_all(a, "box_animated");
        sinew_asset_free(a);
    }
    a = load("triangle.gltf");
    if (a) {
        CHECK(a->mesh_count == 1 && a->meshes[0].vertex_count == 3 && a->clip_count == 0, "triangle: one triangle");
        const float *n = a->meshes[0].normals;
        CHECK(n && fabsf(n[2] - 1.0f) < 1e-6f && fabsf(n[8] - 1.0f) < 1e-6f, "triangle: computed normals are +z");
        sinew_asset_free(a);
    }
    return check_finish("test_gltf_files");
}
