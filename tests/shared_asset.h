/* SPDX-License-Identifier: MIT */
/* Test helper: a file of the shared assets, or a printed reason to skip
 * it. Include after check.h and sinew_import.h. */
#ifndef SINEW_TEST_SHARED_ASSET_H
#define SINEW_TEST_SHARED_ASSET_H

#include <stdint.h>
#include <stdio.h>

/* The asset at `path`; NULL after printing "skip: ..." when the file is
 * missing (no shared assets beside the checkout) or its format is not built
 * in (no Assimp), or after a failed CHECK when it does not load. */
static inline sinew_asset *test_load_shared(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("skip: %s is missing (the shared assets)\n", path);
        return NULL;
    }
    fclose(f);
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(path, NULL, &err);
    if (!a && err.result == SINEW_ERROR_UNSUPPORTED) {
        printf("skip: %s: %s\n", path, err.description);
        return NULL;
    }
    CHECK(a != NULL, "%s: %s", path, err.description);
    return a;
}

/* The character at `path` into *a and, where `anim` is given, the file
 * whose first clip it plays into *b (else NULL): false, nothing left
 * loaded, where either is missing or does not load (test_load_shared). */
static inline bool test_load_with_anim(const char *path, const char *anim, sinew_asset **a, sinew_asset **b)
{
    *a = test_load_shared(path), *b = NULL;
    if (!*a) return false;
    if (!anim) return true;
    *b = test_load_shared(anim);
    if (*b) return true;
    sinew_asset_free(*a);
    *a = NULL;
    return false;
}

/* Every vertex stream of every mesh starts on a 64-byte boundary, as
 * sinew_mesh promises. */
static inline void check_streams_aligned(const sinew_asset *a, const char *name)
{
    int off = 0, streams = 0;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *mesh = &a->meshes[m];
        const void *p[] = {mesh->positions, mesh->normals, mesh->tangents, mesh->colors, mesh->indices,
                           mesh->texcoord_count ? mesh->texcoords[0] : NULL};
        for (size_t i = 0; i < sizeof p / sizeof *p; ++i)
            if (p[i]) ++streams, off += (uintptr_t)p[i] % 64 != 0;
    }
    CHECK(off == 0, "%s: %d of %d vertex streams are not 64-byte aligned", name, off, streams);
}

#endif
