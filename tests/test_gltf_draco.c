/* SPDX-License-Identifier: MIT */
/* KHR_draco_mesh_compression read.
 *
 *   test_gltf_draco                     the committed seed (the fuzzers' too:
 *                                       tests/fuzz/regressions/gltf/draco_features.gltf,
 *                                       gltf-pipeline -d of the generated features
 *                                       file without its morph targets) read, and
 *                                       its fields broken one at a time; a
 *                                       primitive without POSITION skipped;
 *                                       tests/draco/amplify stopped by the
 *                                       wall's memory limit and its timeout
 *   test_gltf_draco --pipeline GP WORK  the shared glTF assets Draco-compressed
 *                                       by gltf-pipeline (GP) into WORK, read
 *                                       against the originals
 *
 * Draco quantizes positions (gltf-pipeline: 11 bits over the mesh's largest
 * extent) and may reorder and split vertices (it keeps one point per
 * distinct set of attribute values at a corner), so positions are compared
 * as point sets: the bounds, and every point's nearest point in the other
 * set, within one quantization step. Nodes and clips do not pass through
 * Draco: their world matrices must be equal, by name. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "read_file.h"
#ifdef SINEW_HAVE_DRACO
#include "import/draco.h"
#endif

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *seed_path(void)
{
    return SINEW_SOURCE_DIR "/tests/fuzz/regressions/gltf/draco_features.gltf";
}

/* Loads JSON text; *log gets the messages. */
static sinew_asset *load_text(const char *text, check_log *log, size_t max_memory, sinew_error *err)
{
    sinew_load_options o = {.base = {.logger = {check_log_fn, log}, .max_memory = max_memory}};
    return sinew_load_memory(text, strlen(text), NULL, &o, err);
}

/* The seed with `edit` applied to its parsed JSON, loaded: the result. */
typedef void (*edit_fn)(cJSON *root);

static sinew_result load_edited(edit_fn edit, size_t max_memory, sinew_error *err)
{
    size_t size;
    char *text = (char *)test_read_file(seed_path(), &size);
    if (!text) return SINEW_ERROR_IO;
    cJSON *root = cJSON_ParseWithLength(text, size);
    free(text);
    if (!root) return SINEW_ERROR_PARSE;
    edit(root);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    check_log log = {0};
    sinew_asset *a = load_text(out, &log, max_memory, err);
    free(out);
    sinew_result r = a ? SINEW_OK : err->result;
    sinew_asset_free(a);
    return r;
}

static cJSON *prim0(cJSON *root)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "meshes"), 0),
                                                  "primitives"),
                              0);
}
static cJSON *ext0(cJSON *root)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(prim0(root), "extensions"), "KHR_draco_mesh_compression");
}
static cJSON *accessor(cJSON *root, int i) { return cJSON_GetArrayItem(cJSON_GetObjectItem(root, "accessors"), i); }
static int attribute_accessor(cJSON *root, const char *name)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(prim0(root), "attributes"), name)->valueint;
}
static void set_number(cJSON *obj, const char *key, double v) { cJSON_SetNumberValue(cJSON_GetObjectItem(obj, key), v); }

