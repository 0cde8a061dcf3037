/* SPDX-License-Identifier: MIT */
/* EXT_meshopt_compression, read and written.
 * Read: a small file gltfpack wrote (-cc -vpf: ATTRIBUTES with the
 * OCTAHEDRAL, QUATERNION and EXPONENTIAL filters, TRIANGLES; the fuzzers'
 * seed) loads, and each field of a compressed view, broken one at a time,
 * fails naming its place before anything is decoded. Without
 * libmeshoptimizer-dev the file is refused naming it.
 * Written (test_gltf_meshopt SINEW DIR): the built-in character and the
 * shared glTF assets written with options.meshopt, with and without
 * quantize, into DIR (which the ctest gltf_meshopt_validator then hands to
 * the Khronos validator). meshopt's codecs are lossless, so each file must
 * load to the very meshes of its twin written without meshopt (every
 * stream compared bit for bit; the triangles as the same corners in the
 * same winding, which the TRIANGLES codec may rotate) and `sinew bake`
 * both the same text; the
 * twin's own round trip against the source is test_gltf_write's. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "check.h"
#include "shared_asset.h"

#include <stdlib.h>

#define ASSETS SINEW_SOURCE_DIR "/../shared/assets/gltf/"

#define SEED SINEW_SOURCE_DIR "/tests/fuzz/regressions/gltf/seed-17a209b0bd5df8b57c516a39d955684f2dd8e75a"

static char *read_text(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *size = fread(s, 1, (size_t)n, f);
    s[*size] = '\0';
    fclose(f);
    return s;
}

/* The seed with the first occurrence of `from` replaced by `to`. */
static char *edited(const char *text, const char *from, const char *to, size_t *size)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL, "the seed holds %s", from);
    if (!at) return NULL;
    size_t head = (size_t)(at - text), tail = strlen(at + strlen(from));
    char *s = malloc(head + strlen(to) + tail + 1);
    memcpy(s, text, head);
    memcpy(s + head, to, strlen(to));
    memcpy(s + head + strlen(to), at + strlen(from), tail + 1);
    *size = strlen(s);
    return s;
}

static void expect_error(const char *text, const char *from, const char *to, sinew_result result, const char *needle)
{
    size_t size;
    char *s = edited(text, from, to, &size);
    if (!s) return;
    sinew_error err = {0};
    sinew_asset *a = sinew_load_memory(s, size, "meshopt.gltf", NULL, &err);
    CHECK(a == NULL, "%s -> %s loads", from, to);
    CHECK_ERROR(err, result, needle);
    sinew_asset_free(a);
    free(s);
}

#ifdef SINEW_HAVE_MESHOPT
static bool same(const void *a, const void *b, size_t bytes)
{
    return (!a && !b) || (a && b && memcmp(a, b, bytes) == 0);
}

/* the same triangles, each maybe rotated (a b c as b c a or c a b): the
 * TRIANGLES codec keeps winding, not the first corner */
static bool same_triangles(const uint32_t *a, const uint32_t *b, int count)
{
    if (!a || !b) return a == b;
    for (int t = 0; t + 2 < count; t += 3) {
        bool found = false;
        for (int r = 0; r < 3 && !found; ++r)
            found = a[t] == b[t + r] && a[t + 1] == b[t + (r + 1) % 3] && a[t + 2] == b[t + (r + 2) % 3];
        if (!found) return false;
    }
    return true;
}

/* `sinew bake` of `path` without its first line (which names the file) */
static char *bake(const char *sinew, const char *path)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' bake '%s' --times 0,0.3,0.7,1.1 2>/dev/null", sinew, path);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *s = malloc(cap);
    for (size_t got; (got = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) s = realloc(s, cap *= 2);
    }
    s[n] = '\0';
    int status = pclose(f);
    CHECK(status == 0, "%s: sinew bake failed", path);
    char *nl = strchr(s, '\n');
    memmove(s, nl ? nl + 1 : s, strlen(nl ? nl + 1 : s) + 1);
    return s;
}

