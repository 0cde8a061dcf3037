/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Load time: sinew's glTF reader against Assimp 5.2 on the same files, in
 * one run, interleaved, hot cache. Median (and min) over the repetitions.
 * usage: bench_load [--reps N] FILE...
 * Assimp runs twice: with no post-processing (its own minimum) and with
 * the steps that give what sinew delivers (triangles, normals, bone
 * weights limited to 8... Assimp's maximum is 4 by default, so 8 is set).
 * usage: bench_load --wall [--reps N] [--ballast MB] [--worker] FILE...
 * The cost of the wall around Assimp: sinew_load_file as it runs by
 * default (Assimp in a child process) against Assimp in this process
 * (sinew_load_options.assimp_in_process), interleaved. --ballast holds MB
 * of written memory, as a large host program would, and times one pass
 * writing it after each load: a fork shares that memory copy-on-write, so
 * the host pays for it again after a walled load. --worker runs the walled
 * loads in the worker program (sinew_load_options.assimp_process; the
 * environment variable SINEW_IMPORT_WORKER names it in a build tree)
 * instead of a fork.
 * usage: bench_load --gltf-large [--reps N]
 * The glTF reader on large generated files (tests/gltf_large.h): load
 * times and the cost per megabyte of JSON.
 * usage: bench_load --archive [--reps N] FILE...
 * Each file against the archives `sinew convert` makes of it, without and
 * with --prepare (the skins' SIMD blocks stored): their bytes, their load
 * times beside the file's (interleaved; copied, and viewed where they
 * lie), and the speed of the checksum (the validation every load starts
 * with).
 * usage: bench_load --big-archive [--reps N] [--mb MB] FILE...
 * Large archives a writer makes: each file's first clip baked at 30 keys
 * a second for every joint (as exporters bake), repeated until the archive
 * holds about MB megabytes (80 by default), plain and packed
 * (sinew_clip_pack): their load times copied and viewed, and the speed in
 * MB/s of the archive's bytes, with the default memory limit. */
#include "bench.h"
#include "../tests/baked_clip.h"
#include "../tests/gltf_large.h"
#include "sinew/sinew_archive.h"
#include "sinew/sinew_import.h"

uint64_t sinew__xxh3(const void *data, size_t n); /* libsinew's archive checksum */

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Seconds one load takes in a process of its own (forked, so its heap is
 * fresh, as a tool that loads one file has it), or -1. */
static double first_load(const char *path, const sinew_load_options *options)
{
    int fds[2];
    if (pipe(fds) != 0) return -1.0;
    pid_t pid = fork();
    if (pid == 0) {
        sinew_error err;
        double t0 = bench_now();
        sinew_asset *a = sinew_load_file(path, options, &err);
        double t = a ? bench_now() - t0 : -1.0;
        if (write(fds[1], &t, sizeof t) != (ssize_t)sizeof t) t = -1.0;
        _exit(0);
    }
    double t = -1.0;
    if (pid < 0 || read(fds[0], &t, sizeof t) != (ssize_t)sizeof t) t = -1.0;
    close(fds[0]), close(fds[1]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return t;
}

/* The wall's cost: the default load against the one in process, both in a
 * warm process (the heap reused from the last load) and as the first load
 * of a process. */
/* Seconds one pass writing the ballast takes. */
static double pass(unsigned char *ballast, size_t size, int r)
{
    double t0 = bench_now();
    memset(ballast, r & 0xff, size);
    double t = bench_now() - t0;
    /* read back, so that the pass cannot be left out */
    return ballast[(size_t)r * 4096 % size] == (unsigned char)(r & 0xff) ? t : -1.0;
}

static int wall(int reps, int first, int argc, char **argv, double *ts, size_t ballast_mb, bool worker)
{
    if (ballast_mb)
        printf("%-16s %11s %11s %8s %8s | %11s %11s\n", "file", "walled ms", "in-proc ms", "wall ms", "wall",
               "pass, wall", "pass, in");
    else
        printf("%-16s %11s %11s %8s %8s | %11s %11s %8s %8s\n", "file", "walled ms", "in-proc ms", "wall ms",
               "wall", "first, wall", "first, in", "wall ms", "wall");
    const sinew_load_options walled = {.assimp_process = worker ? SINEW_ASSIMP_PROCESS_WORKER
                                                                : SINEW_ASSIMP_PROCESS_FORK},
                             in_process = {.assimp_in_process = true};
    double *cold = ts + 2 * (size_t)reps, *cold_in = malloc(sizeof(double) * (size_t)reps);
    size_t size = ballast_mb << 20;
    unsigned char *ballast = size ? malloc(size) : NULL;
    if (!cold_in || (size && !ballast)) {
        fprintf(stderr, "bench_load: out of memory\n");
        free(cold_in), free(ballast);
        return 1;
    }
    if (size) pass(ballast, size, 1);
    for (int f = first; f < argc; ++f) {
        const char *path = argv[f];
        for (int r = -2; r < reps; ++r) {
            sinew_error err;
            double t0 = bench_now();
            sinew_asset *a = sinew_load_file(path, r % 2 ? &walled : &in_process, &err);
            double t1 = bench_now(), pa = size ? pass(ballast, size, r) : 0.0, t2 = bench_now();
            sinew_asset *b = sinew_load_file(path, r % 2 ? &in_process : &walled, &err);
            double t3 = bench_now(), pb = size ? pass(ballast, size, r) : 0.0;
            /* the passes after the walled and the in-process load; without
             * ballast, the first loads (a process of its own has none) */
            double c1 = size ? (r % 2 ? pa : pb) : first_load(path, &walled);
            double c2 = size ? (r % 2 ? pb : pa) : first_load(path, &in_process);
            if (!a || !b || c1 < 0.0 || c2 < 0.0) {
                fprintf(stderr, "bench_load: %s: %s\n", path, a && b ? "a first load failed" : err.description);
                free(cold_in), free(ballast);
                return 1;
            }
            sinew_asset_free(a), sinew_asset_free(b);
            if (r >= 0) {
                ts[r] = r % 2 ? t1 - t0 : t3 - t2, ts[reps + r] = r % 2 ? t3 - t2 : t1 - t0;
                cold[r] = c1, cold_in[r] = c2;
            }
        }
        double w = bench_median(ts, reps) * 1e3, p = bench_median(ts + reps, reps) * 1e3;
        double cw = bench_median(cold, reps) * 1e3, cp = bench_median(cold_in, reps) * 1e3;
        const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (size)
            printf("%-16s %11.2f %11.2f %8.2f %7.0f%% | %11.2f %11.2f\n", name, w, p, w - p, 100.0 * (w - p) / p,
                   cw, cp);
        else
            printf("%-16s %11.2f %11.2f %8.2f %7.0f%% | %11.2f %11.2f %8.2f %7.0f%%\n", name, w, p, w - p,
                   100.0 * (w - p) / p, cw, cp, cw - cp, 100.0 * (cw - cp) / cp);
    }
    free(cold_in), free(ballast);
    return 0;
}

static bool to_buffer(void *user, const void *bytes, size_t size)
{
    unsigned char **b = user;
    unsigned char *grown = realloc(b[0], (size_t)b[1] + size);
    if (!grown) return false;
    memcpy(grown + (size_t)b[1], bytes, size);
    b[0] = grown, b[1] = (unsigned char *)((size_t)b[1] + size);
    return true;
}

/* Files against their archives. */
/* A copy of `size` bytes on a 64-byte boundary, as a view needs them
 * (`raw` is what to free). */
static unsigned char *aligned(const unsigned char *bytes, size_t size, unsigned char **raw)
{
    *raw = malloc(size + 64);
    if (!*raw) return NULL;
    unsigned char *p = *raw + (64 - (uintptr_t)*raw % 64) % 64;
    memcpy(p, bytes, size);
    return p;
}

/* Files against their archives: copied, and viewed where they lie
 * (plain, and prepared with the skins' blocks). With several files, a
 * last row adds them up (arnaud.fbx and walk.fbx: the pab character). */
static int archive(int reps, int first, int argc, char **argv, double *ts)
{
    printf("%-16s %8s %8s %8s %8s %8s %8s %8s %7s %7s %7s\n", "file", "file KB", "arch KB", "prep KB", "file ms",
           "copy ms", "view ms", "pview ms", "view", "pview", "chk GB/s");
    (void)ts; /* five series: its own */
    double *t = malloc(sizeof(double) * (size_t)reps * 5);
    double total[4] = {0, 0, 0, 0};
    if (!t) return 1;
    for (int f = first; f < argc; ++f) {
        const char *path = argv[f];
        sinew_error err;
        sinew_asset *a = sinew_load_file(path, NULL, &err);
        unsigned char *buffer[2] = {NULL, NULL}, *prepared[2] = {NULL, NULL};
        const sinew_archive_write_options blocks = {.skin_blocks = true};
        if (!a || sinew_archive_write(a, NULL, to_buffer, buffer, &err) != SINEW_OK ||
            sinew_archive_write(a, &blocks, to_buffer, prepared, &err) != SINEW_OK) {
            fprintf(stderr, "bench_load: %s: %s\n", path, err.description);
            free(t);
            return 1;
        }
        sinew_asset_free(a);
        size_t size = (size_t)buffer[1], prepared_size = (size_t)prepared[1];
        unsigned char *raw_plain, *raw_prepared;
        const unsigned char *plain = aligned(buffer[0], size, &raw_plain);
        const unsigned char *ready = aligned(prepared[0], prepared_size, &raw_prepared);
        FILE *in = fopen(path, "rb");
        long file_size = -1;
        if (in && fseek(in, 0, SEEK_END) == 0) file_size = ftell(in);
        if (in) fclose(in);
        double *files = t, *copies = t + reps, *views = t + 2 * (size_t)reps, *pviews = t + 3 * (size_t)reps,
               *sums = t + 4 * (size_t)reps;
        for (int r = -2; r < reps; ++r) {
            double t0 = bench_now();
            sinew_asset *x = sinew_load_file(path, NULL, &err);
            double t1 = bench_now();
            sinew_asset *y = sinew_archive_load(plain, size, NULL, &err);
            double t2 = bench_now();
            sinew_asset *v = sinew_archive_view(plain, size, NULL, &err);
            double t3 = bench_now();
            sinew_asset *w = sinew_archive_view(ready, prepared_size, NULL, &err);
            double t4 = bench_now();
            volatile uint64_t h = sinew__xxh3(plain + 64, size - 64);
            double t5 = bench_now();
            (void)h;
            if (!x || !y || !v || !w) {
                fprintf(stderr, "bench_load: %s: %s\n", path, err.description);
                free(t);
                return 1;
            }
            sinew_asset_free(x), sinew_asset_free(y), sinew_asset_free(v), sinew_asset_free(w);
            if (r >= 0)
                files[r] = t1 - t0, copies[r] = t2 - t1, views[r] = t3 - t2, pviews[r] = t4 - t3, sums[r] = t5 - t4;
        }
        double fm = bench_median(files, reps) * 1e3, cm = bench_median(copies, reps) * 1e3;
        double vm = bench_median(views, reps) * 1e3, pm = bench_median(pviews, reps) * 1e3;
        double gbs = (double)size / bench_median(sums, reps) * 1e-9;
        total[0] += fm, total[1] += cm, total[2] += vm, total[3] += pm;
        const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        printf("%-16s %8.1f %8.1f %8.1f %8.3f %8.3f %8.3f %8.3f %6.0fx %6.0fx %7.1f\n", name, file_size / 1024.0,
               size / 1024.0, prepared_size / 1024.0, fm, cm, vm, pm, fm / vm, fm / pm, gbs);
        free(buffer[0]), free(prepared[0]), free(raw_plain), free(raw_prepared);
    }
    if (argc - first > 1)
        printf("%-16s %8s %8s %8s %8.3f %8.3f %8.3f %8.3f %6.0fx %6.0fx\n", "all together", "", "", "", total[0],
               total[1], total[2], total[3], total[0] / total[2], total[0] / total[3]);
    free(t);
    return 0;
}

/* Large archives made by the writer: plain and packed, copied and viewed,
 * interleaved. */
static int big_archive(int reps, double mb, int first, int argc, char **argv)
{
    printf("%-16s %-7s %8s %7s %9s %9s %10s %10s\n", "file", "clips", "arch MB", "copies", "copy ms", "view ms",
           "copy MB/s", "view MB/s");
    double *t = malloc(sizeof(double) * 2 * (size_t)reps);
    if (!t) return 1;
    for (int f = first; f < argc; ++f) {
        sinew_error err;
        sinew_asset *a = sinew_load_file(argv[f], NULL, &err);
        if (!a || a->clip_count < 1) {
            fprintf(stderr, "bench_load: %s: %s\n", argv[f], a ? "no clip" : err.description);
            sinew_asset_free(a), free(t);
            return 1;
        }
        /* 100 s of animation a clip */
        sinew_clip *plain = baked_clip(a->clips[0], a->skeleton, 3000, a->clips[0]->name, NULL);
        sinew_clip *packed = plain ? sinew_clip_pack(plain, a->skeleton, NULL, NULL, &err) : NULL;
        for (int kind = 0; kind < 2 && plain && packed; ++kind) {
            const sinew_clip *one = kind ? packed : plain;
            sinew_asset with = *a;
            const sinew_clip *single[1] = {one};
            with.clips = single, with.clip_count = 1;
            unsigned char *probe[2] = {NULL, NULL};
            const sinew_archive_write_options clips_only = {.clips_only = true};
            sinew_archive_write(&with, &clips_only, to_buffer, probe, &err);
            size_t copies = (size_t)(mb * 1048576.0 / (double)(size_t)probe[1]) + 1;
            free(probe[0]);
            const sinew_clip **list = malloc(sizeof *list * copies);
            for (size_t c = 0; list && c < copies; ++c) list[c] = one;
            with.clips = list, with.clip_count = (int)copies;
            unsigned char *buffer[2] = {NULL, NULL};
            if (!list || sinew_archive_write(&with, &clips_only, to_buffer, buffer, &err) != SINEW_OK) {
                fprintf(stderr, "bench_load: %s: %s\n", argv[f], err.description);
                free(list), free(t);
                return 1;
            }
            free(list);
            size_t size = (size_t)buffer[1];
            unsigned char *raw;
            const unsigned char *bytes = aligned(buffer[0], size, &raw);
            for (int r = -1; r < reps; ++r) {
                double t0 = bench_now();
                sinew_asset *x = sinew_archive_load(bytes, size, NULL, &err);
                double t1 = bench_now();
                bool copied = x != NULL;
                sinew_asset_free(x);
                double t2 = bench_now();
                sinew_asset *v = copied ? sinew_archive_view(bytes, size, NULL, &err) : NULL;
                double t3 = bench_now();
                bool viewed = v != NULL;
                sinew_asset_free(v);
                if (!copied || !viewed) {
                    fprintf(stderr, "bench_load: %s (%s, %zu bytes): %s\n", argv[f], kind ? "packed" : "plain", size,
                            err.description);
                    free(buffer[0]), free(raw), free(t);
                    return 1;
                }
                if (r >= 0) t[r] = t1 - t0, t[reps + r] = t3 - t2;
            }
            double cm = bench_median(t, reps), vm = bench_median(t + reps, reps), megabytes = size / 1048576.0;
            const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
            printf("%-16s %-7s %8.1f %7zu %9.1f %9.1f %10.0f %10.0f\n", name, kind ? "packed" : "plain", megabytes,
                   copies, cm * 1e3, vm * 1e3, megabytes / cm, megabytes / vm);
            free(buffer[0]), free(raw);
        }
        sinew_clip_free(plain), sinew_clip_free(packed);
        sinew_asset_free(a);
    }
    free(t);
    return 0;
}

/* The glTF reader on the large files of tests/gltf_large.h (what an
 * attacker would write), built in memory and loaded from memory: one load
 * of each per round, interleaved, two warm-up rounds, the median. The
 * reader's cost per megabyte of JSON is the last column. */
static int gltf_large(int reps)
{
    char *json[GLTF_LARGE_CASES];
    const char *names[GLTF_LARGE_CASES];
    double *t = malloc(sizeof(double) * (size_t)reps * GLTF_LARGE_CASES);
    if (!t) return 1;
    for (int c = 0; c < GLTF_LARGE_CASES; ++c) json[c] = gltf_large_case(c, &names[c]);
    for (int r = -2; r < reps; ++r)
        for (int c = 0; c < GLTF_LARGE_CASES; ++c) {
            sinew_error err;
            double t0 = bench_now();
            sinew_asset *a = sinew_load_memory(json[c], strlen(json[c]), NULL, NULL, &err);
            double t1 = bench_now();
            if (!a) {
                fprintf(stderr, "bench_load: %s: %s\n", names[c], err.description);
                return 1;
            }
            sinew_asset_free(a);
            if (r >= 0) t[(size_t)c * (size_t)reps + (size_t)r] = t1 - t0;
        }
    printf("%-56s %9s %9s %9s %9s\n", "case", "JSON KB", "ms", "MB/s", "ms/MB");
    double total_ms = 0.0, total_mb = 0.0;
    for (int c = 0; c < GLTF_LARGE_CASES; ++c) {
        double mb = (double)strlen(json[c]) / 1e6, ms = bench_median(t + (size_t)c * (size_t)reps, reps) * 1e3;
        total_ms += ms, total_mb += mb;
        printf("%-56s %9.1f %9.2f %9.1f %9.2f\n", names[c], mb * 1e3, ms, mb / ms * 1e3, ms / mb);
        free(json[c]);
    }
    printf("%-56s %9.1f %9.2f %9.1f %9.2f\n", "all together", total_mb * 1e3, total_ms, total_mb / total_ms * 1e3,
           total_ms / total_mb);
    free(t);
    return 0;
}

static const char usage[] =
    "usage: bench_load [--reps N] FILE...              sinew's glTF reader against Assimp\n"
    "       bench_load --wall [--reps N] [--ballast MB] [--worker] FILE...\n"
    "                                                  the wall around Assimp: walled and in-process loads\n"
    "       bench_load --gltf-large [--reps N]         the glTF reader on large generated files, per MB\n"
    "       bench_load --archive [--reps N] FILE...    each file against the archives convert makes of it\n"
    "       bench_load --big-archive [--reps N] [--mb MB] FILE...\n"
    "                                                  large archives of each file's clip, plain and packed\n";

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--gltf-large") == 0) {
        long n = argc == 4 && strcmp(argv[2], "--reps") == 0 ? strtol(argv[3], NULL, 10) : argc == 2 ? 21 : 0;
        if (n < 1 || n > 100000) {
            fprintf(stderr, "bench_load: --gltf-large takes only --reps N (1 to 100000)\n%s", usage);
            return 2;
        }
        return gltf_large((int)n);
    }
    int reps = 21, first = 1;
    bool walls = false, archives = false, worker = false, big = false;
    double big_mb = 80.0;
    size_t ballast_mb = 0;
    /* the options, in any order, before the files (a file named like an
     * option follows "--") */
    for (; first < argc && argv[first][0] == '-'; ++first) {
        const char *a = argv[first], *value = first + 1 < argc ? argv[first + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            ++first;
            break;
        } else if (strcmp(a, "--wall") == 0) {
            walls = true;
        } else if (strcmp(a, "--archive") == 0) {
            archives = true;
        } else if (strcmp(a, "--big-archive") == 0) {
            big = true;
        } else if (strcmp(a, "--mb") == 0 && value) {
            big_mb = strtod(value, &end);
            if (!*value || *end || !(big_mb > 0.0 && big_mb <= 4096.0)) {
                fprintf(stderr, "bench_load: --mb: \"%s\" is not a size from 0 to 4096 MB\n", value);
                return 2;
            }
            ++first;
        } else if (strcmp(a, "--worker") == 0) {
            worker = true;
        } else if (strcmp(a, "--reps") == 0 && value) {
            long n = strtol(value, &end, 10);
            if (!*value || *end || n < 1 || n > 100000) {
                fprintf(stderr, "bench_load: --reps: \"%s\" is not a count from 1 to 100000\n", value);
                return 2;
            }
            reps = (int)n, ++first;
        } else if (strcmp(a, "--ballast") == 0 && value) {
            unsigned long long mb = strtoull(value, &end, 10);
            if (!*value || *end || value[0] == '-' || mb > ((size_t)-1 >> 21)) {
                fprintf(stderr, "bench_load: --ballast: \"%s\" is not a size in MB\n", value);
                return 2;
            }
            ballast_mb = (size_t)mb, ++first;
        } else {
            bool valued = strcmp(a, "--reps") == 0 || strcmp(a, "--ballast") == 0 ||
                          strcmp(a, "--mb") == 0; /* with no value after it */
            fprintf(stderr, "bench_load: %s %s\n%s", a, valued ? "needs a value" : "is not an option", usage);
            return 2;
        }
    }
    if ((walls && archives) || ((ballast_mb || worker) && !walls)) {
        fprintf(stderr, "bench_load: --ballast and --worker go with --wall, which excludes --archive\n%s", usage);
        return 2;
    }
    if (first >= argc) {
        fprintf(stderr, "bench_load: no FILE\n%s", usage);
        return 2;
    }
    if (big) {
        if (walls || archives || ballast_mb || worker) {
            fprintf(stderr, "bench_load: --big-archive goes alone\n%s", usage);
            return 2;
        }
        return big_archive(reps, big_mb, first, argc, argv);
    }
    double *ts = malloc(sizeof(double) * (size_t)reps * 4);
    if (walls || archives) {
        int status = walls ? wall(reps, first, argc, argv, ts, ballast_mb, worker) : archive(reps, first, argc, argv, ts);
        free(ts);
        return status;
    }
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