static void truncate_data(cJSON *root)
{
    cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "bufferViews"),
                                     cJSON_GetObjectItem(ext0(root), "bufferView")->valueint);
    set_number(view, "byteLength", 40);
}
static void more_points(cJSON *root)
{
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(prim0(root), "attributes"))
    {
        cJSON *a = accessor(root, m->valueint);
        set_number(a, "count", cJSON_GetObjectItem(a, "count")->valuedouble + 1);
    }
}
static void more_indices(cJSON *root)
{
    cJSON *a = accessor(root, cJSON_GetObjectItem(prim0(root), "indices")->valueint);
    set_number(a, "count", cJSON_GetObjectItem(a, "count")->valuedouble + 3);
}
static void unknown_id(cJSON *root) { set_number(cJSON_GetObjectItem(ext0(root), "attributes"), "NORMAL", 99); }
static void texcoord_as_bytes(cJSON *root)
{
    cJSON *a = accessor(root, attribute_accessor(root, "TEXCOORD_0"));
    set_number(a, "componentType", 5121);
    cJSON_AddBoolToObject(a, "normalized", 1);
}
static void texcoord_as_vec3(cJSON *root)
{
    cJSON_ReplaceItemInObject(accessor(root, attribute_accessor(root, "TEXCOORD_0")), "type", cJSON_CreateString("VEC3"));
}
static void missing_attribute(cJSON *root)
{
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(prim0(root), "attributes"), "NORMAL");
}
static void strip_mode(cJSON *root) { set_number(prim0(root), "mode", 5); }
static void huge_counts(cJSON *root)
{
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(prim0(root), "attributes")) set_number(accessor(root, m->valueint), "count", 4e6);
    set_number(accessor(root, cJSON_GetObjectItem(prim0(root), "indices")->valueint), "count", 12e6);
}
static void no_view(cJSON *root) { set_number(ext0(root), "bufferView", 9999); }

