/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Conformance: `sinew bake` against the independent evaluator of
 * gltf_reference.c on every glTF file of ../shared/assets/gltf and on the
 * feature files gltf_features.c writes (morph targets, sheared matrices,
 * 8 influences, shared skins, sparse and quantized accessors, ...): every
 * clip and the rest pose, at times on and between keys and past the end,
 * clamped and looped (sinew bake refuses negative times). Node world matrices, positions and normals
 * must agree within 1e-5 of the model's size (normals: 1e-5 absolute).
 *
 * usage: test_gltf_conformance SINEW_BINARY SCRATCH_DIR */
#include "gltf_features.h"
#include "gltf_reference.h"
#include "sinew/sinew.h"
#include "check.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>

static const char *sinew_bin, *scratch_dir;

typedef struct worst {
    double position, normal, world; /* relative to the model size; normals absolute */
    long values;
} worst;

static cJSON *read_json(const char *path)
{
    size_t size;
    unsigned char *text = test_read_file(path, &size);
    cJSON *j = text ? cJSON_ParseWithLength((const char *)text, size) : NULL;
    free(text);
    return j;
}

/* The model's size: the diagonal of the rest pose's world positions, or of
 * the node origins when there are no meshes. */
static double model_size(const ref_doc *doc)
{
    ref_frame *f = ref_pose(doc, -1, 0.0, false);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int p = 0; p < f->primitive_count; ++p)
        for (int v = 0; v < f->primitives[p].vertex_count * 3; ++v)
            lo[v % 3] = fmin(lo[v % 3], f->primitives[p].positions[v]),
            hi[v % 3] = fmax(hi[v % 3], f->primitives[p].positions[v]);
    for (int i = 0; i < f->node_count && f->primitive_count == 0; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], f->world[i][12 + k]), hi[k] = fmax(hi[k], f->world[i][12 + k]);
    ref_frame_free(f);
    double d = 0;
    for (int k = 0; k < 3; ++k) d += hi[k] > lo[k] ? (hi[k] - lo[k]) * (hi[k] - lo[k]) : 0;
    return sqrt(d) > 0 ? sqrt(d) : 1.0;
}

static double max_gap(const cJSON *array, const double *ref, int n, double scale)
{
    if (cJSON_GetArraySize(array) != n) return INFINITY;
    double gap = 0;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, array)
    {
        double e = cJSON_IsNumber(x) ? fabs(x->valuedouble - ref[i]) / scale : INFINITY;
        if (!(e <= gap)) gap = e;
        ++i;
    }
    return gap;
}

/* Compares one baked frame with the reference at the same time. */
static void compare_frame(const char *label, const cJSON *frame, const ref_frame *ref, double size, worst *w)
{
    const cJSON *nodes = cJSON_GetObjectItem(frame, "nodes"), *meshes = cJSON_GetObjectItem(frame, "meshes");
    CHECK(cJSON_GetArraySize(nodes) == ref->node_count, "%s: %d nodes baked, %d in the file", label,
          cJSON_GetArraySize(nodes), ref->node_count);
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes)
    {
        int i = cJSON_GetObjectItem(node, "index")->valueint;
        if (i < 0 || i >= ref->node_count) continue;
        double m[16];
        memcpy(m, ref->world[i], sizeof m);
        /* translations relative to the model, the 3x3 part to its own scale */
        double axis = 0;
        for (int k = 0; k < 12; ++k) axis = fmax(axis, fabs(m[k]));
        const cJSON *world = cJSON_GetObjectItem(node, "world");
        double g = 0;
        for (int k = 0; k < 16 && cJSON_GetArraySize(world) == 16; ++k) {
            double scale = k >= 12 ? size : fmax(axis, 1e-30);
            g = fmax(g, fabs(cJSON_GetArrayItem(world, k)->valuedouble - m[k]) / scale);
        }
        if (cJSON_GetArraySize(world) != 16) g = INFINITY;
        w->world = fmax(w->world, g);
        CHECK(g <= 1e-5, "%s: nodes[%d] world matrix off by %.3g", label, i, g);
    }
    CHECK(cJSON_GetArraySize(meshes) == ref->primitive_count, "%s: %d primitives baked, %d expected", label,
          cJSON_GetArraySize(meshes), ref->primitive_count);
    const cJSON *mesh;
    cJSON_ArrayForEach(mesh, meshes)
    {
        int node_i = cJSON_GetObjectItem(mesh, "node")->valueint, mesh_i = cJSON_GetObjectItem(mesh, "mesh")->valueint,
            prim_i = cJSON_GetObjectItem(mesh, "primitive")->valueint;
        const ref_primitive *rp = NULL;
        for (int p = 0; p < ref->primitive_count; ++p) {
            const ref_primitive *q = &ref->primitives[p];
            if (q->node == node_i && q->mesh == mesh_i && q->primitive == prim_i) rp = q;
        }
        CHECK(rp != NULL, "%s: baked node %d mesh %d primitive %d is not in the scene", label, node_i, mesh_i, prim_i);
        if (!rp) continue;
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(mesh, "skinned")) == rp->skinned, "%s: node %d: skinned flag", label,
              node_i);
        int n = rp->vertex_count * 3;
        double gp = max_gap(cJSON_GetObjectItem(mesh, "positions"), rp->positions, n, size);
        w->position = fmax(w->position, gp);
        w->values += n;
        CHECK(gp <= 1e-5, "%s: node %d mesh %d primitive %d: positions off by %.3g of the model size", label, node_i,
              mesh_i, prim_i, gp);
        if (rp->has_normals) {
            double gn = max_gap(cJSON_GetObjectItem(mesh, "normals"), rp->normals, n, 1.0);
            w->normal = fmax(w->normal, gn);
            w->values += n;
            CHECK(gn <= 1e-5, "%s: node %d mesh %d primitive %d: normals off by %.3g", label, node_i, mesh_i, prim_i,
                  gn);
        }
    }
}

