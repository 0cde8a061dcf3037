/* SPDX-License-Identifier: MIT */
/* bench_cuda: the CUDA crowd path on the GPU, in one run:
 *
 *   1. the device's copy bandwidth (cudaMemcpy device to device, bytes read
 *      plus written);
 *   2. per scenario and skinning method, the skin kernel's bytes per vertex
 *      (outputs, plus the mesh's inputs where each instance has its own
 *      mesh), achieved bandwidth, share of the copy bandwidth, Gvertex/s,
 *      and the pose kernel's time;
 *   3. characters per 16.6 ms frame, sampling, blending, pose and skinning
 *      and the upload of the instance states included.
 *
 * Scenarios: a crowd sharing one mesh, and distinct meshes (4,096
 * characters uploaded, one instance each, so nothing is shared), for the
 * built-in character and arnaud.fbx (welded: 3,748 vertices) playing
 * walk.fbx and run.fbx; LBS and DQS; float outputs (24 bytes a vertex) and
 * the compact ones (half positions, octahedral normals: 12 bytes).
 * Times are medians of REPS frames after a warm-up (CUDA events).
 *
 * Usage: bench_cuda [ASSETS_DIR] [--crowd N] */
#include "sinew/sinew.h"
#include "sinew/sinew_gpu.h"
#include "sinew/sinew_import.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 7 };
#define FRAME_MS 16.6

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double copy_bandwidth(void)
{
    size_t bytes = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0.0;
    cudaMemset(a, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    float ms[REPS];
    for (int r = -2; r < REPS; ++r) {
        cudaEventRecord(e0, 0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        if (r >= 0) cudaEventElapsedTime(&ms[r], e0, e1);
    }
    qsort(ms, REPS, sizeof *ms, cmp_float);
    cudaFree(a), cudaFree(b);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    return 2.0 * (double)bytes / (ms[REPS / 2] * 1e-3);
}

typedef struct character {
    sinew_asset *asset;
    const sinew_mesh *mesh;
    const sinew_clip *clips[4];
    sinew_clip *owned[4];
    int clip_count;
    const char *name;
} character;

static double input_bytes(const sinew_mesh *m)
{
    const sinew_skin *s = m->skin;
    double isize = s->index_type == SINEW_INDEX_U8 ? 1 : 2;
    double wsize = s->weight_type == SINEW_WEIGHT_F32 ? 4 : s->weight_type == SINEW_WEIGHT_UNORM8 ? 1 : 2;
    return 24.0 + (isize + wsize) * s->influence_count;
}

/* The skinning methods and output formats measured. */
static const struct {
    sinew_skinning method;
    sinew_cuda_format format;
    const char *name;
} kinds[] = {{SINEW_SKINNING_LBS, SINEW_CUDA_FLOAT, "LBS"},
             {SINEW_SKINNING_DQS, SINEW_CUDA_FLOAT, "DQS"},
             {SINEW_SKINNING_LBS, SINEW_CUDA_COMPACT, "LBS compact"},
             {SINEW_SKINNING_DQS, SINEW_CUDA_COMPACT, "DQS compact"}};
enum { KINDS = sizeof kinds / sizeof *kinds };

typedef struct result {
    float frame_ms, pose_ms, skin_ms, upload_ms;
} result;

/* Median times of REPS frames of `n` instances on characters first..first+span-1 (instance i on first + i % span). */
static result run(sinew_cuda_crowd *crowd, const character *c, int first, int span, int n, sinew_skinning method,
                  sinew_cuda_format format)
{
    sinew_cuda_instance *inst = malloc(sizeof *inst * (size_t)n);
    uint32_t seed = 7;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        float u = (float)(seed >> 8) / 16777216.0f;
        inst[i].character = first + i % span;
        inst[i].clips[0] = 0;
        inst[i].clips[1] = c->clip_count > 1 ? 1 : 0;
        inst[i].times[0] = u * c->clips[0]->duration;
        inst[i].times[1] = u * c->clips[inst[i].clips[1]]->duration;
        inst[i].weight = u;
    }
    sinew_cuda_frame_desc fd = {.method = method, .normals = true, .sample_flags = SINEW_SAMPLE_LOOP, .format = format};
    float f[REPS], p[REPS], s[REPS], up[REPS];
    sinew_error err = {0};
    result r = {0, 0, 0, 0};
    for (int k = -1; k < REPS; ++k) {
        for (int i = 0; i < n; ++i) inst[i].times[0] += 1.0f / 60.0f, inst[i].times[1] += 1.0f / 60.0f;
        if (sinew_cuda_frame(crowd, inst, n, &fd, &err) != SINEW_OK) {
            fprintf(stderr, "bench_cuda: %s\n", err.description);
            free(inst);
            return r;
        }
        if (k < 0) continue;
        sinew_cuda_timing t = sinew_cuda_last_timing(crowd);
        f[k] = t.frame_ms, p[k] = t.pose_ms, s[k] = t.skin_ms, up[k] = t.upload_ms;
    }
    qsort(f, REPS, sizeof *f, cmp_float), qsort(p, REPS, sizeof *p, cmp_float);
    qsort(s, REPS, sizeof *s, cmp_float), qsort(up, REPS, sizeof *up, cmp_float);
    r.frame_ms = f[REPS / 2], r.pose_ms = p[REPS / 2], r.skin_ms = s[REPS / 2], r.upload_ms = up[REPS / 2];
    free(inst);
    return r;
}

static bool load(character *c, const char *assets, const char *file, const char *const *anims, const char *name)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    sinew_error err = {0};
    if (!file) {
        c->asset = sinew_demo_create(NULL, &err);
    } else {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", assets, file);
        sinew_load_options o = {.weld_vertices = true};
        c->asset = sinew_load_file(path, &o, &err);
    }
    if (!c->asset) {
        printf("skip %s: %s\n", name, err.description);
        return false;
    }
    for (int i = 0; i < c->asset->mesh_count; ++i)
        if (c->asset->meshes[i].skin && (!c->mesh || c->asset->meshes[i].vertex_count > c->mesh->vertex_count))
            c->mesh = &c->asset->meshes[i];
    for (int i = 0; i < c->asset->clip_count && c->clip_count < 2; ++i) c->clips[c->clip_count++] = c->asset->clips[i];
    for (int f = 0; anims && anims[f] && c->clip_count < 4; ++f) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", assets, anims[f]);
        sinew_asset *a = sinew_load_file(path, NULL, &err);
        if (!a) continue;
        sinew_clip *r = sinew_clip_retarget(a->clips[0], a->skeleton, c->asset->skeleton, NULL, NULL, &err);
        if (r) c->owned[c->clip_count] = r, c->clips[c->clip_count++] = r;
        sinew_asset_free(a);
    }
    return c->mesh && c->clip_count > 0;
}

