#define _POSIX_C_SOURCE 200809L
/* Load time: sinew's glTF reader against Assimp 5.2 on the same files, in
 * one run, interleaved, hot cache. Median (and min) over the repetitions.
 * usage: bench_load [--reps N] FILE...
 * Assimp runs twice: with no post-processing (its own minimum) and with
 * the steps that give what sinew delivers (triangles, normals, bone
 * weights limited to 8... Assimp's maximum is 4 by default, so 8 is set). */
#include "bench.h"
#include "sinew/sinew_import.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int reps = 21, first = 1;
    if (argc > 2 && strcmp(argv[1], "--reps") == 0) reps = atoi(argv[2]), first = 3;
    if (first >= argc || reps < 1) {
        fprintf(stderr, "usage: bench_load [--reps N] FILE...\n");
        return 2;
    }
    double *ts = malloc(sizeof(double) * (size_t)reps * 3);
    struct aiPropertyStore *props = aiCreatePropertyStore();
    aiSetImportPropertyInteger(props, AI_CONFIG_PP_LBW_MAX_WEIGHTS, 8);
    unsigned full = aiProcess_Triangulate | aiProcess_GenSmoothNormals | aiProcess_LimitBoneWeights;
    printf("%-28s %12s %12s %14s %12s %12s\n", "file", "sinew ms", "assimp ms", "assimp+pp ms", "ratio", "ratio+pp");
    for (int f = first; f < argc; ++f) {
        const char *path = argv[f];
        for (int r = -2; r < reps; ++r) { /* two warm-up rounds */
            double t0 = bench_now();
            sinew_error err;
            sinew_asset *a = sinew_load_file(path, NULL, &err);
            double t1 = bench_now();
            const struct aiScene *s0 = aiImportFile(path, 0);
            double t2 = bench_now();
            const struct aiScene *s1 = aiImportFileExWithProperties(path, full, NULL, props);
            double t3 = bench_now();
            if (!a || !s0 || !s1) {
                fprintf(stderr, "bench_load: %s: %s%s\n", path, a ? "" : err.description, s0 && s1 ? "" : aiGetErrorString());
                return 1;
            }
            sinew_asset_free(a);
            aiReleaseImport(s0);
            aiReleaseImport(s1);
            if (r >= 0) ts[r] = t1 - t0, ts[reps + r] = t2 - t1, ts[2 * reps + r] = t3 - t2;
        }
        double ms = bench_median(ts, reps) * 1e3, ams = bench_median(ts + reps, reps) * 1e3, pms = bench_median(ts + 2 * reps, reps) * 1e3;
        const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        printf("%-28s %12.3f %12.3f %14.3f %11.1fx %11.1fx\n", name, ms, ams, pms, ams / ms, pms / ms);
    }
    aiReleasePropertyStore(props);
    free(ts);
    return 0;
}