/* Bakes `times` of clip `clip` (-1: none) and compares every frame. */
static void check_clip(const char *path, const ref_doc *doc, int clip, const double *times, int count, bool loop,
                       double size, worst *w)
{
    char times_arg[4096] = "", clip_arg[16], out[512], cmd[8192];
    for (int i = 0; i < count; ++i) {
        size_t used = strlen(times_arg);
        snprintf(times_arg + used, sizeof times_arg - used, "%s%.9g", i ? "," : "", times[i]);
    }
    if (clip < 0)
        snprintf(clip_arg, sizeof clip_arg, "none");
    else
        snprintf(clip_arg, sizeof clip_arg, "%d", clip);
    snprintf(out, sizeof out, "%s/conformance.json", scratch_dir);
    snprintf(cmd, sizeof cmd, "'%s' bake '%s' --clip %s --times %s %s --json '%s' 2>/dev/null", sinew_bin, path,
             clip_arg, times_arg, loop ? "--loop" : "", out);
    int status = system(cmd);
    CHECK(status == 0, "%s clip %s: sinew bake exits %d", path, clip_arg, status);
    if (status != 0) return;
    cJSON *json = read_json(out);
    CHECK(json != NULL, "%s clip %s: the output is JSON", path, clip_arg);
    if (!json) return;
    const cJSON *frames = cJSON_GetObjectItem(json, "frames");
    CHECK(cJSON_GetArraySize(frames) == count, "%s clip %s: %d frames for %d times", path, clip_arg,
          cJSON_GetArraySize(frames), count);
    const cJSON *frame;
    cJSON_ArrayForEach(frame, frames)
    {
        /* the time as bake read it (a float), so both sample the same instant */
        double t = (float)cJSON_GetObjectItem(frame, "time")->valuedouble; /* 9 digits: back to the float */
        char label[600];
        snprintf(label, sizeof label, "%s clip %s t=%.9g%s", path, clip_arg, t, loop ? " loop" : "");
        ref_frame *ref = ref_pose(doc, clip, t, loop);
        compare_frame(label, frame, ref, size, w);
        ref_frame_free(ref);
    }
    cJSON_Delete(json);
}

static void check_file(const char *path)
{
    ref_doc *doc = ref_open(path);
    CHECK(doc != NULL, "%s: the reference reads it", path);
    if (!doc) return;
    double size = model_size(doc);
    worst w = {0, 0, 0, 0};
    double rest = 0.0;
    check_clip(path, doc, -1, &rest, 1, false, size, &w);
    int clips = ref_animation_count(doc);
    for (int c = 0; c < clips; ++c) {
        double d = ref_animation_duration(doc, c);
        double times[48];
        int n = 0;
        times[n++] = 0.0;
        for (int k = 0; k < 40; ++k) times[n++] = d * (k + 0.37) / 40.0; /* between keys, mostly */
        times[n++] = d;
        times[n++] = d + 0.5;
        /* float times, as bake will read them */
        for (int k = 0; k < n; ++k) times[k] = (float)times[k];
        check_clip(path, doc, c, times, n, false, size, &w);
        double looped[3] = {(float)(d * 1.37), (float)(d * 2.61), (float)(d * 3.29)};
        if (d > 0) check_clip(path, doc, c, looped, 3, true, size, &w);
    }
    printf("  %-40s %d clips, size %.3g: worst position %.2e, normal %.2e, world %.2e (of %ld values)\n",
           strrchr(path, '/') ? strrchr(path, '/') + 1 : path, clips, size, w.position, w.normal, w.world, w.values);
    ref_close(doc);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_gltf_conformance SINEW_BINARY SCRATCH_DIR\n");
        return 2;
    }
    sinew_bin = argv[1];
    scratch_dir = argv[2];
    /* the generated feature files, always */
    char **features = gltf_features_write(scratch_dir);
    CHECK(features != NULL, "feature files written to %s", scratch_dir);
    for (int i = 0; features && features[i]; ++i) check_file(features[i]);
    gltf_features_free(features);
    /* the shared sample files, when present */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/gltf", SINEW_ASSETS);
    DIR *d = opendir(dir);
    int files = 0;
    if (d) {
        struct dirent *e;
        char *names[256];
        int n = 0;
        while ((e = readdir(d)) && n < 256) {
            size_t len = strlen(e->d_name);
            if ((len > 5 && strcmp(e->d_name + len - 5, ".gltf") == 0) ||
                (len > 4 && strcmp(e->d_name + len - 4, ".glb") == 0))
                names[n++] = strdup(e->d_name);
        }
        closedir(d);
        for (int i = 0; i < n; ++i) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            check_file(path);
            free(names[i]);
            ++files;
        }
    }
    int status = check_finish("test_gltf_conformance");
    if (!files) {
        printf("skip: the sample files: %s is missing (the feature files were checked)\n", dir);
        return status ? status : 77;
    }
    return status;
}