static void test_seed(void)
{
    sinew_error err = {0};
    check_log log = {0};
    sinew_load_options o = {.base = {.logger = {check_log_fn, &log}}};
    sinew_asset *a = sinew_load_file(seed_path(), &o, &err);
#ifdef SINEW_HAVE_DRACO
    CHECK(a != NULL, "the Draco seed loads: %s", err.description);
    if (!a) return;
    CHECK(a->mesh_count == 7, "7 meshes, got %d", a->mesh_count);
    int with_uv = 0, skinned = 0;
    for (int i = 0; i < a->mesh_count; ++i) {
        with_uv += a->meshes[i].texcoord_count == 2 && a->meshes[i].colors != NULL;
        skinned += a->meshes[i].skin != NULL;
    }
    CHECK(with_uv >= 1, "TEXCOORD_0, TEXCOORD_1 and COLOR_0 decoded");
    CHECK(skinned >= 1, "JOINTS_0/1 and WEIGHTS_0/1 decoded into a skin");
    sinew_asset_free(a);

    const char *place = "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression";
    struct {
        edit_fn edit;
        sinew_result result;
        const char *needle;
    } cases[] = {
        {truncate_data, SINEW_ERROR_PARSE, "Draco cannot decode it"},
        {more_points, SINEW_ERROR_PARSE, "points"},
        {more_indices, SINEW_ERROR_PARSE, "triangles"},
        {unknown_id, SINEW_ERROR_PARSE, "no attribute of id 99"},
        {texcoord_as_bytes, SINEW_ERROR_PARSE, "componentType"},
        {texcoord_as_vec3, SINEW_ERROR_PARSE, "components"},
        {missing_attribute, SINEW_ERROR_PARSE, "NORMAL: not among the primitive's attributes"},
        {strip_mode, SINEW_ERROR_UNSUPPORTED, "mode 5"},
        {no_view, SINEW_ERROR_BAD_REFERENCE, "bufferView"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sinew_error e = {0};
        sinew_result r = load_edited(cases[i].edit, 0, &e);
        CHECK(r == cases[i].result && strstr(e.description, place) && strstr(e.description, cases[i].needle),
              "case %zu: expected %s naming %s and \"%s\", got %s: %s", i, sinew_result_name(cases[i].result), place,
              cases[i].needle, sinew_result_name(r), e.description);
    }
    /* counts past the limit: refused before Draco runs (the plan of the
     * scene's meshes counts the decoded copy) */
    sinew_error e = {0};
    sinew_result r = load_edited(huge_counts, 64u << 20, &e);
    CHECK(r == SINEW_ERROR_OUT_OF_MEMORY && strstr(e.description, "meshes[0].primitives[0]"),
          "huge declared counts refused: %s", e.description);
#else
    CHECK(a == NULL && err.result == SINEW_ERROR_UNSUPPORTED && strstr(err.description, "libdraco-dev") &&
              strstr(err.description, "KHR_draco_mesh_compression"),
          "without Draco the seed is refused naming libdraco-dev: %s", err.description);
    sinew_asset_free(a);
#endif
}

#ifdef SINEW_HAVE_DRACO
/* tests/draco/amplify, which fuzz_draco found: 476 bytes of Draco data
 * whose counts agree with what they declare (8 points, 4 triangles) on
 * which libdraco spends seconds and 150 MiB (a texture coordinate
 * prediction's own count sizes a vector and a loop). Walled, the decode
 * stops at the load's limit or its time and says so (under the
 * sanitizers, which run the child without a limit on its address space,
 * Draco refuses the stream after its seconds instead); the input is laid
 * out as fuzz_draco's (declarations, then the bytes). */
static void test_wall(void)
{
    size_t size;
    unsigned char *in = test_read_file(SINEW_SOURCE_DIR "/tests/draco/amplify", &size);
    CHECK(in != NULL && size > 29, "tests/draco/amplify is read");
    if (!in || size <= 29) return;
    static const int types[6] = {5120, 5121, 5122, 5123, 5125, 5126};
    int points = in[0] | in[1] << 8, indices = in[4] | in[5] << 8, count = in[8];
    sinew__draco_stream streams[8];
    float *values[8] = {0};
    uint32_t idx[64];
    for (int s = 0; s < count && s < 8; ++s) {
        const unsigned char *d = in + 9 + s * 4;
        int components = d[1] % 4 + 1;
        values[s] = calloc((size_t)points * (size_t)components + 1, 4);
        streams[s] = (sinew__draco_stream){"attribute", d[0], components, types[d[2] % 6], (d[3] & 1) != 0,
                                           (d[3] & 2) ? NULL : values[s], (d[3] & 2) ? (uint32_t *)values[s] : NULL};
    }
    size_t at = 9 + (size_t)count * 4;
    struct {
        size_t budget;
        unsigned ms;
    } limits[2] = {{16u << 20, 10000}, {1u << 30, 1500}};
    for (int k = 0; k < 2; ++k) {
        sinew_load_options o = {.assimp_timeout_ms = limits[k].ms};
        char why[240] = "";
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        sinew_result r = sinew__draco_walled(in + at, size - at, points, indices, idx, streams, count, &o,
                                             limits[k].budget, why, sizeof why);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        printf("amplify, %zu MiB and %u ms: %s: %s (%.2f s)\n", limits[k].budget >> 20, limits[k].ms,
               sinew_result_name(r), why, took);
        CHECK(r != SINEW_OK && strstr(why, "Draco") != NULL, "the walled decode stops: %s", why);
        CHECK(took < limits[k].ms / 1000.0 + 2.0, "within its time (%.2f s)", took);
    }
    for (int s = 0; s < count && s < 8; ++s) free(values[s]);
    free(in);
}
#endif

/* A primitive without POSITION is skipped with a warning (the
 * specification: such primitives are not drawn), the others load. */
static void test_no_position(void)
{
    static const char text[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;"
        "base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
        "\"max\":[1,1,0]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"NORMAL\":0}},{\"attributes\":{\"POSITION\":0}}]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
    sinew_error err = {0};
    check_log log = {0};
    sinew_asset *a = load_text(text, &log, 0, &err);
    CHECK(a != NULL, "a primitive without POSITION does not refuse the file: %s", err.description);
    if (!a) return;
    CHECK(a->mesh_count == 1 && a->meshes[0].vertex_count == 3 && a->meshes[0].source_primitive == 1,
          "the primitive with POSITION loads alone (%d meshes)", a->mesh_count);
    CHECK(strstr(log.all, "meshes[0].primitives[0].attributes: no POSITION; the primitive is skipped") != NULL,
          "the skip is said: %s", log.all);
    sinew_asset_free(a);
}

/* ---- gltf-pipeline's copies of the shared assets ------------------------------- */

static void model_matrices(const sinew_asset *a, const sinew_clip *clip, float t, sinew_mat4 *out)
{
    sinew_error err = {0};
    const sinew_skeleton *sk = a->skeleton;
    sinew_transform *local = malloc(sizeof *local * (size_t)sk->joint_count);
    if (clip) {
        sinew_clip_sample_model(clip, sk, t, SINEW_SAMPLE_CLAMP, NULL, NULL, local, out, sk->joint_count, &err);
    } else {
        sinew_rest_pose(sk, local, sk->joint_count, &err);
        sinew_local_to_model(sk, local, NULL, out, sk->joint_count, &err);
    }
    CHECK(err.result == SINEW_OK, "posed: %s", err.description);
    free(local);
}

/* every node's world matrix, by name, exactly equal: at rest and at three
 * times of each clip */
static void compare_nodes(const char *name, const sinew_asset *a, const sinew_asset *b)
{
    const sinew_skeleton *sa = a->skeleton, *sb = b->skeleton;
    CHECK(sa->joint_count == sb->joint_count, "%s: %d joints vs %d", name, sa->joint_count, sb->joint_count);
    CHECK(a->clip_count == b->clip_count, "%s: %d clips vs %d", name, a->clip_count, b->clip_count);
    if (sa->joint_count != sb->joint_count || a->clip_count != b->clip_count) return;
    sinew_mat4 *ma = malloc(sizeof *ma * (size_t)sa->joint_count), *mb = malloc(sizeof *mb * (size_t)sb->joint_count);
    int differ = 0;
    for (int c = -1; c < a->clip_count; ++c) {
        for (int k = 0; k < (c < 0 ? 1 : 3); ++k) {
            const sinew_clip *ca = c < 0 ? NULL : a->clips[c], *cb = c < 0 ? NULL : b->clips[c];
            float t = ca ? ca->duration * (float)k / 2.0f : 0.0f;
            model_matrices(a, ca, t, ma);
            model_matrices(b, cb, t, mb);
            for (int j = 0; j < sa->joint_count; ++j) {
                /* by name where the name is the joint's alone; unnamed
                 * joints (box_animated's) by their place, which
                 * gltf-pipeline keeps */
                int o = sinew_skeleton_find_joint(sa, sa->names[j]) == j ? sinew_skeleton_find_joint(sb, sa->names[j])
                                                                          : j;
                /* equal values: gltf-pipeline writes -0 as 0 */
                bool same = o >= 0;
                for (int e = 0; same && e < 16; ++e) same = ma[j].m[e] == mb[o].m[e];
                if (!same) {
                    if (!differ)
                        fprintf(stderr, "%s: clip %d time %d: joint %d \"%s\" differs\n", name, c, k, j, sa->names[j]);
                    ++differ;
                }
            }
        }
    }
    CHECK(differ == 0, "%s: %d node world matrices differ by name", name, differ);
    free(ma), free(mb);
}

/* the nearest point of `p` among `n` points, squared distance */
static double nearest(const float *p, const float *pts, int n)
{
    double best = 1e300;
    for (int i = 0; i < n; ++i) {
        double dx = p[0] - pts[i * 3], dy = p[1] - pts[i * 3 + 1], dz = p[2] - pts[i * 3 + 2];
        double d = dx * dx + dy * dy + dz * dz;
        if (d < best) best = d;
    }
    return best;
}

static void compare_meshes(const char *name, const sinew_asset *a, const sinew_asset *b)
{
    CHECK(a->mesh_count == b->mesh_count, "%s: %d meshes vs %d", name, a->mesh_count, b->mesh_count);
    if (a->mesh_count != b->mesh_count) return;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *ma = &a->meshes[m], *mb = &b->meshes[m];
        CHECK(ma->source_mesh == mb->source_mesh && ma->source_primitive == mb->source_primitive,
              "%s: meshes[%d] comes from the same primitive", name, m);
        CHECK(ma->index_count == mb->index_count, "%s: meshes[%d]: %d indices vs %d", name, m, ma->index_count,
              mb->index_count);
        CHECK((ma->skin != NULL) == (mb->skin != NULL), "%s: meshes[%d]: skinned in both or neither", name, m);
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        for (int v = 0; v < ma->vertex_count; ++v)
            for (int c = 0; c < 3; ++c) {
                float x = ma->positions[v * 3 + c];
                lo[c] = x < lo[c] ? x : lo[c], hi[c] = x > hi[c] ? x : hi[c];
            }
        double extent = 0.0;
        for (int c = 0; c < 3; ++c) extent = hi[c] - lo[c] > extent ? hi[c] - lo[c] : extent;
        /* one step of 11-bit quantization over the largest extent bounds
         * a point's move (half a step per axis: sqrt(3)/2 of a step) */
        double step = extent / 2047.0 + 1e-7;
        float blo[3] = {1e30f, 1e30f, 1e30f}, bhi[3] = {-1e30f, -1e30f, -1e30f};
        for (int v = 0; v < mb->vertex_count; ++v)
            for (int c = 0; c < 3; ++c) {
                float x = mb->positions[v * 3 + c];
                blo[c] = x < blo[c] ? x : blo[c], bhi[c] = x > bhi[c] ? x : bhi[c];
            }
        for (int c = 0; c < 3; ++c) {
            CHECK_NEAR(lo[c], blo[c], step, "bounds' low corner");
            CHECK_NEAR(hi[c], bhi[c], step, "bounds' high corner");
        }
        double worst = 0.0;
        for (int v = 0; v < ma->vertex_count; ++v) {
            double d = nearest(&ma->positions[v * 3], mb->positions, mb->vertex_count);
            worst = d > worst ? d : worst;
        }
        for (int v = 0; v < mb->vertex_count; ++v) {
            double d = nearest(&mb->positions[v * 3], ma->positions, ma->vertex_count);
            worst = d > worst ? d : worst;
        }
        CHECK(sqrt(worst) <= step, "%s: meshes[%d]: a point is %g from the other set's nearest (step %g)", name, m,
              sqrt(worst), step);
        printf("%s: meshes[%d]: %d vertices, Draco %d; farthest nearest point %.3g (step %.3g)\n", name, m,
               ma->vertex_count, mb->vertex_count, sqrt(worst), step);
    }
}

static int test_pipeline(const char *gp, const char *work)
{
    if (access(gp, X_OK) != 0) {
        printf("skip: %s is missing (scripts/test installs gltf-pipeline into tests/gltf_pipeline)\n", gp);
        return 77;
    }
    static const char *const names[] = {"triangle", "box_animated", "rigged_simple", "cesium_man"};
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", work);
    if (system(cmd) != 0) return 1;
    int compared = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char src[1024], dst[1024];
        snprintf(src, sizeof src, "%s/gltf/%s.gltf", SINEW_ASSETS, names[i]);
        snprintf(dst, sizeof dst, "%s/%s.draco.glb", work, names[i]);
        if (access(src, R_OK) != 0) {
            printf("skip: %s is missing (the shared assets)\n", src);
            continue;
        }
        snprintf(cmd, sizeof cmd, "'%s' -i '%s' -o '%s' -d > '%s/%s.log' 2>&1", gp, src, dst, work, names[i]);
        CHECK(system(cmd) == 0, "gltf-pipeline compresses %s", src);
        sinew_error ea = {0}, eb = {0};
        sinew_asset *a = sinew_load_file(src, NULL, &ea), *b = sinew_load_file(dst, NULL, &eb);
        CHECK(a && b, "%s loads (%s) and its Draco copy too (%s)", names[i], ea.description, eb.description);
        if (a && b) {
            compare_nodes(names[i], a, b);
            compare_meshes(names[i], a, b);
            ++compared;
        }
        sinew_asset_free(a), sinew_asset_free(b);
    }
    if (!compared) {
        printf("skip: no shared glTF asset to compress\n");
        return 77;
    }
    return check_finish("gltf_draco_pipeline");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--pipeline") == 0) {
#ifndef SINEW_HAVE_DRACO
        printf("skip: sinew was built without Draco (apt-get install libdraco-dev)\n");
        return 77;
#else
        return test_pipeline(argv[2], argv[3]);
#endif
    }
    test_seed();
    test_no_position();
#ifdef SINEW_HAVE_DRACO
    test_wall();
#endif
    return check_finish("test_gltf_draco");
}
