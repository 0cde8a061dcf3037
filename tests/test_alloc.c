/* SPDX-License-Identifier: MIT */
/* Allocation: the built-in character, the glTF loader (files read through
 * the allocator too) and sinew's conversion of Assimp scenes allocate
 * through the caller's allocator and free what they allocated; each
 * allocation failing in turn gives SINEW_ERROR_OUT_OF_MEMORY, never a crash
 * or a leak. (cJSON's parse tree comes from malloc, outside the sweep.) */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "count_alloc.h"

#if SINEW_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif
#include <stdio.h>

#include <stdlib.h>

/* What a sweep makes: an asset from options (the allocator to count), or
 * NULL with err. */
typedef sinew_asset *(*maker)(const sinew_options *options, const void *ctx, sinew_error *err);

/* Runs `make` once to count its allocations, then once per allocation with
 * that one failing: each time NULL and SINEW_ERROR_OUT_OF_MEMORY, nothing
 * left allocated. */
static void sweep(const char *what, maker make, const void *ctx)
{
    counter c = {0, 0, 0};
    sinew_options opt = {.allocator = {count_alloc, count_free, &c}};
    sinew_error err;
    sinew_asset *a = make(&opt, ctx, &err);
    CHECK(a != NULL, "%s with a counting allocator: %s", what, err.description);
    if (!a) return;
    CHECK(c.total > 5, "%s: allocations go through the caller's allocator (%ld)", what, c.total);
    sinew_asset_free(a);
    CHECK(c.live == 0, "%s: everything allocated is freed (%ld left)", what, c.live);

    long allocations = c.total;
    int reported = 0, leaks = 0, loaded = 0;
    for (long k = 1; k <= allocations; ++k) {
        counter f = {0, 0, k};
        sinew_options fo = {.allocator = {count_alloc, count_free, &f}};
        sinew_asset *x = make(&fo, ctx, &err);
        if (!x && err.result == SINEW_ERROR_OUT_OF_MEMORY) ++reported;
        if (x) ++loaded;
        if (x || f.live) /* the place, for whoever fixes it */
            printf("  %s: allocation %ld failing: %s, %ld blocks left (%s)\n", what, k, x ? "loaded" : "refused",
                   f.live, err.description);
        sinew_asset_free(x);
        if (f.live) ++leaks;
    }
    CHECK(loaded == 0, "%s: %d of %ld failing allocations still gave an asset", what, loaded, allocations);
    CHECK(reported == allocations, "%s: each failure is reported as out of memory (%d of %ld)", what, reported,
          allocations);
    CHECK(leaks == 0, "%s: %d of %ld failing allocations leaked", what, leaks, allocations);
    printf("%s: %ld allocations, each failing in turn\n", what, allocations);
}

/* Whether the shared asset is there; prints why not. */
static bool present(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("skip: %s is missing (the shared assets)\n", path);
        return false;
    }
    fclose(f);
    return true;
}

static sinew_asset *make_demo(const sinew_options *options, const void *ctx, sinew_error *err)
{
    (void)ctx;
    return sinew_demo_create(options, err);
}

static sinew_asset *make_file(const sinew_options *options, const void *path, sinew_error *err)
{
    sinew_load_options lo = {.base = *options};
    return sinew_load_file(path, &lo, err);
}

#if SINEW_HAVE_ASSIMP
/* sinew's conversion of a scene Assimp read once (Assimp's own
 * allocations are not sinew's to count) */
sinew_asset *sinew__asset_new(const char *name, const sinew_options *options);
sinew_result sinew__assimp_convert(const struct aiScene *scene, const sinew_options *options, sinew_asset *asset,
                                   sinew_error *err);

static sinew_asset *make_converted(const sinew_options *options, const void *scene, sinew_error *err)
{
    sinew_asset *a = sinew__asset_new("converted", options);
    if (!a) {
        err->result = SINEW_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    if (sinew__assimp_convert(scene, options, a, err) == SINEW_OK) return a;
    sinew_asset_free(a);
    return NULL;
}

static void sweep_assimp(const char *path)
{
    if (!present(path)) return;
    const struct aiScene *scene = aiImportFile(path, aiProcess_Triangulate | aiProcess_GenSmoothNormals);
    CHECK(scene != NULL, "Assimp reads %s", path);
    if (scene) sweep(path, make_converted, scene);
    aiReleaseImport(scene);
}
#endif

static void sweep_file(const char *path)
{
    if (present(path)) sweep(path, make_file, path);
}

int main(void)
{
    sweep("built-in character", make_demo, NULL);
    sweep_file(SINEW_ASSETS "/gltf/rigged_simple.gltf");
    sweep_file(SINEW_ASSETS "/gltf/interpolation_test.gltf");
    sweep_file(SINEW_ASSETS "/gltf/box_animated.gltf");
#if SINEW_HAVE_ASSIMP
    sweep_assimp(SINEW_ASSETS "/collada/seymour.dae");
    sweep_assimp(SINEW_ASSETS "/fbx/pab/arnaud.fbx");
#else
    printf("skip: the Assimp conversion sweep (built without Assimp)\n");
#endif
    return check_finish("test_alloc");
}