static void write_pair(const char *sinew, const char *dir, const sinew_asset *src, const char *name, bool quantize)
{
    char plain[1024], packed[1024];
    snprintf(plain, sizeof plain, "%s/%s%s.glb", dir, name, quantize ? ".quantized" : "");
    snprintf(packed, sizeof packed, "%s/%s%s.meshopt.glb", dir, name, quantize ? ".quantized" : "");
    sinew_gltf_write_options o = {.quantize = quantize};
    sinew_gltf_write_report rp = {0}, rm = {0};
    sinew_error err = {0};
    CHECK(sinew_write_gltf(src, plain, &o, &rp, &err) == SINEW_OK, "%s: %s", plain, err.description);
    o.meshopt = true;
    CHECK(sinew_write_gltf(src, packed, &o, &rm, &err) == SINEW_OK, "%s: %s", packed, err.description);
    CHECK(rm.meshopt_views > 0 && rm.meshopt_bytes > 0, "%s: %d views compressed", packed, rm.meshopt_views);
    CHECK(rp.meshopt_views == 0, "%s: %d views compressed", plain, rp.meshopt_views);
    sinew_asset *a = sinew_load_file(plain, NULL, &err);
    CHECK(a != NULL, "%s: %s", plain, err.description);
    sinew_asset *b = sinew_load_file(packed, NULL, &err);
    CHECK(b != NULL, "%s: %s", packed, err.description);
    if (a && b) {
        CHECK(a->mesh_count == b->mesh_count && a->clip_count == b->clip_count &&
                  a->skeleton->joint_count == b->skeleton->joint_count,
              "%s: %d meshes, %d clips, %d joints vs %d, %d, %d", packed, b->mesh_count, b->clip_count,
              b->skeleton->joint_count, a->mesh_count, a->clip_count, a->skeleton->joint_count);
        for (int m = 0; m < a->mesh_count && m < b->mesh_count; ++m) {
            const sinew_mesh *x = &a->meshes[m], *y = &b->meshes[m];
            size_t v3 = sizeof(float) * 3 * (size_t)x->vertex_count, v4 = v3 / 3 * 4, v2 = v3 / 3 * 2;
            bool ok = x->vertex_count == y->vertex_count && x->index_count == y->index_count &&
                      x->texcoord_count == y->texcoord_count && same(x->positions, y->positions, v3) &&
                      same(x->normals, y->normals, v3) && same(x->tangents, y->tangents, v4) &&
                      same(x->colors, y->colors, v4) &&
                      same_triangles(x->indices, y->indices, x->index_count);
            for (int t = 0; ok && t < x->texcoord_count; ++t) ok = same(x->texcoords[t], y->texcoords[t], v2);
            if (ok && x->morph)
                ok = y->morph && x->morph->target_count == y->morph->target_count &&
                     same(x->morph->positions, y->morph->positions, v3 * (size_t)x->morph->target_count) &&
                     same(x->morph->normals, y->morph->normals, v3 * (size_t)x->morph->target_count);
            CHECK(ok, "%s: meshes[%d] differs from %s's", packed, m, plain);
        }
        char *ba = bake(sinew, plain), *bb = bake(sinew, packed);
        CHECK(ba && bb && strcmp(ba, bb) == 0, "%s bakes otherwise than %s", packed, plain);
        free(ba), free(bb);
    }
    sinew_asset_free(a);
    sinew_asset_free(b);
}

static void check_write(const char *sinew, const char *dir)
{
    sinew_error err = {0};
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "%s", err.description);
    if (demo) {
        write_pair(sinew, dir, demo, "demo", false);
        write_pair(sinew, dir, demo, "demo", true);
    }
    sinew_asset_free(demo);
    static const char *const names[] = {"box_animated", "cesium_man", "interpolation_test", "rigged_simple",
                                        "triangle"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        char path[1024];
        snprintf(path, sizeof path, ASSETS "%s.gltf", names[i]);
        sinew_asset *a = test_load_shared(path);
        if (!a) continue;
        write_pair(sinew, dir, a, names[i], false);
        write_pair(sinew, dir, a, names[i], true);
        sinew_asset_free(a);
    }
}
#endif

int main(int argc, char **argv)
{
    size_t size;
    char *text = read_text(SEED, &size);
    CHECK(text != NULL, "%s", SEED);
    if (!text) return check_finish("test_gltf_meshopt");
    sinew_error err = {0};
    sinew_asset *a = sinew_load_memory(text, size, "meshopt.gltf", NULL, &err);
#ifndef SINEW_HAVE_MESHOPT
    CHECK(a == NULL, "loads without meshoptimizer");
    CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, "libmeshoptimizer-dev");
    if (argc == 3) {
        sinew_asset *demo = sinew_demo_create(NULL, &err);
        sinew_gltf_write_options o = {.meshopt = true};
        char path[1024];
        snprintf(path, sizeof path, "%s/demo.meshopt.glb", argv[2]);
        CHECK(sinew_write_gltf(demo, path, &o, NULL, &err) == SINEW_ERROR_UNSUPPORTED, "writes without meshoptimizer");
        CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, "libmeshoptimizer-dev");
        sinew_asset_free(demo);
    }
    (void)argv;