int main(int argc, char **argv)
{
    const char *assets = SINEW_ASSETS;
    int crowd_n = 350000;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--crowd") == 0 && i + 1 < argc)
            crowd_n = atoi(argv[++i]);
        else
            assets = argv[i];
    }
    sinew_error err = {0};
    if (!sinew_cuda_available(&err)) {
        printf("skip: no usable CUDA GPU: %s\n", err.description);
        return 0;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    double copy_bw = copy_bandwidth();
    printf("device: %s, %d SMs, %.0f MB L2\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
    printf("device copy bandwidth (cudaMemcpy, read + write): %.2f TB/s\n\n", copy_bw / 1e12);

    character chars[2];
    int nc = 0;
    if (load(&chars[nc], assets, NULL, NULL, "built-in character")) ++nc;
    static const char *const anims[] = {"fbx/pab/walk.fbx", "fbx/pab/run.fbx", NULL};
    if (load(&chars[nc], assets, "fbx/pab/arnaud.fbx", anims, "arnaud (welded)")) ++nc;

    printf("%-20s %-8s %-11s %9s %8s %9s %8s %10s %8s %9s %8s\n", "character", "mesh", "method", "instances",
           "B/vertex", "skin ms", "TB/s", "of copy", "Gvert/s", "pose ms", "frame ms");
    for (int k = 0; k < nc; ++k) {
        const character *c = &chars[k];
        int nv = c->mesh->vertex_count;
        enum { DISTINCT = 4096 };
        sinew_cuda_crowd *crowd = sinew_cuda_crowd_create(0, &err);
        if (!crowd) {
            fprintf(stderr, "bench_cuda: %s\n", err.description);
            return 1;
        }
        sinew_cuda_character_desc d = {c->asset->skeleton, c->clips, c->clip_count, c->mesh};
        for (int x = 0; x < 1 + DISTINCT; ++x)
            if (sinew_cuda_character_add(crowd, &d, NULL, &err) != SINEW_OK) {
                fprintf(stderr, "bench_cuda: %s\n", err.description);
                return 1;
            }
        for (int m = 0; m < KINDS; ++m) {
            sinew_skinning method = kinds[m].method;
            sinew_cuda_format format = kinds[m].format;
            const char *mname = kinds[m].name;
            /* shared mesh: character 0 for every instance; distinct: one character each */
            int shared_n = (int)(400e6 / nv) + 1; /* about 400 M vertices: the GPU filled */
            if (shared_n > crowd_n) shared_n = crowd_n;
            result rs = run(crowd, c, 0, 1, shared_n, method, format);
            result rd = run(crowd, c, 1, DISTINCT, DISTINCT, method, format);
            double vs = (double)nv * shared_n, vd = (double)nv * DISTINCT;
            /* shared: the outputs (the mesh stays in L2); distinct: instance i plays character
             * 1 + i, a mesh of its own: every instance reads its inputs too */
            double out = format == SINEW_CUDA_COMPACT ? 12.0 : 24.0;
            double bs = out, bdist = out + input_bytes(c->mesh);
            printf("%-20s %-8s %-11s %9d %8.0f %9.3f %8.2f %9.0f%% %8.1f %9.3f %8.3f\n", c->name, "shared", mname,
                   shared_n, bs, rs.skin_ms, bs * vs / (rs.skin_ms * 1e-3) / 1e12,
                   100.0 * bs * vs / (rs.skin_ms * 1e-3) / copy_bw, vs / (rs.skin_ms * 1e-3) / 1e9, rs.pose_ms,
                   rs.frame_ms);
            printf("%-20s %-8s %-11s %9d %8.0f %9.3f %8.2f %9.0f%% %8.1f %9.3f %8.3f\n", c->name, "distinct", mname,
                   DISTINCT, bdist, rd.skin_ms, bdist * vd / (rd.skin_ms * 1e-3) / 1e12,
                   100.0 * bdist * vd / (rd.skin_ms * 1e-3) / copy_bw, vd / (rd.skin_ms * 1e-3) / 1e9, rd.pose_ms,
                   rd.frame_ms);
        }
        /* characters per frame: a crowd of crowd_n sharing the mesh, the whole frame */
        for (int m = 0; m < KINDS; ++m) {
            result r = run(crowd, c, 0, 1, crowd_n, kinds[m].method, kinds[m].format);
            if (r.frame_ms <= 0.0f) continue;
            printf("%s, %s: %d characters of %d vertices in %.2f ms (upload %.2f, pose %.2f, skin %.2f): "
                   "%.0f characters per 16.6 ms frame\n",
                   c->name, kinds[m].name, crowd_n, nv, r.frame_ms,
                   r.upload_ms, r.pose_ms, r.skin_ms, crowd_n * FRAME_MS / r.frame_ms);
        }
        sinew_cuda_crowd_free(crowd);
    }
    for (int k = 0; k < nc; ++k) {
        for (int i = 0; i < 4; ++i) sinew_clip_free(chars[k].owned[i]);
        sinew_asset_free(chars[k].asset);
    }
    return 0;
}
