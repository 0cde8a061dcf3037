/* Test helper: a file of the shared assets, or a printed reason to skip
 * it. Include after check.h and sinew_import.h. */
#ifndef SINEW_TEST_SHARED_ASSET_H
#define SINEW_TEST_SHARED_ASSET_H

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

#endif
