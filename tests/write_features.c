/* SPDX-License-Identifier: MIT */
/* Writes the generated glTF feature files (gltf_features.h) into a folder:
 * seeds for the fuzzer. usage: write_features DIR */
#include "gltf_features.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_features DIR\n");
        return 2;
    }
    char **paths = gltf_features_write(argv[1]);
    if (!paths) {
        fprintf(stderr, "write_features: cannot write into %s\n", argv[1]);
        return 1;
    }
    gltf_features_free(paths);
    return 0;
}