#else
    CHECK(a != NULL, "%s", err.description);
    if (a) {
        CHECK(a->mesh_count == 1 && a->meshes[0].vertex_count == 160, "%d meshes", a->mesh_count);
        CHECK(a->clip_count == 1, "%d clips", a->clip_count);
        /* OCTAHEDRAL normals decode to unit length, to what 8-bit components hold */
        const sinew_mesh *m = &a->meshes[0];
        float worst = 0;
        for (int v = 0; m->normals && v < m->vertex_count; ++v) {
            const float *n = &m->normals[3 * v];
            float e = fabsf(sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1);
            worst = e > worst ? e : worst;
        }
        CHECK(m->normals && worst < 1e-2f, "normals off unit length by %g", worst);
    }
    sinew_asset_free(a);

    const char *first = "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"count\":160";
    expect_error(text, "\"mode\":\"ATTRIBUTES\"", "\"mode\":\"POINTS\"", SINEW_ERROR_PARSE, "bufferViews[0].extensions.EXT_meshopt_compression.mode");
    expect_error(text, first, "\"byteStride\":6,\"mode\":\"ATTRIBUTES\",\"count\":160", SINEW_ERROR_PARSE, "not a multiple of 4");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"count\":161", SINEW_ERROR_PARSE, "is not bufferViews[0].byteLength 640");
    expect_error(text, first, "\"byteStride\":8,\"mode\":\"ATTRIBUTES\",\"count\":80", SINEW_ERROR_PARSE, "differs from bufferViews[0].byteStride 4");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"INDICES\",\"filter\":\"OCTAHEDRAL\",\"count\":160", SINEW_ERROR_PARSE, "needs mode ATTRIBUTES");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"filter\":\"QUATERNION\",\"count\":160", SINEW_ERROR_PARSE, "does not suit filter QUATERNION");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"filter\":\"ZIP\",\"count\":160", SINEW_ERROR_PARSE, ".filter: \"ZIP\"");
    expect_error(text, "\"byteOffset\":0,\"byteLength\":77", "\"byteOffset\":0,\"byteLength\":7", SINEW_ERROR_TRUNCATED, "cannot hold 160 ATTRIBUTES elements");
    expect_error(text, "\"byteOffset\":0,\"byteLength\":77", "\"byteOffset\":2270,\"byteLength\":77", SINEW_ERROR_OUT_OF_BOUNDS, "exceeds buffers[0]");
    expect_error(text, "\"EXT_meshopt_compression\":{\"buffer\":0", "\"EXT_meshopt_compression\":{\"buffer\":1", SINEW_ERROR_BAD_REFERENCE, "placeholder without data");
    /* a stream that ends early: the decoder's return code, with the place */
    expect_error(text, "\"byteOffset\":0,\"byteLength\":77", "\"byteOffset\":1,\"byteLength\":77", SINEW_ERROR_PARSE, "does not decode (meshopt_decodeVertexBuffer returned");
    /* a view that reads the placeholder without decoding */
    expect_error(text, ",\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":0,\"byteLength\":77,\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"count\":160}}", "", SINEW_ERROR_BAD_URI, "bufferViews[0]: buffers[1] has no uri");

    /* the decoded bytes count against the load's limit before decoding:
     * some limit passes the JSON and stops at a view */
    bool stopped = false;
    for (size_t limit = 4 << 10; limit < (4 << 20) && !stopped; limit += 256) {
        sinew_load_options small = {.base.max_memory = limit};
        a = sinew_load_memory(text, size, "meshopt.gltf", &small, &err);
        stopped = !a && err.result == SINEW_ERROR_OUT_OF_MEMORY &&
                  strstr(err.description, ".extensions.EXT_meshopt_compression: decoding") != NULL;
        sinew_asset_free(a);
        if (a) break;
    }
    CHECK(stopped, "no limit stops the load at a compressed view");
    if (argc == 3) check_write(argv[1], argv[2]);
#endif
    free(text);
    return check_finish("test_gltf_meshopt");
}
